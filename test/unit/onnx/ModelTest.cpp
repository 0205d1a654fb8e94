//===- ModelTest.cpp - tgc::Model (include/tgc/Model.h) -------------------===//
//
// The public ONNX model API: every user-facing error and a run on both
// backends.
//
//===----------------------------------------------------------------------===//

#include "tgc/Model.h"
#include "runtime/cpu/Kernels.h"
#include "tgc/AbslStatus.h"
#include "tgc/Engine.h"

#include "onnx/onnx_pb.h"
#include "gtest/gtest.h"

#include "GraphWriter.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
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

  // Mixed precision: the excluded node's contraction leaves the table (its
  // name was there) and its kernel stays f32; a name matching no
  // contraction is an error naming it.
  std::string excludedTable = table + ".excluded";
  tgc::CalibrationOptions mixed = calibration;
  mixed.tablePath = excludedTable;
  ASSERT_NE(read(table).find("(node "), std::string::npos) << read(table);
  size_t from = read(table).find("(node ") + 6;
  std::string node = read(table).substr(from);
  node = node.front() == '\'' ? node.substr(1, node.find('\'', 1) - 1)
                              : node.substr(0, node.find(' '));
  mixed.excludedNodes = {node};
  ASSERT_TRUE(f32->calibrate(samples, mixed).ok());
  EXPECT_EQ(read(excludedTable).find("(node "), std::string::npos)
      << read(excludedTable);
  ModelOptions mixedOptions = options;
  mixedOptions.calibrationTable = excludedTable;
  auto kept = Model::loadOnnx(conv, mixedOptions);
  ASSERT_TRUE(kept.ok()) << kept.status();
  ASSERT_TRUE(kept->run(samples[3]).ok());
  EXPECT_EQ(kept->describePlan().find("[int8]"), std::string::npos)
      << kept->describePlan();
  mixed.excludedNodes = {"no such node"};
  tgc::Status unknown = f32->calibrate(samples, mixed);
  EXPECT_NE(unknown.message().find(
                "no calibrated contraction is named 'no such node'"),
            std::string::npos)
      << unknown;
  std::filesystem::remove(excludedTable);

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

/// Builds small quantized ONNX models (QDQ and QOperator formats).
class QuantizedModelBuilder : public tgc::test::GraphWriter {
public:
  explicit QuantizedModelBuilder(const std::string &name)
      : GraphWriter(name, /*irVersion=*/7, /*opset=*/13) {}

  /// A scalar initializer of `type` (FLOAT, UINT8, INT8).
  void scalar(const std::string &name, int32_t type, double value) {
    onnx::TensorProto &t = *g.add_initializer();
    t.set_name(name);
    t.set_data_type(type);
    if (type == onnx::TensorProto::FLOAT)
      t.add_float_data(static_cast<float>(value));
    else
      t.add_int32_data(static_cast<int32_t>(value));
  }

  /// Per-channel int8 weights NAME_q with scales NAME_s and zero points
  /// NAME_z along `axis` (every channel's largest |w| is 127 somewhere).
  void weights(const std::string &name, std::vector<int64_t> dims,
               int64_t axis) {
    onnx::TensorProto &w = *g.add_initializer();
    w.set_name(name + "_q");
    w.set_data_type(onnx::TensorProto::INT8);
    int64_t n = 1;
    for (int64_t d : dims) {
      w.add_dims(d);
      n *= d;
    }
    std::uniform_int_distribution<int> q(-127, 127);
    std::string bytes(static_cast<size_t>(n), '\0');
    for (char &b : bytes)
      b = static_cast<char>(q(gen));
    bytes[0] = 127;
    w.set_raw_data(bytes);
    int64_t channels = dims[static_cast<size_t>(axis)];
    onnx::TensorProto &s = *g.add_initializer();
    s.set_name(name + "_s");
    s.set_data_type(onnx::TensorProto::FLOAT);
    s.add_dims(channels);
    onnx::TensorProto &z = *g.add_initializer();
    z.set_name(name + "_z");
    z.set_data_type(onnx::TensorProto::INT8);
    z.add_dims(channels);
    for (int64_t c = 0; c < channels; ++c) {
      s.add_float_data(0.01f / static_cast<float>(c + 1));
      z.add_int32_data(0);
    }
  }

  /// A DequantizeLinear of weights() NAME along `axis`, into NAME.
  void dequantizedWeights(const std::string &name, int64_t axis) {
    onnx::NodeProto *dq =
        node("DequantizeLinear", {name + "_q", name + "_s", name + "_z"}, name);
    attribute(dq, "axis", {axis});
  }

