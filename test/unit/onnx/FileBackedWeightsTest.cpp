//===- FileBackedWeightsTest.cpp - weights that stay in the model file ----===//
//
// importOnnxModel makes a large initializer a file-backed constant
// (dialects/ConstantData.h): a dense_resource whose blob views the model
// file's mapping, with no copy in the IR. These check that the IR holds
// none of the weights; that a compiled CPU plan holds each weight once (the
// copy its kernel prepacked from is let go, and read again from the file by
// a later compile); that plans made so are bitwise those of an import that
// copies the weights, also saved and loaded; and that a model file changed
// or truncated after the import is an error, not wrong results.
//
//===----------------------------------------------------------------------===//

#include "codegen/Backends.h"
#include "codegen/cpu/Compiler.h"
#include "dialects/ConstantData.h"
#include "dialects/TgcOps.h"
#include "frontend/onnx/OnnxImporter.h"
#include "runtime/cpu/PlanFile.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/MLIRContext.h"
#include "onnx/onnx_pb.h"
#include "gtest/gtest.h"

#include "GraphWriter.h"

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
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

constexpr int64_t kIn = 32, kOut = 64, kSide = 8, kClasses = 16;

std::string tempPath(const std::string &tag) {
  return test::tempModelPath("file-backed", tag);
}

/// An f32 input of `shape` whose element i is ((i * step) % period) /
/// half - 1: a deterministic ramp in [-1, 1).
HostTensor rampInput(const std::vector<int64_t> &shape, int64_t step,
                     int64_t period, float half) {
  HostTensor x = *HostTensor::allocate(DType::F32, shape);
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.dataAs<float>()[i] = static_cast<float>((i * step) % period) / half - 1;
  return x;
}

/// x [1, kIn, 8, 8] -> Conv (kOut x kIn x 3 x 3 weights, 72 KiB) -> Relu ->
/// Flatten -> Gemm (4096 x 16 weights, 256 KiB) -> y. Returns the path and
/// sets `gemmWeights` to the Gemm weights' bytes.
std::string writeModel(const std::string &tag, std::string &gemmWeights) {
  std::mt19937 gen(5);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  std::vector<float> w(kOut * kIn * 9), b(kOut),
      g(kOut * kSide * kSide * kClasses);
  for (float &v : w)
    v = dist(gen);
  for (float &v : b)
    v = dist(gen);
  for (float &v : g)
    v = dist(gen);
  gemmWeights = rawFloats(g);
  GraphWriter m("file_backed");
  m.initializer("conv.weight", {kOut, kIn, 3, 3}, rawFloats(w));
  m.initializer("conv.bias", {kOut}, rawFloats(b));
  m.initializer("fc.weight", {kOut * kSide * kSide, kClasses}, gemmWeights);
  onnx::AttributeProto &pads =
      *m.node("Conv", {"x", "conv.weight", "conv.bias"}, "c")->add_attribute();
  pads.set_name("pads");
  pads.set_type(onnx::AttributeProto::INTS);
  for (int i = 0; i < 4; ++i)
    pads.add_ints(1);
  m.node("Relu", {"c"}, "r");
  m.node("Flatten", {"r"}, "f");
  m.node("Gemm", {"f", "fc.weight"}, "y");
  m.io(true, "x", {1, kIn, kSide, kSide});
  m.io(false, "y", {1, kClasses});
  std::string path = tempPath(tag);
  m.save(path);
  return path;
}

class FileBackedWeights : public ::testing::Test {
protected:
  void SetUp() override { codegen::registerAllBackends(); }

  mlir::func::FuncOp import(const std::string &path, bool weightsInFile) {
    ImportOptions options;
    options.weightsInFile = weightsInFile;
    auto module = importOnnxModel(context, path, options);
    EXPECT_TRUE(static_cast<bool>(module))
        << llvm::toString(module.takeError());
    if (!module)
      return nullptr;
    modules.push_back(std::move(*module));
    return modules.back()->lookupSymbol<mlir::func::FuncOp>("main");
  }

  /// Compiles for the model's input (single-threaded, savable); the error
  /// text on failure.
  llvm::Expected<std::shared_ptr<const runtime::Executable>>
  compile(mlir::func::FuncOp func) {
    cpu::CompileOptions options;
    options.numThreads = 1;
    options.savable = true;
    auto compiled = cpu::compile(func, {{1, kIn, kSide, kSide}}, options);
    if (!compiled)
      return compiled.takeError();
    compiledModules.push_back(std::move(compiled->module));
    return compiled->executable;
  }

  static HostTensor input() {
    return rampInput({1, kIn, kSide, kSide}, 37, 101, 50.0f);
  }

