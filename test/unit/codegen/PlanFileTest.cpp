//===- PlanFileTest.cpp - CPU plans saved to disk and loaded back ---------===//
//
// runtime/cpu/PlanFile.h over plans the CPU compiler makes: a saved plan
// runs bitwise like the compiled one (prepacked weights, blocked layouts,
// Winograd, loop kernels), damaged files are errors naming the reason, and
// the backend's persistent cache serves whole plans (codegen/cpu/
// PlanCache.h).
//
//===----------------------------------------------------------------------===//

#include "runtime/cpu/PlanFile.h"
#include "TestSources.h"
#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Compiler.h"
#include "codegen/cpu/KernelObjectCache.h"
#include "codegen/cpu/PlanCache.h"
#include "dialects/TgcDialect.h"
#include "runtime/Hash.h"
#include "runtime/cpu/Kernels.h"
#include "tgc/Artifact.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;
namespace rcpu = runtime::cpu;

using tgc::testing::denseF32;

namespace {

std::string tempPath(const std::string &name) {
  llvm::SmallString<256> path;
  llvm::sys::path::system_temp_directory(/*erasedOnReboot=*/true, path);
  llvm::sys::path::append(path, "tgc-plan-" + name + "-" +
                                    std::to_string(::getpid()));
  return std::string(path);
}

/// Convolutions (one a Winograd candidate) with constant weights, a pool,
/// a matmul with a constant rhs, softmax, gather and an elementwise tail.
std::string netSource() {
  std::ostringstream os;
  os << "func.func @net(%x: tensor<1x16x12x12xf32>, %y: tensor<4x32xf32>, "
        "%idx: tensor<3xi64>) -> (tensor<1x32x6x6xf32>, tensor<4x10xf32>, "
        "tensor<3x10xf32>) {\n"
     << "  %w0 = tgc.constant " << denseF32(32 * 16 * 9, 1)
     << " : tensor<32x16x3x3xf32>\n"
     << "  %b0 = tgc.constant " << denseF32(32, 2) << " : tensor<32xf32>\n"
     << "  %c = tgc.conv2d %x, %w0, %b0 {padding = array<i64: 1, 1, 1, 1>} : "
        "(tensor<1x16x12x12xf32>, tensor<32x16x3x3xf32>, tensor<32xf32>) -> "
        "tensor<1x32x12x12xf32>\n"
     << "  %r = tgc.relu %c : tensor<1x32x12x12xf32>\n"
     << "  %w1 = tgc.constant " << denseF32(32 * 32 * 9, 3)
     << " : tensor<32x32x3x3xf32>\n"
     << "  %c1 = tgc.conv2d %r, %w1 {padding = array<i64: 1, 1, 1, 1>} : "
        "(tensor<1x32x12x12xf32>, tensor<32x32x3x3xf32>) -> "
        "tensor<1x32x12x12xf32>\n"
     << "  %s = tgc.add %c1, %r : tensor<1x32x12x12xf32>\n"
     << "  %p = tgc.max_pool2d %s {kernel = array<i64: 2, 2>, strides = "
        "array<i64: 2, 2>} : (tensor<1x32x12x12xf32>) -> "
        "tensor<1x32x6x6xf32>\n"
     << "  %wm = tgc.constant " << denseF32(32 * 10, 4)
     << " : tensor<32x10xf32>\n"
     << "  %m = tgc.matmul %y, %wm : (tensor<4x32xf32>, tensor<32x10xf32>) -> "
        "tensor<4x10xf32>\n"
     << "  %sm = tgc.softmax %m {axis = 1 : i64} : tensor<4x10xf32>\n"
     << "  %g = tgc.gather %sm, %idx {axis = 0 : i64} : (tensor<4x10xf32>, "
        "tensor<3xi64>) -> tensor<3x10xf32>\n"
     << "  %t = tgc.tanh %g : tensor<3x10xf32>\n"
     << "  %e = tgc.exp %t : tensor<3x10xf32>\n"
     << "  return %p, %sm, %e : tensor<1x32x6x6xf32>, tensor<4x10xf32>, "
        "tensor<3x10xf32>\n"
     << "}\n";
  return os.str();
}

constexpr const char *kLoopSource = R"mlir(
func.func @loops(%x: tensor<8x64xf32>, %y: tensor<64xf32>) -> tensor<8x64xf32> {
  %0 = tgc.mul %x, %y : (tensor<8x64xf32>, tensor<64xf32>) -> tensor<8x64xf32>
  %1 = tgc.tanh %0 : tensor<8x64xf32>
  %2 = tgc.exp %1 : tensor<8x64xf32>
  return %2 : tensor<8x64xf32>
}
)mlir";