  /// An INT (one value) or INTS attribute.
  void attribute(onnx::NodeProto *node, const std::string &name,
                 std::vector<int64_t> values, bool list = false) {
    onnx::AttributeProto &a = *node->add_attribute();
    a.set_name(name);
    if (!list && values.size() == 1) {
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(values[0]);
      return;
    }
    a.set_type(onnx::AttributeProto::INTS);
    for (int64_t v : values)
      a.add_ints(v);
  }

  /// Quantization parameters Y_s, Y_z and QuantizeLinear X -> Y_q.
  void quantize(const std::string &x, const std::string &y, double scale,
                int zeroPoint, int32_t type) {
    scalar(y + "_s", onnx::TensorProto::FLOAT, scale);
    scalar(y + "_z", type, zeroPoint);
    node("QuantizeLinear", {x, y + "_s", y + "_z"}, y + "_q");
  }

  /// quantize() and DequantizeLinear Y_q -> Y.
  void qdq(const std::string &x, const std::string &y, double scale,
           int zeroPoint, int32_t type) {
    quantize(x, y, scale, zeroPoint, type);
    node("DequantizeLinear", {y + "_q", y + "_s", y + "_z"}, y);
  }

  std::string save() {
    std::string path = tgc::test::tempModelPath("quantized", graph.name());
    GraphWriter::save(path);
    return path;
  }

private:
  onnx::GraphProto &g = graph;
  std::mt19937 gen{7};
};

// A QDQ model (QuantizeLinear + DequantizeLinear around two convolutions
// and a Gemm, per-channel int8 weights, as ORT's quantize_static writes
// them): x -> QDQ(ui8, zero point 128) -> Conv -> Relu -> QDQ(ui8) -> Conv
// -> QDQ(i8) -> Flatten -> Gemm (1.2M weights).
std::string writeQdqModel() {
  QuantizedModelBuilder b("qdq");
  b.weights("w1", {8, 3, 3, 3}, 0);
  b.weights("w2", {8, 8, 1, 1}, 0);
  // Gemm's B: K x N, per column; above the 2^20 elements the generic
  // constant folds take, so tgc-absorb-fake-quant computes it.
  b.weights("w3", {8 * 6 * 6, 4096}, 1);
  b.dequantizedWeights("w1", 0);
  b.dequantizedWeights("w2", 0);
  b.dequantizedWeights("w3", 1);
  b.qdq("x", "xq", 0.02, 128, onnx::TensorProto::UINT8);
  b.attribute(b.node("Conv", {"xq", "w1"}, "c1"), "pads", {1, 1, 1, 1});
  b.node("Relu", {"c1"}, "r1");
  b.qdq("r1", "r1q", 0.004, 0, onnx::TensorProto::UINT8);
  b.node("Conv", {"r1q", "w2"}, "c2");
  b.qdq("c2", "c2q", 0.002, 0, onnx::TensorProto::INT8);
  b.node("Flatten", {"c2q"}, "f");
  b.node("Gemm", {"f", "w3"}, "y");
  b.io(true, "x", {2, 3, 6, 6});
  b.io(false, "y", {2, 4096});
  return b.save();
}

// The same network in ONNX Runtime's QOperator format: QuantizeLinear ->
// QLinearConv (bias) -> QLinearConv -> QLinearMatMul -> DequantizeLinear,
// with constant weights.
std::string writeQOperatorModel() {
  QuantizedModelBuilder b("qoperator");
  b.weights("w1", {8, 3, 3, 3}, 0);
  b.weights("w2", {8, 8, 1, 1}, 0);
  b.weights("w3", {8 * 6 * 6, 16}, 1);
  onnx::TensorProto bias;
  b.quantize("x", "xq", 0.02, 128, onnx::TensorProto::UINT8);
  b.scalar("c1_s", onnx::TensorProto::FLOAT, 0.004);
  b.scalar("c1_z", onnx::TensorProto::UINT8, 0);
  b.scalar("c2_s", onnx::TensorProto::FLOAT, 0.002);
  b.scalar("c2_z", onnx::TensorProto::INT8, 0);
  b.scalar("y_s", onnx::TensorProto::FLOAT, 0.01);
  b.scalar("y_z", onnx::TensorProto::UINT8, 100);
  b.attribute(
      b.node("QLinearConv",
             {"xq_q", "xq_s", "xq_z", "w1_q", "w1_s", "w1_z", "c1_s", "c1_z"},
             "c1_q"),
      "pads", {1, 1, 1, 1});
  b.node("QLinearConv",
         {"c1_q", "c1_s", "c1_z", "w2_q", "w2_s", "w2_z", "c2_s", "c2_z"},
         "c2_q");
  b.node("Flatten", {"c2_q"}, "f_q");
  b.node("QLinearMatMul",
         {"f_q", "c2_s", "c2_z", "w3_q", "w3_s", "w3_z", "y_s", "y_z"}, "y_q");
  b.node("DequantizeLinear", {"y_q", "y_s", "y_z"}, "y");
  b.io(true, "x", {2, 3, 6, 6});
  b.io(false, "y", {2, 16});
  return b.save();
}

