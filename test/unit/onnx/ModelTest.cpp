//===- ModelTest.cpp - tgc::Model (include/tgc/Model.h) -------------------===//
//
// The public ONNX model API: every user-facing error and a run on both
// backends.
//
//===----------------------------------------------------------------------===//

#include "tgc/Model.h"
#include "tgc/AbslStatus.h"
#include "tgc/Engine.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

using tgc::Model;
using tgc::ModelOptions;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;

namespace {

const char *kMatmul =
    "/usr/share/libonnx-testdata/data/node/test_matmul_2d/model.onnx";

HostTensor filled(std::vector<int64_t> shape, float value) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.dataAs<float>()[i] = value;
  return t;
}

TEST(Model, RunsOnBothBackends) {
  for (const char *backend : {"cpu", "reference"}) {
    ModelOptions options;
    options.backend = backend;
    auto model = Model::loadOnnx(kMatmul, options);
    ASSERT_TRUE(model.ok()) << model.status();
    ASSERT_EQ(model->inputs().size(), 2u);
    EXPECT_EQ(model->inputs()[0].name, "a");
    EXPECT_EQ(model->inputs()[0].shape, (std::vector<int64_t>{3, 4}));
    ASSERT_EQ(model->outputs().size(), 1u);
    EXPECT_EQ(model->outputs()[0].name, "c");
    auto y = model->run({filled({3, 4}, 2), filled({4, 3}, 1)});
    ASSERT_TRUE(y.ok()) << y.status();
    ASSERT_EQ((*y)[0].shape(), (std::vector<int64_t>{3, 3}));
    for (int64_t i = 0; i < 9; ++i)
      EXPECT_EQ((*y)[0].dataAs<float>()[i], 8.0f) << backend;
    EXPECT_NE(model->describePlan().find(std::string(backend) == "cpu"
                                             ? "onednn"
                                             : "reference interpreter"),
              std::string::npos)
        << model->describePlan();
  }
}

