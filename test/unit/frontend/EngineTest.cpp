//===- EngineTest.cpp - CompiledModels of traced functions and artifacts --===//
//
// The engine (include/tgc/Engine.h) on compiled CPU plans: a traced
// function's CompiledModel and an artifact's agree bitwise with the
// function, results land in caller buffers without a copy, and eight
// threads sharing one model through 1,000 mixed requests each get exactly
// the single-threaded results (run under TSan by the tsan preset).
//
//===----------------------------------------------------------------------===//

#include "tgc/Engine.h"
#include "tgc/AbslStatus.h"
#include "tgc/Artifact.h"
#include "tgc/Function.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <thread>
#include <unistd.h>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;
using tracing::TensorSpec;

namespace {

HostTensor patterned(std::vector<int64_t> shape, int seed) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, 0.01 * static_cast<double>((i * 7 + seed * 13) % 31) - 0.15);
  return t;
}

bool sameBytes(const HostTensor &a, const HostTensor &b) {
  return a.dtype() == b.dtype() && a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

/// A small MLP layer: y = tanh(x w) * 2 + x w.
auto layer = [](Tensor x, Tensor w) {
  Tensor h = matmul(x, w);
  return tanh(h) * 2.0 + h;
};

TEST(Engine, ATracedFunctionCompilesToACompiledModel) {
  FunctionOptions functionOptions;
  functionOptions.numThreads = 1;
  functionOptions.name = "layer";
  auto f = tgc::function(layer, functionOptions);
  ASSERT_TRUE(f.ok()) << f.status();
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {16, 64}},
                                      TensorSpec{DType::F32, {64, 32}});
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  HostTensor x = patterned({16, 64}, 1), w = patterned({64, 32}, 2);
  auto expected = (*f)(x, w);
  ASSERT_TRUE(expected.ok()) << expected.status();

  for (PerformanceHint hint :
       {PerformanceHint::Latency, PerformanceHint::Throughput}) {
    EngineOptions options;
    options.hint = hint;
    options.threadsPerStream = 1;
    auto model = concrete->compile(options);
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ(model->hint(), hint);
    ASSERT_EQ(model->inputs().size(), 2u);
    EXPECT_EQ(model->inputs()[0].name, "input0");
    EXPECT_EQ(model->inputs()[1].shape, (std::vector<int64_t>{64, 32}));
    ASSERT_EQ(model->outputs().size(), 1u);
    EXPECT_EQ(model->outputIndex("output0"), 0);
    auto y = model->run({x, w});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(sameBytes((*y)[0], *expected)) << toString(hint);

    // Zero-copy: the result is written into the caller's buffer.
    InferRequest request = model->createInferRequest();
    std::vector<float> storage(16 * 32, -1.0f);
    HostTensor buffer =
        *HostTensor::borrow(DType::F32, {16, 32}, storage.data());
    ASSERT_TRUE(request.setInput("input0", x).ok());
    ASSERT_TRUE(request.setInput("input1", w).ok());
    ASSERT_TRUE(request.setOutput("output0", buffer).ok());
    ASSERT_TRUE(request.run().ok());
    auto out = request.output(0);
    ASSERT_TRUE(out.ok()) << out.status();
    EXPECT_EQ(out->data(), static_cast<void *>(storage.data()));
    EXPECT_TRUE(sameBytes(buffer, *expected));
    // A buffer over an input is refused when the request runs.
    ASSERT_TRUE(request
                    .setOutput("output0", *HostTensor::borrow(
                                              DType::F32, {16, 32}, x.data()))
                    .ok());
    Status overlap = request.run();
    EXPECT_EQ(overlap.code(), absl::StatusCode::kInvalidArgument) << overlap;
    EXPECT_NE(overlap.message().find("overlaps argument #0"), std::string::npos)
        << overlap;
  }

  // Dynamic dims cannot make a compiled model.
  auto relaxed = f->concreteFunction(TensorSpec{DType::F32, {-1, 64}},
                                     TensorSpec{DType::F32, {64, 32}});
  ASSERT_TRUE(relaxed.ok()) << relaxed.status();
  auto refused = relaxed->compile();
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "function 'layer': a compiled model needs static shapes"),
            std::string::npos)
      << refused.status();
}

