//===- DeviceFunctionTest.cpp - tgc::function on a target device ----------===//
//
// FunctionOptions::device: options, the target in the cache key, errors
// without a GPU or driver (clear, nothing cached, CPU functions unaffected),
// and, on a machine with a GPU, CUDA specializations against the CPU backend.
// GPU tests skip with "no CUDA device: <reason>" elsewhere.
//
//===----------------------------------------------------------------------===//

#include "frontend/Function.h"
#include "tgc/AbslStatus.h"

#include "FrontendTestUtils.h"

#include "runtime/cuda/Device.h"

#include <cmath>

using namespace tgc;
using namespace tgc::frontend::test;
using tracing::TensorSpec;
using tracing::TraceType;

namespace {

constexpr int64_t kDyn = tracing::kDynamic;

HostTensor ramp(Shape shape, double scale = 0.25) {
  auto t = HostTensor::allocate(DType::F32, shape);
  for (int64_t i = 0; i < t->numElements(); ++i)
    t->setDouble(i, scale * static_cast<double>(i % 17) - 1.5);
  return *t;
}

/// Why there is no usable CUDA device here, or "" when there is one.
std::string noCudaDevice() {
  auto device = cuda::openDevice(0);
  if (device.ok())
    return "";
  return std::string(device.status().message());
}

#define SKIP_WITHOUT_GPU()                                                     \
  do {                                                                         \
    std::string reason = noCudaDevice();                                       \
    if (!reason.empty())                                                       \
      GTEST_SKIP() << "no CUDA device: " << reason;                            \
  } while (false)

#define SKIP_WITH_GPU()                                                        \
  do {                                                                         \
    if (noCudaDevice().empty())                                                \
      GTEST_SKIP() << "a CUDA device is present";                              \
  } while (false)

void expectNear(const HostTensor &actual, const HostTensor &expected,
                double rtol = 1e-5, double atol = 1e-5) {
  ASSERT_EQ(actual.dtype(), expected.dtype());
  ASSERT_EQ(actual.shape(), expected.shape());
  for (int64_t i = 0; i < actual.numElements(); ++i) {
    double a = actual.getDouble(i), e = expected.getDouble(i);
    ASSERT_LE(std::abs(a - e), atol + rtol * std::abs(e))
        << "element " << i << ": " << a << " vs " << e;
  }
}

FunctionOptions onDevice(Device device, std::string name = "f") {
  FunctionOptions options;
  options.name = std::move(name);
  options.device = device;
  return options;
}

auto gelu1 = [](Tensor x, Tensor b) { return gelu(x * 2.0 + b) - x; };

//===----------------------------------------------------------------------===//
// Options
//===----------------------------------------------------------------------===//

TEST(DeviceFunction, DeviceAndBackendAgree) {
  if (!detail::hasCudaCodegen())
    GTEST_SKIP() << "this build has no CUDA code generation";
  FunctionOptions options;
  options.backend = FunctionOptions::Backend::Cuda;
  auto f = tgc::function(gelu1, options);
  ASSERT_TRUE(f.ok()) << f.status();
  EXPECT_EQ(f->options().device, Device::cuda(0));

  auto g = tgc::function(gelu1, onDevice(*Device::parse("cuda:1")));
  ASSERT_TRUE(g.ok()) << g.status();
  EXPECT_EQ(g->options().backend, FunctionOptions::Backend::Cuda);
  EXPECT_EQ(g->options().device.str(), "cuda:1");

  auto cpu = tgc::function(gelu1);
  ASSERT_TRUE(cpu.ok());
  EXPECT_EQ(cpu->options().device, Device::cpu());
  EXPECT_EQ(cpu->options().backend, FunctionOptions::Backend::Cpu);
}

TEST(DeviceFunction, InvalidDeviceOptionsAreRejectedAtCreation) {
  FunctionOptions options = onDevice(Device::cuda(0));
  options.backend = FunctionOptions::Backend::Reference;
  auto f = tgc::function(gelu1, options);
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            "tgc: function 'f': the reference backend runs on the cpu, not "
            "cuda:0");
  auto g = tgc::function(gelu1, onDevice(Device::cuda(-2)));
  ASSERT_FALSE(g.ok());
  EXPECT_EQ(g.status().message(),
            "tgc: function 'f': invalid CUDA device ordinal -2");
}

