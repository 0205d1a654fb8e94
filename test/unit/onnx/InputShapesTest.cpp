//===- InputShapesTest.cpp - models with dynamic dims ---------------------===//
//
// ModelOptions::inputShapes and EngineOptions::inputShapes import a model
// for given sizes of its dynamic dims (ONNX Runtime's free dimension
// overrides): an LSTM over a dynamic sequence length, which the importer
// unrolls, then loads and runs, bitwise as the same model declared with
// static dims. And a Reshape whose target copies one dynamic dim and infers
// another (GroupNorm's [0, groups, -1]) imports with every dim dynamic.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OnnxImporter.h"
#include "tgc/AbslStatus.h"
#include "tgc/Engine.h"
#include "tgc/Model.h"

#include "mlir/IR/MLIRContext.h"

#include "gtest/gtest.h"

#include "GraphWriter.h"

#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;
using test::GraphWriter;
using test::rawFloats;

namespace {

constexpr int64_t kBatch = 2, kInput = 3, kHidden = 4, kSteps = 5;

std::string tempPath(const std::string &tag) {
  return test::tempModelPath("input-shapes", tag);
}

std::vector<float> randomFloats(size_t count, unsigned seed) {
  return test::randomFloats(count, seed, 0.5f);
}

/// X [steps, batch, kInput] -> LSTM (hidden kHidden, with a bias) -> Y, Y_h,
/// with a dynamic batch. `steps` < 0 leaves the sequence length dynamic.
std::string writeLstm(const std::string &tag, int64_t steps) {
  GraphWriter m("lstm");
  m.initializer("W", {1, 4 * kHidden, kInput},
                rawFloats(randomFloats(4 * kHidden * kInput, 1)));
  m.initializer("R", {1, 4 * kHidden, kHidden},
                rawFloats(randomFloats(4 * kHidden * kHidden, 2)));
  m.initializer("B", {1, 8 * kHidden}, rawFloats(randomFloats(8 * kHidden, 3)));
  onnx::NodeProto *lstm = m.node("LSTM", {"X", "W", "R", "B"}, "Y");
  lstm->add_output("Y_h");
  onnx::AttributeProto &hidden = *lstm->add_attribute();
  hidden.set_name("hidden_size");
  hidden.set_type(onnx::AttributeProto::INT);
  hidden.set_i(kHidden);
  m.io(true, "X", {steps, -1, kInput});
  m.io(false, "Y", {steps, 1, -1, kHidden});
  m.io(false, "Y_h", {1, -1, kHidden});
  std::string path = tempPath(tag);
  m.save(path);
  return path;
}

HostTensor randomTensor(std::vector<int64_t> shape, unsigned seed) {
  HostTensor t = *HostTensor::allocate(DType::F32, shape);
  std::vector<float> values = randomFloats(t.numElements(), seed);
  std::memcpy(t.data(), values.data(), values.size() * sizeof(float));
  return t;
}

void expectBitwiseEqual(const std::vector<HostTensor> &actual,
                        const std::vector<HostTensor> &expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    ASSERT_EQ(actual[i].shape(), expected[i].shape()) << "result " << i;
    EXPECT_EQ(
        std::memcmp(actual[i].data(), expected[i].data(), actual[i].byteSize()),
        0)
        << "result " << i;
  }
}