  static std::vector<float> run(const runtime::Executable &exe) {
    runtime::RunOptions options;
    options.numThreads = 1;
    auto results = exe.run({input()}, options);
    EXPECT_TRUE(results.ok()) << results.status();
    if (!results.ok())
      return {};
    const HostTensor &y = (*results)[0];
    return std::vector<float>(y.dataAs<float>(),
                              y.dataAs<float>() + y.numElements());
  }

  /// `func` compiled for `x`'s shape and run on it (single-threaded): its
  /// result's elements, and the plan in `plan`.
  static std::vector<float>
  compileAndRun(mlir::func::FuncOp func, const HostTensor &x,
                std::shared_ptr<const runtime::Executable> &plan) {
    cpu::CompileOptions options;
    options.numThreads = 1;
    auto compiled = cpu::compile(func, {x.shape()}, options);
    EXPECT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    if (!compiled)
      return {};
    plan = compiled->executable;
    runtime::RunOptions run;
    run.numThreads = 1;
    auto y = plan->run({x}, run);
    EXPECT_TRUE(y.ok()) << y.status();
    if (!y.ok())
      return {};
    const float *data = (*y)[0].dataAs<float>();
    return std::vector<float>(data, data + (*y)[0].numElements());
  }

  /// `path` imported with its weights left in the file and copied into the
  /// IR, each compiled for `x` and run: their results in that order, and the
  /// first's plan in `inFile`.
  std::vector<std::vector<float>>
  runBothImports(const std::string &path, const HostTensor &x,
                 std::shared_ptr<const runtime::Executable> &inFile) {
    std::vector<std::vector<float>> results;
    for (bool weightsInFile : {true, false}) {
      mlir::func::FuncOp func = import(path, weightsInFile);
      EXPECT_TRUE(func);
      if (!func)
        return {};
      std::shared_ptr<const runtime::Executable> plan;
      results.push_back(compileAndRun(func, x, plan));
      EXPECT_TRUE(plan);
      if (weightsInFile)
        inFile = plan;
    }
    return results;
  }

  /// The function's constants stored in the model file.
  static int64_t fileBackedConstants(mlir::func::FuncOp func) {
    int64_t n = 0;
    func.walk([&](ConstantOp c) { n += isFileBackedConstant(c.getValue()); });
    return n;
  }

  mlir::MLIRContext context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules, compiledModules;
};