TEST(DeviceFunction, BuildsWithoutCudaCodegenSaySo) {
  if (detail::hasCudaCodegen())
    GTEST_SKIP() << "this build has CUDA code generation";
  auto f = tgc::function(gelu1, onDevice(Device::cuda(0)));
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            "tgc: function 'f' targets cuda:0: this build of tgc has no CUDA "
            "code generation (configure with the CUDA toolkit: "
            "TGC_ENABLE_CUDA=ON)");
}

//===----------------------------------------------------------------------===//
// Without a GPU or driver
//===----------------------------------------------------------------------===//

TEST(DeviceFunction, NoDeviceIsAClearErrorAndCachesNothing) {
  if (!detail::hasCudaCodegen())
    GTEST_SKIP() << "this build has no CUDA code generation";
  SKIP_WITH_GPU();
  std::string reason = noCudaDevice();
  std::string expectedReason =
      llvm::StringRef(reason).starts_with("no CUDA device")
          ? reason
          : "no CUDA device: " + reason;
  auto f = tgc::function(gelu1, onDevice(Device::cuda(0)));
  ASSERT_TRUE(f.ok()) << f.status();
  HostTensor x = ramp({2, 3}), b = ramp({3});
  for (int attempt = 0; attempt < 2; ++attempt) {
    auto r = (*f)(x, b);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().message(),
              "tgc: function 'f' targets cuda:0: " + expectedReason);
  }
  // The call failed before tracing: nothing traced, nothing cached.
  EXPECT_EQ(f->tracingCount(), 0u);
  EXPECT_TRUE(f->specializations().empty());
  // A concrete function traces, and the compile needs the device's arch:
  // the failed trace leaves nothing behind.
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {2, 3}},
                                      TensorSpec{DType::F32, {3}});
  ASSERT_FALSE(concrete.ok());
  EXPECT_EQ(concrete.status().message(),
            "tgc: function 'f' targets cuda:0: " + expectedReason);
  EXPECT_TRUE(f->specializations().empty());
  ASSERT_EQ(f->history().size(), 1u);
  EXPECT_TRUE(f->history()[0].failed);
  // The same callable on the CPU, and CPU functions in general, still work.
  auto cpu = tgc::function(gelu1, onDevice(Device::cpu()));
  ASSERT_TRUE(cpu.ok());
  auto r = (*cpu)(x, b);
  ASSERT_TRUE(r.ok()) << r.status();
  auto reference = tgc::function(gelu1, [] {
    FunctionOptions o;
    o.backend = FunctionOptions::Backend::Reference;
    return o;
  }());
  expectNear(*r, *(*reference)(x, b));
  // Another ordinal names itself.
  auto g = tgc::function(gelu1, onDevice(Device::cuda(3), "g"));
  auto rg = (*g)(x, b);
  ASSERT_FALSE(rg.ok());
  EXPECT_TRUE(llvm::StringRef(std::string(rg.status().message()))
                  .starts_with("tgc: function 'g' targets cuda:3: no CUDA "
                               "device"))
      << rg.status();
}

// Results are typed by the arguments' placement: device tensors in,
// device tensors out.
using HostArgsResult =
    decltype(std::declval<const Function<decltype(gelu1)> &>()(
        std::declval<HostTensor>(), std::declval<HostTensor>()));
using DeviceArgsResult =
    decltype(std::declval<const Function<decltype(gelu1)> &>()(
        std::declval<cuda::DeviceTensor>(), std::declval<HostTensor>()));
static_assert(std::is_same_v<HostArgsResult, tgc::StatusOr<HostTensor>>);
static_assert(
    std::is_same_v<DeviceArgsResult, tgc::StatusOr<cuda::DeviceTensor>>);
static_assert(
    std::is_same_v<
        detail::ResultLeafT<std::vector<std::optional<cuda::DeviceTensor>>>,
        cuda::DeviceTensor>);
static_assert(
    std::is_same_v<detail::ResultLeafT<std::map<int, HostTensor>, double>,
                   HostTensor>);
static_assert(
    std::is_same_v<
        StructureT<std::pair<Tensor, std::vector<Tensor>>, cuda::DeviceTensor>,
        std::pair<cuda::DeviceTensor, std::vector<cuda::DeviceTensor>>>);