/// The model at `path` on the cpu backend against the reference
/// interpreter: `int8Kernels` kernels of the plan are int8, no quantize
/// rounding is left in it, and the results agree to `relative` of the
/// largest output magnitude (`meanRelative` on average).
void expectInt8Plan(const std::string &path, size_t int8Kernels, float relative,
                    float meanRelative) {
  ModelOptions reference;
  reference.backend = "reference";
  auto expected = Model::loadOnnx(path, reference);
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto model = Model::loadOnnx(path);
  ASSERT_TRUE(model.ok()) << model.status();
  HostTensor x = *HostTensor::allocate(DType::F32, {2, 3, 6, 6});
  std::mt19937 gen(3);
  std::normal_distribution<float> dist(0, 1);
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.dataAs<float>()[i] = dist(gen);
  auto want = expected->run({x});
  ASSERT_TRUE(want.ok()) << want.status();
  auto got = model->run({x});
  ASSERT_TRUE(got.ok()) << got.status();
  std::string plan = model->describePlan();
  size_t count = 0;
  for (size_t at = plan.find("[int8]"); at != std::string::npos;
       at = plan.find("[int8]", at + 1))
    ++count;
  EXPECT_EQ(count, int8Kernels) << plan;
  EXPECT_EQ(plan.find("tgc.round"), std::string::npos) << plan;
  float largest = 0;
  for (int64_t i = 0; i < (*want)[0].numElements(); ++i)
    largest = std::max(largest, std::fabs((*want)[0].dataAs<float>()[i]));
  ASSERT_GT(largest, 0.0f);
  double meanError = 0;
  for (int64_t i = 0; i < (*want)[0].numElements(); ++i) {
    float a = (*got)[0].dataAs<float>()[i], b = (*want)[0].dataAs<float>()[i];
    EXPECT_NEAR(a, b, largest * relative) << i;
    meanError +=
        std::fabs(a - b) / static_cast<double>((*want)[0].numElements());
  }
  EXPECT_LT(meanError, largest * meanRelative);
}

// A QDQ model's convolutions and Gemm run as int8 kernels on the cpu
// backend (the plan says so) and agree with the reference interpreter,
// which runs the quantize / dequantize ops as they are. With VNNI the int8
// kernels use the model's int8 weights exactly (the weights' largest
// magnitude is 127 per channel), so only float rounding differs; without it
// (AVX2) weights are requantized to 63 levels (docs/precision.md).
TEST(Model, QdqModelsRunInt8Kernels) {
  std::string path = writeQdqModel();
  // Float rounding differs between the int8 kernels and the interpreter,
  // and a value near a rounding boundary of a later quantize lands one step
  // away: a few steps of the last one (0.002), spread by the Gemm.
  bool vnni = tgc::runtime::cpu::cpuIsa().vnni;
  expectInt8Plan(path, 3, vnni ? 0.02f : 0.06f, vnni ? 0.005f : 0.02f);
  if (!testing::Test::HasFailure())
    std::filesystem::remove(path);
}

// ONNX Runtime's QOperator format with constant weights takes the QDQ form
// (OnnxImporter: QLinearConv, QLinearMatMul) and runs the same int8
// kernels; the output's own quantization (0.01) bounds the difference.
TEST(Model, QOperatorModelsRunInt8Kernels) {
  std::string path = writeQOperatorModel();
  bool vnni = tgc::runtime::cpu::cpuIsa().vnni;
  expectInt8Plan(path, 3, vnni ? 0.05f : 0.1f, vnni ? 0.01f : 0.03f);
  if (!testing::Test::HasFailure())
    std::filesystem::remove(path);
}

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
  EXPECT_EQ(
      std::memcmp(results[0].data(), results[1].data(), results[0].byteSize()),
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