HostTensor randomTensor(DType dtype, std::vector<int64_t> shape,
                        unsigned seed) {
  HostTensor t = *HostTensor::allocate(dtype, shape);
  std::mt19937 rng(seed);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, std::uniform_real_distribution<double>(-1, 1)(rng));
  return t;
}

std::vector<HostTensor> netInputs() {
  HostTensor idx = *HostTensor::allocate(DType::I64, {3});
  idx.setInt(0, 3);
  idx.setInt(1, 0);
  idx.setInt(2, -2);
  return {randomTensor(DType::F32, {1, 16, 12, 12}, 7),
          randomTensor(DType::F32, {4, 32}, 8), idx};
}

class PlanFileTest : public ::testing::Test {
protected:
  void SetUp() override {
    tgc::testing::loadAllDialects(context);
    codegen::registerAllBackends(); // the loop kernels' loader
  }

  mlir::func::FuncOp parse(const std::string &source, const char *name) {
    modules.push_back(
        mlir::parseSourceString<mlir::ModuleOp>(source, &context));
    EXPECT_TRUE(modules.back());
    return modules.back()->lookupSymbol<mlir::func::FuncOp>(name);
  }

  std::shared_ptr<const runtime::Executable>
  compile(mlir::func::FuncOp func,
          const std::vector<std::vector<int64_t>> &shapes,
          cpu::CompileOptions options = {}) {
    options.numThreads = 1;
    options.savable = true;
    auto compiled = cpu::compile(func, shapes, options);
    EXPECT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    if (!compiled)
      return nullptr;
    compiledModules.push_back(std::move(compiled->module));
    return compiled->executable;
  }

  static void expectBitwiseEqual(const std::vector<HostTensor> &a,
                                 const std::vector<HostTensor> &b) {
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) {
      ASSERT_EQ(a[i].shape(), b[i].shape()) << i;
      ASSERT_EQ(a[i].dtype(), b[i].dtype()) << i;
      EXPECT_EQ(std::memcmp(a[i].data(), b[i].data(), a[i].byteSize()), 0)
          << "result " << i << " differs";
    }
  }

  static std::vector<HostTensor> run(const runtime::Executable &exe,
                                     const std::vector<HostTensor> &args) {
    runtime::RunOptions options;
    options.numThreads = 1;
    auto results = exe.run(args, options);
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? *results : std::vector<HostTensor>{};
  }

  mlir::MLIRContext context;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules, compiledModules;
};

std::string readFile(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}
void writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

/// Recomputes a plan file's two checksums after a test changed its bytes
/// (the body's: XXH64 over the XXH64s of its 16 MiB chunks).
void reseal(std::string &file) {
  uint64_t headerBytes;
  std::memcpy(&headerBytes, file.data() + 16, 8);
  uint64_t start = (32 + headerBytes + 63) / 64 * 64;
  std::vector<uint64_t> digests;
  for (uint64_t at = start; at < file.size(); at += uint64_t(16) << 20)
    digests.push_back(runtime::hash64(
        file.data() + at,
        std::min<uint64_t>(uint64_t(16) << 20, file.size() - at)));
  uint64_t body = runtime::hash64(digests.data(), digests.size() * 8);
  // The body checksum is the header's last field.
  std::memcpy(&file[32 + headerBytes - 8], &body, 8);
  uint64_t header = runtime::hash64(file.data() + 32, headerBytes);
  std::memcpy(&file[24], &header, 8);
}