TEST_F(FileBackedWeights, TheIrHoldsNoCopyAndThePlanHoldsTheWeightsOnce) {
  std::string gemmWeights;
  std::string path = writeModel("once", gemmWeights);
  mlir::func::FuncOp inFile = import(path, /*weightsInFile=*/true);
  ASSERT_TRUE(inFile);
  // The conv and Gemm weights (the bias is small: in the IR).
  EXPECT_EQ(fileBackedConstants(inFile), 2);
  EXPECT_EQ(residentFileBackedBytes(), 0);

  auto exe = compile(inFile);
  ASSERT_TRUE(static_cast<bool>(exe)) << llvm::toString(exe.takeError());
  // The Gemm's kernel prepacked its weights: the plan let their copy go.
  int64_t released = 0;
  for (const auto &finite : (*exe)->releasedFinite)
    released += finite.has_value();
  EXPECT_GE(released, 1);
  EXPECT_LT(residentFileBackedBytes(),
            static_cast<int64_t>(kOut * kIn * 9 + kOut * 64 * kClasses) * 4);
  std::vector<float> y = run(**exe);

  // Bitwise what an import that copies the weights into the IR computes.
  mlir::func::FuncOp copied = import(path, /*weightsInFile=*/false);
  ASSERT_TRUE(copied);
  EXPECT_EQ(fileBackedConstants(copied), 0);
  auto exeCopied = compile(copied);
  ASSERT_TRUE(static_cast<bool>(exeCopied))
      << llvm::toString(exeCopied.takeError());
  EXPECT_EQ(run(**exeCopied), y);

  // A second compile reads the weights back from the file; its plan and a
  // saved and loaded copy of the first compute the same.
  auto again = compile(inFile);
  ASSERT_TRUE(static_cast<bool>(again)) << llvm::toString(again.takeError());
  EXPECT_EQ(run(**again), y);
  auto bytes = runtime::cpu::serializePlan(**exe, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = runtime::cpu::loadPlanFromBytes(*bytes, "plan");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(run(*loaded->executable), y);
  exe->reset();
  again->reset();
  exeCopied->reset();
  compiledModules.clear();
  EXPECT_EQ(residentFileBackedBytes(), 0);
  std::filesystem::remove(path);
}

/// y = (x W) W: one initializer read by two MatMuls (a transformer's layers
/// sharing weights). Where the first prepacks it, the plan lets the copy go
/// and reads it back from the file for the second.
TEST_F(FileBackedWeights, SharedWeightsAreReadBackForTheirNextReader) {
  constexpr int64_t n = 256, kRows = 128; // 256 KiB of weights
  std::vector<float> w = test::randomFloats(n * n, 9, 0.1f);
  GraphWriter m("shared");
  m.initializer("w", {n, n}, rawFloats(w));
  m.node("MatMul", {"x", "w"}, "h");
  m.node("MatMul", {"h", "w"}, "y");
  m.io(true, "x", {kRows, n});
  m.io(false, "y", {kRows, n});
  std::string path = tempPath("shared");
  m.save(path);

  HostTensor x = rampInput({kRows, n}, 13, 29, 14.0f);
  std::shared_ptr<const runtime::Executable> inFile;
  std::vector<std::vector<float>> results = runBothImports(path, x, inFile);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(inFile);
  EXPECT_EQ(results[0], results[1]);
  // oneDNN's matmul prepacks constant weights on every ISA.
  EXPECT_FALSE(inFile->releasedFinite.empty());
  inFile.reset();
  EXPECT_EQ(residentFileBackedBytes(), 0);
  std::filesystem::remove(path);
}

/// y = relu(x W): oneDNN's relu drops NaN, so the kernel is guarded and
/// runs NaN or infinite rows on an exact twin made on first need. The twin
/// takes the weights from the guarded kernel's packed copy
/// (Kernel::unpackConstant): the plan lets the file's copy go as for any
/// prepacked weights, and rows holding NaN or infinities still give what
/// the copied-weights plan gives (NaN rows stay NaN), also once saved and
/// loaded.
TEST_F(FileBackedWeights, GuardedContractionsLetTheirWeightsGoAndStayExact) {
  constexpr int64_t n = 128, m = 256, kRows = 8; // 128 KiB of weights
  std::vector<float> w = test::randomFloats(n * m, 11, 0.1f);
  GraphWriter g("guarded");
  g.initializer("w", {n, m}, rawFloats(w));
  g.node("MatMul", {"x", "w"}, "h");
  g.node("Relu", {"h"}, "y");
  g.io(true, "x", {kRows, n});
  g.io(false, "y", {kRows, m});
  std::string path = tempPath("guarded");
  g.save(path);

  HostTensor x = rampInput({kRows, n}, 7, 23, 11.0f);
  x.dataAs<float>()[3] = std::nanf("");                              // row 0
  x.dataAs<float>()[n + 5] = std::numeric_limits<float>::infinity(); // row 1
  auto same = [](const std::vector<float> &a, const std::vector<float> &b) {
    if (a.size() != b.size())
      return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (std::isnan(a[i]) != std::isnan(b[i]) ||
          (!std::isnan(a[i]) && a[i] != b[i]))
        return false;
    return true;
  };
  std::shared_ptr<const runtime::Executable> inFilePlan;
  std::vector<std::vector<float>> results = runBothImports(path, x, inFilePlan);
  ASSERT_EQ(results.size(), 2u);
  ASSERT_TRUE(inFilePlan);
  // The weights were let go: the guard does not read them.
  EXPECT_FALSE(inFilePlan->releasedFinite.empty());
  EXPECT_EQ(residentFileBackedBytes(), 0);
  ASSERT_EQ(results[0].size(), static_cast<size_t>(kRows * m));
  EXPECT_TRUE(same(results[0], results[1]));
  // Row 0 is NaN throughout; row 1 (an infinity times column 5's
  // weights) infinite where that weight is positive, else 0; the finite
  // rows relu(x W).
  for (int64_t j = 0; j < m; ++j) {
    auto at = [&](int64_t row) {
      return results[0][static_cast<size_t>(row * m + j)];
    };
    EXPECT_TRUE(std::isnan(at(0))) << j;
    float w5 = w[static_cast<size_t>(5 * m + j)];
    EXPECT_EQ(at(1), w5 > 0 ? std::numeric_limits<float>::infinity() : 0.0f)
        << j;
    for (int64_t row = 2; row < kRows; ++row) {
      double h = 0;
      for (int64_t k = 0; k < n; ++k)
        h += double{x.dataAs<float>()[row * n + k]} *
             w[static_cast<size_t>(k * m + j)];
      EXPECT_NEAR(at(row), std::max(h, 0.0), 1e-4) << row << ", " << j;
    }
  }
  // Saved (without the released weights) and loaded: the same.
  auto bytes = runtime::cpu::serializePlan(*inFilePlan, {});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  auto loaded = runtime::cpu::loadPlanFromBytes(*bytes, "plan");
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  runtime::RunOptions options;
  options.numThreads = 1;
  auto y = loaded->executable->run({x}, options);
  ASSERT_TRUE(y.ok()) << y.status();
  const float *data = (*y)[0].dataAs<float>();
  EXPECT_TRUE(
      same(std::vector<float>(data, data + (*y)[0].numElements()), results[0]));
  inFilePlan.reset();
  std::filesystem::remove(path);
}

/// y = x W with W in an external data file beside the model (at an offset
/// of 100 bytes: unaligned): a file-backed constant too, bitwise the
/// results of copying it into the IR.
TEST_F(FileBackedWeights, ExternalDataStaysInItsFile) {
  constexpr int64_t n = 192, rows = 128; // 144 KiB of weights
  std::vector<float> w = test::randomFloats(n * n, 13, 0.1f);
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tgc-file-backed-external-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream data(dir / "weights.bin", std::ios::binary);
    data << std::string(100, 'x') << rawFloats(w);
  }
  GraphWriter m("external");
  onnx::TensorProto &t = m.initializer("w", {n, n});
  t.set_data_location(onnx::TensorProto::EXTERNAL);
  for (auto [key, value] :
       {std::pair<std::string, std::string>{"location", "weights.bin"},
        {"offset", "100"},
        {"length", std::to_string(n * n * 4)}}) {
    onnx::StringStringEntryProto &e = *t.add_external_data();
    e.set_key(key);
    e.set_value(value);
  }
  m.node("MatMul", {"x", "w"}, "y");
  m.io(true, "x", {rows, n});
  m.io(false, "y", {rows, n});
  std::string path = (dir / "model.onnx").string();
  m.save(path);

  HostTensor x = rampInput({rows, n}, 7, 23, 11.0f);
  std::vector<std::vector<float>> results;
  for (bool weightsInFile : {true, false}) {
    mlir::func::FuncOp func = import(path, weightsInFile);
    ASSERT_TRUE(func);
    EXPECT_EQ(fileBackedConstants(func), weightsInFile ? 1 : 0);
    std::shared_ptr<const runtime::Executable> plan;
    results.push_back(compileAndRun(func, x, plan));
    ASSERT_EQ(results.back().size(), static_cast<size_t>(rows * n));
    EXPECT_NEAR(
        results.back()[5 * n + 7],
        [&] {
          double sum = 0;
          for (int64_t k = 0; k < n; ++k)
            sum += double{x.dataAs<float>()[5 * n + k]} * w[k * n + 7];
          return sum;
        }(),
        1e-4);
  }
  EXPECT_EQ(results[0], results[1]);
  std::filesystem::remove_all(dir);
}

