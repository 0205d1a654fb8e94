//===- CompilerTest.cpp - cuda::compile
//------------------------------------===//
//
// Compiling needs only NVRTC and runs everywhere with the toolkit; running
// the compiled functions against the reference interpreter needs a GPU and
// skips ("no CUDA device: ...") without one.

#include "codegen/cuda/Compiler.h"
#include "codegen/Calibration.h"
#include "codegen/reference/Interpreter.h"
#include "dialects/TgcDialect.h"
#include "runtime/cuda/Device.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <utility>

using namespace tgc;
using runtime::HostTensor;

namespace {
constexpr const char *kModule = R"mlir(
func.func @chain(%x: tensor<?x8xf32>, %b: tensor<8xf32>) -> (tensor<?x8xf32>, tensor<?xf32>) {
  %0 = tgc.add %x, %b : (tensor<?x8xf32>, tensor<8xf32>) -> tensor<?x8xf32>
  %1 = tgc.gelu %0 : tensor<?x8xf32>
  %2 = tgc.mul %1, %0 : tensor<?x8xf32>
  %3 = tgc.reshape %2 : tensor<?x8xf32> to tensor<?xf32>
  return %2, %3 : tensor<?x8xf32>, tensor<?xf32>
}
func.func @softmax(%x: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %m = tgc.reduce_max %x {axes = array<i64: 1>, keepdims} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %d = tgc.sub %x, %m : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  %e = tgc.exp %d : tensor<?x?xf32>
  %s = tgc.reduce_sum %e {axes = array<i64: 1>, keepdims} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %y = tgc.div %e, %s : (tensor<?x?xf32>, tensor<?x1xf32>) -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}
func.func @layer_norm(%x: tensor<?x?x?xf32>, %g: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?x?x?xf32> {
  %eps = tgc.constant dense<1.0e-05> : tensor<f32>
  %two = tgc.constant dense<2.0> : tensor<f32>
  %mean = tgc.reduce_mean %x {axes = array<i64: 2>, keepdims} : (tensor<?x?x?xf32>) -> tensor<?x?x1xf32>
  %d = tgc.sub %x, %mean : (tensor<?x?x?xf32>, tensor<?x?x1xf32>) -> tensor<?x?x?xf32>
  %sq = tgc.pow %d, %two : (tensor<?x?x?xf32>, tensor<f32>) -> tensor<?x?x?xf32>
  %var = tgc.reduce_mean %sq {axes = array<i64: 2>, keepdims} : (tensor<?x?x?xf32>) -> tensor<?x?x1xf32>
  %ve = tgc.add %var, %eps : (tensor<?x?x1xf32>, tensor<f32>) -> tensor<?x?x1xf32>
  %r = tgc.rsqrt %ve : tensor<?x?x1xf32>
  %n = tgc.mul %d, %r : (tensor<?x?x?xf32>, tensor<?x?x1xf32>) -> tensor<?x?x?xf32>
  %s = tgc.mul %n, %g : (tensor<?x?x?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  %y = tgc.add %s, %b : (tensor<?x?x?xf32>, tensor<?xf32>) -> tensor<?x?x?xf32>
  return %y : tensor<?x?x?xf32>
}
func.func @per_row(%x: tensor<?x?xf32>) -> (tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>) {
  %a = tgc.abs %x : tensor<?x?xf32>
  %s = tgc.reduce_sum %a {axes = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  %m = tgc.reduce_min %x {axes = array<i64: 1>, keepdims} : (tensor<?x?xf32>) -> tensor<?x1xf32>
  %p = tgc.reduce_prod %x {axes = array<i64: 1>} : (tensor<?x?xf32>) -> tensor<?xf32>
  return %s, %m, %p : tensor<?xf32>, tensor<?x1xf32>, tensor<?xf32>
}
func.func @dense(%x: tensor<2x4xf32>, %w: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %0 = tgc.matmul %x, %w : (tensor<2x4xf32>, tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}
func.func @dense_any(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>) -> tensor<?x?xf32> {
  %0 = tgc.matmul %x, %w : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}
func.func @dense_int(%x: tensor<2x4xi32>, %w: tensor<4x8xi32>) -> tensor<2x8xi32> {
  %0 = tgc.matmul %x, %w : (tensor<2x4xi32>, tensor<4x8xi32>) -> tensor<2x8xi32>
  return %0 : tensor<2x8xi32>
}
)mlir";

struct Fixture {
  Fixture() {
    context.loadDialect<TgcDialect, mlir::func::FuncDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &context);
    EXPECT_TRUE(module);
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

std::vector<HostTensor>
randomInputs(const std::vector<std::vector<int64_t>> &shapes, unsigned seed,
             double scale = 1.0) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-scale, scale);
  std::vector<HostTensor> inputs;
  for (const auto &shape : shapes) {
    auto t = *HostTensor::allocate(runtime::DType::F32, shape);
    for (int64_t i = 0; i < t.numElements(); ++i)
      t.setDouble(i, dist(rng));
    inputs.push_back(std::move(t));
  }
  return inputs;
}
} // namespace

TEST(CudaCompiler, CompilesWithoutAGpu) {
  Fixture f;
  auto softmax = cuda::compile(f.get("softmax"), {{33, 1000}});
  ASSERT_TRUE(static_cast<bool>(softmax))
      << llvm::toString(softmax.takeError());
  ASSERT_EQ(softmax->launches.size(), 1u);
  EXPECT_EQ(softmax->launches[0].kind, "row");
  EXPECT_EQ(softmax->launches[0].rows, 33);
  EXPECT_EQ(softmax->launches[0].rowLength, 1000);
  EXPECT_EQ(softmax->executable->spec().kernels[0].image.substr(0, 4), "\x7f"
                                                                       "ELF");
  EXPECT_NE(softmax->describe().find("[reduce_max,sub,exp,reduce_sum,div]"),
            std::string::npos);

  cuda::CompileOptions ptx;
  ptx.imageKind = cuda::ImageKind::Ptx;
  ptx.arch = "sm_80";
  auto ln = cuda::compile(f.get("layer_norm"), {{2, 3, 17}, {17}, {17}}, ptx);
  ASSERT_TRUE(static_cast<bool>(ln)) << llvm::toString(ln.takeError());
  ASSERT_EQ(ln->launches.size(), 1u);
  EXPECT_NE(ln->executable->spec().kernels[0].image.find(".target sm_80"),
            std::string::npos);

  auto chain = cuda::compile(f.get("chain"), {{5, 8}, {8}});
  ASSERT_TRUE(static_cast<bool>(chain)) << llvm::toString(chain.takeError());
  EXPECT_EQ(chain->launches.size(), 1u);
  // A cubin (ELF) for sm_90, with PTX for compute_90 as its fallback.
  const cuda::KernelImage &image = chain->executable->spec().kernels[0];
  EXPECT_EQ(image.image.compare(0, 4,
                                "\x7f"
                                "ELF"),
            0);
  EXPECT_NE(image.fallbackImage.find(".target sm_90"), std::string::npos);
  cuda::CompileOptions noFallback;
  noFallback.ptxFallback = false;
  auto bare = cuda::compile(f.get("chain"), {{5, 8}, {8}}, noFallback);
  ASSERT_TRUE(static_cast<bool>(bare)) << llvm::toString(bare.takeError());
  EXPECT_TRUE(bare->executable->spec().kernels[0].fallbackImage.empty());
  EXPECT_EQ(chain->executable->spec().resultSpecs[1].shape,
            std::vector<int64_t>{40});
}

TEST(CudaCompiler, MatmulIsACublasLtStep) {
  Fixture f;
  auto dense = cuda::compile(f.get("dense"), {{2, 4}, {4, 8}});
  ASSERT_TRUE(static_cast<bool>(dense)) << llvm::toString(dense.takeError());
  const cuda::ExecutableSpec &spec = dense->executable->spec();
  ASSERT_EQ(spec.launches.size(), 1u);
  EXPECT_EQ(spec.launches[0].kind, cuda::Launch::Kind::Matmul);
  ASSERT_EQ(spec.matmuls.size(), 1u);
  EXPECT_EQ(spec.matmuls[0].m, 2);
  EXPECT_EQ(spec.matmuls[0].n, 8);
  EXPECT_EQ(spec.matmuls[0].k, 4);
  EXPECT_EQ(spec.matmuls[0].epilogue, cuda::MatmulCall::Epilogue::None);
  EXPECT_TRUE(spec.kernels.empty());
}

TEST(CudaCompiler, UnsupportedOpsAreLocatedErrors) {
  Fixture f;
  auto dense = cuda::compile(f.get("dense_int"), {{2, 4}, {4, 8}});
  ASSERT_FALSE(static_cast<bool>(dense));
  std::string message = llvm::toString(dense.takeError());
  EXPECT_NE(message.find("tgc.matmul at "), std::string::npos) << message;
  EXPECT_NE(message.find("is not supported by the cuda backend yet"),
            std::string::npos)
      << message;
  auto wrong = cuda::compile(f.get("softmax"), {{3}});
  EXPECT_FALSE(static_cast<bool>(wrong));
  llvm::consumeError(wrong.takeError());
  cuda::CompileOptions bad;
  bad.arch = "sm_1";
  auto arch = cuda::compile(f.get("softmax"), {{3, 4}}, bad);
  EXPECT_FALSE(static_cast<bool>(arch));
  llvm::consumeError(arch.takeError());
}

// Every function at several sizes (rows shorter than a warp, longer than a
// block, more rows than the grid's 65535 blocks) against the reference.
TEST(CudaCompiler, MatchesTheReferenceOnTheDevice) {
  auto device = cuda::openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  Fixture f;
  struct Case {
    const char *function;
    std::vector<std::vector<int64_t>> shapes;
    double scale = 1.0;
  };
  std::vector<Case> cases = {
      {"chain", {{5, 8}, {8}}},
      {"chain", {{100000, 8}, {8}}},
      {"softmax", {{3, 17}}},
      {"softmax", {{33, 1000}}},
      {"softmax", {{8, 4099}}},
      {"softmax", {{70000, 5}}},
      {"layer_norm", {{2, 3, 17}, {17}, {17}}},
      {"layer_norm", {{4, 128, 768}, {768}, {768}}},
      {"per_row", {{17, 1000}}, 1.0},
      {"per_row", {{70000, 3}}, 1.0},
      // cuBLASLt (the fused epilogues: test/gpu/cuda-differential.sh).
      {"dense", {{2, 4}, {4, 8}}},
      {"dense_any", {{128, 768}, {768, 300}}},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.function);
    cuda::CompileOptions options;
    options.arch = (*device)->arch();
    auto compiled = cuda::compile(f.get(c.function), c.shapes, options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    auto inputs = randomInputs(c.shapes, 7, c.scale);
    auto want = reference::runFunction(f.get(c.function), inputs);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    for (int call = 0; call < 2; ++call) {
      auto got = compiled->executable->run(**device, inputs);
      ASSERT_TRUE(got.ok()) << got.status() << "\n" << compiled->describe();
      ASSERT_EQ(got->size(), want->size());
      for (size_t i = 0; i < got->size(); ++i) {
        auto close = runtime::allClose((*got)[i], (*want)[i], 1e-4, 1e-5);
        EXPECT_TRUE(close.ok()) << "result #" << i << ": " << close << "\n"
                                << compiled->describe();
      }
    }
  }
}

namespace {
// Ops the CUDA compiler gives a standalone generated kernel (wrapped alone
// in a loop fusion): pools, data movement, outer reductions, arg
// reductions, normalizations, f16/bf16/i1/integer element types.
constexpr const char *kStandaloneModule = R"mlir(
func.func @pools(%x: tensor<2x8x9x9xf32>) -> (tensor<2x8x5x5xf32>, tensor<2x8x5x5xf32>, tensor<2x8x1x1xf32>) {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>} : (tensor<2x8x9x9xf32>) -> tensor<2x8x5x5xf32>
  %1 = tgc.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, ceil_mode, count_include_pad} : (tensor<2x8x9x9xf32>) -> tensor<2x8x5x5xf32>
  %2 = tgc.global_avg_pool2d %x : (tensor<2x8x9x9xf32>) -> tensor<2x8x1x1xf32>
  return %0, %1, %2 : tensor<2x8x5x5xf32>, tensor<2x8x5x5xf32>, tensor<2x8x1x1xf32>
}
func.func @nhwc_pools(%x: tensor<2x9x9x8xf32>) -> (tensor<2x3x3x8xf32>, tensor<2x5x5x8xf32>, tensor<2x1x1x8xf32>) {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 3, 3>, dilations = array<i64: 2, 2>, ceil_mode, layout = #tgc.layout<NHWC>} : (tensor<2x9x9x8xf32>) -> tensor<2x3x3x8xf32>
  %1 = tgc.avg_pool2d %x {kernel = array<i64: 3, 3>, padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, layout = #tgc.layout<NHWC>} : (tensor<2x9x9x8xf32>) -> tensor<2x5x5x8xf32>
  %2 = tgc.global_avg_pool2d %x {layout = #tgc.layout<NHWC>} : (tensor<2x9x9x8xf32>) -> tensor<2x1x1x8xf32>
  return %0, %1, %2 : tensor<2x3x3x8xf32>, tensor<2x5x5x8xf32>, tensor<2x1x1x8xf32>
}
func.func @data(%x: tensor<4x10xf32>, %ids: tensor<3xi64>) -> (tensor<2x5xf32>, tensor<5x13xf32>, tensor<4x3xf32>, tensor<4x23xf32>) {
  %0 = tgc.slice %x {starts = array<i64: 1, -1>, ends = array<i64: 9223372036854775807, 0>, steps = array<i64: 2, -2>} : (tensor<4x10xf32>) -> tensor<2x5xf32>
  %1 = tgc.pad %x {low = array<i64: 1, 2>, high = array<i64: 0, 1>, value = -1.5 : f64} : (tensor<4x10xf32>) -> tensor<5x13xf32>
  %2 = tgc.gather %x, %ids {axis = 1 : i64} : (tensor<4x10xf32>, tensor<3xi64>) -> tensor<4x3xf32>
  %3 = tgc.concat %x, %2, %x {axis = 1 : i64} : (tensor<4x10xf32>, tensor<4x3xf32>, tensor<4x10xf32>) -> tensor<4x23xf32>
  return %0, %1, %2, %3 : tensor<2x5xf32>, tensor<5x13xf32>, tensor<4x3xf32>, tensor<4x23xf32>
}
func.func @reductions(%x: tensor<6x7x5xf32>) -> (tensor<7x5xf32>, tensor<1x7x1xf32>, tensor<6x5xi64>, tensor<6x7x5xf32>, tensor<6x7x5xf32>, tensor<6x7x5xf32>) {
  %0 = tgc.reduce_sum %x {axes = array<i64: 0>} : (tensor<6x7x5xf32>) -> tensor<7x5xf32>
  %1 = tgc.reduce_max %x {axes = array<i64: 0, 2>, keepdims} : (tensor<6x7x5xf32>) -> tensor<1x7x1xf32>
  %2 = tgc.argmax %x {axis = 1 : i64} : (tensor<6x7x5xf32>) -> tensor<6x5xi64>
  %3 = tgc.softmax %x {axis = 1 : i64} : tensor<6x7x5xf32>
  %4 = tgc.log_softmax %x {axis = 0 : i64} : tensor<6x7x5xf32>
  %5 = tgc.layer_norm %x {axis = 1 : i64} : (tensor<6x7x5xf32>) -> tensor<6x7x5xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<7x5xf32>, tensor<1x7x1xf32>, tensor<6x5xi64>, tensor<6x7x5xf32>, tensor<6x7x5xf32>, tensor<6x7x5xf32>
}
func.func @dtypes(%x: tensor<4x33xf16>, %y: tensor<33xbf16>, %i: tensor<4x33xi32>) -> (tensor<4x33xf16>, tensor<4x33xf32>, tensor<4x33xbf16>, tensor<4x33xi32>, tensor<4x33xi64>) {
  %0 = tgc.exp %x : tensor<4x33xf16>
  %1 = tgc.cast %x : tensor<4x33xf16> to tensor<4x33xf32>
  %2 = tgc.cast %y : tensor<33xbf16> to tensor<33xf32>
  %3 = tgc.compare lt, %1, %2 : (tensor<4x33xf32>, tensor<33xf32>) -> tensor<4x33xi1>
  %4 = tgc.select %3, %1, %2 : (tensor<4x33xi1>, tensor<4x33xf32>, tensor<33xf32>) -> tensor<4x33xf32>
  %5 = tgc.cast %4 : tensor<4x33xf32> to tensor<4x33xbf16>
  %6 = tgc.mul %i, %i : tensor<4x33xi32>
  %7 = tgc.sub %6, %i : tensor<4x33xi32>
  %8 = tgc.cast %1 : tensor<4x33xf32> to tensor<4x33xi32>
  %9 = tgc.cast %8 : tensor<4x33xi32> to tensor<4x33xi64>
  return %0, %4, %5, %7, %9 : tensor<4x33xf16>, tensor<4x33xf32>, tensor<4x33xbf16>, tensor<4x33xi32>, tensor<4x33xi64>
}
)mlir";

struct StandaloneFixture {
  StandaloneFixture() {
    context.loadDialect<TgcDialect, mlir::func::FuncDialect>();
    module =
        mlir::parseSourceString<mlir::ModuleOp>(kStandaloneModule, &context);
    EXPECT_TRUE(module);
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  }
  std::vector<std::vector<int64_t>> shapes(llvm::StringRef name) {
    std::vector<std::vector<int64_t>> result;
    for (mlir::Type type : get(name).getArgumentTypes()) {
      auto shape = mlir::cast<mlir::RankedTensorType>(type).getShape();
      result.emplace_back(shape.begin(), shape.end());
    }
    return result;
  }
  /// Random arguments of the function's types: floats in [-2, 2),
  /// integers in [-4, 4) (valid gather indices for dims of 4 or more).
  std::vector<HostTensor> inputs(llvm::StringRef name, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> real(-2.0, 2.0);
    std::uniform_int_distribution<int64_t> integer(-4, 3);
    std::vector<HostTensor> result;
    for (mlir::Type type : get(name).getArgumentTypes()) {
      auto tensor = mlir::cast<mlir::RankedTensorType>(type);
      auto dtype = *reference::toDType(tensor.getElementType());
      auto t = *HostTensor::allocate(
          dtype, {tensor.getShape().begin(), tensor.getShape().end()});
      for (int64_t i = 0; i < t.numElements(); ++i) {
        if (runtime::isFloatDType(dtype))
          t.setDouble(i, real(rng));
        else
          t.setInt(i, integer(rng));
      }
      result.push_back(std::move(t));
    }
    return result;
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

constexpr const char *kStandaloneFunctions[] = {"pools", "nhwc_pools", "data",
                                                "reductions", "dtypes"};
} // namespace

TEST(CudaCompiler, CompilesStandaloneKernelsWithoutAGpu) {
  StandaloneFixture f;
  for (const char *name : kStandaloneFunctions) {
    SCOPED_TRACE(name);
    auto compiled = cuda::compile(f.get(name), f.shapes(name));
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    EXPECT_FALSE(compiled->launches.empty());
    EXPECT_EQ(compiled->executable->spec().kernels[0].image.substr(0, 4),
              "\x7f"
              "ELF");
  }
  // One kernel per op (none of them is loop-fusable on its own terms).
  auto pools = cuda::compile(f.get("pools"), f.shapes("pools"));
  ASSERT_TRUE(static_cast<bool>(pools)) << llvm::toString(pools.takeError());
  EXPECT_EQ(pools->launches.size(), 3u) << pools->describe();
}

// The standalone kernels against the reference interpreter.
TEST(CudaCompiler, StandaloneKernelsMatchTheReferenceOnTheDevice) {
  auto device = cuda::openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  StandaloneFixture f;
  for (const char *name : kStandaloneFunctions) {
    SCOPED_TRACE(name);
    cuda::CompileOptions options;
    options.arch = (*device)->arch();
    auto compiled = cuda::compile(f.get(name), f.shapes(name), options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    auto inputs = f.inputs(name, 11);
    auto want = reference::runFunction(f.get(name), inputs);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    for (int call = 0; call < 2; ++call) {
      auto got = compiled->executable->run(**device, inputs);
      ASSERT_TRUE(got.ok()) << got.status() << "\n" << compiled->describe();
      ASSERT_EQ(got->size(), want->size());
      for (size_t i = 0; i < got->size(); ++i) {
        // f16/bf16 results may differ by one rounding (computed in f32 here,
        // in double by the reference).
        bool narrow = (*want)[i].dtype() == runtime::DType::F16 ||
                      (*want)[i].dtype() == runtime::DType::BF16;
        auto close = runtime::allClose(
            (*got)[i], (*want)[i], narrow ? 1e-2 : 1e-4, narrow ? 1e-2 : 1e-5);
        EXPECT_TRUE(close.ok()) << "result #" << i << ": " << close << "\n"
                                << compiled->describe();
      }
    }
  }
}

// A gather index out of range fails the call, as it does on the reference
// interpreter and the CPU backend, instead of reading a clamped element.
TEST(CudaCompiler, GatherIndexOutOfRangeFailsTheCall) {
  StandaloneFixture f;
  cuda::CompileOptions options;
  auto device = cuda::openDevice(0);
  if (device.ok())
    options.arch = (*device)->arch();
  auto compiled = cuda::compile(f.get("data"), f.shapes("data"), options);
  ASSERT_TRUE(static_cast<bool>(compiled))
      << llvm::toString(compiled.takeError());
  // The gather's kernel carries its check, located at the op.
  std::vector<std::string> checks;
  for (const cuda::KernelImage &kernel : compiled->executable->spec().kernels)
    checks.insert(checks.end(), kernel.checks.begin(), kernel.checks.end());
  ASSERT_EQ(checks.size(), 1u);
  const std::string tail =
      ": 'tgc.gather' op index %v is out of range [-10, 10)";
  ASSERT_GT(checks[0].size(), tail.size());
  EXPECT_EQ(checks[0].substr(checks[0].size() - tail.size()), tail);
  EXPECT_NE(checks[0].find(":17:8: "), std::string::npos) << checks[0];
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();

  auto inputs = f.inputs("data", 3);
  auto &ids = inputs[1];
  ids.setInt(0, 2);
  ids.setInt(1, 12);
  ids.setInt(2, -1);
  for (int call = 0; call < 2; ++call) {
    auto got = compiled->executable->run(**device, inputs);
    ASSERT_FALSE(got.ok());
    EXPECT_TRUE(absl::IsOutOfRange(got.status())) << got.status();
    EXPECT_NE(got.status().message().find(
                  "'tgc.gather' op index 12 is out of range [-10, 10)"),
              std::string::npos)
        << got.status();
  }
  std::vector<cuda::DeviceTensor> onDevice;
  for (const HostTensor &input : inputs)
    onDevice.push_back(*cuda::DeviceTensor::fromHost(*device, input));
  auto resident = compiled->executable->runOnDevice(onDevice);
  EXPECT_TRUE(absl::IsOutOfRange(resident.status())) << resident.status();

  // The status is reset per call: valid indices (-10 counts from the end)
  // then run and match the reference.
  ids.setInt(1, -10);
  auto want = reference::runFunction(f.get("data"), inputs);
  ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
  auto got = compiled->executable->run(**device, inputs);
  ASSERT_TRUE(got.ok()) << got.status();
  for (size_t i = 0; i < got->size(); ++i) {
    auto close = runtime::allClose((*got)[i], (*want)[i], 1e-5, 1e-6);
    EXPECT_TRUE(close.ok()) << "result #" << i << ": " << close;
  }
}

namespace {
// Reduced precision (CompileOptions::precision, tgc-reduce-precision): a
// residual CNN block and a dense layer with softmax.
constexpr const char *kPrecisionModule = R"mlir(
func.func @cnn(%x: tensor<2x8x12x12xf32>, %w1: tensor<16x8x3x3xf32>, %b1: tensor<16xf32>, %w2: tensor<16x16x3x3xf32>) -> tensor<2x16xf32> {
  %c1 = tgc.conv2d %x, %w1, %b1 {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x8x12x12xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x12x12xf32>
  %r1 = tgc.relu %c1 : tensor<2x16x12x12xf32>
  %c2 = tgc.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>} : (tensor<2x16x12x12xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x12x12xf32>
  %a = tgc.add %c2, %r1 : (tensor<2x16x12x12xf32>, tensor<2x16x12x12xf32>) -> tensor<2x16x12x12xf32>
  %r2 = tgc.relu %a : tensor<2x16x12x12xf32>
  %p = tgc.max_pool2d %r2 {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<2x16x12x12xf32>) -> tensor<2x16x6x6xf32>
  %g = tgc.global_avg_pool2d %p : (tensor<2x16x6x6xf32>) -> tensor<2x16x1x1xf32>
  %f = tgc.reshape %g : tensor<2x16x1x1xf32> to tensor<2x16xf32>
  return %f : tensor<2x16xf32>
}
func.func @dense_softmax(%x: tensor<64x96xf32>, %w: tensor<96x128xf32>, %b: tensor<128xf32>) -> tensor<64x128xf32> {
  %y = tgc.matmul %x, %w : (tensor<64x96xf32>, tensor<96x128xf32>) -> tensor<64x128xf32>
  %z = tgc.add %y, %b : (tensor<64x128xf32>, tensor<128xf32>) -> tensor<64x128xf32>
  %s = tgc.softmax %z {axis = 1 : i64} : tensor<64x128xf32>
  return %s : tensor<64x128xf32>
}
)mlir";

struct PrecisionFixture {
  PrecisionFixture() {
    context.loadDialect<TgcDialect, mlir::func::FuncDialect>();
    module =
        mlir::parseSourceString<mlir::ModuleOp>(kPrecisionModule, &context);
    EXPECT_TRUE(module);
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

const std::vector<std::vector<int64_t>> kCnnShapes = {
    {2, 8, 12, 12}, {16, 8, 3, 3}, {16}, {16, 16, 3, 3}};
const std::vector<std::vector<int64_t>> kDenseShapes = {
    {64, 96}, {96, 128}, {128}};
} // namespace

// f16 / bf16 plans: every cuDNN convolution and cuBLASLt matmul takes narrow
// operands, the activations between them stay narrow, and the function's
// arguments and results keep f32.
TEST(CudaCompiler, ReducedPrecisionPlansNarrowLibraryCalls) {
  PrecisionFixture f;
  for (Precision precision : {Precision::F16, Precision::BF16}) {
    SCOPED_TRACE(toString(precision));
    const runtime::DType narrow = precision == Precision::F16
                                      ? runtime::DType::F16
                                      : runtime::DType::BF16;
    cuda::CompileOptions options;
    options.precision = precision;
    auto cnn = cuda::compile(f.get("cnn"), kCnnShapes, options);
    ASSERT_TRUE(static_cast<bool>(cnn)) << llvm::toString(cnn.takeError());
    const cuda::ExecutableSpec &spec = cnn->executable->spec();
    ASSERT_EQ(spec.convs.size(), 2u) << cnn->describe();
    for (const cuda::ConvCall &conv : spec.convs)
      EXPECT_EQ(conv.dtype, narrow) << cnn->describe();
    // The residual add and relu ride in the second convolution's epilogue.
    EXPECT_GE(spec.convs[1].z, 0) << cnn->describe();
    EXPECT_TRUE(spec.convs[1].relu) << cnn->describe();
    EXPECT_EQ(spec.inputs[0].dtype, runtime::DType::F32);
    EXPECT_NE(cnn->describe().find("results: b"), std::string::npos);
    EXPECT_NE(cnn->describe().find("x16xf32"), std::string::npos)
        << cnn->describe();

    auto dense = cuda::compile(f.get("dense_softmax"), kDenseShapes, options);
    ASSERT_TRUE(static_cast<bool>(dense)) << llvm::toString(dense.takeError());
    ASSERT_EQ(dense->executable->spec().matmuls.size(), 1u);
    const cuda::MatmulCall &mm = dense->executable->spec().matmuls[0];
    EXPECT_EQ(mm.dtype, narrow);
    EXPECT_EQ(mm.epilogue, cuda::MatmulCall::Epilogue::Bias);
    // The softmax stays f32: one row kernel that widens its narrow input.
    EXPECT_NE(dense->describe().find("row"), std::string::npos)
        << dense->describe();
    EXPECT_NE(dense->describe().find("[cast,reduce_max"), std::string::npos)
        << dense->describe();
  }
}

// On the device, f16 and bf16 results stay within their rounding of the
// f32 reference (f16: 10 mantissa bits, bf16: 7).
TEST(CudaCompiler, ReducedPrecisionTracksTheReferenceOnTheDevice) {
  auto device = cuda::openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  PrecisionFixture f;
  for (Precision precision : {Precision::F16, Precision::BF16}) {
    SCOPED_TRACE(toString(precision));
    const double tolerance = precision == Precision::F16 ? 1e-2 : 5e-2;
    for (const auto &[name, shapes] :
         {std::pair{"cnn", kCnnShapes},
          std::pair{"dense_softmax", kDenseShapes}}) {
      SCOPED_TRACE(name);
      cuda::CompileOptions options;
      options.arch = (*device)->arch();
      options.precision = precision;
      auto compiled = cuda::compile(f.get(name), shapes, options);
      ASSERT_TRUE(static_cast<bool>(compiled))
          << llvm::toString(compiled.takeError());
      auto inputs = randomInputs(shapes, 11, 0.5);
      auto want = reference::runFunction(f.get(name), inputs);
      ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
      auto got = compiled->executable->run(**device, inputs);
      ASSERT_TRUE(got.ok()) << got.status() << "\n" << compiled->describe();
      ASSERT_EQ(got->size(), 1u);
      ASSERT_EQ((*got)[0].dtype(), runtime::DType::F32);
      double largest = 0, worst = 0;
      for (int64_t i = 0; i < (*want)[0].numElements(); ++i) {
        largest = std::max(largest, std::abs((*want)[0].getDouble(i)));
        worst = std::max(
            worst, std::abs((*got)[0].getDouble(i) - (*want)[0].getDouble(i)));
      }
      EXPECT_GT(largest, 0.0);
      EXPECT_LE(worst, tolerance * largest) << "largest " << largest << "\n"
                                            << compiled->describe();
    }
  }
}

namespace {
// int8 (tgc-cuda-quantize-contractions): a QDQ model's CNN (NCHW, the grid
// of a u8 input with a zero point, then of an s8 one), a dense layer
// quantized by a calibration table, and a grouped convolution that has no
// int8 call (its QDQ grid is applied by a kernel).
std::string denseText(llvm::ArrayRef<int64_t> shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-1.0, 1.0);
  std::string type = "tensor<";
  for (int64_t d : shape)
    type += std::to_string(d) + "x";
  type += "f32>";
  // Nested brackets, one level per dim.
  std::function<std::string(size_t)> level = [&](size_t dim) {
    std::string text = "[";
    for (int64_t i = 0; i < shape[dim]; ++i)
      text +=
          (i ? ", " : "") + (dim + 1 == shape.size() ? std::to_string(dist(rng))
                                                     : level(dim + 1));
    return text + "]";
  };
  return "dense<" + level(0) + "> : " + type;
}

std::string int8Module() {
  return R"mlir(
func.func @qdq_cnn(%x: tensor<2x8x10x10xf32>) -> tensor<2x16x5x5xf32> {
  %w1 = tgc.constant )mlir" +
         denseText({16, 8, 3, 3}, 1) + R"mlir(
  %b1 = tgc.constant )mlir" +
         denseText({16}, 2) + R"mlir(
  %w2 = tgc.constant )mlir" +
         denseText({16, 16, 3, 3}, 3) + R"mlir(
  %c1 = tgc.conv2d %x, %w1, %b1 {padding = array<i64: 1, 1, 1, 1>, tgc.input_quantization = {scale = 0.01 : f64, zero_point = 100 : i64, storage = ui8}} : (tensor<2x8x10x10xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<2x16x10x10xf32>
  %r1 = tgc.relu %c1 : tensor<2x16x10x10xf32>
  %c2 = tgc.conv2d %r1, %w2 {padding = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, tgc.input_quantization = {scale = 0.05 : f64, zero_point = 0 : i64, storage = i8}} : (tensor<2x16x10x10xf32>, tensor<16x16x3x3xf32>) -> tensor<2x16x5x5xf32>
  return %c2 : tensor<2x16x5x5xf32>
}
func.func @calibrated_dense(%x: tensor<6x32xf32>) -> tensor<6x16xf32> {
  %w = tgc.constant )mlir" +
         denseText({32, 16}, 4) + R"mlir(
  %b = tgc.constant )mlir" +
         denseText({16}, 5) + R"mlir(
  %y = tgc.matmul %x, %w : (tensor<6x32xf32>, tensor<32x16xf32>) -> tensor<6x16xf32> loc("dense.onnx":1:0)
  %z = tgc.add %y, %b : (tensor<6x16xf32>, tensor<16xf32>) -> tensor<6x16xf32>
  %r = tgc.relu %z : tensor<6x16xf32>
  return %r : tensor<6x16xf32>
}
func.func @grouped(%x: tensor<1x8x6x6xf32>) -> tensor<1x8x6x6xf32> {
  %w = tgc.constant )mlir" +
         denseText({8, 4, 3, 3}, 6) + R"mlir(
  %c = tgc.conv2d %x, %w {groups = 2 : i64, padding = array<i64: 1, 1, 1, 1>, tgc.input_quantization = {scale = 0.02 : f64, zero_point = 3 : i64, storage = ui8}} : (tensor<1x8x6x6xf32>, tensor<8x4x3x3xf32>) -> tensor<1x8x6x6xf32>
  return %c : tensor<1x8x6x6xf32>
}
)mlir";
}