TEST_F(PlanFileTest, SavedPlansRunBitwiseLikeCompiledOnes) {
  auto func = parse(netSource(), "net");
  auto exe = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}});
  ASSERT_TRUE(exe);
  ASSERT_TRUE(rcpu::checkSavable(*exe).ok()) << rcpu::checkSavable(*exe);
  std::string path = tempPath("net.tgcx");
  ASSERT_TRUE(
      rcpu::savePlan(*exe, {{"function", "net"}, {"k", "v"}}, path).ok());
  auto loaded = rcpu::loadPlan(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->info.get("function"), "net");
  EXPECT_EQ(loaded->info.get("k"), "v");
  EXPECT_EQ(loaded->info.isa, rcpu::cpuIsa().name);
  // The convolutions' and the matmul's prepacked weights came from the file.
  EXPECT_GE(loaded->prepackedReused, 2u) << exe->describe();
  EXPECT_EQ(loaded->executable->describe(), exe->describe());
  std::vector<HostTensor> args = netInputs();
  std::vector<HostTensor> compiled = run(*exe, args);
  std::vector<HostTensor> saved = run(*loaded->executable, args);
  expectBitwiseEqual(compiled, saved);
  // A plan loaded from a file saves again to the same bytes.
  auto again = rcpu::serializePlan(*loaded->executable,
                                   {{"function", "net"}, {"k", "v"}});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == readFile(path));
  // The runtime's public face of the same file.
  auto artifact = Artifact::load(path);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_EQ(artifact->function(), "net");
  ASSERT_EQ(artifact->inputs().size(), 3u);
  EXPECT_EQ(artifact->inputs()[0].shape, (std::vector<int64_t>{1, 16, 12, 12}));
  EXPECT_EQ(artifact->inputs()[2].dtype, DType::I64);
  ASSERT_EQ(artifact->outputs().size(), 3u);
  EXPECT_EQ(artifact->outputs()[1].shape, (std::vector<int64_t>{4, 10}));
  auto viaArtifact = artifact->run(args, 1);
  ASSERT_TRUE(viaArtifact.ok()) << viaArtifact.status();
  expectBitwiseEqual(compiled, *viaArtifact);
  auto wrong = artifact->run({args[1], args[0], args[2]}, 1);
  EXPECT_FALSE(wrong.ok());
  std::remove(path.c_str());
}

