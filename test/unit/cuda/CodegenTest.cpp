//===- CodegenTest.cpp - generated kernels, compiled and run --------------===//

#include "codegen/cuda/KernelGen.h"
#include "codegen/cuda/Nvrtc.h"
#include "dialects/TgcDialect.h"
#include "runtime/cuda/Executable.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace tgc;

namespace {
constexpr const char *kModule = R"mlir(
func.func @f(%x: tensor<3x5xf32>, %b: tensor<5xf32>) -> tensor<3x5xf32> {
  %0 = tgc.fusion <loop> (%x, %b) : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32> {
  ^bb0(%a: tensor<3x5xf32>, %c: tensor<5xf32>):
    %1 = tgc.add %a, %c : (tensor<3x5xf32>, tensor<5xf32>) -> tensor<3x5xf32>
    %2 = tgc.tanh %1 : tensor<3x5xf32>
    tgc.yield %2 : tensor<3x5xf32>
  }
  return %0 : tensor<3x5xf32>
}
)mlir";

struct Generated {
  mlir::MLIRContext context;
  cuda::GeneratedKernel kernel;
};

std::unique_ptr<Generated> generate() {
  auto g = std::make_unique<Generated>();
  g->context.loadDialect<TgcDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(kModule, &g->context);
  EXPECT_TRUE(module);
  FusionOp fusion;
  module->walk([&](FusionOp op) { fusion = op; });
  auto kernel = cuda::generateLoopKernel(fusion, "k");
  EXPECT_TRUE(mlir::succeeded(kernel));
  g->kernel = *kernel;
  return g;
}
} // namespace

TEST(CudaCodegen, CompilesToPtxAndCubinWithoutAGpu) {
  auto g = generate();
  EXPECT_EQ(g->kernel.numElements, 15);
  EXPECT_EQ(g->kernel.opList, "add,tanh");
  auto ptx = cuda::compileCuda(cuda::kernelSource(g->kernel), "sm_90");
  ASSERT_TRUE(ptx.ok()) << ptx.status();
  EXPECT_NE(ptx->find(".target sm_90"), std::string::npos);
  EXPECT_NE(ptx->find(".entry k("), std::string::npos);
  auto cubin = cuda::compileCuda(cuda::kernelSource(g->kernel), "sm_90",
                                 cuda::ImageKind::Cubin);
  ASSERT_TRUE(cubin.ok()) << cubin.status();
  EXPECT_EQ(cubin->substr(0, 4), "\x7f"
                                 "ELF");
  auto bad = cuda::compileCuda("this is not CUDA", "sm_90");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("NVRTC failed"),
            absl::string_view::npos);
}

TEST(CudaCodegen, RunsOnTheDevice) {
  auto device = cuda::openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  auto g = generate();
  cuda::KernelCompiler compile = [](const std::string &source,
                                    const std::string &arch) {
    return cuda::compileCuda(source, arch);
  };
  auto image = (*device)->kernels().getImage(cuda::kernelSource(g->kernel),
                                             (*device)->arch(), compile);
  ASSERT_TRUE(image.ok()) << image.status();
  cuda::ExecutableSpec spec;
  spec.inputs = {{runtime::DType::F32, {3, 5}}, {runtime::DType::F32, {5}}};
  spec.intermediates = {{runtime::DType::F32, {3, 5}}};
  spec.kernels = {{g->kernel.name, *image}};
  spec.launches = {
      {0, g->kernel.launch.grid, g->kernel.launch.block, 0, {0, 1, 2}}};
  spec.results = {2};
  auto executable = cuda::DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();
  auto x = *runtime::HostTensor::allocate(runtime::DType::F32, {3, 5});
  auto b = *runtime::HostTensor::allocate(runtime::DType::F32, {5});
  for (int i = 0; i < 15; ++i)
    x.setDouble(i, 0.1 * i - 0.7);
  for (int i = 0; i < 5; ++i)
    b.setDouble(i, 0.25 * i);
  for (int call = 0; call < 2; ++call) {
    auto results = (*executable)->run(**device, {x, b});
    ASSERT_TRUE(results.ok()) << results.status();
    for (int i = 0; i < 15; ++i)
      EXPECT_NEAR((*results)[0].getDouble(i),
                  std::tanh(x.getDouble(i) + b.getDouble(i % 5)), 1e-6);
  }
  // The second call reused the first call's blocks.
  EXPECT_GT((*device)->pool().stats().hits, 0);
}

// hasStandaloneKernel answers exactly what generateLoopKernel accepts for
// the op wrapped alone, and leaves the IR as it was.
TEST(CudaCodegen, StandaloneKernelsAreThoseTheGeneratorAccepts) {
  mlir::MLIRContext context;
  context.loadDialect<TgcDialect, mlir::func::FuncDialect>();
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"mlir(
func.func @f(%x: tensor<1x4x8x8xf32>, %i: tensor<3xi64>, %n: tensor<5xi32>, %h: tensor<5xf16>, %d: tensor<5xf64>, %u: tensor<?x4xf32>) {
  %0 = tgc.max_pool2d %x {kernel = array<i64: 2, 2>, strides = array<i64: 2, 2>} : (tensor<1x4x8x8xf32>) -> tensor<1x4x4x4xf32>
  %1 = tgc.gather %x, %i {axis = 1 : i64} : (tensor<1x4x8x8xf32>, tensor<3xi64>) -> tensor<1x3x8x8xf32>
  %2 = tgc.argmax %x {axis = 1 : i64} : (tensor<1x4x8x8xf32>) -> tensor<1x8x8xi64>
  %3 = tgc.softmax %x {axis = 1 : i64} : tensor<1x4x8x8xf32>
  %4 = tgc.add %n, %n : tensor<5xi32>
  %5 = tgc.exp %h : tensor<5xf16>
  %6 = tgc.div %n, %n : tensor<5xi32>
  %7 = tgc.exp %d : tensor<5xf64>
  %8 = tgc.matmul %x, %x : (tensor<1x4x8x8xf32>, tensor<1x4x8x8xf32>) -> tensor<1x4x8x8xf32>
  %9:2 = tgc.topk %h {axis = 0 : i64, k = 2 : i64} : (tensor<5xf16>) -> (tensor<2xf16>, tensor<2xi64>)
  %10 = tgc.exp %u : tensor<?x4xf32>
  %11 = tgc.pad %n {low = array<i64: 1>, high = array<i64: 2>} : (tensor<5xi32>) -> tensor<8xi32>
  return
}
)mlir",
                                                        &context);
  ASSERT_TRUE(module);
  std::vector<bool> expected = {true,  true,  true,  true,  true,  true,
                                false, false, false, false, false, true};
  std::vector<bool> got;
  auto func = module->lookupSymbol<mlir::func::FuncOp>("f");
  for (mlir::Operation &op : func.getBody().front().without_terminator())
    got.push_back(cuda::hasStandaloneKernel(&op));
  EXPECT_EQ(got, expected);
  // The probes left no ops or uses behind.
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
  EXPECT_EQ(std::distance(func.getArgument(0).use_begin(),
                          func.getArgument(0).use_end()),
            6);
}
