//===- LibraryDeviceTest.cpp - cuBLASLt / cuDNN steps on a GPU ------------===//
//
// Matmul and Conv steps run through DeviceExecutable against the host
// references of LibraryReference.h; DeviceTensor transfers; runOnDevice
// against run. Without a device every test skips with "no CUDA device:
// <reason>".
//
// Inputs are multiples of 0.25 in [-2, 2]: exact in f32, tf32, f16 and bf16,
// and the products and short sums of them are exact in f32, so matmuls are
// compared tightly; convolutions get more slack because cuDNN may pick FFT
// or Winograd algorithms. int8 steps take the whole int8 range and must
// match the int32 references exactly.
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Device.h"
#include "runtime/cuda/Dnn.h"
#include "runtime/cuda/Executable.h"

#include "test/unit/runtime/cuda/LibraryReference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

using namespace tgc::cuda;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;

namespace {

#define TGC_REQUIRE_DEVICE(var)                                                \
  auto var##Opened = openDevice(0);                                            \
  if (!var##Opened.ok())                                                       \
    GTEST_SKIP() << "no CUDA device: " << var##Opened.status().message();      \
  std::shared_ptr<Device> var = *var##Opened;

std::vector<double> randomValues(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-8, 8);
  std::vector<double> values(count);
  for (double &v : values)
    v = dist(rng) * 0.25;
  return values;
}

/// A tensor of `values`, one-dimensional unless `shape` is given.
HostTensor hostTensor(DType dtype, const std::vector<double> &values,
                      std::vector<int64_t> shape = {}) {
  if (shape.empty())
    shape = {static_cast<int64_t>(values.size())};
  HostTensor tensor = *HostTensor::allocate(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i)
    tensor.setDouble(static_cast<int64_t>(i), values[i]);
  return tensor;
}

std::vector<double> valuesOf(const HostTensor &tensor) {
  std::vector<double> values(tensor.byteSize() /
                             tgc::runtime::dtypeSize(tensor.dtype()));
  for (size_t i = 0; i < values.size(); ++i)
    values[i] = tensor.getDouble(static_cast<int64_t>(i));
  return values;
}

/// Uniform over the whole int8 range, -128 and 127 included.
std::vector<int8_t> randomInt8(size_t count, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-128, 127);
  std::vector<int8_t> values(count);
  for (int8_t &v : values)
    v = static_cast<int8_t>(dist(rng));
  return values;
}

HostTensor int8Tensor(const std::vector<int8_t> &values,
                      std::vector<int64_t> shape) {
  HostTensor tensor = *HostTensor::allocate(DType::I8, std::move(shape));
  EXPECT_EQ(tensor.byteSize(), values.size());
  std::memcpy(tensor.data(), values.data(), values.size());
  return tensor;
}

/// |actual - expected| <= atol + rtol * |expected|.
bool close(double actual, double expected, double atol, double rtol) {
  return std::abs(actual - expected) <= atol + rtol * std::abs(expected);
}

//===----------------------------------------------------------------------===//
// Matmuls
//===----------------------------------------------------------------------===//

MatmulCall matmul(int64_t batch, int64_t m, int64_t n, int64_t k,
                  bool transA = false, bool transB = false) {
  MatmulCall call;
  call.batch = batch;
  call.m = m;
  call.n = n;
  call.k = k;
  call.transA = transA;
  call.transB = transB;
  call.strideA = m * k;
  call.strideB = k * n;
  call.strideC = m * n;
  call.strideD = m * n;
  return call;
}

