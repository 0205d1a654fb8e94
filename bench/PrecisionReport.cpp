//===- PrecisionReport.cpp - reduced precision: speed and accuracy -------===//
//
// The precision policy's report (docs/precision.md): one ONNX model
// compiled at f32 and at each other policy asked for, in one process;
// latency medians from interleaved rounds, and over `--samples` inputs the
// agreement of each policy's top-1 (argmax over the last dim, per row of
// output 0) with f32's, and its max / mean absolute error against f32
// (also relative to f32's largest magnitude). Inputs are drawn from a
// mixture (normal, uniform, smooth ramps with noise), one seed per sample.
// int8 is first calibrated (Model::calibrate) on `--calibration-samples`
// inputs of another distribution (Laplace noise over sparse blobs, scaled
// differently), so that the agreement is measured on inputs unlike the
// calibration set.
//
//   bench-precision MODEL.onnx [--precision bf16[,auto,int8]]
//                   [--samples 1000] [--calibration-samples 200]
//                   [--calibrator entropy] [--exclude-nodes A,B]
//                   [--calibration-inputs
//                   unlike|like-measured] [--threads 2] [--rounds 5]
//                   [--runs 20]
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

using tgc::runtime::DType;
using tgc::runtime::HostTensor;

HostTensor sample(const tgc::TensorInfo &info, unsigned seed) {
  std::vector<int64_t> shape = info.shape;
  for (int64_t &d : shape)
    d = d < 0 ? 1 : d;
  HostTensor t = *HostTensor::allocate(DType::F32, shape);
  std::mt19937 gen(seed);
  auto *p = static_cast<float *>(t.data());
  int64_t n = t.numElements();
  switch (seed % 3) {
  case 0: {
    std::normal_distribution<float> dist(0, 1);
    for (int64_t i = 0; i < n; ++i)
      p[i] = dist(gen);
    break;
  }
  case 1: {
    std::uniform_real_distribution<float> dist(-2, 2);
    for (int64_t i = 0; i < n; ++i)
      p[i] = dist(gen);
    break;
  }
  default: {
    std::uniform_real_distribution<float> phase(0, 6.28f), noise(-0.2f, 0.2f);
    float a = phase(gen), b = phase(gen);
    for (int64_t i = 0; i < n; ++i)
      p[i] = std::sin(a + 0.01f * static_cast<float>(i % 4096)) +
             std::cos(b + 0.003f * static_cast<float>(i / 4096)) + noise(gen);
  }
  }
  return t;
}

/// A calibration input: unlike sample()'s (Laplace noise over a few
/// bright blobs, another scale).
HostTensor calibrationSample(const tgc::TensorInfo &info, unsigned seed) {
  std::vector<int64_t> shape = info.shape;
  for (int64_t &d : shape)
    d = d < 0 ? 1 : d;
  HostTensor t = *HostTensor::allocate(DType::F32, shape);
  std::mt19937 gen(seed ^ 0x9e3779b9u);
  std::exponential_distribution<float> magnitude(3.0f);
  std::bernoulli_distribution sign(0.5), blob(0.002);
  auto *p = static_cast<float *>(t.data());
  int64_t n = t.numElements();
  float level = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (blob(gen))
      level = 1.5f * magnitude(gen);
    level *= 0.995f;
    p[i] = level + (sign(gen) ? 1.0f : -1.0f) * magnitude(gen);
  }
  return t;
}

