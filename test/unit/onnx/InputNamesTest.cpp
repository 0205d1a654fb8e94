//===- InputNamesTest.cpp - onnxModelInputNames ---------------------------===//
//
// tgc-run orders its inputs by the model's input names before importing;
// onnxModelInputNames reads them from the wire format without parsing the
// weights. It must agree with a full parse on every model, and report the
// full parse's error on malformed ones.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/OnnxImporter.h"

#include "onnx/onnx_pb.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include "gtest/gtest.h"

#include <set>
#include <string>
#include <vector>

namespace {

std::vector<std::string> namesByFullParse(const std::string &path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  EXPECT_TRUE(static_cast<bool>(buffer)) << path;
  onnx::ModelProto model;
  EXPECT_TRUE(model.ParseFromString((*buffer)->getBuffer().str())) << path;
  std::set<std::string> initializers;
  for (const auto &initializer : model.graph().initializer())
    initializers.insert(initializer.name());
  std::vector<std::string> names;
  for (const auto &input : model.graph().input())
    if (!initializers.count(input.name()))
      names.push_back(input.name());
  return names;
}

std::string writeTemp(const std::string &bytes, const char *name) {
  llvm::SmallString<128> path;
  llvm::sys::fs::createTemporaryFile(name, "onnx", path);
  std::error_code ec;
  llvm::raw_fd_ostream out(path, ec);
  out << bytes;
  return std::string(path);
}

TEST(OnnxModelInputNames, AgreesWithAFullParseOnTheOnnxTestModels) {
  int checked = 0;
  std::error_code ec;
  for (llvm::sys::fs::recursive_directory_iterator
           it("/usr/share/libonnx-testdata/data/node", ec),
       end;
       it != end && !ec; it.increment(ec)) {
    if (llvm::sys::path::filename(it->path()) != "model.onnx" ||
        ++checked % 7 != 0)
      continue; // every 7th model keeps the test short
    auto names = tgc::onnxModelInputNames(it->path());
    ASSERT_TRUE(static_cast<bool>(names)) << it->path();
    EXPECT_EQ(*names, namesByFullParse(it->path())) << it->path();
  }
  EXPECT_GT(checked, 100);
}

TEST(OnnxModelInputNames, SkipsInitializersListedAsInputs) {
  onnx::ModelProto model;
  model.set_ir_version(7);
  auto *graph = model.mutable_graph();
  graph->set_name("g");
  for (const char *name : {"x", "w", "y"})
    graph->add_input()->set_name(name);
  onnx::TensorProto *w = graph->add_initializer();
  w->set_name("w");
  w->set_data_type(onnx::TensorProto::FLOAT);
  w->add_dims(1024);
  w->set_raw_data(std::string(4096, '\0'));
  std::string path = writeTemp(model.SerializeAsString(), "names");
  auto names = tgc::onnxModelInputNames(path);
  ASSERT_TRUE(static_cast<bool>(names));
  EXPECT_EQ(*names, (std::vector<std::string>{"x", "y"}));
  llvm::sys::fs::remove(path);
}

TEST(OnnxModelInputNames, MalformedModelsAreErrors) {
  onnx::ModelProto model;
  model.mutable_graph()->add_input()->set_name("x");
  std::string bytes = model.SerializeAsString();
  std::string path = writeTemp(bytes.substr(0, bytes.size() - 1), "cut");
  auto names = tgc::onnxModelInputNames(path);
  ASSERT_FALSE(static_cast<bool>(names));
  EXPECT_NE(llvm::toString(names.takeError()).find("not a valid ONNX model"),
            std::string::npos);
  llvm::sys::fs::remove(path);
  auto missing = tgc::onnxModelInputNames("/nonexistent/model.onnx");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError()).find("cannot read"),
            std::string::npos);
}

} // namespace
