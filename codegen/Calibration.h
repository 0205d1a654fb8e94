//===- Calibration.h - int8 calibration tables ------------------*- C++ -*-===//
//
// Post-training int8 quantization (docs/precision.md, "int8"): a
// calibration run records, for each contraction's activation input, its
// range over the calibration samples; a calibrator turns the statistics
// into a clipping threshold; the table of thresholds is saved to a file
// and read back by later compiles (TF-TRT's calibration table), which
// quantize each activation with scale threshold / 255 (never negative:
// u8) or threshold / 127 (s8).
//
// Statistics are of elements, not of samples: min and max over every
// element seen, and a histogram of |x| over [0, max |x|) in fixed bins
// whose range the first pass fixed; so a table does not depend on how the
// samples were batched (the same elements in batches of 1 or 32 give the
// same table).
//
// No MLIR here: the keys are strings the CPU planner gives its
// contraction steps (codegen::contractionKeys).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_CODEGEN_CALIBRATION_H
#define TGC_CODEGEN_CALIBRATION_H

#include "tgc/AbslStatus.h"
#include "tgc/Precision.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tgc::codegen {

/// How a tensor's statistics become its clipping threshold.
enum class Calibrator {
  /// max |x| over every sample: no clipping.
  MinMax,
  /// TensorRT's entropy calibration: the threshold whose quantized
  /// distribution is closest (Kullback-Leibler) to the observed one.
  Entropy,
  /// The 99.99th percentile of |x|.
  Percentile,
};
const char *toString(Calibrator calibrator);
/// "minmax", "entropy", "percentile" (any case); nullopt otherwise.
std::optional<Calibrator> parseCalibrator(std::string_view text);

/// The statistics of one tensor over the calibration samples.
class TensorStatistics {
public:
  /// Bins of the |x| histogram.
  static constexpr int kBins = 2048;
  /// Pass 1: min and max.
  void addRange(const float *data, int64_t count);
  /// Pass 2 (after every addRange): the |x| histogram over
  /// [0, max(|min|, |max|)] of the nonzero elements (zeros quantize
  /// exactly whatever the threshold).
  void addHistogram(const float *data, int64_t count);

  double min() const { return minimum; }
  double max() const { return maximum; }
  double absMax() const;
  int64_t count() const { return elements; }
  const std::vector<uint64_t> &histogram() const { return bins; }

  /// The clipping threshold `calibrator` picks (> 0; 1 for a tensor of
  /// zeros). Entropy and Percentile need the histogram. `levels` is the
  /// number of positive quantization levels (255 for u8, 127 for s8).
  double threshold(Calibrator calibrator, int levels) const;

private:
  double minimum = 0, maximum = 0;
  int64_t elements = 0;
  std::vector<uint64_t> bins;
};

/// The threshold of the entropy calibrator over a |x| histogram of
/// `bins.size()` bins of `binWidth`, quantized to `levels` + 1 bins
/// (exposed for tests).
double entropyThreshold(const std::vector<uint64_t> &bins, double binWidth,
                        int levels);
/// The `percentile` (0-100) of a |x| histogram, at its bin's upper edge.
double percentileThreshold(const std::vector<uint64_t> &bins, double binWidth,
                           double percentile);

/// How an activation is quantized: x_q = round(x / scale) + zeroPoint,
/// saturated to u8 (`unsignedValues`) or s8.
struct ActivationQuantization {
  float scale = 1;
  bool unsignedValues = false;
  int32_t zeroPoint = 0;
};

/// One calibrated activation.
struct CalibrationEntry {
  double min = 0, max = 0;
  /// The clipping threshold the calibrator picked (> 0).
  double threshold = 1;
  /// Never negative over the samples.
  bool unsignedValues() const { return min >= 0; }
  /// Its quantization: never negative, u8 over [0, min(max, threshold)];
  /// else with `asymmetric` u8 over [max(min, -threshold), min(max,
  /// threshold)] with a zero point, without it s8 over [-threshold,
  /// threshold].
  ActivationQuantization quantization(bool asymmetric) const;
  bool operator==(const CalibrationEntry &) const = default;
};

/// A contraction's key (codegen::contractionKeys: its location, "#" and an
/// index) without the directories of the file its location starts with:
/// "models/m.onnx:0:0 (node 'conv')#0" is "m.onnx:0:0 (node 'conv')#0", so
/// a table serves a model however its path is spelled. Keys are made,
/// parsed and looked up in this form.
std::string normalizeCalibrationKey(std::string_view key);

/// Appended to a contraction's key for the range of the residual it adds
/// (a shortcut's value: runtime::Step::calibrationResidual).
inline constexpr const char *kResidualKeySuffix = ".residual";

/// A calibration table: activation key -> entry.
class CalibrationTable {
public:
  Calibrator calibrator = Calibrator::MinMax;
  /// Signed activations quantized asymmetric (u8 with a zero point: all
  /// 256 levels over their range, ONNX Runtime's default) rather than
  /// symmetric (s8, zero point 0).
  bool asymmetric = true;
  /// The number of samples (and elements of the first key) it came from.
  int64_t samples = 0;
  std::map<std::string, CalibrationEntry> entries;

  const CalibrationEntry *find(const std::string &key) const;
  /// Removes the entries of the contractions `names` name
  /// (CalibrationOptions::excludedNodes): an ONNX node name matches the
  /// keys of that node ("#I" the unnamed node I), a location
  /// "file:line[:col]" the keys it starts.
  /// InvalidArgument for a name that matches no entry.
  Status exclude(const std::vector<std::string> &names);
  /// The table as text (what save writes): a header line, the calibrator,
  /// the activation scheme, the sample count, then one line per key (key,
  /// min, max, threshold, tab-separated, shortest round-trip decimals).
  std::string serialize() const;
  /// Parses serialize()'s text; errors name `source` and the line.
  static StatusOr<CalibrationTable> parse(const std::string &text,
                                          const std::string &source);
  /// A digest of serialize()'s text (hex), for cache keys.
  std::string digest() const;
  /// Writes the table to `path` atomically.
  Status save(const std::string &path) const;
  static StatusOr<CalibrationTable> load(const std::string &path);
  /// load(), as the compile options hold a table.
  static StatusOr<std::shared_ptr<const CalibrationTable>>
  loadShared(const std::string &path);
};

/// The calibrator CalibrationOptions names (tgc/Precision.h), checked with
/// its table path: errors say what is wrong, for the caller to prefix.
StatusOr<Calibrator> calibratorOf(const CalibrationOptions &options);

} // namespace tgc::codegen

#endif // TGC_CODEGEN_CALIBRATION_H