struct Int8Fixture {
  Int8Fixture() {
    context.loadDialect<TgcDialect, mlir::func::FuncDialect>();
    module = mlir::parseSourceString<mlir::ModuleOp>(int8Module(), &context);
    EXPECT_TRUE(module);
    // The dense layer's input range, as a calibration run would record it.
    codegen::CalibrationTable t;
    t.calibrator = codegen::Calibrator::MinMax;
    t.asymmetric = true;
    t.entries["dense.onnx:1:0#0"] = {-1.0, 1.5, 1.5};
    table = std::make_shared<const codegen::CalibrationTable>(std::move(t));
  }
  mlir::func::FuncOp get(llvm::StringRef name) {
    return module->lookupSymbol<mlir::func::FuncOp>(name);
  }
  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  std::shared_ptr<const codegen::CalibrationTable> table;
};

const std::vector<std::pair<const char *, std::vector<std::vector<int64_t>>>>
    kInt8Functions = {{"qdq_cnn", {{2, 8, 10, 10}}},
                      {"calibrated_dense", {{6, 32}}},
                      {"grouped", {{1, 8, 6, 6}}}};

/// The largest |want| and the largest |got - want|.
std::pair<double, double> deviation(const HostTensor &got,
                                    const HostTensor &want) {
  double largest = 0, worst = 0;
  for (int64_t i = 0; i < want.numElements(); ++i) {
    largest = std::max(largest, std::abs(want.getDouble(i)));
    worst = std::max(worst, std::abs(got.getDouble(i) - want.getDouble(i)));
  }
  return {largest, worst};
}
} // namespace