TEST(Model, CalibratedInt8RunsNearF32) {
  const char *conv =
      "/usr/share/libonnx-testdata/data/pytorch-converted/test_Conv2d/"
      "model.onnx";
  auto f32 = Model::loadOnnx(conv);
  ASSERT_TRUE(f32.ok()) << f32.status();
  std::vector<std::vector<HostTensor>> samples;
  for (int s = 0; s < 6; ++s) {
    HostTensor x = *HostTensor::allocate(DType::F32, {2, 3, 7, 5});
    for (int64_t i = 0; i < x.numElements(); ++i)
      x.dataAs<float>()[i] =
          static_cast<float>(std::sin(0.37 * static_cast<double>(i + 97 * s)));
    samples.push_back({x});
  }
  std::string table = std::filesystem::temp_directory_path() /
                      ("tgc-model-int8-" + std::to_string(::getpid()));
  tgc::CalibrationOptions calibration;
  calibration.calibrator = "minmax";
  calibration.tablePath = table;
  ASSERT_TRUE(f32->calibrate(samples, calibration).ok());

  ModelOptions options;
  options.precision = tgc::Precision::Int8;
  options.calibrationTable = table;
  auto int8 = Model::loadOnnx(conv, options);
  ASSERT_TRUE(int8.ok()) << int8.status();
  auto want = f32->run(samples[3]);
  auto got = int8->run(samples[3]);
  ASSERT_TRUE(want.ok() && got.ok());
  EXPECT_NE(int8->describePlan().find("onednn.conv2d[int8]"), std::string::npos)
      << int8->describePlan();
  double worst = 0, scale = 0;
  for (int64_t i = 0; i < (*want)[0].numElements(); ++i) {
    scale = std::max(scale, std::abs((*want)[0].getDouble(i)));
    worst = std::max(
        worst, std::abs((*got)[0].getDouble(i) - (*want)[0].getDouble(i)));
  }
  EXPECT_GT(worst, 0.0);
  EXPECT_LT(worst, 0.03 * scale);

  // The same table from samples handed over one at a time.
  std::string streamed = table + ".streamed";
  tgc::CalibrationOptions streaming = calibration;
  streaming.tablePath = streamed;
  ASSERT_TRUE(f32->calibrate(
                     samples.size(),
                     [&](size_t i) -> tgc::StatusOr<std::vector<HostTensor>> {
                       return samples[i];
                     },
                     streaming)
                  .ok());
  auto read = [](const std::string &path) {
    std::ifstream in(path);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(read(streamed), read(table));
  std::filesystem::remove(streamed);

  // Errors: an unknown calibrator, no table path, an unreadable table.
  calibration.calibrator = "median";
  EXPECT_NE(f32->calibrate(samples, calibration)
                .message()
                .find("unknown calibrator 'median'"),
            std::string::npos);
  calibration.calibrator = "entropy";
  calibration.tablePath.clear();
  EXPECT_FALSE(f32->calibrate(samples, calibration).ok());
  // int8 runs on the cpu backend only.
  ModelOptions reference;
  reference.backend = "reference";
  auto onReference = Model::loadOnnx(conv, reference);
  ASSERT_TRUE(onReference.ok()) << onReference.status();
  EXPECT_NE(onReference->calibrate(samples, streaming)
                .message()
                .find("int8 runs on the cpu backend, not reference"),
            std::string::npos);
  options.calibrationTable = "/nonexistent/table";
  auto unreadable = Model::loadOnnx(conv, options);
  ASSERT_FALSE(unreadable.ok());
  EXPECT_NE(unreadable.status().message().find("/nonexistent/table"),
            std::string::npos);
  std::filesystem::remove(table);
}

TEST(Model, TheCudaBackendNeedsADevice) {
  ModelOptions options;
  options.backend = "cuda";
  auto model = Model::loadOnnx(kMatmul, options);
  if (model.ok())
    GTEST_SKIP() << "a CUDA device is present";
  std::string message(model.status().message());
  // Without CUDA code generation, the registry says so; without a device,
  // the model says which backend needed one.
  EXPECT_TRUE(message.rfind("tgc: Model: the cuda backend: ", 0) == 0 ||
              message.find("no CUDA code generation") != std::string::npos)
      << message;
}

TEST(Model, BadOptionsAreErrors) {
  ModelOptions options;
  options.backend = "tpu";
  auto model = Model::loadOnnx(kMatmul, options);
  ASSERT_FALSE(model.ok());
  // The registered backends: "cpu, cuda, reference" in CUDA builds.
  std::string message(model.status().message());
  EXPECT_EQ(
      message.rfind("tgc: Model: unknown backend 'tpu' (available: cpu, ", 0),
      0u)
      << message;
  EXPECT_NE(message.find("reference)"), std::string::npos) << message;
  options = {};
  options.numThreads = -1;
  model = Model::loadOnnx(kMatmul, options);
  ASSERT_FALSE(model.ok());
  EXPECT_EQ(model.status().message(),
            "tgc: ModelOptions: numThreads must be >= 0 and interOpThreads "
            ">= 1");
}

TEST(Model, UnreadableModelsAreErrors) {
  auto model = Model::loadOnnx("/nonexistent/model.onnx");
  ASSERT_FALSE(model.ok());
  EXPECT_NE(model.status().message().find("/nonexistent/model.onnx"),
            std::string::npos)
      << model.status();
}

TEST(Model, WrongInputsAreErrorsNamingTheModel) {
  auto model = Model::loadOnnx(kMatmul);
  ASSERT_TRUE(model.ok()) << model.status();
  auto arity = model->run({filled({3, 4}, 1)});
  ASSERT_FALSE(arity.ok());
  EXPECT_NE(arity.status().message().find("expects 2 inputs, got 1"),
            std::string::npos)
      << arity.status();
  auto shape = model->run({filled({3, 5}, 1), filled({4, 3}, 1)});
  ASSERT_FALSE(shape.ok());
  EXPECT_NE(shape.status().message().find("model.onnx"), std::string::npos)
      << shape.status();
}

} // namespace