TEST(DeviceFunction, EmptyDeviceTensorIsAnError) {
  auto f = tgc::function(gelu1);
  auto r = (*f)(cuda::DeviceTensor(), ramp({3}));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "tgc: an argument is an empty (default-constructed) DeviceTensor");
  EXPECT_EQ(f->tracingCount(), 0u);
}

TraceType tensorOn(Shape shape, std::string device) {
  return TraceType::tensor(
      TensorSpec{DType::F32, std::move(shape), false, std::move(device)});
}
TraceType argsOf(std::vector<TraceType> elements) {
  return TraceType::sequence(TraceType::SequenceKind::Tuple,
                             std::move(elements));
}

// Tensors on a device the function does not run on are rejected before
// anything is traced, naming the argument.
TEST(DeviceFunction, MisplacedTensorsAreClearErrors) {
  detail::FunctionState cpu(onDevice(Device::cpu()));
  EXPECT_TRUE(cpu.checkPlacement(argsOf({tensorOn({2}, "cpu")})).ok());
  absl::Status status = cpu.checkPlacement(argsOf(
      {tensorOn({2}, "cpu"),
       TraceType::sequence(TraceType::SequenceKind::Vector,
                           {tensorOn({2}, "cpu"), tensorOn({2}, "cuda:0")})}));
  EXPECT_EQ(status.message(),
            "tgc: function 'f' runs on the cpu but arg1[1] is a tensor on "
            "cuda:0 (copy it to the host with DeviceTensor::toHost(), or "
            "create the function with device cuda:0)");
  status = cpu.checkPlacement(argsOf(
      {TraceType::map({{TraceType::string("w"),
                        TraceType::optional(tensorOn({2}, "cuda:1"))}})}));
  EXPECT_EQ(
      status.message(),
      "tgc: function 'f' runs on the cpu but arg0[\"w\"].value() is a "
      "tensor on cuda:1 (copy it to the host with DeviceTensor::toHost(), "
      "or create the function with device cuda:1)");

  FunctionOptions options = onDevice(Device::cuda(0));
  ASSERT_TRUE(detail::normalizeOptions(options).ok() ||
              !detail::hasCudaCodegen());
  detail::FunctionState gpu(options);
  EXPECT_TRUE(gpu.checkPlacement(
                     argsOf({tensorOn({2}, "cpu"), tensorOn({2}, "cuda:0")}))
                  .ok());
  status = gpu.checkPlacement(argsOf(
      {tensorOn({2}, "cuda:0"),
       TraceType::sequence(TraceType::SequenceKind::Pair,
                           {tensorOn({2}, "cpu"), tensorOn({2}, "cuda:1")})}));
  EXPECT_EQ(status.message(),
            "tgc: function 'f' targets cuda:0 but arg1.second is a tensor on "
            "cuda:1 (tensors are not moved between devices)");

  // Through the API: a concrete function for device placeholders.
  auto f = tgc::function(gelu1, onDevice(Device::cpu()));
  auto concrete =
      f->concreteFunction(TensorSpec{DType::F32, {2}, false, "cuda:0"},
                          TensorSpec{DType::F32, {2}});
  ASSERT_FALSE(concrete.ok());
  EXPECT_EQ(concrete.status().message(),
            "tgc: function 'f' runs on the cpu but arg0 is a tensor on "
            "cuda:0 (copy it to the host with DeviceTensor::toHost(), or "
            "create the function with device cuda:0)");
  EXPECT_EQ(f->tracingCount(), 0u);
}

//===----------------------------------------------------------------------===//
// On a GPU
//===----------------------------------------------------------------------===//