TEST(Engine, AnArtifactLoadsAsACompiledModel) {
  FunctionOptions functionOptions;
  functionOptions.numThreads = 1;
  auto f = tgc::function(layer, functionOptions);
  ASSERT_TRUE(f.ok()) << f.status();
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {8, 64}},
                                      TensorSpec{DType::F32, {64, 32}});
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("tgc-engine-" + std::to_string(::getpid()) + ".tgcx");
  ASSERT_TRUE(concrete->saveArtifact(path.string()).ok());
  auto model = CompiledModel::loadArtifact(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(model.ok()) << model.status();
  // Made for one thread: a latency stream of one thread.
  EXPECT_EQ(model->streamConfig().streams, 1);
  EXPECT_EQ(model->streamConfig().threadsPerStream, 1);
  HostTensor x = patterned({8, 64}, 3), w = patterned({64, 32}, 4);
  auto expected = (*concrete)(x, w);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto y = model->run({x, w});
  ASSERT_TRUE(y.ok()) << y.status();
  EXPECT_TRUE(sameBytes((*y)[0], *expected));

  auto missing = CompiledModel::loadArtifact(path.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(path.string()), std::string::npos)
      << missing.status();
}

// The deployment acceptance: eight threads share one compiled model, each
// sending 1,000 requests mixing synchronous runs, async runs with wait,
// callbacks and caller output buffers over three input sets; every output
// equals the single-threaded result bitwise.
TEST(Engine, EightThreadsShareOneCompiledModel) {
  FunctionOptions functionOptions;
  functionOptions.numThreads = 1;
  auto f = tgc::function(layer, functionOptions);
  ASSERT_TRUE(f.ok()) << f.status();
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {4, 32}},
                                      TensorSpec{DType::F32, {32, 16}});
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  EngineOptions options;
  options.hint = PerformanceHint::Throughput;
  options.streams = 2;
  auto model = concrete->compile(options);
  ASSERT_TRUE(model.ok()) << model.status();

  constexpr int kSets = 3, kThreads = 8, kRequests = 1000;
  std::vector<std::vector<HostTensor>> inputs;
  std::vector<HostTensor> expected;
  for (int s = 0; s < kSets; ++s) {
    inputs.push_back({patterned({4, 32}, s), patterned({32, 16}, s + 5)});
    auto y = model->run(inputs.back());
    ASSERT_TRUE(y.ok()) << y.status();
    expected.push_back((*y)[0]);
  }

  std::atomic<int> mismatches{0}, failures{0}, callbacks{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      InferRequest request = model->createInferRequest();
      std::vector<float> storage(4 * 16);
      HostTensor buffer =
          *HostTensor::borrow(DType::F32, {4, 16}, storage.data());
      for (int i = 0; i < kRequests; ++i) {
        int set = (i + t) % kSets;
        const std::vector<HostTensor> &in = inputs[set];
        HostTensor result;
        switch ((i + t) % 4) {
        case 0: { // the convenience call
          auto y = model->run(in);
          if (!y.ok()) {
            ++failures;
            continue;
          }
          result = (*y)[0];
          break;
        }
        case 1: { // a bound request, synchronously
          InferRequest fresh = model->createInferRequest();
          if (!fresh.setInput(0, in[0]).ok() ||
              !fresh.setInput(1, in[1]).ok() || !fresh.run().ok()) {
            ++failures;
            continue;
          }
          result = *fresh.output(0);
          break;
        }
        case 2: { // async into the caller's buffer
          std::fill(storage.begin(), storage.end(), 0.0f);
          if (!request.setInput(0, in[0]).ok() ||
              !request.setInput(1, in[1]).ok() ||
              !request.setOutput(0, buffer).ok() ||
              !request.startAsync().ok() || !request.wait().ok()) {
            ++failures;
            continue;
          }
          result = buffer;
          break;
        }
        default: { // async with a callback
          InferRequest fresh = model->createInferRequest();
          std::atomic<bool> called{false};
          fresh.setCallback([&](const Status &status) {
            if (status.ok())
              ++callbacks;
            called = true;
          });
          if (!fresh.setInput(0, in[0]).ok() ||
              !fresh.setInput(1, in[1]).ok() || !fresh.startAsync().ok() ||
              !fresh.wait().ok() || !called) {
            ++failures;
            continue;
          }
          result = *fresh.output(0);
          break;
        }
        }
        if (!sameBytes(result, expected[set]))
          ++mismatches;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(callbacks.load(), kThreads * kRequests / 4);
}

} // namespace

