//===- InPlaceWeightsTest.cpp - weights read from the model file ----------===//
//
// importOnnxModel leaves the raw data of large initializers (64 KiB and up)
// in the model file (file-backed constants, FileBackedWeightsTest.cpp; or,
// with ImportOptions::weightsInFile false, copied into the IR once): the
// protobuf does not hold the weights too. These models check that every
// kind of such tensor imports with its values: floats at every alignment of
// their data in the file, a splat (which the IR stores as one element),
// bools (normalized when copied), and that a malformed in-model reference
// is an error naming the initializer.
//
//===----------------------------------------------------------------------===//

#include "tgc/AbslStatus.h"
#include "tgc/Model.h"

#include "onnx/onnx_pb.h"
#include "gtest/gtest.h"

#include "GraphWriter.h"

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
using tgc::test::rawFloats;

namespace {

constexpr int64_t kRows = 4, kK = 160, kN = 128; // 80 KiB of weights

onnx::ValueInfoProto &io(onnx::GraphProto &g, bool input,
                         const std::string &name, std::vector<int64_t> dims,
                         int type = onnx::TensorProto::FLOAT) {
  onnx::ValueInfoProto &v = input ? *g.add_input() : *g.add_output();
  v.set_name(name);
  auto &t = *v.mutable_type()->mutable_tensor_type();
  t.set_elem_type(type);
  for (int64_t d : dims)
    t.mutable_shape()->add_dim()->set_dim_value(d);
  return v;
}

onnx::TensorProto &initializer(onnx::GraphProto &g, const std::string &name,
                               int type, std::vector<int64_t> dims,
                               const std::string &raw) {
  onnx::TensorProto &t = *g.add_initializer();
  t.set_name(name);
  t.set_data_type(type);
  for (int64_t d : dims)
    t.add_dims(d);
  t.set_raw_data(raw);
  return t;
}

std::string save(const onnx::ModelProto &model, const std::string &tag) {
  std::string path = tgc::test::tempModelPath("inplace", tag);
  std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  return path;
}

onnx::ModelProto newModel(onnx::GraphProto *&g) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  model.add_opset_import()->set_version(17);
  g = model.mutable_graph();
  g->set_name("inplace");
  return model;
}

/// y = x * W + B over weights W [kK, kN] and a splat B [kRows, kN] of
/// 0.5 (also 64 KiB and up); `pad` lengthens W's name, which moves its data
/// in the file by as many bytes.
TEST(InPlaceWeights, FloatsAtEveryAlignmentAndSplats) {
  std::mt19937 gen(11);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<float> w(kK * kN), x(kRows * kK);
  for (float &v : w)
    v = dist(gen);
  for (float &v : x)
    v = dist(gen);
  std::vector<float> b(static_cast<size_t>(kRows * kN * 32), 0.5f);
  for (int pad = 0; pad < 4; ++pad) {
    onnx::GraphProto *g = nullptr;
    onnx::ModelProto model = newModel(g);
    std::string wName = "w" + std::string(static_cast<size_t>(pad), '_');
    initializer(*g, wName, onnx::TensorProto::FLOAT, {kK, kN}, rawFloats(w));
    initializer(*g, "b", onnx::TensorProto::FLOAT, {kRows * 32, kN},
                rawFloats(b));
    onnx::NodeProto &mm = *g->add_node();
    mm.set_op_type("MatMul");
    mm.add_input("x");
    mm.add_input(wName);
    mm.add_output("xw");
    // Slice b's first kRows rows: it must be read, not only folded away.
    onnx::NodeProto &sum = *g->add_node();
    sum.set_op_type("Add");
    sum.add_input("xw");
    sum.add_input("bs");
    sum.add_output("y");
    onnx::NodeProto &slice = *g->add_node();
    slice.set_op_type("Slice");
    slice.add_input("b");
    slice.add_input("starts");
    slice.add_input("ends");
    slice.add_output("bs");
    std::vector<int64_t> starts{0}, ends{kRows};
    initializer(*g, "starts", onnx::TensorProto::INT64, {1},
                std::string(reinterpret_cast<char *>(starts.data()), 8));
    initializer(*g, "ends", onnx::TensorProto::INT64, {1},
                std::string(reinterpret_cast<char *>(ends.data()), 8));
    // The Slice comes first in the graph's order of nodes.
    g->mutable_node()->SwapElements(1, 2);
    io(*g, true, "x", {kRows, kK});
    io(*g, false, "y", {kRows, kN});
    std::string path = save(model, "floats" + std::to_string(pad));
    for (const char *backend : {"cpu", "reference"})
      for (bool weightsInFile : {true, false}) {
        ModelOptions options;
        options.backend = backend;
        options.weightsInFile = weightsInFile;
        auto loaded = Model::loadOnnx(path, options);
        ASSERT_TRUE(loaded.ok()) << loaded.status();
        HostTensor in = *HostTensor::allocate(DType::F32, {kRows, kK});
        std::memcpy(in.data(), x.data(), x.size() * sizeof(float));
        auto y = loaded->run({in});
        ASSERT_TRUE(y.ok()) << y.status();
        for (int64_t i = 0; i < kRows; ++i)
          for (int64_t j = 0; j < kN; ++j) {
            double want = 0.5;
            for (int64_t k = 0; k < kK; ++k)
              want += double{x[static_cast<size_t>(i * kK + k)]} *
                      w[static_cast<size_t>(k * kN + j)];
            ASSERT_NEAR((*y)[0].dataAs<float>()[i * kN + j], want, 1e-4)
                << backend << " pad " << pad << " weights in file "
                << weightsInFile << " at " << i << ", " << j;
          }
      }
    std::filesystem::remove(path);
  }
}