// Compiled without a GPU: every quantized contraction is an int8 library
// call with its quantize and dequantize kernels; a contraction without a
// grid or table entry, or one no int8 call expresses, stays f32.
TEST(CudaCompiler, Int8PlansInt8LibraryCalls) {
  Int8Fixture f;
  cuda::CompileOptions options;
  options.precision = Precision::Int8;
  options.calibration = f.table;
  auto cnn = cuda::compile(f.get("qdq_cnn"), kInt8Functions[0].second, options);
  ASSERT_TRUE(static_cast<bool>(cnn)) << llvm::toString(cnn.takeError());
  const cuda::ExecutableSpec &spec = cnn->executable->spec();
  ASSERT_EQ(spec.convs.size(), 2u) << cnn->describe();
  for (const cuda::ConvCall &conv : spec.convs) {
    EXPECT_EQ(conv.dtype, runtime::DType::I8) << cnn->describe();
    EXPECT_TRUE(conv.nhwc);
    EXPECT_LT(conv.bias, 0);
    EXPECT_FALSE(conv.relu);
  }
  // The u8 grid's zero point is not s8's: its convolution pads explicitly
  // (with the zero point) and runs unpadded; the s8 grid's pads in cuDNN.
  EXPECT_EQ(spec.convs[0].padH, 0);
  EXPECT_EQ(spec.convs[1].padH, 1);
  EXPECT_EQ(spec.convs[1].strideH, 2);
  EXPECT_NE(cnn->describe().find("int8: 2 of 2 library calls\n"),
            std::string::npos)
      << cnn->describe();
  // Loop fusion: the input's transpose, quantization and zero-point
  // padding in one kernel; the first layer's dequantization, bias and relu
  // with the second's quantization in another.
  EXPECT_NE(cnn->describe().find("[transpose,div,round,add,clamp,cast,pad]"),
            std::string::npos)
      << cnn->describe();
  EXPECT_NE(cnn->describe().find("[sub,mul,add,relu,div,round,clamp,cast]"),
            std::string::npos)
      << cnn->describe();
  EXPECT_EQ(cnn->executable->spec().kernels.size(), 3u) << cnn->describe();
  EXPECT_NE(cnn->describe().find("int8 -> f32"), std::string::npos);

  auto dense = cuda::compile(f.get("calibrated_dense"),
                             kInt8Functions[1].second, options);
  ASSERT_TRUE(static_cast<bool>(dense)) << llvm::toString(dense.takeError());
  ASSERT_EQ(dense->executable->spec().matmuls.size(), 1u);
  const cuda::MatmulCall &mm = dense->executable->spec().matmuls[0];
  EXPECT_EQ(mm.dtype, runtime::DType::I8) << dense->describe();
  EXPECT_TRUE(mm.transB);
  EXPECT_EQ(mm.m, 6);
  EXPECT_EQ(mm.n, 16);
  EXPECT_EQ(mm.k, 32);
  EXPECT_EQ(mm.epilogue, cuda::MatmulCall::Epilogue::None);
  // Bias and relu follow the dequantization in one kernel.
  EXPECT_NE(dense->describe().find("[cast,sub,mul,add,relu]"),
            std::string::npos)
      << dense->describe();

  // Without the table the dense layer has no quantization: f32.
  options.calibration = nullptr;
  auto plain = cuda::compile(f.get("calibrated_dense"),
                             kInt8Functions[1].second, options);
  ASSERT_TRUE(static_cast<bool>(plain)) << llvm::toString(plain.takeError());
  ASSERT_EQ(plain->executable->spec().matmuls.size(), 1u);
  EXPECT_EQ(plain->executable->spec().matmuls[0].dtype, runtime::DType::F32);
  EXPECT_NE(plain->describe().find("int8: 0 of 1 library call (the others"),
            std::string::npos)
      << plain->describe();

  // Groups: no int8 call; the QDQ grid is still applied, by a kernel.
  auto grouped =
      cuda::compile(f.get("grouped"), kInt8Functions[2].second, options);
  ASSERT_TRUE(static_cast<bool>(grouped))
      << llvm::toString(grouped.takeError());
  ASSERT_EQ(grouped->executable->spec().convs.size(), 1u);
  EXPECT_EQ(grouped->executable->spec().convs[0].dtype, runtime::DType::F32);
  EXPECT_NE(grouped->describe().find("[transpose,div,round,add,clamp,sub,mul]"),
            std::string::npos)
      << grouped->describe();
}