// A strided 1x1 convolution over a blocked activation (ResNet's
// downsample) runs as a pixel gather and a stride-1 convolution: its
// prepacked weights are saved like any convolution's, so a load reorders
// nothing (it reordered 10 MB of ResNet-50's weights on every warm start,
// and kept their plain copy in the file).
TEST_F(PlanFileTest, SubsampledPointwiseConvolutionsKeepTheirPackedWeights) {
  std::ostringstream os;
  os << "func.func @down(%x: tensor<1x32x16x16xf32>) -> "
        "tensor<1x64x8x8xf32> {\n"
     << "  %w0 = tgc.constant " << denseF32(32 * 32 * 9, 5)
     << " : tensor<32x32x3x3xf32>\n"
     << "  %c = tgc.conv2d %x, %w0 {padding = array<i64: 1, 1, 1, 1>} : "
        "(tensor<1x32x16x16xf32>, tensor<32x32x3x3xf32>) -> "
        "tensor<1x32x16x16xf32>\n"
     << "  %r = tgc.relu %c : tensor<1x32x16x16xf32>\n"
     << "  %w1 = tgc.constant " << denseF32(64 * 32, 6)
     << " : tensor<64x32x1x1xf32>\n"
     << "  %d = tgc.conv2d %r, %w1 {strides = array<i64: 2, 2>} : "
        "(tensor<1x32x16x16xf32>, tensor<64x32x1x1xf32>) -> "
        "tensor<1x64x8x8xf32>\n"
     << "  %o = tgc.relu %d : tensor<1x64x8x8xf32>\n"
     << "  return %o : tensor<1x64x8x8xf32>\n"
     << "}\n";
  auto func = parse(os.str(), "down");
  cpu::CompileOptions options;
  options.activationLayouts = cpu::ActivationLayouts::Blocked;
  auto exe = compile(func, {{1, 32, 16, 16}}, options);
  ASSERT_TRUE(exe);
  std::string described = exe->describe();
  if (described.find("onednn.conv2d.subsampled") == std::string::npos)
    GTEST_SKIP() << "no blocked layout on " << rcpu::cpuIsa().name
                 << ", so no subsampled convolution to save:\n"
                 << described;
  std::string path = tempPath("down.tgcx");
  ASSERT_TRUE(rcpu::savePlan(*exe, {}, path).ok());
  auto loaded = rcpu::loadPlan(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  // Both convolutions took their packed weights from the file.
  EXPECT_EQ(loaded->prepackedReused, 2u) << described;
  EXPECT_EQ(loaded->executable->describe(), described);
  std::vector<HostTensor> args = {randomTensor(DType::F32, {1, 32, 16, 16}, 9)};
  expectBitwiseEqual(run(*exe, args), run(*loaded->executable, args));
  std::remove(path.c_str());
}

// A plan with control flow (a while whose body holds an if and a loop
// kernel): the steps' recipes hold their nested plans, so the plan saves,
// loads and runs bitwise like the compiled one, and saves again to the
// same bytes.
TEST_F(PlanFileTest, ControlFlowPlansSaveTheirNestedPlans) {
  constexpr const char *kSource = R"mlir(
func.func @loop(%x: tensor<8xf32>, %n: tensor<i64>) -> (tensor<8xf32>, tensor<i64>) {
  %zero = tgc.constant dense<0> : tensor<i64>
  %r:2 = tgc.while (%x, %zero) captures(%n : tensor<i64>) : (tensor<8xf32>, tensor<i64>) -> (tensor<8xf32>, tensor<i64>) cond {
  ^bb0(%v: tensor<8xf32>, %i: tensor<i64>, %m: tensor<i64>):
    %c = tgc.compare lt, %i, %m : (tensor<i64>, tensor<i64>) -> tensor<i1>
    tgc.yield %c : tensor<i1>
  } do {
  ^bb0(%v: tensor<8xf32>, %i: tensor<i64>, %m: tensor<i64>):
    %t = tgc.tanh %v : tensor<8xf32>
    %e = tgc.exp %t : tensor<8xf32>
    %s = tgc.reduce_sum %e {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<f32>
    %ten = tgc.constant dense<10.0> : tensor<f32>
    %big = tgc.compare gt, %s, %ten : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %nx = tgc.if %big (%e) : tensor<i1>, (tensor<8xf32>) -> tensor<8xf32> {
    ^bb0(%a: tensor<8xf32>):
      %h = tgc.constant dense<0.25> : tensor<f32>
      %g = tgc.mul %a, %h : (tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
      tgc.yield %g : tensor<8xf32>
    } else {
    ^bb0(%a: tensor<8xf32>):
      tgc.yield %a : tensor<8xf32>
    }
    %one = tgc.constant dense<1> : tensor<i64>
    %j = tgc.add %i, %one : tensor<i64>
    tgc.yield %nx, %j : tensor<8xf32>, tensor<i64>
  }
  return %r#0, %r#1 : tensor<8xf32>, tensor<i64>
}
)mlir";
  auto func = parse(kSource, "loop");
  auto exe = compile(func, {{8}, {}});
  ASSERT_TRUE(exe);
  std::string described = exe->describe();
  ASSERT_NE(described.find("[control.while]"), std::string::npos) << described;
  ASSERT_NE(described.find("[control.if]"), std::string::npos) << described;
  ASSERT_TRUE(rcpu::checkSavable(*exe).ok()) << rcpu::checkSavable(*exe);
  std::string path = tempPath("loop.tgcx");
  ASSERT_TRUE(rcpu::savePlan(*exe, {{"function", "loop"}}, path).ok());
  auto loaded = rcpu::loadPlan(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->executable->describe(), described);
  HostTensor n = *HostTensor::allocate(DType::I64, {});
  n.setInt(0, 5);
  std::vector<HostTensor> args = {randomTensor(DType::F32, {8}, 3), n};
  std::vector<HostTensor> compiled = run(*exe, args);
  ASSERT_EQ(compiled.size(), 2u);
  EXPECT_EQ(compiled[1].getInt(0), 5);
  expectBitwiseEqual(compiled, run(*loaded->executable, args));
  auto again = rcpu::serializePlan(*loaded->executable, {{"function", "loop"}});
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_TRUE(*again == readFile(path));
  // A nested plan that is damaged is an error naming it, not a crash: the
  // outer checksum is resealed, so that the nested one must catch it.
  std::string file = readFile(path);
  size_t nested = file.find("TGCXPLAN", 8);
  ASSERT_NE(nested, std::string::npos);
  file[nested + 8] ^= 0x40; // its format version
  reseal(file);
  writeFile(path, file);
  auto damaged = rcpu::loadPlan(path);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(std::string(damaged.status().message()).find("nested plan"),
            std::string::npos)
      << damaged.status();
  std::remove(path.c_str());
}

TEST_F(PlanFileTest, Bf16PlansSaveAndLoadBitwise) {
  auto func = parse(netSource(), "net");
  cpu::CompileOptions options;
  options.precision = Precision::BF16;
  if (!rcpu::cpuIsa().bf16) {
    auto refused = cpu::compile(func, {{1, 16, 12, 12}, {4, 32}, {3}}, options);
    ASSERT_FALSE(static_cast<bool>(refused));
    std::string message = llvm::toString(refused.takeError());
    EXPECT_NE(message.find("native bfloat16"), std::string::npos) << message;
    GTEST_SKIP() << "no native bf16 on " << rcpu::cpuIsa().name
                 << ": the refusal is what there is to test";
  }
  auto exe = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}}, options);
  ASSERT_TRUE(exe);
  std::string described = exe->describe();
  // Both convolutions and the matmul multiply in bf16; softmax does not.
  size_t count = 0;
  for (size_t at = 0; (at = described.find("[bf16]", at)) != std::string::npos;
       ++at)
    ++count;
  EXPECT_EQ(count, 3u) << described;
  std::string path = tempPath("bf16.tgcx");
  ASSERT_TRUE(rcpu::savePlan(*exe, {{"precision", "bf16"}}, path).ok());
  auto loaded = rcpu::loadPlan(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->executable->describe(), described);
  EXPECT_GE(loaded->prepackedReused, 2u);
  std::vector<HostTensor> args = netInputs();
  std::vector<HostTensor> compiled = run(*exe, args);
  expectBitwiseEqual(compiled, run(*loaded->executable, args));
  // Not the f32 plan's results.
  auto f32 = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}});
  ASSERT_TRUE(f32);
  std::vector<HostTensor> exact = run(*f32, args);
  EXPECT_NE(
      std::memcmp(exact[0].data(), compiled[0].data(), exact[0].byteSize()), 0);
  std::remove(path.c_str());
}