namespace {

using tgc::Determinism;
using tgc::Precision;

TEST(Determinism, LevelsParseAndPrint) {
  EXPECT_EQ(tgc::parseDeterminism("strict"), Determinism::Strict);
  EXPECT_EQ(tgc::parseDeterminism("Run-To-Run"), Determinism::RunToRun);
  EXPECT_EQ(tgc::parseDeterminism("1"), Determinism::RunToRun);
  EXPECT_EQ(tgc::parseDeterminism("off"), Determinism::Default);
  EXPECT_EQ(tgc::parseDeterminism("sometimes"), std::nullopt);
  EXPECT_EQ(tgc::parseDeterminism(""), std::nullopt);
  EXPECT_STREQ(tgc::toString(Determinism::Strict), "strict");
  EXPECT_EQ(tgc::resolveDeterminism(Determinism::Strict), Determinism::Strict);
}

/// A function whose matmul oneDNN's AVX2 sgemm splits over K between
/// threads (1 x 2048 x 1000).
auto head = [](Tensor x, Tensor w) { return tanh(matmul(x, w)); };

TEST(Precision, TracedFunctionsCalibrateAndRunInt8) {
  // A layer whose weights are constants of the trace (int8 quantizes
  // constant weights; weights passed as arguments stay f32).
  HostTensor w = patterned({64, 32}, 5);
  auto layer = [w](Tensor x) { return relu(matmul(x, constant(w))); };
  FunctionOptions f32Options;
  f32Options.numThreads = 1;
  auto f = tgc::function(layer, f32Options);
  ASSERT_TRUE(f.ok()) << f.status();
  HostTensor x = patterned({8, 64}, 9);
  auto concrete = f->concreteFunction(x);
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  std::vector<std::vector<HostTensor>> samples;
  for (int s = 0; s < 8; ++s)
    samples.push_back({patterned({8, 64}, 20 + s)});
  std::string table = std::filesystem::temp_directory_path() /
                      ("tgc-traced-int8-" + std::to_string(::getpid()));
  tgc::CalibrationOptions calibration;
  calibration.calibrator = "minmax";
  calibration.tablePath = table;
  // The layer is the function's output layer: by default it stays f32,
  // left out of the table (whose text then lists no key)...
  ASSERT_TRUE(concrete->calibrate(samples, calibration).ok());
  {
    std::ifstream in(table);
    std::string text((std::istreambuf_iterator<char>(in)),
                     std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("samples\t8"), std::string::npos) << text;
    EXPECT_EQ(text.find("#0\t"), std::string::npos) << text;
  }
  // ... and quantized when asked.
  calibration.quantizeOutputLayers = true;
  tgc::Status calibrated = concrete->calibrate(samples, calibration);
  ASSERT_TRUE(calibrated.ok()) << calibrated;

  FunctionOptions int8Options = f32Options;
  int8Options.precision = Precision::Int8;
  int8Options.calibrationTable = table;
  auto g = tgc::function(layer, int8Options);
  ASSERT_TRUE(g.ok()) << g.status();
  auto want = (*f)(x);
  auto got = (*g)(x);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_FALSE(sameBytes(*want, *got)); // quantized
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < want->numElements(); ++i) {
    scale = std::max(scale, std::abs(want->getDouble(i)));
    worst = std::max(worst, std::abs(got->getDouble(i) - want->getDouble(i)));
  }
  EXPECT_LT(worst, 0.05 * scale);
  // Errors name the function: no table path, an unknown calibrator.
  calibration.tablePath.clear();
  EXPECT_NE(concrete->calibrate(samples, calibration)
                .message()
                .find("tablePath is empty"),
            std::string::npos);
  calibration.tablePath = table;
  calibration.calibrator = "median";
  EXPECT_NE(concrete->calibrate(samples, calibration)
                .message()
                .find("unknown calibrator 'median'"),
            std::string::npos);
  std::filesystem::remove(table);
}