/// A bool initializer of 80,000 bytes with values other than 0 and 1:
/// copied from the file and normalized (any nonzero byte is true).
TEST(InPlaceWeights, BoolsAreNormalized) {
  constexpr int64_t n = 80000;
  std::string raw(static_cast<size_t>(n), '\0');
  for (int64_t i = 0; i < n; ++i)
    raw[static_cast<size_t>(i)] = static_cast<char>(i % 3 == 0 ? 0 : i % 7);
  onnx::GraphProto *g = nullptr;
  onnx::ModelProto model = newModel(g);
  initializer(*g, "m", onnx::TensorProto::BOOL, {n}, raw);
  onnx::NodeProto &where = *g->add_node();
  where.set_op_type("Where");
  where.add_input("m");
  where.add_input("a");
  where.add_input("b");
  where.add_output("y");
  io(*g, true, "a", {n});
  io(*g, true, "b", {n});
  io(*g, false, "y", {n});
  std::string path = save(model, "bools");
  auto loaded = Model::loadOnnx(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  HostTensor a = *HostTensor::allocate(DType::F32, {n});
  HostTensor b = *HostTensor::allocate(DType::F32, {n});
  for (int64_t i = 0; i < n; ++i) {
    a.dataAs<float>()[i] = 1;
    b.dataAs<float>()[i] = 2;
  }
  auto y = loaded->run({a, b});
  ASSERT_TRUE(y.ok()) << y.status();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ((*y)[0].dataAs<float>()[i], raw[static_cast<size_t>(i)] ? 1 : 2)
        << i;
  std::filesystem::remove(path);
}

/// An initializer that names data in the model itself (the reference the
/// importer writes) outside the file, or of the wrong length, is an error
/// naming it, not a read out of bounds.
TEST(InPlaceWeights, MalformedInModelReferencesAreErrors) {
  for (const char *length : {"64", "4"}) {
    onnx::GraphProto *g = nullptr;
    onnx::ModelProto model = newModel(g);
    onnx::TensorProto &t = *g->add_initializer();
    t.set_name("far");
    t.set_data_type(onnx::TensorProto::FLOAT);
    t.add_dims(16);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto *offset = t.add_external_data();
    offset->set_key("tgc.in-model-offset");
    offset->set_value(length == std::string("64") ? "1000000" : "0");
    auto *size = t.add_external_data();
    size->set_key("length");
    size->set_value(length);
    onnx::NodeProto &add = *g->add_node();
    add.set_op_type("Add");
    add.add_input("x");
    add.add_input("far");
    add.add_output("y");
    io(*g, true, "x", {16});
    io(*g, false, "y", {16});
    std::string path = save(model, std::string("malformed") + length);
    auto loaded = Model::loadOnnx(path);
    ASSERT_FALSE(loaded.ok());
    std::string message(loaded.status().message());
    EXPECT_NE(message.find("initializer 'far'"), std::string::npos) << message;
    EXPECT_NE(message.find(length == std::string("64")
                               ? "does not fit the model"
                               : "has 4 bytes of data but its shape [16] and "
                                 "type FLOAT need 64"),
              std::string::npos)
        << message;
    std::filesystem::remove(path);
  }
}

/// An in-model reference to data of an element type tgc has no dtype for,
/// or of a shape whose byte size overflows, is an error naming the
/// initializer too.
TEST(InPlaceWeights, InModelReferencesOfUnknownTypesOrHugeShapesAreErrors) {
  struct Case {
    const char *name;
    int type;
    std::vector<int64_t> dims;
    const char *message;
  };
  const Case cases[] = {{"odd", 999, {16}, "and in-model data"},
                        {"huge",
                         onnx::TensorProto::FLOAT,
                         {int64_t(1) << 31, int64_t(1) << 31},
                         "is too large"}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.name);
    onnx::GraphProto *g = nullptr;
    onnx::ModelProto model = newModel(g);
    onnx::TensorProto &t = *g->add_initializer();
    t.set_name(c.name);
    t.set_data_type(c.type);
    for (int64_t d : c.dims)
      t.add_dims(d);
    t.set_data_location(onnx::TensorProto::EXTERNAL);
    auto *offset = t.add_external_data();
    offset->set_key("tgc.in-model-offset");
    offset->set_value("0");
    auto *size = t.add_external_data();
    size->set_key("length");
    size->set_value("64");
    onnx::NodeProto &add = *g->add_node();
    add.set_op_type("Add");
    add.add_input("x");
    add.add_input(c.name);
    add.add_output("y");
    io(*g, true, "x", {16});
    io(*g, false, "y", {16});
    std::string path = save(model, c.name);
    auto loaded = Model::loadOnnx(path);
    ASSERT_FALSE(loaded.ok());
    std::string message(loaded.status().message());
    EXPECT_NE(message.find(std::string("initializer '") + c.name + "'"),
              std::string::npos)
        << message;
    EXPECT_NE(message.find(c.message), std::string::npos) << message;
    std::filesystem::remove(path);
  }
}

} // namespace