TEST_F(PlanFileTest, LoopKernelsAreSavedWithTheirObjectCode) {
  auto func = parse(kLoopSource, "loops");
  auto exe = compile(func, {{8, 64}, {64}});
  ASSERT_TRUE(exe);
  ASSERT_NE(exe->describe().find("jit.loop"), std::string::npos)
      << exe->describe();
  auto bytes = rcpu::serializePlan(*exe, {{"function", "loops"}});
  ASSERT_TRUE(bytes.ok()) << bytes.status();
  std::string path = tempPath("loops.tgcx");
  writeFile(path, *bytes);
  auto loaded = rcpu::loadPlan(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_NE(loaded->executable->describe().find("jit.loop"), std::string::npos);
  std::vector<HostTensor> args = {randomTensor(DType::F32, {8, 64}, 1),
                                  randomTensor(DType::F32, {64}, 2)};
  expectBitwiseEqual(run(*exe, args), run(*loaded->executable, args));
  std::remove(path.c_str());
}

TEST_F(PlanFileTest, DamagedFilesAreErrorsNamingTheReason) {
  auto func = parse(netSource(), "net");
  auto exe = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}});
  ASSERT_TRUE(exe);
  auto good = rcpu::serializePlan(*exe, {});
  ASSERT_TRUE(good.ok());
  std::string path = tempPath("damaged.tgcx");
  auto expectError = [&](const std::string &bytes, absl::StatusCode code,
                         const std::string &words) {
    writeFile(path, bytes);
    auto loaded = rcpu::loadPlan(path);
    ASSERT_FALSE(loaded.ok());
    EXPECT_EQ(loaded.status().code(), code) << loaded.status();
    EXPECT_NE(loaded.status().message().find(words), std::string::npos)
        << loaded.status();
    EXPECT_NE(loaded.status().message().find(path), std::string::npos)
        << loaded.status();
  };
  expectError(good->substr(0, good->size() / 2), absl::StatusCode::kDataLoss,
              "truncated");
  expectError(good->substr(0, 20), absl::StatusCode::kDataLoss, "truncated");
  expectError("", absl::StatusCode::kDataLoss, "truncated");
  std::string flipped = *good;
  flipped[flipped.size() - 100] ^= 0x40;
  expectError(flipped, absl::StatusCode::kDataLoss, "checksum does not match");
  std::string header = *good;
  header[40] ^= 1;
  expectError(header, absl::StatusCode::kDataLoss, "header's checksum");
  expectError(std::string(4096, 'x'), absl::StatusCode::kInvalidArgument,
              "not a tgc plan file");
  std::string version = *good;
  version[8] = 99;
  expectError(version, absl::StatusCode::kFailedPrecondition,
              "plan format version 99");
  std::remove(path.c_str());
  auto missing = rcpu::loadPlan(path);
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_FALSE(rcpu::isPlanFile(path));
}

/// Replaces the ISA named in a plan file's header (a string field) with
/// `isa` and reseals the file.
std::string withIsa(const std::string &file, const std::string &from,
                    const std::string &isa) {
  uint64_t headerBytes;
  std::memcpy(&headerBytes, file.data() + 16, 8);
  std::string header = file.substr(32, headerBytes);
  std::string needle(8, '\0');
  uint64_t n = from.size();
  std::memcpy(&needle[0], &n, 8);
  needle += from;
  size_t at = header.find(needle);
  EXPECT_NE(at, std::string::npos);
  std::string replacement(8, '\0');
  n = isa.size();
  std::memcpy(&replacement[0], &n, 8);
  replacement += isa;
  header.replace(at, needle.size(), replacement);
  uint64_t oldStart = (32 + headerBytes + 63) / 64 * 64;
  uint64_t newBytes = header.size();
  std::string out = file.substr(0, 32) + header;
  out.resize((32 + newBytes + 63) / 64 * 64, '\0');
  out += file.substr(oldStart);
  std::memcpy(&out[16], &newBytes, 8);
  reseal(out);
  return out;
}