TEST(InputShapes, ADynamicSequenceLstmRunsForTheGivenLength) {
  std::string dynamic = writeLstm("dynamic", -1);
  std::string fixed = writeLstm("static", kSteps);
  // Without sizes: unrolling needs the length, and the error says how to
  // give it.
  auto refused = Model::loadOnnx(dynamic);
  ASSERT_FALSE(refused.ok());
  std::string message(refused.status().message());
  EXPECT_NE(message.find("a dynamic sequence length"), std::string::npos)
      << message;
  EXPECT_NE(message.find("ModelOptions::inputShapes"), std::string::npos)
      << message;

  HostTensor x = randomTensor({kSteps, kBatch, kInput}, 7);
  auto reference = Model::loadOnnx(fixed);
  ASSERT_TRUE(reference.ok()) << reference.status();
  auto expected = reference->run({x});
  ASSERT_TRUE(expected.ok()) << expected.status();

  ModelOptions options;
  options.inputShapes = {{"X", DType::F32, {kSteps, -1, kInput}}};
  for (const char *backend : {"cpu", "reference"}) {
    options.backend = backend;
    auto model = Model::loadOnnx(dynamic, options);
    ASSERT_TRUE(model.ok()) << backend << ": " << model.status();
    // The length is fixed; the batch stays dynamic.
    ASSERT_EQ(model->inputs().size(), 1u);
    EXPECT_EQ(model->inputs()[0].shape,
              (std::vector<int64_t>{kSteps, -1, kInput}));
    auto results = model->run({x});
    ASSERT_TRUE(results.ok()) << backend << ": " << results.status();
    if (std::string(backend) == "cpu") {
      expectBitwiseEqual(*results, *expected);
    } else {
      ASSERT_EQ(results->size(), expected->size());
      for (size_t i = 0; i < results->size(); ++i)
        for (int64_t k = 0; k < (*expected)[i].numElements(); ++k)
          ASSERT_NEAR((*results)[i].getDouble(k), (*expected)[i].getDouble(k),
                      1e-5)
              << "result " << i << ", element " << k;
    }
    // Another length is a clear error, not a crash.
    auto other = model->run({randomTensor({kSteps + 1, kBatch, kInput}, 8)});
    ASSERT_FALSE(other.ok()) << backend;
    EXPECT_EQ(other.status().code(), absl::StatusCode::kInvalidArgument)
        << other.status();
  }

  // The engine takes the same sizes.
  EngineOptions engineOptions;
  engineOptions.inputShapes = {{"X", DType::F32, {kSteps, kBatch, kInput}}};
  auto engine = CompiledModel::compileOnnx(dynamic, engineOptions);
  ASSERT_TRUE(engine.ok()) << engine.status();
  auto served = engine->run({x});
  ASSERT_TRUE(served.ok()) << served.status();
  expectBitwiseEqual(*served, *expected);
  std::filesystem::remove(dynamic);
  std::filesystem::remove(fixed);
}

TEST(InputShapes, BadSizesAreErrors) {
  std::string path = writeLstm("bad", -1);
  ModelOptions options;
  options.inputShapes = {{"x", DType::F32, {kSteps, kBatch, kInput}}};
  auto unknown = Model::loadOnnx(path, options);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find(
                "tgc: Model: " + path +
                " has no input 'x' (ModelOptions::inputShapes)"),
            std::string::npos)
      << unknown.status();
  // A static dim that differs, and a rank that differs.
  for (std::vector<int64_t> shape :
       {std::vector<int64_t>{kSteps, kBatch, kInput + 1},
        std::vector<int64_t>{kSteps, kBatch}}) {
    options.inputShapes = {{"X", DType::F32, shape}};
    auto misfit = Model::loadOnnx(path, options);
    ASSERT_FALSE(misfit.ok());
    EXPECT_EQ(misfit.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(misfit.status().message().find("tgc: Model: input 'X' of " +
                                             path + " has shape [?x?x3]"),
              std::string::npos)
        << misfit.status();
  }
  EngineOptions engineOptions;
  engineOptions.inputShapes = {{"X", DType::F32, {kSteps, 7, kInput + 1}}};
  auto engine = CompiledModel::compileOnnx(path, engineOptions);
  ASSERT_FALSE(engine.ok());
  EXPECT_NE(engine.status().message().find(
                "input 'X' of " + path +
                " has shape [?x?x3], EngineOptions gives [5x7x4]"),
            std::string::npos)
      << engine.status();
  std::filesystem::remove(path);
}

