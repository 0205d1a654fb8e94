//===- Calibration.cpp - int8 calibration tables --------------------------===//

#include "codegen/Calibration.h"

#include "runtime/AtomicFile.h"
#include "runtime/Hash.h"

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

using namespace tgc::codegen;

const char *tgc::codegen::toString(Calibrator calibrator) {
  switch (calibrator) {
  case Calibrator::MinMax:
    return "minmax";
  case Calibrator::Entropy:
    return "entropy";
  case Calibrator::Percentile:
    return "percentile";
  }
  return "minmax";
}

std::optional<Calibrator> tgc::codegen::parseCalibrator(std::string_view text) {
  std::string lower = absl::AsciiStrToLower(std::string(text));
  if (lower == "minmax")
    return Calibrator::MinMax;
  if (lower == "entropy")
    return Calibrator::Entropy;
  if (lower == "percentile")
    return Calibrator::Percentile;
  return std::nullopt;
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

void TensorStatistics::addRange(const float *data, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    double v = data[i];
    if (std::isnan(v))
      continue;
    if (elements == 0) {
      minimum = maximum = v;
    } else {
      minimum = std::min(minimum, v);
      maximum = std::max(maximum, v);
    }
    ++elements;
  }
}

double TensorStatistics::absMax() const {
  return std::max(std::abs(minimum), std::abs(maximum));
}

void TensorStatistics::addHistogram(const float *data, int64_t count) {
  if (bins.empty())
    bins.assign(kBins, 0);
  double range = absMax();
  if (!(range > 0) || !std::isfinite(range))
    return;
  double perUnit = kBins / range;
  for (int64_t i = 0; i < count; ++i) {
    double v = std::abs(static_cast<double>(data[i]));
    // Zeros (half of what a ReLU writes) quantize exactly at any scale:
    // counted, they would pull the entropy calibrator to clip the rest.
    if (std::isnan(v) || v == 0)
      continue;
    auto bin = static_cast<int64_t>(v * perUnit);
    ++bins[static_cast<size_t>(std::clamp<int64_t>(bin, 0, kBins - 1))];
  }
}

double tgc::codegen::percentileThreshold(const std::vector<uint64_t> &bins,
                                         double binWidth, double percentile) {
  uint64_t total = 0;
  for (uint64_t b : bins)
    total += b;
  if (total == 0)
    return 0;
  double wanted = static_cast<double>(total) * percentile / 100.0;
  uint64_t seen = 0;
  for (size_t i = 0; i < bins.size(); ++i) {
    seen += bins[i];
    if (static_cast<double>(seen) >= wanted)
      return static_cast<double>(i + 1) * binWidth;
  }
  return static_cast<double>(bins.size()) * binWidth;
}

double tgc::codegen::entropyThreshold(const std::vector<uint64_t> &bins,
                                      double binWidth, int levels) {
  const size_t total = bins.size();
  const size_t target = static_cast<size_t>(levels) + 1;
  if (total <= target)
    return static_cast<double>(total) * binWidth;
  std::vector<double> suffix(total + 1, 0); // mass at and above each bin
  for (size_t i = total; i-- > 0;)
    suffix[i] = suffix[i + 1] + static_cast<double>(bins[i]);
  if (suffix[0] == 0)
    return static_cast<double>(total) * binWidth;
  double bestDivergence = std::numeric_limits<double>::infinity();
  size_t best = total;
  std::vector<double> p, q;
  for (size_t i = target; i <= total; ++i) {
    // P: the first i bins, the outliers folded into the last of them.
    p.assign(bins.begin(), bins.begin() + static_cast<std::ptrdiff_t>(i));
    p[i - 1] += suffix[i];
    // Q: the first i bins merged into `target` bins, then spread back
    // evenly over the bins that held something.
    q.assign(i, 0);
    double merged = static_cast<double>(i) / static_cast<double>(target);
    for (size_t j = 0; j < target; ++j) {
      size_t start = static_cast<size_t>(static_cast<double>(j) * merged);
      size_t end =
          j + 1 == target
              ? i
              : static_cast<size_t>(static_cast<double>(j + 1) * merged);
      double sum = 0;
      size_t nonzero = 0;
      for (size_t k = start; k < end; ++k) {
        sum += static_cast<double>(bins[k]);
        nonzero += bins[k] != 0;
      }
      if (nonzero == 0)
        continue;
      for (size_t k = start; k < end; ++k)
        if (bins[k] != 0)
          q[k] = sum / static_cast<double>(nonzero);
    }
    double pTotal = 0, qTotal = 0;
    for (size_t k = 0; k < i; ++k) {
      pTotal += p[k];
      qTotal += q[k];
    }
    if (pTotal == 0 || qTotal == 0)
      continue;
    // KL(P || Q); a bin P holds and Q does not (the folded outliers) costs
    // as if Q held a small fraction there.
    constexpr double kEpsilon = 1e-4;
    double divergence = 0;
    for (size_t k = 0; k < i; ++k) {
      if (p[k] == 0)
        continue;
      double pk = p[k] / pTotal;
      double qk = q[k] > 0 ? q[k] / qTotal : kEpsilon / qTotal;
      divergence += pk * std::log(pk / qk);
    }
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = i;
    }
  }
  return (static_cast<double>(best) + 0.5) * binWidth;
}

