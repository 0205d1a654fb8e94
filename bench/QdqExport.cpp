//===- QdqExport.cpp - an f32 ONNX model as a QDQ model -------------------===//
//
// What ONNX Runtime's quantize_static writes (QDQ format), from a tgc
// calibration table (tgc-run --precision=int8 --calibration-data=DIR
// --calibration-table=TABLE): every Conv, Gemm and MatMul the table has an
// entry for gets a QuantizeLinear + DequantizeLinear pair on its activation
// input, with the scale and zero point tgc's own int8 kernels use for that
// entry (u8 with a zero point, or s8), and its constant weights become
// per-channel symmetric int8 (the largest magnitude of each output channel
// at 127) behind a DequantizeLinear. bench/qdq.py runs the result on tgc
// and on ORT: the same quantized model on both.
//
//   bench-qdq-export MODEL.onnx TABLE OUT.onnx
//
//===----------------------------------------------------------------------===//

#include "codegen/Calibration.h"

#include "onnx/onnx_pb.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

int fail(const std::string &message) {
  std::fprintf(stderr, "bench-qdq-export: %s\n", message.c_str());
  return 1;
}

/// The node a calibration key names ("... (node 'NAME' (Op, opset N))#K"
/// or "... (node #I (Op, ...))#K"): its name, or "#I".
std::string nodeOfKey(const std::string &key) {
  size_t at = key.find("(node ");
  if (at == std::string::npos)
    return "";
  at += 6;
  if (key.compare(at, 1, "'") == 0) {
    size_t end = key.find("' (", at + 1);
    return end == std::string::npos ? "" : key.substr(at + 1, end - at - 1);
  }
  size_t end = key.find(' ', at);
  return end == std::string::npos ? "" : key.substr(at, end - at);
}