TEST(DeviceFunction, RunsOnCudaLikeOnTheCpu) {
  SKIP_WITHOUT_GPU();
  auto onCuda = tgc::function(gelu1, onDevice(Device::cuda(0)));
  auto onCpu = tgc::function(gelu1, onDevice(Device::cpu()));
  ASSERT_TRUE(onCuda.ok()) << onCuda.status();
  for (Shape shape : {Shape{2, 3}, Shape{64, 3}, Shape{2, 3}}) {
    HostTensor x = ramp(shape), b = ramp({3}, 0.5);
    auto expected = (*onCpu)(x, b);
    ASSERT_TRUE(expected.ok()) << expected.status();
    auto actual = (*onCuda)(x, b);
    ASSERT_TRUE(actual.ok()) << actual.status();
    expectNear(*actual, *expected, 1e-4, 1e-5);
  }
  EXPECT_EQ(onCuda->tracingCount(), 2u);
  auto specs = onCuda->specializations();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].signature, "(Tensor<2x3xf32>, Tensor<3xf32>, @cuda:0)");
  EXPECT_EQ(specs[0].hits, 2u);
  // CPU signatures do not change.
  EXPECT_EQ(onCpu->specializations()[0].signature,
            "(Tensor<2x3xf32>, Tensor<3xf32>)");
}

TEST(DeviceFunction, DynamicShapesCompileOncePerShapeOnCuda) {
  SKIP_WITHOUT_GPU();
  FunctionOptions options = onDevice(Device::cuda(0));
  options.inputSignature = std::vector<TensorSpec>{
      TensorSpec{DType::F32, {kDyn, 8}}, TensorSpec{DType::F32, {8}}};
  auto f = tgc::function([](Tensor x, Tensor b) { return softmax(x + b, -1); },
                         options);
  ASSERT_TRUE(f.ok()) << f.status();
  FunctionOptions cpuOptions = options;
  cpuOptions.device = Device::cpu();
  cpuOptions.backend = FunctionOptions::Backend::Cpu;
  auto cpu = tgc::function(
      [](Tensor x, Tensor b) { return softmax(x + b, -1); }, cpuOptions);
  for (int64_t rows : {1, 5, 40, 5}) {
    HostTensor x = ramp({rows, 8}), b = ramp({8}, 0.1);
    auto actual = (*f)(x, b);
    ASSERT_TRUE(actual.ok()) << actual.status();
    expectNear(*actual, *(*cpu)(x, b), 1e-4, 1e-6);
  }
  EXPECT_EQ(f->tracingCount(), 1u);
  EXPECT_EQ(f->specializations()[0].signature,
            "(Tensor<?x8xf32>, Tensor<8xf32>, @cuda:0)");
}

TEST(DeviceFunction, UnsupportedOpsFailTheTraceAndLeaveNothing) {
  SKIP_WITHOUT_GPU();
  // tgc.topk has no CUDA kernel (yet).
  auto f = tgc::function([](Tensor x) { return topk(x, 2).first; },
                         onDevice(Device::cuda(0)));
  ASSERT_TRUE(f.ok());
  auto r = (*f)(ramp({4, 3}));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(std::string(r.status().message()).find("cuda backend"),
            std::string::npos)
      << r.status();
  EXPECT_TRUE(f->specializations().empty());
  // The same callable and shapes on the CPU are fine.
  auto cpu = tgc::function([](Tensor x) { return topk(x, 2).first; });
  EXPECT_TRUE((*cpu)(ramp({4, 3})).ok());
}

TEST(DeviceFunction, VariablesUpdateFromCuda) {
  SKIP_WITHOUT_GPU();
  Variable counter = Variable::create(f32({2}, {0, 10}));
  auto f = tgc::function(
      [](VariableRef v, Tensor step) {
        v.assign(v.read() + step);
        return v.read() * 2.0;
      },
      onDevice(Device::cuda(0)));
  ASSERT_TRUE(f.ok());
  for (int i = 0; i < 3; ++i) {
    auto r = (*f)(counter, f32({2}, {1, 2}));
    ASSERT_TRUE(r.ok()) << r.status();
  }
  expectValues(counter.value(), DType::F32, {2}, {3, 16});
}

/// `host` on device 0.
cuda::DeviceTensor upload(const HostTensor &host) {
  auto device = cuda::openDevice(0);
  EXPECT_TRUE(device.ok()) << device.status();
  auto tensor = cuda::DeviceTensor::fromHost(*device, host);
  EXPECT_TRUE(tensor.ok()) << tensor.status();
  return tensor.ok() ? *tensor : cuda::DeviceTensor();
}

HostTensor download(const cuda::DeviceTensor &tensor) {
  auto host = tensor.toHost();
  EXPECT_TRUE(host.ok()) << host.status();
  return host.ok() ? *host : HostTensor();
}