TEST(Precision, PoliciesParsePrintAndCompile) {
  EXPECT_EQ(tgc::parsePrecision("BF16"), Precision::BF16);
  EXPECT_EQ(tgc::parsePrecision("bfloat16"), Precision::BF16);
  EXPECT_EQ(tgc::parsePrecision("fp32"), Precision::F32);
  EXPECT_EQ(tgc::parsePrecision("auto"), Precision::Auto);
  EXPECT_EQ(tgc::parsePrecision("int8"), Precision::Int8);
  EXPECT_EQ(tgc::parsePrecision("half"), Precision::F16);
  EXPECT_EQ(tgc::parsePrecision("FP16"), Precision::F16);
  EXPECT_EQ(tgc::parsePrecision("fp8"), std::nullopt);
  EXPECT_STREQ(tgc::toString(Precision::BF16), "bf16");
  EXPECT_STREQ(tgc::toString(Precision::F16), "f16");
  EXPECT_EQ(tgc::resolvePrecision(Precision::F32), Precision::F32);

  HostTensor x = patterned({4, 256}, 3), w = patterned({256, 64}, 4);
  auto run = [&](Precision precision) -> tgc::StatusOr<HostTensor> {
    FunctionOptions options;
    options.numThreads = 1;
    options.precision = precision;
    auto f = tgc::function(head, options);
    if (!f.ok())
      return f.status();
    return (*f)(x, w);
  };
  auto f32 = run(Precision::F32);
  auto bf16 = run(Precision::BF16);
  auto automatic = run(Precision::Auto);
  ASSERT_TRUE(f32.ok()) << f32.status();
  ASSERT_TRUE(automatic.ok()) << automatic.status();
  if (bf16.ok()) {
    // The matmul multiplied bf16-rounded operands: close, not the same.
    EXPECT_FALSE(sameBytes(*bf16, *f32));
    double worst = 0;
    for (int64_t i = 0; i < f32->numElements(); ++i)
      worst = std::max(worst, std::abs(bf16->getDouble(i) - f32->getDouble(i)));
    EXPECT_LT(worst, 0.02);
    EXPECT_TRUE(sameBytes(*automatic, *bf16)); // auto is bf16 here
  } else {
    // No native bf16 (AVX2, or DNNL_MAX_CPU_ISA=AVX2): a clear error, and
    // auto keeps f32.
    EXPECT_NE(bf16.status().message().find("native bfloat16"),
              std::string::npos)
        << bf16.status();
    EXPECT_TRUE(sameBytes(*automatic, *f32));
  }
  // int8 without a calibration table: an error that says what it needs.
  auto int8 = run(Precision::Int8);
  ASSERT_FALSE(int8.ok());
  EXPECT_NE(
      int8.status().message().find("precision int8 needs a calibration table"),
      std::string::npos)
      << int8.status();
  // f16 is the cuda backend's: on the cpu an error that names the choices.
  auto f16 = run(Precision::F16);
  ASSERT_FALSE(f16.ok());
  EXPECT_NE(f16.status().message().find(
                "precision f16 runs on the cuda backend (half tensor cores)"),
            std::string::npos)
      << f16.status();
}

TEST(Determinism, StrictPlansAgreeAtEveryThreadCount) {
  HostTensor x = patterned({1, 2048}, 7), w = patterned({2048, 1000}, 8);
  std::vector<HostTensor> results;
  for (int threads : {1, 2, 4}) {
    FunctionOptions options;
    options.numThreads = threads;
    options.deterministic = Determinism::Strict;
    auto f = tgc::function(head, options);
    ASSERT_TRUE(f.ok()) << f.status();
    auto y = (*f)(x, w);
    ASSERT_TRUE(y.ok()) << y.status();
    results.push_back(*y);
  }
  EXPECT_TRUE(sameBytes(results[0], results[1]));
  EXPECT_TRUE(sameBytes(results[0], results[2]));
}

TEST(Determinism, RunToRunPlansIgnoreTheCallersAlignment) {
  FunctionOptions options;
  options.numThreads = 2;
  options.deterministic = Determinism::RunToRun;
  auto f = tgc::function(head, options);
  ASSERT_TRUE(f.ok()) << f.status();
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {1, 2048}},
                                      TensorSpec{DType::F32, {2048, 1000}});
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  HostTensor x = patterned({1, 2048}, 9), w = patterned({2048, 1000}, 10);
  auto aligned = (*concrete)(x, w);
  ASSERT_TRUE(aligned.ok()) << aligned.status();
  // The same values at an address 4 bytes past a 64-byte boundary.
  std::vector<float> storage(1 + 2048 * 1000 + 16);
  float *base = storage.data();
  while (reinterpret_cast<uintptr_t>(base) % 64 != 4)
    ++base;
  std::memcpy(base, w.data(), w.byteSize());
  HostTensor shifted = *HostTensor::borrow(DType::F32, {2048, 1000}, base);
  for (int i = 0; i < 3; ++i) {
    auto y = (*concrete)(x, shifted);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(sameBytes(*y, *aligned)) << "run " << i;
  }
}

TEST(Determinism, ArtifactsKeepTheirLevel) {
  FunctionOptions options;
  options.numThreads = 2;
  options.deterministic = Determinism::Strict;
  auto f = tgc::function(head, options);
  ASSERT_TRUE(f.ok()) << f.status();
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {1, 2048}},
                                      TensorSpec{DType::F32, {2048, 1000}});
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  std::filesystem::path path =
      std::filesystem::temp_directory_path() /
      ("tgc-strict-" + std::to_string(::getpid()) + ".tgcx");
  ASSERT_TRUE(concrete->saveArtifact(path.string()).ok());
  auto artifact = Artifact::load(path.string());
  std::filesystem::remove(path);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_NE(artifact->describe().find("determinism: strict"), std::string::npos)
      << artifact->describe();
  HostTensor x = patterned({1, 2048}, 11), w = patterned({2048, 1000}, 12);
  auto expected = (*concrete)(x, w);
  ASSERT_TRUE(expected.ok()) << expected.status();
  for (int threads : {1, 2}) {
    auto y = artifact->run({x, w}, threads);
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_TRUE(sameBytes((*y)[0], *expected)) << threads << " thread(s)";
  }
}

} // namespace