TEST_F(FileBackedWeights, AModelFileChangedOrTruncatedAfterTheImportIsAnError) {
  std::string gemmWeights;
  std::string path = writeModel("changed", gemmWeights);
  mlir::func::FuncOp func = import(path, /*weightsInFile=*/true);
  ASSERT_TRUE(func);
  auto first = compile(func);
  ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());

  // Other bytes where the Gemm weights were (the first plan let them go: a
  // second compile reads them again).
  std::string file;
  {
    std::ifstream in(path, std::ios::binary);
    file.assign(std::istreambuf_iterator<char>(in), {});
  }
  size_t at = file.find(gemmWeights);
  ASSERT_NE(at, std::string::npos);
  {
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.seekp(static_cast<std::streamoff>(at + 100));
    out.write("\x7f\x7f\x7f\x7f", 4);
  }
  auto changed = compile(func);
  ASSERT_FALSE(static_cast<bool>(changed));
  std::string message = llvm::toString(changed.takeError());
  EXPECT_NE(message.find("changed since the model was imported"),
            std::string::npos)
      << message;

  // Another model file cut short after its import.
  std::string shortPath = writeModel("short", gemmWeights);
  mlir::func::FuncOp other = import(shortPath, /*weightsInFile=*/true);
  ASSERT_TRUE(other);
  std::filesystem::resize_file(shortPath, at + 10);
  auto truncated = compile(other);
  ASSERT_FALSE(static_cast<bool>(truncated));
  message = llvm::toString(truncated.takeError());
  EXPECT_NE(message.find("changed since the model was imported"),
            std::string::npos)
      << message;
  std::filesystem::remove(shortPath);
  // The first plan still runs: it holds the weights, prepacked.
  EXPECT_EQ(run(**first).size(), static_cast<size_t>(kClasses));
  std::filesystem::remove(path);
}

} // namespace