double TensorStatistics::threshold(Calibrator calibrator, int levels) const {
  double range = absMax();
  if (!(range > 0) || !std::isfinite(range))
    return 1;
  double binWidth = range / kBins;
  double t = range;
  switch (calibrator) {
  case Calibrator::MinMax:
    break;
  case Calibrator::Entropy:
    if (!bins.empty())
      t = entropyThreshold(bins, binWidth, levels);
    break;
  case Calibrator::Percentile:
    if (!bins.empty())
      t = percentileThreshold(bins, binWidth, 99.99);
    break;
  }
  return std::min(t > 0 ? t : range, range);
}

//===----------------------------------------------------------------------===//
// Tables
//===----------------------------------------------------------------------===//

ActivationQuantization CalibrationEntry::quantization(bool asymmetric) const {
  ActivationQuantization q;
  if (unsignedValues()) {
    q.unsignedValues = true;
    double hi = std::min(max, threshold);
    q.scale = hi > 0 ? static_cast<float>(hi / 255.0) : 1.0f;
    return q;
  }
  if (!asymmetric) {
    q.scale = static_cast<float>(threshold / 127.0);
    return q;
  }
  double lo = std::max(min, -threshold),
         hi = std::max(std::min(max, threshold), 0.0);
  q.unsignedValues = true;
  if (!(hi - lo > 0))
    return q;
  q.scale = static_cast<float>((hi - lo) / 255.0);
  q.zeroPoint = static_cast<int32_t>(
      std::clamp(std::nearbyint(-lo / q.scale), 0.0, 255.0));
  return q;
}

tgc::Status CalibrationTable::exclude(const std::vector<std::string> &names) {
  for (const std::string &given : names) {
    // "... (node 'NAME' (Op, opset N))#K", "... (node #I (Op, ...))#K" for
    // an unnamed node (`name` "#I"), or "LOCATION#K" / "LOCATION:COL#K"
    // (its file's directories dropped, as in the keys).
    const std::string &name = given;
    std::string location = normalizeCalibrationKey(given);
    std::string named = "(node '" + name + "' (";
    std::string unnamed = "(node " + name + " (";
    auto matches = [&](const std::string &key) {
      if (key.find(named) != std::string::npos ||
          (name.size() > 1 && name[0] == '#' &&
           key.find(unnamed) != std::string::npos))
        return true;
      if (location.empty() || key.compare(0, location.size(), location) != 0)
        return false;
      char next = key.size() > location.size() ? key[location.size()] : '\0';
      return next == ':' || next == '#' || next == ' ';
    };
    size_t removed = 0;
    for (auto it = entries.begin(); it != entries.end();)
      if (matches(it->first)) {
        it = entries.erase(it);
        ++removed;
      } else {
        ++it;
      }
    if (!removed)
      return absl::InvalidArgumentError(
          "no calibrated contraction is named '" + name +
          "' (an ONNX node name, or a source location file:line)");
  }
  return absl::OkStatus();
}

std::string tgc::codegen::normalizeCalibrationKey(std::string_view key) {
  size_t colon = key.find(':');
  std::string_view file = key.substr(0, colon);
  size_t slash = file.rfind('/');
  if (colon == std::string_view::npos || slash == std::string_view::npos)
    return std::string(key);
  return std::string(key.substr(slash + 1));
}

const CalibrationEntry *CalibrationTable::find(const std::string &key) const {
  auto it = entries.find(normalizeCalibrationKey(key));
  return it == entries.end() ? nullptr : &it->second;
}

namespace {
constexpr const char *kHeader = "# tgc calibration table v1";

std::string number(double v) {
  char buffer[64];
  auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, v);
  return ec == std::errc() ? std::string(buffer, end) : "nan";
}

std::optional<double> parseNumber(std::string_view text) {
  double v = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() ||
      !std::isfinite(v))
    return std::nullopt;
  return v;
}

std::vector<std::string_view> split(std::string_view line, char separator) {
  std::vector<std::string_view> fields;
  size_t start = 0;
  for (size_t at; (at = line.find(separator, start)) != std::string_view::npos;
       start = at + 1)
    fields.push_back(line.substr(start, at - start));
  fields.push_back(line.substr(start));
  return fields;
}
} // namespace