// The int8 plan's IR, run by the interpreter (the int8 reference: integer
// products, then the dequantization), tracks the f32 function (which
// applies the QDQ grids itself) within the weights' 8-bit rounding; the
// grouped convolution's f32 plan with its grid kernel matches exactly.
TEST(CudaCompiler, Int8IrTracksTheReference) {
  Int8Fixture f;
  for (const auto &[name, shapes] : kInt8Functions) {
    SCOPED_TRACE(name);
    cuda::CompileOptions options;
    options.precision = Precision::Int8;
    options.calibration = f.table;
    auto compiled = cuda::compile(f.get(name), shapes, options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    auto lowered = compiled->module->lookupSymbol<mlir::func::FuncOp>(name);
    ASSERT_TRUE(lowered);
    auto inputs = randomInputs(shapes, 5, 1.0);
    auto want = reference::runFunction(f.get(name), inputs);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    auto got = reference::runFunction(lowered, inputs);
    ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
    auto [largest, worst] = deviation((*got)[0], (*want)[0]);
    EXPECT_GT(largest, 0.0);
    const double tolerance =
        std::string(name) == "grouped" ? 1e-6 : 0.03 /* 8-bit weights */;
    EXPECT_LE(worst, tolerance * largest) << "largest " << largest;
    // And not by accident: the int8 functions' results do differ a little.
    if (std::string(name) != "grouped")
      EXPECT_GT(worst, 0.0);
  }
}

// On the device, the int8 calls compute the interpreter's integer products
// exactly; only the float quantize / dequantize kernels may round
// differently (fast division).
TEST(CudaCompiler, Int8MatchesItsIrOnTheDevice) {
  auto device = cuda::openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  Int8Fixture f;
  for (const auto &[name, shapes] : kInt8Functions) {
    SCOPED_TRACE(name);
    cuda::CompileOptions options;
    options.arch = (*device)->arch();
    options.precision = Precision::Int8;
    options.calibration = f.table;
    auto compiled = cuda::compile(f.get(name), shapes, options);
    ASSERT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    auto lowered = compiled->module->lookupSymbol<mlir::func::FuncOp>(name);
    auto inputs = randomInputs(shapes, 7, 1.0);
    auto want = reference::runFunction(lowered, inputs);
    ASSERT_TRUE(static_cast<bool>(want)) << llvm::toString(want.takeError());
    auto got = compiled->executable->run(**device, inputs);
    ASSERT_TRUE(got.ok()) << got.status() << "\n" << compiled->describe();
    auto [largest, worst] = deviation((*got)[0], (*want)[0]);
    EXPECT_GT(largest, 0.0);
    EXPECT_LE(worst, 1e-3 * largest) << compiled->describe();
  }
}