TEST(DeviceFunction, DeviceTensorsStayOnTheDevice) {
  SKIP_WITHOUT_GPU();
  auto onCuda = tgc::function(gelu1, onDevice(Device::cuda(0)));
  auto onCpu = tgc::function(gelu1, onDevice(Device::cpu()));
  HostTensor x = ramp({4, 3}), b = ramp({3}, 0.5);
  cuda::DeviceTensor dx = upload(x), db = upload(b);
  EXPECT_EQ(dx.describe(), "cuda:0 4x3xf32");

  // Device tensors in, a device tensor out.
  absl::StatusOr<cuda::DeviceTensor> y = (*onCuda)(dx, db);
  ASSERT_TRUE(y.ok()) << y.status();
  ASSERT_NE(y->device(), nullptr);
  EXPECT_EQ(y->device()->ordinal(), 0);
  EXPECT_EQ(y->shape(), (Shape{4, 3}));
  HostTensor expected = *(*onCpu)(x, b);
  expectNear(download(*y), expected, 1e-4, 1e-5);
  // The arguments were not modified.
  expectNear(download(dx), x, 0, 0);

  // Chained calls: the result feeds the next call without a host copy.
  absl::StatusOr<cuda::DeviceTensor> z = (*onCuda)(*y, db);
  ASSERT_TRUE(z.ok()) << z.status();
  expectNear(download(*z), *(*onCpu)(expected, b), 1e-4, 1e-5);

  // Host tensors in, a host tensor out: another key.
  auto h = (*onCuda)(x, b);
  ASSERT_TRUE(h.ok()) << h.status();
  expectNear(*h, expected, 1e-4, 1e-5);
  // Mixed: the host argument is copied in, the result stays on the device.
  absl::StatusOr<cuda::DeviceTensor> m = (*onCuda)(dx, b);
  ASSERT_TRUE(m.ok()) << m.status();
  expectNear(download(*m), expected, 1e-4, 1e-5);

  std::vector<std::string> signatures;
  for (const SpecializationInfo &info : onCuda->specializations())
    signatures.push_back(info.signature);
  EXPECT_EQ(signatures,
            (std::vector<std::string>{
                "(Tensor<4x3xf32, cuda:0>, Tensor<3xf32, cuda:0>, @cuda:0)",
                "(Tensor<4x3xf32>, Tensor<3xf32>, @cuda:0)",
                "(Tensor<4x3xf32, cuda:0>, Tensor<3xf32>, @cuda:0)"}));
  EXPECT_EQ(onCuda->specializations()[0].hits, 2u);

  // The CPU backend does not take device tensors.
  auto onHost = (*onCpu)(dx, db);
  ASSERT_FALSE(onHost.ok());
  EXPECT_EQ(onHost.status().message(),
            "tgc: function 'f' runs on the cpu but arg0 is a tensor on "
            "cuda:0 (copy it to the host with DeviceTensor::toHost(), or "
            "create the function with device cuda:0)");
}

TEST(DeviceFunction, DeviceResultsKeepTheStructure) {
  SKIP_WITHOUT_GPU();
  auto f = tgc::function(
      [](const std::vector<Tensor> &xs) {
        return std::make_pair(xs[0] + xs[1],
                              std::vector<Tensor>{exp(xs[0]), xs[1] * 3.0});
      },
      onDevice(Device::cuda(0)));
  HostTensor a = ramp({5}), b = ramp({5}, 0.125);
  auto r = (*f)(std::vector<cuda::DeviceTensor>{upload(a), upload(b)});
  ASSERT_TRUE(r.ok()) << r.status();
  auto cpu = tgc::function([](const std::vector<Tensor> &xs) {
    return std::make_pair(xs[0] + xs[1],
                          std::vector<Tensor>{exp(xs[0]), xs[1] * 3.0});
  });
  auto e = (*cpu)(std::vector<HostTensor>{a, b});
  ASSERT_TRUE(e.ok());
  expectNear(download(r->first), e->first, 1e-5, 1e-6);
  ASSERT_EQ(r->second.size(), 2u);
  expectNear(download(r->second[0]), e->second[0], 1e-5, 1e-6);
  expectNear(download(r->second[1]), e->second[1], 1e-5, 1e-6);
}

} // namespace