TEST_F(PlanFileTest, PlansForAnotherIsaAreRefused) {
  auto func = parse(netSource(), "net");
  auto exe = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}});
  ASSERT_TRUE(exe);
  auto good = rcpu::serializePlan(*exe, {});
  ASSERT_TRUE(good.ok());
  std::string path = tempPath("isa.tgcx");
  std::string here = rcpu::cpuIsa().name;
  std::string other = here == "avx2" ? "avx512_core" : "avx2";
  writeFile(path, withIsa(*good, here, other));
  auto loaded = rcpu::loadPlan(path);
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(loaded.status().message().find("made for x86 " + other),
            std::string::npos)
      << loaded.status();
  EXPECT_NE(loaded.status().message().find("this CPU plans for " + here),
            std::string::npos)
      << loaded.status();
  EXPECT_NE(loaded.status().message().find("DNNL_MAX_CPU_ISA=" +
                                           rcpu::isaEnvironmentName(other)),
            std::string::npos)
      << loaded.status();
  // The same file with this machine's ISA back loads (the rewrite is sound).
  writeFile(path, withIsa(withIsa(*good, here, other), other, here));
  EXPECT_TRUE(rcpu::loadPlan(path).ok());
  std::remove(path.c_str());
}

TEST_F(PlanFileTest, ReferenceStepsCannotBeSaved) {
  auto func = parse(netSource(), "net");
  cpu::CompileOptions options;
  options.enableOneDnn = false; // every op on the reference interpreter
  auto exe = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}}, options);
  ASSERT_TRUE(exe);
  absl::Status status = rcpu::checkSavable(*exe);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(status.message().find("step 0 (tgc."), std::string::npos) << status;
  EXPECT_NE(status.message().find("on the reference path"), std::string::npos)
      << status;
  EXPECT_FALSE(rcpu::serializePlan(*exe, {}).ok());
}