// ModelOptions::cacheDir: a model whose plan has a JIT loop kernel
// (Softplus) stores it and the whole plan there, and a second model loads
// the plan (bitwise the same results).
TEST(Model, ThePersistentCacheServesASecondModel) {
  const char *softplus =
      "/usr/share/libonnx-testdata/data/node/test_softplus/model.onnx";
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tgc-model-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ModelOptions options;
  options.cacheDir = dir.string();
  options.numThreads = 1;
  HostTensor x = filled({3, 4, 5}, 0.75f);
  std::vector<HostTensor> results;
  for (int i = 0; i < 2; ++i) {
    auto model = Model::loadOnnx(softplus, options);
    ASSERT_TRUE(model.ok()) << model.status();
    auto y = model->run({x});
    ASSERT_TRUE(y.ok()) << y.status();
    EXPECT_NE(model->describePlan().find("jit"), std::string::npos)
        << model->describePlan();
    EXPECT_NEAR((*y)[0].dataAs<float>()[0], std::log1p(std::exp(0.75f)), 1e-5);
    EXPECT_EQ(model->compileCount(), i == 0 ? 1u : 0u) << "run " << i;
    results.push_back((*y)[0]);
    // The loop kernel's object code and the whole plan.
    size_t objects = 0, plans = 0;
    for (const auto &entry : std::filesystem::directory_iterator(dir)) {
      objects += entry.path().extension() == ".tgcobj";
      plans += entry.path().extension() == ".tgcx";
    }
    EXPECT_EQ(objects, 1u) << "run " << i;
    // Under the function's key and the model file's (one file, linked).
    EXPECT_EQ(plans, 2u) << "run " << i;
  }
  EXPECT_EQ(
      std::memcmp(results[0].data(), results[1].data(), results[0].byteSize()),
      0);
  std::filesystem::remove_all(dir);
}

// A model loaded again with the same cache directory takes its plan from
// there by the model file's key, without importing the file: the same
// inputs, outputs and bitwise results; inputs that do not fit the plan are
// still the located errors of an imported model (imported on that need).
TEST(Model, ASecondLoadNeedsNoImport) {
  const char *relu =
      "/usr/share/libonnx-testdata/data/node/test_relu/model.onnx";
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tgc-model-noimport-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  ModelOptions options;
  options.cacheDir = dir.string();
  options.numThreads = 1;
  HostTensor x = *HostTensor::allocate(DType::F32, {3, 4, 5});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.dataAs<float>()[i] = static_cast<float>(i % 7) - 3.0f;
  auto first = Model::loadOnnx(relu, options);
  ASSERT_TRUE(first.ok()) << first.status();
  auto y1 = first->run({x});
  ASSERT_TRUE(y1.ok()) << y1.status();
  size_t plans = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir))
    plans += entry.path().extension() == ".tgcx";
  EXPECT_EQ(plans, 2u); // the function's key and the model file's key

  auto second = Model::loadOnnx(relu, options);
  ASSERT_TRUE(second.ok()) << second.status();
  ASSERT_EQ(second->inputs().size(), first->inputs().size());
  EXPECT_EQ(second->inputs()[0].name, first->inputs()[0].name);
  EXPECT_EQ(second->inputs()[0].shape, first->inputs()[0].shape);
  ASSERT_EQ(second->outputs().size(), 1u);
  EXPECT_EQ(second->outputs()[0].name, first->outputs()[0].name);
  auto y2 = second->run({x});
  ASSERT_TRUE(y2.ok()) << y2.status();
  EXPECT_EQ(std::memcmp((*y1)[0].data(), (*y2)[0].data(), (*y1)[0].byteSize()),
            0);
  EXPECT_FALSE(second->describePlan().empty());
  EXPECT_EQ(first->compileCount(), 1u);
  EXPECT_EQ(second->compileCount(), 0u);
  auto wrong = second->run({*HostTensor::allocate(DType::F32, {3, 4})});
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.status().message().find("model.onnx"), std::string::npos)
      << wrong.status();
  std::filesystem::remove_all(dir);
}