double medianMs(const tgc::Model &model, const std::vector<HostTensor> &in,
                int runs) {
  std::vector<double> times;
  for (int r = 0; r < runs; ++r) {
    auto start = std::chrono::steady_clock::now();
    auto out = model.run(in);
    times.push_back(std::chrono::duration<double, std::milli>(
                        std::chrono::steady_clock::now() - start)
                        .count());
    if (!out.ok()) {
      std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
      std::exit(1);
    }
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

std::vector<int64_t> top1(const HostTensor &t) {
  int64_t last = t.shape().empty() ? 1 : t.shape().back();
  std::vector<int64_t> result;
  const auto *p = static_cast<const float *>(t.data());
  for (int64_t row = 0; row * last < t.numElements(); ++row)
    result.push_back(std::max_element(p + row * last, p + (row + 1) * last) -
                     (p + row * last));
  return result;
}

} // namespace

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench-precision MODEL.onnx [--precision "
                         "bf16[,auto]] [--samples N] [--threads T] "
                         "[--rounds R] [--runs N]\n");
    return 2;
  }
  std::string path = argv[1], policies = "bf16";
  int samples = 1000, threads = 2, rounds = 5, runs = 20,
      calibrationSamples = 200;
  std::string calibrator = "entropy";
  // Calibrate on inputs of another distribution (the default) or of the
  // measured one (other seeds): `--calibration-inputs like-measured`.
  bool likeMeasured = false;
  // Contractions kept in f32 (CalibrationOptions::excludedNodes).
  std::vector<std::string> excluded;
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--precision")
      policies = value;
    else if (flag == "--samples")
      samples = std::atoi(value.c_str());
    else if (flag == "--threads")
      threads = std::atoi(value.c_str());
    else if (flag == "--rounds")
      rounds = std::atoi(value.c_str());
    else if (flag == "--runs")
      runs = std::atoi(value.c_str());
    else if (flag == "--calibration-samples")
      calibrationSamples = std::atoi(value.c_str());
    else if (flag == "--calibrator")
      calibrator = value;
    else if (flag == "--calibration-inputs")
      likeMeasured = value == "like-measured";
    else if (flag == "--exclude-nodes")
      for (size_t at = 0; at <= value.size();) {
        size_t comma = std::min(value.find(',', at), value.size());
        excluded.push_back(value.substr(at, comma - at));
        at = comma + 1;
      }
    else {
      std::fprintf(stderr, "bench-precision: unknown flag %s\n", flag.c_str());
      return 2;
    }
  }
  std::vector<tgc::Precision> wanted = {tgc::Precision::F32};
  for (size_t at = 0; at <= policies.size();) {
    size_t comma = std::min(policies.find(',', at), policies.size());
    auto p = tgc::parsePrecision(policies.substr(at, comma - at));
    if (!p) {
      std::fprintf(stderr, "bench-precision: unknown precision '%s'\n",
                   policies.substr(at, comma - at).c_str());
      return 2;
    }
    wanted.push_back(*p);
    at = comma + 1;
  }
  std::vector<tgc::Model> models;
  std::string table;
  double calibrationSeconds = 0;
  for (tgc::Precision p : wanted) {
    tgc::ModelOptions options;
    options.numThreads = threads;
    options.precision = p;
    if (p == tgc::Precision::Int8) {
      // Calibrated on inputs unlike the ones measured below.
      std::vector<std::vector<HostTensor>> calibration;
      for (int s = 0; s < calibrationSamples; ++s) {
        std::vector<HostTensor> in;
        for (const tgc::TensorInfo &info : models[0].inputs())
          in.push_back(likeMeasured
                           ? sample(info, 500000u + static_cast<unsigned>(s))
                           : calibrationSample(info, static_cast<unsigned>(s)));
        calibration.push_back(std::move(in));
      }
      table = "/tmp/bench-precision-" + std::to_string(::getpid()) + ".table";
      tgc::CalibrationOptions how;
      how.calibrator = calibrator;
      how.excludedNodes = excluded;
      how.tablePath = table;
      auto start = std::chrono::steady_clock::now();
      if (tgc::Status status = models[0].calibrate(calibration, how);
          !status.ok()) {
        std::fprintf(stderr, "%s\n", status.ToString().c_str());
        return 1;
      }
      calibrationSeconds = std::chrono::duration<double>(
                               std::chrono::steady_clock::now() - start)
                               .count();
      options.calibrationTable = table;
    }
    auto model = tgc::Model::loadOnnx(path, options);
    if (!model.ok()) {
      std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
      return 1;
    }
    models.push_back(*std::move(model));
  }
  const std::vector<tgc::TensorInfo> &inputs = models[0].inputs();
  auto inputsFor = [&](unsigned seed) {
    std::vector<HostTensor> in;
    for (size_t i = 0; i < inputs.size(); ++i)
      in.push_back(sample(inputs[i], seed * 7919u + static_cast<unsigned>(i)));
    return in;
  };
  // Compile (first run), then interleaved timing rounds.
  std::vector<HostTensor> timed = inputsFor(1);
  for (tgc::Model &m : models)
    if (auto out = m.run(timed); !out.ok()) {
      std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
      return 1;
    }
  std::vector<std::vector<double>> perRound(models.size());
  for (int r = 0; r < rounds; ++r)
    for (size_t m = 0; m < models.size(); ++m)
      perRound[m].push_back(medianMs(models[m], timed, runs));
  // Accuracy against f32.
  std::vector<int64_t> agree(models.size(), 0), rows(models.size(), 0);
  std::vector<double> maxErr(models.size(), 0), sumErr(models.size(), 0);
  double scale = 0;
  int64_t elements = 0;
  // How many classes f32's top-1 took: agreement means little when a
  // (random-weight) model gives every input the same class.
  std::set<int64_t> distinct;
  for (int s = 0; s < samples; ++s) {
    std::vector<HostTensor> in = inputsFor(static_cast<unsigned>(s) + 100);
    auto ref = models[0].run(in);
    if (!ref.ok()) {
      std::fprintf(stderr, "%s\n", ref.status().ToString().c_str());
      return 1;
    }
    const HostTensor &r0 = (*ref)[0];
    std::vector<int64_t> refTop = top1(r0);
    distinct.insert(refTop.begin(), refTop.end());
    const auto *rp = static_cast<const float *>(r0.data());
    for (int64_t i = 0; i < r0.numElements(); ++i)
      scale = std::max(scale, static_cast<double>(std::abs(rp[i])));
    elements += r0.numElements();
    for (size_t m = 1; m < models.size(); ++m) {
      auto out = models[m].run(in);
      if (!out.ok()) {
        std::fprintf(stderr, "%s\n", out.status().ToString().c_str());
        return 1;
      }
      const HostTensor &o0 = (*out)[0];
      std::vector<int64_t> top = top1(o0);
      for (size_t k = 0; k < top.size(); ++k)
        agree[m] += top[k] == refTop[k];
      rows[m] += static_cast<int64_t>(top.size());
      const auto *op = static_cast<const float *>(o0.data());
      for (int64_t i = 0; i < o0.numElements(); ++i) {
        double e = std::abs(static_cast<double>(op[i]) - rp[i]);
        maxErr[m] = std::max(maxErr[m], e);
        sumErr[m] += e;
      }
    }
  }
  std::string plan = models.back().describePlan();
  size_t target = plan.find("target: ");
  std::printf(
      "model %s, %d threads, %d rounds x %d runs (medians), %d "
      "samples; %s\n",
      path.c_str(), threads, rounds, runs, samples,
      target == std::string::npos
          ? "target unknown"
          : plan.substr(target, plan.find('\n', target) - target).c_str());
  if (!table.empty()) {
    std::printf("int8: calibrated (%s) on %d inputs %s the measured ones "
                "in %.1f s\n",
                calibrator.c_str(), calibrationSamples,
                likeMeasured ? "drawn like" : "unlike", calibrationSeconds);
    std::remove(table.c_str());
  }
  std::printf("f32's top-1 took %zu distinct classes over the samples\n",
              distinct.size());
  std::printf("%-10s %10s %9s %12s %12s %12s %10s\n", "precision", "median ms",
              "speedup", "top1 agree", "max |err|", "mean |err|", "max/|f32|");
  std::vector<double> med;
  for (auto &v : perRound) {
    std::sort(v.begin(), v.end());
    med.push_back(v[v.size() / 2]);
  }
  for (size_t m = 0; m < models.size(); ++m) {
    if (m == 0) {
      std::printf("%-10s %10.3f %8.2fx %12s %12s %12s %10s\n",
                  tgc::toString(wanted[m]), med[m], 1.0, "-", "-", "-", "-");
      continue;
    }
    std::printf("%-10s %10.3f %8.2fx %11.2f%% %12.4g %12.4g %10.3g\n",
                tgc::toString(wanted[m]), med[m], med[0] / med[m],
                100.0 * static_cast<double>(agree[m]) /
                    static_cast<double>(std::max<int64_t>(rows[m], 1)),
                maxErr[m], sumErr[m] / static_cast<double>(elements),
                scale > 0 ? maxErr[m] / scale : 0.0);
  }
  return 0;
}