// tgc.topk runs on a native kernel (it ran on the reference path, which
// made its plan unsavable): saved and loaded, the plan gives the same bits.
TEST_F(PlanFileTest, TopKPlansSaveAndLoadBitwise) {
  auto func = parse(R"mlir(
func.func @best(%x: tensor<6x50xf32>) -> (tensor<6x4xf32>, tensor<6x4xi64>, tensor<50x6xi64>) {
  %v, %i = tgc.topk %x {axis = 1 : i64, k = 4 : i64} : (tensor<6x50xf32>) -> (tensor<6x4xf32>, tensor<6x4xi64>)
  %sv, %si = tgc.topk %x {axis = 0 : i64, k = -1 : i64, largest = false} : (tensor<6x50xf32>) -> (tensor<6x50xf32>, tensor<6x50xi64>)
  %t = tgc.transpose %si {permutation = array<i64: 1, 0>} : (tensor<6x50xi64>) -> tensor<50x6xi64>
  return %v, %i, %t : tensor<6x4xf32>, tensor<6x4xi64>, tensor<50x6xi64>
}
)mlir",
                    "best");
  auto exe = compile(func, {{6, 50}});
  ASSERT_TRUE(exe);
  std::string plan = exe->describe();
  EXPECT_NE(plan.find("native.topk"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("reference"), plan.find("reference path: 0 ops")) << plan;
  ASSERT_TRUE(rcpu::checkSavable(*exe).ok()) << rcpu::checkSavable(*exe);
  std::string path = tempPath("topk.tgcx");
  ASSERT_TRUE(rcpu::savePlan(*exe, {{"function", "best"}}, path).ok());
  auto loaded = rcpu::loadPlan(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  std::vector<HostTensor> args = {randomTensor(DType::F32, {6, 50}, 21)};
  std::vector<HostTensor> compiled = run(*exe, args);
  expectBitwiseEqual(compiled, run(*loaded->executable, args));
  // Row 0's best is its largest element.
  ASSERT_EQ(compiled.size(), 3u);
  int64_t best = 0;
  for (int64_t j = 1; j < 50; ++j)
    if (args[0].getDouble(j) > args[0].getDouble(best))
      best = j;
  EXPECT_EQ(compiled[1].getInt(0), best);
  std::remove(path.c_str());
}

// Plan bytes changed and resealed (as a fuzzer would): loading fails with an
// error or succeeds, and never crashes.
TEST_F(PlanFileTest, ChangedDescriptorsNeverCrashTheLoader) {
  auto func = parse(netSource(), "net");
  // Without loop fusion: a loop kernel's machine code is trusted content
  // (docs/aot.md), which LLVM's JIT linker does not validate; a changed
  // byte there may crash it. Every descriptor is still in the plan.
  cpu::CompileOptions unfused;
  unfused.fuse = false;
  auto exe = compile(func, {{1, 16, 12, 12}, {4, 32}, {3}}, unfused);
  ASSERT_TRUE(exe);
  auto good = rcpu::serializePlan(*exe, {});
  ASSERT_TRUE(good.ok());
  uint64_t headerBytes;
  std::memcpy(&headerBytes, good->data() + 16, 8);
  uint64_t start = (32 + headerBytes + 63) / 64 * 64;
  std::string path = tempPath("fuzz.tgcx");
  std::mt19937 rng(5);
  int errors = 0, loads = 0;
  size_t span = std::min<size_t>(16384, good->size() - start);
  for (int round = 0; round < 600; ++round) {
    std::string bytes = *good;
    // Mostly in the plan section: counts, enums, shapes, recipes, oneDNN
    // memory descriptors; one to three bytes.
    for (int n = 1 + static_cast<int>(rng() % 3); n > 0; --n)
      bytes[start + rng() % span] = static_cast<char>(rng());
    reseal(bytes);
    writeFile(path, bytes);
    auto loaded = rcpu::loadPlan(path);
    loaded.ok() ? ++loads : ++errors;
  }
  EXPECT_GT(errors, 0);
  std::remove(path.c_str());
}

// The backend's persistent cache: a second compile of the same function
// (another context, as in another process) loads the whole plan, and a
// truncated plan entry is a miss that is written again.
TEST_F(PlanFileTest, TheCpuBackendCachesWholePlans) {
  std::string dir = tempPath("cache");
  llvm::sys::fs::remove_directories(dir);
  const codegen::Backend *backend = codegen::lookupBackend("cpu");
  ASSERT_NE(backend, nullptr);
  codegen::BackendOptions options;
  options.numThreads = 1;
  options.cacheDir = dir;
  std::string source = netSource();
  std::vector<HostTensor> args = netInputs();
  auto compileAndRun = [&](bool expectLoaded) -> std::vector<HostTensor> {
    mlir::MLIRContext local;
    tgc::testing::loadAllDialects(local);
    auto module = mlir::parseSourceString<mlir::ModuleOp>(source, &local);
    EXPECT_TRUE(module);
    auto func = module->lookupSymbol<mlir::func::FuncOp>("net");
    auto compiled =
        backend->compile(func, {{1, 16, 12, 12}, {4, 32}, {3}}, options);
    EXPECT_TRUE(static_cast<bool>(compiled))
        << llvm::toString(compiled.takeError());
    if (!compiled)
      return {};
    EXPECT_EQ((*compiled)->loadedFromCache(), expectLoaded);
    auto results = (*compiled)->run(args, {});
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? *results : std::vector<HostTensor>{};
  };
  auto before = cpu::KernelObjectCache::processStats();
  std::vector<HostTensor> cold = compileAndRun(false);
  auto afterCold = cpu::KernelObjectCache::processStats();
  EXPECT_EQ(afterCold.planStores - before.planStores, 1u);
  std::vector<HostTensor> warm = compileAndRun(true);
  EXPECT_EQ(
      cpu::KernelObjectCache::processStats().planHits - afterCold.planHits, 1u);
  expectBitwiseEqual(cold, warm);
  // Truncate the entry: the next compile misses, compiles and stores again.
  std::string entry;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error))
    if (llvm::StringRef(it->path()).ends_with(".tgcx"))
      entry = it->path();
  ASSERT_FALSE(entry.empty());
  uint64_t size = 0;
  llvm::sys::fs::file_size(entry, size);
  ASSERT_EQ(::truncate(entry.c_str(), static_cast<off_t>(size / 3)), 0);
  auto beforeRepair = cpu::KernelObjectCache::processStats();
  std::vector<HostTensor> repaired = compileAndRun(false);
  auto afterRepair = cpu::KernelObjectCache::processStats();
  EXPECT_EQ(afterRepair.corrupt - beforeRepair.corrupt, 1u);
  EXPECT_EQ(afterRepair.planStores - beforeRepair.planStores, 1u);
  expectBitwiseEqual(cold, repaired);
  uint64_t rewritten = 0;
  llvm::sys::fs::file_size(entry, rewritten);
  EXPECT_EQ(rewritten, size);
  llvm::sys::fs::remove_directories(dir);
}

} // namespace

