//===- PlanFileTest.cpp - CUDA artifacts: format and load path ------------===//
//
// runtime/cuda/PlanFile.h everywhere: a plan with every kind of step (a
// kernel image with a PTX fallback and checks, a cuBLASLt matmul, a cuDNN
// convolution, constants, result views) survives a file round trip field
// for field and loads into a DeviceExecutable that describes itself as the
// original; damaged, truncated, foreign and future files are errors naming
// the reason. Running a loaded plan needs a GPU: that test skips without
// one.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/PlanFile.h"

#include "runtime/Hash.h"
#include "runtime/cuda/Device.h"
#include "tgc/Artifact.h"
#include "tgc/Engine.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace tgc;
using namespace tgc::cuda;
using runtime::DType;
using runtime::HostTensor;

namespace {

ExecutableSpec everyStep() {
  ExecutableSpec spec;
  spec.inputs = {{DType::F32, {4, 3}}, {DType::F32, {3, 5}}};
  HostTensor bias = *HostTensor::allocate(DType::F32, {5});
  for (int i = 0; i < 5; ++i)
    bias.dataAs<float>()[i] = 0.5f * static_cast<float>(i);
  HostTensor filter = *HostTensor::allocate(DType::F32, {4, 1, 3, 3});
  for (int64_t i = 0; i < filter.numElements(); ++i)
    filter.dataAs<float>()[i] = 0.01f * static_cast<float>(i);
  spec.constants = {bias, filter}; // b2, b3
  spec.intermediates = {
      {DType::F32, {20}}, {DType::F32, {80}}, {DType::F32, {80}}}; // b4, b5, b6
  KernelImage kernel;
  kernel.name = "tgc_relu_0";
  kernel.image = std::string("\x7f"
                             "ELF cubin bytes\0with a zero",
                             27);
  kernel.fallbackImage = ".version 8.0\n.target sm_90\n";
  kernel.checks = {"f.mlir:3:5: 'tgc.gather' op index %v is out of range"};
  spec.kernels.push_back(kernel);
  MatmulCall mm;
  mm.m = 4;
  mm.n = 5;
  mm.k = 3;
  mm.strideA = 12;
  mm.strideB = 15;
  mm.strideC = mm.strideD = 20;
  mm.epilogue = MatmulCall::Epilogue::BiasRelu;
  mm.alpha = 0.75f;
  mm.allowTf32 = true;
  mm.a = 0;
  mm.b = 1;
  mm.bias = 2;
  mm.d = 4;
  spec.matmuls.push_back(mm);
  ConvCall cv;
  cv.c = 1;
  cv.h = 4;
  cv.w = 5;
  cv.k = 4;
  cv.r = cv.s = 3;
  cv.padH = cv.padW = 1;
  cv.outH = 4;
  cv.outW = 5;
  cv.relu = true;
  cv.alpha2 = 0.25f;
  cv.x = 4;
  cv.filter = 3;
  cv.y = 5;
  spec.convs.push_back(cv);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  Launch launch;
  launch.kernel = 0;
  launch.grid = 3;
  launch.block = 128;
  launch.sharedBytes = 256;
  launch.buffers = {5, 6};
  spec.launches.push_back(launch);
  spec.results = {6, 4};
  spec.resultSpecs = {{DType::F32, {1, 4, 4, 5}}, {DType::F32, {4, 5}}};
  return spec;
}

void expectSameSpec(const ExecutableSpec &a, const ExecutableSpec &b) {
  ASSERT_EQ(a.inputs.size(), b.inputs.size());
  for (size_t i = 0; i < a.inputs.size(); ++i) {
    EXPECT_EQ(a.inputs[i].dtype, b.inputs[i].dtype);
    EXPECT_EQ(a.inputs[i].shape, b.inputs[i].shape);
  }
  ASSERT_EQ(a.constants.size(), b.constants.size());
  for (size_t i = 0; i < a.constants.size(); ++i) {
    EXPECT_EQ(a.constants[i].shape(), b.constants[i].shape());
    EXPECT_EQ(std::memcmp(a.constants[i].data(), b.constants[i].data(),
                          a.constants[i].byteSize()),
              0);
  }
  ASSERT_EQ(a.intermediates.size(), b.intermediates.size());
  ASSERT_EQ(a.kernels.size(), b.kernels.size());
  EXPECT_EQ(a.kernels[0].name, b.kernels[0].name);
  EXPECT_EQ(a.kernels[0].image, b.kernels[0].image);
  EXPECT_EQ(a.kernels[0].fallbackImage, b.kernels[0].fallbackImage);
  EXPECT_EQ(a.kernels[0].checks, b.kernels[0].checks);
  ASSERT_EQ(a.launches.size(), b.launches.size());
  for (size_t i = 0; i < a.launches.size(); ++i) {
    EXPECT_EQ(a.launches[i].kind, b.launches[i].kind);
    EXPECT_EQ(a.launches[i].grid, b.launches[i].grid);
    EXPECT_EQ(a.launches[i].block, b.launches[i].block);
    EXPECT_EQ(a.launches[i].sharedBytes, b.launches[i].sharedBytes);
    EXPECT_EQ(a.launches[i].buffers, b.launches[i].buffers);
  }
  ASSERT_EQ(b.matmuls.size(), 1u);
  EXPECT_EQ(b.matmuls[0].epilogue, MatmulCall::Epilogue::BiasRelu);
  EXPECT_EQ(b.matmuls[0].alpha, 0.75f);
  EXPECT_TRUE(b.matmuls[0].allowTf32);
  EXPECT_EQ(b.matmuls[0].describe(), a.matmuls[0].describe());
  ASSERT_EQ(b.convs.size(), 1u);
  EXPECT_EQ(b.convs[0].alpha2, 0.25f);
  EXPECT_EQ(b.convs[0].describe(), a.convs[0].describe());
  EXPECT_EQ(a.results, b.results);
  ASSERT_EQ(a.resultSpecs.size(), b.resultSpecs.size());
  EXPECT_EQ(a.resultSpecs[0].shape, b.resultSpecs[0].shape);
}

std::string tempPath(const std::string &name) {
  return (std::filesystem::temp_directory_path() /
          ("tgc-cuda-plan-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

TEST(DevicePlanFile, RoundTripsEveryKindOfStep) {
  ExecutableSpec spec = everyStep();
  auto original = DeviceExecutable::create(spec);
  ASSERT_TRUE(original.ok()) << original.status();
  std::string path = tempPath("round-trip.tgcx");
  ASSERT_TRUE(saveDevicePlan(spec, "sm_80", {{"function", "f"}}, path).ok());
  EXPECT_TRUE(isDevicePlanFile(path));
  auto loaded = loadDevicePlan(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->info.arch, "sm_80");
  EXPECT_EQ(loaded->info.get("function"), "f");
  EXPECT_EQ(loaded->info.formatVersion, kDevicePlanFormatVersion);
  expectSameSpec(spec, loaded->executable->spec());
  EXPECT_EQ(loaded->executable->describe(), (*original)->describe());
  EXPECT_FALSE(isDevicePlanFile("/nonexistent/plan.tgcx"));
}

// int8 library calls (an i8 x i8 -> i32 matmul, an i8 NHWC conv with an
// f32 output) keep their dtype, transposes and layout through a file, and
// the loaded plan validates them as int8 again.
TEST(DevicePlanFile, RoundTripsInt8Steps) {
  ExecutableSpec spec;
  spec.inputs = {{DType::I8, {5, 12}},
                 {DType::I8, {8, 12}},
                 {DType::I8, {1, 6, 6, 8}},
                 {DType::I8, {4, 3, 3, 8}}};
  spec.intermediates = {{DType::I32, {5, 8}}, {DType::F32, {1, 3, 3, 4}}};
  MatmulCall mm;
  mm.dtype = DType::I8;
  mm.m = 5;
  mm.n = 8;
  mm.k = 12;
  mm.transB = true;
  mm.a = 0;
  mm.b = 1;
  mm.d = 4;
  spec.matmuls.push_back(mm);
  ConvCall cv;
  cv.dtype = DType::I8;
  cv.nhwc = true;
  cv.c = 8;
  cv.h = cv.w = 6;
  cv.k = 4;
  cv.r = cv.s = 3;
  cv.padH = cv.padW = 1;
  cv.strideH = cv.strideW = 2;
  cv.dilationW = 2;
  cv.outH = 3;
  cv.outW = 2;
  cv.x = 2;
  cv.filter = 3;
  cv.y = 5;
  spec.convs.push_back(cv);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {4, 5};
  auto original = DeviceExecutable::create(spec);
  ASSERT_TRUE(original.ok()) << original.status();
  std::string path = tempPath("int8.tgcx");
  ASSERT_TRUE(saveDevicePlan(spec, "sm_90", {}, path).ok());
  auto loaded = loadDevicePlan(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  const ExecutableSpec &back = loaded->executable->spec();
  ASSERT_EQ(back.matmuls.size(), 1u);
  EXPECT_EQ(back.matmuls[0].dtype, DType::I8);
  EXPECT_EQ(back.matmuls[0].outputDType(), DType::I32);
  EXPECT_FALSE(back.matmuls[0].transA);
  EXPECT_TRUE(back.matmuls[0].transB);
  EXPECT_EQ(back.matmuls[0].describe(),
            "matmul 5x12 * (8x12)^T int8 (s32 out)");
  ASSERT_EQ(back.convs.size(), 1u);
  EXPECT_EQ(back.convs[0].dtype, DType::I8);
  EXPECT_EQ(back.convs[0].outputDType(), DType::F32);
  EXPECT_TRUE(back.convs[0].nhwc);
  EXPECT_EQ(back.convs[0].dilationW, 2);
  EXPECT_EQ(back.convs[0].describe(), spec.convs[0].describe());
  EXPECT_EQ(back.intermediates[0].dtype, DType::I32);
  EXPECT_EQ(back.intermediates[1].dtype, DType::F32);
  EXPECT_EQ(loaded->executable->describe(), (*original)->describe());
  EXPECT_NE(loaded->executable->describe().find(
                "int8 (f32 out) (x b2:1x6x6x8xi8, w b3:4x3x3x8xi8) -> "
                "b5:1x3x3x4xf32"),
            std::string::npos)
      << loaded->executable->describe();
  // A saved int8 step that breaks the int8 limits does not load.
  spec.matmuls[0].transB = false;
  spec.inputs[1] = {DType::I8, {12, 8}};
  ASSERT_TRUE(saveDevicePlan(spec, "sm_90", {}, path).ok());
  auto refused = loadDevicePlan(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(
                "matmul 0: int8 matmuls need transA false and transB true"),
            std::string::npos)
      << refused.status();
}

TEST(DevicePlanFile, BadFilesAreErrorsNamingTheReason) {
  std::string bytes = encodeDevicePlan(everyStep(), "sm_90", {});
  auto expectError = [](std::string_view file, absl::StatusCode code,
                        const std::string &text) {
    auto decoded = decodeDevicePlan(file, "plan.tgcx");
    ASSERT_FALSE(decoded.ok());
    EXPECT_EQ(decoded.status().code(), code) << decoded.status();
    EXPECT_NE(decoded.status().message().find(text), std::string::npos)
        << decoded.status();
  };
  ASSERT_TRUE(decodeDevicePlan(bytes, "plan.tgcx").ok());
  expectError("TGCXPLAN and more", absl::StatusCode::kInvalidArgument,
              "plan.tgcx: not a tgc CUDA plan file");
  expectError(std::string_view(bytes).substr(0, 20),
              absl::StatusCode::kDataLoss, "truncated");
  expectError(std::string_view(bytes).substr(0, bytes.size() - 7),
              absl::StatusCode::kDataLoss, "truncated");
  std::string damaged = bytes;
  damaged[damaged.size() / 2] ^= 0x40;
  expectError(damaged, absl::StatusCode::kDataLoss,
              "checksum does not match (the file is damaged)");
  std::string future = bytes;
  future[8] = 9;
  expectError(future, absl::StatusCode::kFailedPrecondition,
              "CUDA plan format version 9; this tgc reads version 1");
  auto missing = loadDevicePlan("/nonexistent/plan.tgcx");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("/nonexistent/plan.tgcx"),
            std::string::npos);
  // A plan whose steps do not fit its buffers loads as an error too.
  ExecutableSpec broken = everyStep();
  broken.results = {42};
  std::string path = tempPath("broken.tgcx");
  ASSERT_TRUE(saveDevicePlan(broken, "sm_90", {}, path).ok());
  auto refused = loadDevicePlan(path);
  std::filesystem::remove(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find(path), std::string::npos)
      << refused.status();
}

// Every single-byte change of a saved plan is caught (by the checksum) or,
// with the checksum made to match, decoded without crashing.
TEST(DevicePlanFile, MutatedBodiesNeverCrashTheDecoder) {
  std::string bytes = encodeDevicePlan(everyStep(), "sm_90", {});
  for (size_t at = 32; at < bytes.size(); at += 7) {
    std::string mutated = bytes;
    mutated[at] = static_cast<char>(mutated[at] + 1 + at % 13);
    std::string_view body = std::string_view(mutated).substr(32);
    uint64_t hash = runtime::hash64(body);
    std::memcpy(mutated.data() + 24, &hash, 8);
    auto decoded = decodeDevicePlan(mutated, "mutated");
    if (decoded.ok())
      (void)DeviceExecutable::create(std::move(decoded->first));
  }
}

TEST(DevicePlanFile, ALoadedPlanRunsOnTheDevice) {
  auto device = openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  // A plan of library calls only (no kernel image to match the GPU).
  ExecutableSpec spec = everyStep();
  spec.kernels.clear();
  spec.launches.pop_back();
  spec.results = {4};
  spec.resultSpecs.clear();
  std::string path = tempPath("run.tgcx");
  ASSERT_TRUE(saveDevicePlan(spec, "sm_90", {}, path).ok());
  auto loaded = loadDevicePlan(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  auto original = DeviceExecutable::create(spec);
  ASSERT_TRUE(original.ok()) << original.status();
  HostTensor a = *HostTensor::allocate(DType::F32, {4, 3});
  HostTensor b = *HostTensor::allocate(DType::F32, {3, 5});
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.dataAs<float>()[i] = 0.1f * static_cast<float>(i);
  for (int64_t i = 0; i < b.numElements(); ++i)
    b.dataAs<float>()[i] = 0.2f * static_cast<float>(i % 7);
  auto expected = (*original)->run(**device, {a, b});
  ASSERT_TRUE(expected.ok()) << expected.status();
  auto actual = loaded->executable->run(**device, {a, b});
  ASSERT_TRUE(actual.ok()) << actual.status();
  ASSERT_EQ(actual->size(), 1u);
  EXPECT_EQ(std::memcmp((*actual)[0].data(), (*expected)[0].data(),
                        (*expected)[0].byteSize()),
            0);
}

} // namespace

namespace {

// The runtime-only API loads CUDA artifacts too: tgc::Artifact and the
// engine's CompiledModel::loadArtifact (running needs a device).
TEST(DevicePlanFile, TheRuntimeApiLoadsCudaArtifacts) {
  std::string path = tempPath("api.tgcx");
  ASSERT_TRUE(saveDevicePlan(everyStep(), "sm_80",
                             {{"function", "f"}, {"inputs", "a\nb"}}, path)
                  .ok());
  auto artifact = Artifact::load(path);
  auto model = CompiledModel::loadArtifact(path);
  std::filesystem::remove(path);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_EQ(artifact->isa(), "cuda sm_80");
  EXPECT_EQ(artifact->function(), "f");
  ASSERT_EQ(artifact->inputs().size(), 2u);
  EXPECT_EQ(artifact->inputs()[1].name, "b");
  EXPECT_EQ(artifact->inputs()[1].shape, (std::vector<int64_t>{3, 5}));
  ASSERT_EQ(artifact->outputs().size(), 2u);
  EXPECT_EQ(artifact->outputs()[0].shape, (std::vector<int64_t>{1, 4, 4, 5}));
  EXPECT_NE(artifact->describe().find("matmul 4x3 * 3x5"), std::string::npos)
      << artifact->describe();
  ASSERT_TRUE(model.ok()) << model.status();
  EXPECT_EQ(model->inputIndex("a"), 0);
  // Running: a plan of library calls only, since the made-up kernel image
  // above holds no function a real GPU could load.
  ExecutableSpec runnable = everyStep();
  runnable.kernels.clear();
  runnable.launches.pop_back();
  runnable.results = {4};
  runnable.resultSpecs = {{DType::F32, {4, 5}}};
  std::string runPath = tempPath("api-run.tgcx");
  ASSERT_TRUE(saveDevicePlan(runnable, "sm_90",
                             {{"function", "f"}, {"inputs", "a\nb"}}, runPath)
                  .ok());
  auto runArtifact = Artifact::load(runPath);
  auto runModel = CompiledModel::loadArtifact(runPath);
  std::filesystem::remove(runPath);
  ASSERT_TRUE(runArtifact.ok()) << runArtifact.status();
  ASSERT_TRUE(runModel.ok()) << runModel.status();
  HostTensor a = *HostTensor::allocate(DType::F32, {4, 3});
  HostTensor b = *HostTensor::allocate(DType::F32, {3, 5});
  for (int64_t i = 0; i < a.numElements(); ++i)
    a.dataAs<float>()[i] = 0.1f * static_cast<float>(i);
  for (int64_t i = 0; i < b.numElements(); ++i)
    b.dataAs<float>()[i] = 0.2f * static_cast<float>(i % 7);
  auto ran = runArtifact->run({a, b});
  auto served = runModel->run({a, b});
  if (!openDevice(0).ok()) {
    ASSERT_FALSE(ran.ok());
    EXPECT_NE(ran.status().message().find("no CUDA device"), std::string::npos)
        << ran.status();
    ASSERT_FALSE(served.ok());
    EXPECT_NE(served.status().message().find("no CUDA device"),
              std::string::npos)
        << served.status();
    return; // without a device, running is an error that says so
  }
  ASSERT_TRUE(ran.ok()) << ran.status();
  ASSERT_TRUE(served.ok()) << served.status();
  ASSERT_EQ(ran->size(), 1u);
  ASSERT_EQ(served->size(), 1u);
  EXPECT_EQ(
      std::memcmp((*ran)[0].data(), (*served)[0].data(), (*ran)[0].byteSize()),
      0);
  // The matmul with a bias and relu gives something other than zeros.
  float largest = 0;
  for (int64_t i = 0; i < (*ran)[0].numElements(); ++i)
    largest = std::max(largest, (*ran)[0].dataAs<float>()[i]);
  EXPECT_GT(largest, 0.0f);
}

} // namespace