namespace {

using tgc::CompiledModel;
using tgc::EngineOptions;

TEST(CompiledModel, CompilesAnOnnxModelForStreams) {
  for (const char *backend : {"cpu", "reference"}) {
    EngineOptions options;
    options.backend = backend;
    options.hint = tgc::PerformanceHint::Throughput;
    options.streams = 2;
    auto model = CompiledModel::compileOnnx(kMatmul, options);
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ(model->streamConfig().streams, 2);
    EXPECT_EQ(model->inputIndex("b"), 1);
    EXPECT_EQ(model->outputIndex("c"), 0);
    // Static shapes: compiled when the model was made.
    EXPECT_EQ(model->describe().find("no plan yet"), std::string::npos)
        << model->describe();
    auto request = model->createInferRequest();
    ASSERT_TRUE(request.setInput("a", filled({3, 4}, 2)).ok());
    ASSERT_TRUE(request.setInput("b", filled({4, 3}, 1)).ok());
    ASSERT_TRUE(request.run().ok());
    auto c = request.output("c");
    ASSERT_TRUE(c.ok()) << c.status();
    for (int64_t i = 0; i < 9; ++i)
      EXPECT_EQ(c->dataAs<float>()[i], 8.0f) << backend;
  }
}

// EngineOptions::cacheDir: a second compile of the same model takes the
// plan the first filed under the model file's key (the same inputs,
// outputs and bitwise results; nothing new is written).
TEST(CompiledModel, ASecondCompileTakesThePlanFromTheCache) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tgc-engine-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  EngineOptions options;
  options.cacheDir = dir.string();
  options.threadsPerStream = 1;
  auto files = [&] {
    std::vector<std::string> names;
    for (const auto &entry : std::filesystem::directory_iterator(dir))
      names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
  };
  std::vector<HostTensor> results;
  std::vector<std::string> written;
  for (int i = 0; i < 2; ++i) {
    auto model = CompiledModel::compileOnnx(kMatmul, options);
    ASSERT_TRUE(model.ok()) << model.status();
    EXPECT_EQ(model->inputIndex("b"), 1);
    EXPECT_EQ(model->outputIndex("c"), 0);
    auto request = model->createInferRequest();
    ASSERT_TRUE(request.setInput("a", filled({3, 4}, 2)).ok());
    ASSERT_TRUE(request.setInput("b", filled({4, 3}, 0.5f)).ok());
    ASSERT_TRUE(request.run().ok());
    auto c = request.output("c");
    ASSERT_TRUE(c.ok()) << c.status();
    results.push_back(*c);
    if (i == 0)
      written = files();
  }
  // The function's key and the model file's key.
  EXPECT_EQ(written.size(), 2u);
  EXPECT_EQ(files(), written);
  EXPECT_EQ(results[1].dataAs<float>()[0], 4.0f);
  EXPECT_EQ(std::memcmp(results[0].data(), results[1].data(),
                        results[0].byteSize()),
            0);
  std::filesystem::remove_all(dir);
}

TEST(CompiledModel, BadInputShapesAndFilesAreErrors) {
  EngineOptions options;
  options.inputShapes = {{"z", DType::F32, {3, 4}}};
  auto unknown = CompiledModel::compileOnnx(kMatmul, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("has no input 'z'"),
            std::string::npos)
      << unknown.status();
  options.inputShapes = {{"a", DType::F32, {3, 5}}};
  auto conflicting = CompiledModel::compileOnnx(kMatmul, options);
  ASSERT_FALSE(conflicting.ok());
  EXPECT_NE(conflicting.status().message().find(
                "input 'a' of " + std::string(kMatmul) +
                " has shape [3x4], EngineOptions gives [3x5]"),
            std::string::npos)
      << conflicting.status();
  options.inputShapes.clear();
  options.threadsPerStream = -2;
  EXPECT_EQ(CompiledModel::compileOnnx(kMatmul, options).status().code(),
            absl::StatusCode::kInvalidArgument);
  auto missing = CompiledModel::compileOnnx("/nonexistent/model.onnx");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/model.onnx"),
            std::string::npos)
      << missing.status();
}

} // namespace