namespace {
/// A dynamic batch through a convolution and a matmul with constant
/// weights.
std::string dynamicSource() {
  std::ostringstream os;
  os << "func.func @dyn(%x: tensor<?x16x8x8xf32>, %y: tensor<?x64xf32>) -> "
        "(tensor<?x32x8x8xf32>, tensor<?x48xf32>) {\n"
     << "  %w = tgc.constant " << denseF32(32 * 16 * 9, 11)
     << " : tensor<32x16x3x3xf32>\n"
     << "  %c = tgc.conv2d %x, %w {padding = array<i64: 1, 1, 1, 1>} : "
        "(tensor<?x16x8x8xf32>, tensor<32x16x3x3xf32>) -> "
        "tensor<?x32x8x8xf32>\n"
     << "  %r = tgc.relu %c : tensor<?x32x8x8xf32>\n"
     << "  %wm = tgc.constant " << denseF32(64 * 48, 12)
     << " : tensor<64x48xf32>\n"
     << "  %m = tgc.matmul %y, %wm : (tensor<?x64xf32>, tensor<64x48xf32>) -> "
        "tensor<?x48xf32>\n"
     << "  return %r, %m : tensor<?x32x8x8xf32>, tensor<?x48xf32>\n}\n";
  return os.str();
}
} // namespace

// The plans of one function's shapes hold its prepacked weights once (the
// context's PrepackCache), and run bitwise like plans compiled alone.
TEST_F(PlanFileTest, PlansOfOneFunctionSharePrepackedWeights) {
  auto func = parse(dynamicSource(), "dyn");
  auto cache = std::static_pointer_cast<rcpu::PrepackCache>(
      context.getOrLoadDialect<TgcDialect>()->backendState(
          "cpu.prepacked-weights",
          [] { return std::make_shared<rcpu::PrepackCache>(); }));
  int64_t shared = cache->shared();
  std::vector<std::shared_ptr<const runtime::Executable>> plans;
  for (int64_t batch : {1, 3, 2, 5}) {
    plans.push_back(compile(func, {{batch, 16, 8, 8}, {batch, 64}}));
    ASSERT_TRUE(plans.back());
  }
  // The convolution's filter packs the same way for every batch (the
  // matmul's layout may follow M).
  EXPECT_GE(cache->shared() - shared, 3) << "packed " << cache->packed();
  // Each plan against the same plan compiled in a context of its own.
  for (auto [i, batch] : llvm::enumerate(std::vector<int64_t>{1, 3, 2, 5})) {
    mlir::MLIRContext alone;
    tgc::testing::loadAllDialects(alone);
    auto module =
        mlir::parseSourceString<mlir::ModuleOp>(dynamicSource(), &alone);
    ASSERT_TRUE(module);
    cpu::CompileOptions options;
    options.numThreads = 1;
    auto separate =
        cpu::compile(module->lookupSymbol<mlir::func::FuncOp>("dyn"),
                     {{batch, 16, 8, 8}, {batch, 64}}, options);
    ASSERT_TRUE(static_cast<bool>(separate))
        << llvm::toString(separate.takeError());
    std::vector<HostTensor> args = {
        randomTensor(DType::F32, {batch, 16, 8, 8},
                     20 + static_cast<unsigned>(i)),
        randomTensor(DType::F32, {batch, 64}, 30 + static_cast<unsigned>(i))};
    expectBitwiseEqual(run(*plans[i], args), run(*separate->executable, args));
  }
  // Run one after another, the plans took one arena between them: the
  // largest's (batch 5), made once the sizes stopped growing.
  auto arenas = plans.front()->arenaPool;
  ASSERT_TRUE(arenas);
  int64_t largest = 0;
  for (const auto &plan : plans) {
    EXPECT_EQ(plan->arenaPool, arenas);
    largest = std::max(largest, plan->arenaBytes);
  }
  EXPECT_EQ(arenas->freeArenas(), 1u);
  EXPECT_GE(arenas->freeBytes(), largest);
  int64_t made = arenas->made();
  for (auto [i, batch] : llvm::enumerate(std::vector<int64_t>{1, 3, 2, 5}))
    run(*plans[i], {randomTensor(DType::F32, {batch, 16, 8, 8}, 1),
                    randomTensor(DType::F32, {batch, 64}, 2)});
  EXPECT_EQ(arenas->made(), made);
  EXPECT_EQ(arenas->freeArenas(), 1u);
  // Dropping the plans frees the buffers: a new compile packs again.
  int64_t packed = cache->packed();
  plans.clear();
  ASSERT_TRUE(compile(func, {{4, 16, 8, 8}, {4, 64}}));
  EXPECT_GT(cache->packed(), packed);
}
