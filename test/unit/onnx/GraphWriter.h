//===- GraphWriter.h - ONNX models built in tests ---------------*- C++ -*-===//
//
// A small builder of ONNX models (opset 17, f32 tensors) for the tests of
// the importer and the Model API, written to a file and loaded like a user's.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TEST_UNIT_ONNX_GRAPHWRITER_H
#define TGC_TEST_UNIT_ONNX_GRAPHWRITER_H

#include "onnx/onnx_pb.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

namespace tgc::test {

/// The bytes of `values`, for TensorProto::raw_data.
inline std::string rawFloats(const std::vector<float> &values) {
  return std::string(reinterpret_cast<const char *>(values.data()),
                     values.size() * sizeof(float));
}

/// `count` floats drawn uniformly from [-scale, scale) by mt19937(seed).
inline std::vector<float> randomFloats(size_t count, unsigned seed,
                                       float scale) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-scale, scale);
  std::vector<float> values(count);
  for (float &v : values)
    v = dist(gen);
  return values;
}

/// A model file path in the temporary directory, unique to this process:
/// tgc-PREFIX-TAG-PID.onnx.
inline std::string tempModelPath(const std::string &prefix,
                                 const std::string &tag) {
  return (std::filesystem::temp_directory_path() /
          ("tgc-" + prefix + "-" + tag + "-" + std::to_string(::getpid()) +
           ".onnx"))
      .string();
}

/// An ONNX model under construction (opset 17 unless given, f32 tensors).
struct GraphWriter {
  onnx::ModelProto model;
  onnx::GraphProto &graph = *model.mutable_graph();

  explicit GraphWriter(const std::string &name, int64_t irVersion = 8,
                       int64_t opset = 17) {
    model.set_ir_version(irVersion);
    model.add_opset_import()->set_version(opset);
    graph.set_name(name);
  }
  onnx::TensorProto &initializer(const std::string &name,
                                 std::vector<int64_t> dims,
                                 const std::string &raw = {}) {
    onnx::TensorProto &t = *graph.add_initializer();
    t.set_name(name);
    t.set_data_type(onnx::TensorProto::FLOAT);
    for (int64_t d : dims)
      t.add_dims(d);
    if (!raw.empty())
      t.set_raw_data(raw);
    return t;
  }
  onnx::NodeProto *node(const std::string &op, std::vector<std::string> inputs,
                        const std::string &output) {
    onnx::NodeProto &n = *graph.add_node();
    n.set_op_type(op);
    for (const std::string &input : inputs)
      n.add_input(input);
    n.add_output(output);
    return &n;
  }
  /// A graph input or output; a negative dim is symbolic (dim_param "d<i>").
  void io(bool input, const std::string &name, std::vector<int64_t> dims) {
    onnx::ValueInfoProto &v = input ? *graph.add_input() : *graph.add_output();
    v.set_name(name);
    auto &t = *v.mutable_type()->mutable_tensor_type();
    t.set_elem_type(onnx::TensorProto::FLOAT);
    t.mutable_shape();
    for (size_t i = 0; i < dims.size(); ++i) {
      auto &dim = *t.mutable_shape()->add_dim();
      if (dims[i] < 0)
        dim.set_dim_param(name + "_d" + std::to_string(i));
      else
        dim.set_dim_value(dims[i]);
    }
  }
  void save(const std::string &path) const {
    std::ofstream(path, std::ios::binary) << model.SerializeAsString();
  }
};

} // namespace tgc::test

#endif // TGC_TEST_UNIT_ONNX_GRAPHWRITER_H