TEST(InputShapes, TheImporterChecksTheShapesItIsGiven) {
  std::string path = writeLstm("import", -1);
  mlir::MLIRContext context;
  ImportOptions options;
  options.argumentShapes = {std::vector<int64_t>{kSteps, kBatch, kInput + 1}};
  auto misfit = importOnnxModel(context, path, options);
  ASSERT_FALSE(static_cast<bool>(misfit));
  std::string message = llvm::toString(misfit.takeError());
  EXPECT_NE(message.find("graph input 'X' is given the shape [5, 2, 4], "
                         "which its declared shape [?, ?, 3] does not allow"),
            std::string::npos)
      << message;
  options.argumentShapes = {std::vector<int64_t>{kSteps, -1, kInput}};
  auto module = importOnnxModel(context, path, options);
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  std::filesystem::remove(path);

  // Sizes are given to tensors only.
  GraphWriter m("sequence");
  m.node("SequenceLength", {"s"}, "n");
  onnx::ValueInfoProto &input = *m.graph.add_input();
  input.set_name("s");
  input.mutable_type()
      ->mutable_sequence_type()
      ->mutable_elem_type()
      ->mutable_tensor_type()
      ->set_elem_type(onnx::TensorProto::FLOAT);
  onnx::ValueInfoProto &output = *m.graph.add_output();
  output.set_name("n");
  output.mutable_type()->mutable_tensor_type()->set_elem_type(
      onnx::TensorProto::INT64);
  path = tempPath("sequence");
  m.save(path);
  ModelOptions modelOptions;
  modelOptions.inputShapes = {{"s", DType::F32, {2}}};
  auto refused = Model::loadOnnx(path, modelOptions);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "input 's' is not a tensor: input shapes can be given only "
                "to models whose inputs are all tensors"),
            std::string::npos)
      << refused.status();
  std::filesystem::remove(path);
}

TEST(InputShapes, AReshapeMayCopyOneDynamicDimAndInferAnother) {
  // x [N, 8, H, W] -> Reshape [0, 4, -1] (GroupNorm's grouping) -> y.
  GraphWriter m("group");
  onnx::TensorProto &target = *m.graph.add_initializer();
  target.set_name("target");
  target.set_data_type(onnx::TensorProto::INT64);
  target.add_dims(3);
  for (int64_t d : {0, 4, -1})
    target.add_int64_data(d);
  m.node("Reshape", {"x", "target"}, "y");
  m.io(true, "x", {-1, 8, -1, -1});
  m.io(false, "y", {-1, 4, -1});
  std::string path = tempPath("reshape");
  m.save(path);
  for (const char *backend : {"cpu", "reference"}) {
    ModelOptions options;
    options.backend = backend;
    auto model = Model::loadOnnx(path, options);
    ASSERT_TRUE(model.ok()) << backend << ": " << model.status();
    for (std::vector<int64_t> shape :
         {std::vector<int64_t>{2, 8, 3, 5}, std::vector<int64_t>{1, 8, 2, 2}}) {
      HostTensor x = randomTensor(shape, 11);
      auto y = model->run({x});
      ASSERT_TRUE(y.ok()) << backend << ": " << y.status();
      ASSERT_EQ(y->size(), 1u);
      EXPECT_EQ((*y)[0].shape(),
                (std::vector<int64_t>{shape[0], 4, 2 * shape[2] * shape[3]}))
          << backend;
      // A reshape keeps the elements in order.
      ASSERT_EQ((*y)[0].byteSize(), x.byteSize());
      EXPECT_EQ(std::memcmp((*y)[0].data(), x.data(), x.byteSize()), 0)
          << backend;
    }
    // Channels other than the declared 8: an error, not a reshape.
    auto bad = model->run({randomTensor({1, 6, 1, 1}, 12)});
    ASSERT_FALSE(bad.ok()) << backend;
    EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument)
        << bad.status();
  }
  std::filesystem::remove(path);
}

} // namespace