std::string CalibrationTable::serialize() const {
  std::string text = std::string(kHeader) + "\n";
  absl::StrAppend(&text, "calibrator\t", toString(calibrator), "\n");
  absl::StrAppend(&text, "activations\t",
                  asymmetric ? "asymmetric" : "symmetric", "\n");
  absl::StrAppend(&text, "samples\t", samples, "\n");
  for (const auto &[key, entry] : entries)
    absl::StrAppend(&text, key, "\t", number(entry.min), "\t",
                    number(entry.max), "\t", number(entry.threshold), "\n");
  return text;
}

tgc::StatusOr<CalibrationTable>
CalibrationTable::parse(const std::string &text, const std::string &source) {
  CalibrationTable table;
  std::istringstream in(text);
  std::string line;
  int number = 0;
  auto error = [&](const std::string &what) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ":", number, ": ", what));
  };
  bool header = false, calibratorSeen = false, samplesSeen = false,
       schemeSeen = false;
  while (std::getline(in, line)) {
    ++number;
    if (!header) {
      if (line != kHeader)
        return error(absl::StrCat("not a tgc calibration table (expected '",
                                  kHeader, "')"));
      header = true;
      continue;
    }
    if (line.empty())
      continue;
    std::vector<std::string_view> fields = split(line, '\t');
    if (fields[0] == "calibrator" && fields.size() == 2 && !calibratorSeen) {
      auto calibrator = parseCalibrator(fields[1]);
      if (!calibrator)
        return error(
            absl::StrCat("unknown calibrator '", std::string(fields[1]), "'"));
      table.calibrator = *calibrator;
      calibratorSeen = true;
      continue;
    }
    if (fields[0] == "activations" && fields.size() == 2 && !schemeSeen) {
      if (fields[1] != "asymmetric" && fields[1] != "symmetric")
        return error("activations are 'asymmetric' or 'symmetric'");
      table.asymmetric = fields[1] == "asymmetric";
      schemeSeen = true;
      continue;
    }
    if (fields[0] == "samples" && fields.size() == 2 && !samplesSeen) {
      auto samples = parseNumber(fields[1]);
      if (!samples || *samples < 0)
        return error("the sample count must be a number >= 0");
      table.samples = static_cast<int64_t>(*samples);
      samplesSeen = true;
      continue;
    }
    if (fields.size() != 4)
      return error("an entry has 4 tab-separated fields (key, min, max, "
                   "threshold)");
    CalibrationEntry entry;
    auto min = parseNumber(fields[1]), max = parseNumber(fields[2]),
         threshold = parseNumber(fields[3]);
    if (!min || !max || !threshold)
      return error("min, max and threshold must be finite numbers");
    if (*min > *max || !(*threshold > 0))
      return error("an entry needs min <= max and a threshold > 0");
    entry.min = *min;
    entry.max = *max;
    entry.threshold = *threshold;
    if (!table.entries.emplace(normalizeCalibrationKey(fields[0]), entry)
             .second)
      return error(
          absl::StrCat("key '", std::string(fields[0]), "' appears twice"));
  }
  if (!header)
    return absl::InvalidArgumentError(source +
                                      ": empty, not a tgc calibration table");
  return table;
}

tgc::Status CalibrationTable::save(const std::string &path) const {
  std::string text = serialize();
  return runtime::writeFileAtomically(path, [&](const runtime::ByteSink &sink) {
    sink(text.data(), text.size());
  });
}

std::string CalibrationTable::digest() const {
  std::string text = serialize();
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(
                    runtime::hash64(text.data(), text.size())));
  return hex;
}

tgc::StatusOr<std::shared_ptr<const CalibrationTable>>
CalibrationTable::loadShared(const std::string &path) {
  auto table = load(path);
  if (!table.ok())
    return table.status();
  return std::make_shared<const CalibrationTable>(*std::move(table));
}

tgc::StatusOr<Calibrator>
tgc::codegen::calibratorOf(const CalibrationOptions &options) {
  auto calibrator = parseCalibrator(options.calibrator);
  if (!calibrator)
    return absl::InvalidArgumentError("unknown calibrator '" +
                                      options.calibrator +
                                      "' (minmax, entropy or percentile)");
  if (options.tablePath.empty())
    return absl::InvalidArgumentError("CalibrationOptions::tablePath is empty");
  return *calibrator;
}

tgc::StatusOr<CalibrationTable>
CalibrationTable::load(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError("cannot read the calibration table '" + path +
                               "'");
  std::string text((std::istreambuf_iterator<char>(in)), {});
  return parse(text, path);
}