/// Runs `call` as the one step of an executable (inputs A, B, then C and
/// the bias when the call has them; D an intermediate) twice, and compares
/// every element of every batch's D with the reference.
void checkMatmul(Device &device, MatmulCall call, double atol = 1e-5,
                 double rtol = 1e-5) {
  SCOPED_TRACE(call.describe());
  const bool hasC = call.c >= 0 || call.beta != 0;
  const bool hasBias = reference::matmulHasBias(call);
  const std::vector<double> a = randomValues(
      reference::batchSpan(call, call.m * call.k, call.strideA), 11);
  const std::vector<double> b = randomValues(
      reference::batchSpan(call, call.k * call.n, call.strideB), 12);
  const std::vector<double> c =
      hasC ? randomValues(
                 reference::batchSpan(call, call.m * call.n, call.strideC), 13)
           : std::vector<double>();
  const std::vector<double> bias =
      hasBias ? randomValues(call.n, 14) : std::vector<double>();

  ExecutableSpec spec;
  std::vector<HostTensor> args;
  auto input = [&](const std::vector<double> &values) {
    spec.inputs.push_back({call.dtype, {static_cast<int64_t>(values.size())}});
    args.push_back(hostTensor(call.dtype, values));
    return static_cast<int>(spec.inputs.size() - 1);
  };
  call.a = input(a);
  call.b = input(b);
  call.c = hasC ? input(c) : -1;
  call.bias = hasBias ? input(bias) : -1;
  const int64_t spanD =
      reference::batchSpan(call, call.m * call.n, call.strideD);
  spec.intermediates.push_back({call.dtype, {spanD}});
  call.d = static_cast<int>(spec.inputs.size());
  spec.matmuls.push_back(call);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  spec.results = {call.d};
  auto executable = DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();

  // The reference sees the inputs as the device does (rounded to dtype).
  std::vector<double> ra = valuesOf(args[call.a]), rb = valuesOf(args[call.b]);
  std::vector<double> rc = hasC ? valuesOf(args[call.c]) : c;
  std::vector<double> rbias = hasBias ? valuesOf(args[call.bias]) : bias;
  const std::vector<double> expected =
      reference::referenceMatmul(call, ra, rb, rc, rbias);
  for (int repeat = 0; repeat < 2; ++repeat) {
    auto results = (*executable)->run(device, args);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 1u);
    const std::vector<double> actual = valuesOf((*results)[0]);
    int mismatches = 0;
    for (int64_t batch = 0; batch < call.batch; ++batch)
      for (int64_t i = 0; i < call.m; ++i)
        for (int64_t j = 0; j < call.n; ++j) {
          const int64_t index = batch * call.strideD + i * call.n + j;
          if (!close(actual[index], expected[index], atol, rtol) &&
              ++mismatches <= 5)
            ADD_FAILURE() << "batch " << batch << " [" << i << ", " << j
                          << "]: " << actual[index] << ", expected "
                          << expected[index];
        }
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(BlasDevice, EveryEpilogue) {
  TGC_REQUIRE_DEVICE(device);
  using E = MatmulCall::Epilogue;
  for (E epilogue :
       {E::None, E::Relu, E::Gelu, E::Bias, E::BiasRelu, E::BiasGelu}) {
    // Odd sizes: rows that are not 16-byte multiples.
    MatmulCall call = matmul(1, 33, 17, 40);
    call.epilogue = epilogue;
    checkMatmul(*device, call);
  }
}

TEST(BlasDevice, Transposes) {
  TGC_REQUIRE_DEVICE(device);
  for (bool transA : {false, true})
    for (bool transB : {false, true}) {
      MatmulCall call = matmul(1, 8, 12, 16, transA, transB);
      call.epilogue = MatmulCall::Epilogue::Bias;
      checkMatmul(*device, call);
      checkMatmul(*device, matmul(1, 5, 7, 3, transA, transB));
    }
}

TEST(BlasDevice, BatchesAndBroadcasts) {
  TGC_REQUIRE_DEVICE(device);
  checkMatmul(*device, matmul(4, 16, 24, 32));
  MatmulCall call = matmul(4, 16, 24, 32, true, false);
  call.strideA = 0; // one A for every batch
  checkMatmul(*device, call);
  call = matmul(3, 9, 10, 11, false, true);
  call.strideB = 0; // one B (a weight) for every batch
  call.epilogue = MatmulCall::Epilogue::BiasGelu;
  checkMatmul(*device, call);
  // Padded batch strides.
  call = matmul(3, 8, 8, 8);
  call.strideA = 80;
  call.strideB = 72;
  call.strideD = 96;
  checkMatmul(*device, call);
}

TEST(BlasDevice, ResidualsAndScales) {
  TGC_REQUIRE_DEVICE(device);
  MatmulCall call = matmul(1, 32, 48, 64);
  call.alpha = 2;
  call.beta = 0.5;
  call.c = 0; // given by checkMatmul
  checkMatmul(*device, call);
  call.epilogue = MatmulCall::Epilogue::BiasRelu;
  call.beta = 1;
  checkMatmul(*device, call);
  call = matmul(2, 16, 16, 16, false, true);
  call.beta = 1;
  call.c = 0;
  call.epilogue = MatmulCall::Epilogue::Gelu;
  checkMatmul(*device, call);
}

TEST(BlasDevice, ResidualSharedByTheBatches) {
  TGC_REQUIRE_DEVICE(device);
  MatmulCall call = matmul(3, 16, 16, 16);
  call.beta = 1;
  call.c = 0;
  call.strideC = 0;
  checkMatmul(*device, call);
}

TEST(BlasDevice, Tf32AndHalfPrecision) {
  TGC_REQUIRE_DEVICE(device);
  MatmulCall call = matmul(2, 64, 64, 64);
  call.allowTf32 = true; // quarter multiples are exact in tf32
  call.epilogue = MatmulCall::Epilogue::BiasRelu;
  checkMatmul(*device, call);
  for (DType dtype : {DType::F16, DType::BF16}) {
    call = matmul(2, 32, 40, 48);
    call.dtype = dtype;
    call.epilogue = MatmulCall::Epilogue::BiasRelu;
    // Accumulation is f32; D is rounded to 11 (f16) / 8 (bf16) bits.
    checkMatmul(*device, call, 1e-3, dtype == DType::F16 ? 2e-3 : 1e-2);
  }
}

/// D (m x n, i32) = A (m x k, i8) * B (n x k, i8)^T on cuBLASLt's int8
/// path, twice, against the int32 reference: every element exactly.
void checkInt8Matmul(Device &device, int64_t m, int64_t n, int64_t k) {
  MatmulCall call;
  call.dtype = DType::I8;
  call.m = m;
  call.n = n;
  call.k = k;
  call.transB = true;
  call.a = 0;
  call.b = 1;
  call.d = 2;
  SCOPED_TRACE(call.describe());
  ExecutableSpec spec;
  spec.inputs = {{DType::I8, {m, k}}, {DType::I8, {n, k}}};
  spec.intermediates = {{DType::I32, {m, n}}};
  spec.matmuls.push_back(call);
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  spec.results = {2};
  auto executable = DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::vector<int8_t> a = randomInt8(m * k, 51),
                            b = randomInt8(n * k, 52);
  const std::vector<int32_t> expected =
      reference::referenceMatmulInt8(call, a, b);
  std::vector<HostTensor> args = {int8Tensor(a, {m, k}), int8Tensor(b, {n, k})};
  for (int repeat = 0; repeat < 2; ++repeat) {
    auto results = (*executable)->run(device, args);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 1u);
    const HostTensor &d = (*results)[0];
    ASSERT_EQ(d.dtype(), DType::I32);
    ASSERT_EQ(d.shape(), (std::vector<int64_t>{m, n}));
    const int32_t *actual = d.dataAs<int32_t>();
    int mismatches = 0;
    for (size_t i = 0; i < expected.size(); ++i)
      if (actual[i] != expected[i] && ++mismatches <= 5)
        ADD_FAILURE() << "D[" << i / n << ", " << i % n << "] = " << actual[i]
                      << ", expected " << expected[i];
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(BlasDevice, Int8MatchesTheInt32Reference) {
  TGC_REQUIRE_DEVICE(device);
  checkInt8Matmul(*device, 5, 8, 12); // any m; n and k multiples of 4
  checkInt8Matmul(*device, 33, 64, 96);
  checkInt8Matmul(*device, 1, 4, 4);
  checkInt8Matmul(*device, 128, 256, 512);
}

//===----------------------------------------------------------------------===//
// Convolutions
//===----------------------------------------------------------------------===//

ConvCall conv(bool nhwc, int64_t n, int64_t c, int64_t h, int64_t w, int64_t k,
              int64_t r, int64_t s, int64_t pad = 0, int64_t stride = 1,
              int64_t dilation = 1, int64_t groups = 1) {
  ConvCall call;
  call.nhwc = nhwc;
  call.n = n;
  call.c = c;
  call.h = h;
  call.w = w;
  call.k = k;
  call.r = r;
  call.s = s;
  call.padH = call.padW = pad;
  call.strideH = call.strideW = stride;
  call.dilationH = call.dilationW = dilation;
  call.groups = groups;
  call.outH = (h + 2 * pad - (r - 1) * dilation - 1) / stride + 1;
  call.outW = (w + 2 * pad - (s - 1) * dilation - 1) / stride + 1;
  return call;
}

/// Which optional operands checkConv gives the call.
struct ConvOperands {
  bool bias = false, z = false;
};

void checkConv(Device &device, ConvCall call, ConvOperands with,
               double atol = 2e-3, double rtol = 1e-3) {
  SCOPED_TRACE(call.describe());
  const int64_t xCount = call.n * call.c * call.h * call.w;
  const int64_t wCount = call.k * (call.c / call.groups) * call.r * call.s;
  const int64_t yCount = call.n * call.k * call.outH * call.outW;
  ExecutableSpec spec;
  std::vector<HostTensor> args;
  auto input = [&](int64_t count, unsigned seed) {
    spec.inputs.push_back({call.dtype, {count}});
    args.push_back(hostTensor(call.dtype, randomValues(count, seed)));
    return static_cast<int>(spec.inputs.size() - 1);
  };
  call.x = input(xCount, 21);
  call.filter = input(wCount, 22);
  call.bias = with.bias ? input(call.k, 23) : -1;
  call.z = with.z ? input(yCount, 24) : -1;
  spec.intermediates.push_back({call.dtype, {yCount}});
  call.y = static_cast<int>(spec.inputs.size());
  spec.convs.push_back(call);
  Launch step;
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {call.y};
  auto executable = DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::vector<double> expected = reference::referenceConv(
      call, valuesOf(args[call.x]), valuesOf(args[call.filter]),
      with.bias ? valuesOf(args[call.bias]) : std::vector<double>(),
      with.z ? valuesOf(args[call.z]) : std::vector<double>());
  for (int repeat = 0; repeat < 2; ++repeat) {
    auto results = (*executable)->run(device, args);
    ASSERT_TRUE(results.ok()) << results.status();
    const std::vector<double> actual = valuesOf((*results)[0]);
    ASSERT_EQ(actual.size(), expected.size());
    int mismatches = 0;
    for (size_t i = 0; i < expected.size(); ++i)
      if (!close(actual[i], expected[i], atol, rtol) && ++mismatches <= 5)
        ADD_FAILURE() << "y[" << i << "] = " << actual[i] << ", expected "
                      << expected[i];
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(DnnDevice, Layouts) {
  TGC_REQUIRE_DEVICE(device);
  for (bool nhwc : {false, true}) {
    checkConv(*device, conv(nhwc, 2, 8, 10, 12, 6, 3, 3, 1), {});
    checkConv(*device, conv(nhwc, 1, 3, 7, 7, 4, 1, 1), {});
  }
}

TEST(DnnDevice, StridedPaddedDilated) {
  TGC_REQUIRE_DEVICE(device);
  for (bool nhwc : {false, true}) {
    checkConv(*device, conv(nhwc, 2, 4, 11, 9, 8, 3, 3, 1, 2), {});
    checkConv(*device, conv(nhwc, 1, 4, 12, 12, 4, 3, 3, 2, 1, 2), {});
    // Different padding and stride per axis, a non-square filter.
    ConvCall call = conv(nhwc, 1, 4, 9, 13, 4, 5, 3);
    call.padH = 2;
    call.padW = 1;
    call.strideW = 2;
    call.outH = (9 + 4 - 5) / 1 + 1;
    call.outW = (13 + 2 - 3) / 2 + 1;
    checkConv(*device, call, {.bias = true});
  }
}

TEST(DnnDevice, Groups) {
  TGC_REQUIRE_DEVICE(device);
  for (bool nhwc : {false, true}) {
    checkConv(*device, conv(nhwc, 2, 8, 8, 8, 6, 3, 3, 1, 1, 1, 2),
              {.bias = true});
    // Depthwise.
    ConvCall depthwise = conv(nhwc, 1, 8, 10, 10, 8, 3, 3, 1, 1, 1, 8);
    depthwise.relu = true;
    checkConv(*device, depthwise, {.bias = true});
  }
}

TEST(DnnDevice, BiasResidualRelu) {
  TGC_REQUIRE_DEVICE(device);
  for (bool nhwc : {false, true}) {
    ConvCall call = conv(nhwc, 2, 16, 8, 8, 16, 3, 3, 1);
    checkConv(*device, call, {.bias = true});
    checkConv(*device, call, {.z = true});
    checkConv(*device, call, {.bias = true, .z = true});
    call.alpha2 = 0.5;
    checkConv(*device, call, {.bias = true, .z = true});
    call.relu = true;
    checkConv(*device, call, {.bias = true, .z = true});
    checkConv(*device, call, {.z = true});
    checkConv(*device, call, {}); // a relu without a bias (zero bias)
    call.alpha2 = 1;
    checkConv(*device, call, {.bias = true});
  }
}

TEST(DnnDevice, HalfPrecision) {
  TGC_REQUIRE_DEVICE(device);
  for (DType dtype : {DType::F16, DType::BF16}) {
    ConvCall call = conv(true, 2, 16, 8, 8, 16, 3, 3, 1);
    call.dtype = dtype;
    call.relu = true;
    checkConv(*device, call, {.bias = true, .z = true}, 0.1,
              dtype == DType::F16 ? 4e-3 : 2e-2);
  }
}

/// An int8 NHWC convolution (x, filter i8; y f32) on cuDNN's
/// INT8_EXT_CONFIG, twice, against the int32 reference converted to float:
/// every element exactly (the sums are below 2^24).
void checkInt8Conv(Device &device, ConvCall call) {
  call.dtype = DType::I8;
  call.x = 0;
  call.filter = 1;
  call.y = 2;
  SCOPED_TRACE(call.describe());
  const std::vector<int64_t> xShape = {call.n, call.h, call.w, call.c},
                             wShape = {call.k, call.r, call.s, call.c},
                             yShape = {call.n, call.outH, call.outW, call.k};
  ExecutableSpec spec;
  spec.inputs = {{DType::I8, xShape}, {DType::I8, wShape}};
  spec.intermediates = {{DType::F32, yShape}};
  spec.convs.push_back(call);
  Launch step;
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {2};
  auto executable = DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();
  const std::vector<int8_t> x = randomInt8(call.n * call.h * call.w * call.c,
                                           61),
                            w = randomInt8(call.k * call.r * call.s * call.c,
                                           62);
  const std::vector<int32_t> expected =
      reference::referenceConvInt8(call, x, w);
  std::vector<HostTensor> args = {int8Tensor(x, xShape), int8Tensor(w, wShape)};
  for (int repeat = 0; repeat < 2; ++repeat) {
    auto results = (*executable)->run(device, args);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 1u);
    const HostTensor &y = (*results)[0];
    ASSERT_EQ(y.dtype(), DType::F32);
    ASSERT_EQ(y.shape(), yShape);
    const float *actual = y.dataAs<float>();
    int mismatches = 0;
    for (size_t i = 0; i < expected.size(); ++i)
      if (actual[i] != static_cast<float>(expected[i]) && ++mismatches <= 5)
        ADD_FAILURE() << "y[" << i << "] = " << actual[i] << ", expected "
                      << expected[i];
    EXPECT_EQ(mismatches, 0);
  }
}

TEST(DnnDevice, Int8MatchesTheInt32Reference) {
  TGC_REQUIRE_DEVICE(device);
  // 3x3, pad 1: stride 1, stride 2; a dilated batch of two; a 1x1.
  checkInt8Conv(*device, conv(true, 1, 8, 6, 6, 4, 3, 3, 1));
  checkInt8Conv(*device, conv(true, 1, 8, 7, 7, 4, 3, 3, 1, 2));
  checkInt8Conv(*device, conv(true, 2, 16, 9, 9, 8, 3, 3, 2, 1, 2));
  checkInt8Conv(*device, conv(true, 1, 32, 5, 5, 64, 1, 1));
}

TEST(DnnDevice, ResidualInPlace) {
  TGC_REQUIRE_DEVICE(device);
  // y = conv1(x); y = relu(conv2(x) + 0.5 * y + bias): z is y itself.
  for (bool relu : {false, true})
    for (bool nhwc : {false, true}) {
      SCOPED_TRACE(relu ? "relu" : "no relu");
      ConvCall first = conv(nhwc, 1, 8, 6, 6, 8, 3, 3, 1);
      first.x = 0;
      first.filter = 1;
      first.y = 4;
      ConvCall second = first;
      second.filter = 2;
      second.bias = 3;
      second.z = 4;
      second.alpha2 = 0.5;
      second.relu = relu;
      ExecutableSpec spec;
      const int64_t xCount = 8 * 36, wCount = 8 * 8 * 9;
      spec.inputs = {{DType::F32, {xCount}},
                     {DType::F32, {wCount}},
                     {DType::F32, {wCount}},
                     {DType::F32, {8}}};
      spec.intermediates = {{DType::F32, {xCount}}};
      spec.convs = {first, second};
      Launch step;
      step.kind = Launch::Kind::Conv;
      step.kernel = 0;
      spec.launches.push_back(step);
      step.kernel = 1;
      spec.launches.push_back(step);
      spec.results = {4};
      auto executable = DeviceExecutable::create(spec);
      ASSERT_TRUE(executable.ok()) << executable.status();
      std::vector<HostTensor> args = {
          hostTensor(DType::F32, randomValues(xCount, 31)),
          hostTensor(DType::F32, randomValues(wCount, 32)),
          hostTensor(DType::F32, randomValues(wCount, 33)),
          hostTensor(DType::F32, randomValues(8, 34))};
      const std::vector<double> y1 = reference::referenceConv(
          first, valuesOf(args[0]), valuesOf(args[1]), {}, {});
      const std::vector<double> expected = reference::referenceConv(
          second, valuesOf(args[0]), valuesOf(args[2]), valuesOf(args[3]), y1);
      auto results = (*executable)->run(*device, args);
      ASSERT_TRUE(results.ok()) << results.status();
      const std::vector<double> actual = valuesOf((*results)[0]);
      for (size_t i = 0; i < expected.size(); ++i)
        ASSERT_TRUE(close(actual[i], expected[i], 2e-3, 1e-3))
            << "y[" << i << "] = " << actual[i] << ", expected " << expected[i];
    }
}

//===----------------------------------------------------------------------===//
// Device tensors
//===----------------------------------------------------------------------===//

TEST(DeviceTensorDevice, RoundTrip) {
  TGC_REQUIRE_DEVICE(device);
  HostTensor host = *HostTensor::allocate(DType::F32, {2, 3});
  for (int i = 0; i < 6; ++i)
    host.setDouble(i, i * 1.5 - 2);
  auto tensor = DeviceTensor::fromHost(device, host);
  ASSERT_TRUE(tensor.ok()) << tensor.status();
  EXPECT_TRUE(tensor->valid());
  EXPECT_EQ(tensor->device(), device.get());
  EXPECT_NE(tensor->data(), 0u);
  EXPECT_EQ(tensor->byteSize(), 24u);
  EXPECT_EQ(tensor->describe(), "cuda:0 2x3xf32");
  auto back = tensor->toHost();
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->shape(), host.shape());
  EXPECT_EQ(valuesOf(*back), valuesOf(host));
  // Copies share the block; it returns to the pool with the last one.
  const size_t inUse = device->pool().stats().bytesInUse;
  {
    DeviceTensor copy = *tensor;
    EXPECT_EQ(copy.data(), tensor->data());
    *tensor = DeviceTensor();
    EXPECT_EQ(device->pool().stats().bytesInUse, inUse);
  }
  EXPECT_LT(device->pool().stats().bytesInUse, inUse);
  auto empty = DeviceTensor::allocate(device, {DType::BF16, {0}});
  ASSERT_TRUE(empty.ok()) << empty.status();
  EXPECT_EQ(empty->describe(), "cuda:0 0xbf16");
  EXPECT_EQ(empty->toHost()->shape(), (std::vector<int64_t>{0}));
}

TEST(DeviceTensorDevice, RunOnDeviceMatchesRun) {
  TGC_REQUIRE_DEVICE(device);
  // d = relu(a (4x8) * b (8x36) + bias) viewed as a 1x4x6x6 image;
  // y = conv3x3(d) + bias2. Results: y, d, y again, the input a, the
  // constant bias.
  MatmulCall mm = matmul(1, 4, 36, 8);
  mm.epilogue = MatmulCall::Epilogue::BiasRelu;
  mm.a = 0;
  mm.b = 1;
  mm.bias = 2;
  mm.d = 4;
  ConvCall cv = conv(false, 1, 4, 6, 6, 3, 3, 3, 1);
  cv.x = 4;
  cv.filter = 3;
  cv.bias = 2; // its first 3 values
  cv.y = 5;
  ExecutableSpec spec;
  spec.inputs = {{DType::F32, {4, 8}}, {DType::F32, {8, 36}}};
  HostTensor bias = hostTensor(DType::F32, randomValues(36, 41));
  HostTensor filter = hostTensor(DType::F32, randomValues(3 * 4 * 9, 42));
  spec.constants = {bias, filter};
  spec.intermediates = {{DType::F32, {4 * 36}}, {DType::F32, {3 * 36}}};
  spec.matmuls = {mm};
  spec.convs = {cv};
  Launch step;
  step.kind = Launch::Kind::Matmul;
  spec.launches.push_back(step);
  step.kind = Launch::Kind::Conv;
  spec.launches.push_back(step);
  spec.results = {5, 4, 5, 0, 2};
  spec.resultSpecs = {{DType::F32, {1, 3, 6, 6}},
                      {DType::F32, {4, 36}},
                      {DType::F32, {3, 36}},
                      {DType::F32, {4, 8}},
                      {DType::F32, {36}}};
  auto executable = DeviceExecutable::create(spec);
  ASSERT_TRUE(executable.ok()) << executable.status();
  std::vector<HostTensor> hostArgs = {
      hostTensor(DType::F32, randomValues(32, 43), {4, 8}),
      hostTensor(DType::F32, randomValues(288, 44), {8, 36})};
  auto expected = (*executable)->run(*device, hostArgs);
  ASSERT_TRUE(expected.ok()) << expected.status();

  std::vector<DeviceTensor> args;
  for (const HostTensor &arg : hostArgs)
    args.push_back(*DeviceTensor::fromHost(device, arg));
  for (int repeat = 0; repeat < 2; ++repeat) {
    auto results = (*executable)->runOnDevice(args);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), expected->size());
    for (size_t r = 0; r < results->size(); ++r) {
      SCOPED_TRACE(r);
      const DeviceTensor &result = (*results)[r];
      EXPECT_EQ(result.spec().shape, spec.resultSpecs[r].shape);
      EXPECT_EQ(result.device(), device.get());
      // Never an argument's or another result's memory.
      for (const DeviceTensor &arg : args)
        EXPECT_NE(result.data(), arg.data());
      for (size_t other = 0; other < r; ++other)
        EXPECT_NE(result.data(), (*results)[other].data());
      auto host = result.toHost();
      ASSERT_TRUE(host.ok()) << host.status();
      // The same plan and algorithms: equal up to nondeterministic
      // reduction orders, if any.
      const std::vector<double> actual = valuesOf(*host),
                                want = valuesOf((*expected)[r]);
      ASSERT_EQ(actual.size(), want.size());
      for (size_t i = 0; i < want.size(); ++i)
        ASSERT_TRUE(close(actual[i], want[i], 1e-5, 1e-6))
            << i << ": " << actual[i] << " vs " << want[i];
    }
  }
  // The arguments are untouched.
  EXPECT_EQ(valuesOf(*args[0].toHost()), valuesOf(hostArgs[0]));

  // Arguments that do not match the inputs.
  std::vector<DeviceTensor> swapped = {args[1], args[0]};
  EXPECT_EQ((*executable)->runOnDevice(swapped).status().message(),
            "argument #0 is cuda:0 8x36xf32, expected 4x8xf32");
}

} // namespace