/// The float data of an initializer (raw or float_data).
std::vector<float> floatsOf(const onnx::TensorProto &t) {
  std::vector<float> values;
  if (t.has_raw_data()) {
    values.resize(t.raw_data().size() / sizeof(float));
    std::memcpy(values.data(), t.raw_data().data(),
                values.size() * sizeof(float));
  } else {
    values.assign(t.float_data().begin(), t.float_data().end());
  }
  return values;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: bench-qdq-export MODEL.onnx TABLE OUT.onnx\n");
    return 2;
  }
  onnx::ModelProto model;
  {
    std::ifstream in(argv[1], std::ios::binary);
    if (!in || !model.ParseFromIstream(&in))
      return fail(std::string("cannot read ") + argv[1]);
  }
  auto table = tgc::codegen::CalibrationTable::load(argv[2]);
  if (!table.ok())
    return fail(std::string(table.status().message()));
  for (const auto &opset : model.opset_import())
    if ((opset.domain().empty() || opset.domain() == "ai.onnx") &&
        opset.version() < 13)
      return fail("the model's opset is below 13 (per-axis "
                  "DequantizeLinear)");

  // Activation quantization per node (name or "#index").
  std::map<std::string, tgc::codegen::ActivationQuantization> byNode;
  for (const auto &[key, entry] : table->entries)
    byNode[nodeOfKey(key)] = entry.quantization(table->asymmetric);

  onnx::GraphProto &graph = *model.mutable_graph();
  std::map<std::string, int> initializerIndex;
  for (int i = 0; i < graph.initializer_size(); ++i)
    initializerIndex[graph.initializer(i).name()] = i;

  std::vector<onnx::NodeProto> nodes;
  std::vector<onnx::TensorProto> added;
  std::map<std::string, std::string> quantizedActivations, quantizedWeights;
  std::vector<std::string> dropped;
  int quantized = 0;
  auto scalar = [&](const std::string &name, int32_t type, double value) {
    onnx::TensorProto t;
    t.set_name(name);
    t.set_data_type(type);
    if (type == onnx::TensorProto::FLOAT)
      t.add_float_data(static_cast<float>(value));
    else
      t.add_int32_data(static_cast<int32_t>(value));
    added.push_back(t);
  };
  for (int n = 0; n < graph.node_size(); ++n) {
    onnx::NodeProto node = graph.node(n);
    const std::string &op = node.op_type();
    std::string key = node.name();
    if (key.empty())
      key = std::string("#") + std::to_string(n);
    auto it = byNode.find(key);
    if ((op != "Conv" && op != "Gemm" && op != "MatMul") ||
        it == byNode.end() || node.input_size() < 2) {
      nodes.push_back(node);
      continue;
    }
    const tgc::codegen::ActivationQuantization &q = it->second;
    bool transA = false, transB = false;
    for (const auto &a : node.attribute()) {
      transA |= a.name() == "transA" && a.i();
      transB |= a.name() == "transB" && a.i();
    }
    auto w = initializerIndex.find(node.input(1));
    if (transA || w == initializerIndex.end()) {
      nodes.push_back(node);
      continue;
    }
    // The activation: one pair per tensor and quantization.
    std::string x = node.input(0);
    std::ostringstream params;
    params << x << "|" << q.scale << "|" << q.zeroPoint << "|"
           << q.unsignedValues;
    auto [pair, fresh] = quantizedActivations.try_emplace(params.str());
    if (fresh) {
      std::string base =
          x + "_qdq" + std::to_string(quantizedActivations.size());
      int32_t storage =
          q.unsignedValues ? onnx::TensorProto::UINT8 : onnx::TensorProto::INT8;
      scalar(base + "_s", onnx::TensorProto::FLOAT, q.scale);
      scalar(base + "_z", storage, q.zeroPoint);
      onnx::NodeProto quantize, dequantize;
      quantize.set_op_type("QuantizeLinear");
      quantize.set_name(base + "_Q");
      quantize.add_input(x);
      quantize.add_input(base + "_s");
      quantize.add_input(base + "_z");
      quantize.add_output(base + "_q");
      dequantize.set_op_type("DequantizeLinear");
      dequantize.set_name(base + "_DQ");
      dequantize.add_input(base + "_q");
      dequantize.add_input(base + "_s");
      dequantize.add_input(base + "_z");
      dequantize.add_output(base);
      nodes.push_back(quantize);
      nodes.push_back(dequantize);
      pair->second = base;
    }
    node.set_input(0, pair->second);

    // The weights: per output channel, symmetric int8.
    const std::string &wName = node.input(1);
    auto done = quantizedWeights.find(wName);
    if (done == quantizedWeights.end()) {
      const onnx::TensorProto &wt = graph.initializer(w->second);
      if (wt.data_type() != onnx::TensorProto::FLOAT) {
        nodes.push_back(node);
        continue;
      }
      std::vector<int64_t> dims(wt.dims().begin(), wt.dims().end());
      int axis = op == "Conv" ? 0 : (op == "Gemm" && transB ? 0 : 1);
      if (dims.size() < 2 || (op != "Conv" && dims.size() != 2))
        return fail("unexpected weights " + wName);
      std::vector<float> values = floatsOf(wt);
      int64_t channels = dims[static_cast<size_t>(axis)];
      int64_t inner = 1;
      for (size_t d = static_cast<size_t>(axis) + 1; d < dims.size(); ++d)
        inner *= dims[d];
      std::vector<float> scales(static_cast<size_t>(channels), 0);
      for (size_t i = 0; i < values.size(); ++i) {
        size_t c =
            (i / static_cast<size_t>(inner)) % static_cast<size_t>(channels);
        scales[c] = std::max(scales[c], std::fabs(values[i]) / 127.0f);
      }
      for (float &s : scales)
        s = s > 0 ? s : 1.0f;
      onnx::TensorProto qw, sw, zw;
      qw.set_name(wName + "_int8");
      qw.set_data_type(onnx::TensorProto::INT8);
      for (int64_t d : dims)
        qw.add_dims(d);
      std::string bytes(values.size(), '\0');
      for (size_t i = 0; i < values.size(); ++i) {
        size_t c =
            (i / static_cast<size_t>(inner)) % static_cast<size_t>(channels);
        float r = std::nearbyint(values[i] / scales[c]);
        bytes[i] = static_cast<char>(std::fmax(-127.0f, std::fmin(127.0f, r)));
      }
      qw.set_raw_data(bytes);
      sw.set_name(wName + "_scale");
      sw.set_data_type(onnx::TensorProto::FLOAT);
      sw.add_dims(channels);
      zw.set_name(wName + "_zero");
      zw.set_data_type(onnx::TensorProto::INT8);
      zw.add_dims(channels);
      for (int64_t c = 0; c < channels; ++c) {
        sw.add_float_data(scales[static_cast<size_t>(c)]);
        zw.add_int32_data(0);
      }
      added.push_back(qw);
      added.push_back(sw);
      added.push_back(zw);
      onnx::NodeProto dequantize;
      dequantize.set_op_type("DequantizeLinear");
      dequantize.set_name(wName + "_DQ");
      dequantize.add_input(qw.name());
      dequantize.add_input(sw.name());
      dequantize.add_input(zw.name());
      dequantize.add_output(wName + "_dq");
      onnx::AttributeProto &a = *dequantize.add_attribute();
      a.set_name("axis");
      a.set_type(onnx::AttributeProto::INT);
      a.set_i(axis);
      nodes.push_back(dequantize);
      done = quantizedWeights.emplace(wName, wName + "_dq").first;
      dropped.push_back(wName);
    }
    node.set_input(1, done->second);
    nodes.push_back(node);
    ++quantized;
  }

  // The float weights are gone (not held twice by the engines).
  std::vector<onnx::TensorProto> initializers;
  for (const onnx::TensorProto &t : graph.initializer())
    if (std::find(dropped.begin(), dropped.end(), t.name()) == dropped.end())
      initializers.push_back(t);
  for (const onnx::TensorProto &t : added)
    initializers.push_back(t);
  graph.clear_initializer();
  for (const onnx::TensorProto &t : initializers)
    *graph.add_initializer() = t;
  graph.clear_node();
  for (const onnx::NodeProto &node : nodes)
    *graph.add_node() = node;
  // Old IR versions list initializers as inputs too.
  std::vector<onnx::ValueInfoProto> inputs;
  for (const onnx::ValueInfoProto &v : graph.input())
    if (std::find(dropped.begin(), dropped.end(), v.name()) == dropped.end())
      inputs.push_back(v);
  graph.clear_input();
  for (const onnx::ValueInfoProto &v : inputs)
    *graph.add_input() = v;

  std::ofstream out(argv[3], std::ios::binary);
  if (!out || !model.SerializeToOstream(&out))
    return fail(std::string("cannot write ") + argv[3]);
  std::printf("bench-qdq-export: %d of the model's contractions quantized "
              "(%zu activation pairs, %zu weights)\n",
              quantized, quantizedActivations.size(), quantizedWeights.size());
  return 0;
}
