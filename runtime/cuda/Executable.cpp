//===- Executable.cpp - a compiled function for one CUDA device -----------===//

#include "runtime/cuda/Executable.h"

#include "runtime/cuda/Blas.h"
#include "runtime/cuda/Dnn.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

#include <algorithm>
#include <climits>
#include <optional>

using namespace tgc::cuda;
namespace runtime = tgc::runtime;
using tgc::runtime::DType;
using tgc::runtime::HostTensor;

size_t TensorSpec::byteSize() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return static_cast<size_t>(n) * runtime::dtypeSize(dtype);
}

std::string TensorSpec::describe() const {
  return absl::StrCat(absl::StrJoin(shape, "x"), shape.empty() ? "" : "x",
                      std::string(runtime::dtypeName(dtype)));
}

//===----------------------------------------------------------------------===//
// Library calls
//===----------------------------------------------------------------------===//

namespace {
/// " f16" / " tf32" / " int8 (s32 out)" suffixes shared by the call
/// descriptions; `int8Output` names an int8 call's output type.
std::string precisionSuffix(DType dtype, bool allowTf32,
                            const char *int8Output) {
  if (dtype == DType::I8)
    return absl::StrCat(" int8 (", int8Output, " out)");
  std::string text;
  if (dtype != DType::F32)
    absl::StrAppend(&text, " ", std::string(runtime::dtypeName(dtype)));
  else if (allowTf32)
    absl::StrAppend(&text, " tf32");
  return text;
}

/// "2" or "2x3" for a pair of values.
std::string pair(int64_t a, int64_t b) {
  return a == b ? absl::StrCat(a) : absl::StrCat(a, "x", b);
}
} // namespace

std::string MatmulCall::describe() const {
  // op(A) is m x k: stored k x m when transposed, shown as (k x m)^T.
  auto operand = [](int64_t rows, int64_t cols, bool trans) {
    return trans ? absl::StrCat("(", cols, "x", rows, ")^T")
                 : absl::StrCat(rows, "x", cols);
  };
  std::string product =
      absl::StrCat(operand(m, k, transA), " * ", operand(k, n, transB));
  std::string text = batch > 1
                         ? absl::StrCat("matmul ", batch, "x(", product, ")")
                         : absl::StrCat("matmul ", product);
  if (batch > 1) {
    std::vector<std::string> shared;
    if (strideA == 0)
      shared.push_back("A");
    if (strideB == 0)
      shared.push_back("B");
    if (c >= 0 && strideC == 0)
      shared.push_back("C");
    if (!shared.empty())
      absl::StrAppend(&text, " broadcast ", absl::StrJoin(shared, ","));
  }
  if (alpha != 1)
    absl::StrAppend(&text, " *", alpha);
  if (c >= 0 || beta != 0)
    absl::StrAppend(&text, beta == 1 ? " +c" : absl::StrCat(" +", beta, "*c"));
  switch (epilogue) {
  case Epilogue::None:
    break;
  case Epilogue::Relu:
    absl::StrAppend(&text, " relu");
    break;
  case Epilogue::Gelu:
    absl::StrAppend(&text, " gelu");
    break;
  case Epilogue::Bias:
    absl::StrAppend(&text, " +bias");
    break;
  case Epilogue::BiasRelu:
    absl::StrAppend(&text, " +bias relu");
    break;
  case Epilogue::BiasGelu:
    absl::StrAppend(&text, " +bias gelu");
    break;
  }
  absl::StrAppend(&text, precisionSuffix(dtype, allowTf32, "s32"));
  return text;
}

std::string ConvCall::describe() const {
  const int64_t perGroup = groups > 0 ? c / groups : c;
  std::string input = nhwc ? absl::StrCat(n, "x", h, "x", w, "x", c)
                           : absl::StrCat(n, "x", c, "x", h, "x", w);
  std::string weights = nhwc ? absl::StrCat(k, "x", r, "x", s, "x", perGroup)
                             : absl::StrCat(k, "x", perGroup, "x", r, "x", s);
  std::string output = nhwc ? absl::StrCat(n, "x", outH, "x", outW, "x", k)
                            : absl::StrCat(n, "x", k, "x", outH, "x", outW);
  std::string text =
      absl::StrCat("conv ", nhwc ? "nhwc " : "", input, " * ", weights, " pad ",
                   pair(padH, padW), " stride ", pair(strideH, strideW));
  if (dilationH != 1 || dilationW != 1)
    absl::StrAppend(&text, " dilation ", pair(dilationH, dilationW));
  if (groups != 1)
    absl::StrAppend(&text, " groups ", groups);
  absl::StrAppend(&text, " -> ", output);
  if (bias >= 0)
    absl::StrAppend(&text, " +bias");
  if (z >= 0)
    absl::StrAppend(&text,
                    alpha2 == 1 ? " +z" : absl::StrCat(" +", alpha2, "*z"));
  if (relu)
    absl::StrAppend(&text, " relu");
  absl::StrAppend(&text, precisionSuffix(dtype, allowTf32, "f32"));
  return text;
}

//===----------------------------------------------------------------------===//
// DeviceTensor
//===----------------------------------------------------------------------===//

struct DeviceTensor::Storage {
  std::shared_ptr<Device> device;
  DevicePtr ptr = 0;
  Storage(std::shared_ptr<Device> device, DevicePtr ptr)
      : device(std::move(device)), ptr(ptr) {}
  // Every producer of a DeviceTensor synchronizes before handing it out and
  // every consumer before returning, so no work uses the block any more.
  ~Storage() { device->pool().free(ptr); }
};

DeviceTensor DeviceTensor::adopt(std::shared_ptr<Device> device, DevicePtr ptr,
                                 TensorSpec spec) {
  DeviceTensor tensor;
  tensor.storage = std::make_shared<Storage>(std::move(device), ptr);
  tensor.tensorSpec = std::move(spec);
  return tensor;
}

tgc::StatusOr<DeviceTensor>
DeviceTensor::allocate(std::shared_ptr<Device> device, TensorSpec spec) {
  if (!device)
    return absl::InvalidArgumentError("DeviceTensor::allocate: no device");
  for (int64_t d : spec.shape)
    if (d < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          "DeviceTensor::allocate: negative dimension in ", spec.describe()));
  absl::StatusOr<DevicePtr> ptr = device->pool().allocate(spec.byteSize());
  if (!ptr.ok())
    return ptr.status();
  return adopt(std::move(device), *ptr, std::move(spec));
}

tgc::StatusOr<DeviceTensor>
DeviceTensor::fromHost(std::shared_ptr<Device> device, const HostTensor &host) {
  absl::StatusOr<DeviceTensor> tensor =
      allocate(device, TensorSpec{host.dtype(), host.shape()});
  if (!tensor.ok())
    return tensor.status();
  absl::StatusOr<std::unique_ptr<Stream>> stream = device->createStream();
  if (!stream.ok())
    return stream.status();
  if (auto s =
          (*stream)->copyToDevice(tensor->data(), host.data(), host.byteSize());
      !s.ok()) {
    (void)(*stream)->synchronize();
    return s;
  }
  if (auto s = (*stream)->synchronize(); !s.ok())
    return s;
  return tensor;
}

tgc::StatusOr<HostTensor> DeviceTensor::toHost() const {
  if (!valid())
    return absl::FailedPreconditionError(
        "DeviceTensor::toHost: the tensor holds no device memory");
  absl::StatusOr<HostTensor> host =
      HostTensor::allocateUninitialized(dtype(), shape());
  if (!host.ok())
    return host.status();
  absl::StatusOr<std::unique_ptr<Stream>> stream =
      storage->device->createStream();
  if (!stream.ok())
    return stream.status();
  absl::Status copied = (*stream)->copyToHost(host->data(), data(), byteSize());
  absl::Status done = (*stream)->synchronize();
  if (!copied.ok())
    return copied;
  if (!done.ok())
    return done;
  return host;
}

DevicePtr DeviceTensor::data() const { return storage ? storage->ptr : 0; }

Device *DeviceTensor::device() const {
  return storage ? storage->device.get() : nullptr;
}

std::string DeviceTensor::placement() const {
  if (!storage)
    return "cuda:?";
  return absl::StrCat("cuda:", storage->device->ordinal());
}

std::string DeviceTensor::describe() const {
  if (!storage)
    return absl::StrCat("(no device) ", tensorSpec.describe());
  return absl::StrCat("cuda:", storage->device->ordinal(), " ",
                      tensorSpec.describe());
}

//===----------------------------------------------------------------------===//
// DeviceExecutable: the spec
//===----------------------------------------------------------------------===//

DeviceExecutable::DeviceExecutable(ExecutableSpec spec)
    : program(std::move(spec)) {}

DeviceExecutable::~DeviceExecutable() {
  // Every call synchronized before returning: nothing is in flight.
  matmulPlans.clear();
  convPlans.clear();
  if (boundDevice) {
    for (DevicePtr ptr : constantBuffers)
      boundDevice->pool().free(ptr);
    if (statusBuffer)
      boundDevice->pool().free(statusBuffer);
  }
}

int DeviceExecutable::numBuffers() const {
  return static_cast<int>(program.inputs.size() + program.constants.size() +
                          program.intermediates.size());
}

TensorSpec DeviceExecutable::bufferSpec(int buffer) const {
  size_t b = static_cast<size_t>(buffer);
  if (b < program.inputs.size())
    return program.inputs[b];
  b -= program.inputs.size();
  if (b < program.constants.size())
    return TensorSpec{program.constants[b].dtype(),
                      program.constants[b].shape()};
  b -= program.constants.size();
  return program.intermediates[b];
}

namespace {
/// a * b + c, or nullopt on overflow or a negative operand.
std::optional<uint64_t> mulAdd(int64_t a, int64_t b, int64_t c = 0) {
  if (a < 0 || b < 0 || c < 0)
    return std::nullopt;
  uint64_t product = 0, sum = 0;
  if (__builtin_mul_overflow(uint64_t(a), uint64_t(b), &product) ||
      __builtin_add_overflow(product, uint64_t(c), &sum))
    return std::nullopt;
  return sum;
}

/// Checks of the library calls' operands against the executable's buffers.
class StepChecker {
public:
  StepChecker(const DeviceExecutable &executable, std::string what)
      : executable(executable), what(std::move(what)) {}

  absl::Status error(const std::string &message) const {
    return absl::InvalidArgumentError(absl::StrCat(what, ": ", message));
  }

  /// `buffer` exists, holds `elements` elements of `dtype` (nullopt: more
  /// than fits in memory), and is of that dtype when it is an input or a
  /// constant (intermediates are untyped slots).
  absl::Status operand(const char *role, int buffer, DType dtype,
                       std::optional<uint64_t> elements) const {
    if (buffer < 0 || buffer >= executable.numBuffers())
      return error(absl::StrCat("no buffer ", buffer, " for ", role));
    const TensorSpec spec = executable.bufferSpec(buffer);
    std::optional<uint64_t> bytes =
        elements ? mulAdd(int64_t(*elements), runtime::dtypeSize(dtype))
                 : std::nullopt;
    if (!elements || *elements > uint64_t(INT64_MAX) || !bytes)
      return error(absl::StrCat(role, " is too large"));
    if (spec.byteSize() < *bytes)
      return error(absl::StrCat(role, " needs ", *bytes, " bytes, buffer ",
                                buffer, " (", spec.describe(), ") has ",
                                spec.byteSize()));
    if (!isIntermediate(buffer) && spec.dtype != dtype)
      return error(absl::StrCat(role, " is ",
                                std::string(runtime::dtypeName(dtype)),
                                ", buffer ", buffer, " is ", spec.describe()));
    return absl::OkStatus();
  }

  bool isIntermediate(int buffer) const {
    const ExecutableSpec &p = executable.spec();
    return buffer >= int(p.inputs.size() + p.constants.size());
  }

  /// The output must be an intermediate (never an argument or a constant).
  absl::Status output(const char *role, int buffer) const {
    if (!isIntermediate(buffer))
      return error(absl::StrCat(
          role, " is buffer ", buffer,
          ", an input or constant: library calls write intermediates only"));
    return absl::OkStatus();
  }

private:
  const DeviceExecutable &executable;
  std::string what;
};

bool isLibraryDType(DType dtype) {
  return dtype == DType::F32 || dtype == DType::F16 || dtype == DType::BF16 ||
         dtype == DType::I8;
}

absl::Status checkMatmul(const DeviceExecutable &executable, size_t index) {
  const MatmulCall &call = executable.spec().matmuls[index];
  StepChecker check(executable, absl::StrCat("matmul ", index));
  if (!isLibraryDType(call.dtype))
    return check.error(absl::StrCat("dtype ",
                                    std::string(runtime::dtypeName(call.dtype)),
                                    " (cuBLASLt takes f32, f16, bf16 or i8)"));
  for (int64_t v : {call.batch, call.m, call.n, call.k})
    if (v < 1 || v > INT32_MAX)
      return check.error(absl::StrCat("bad shape: batch ", call.batch, ", m ",
                                      call.m, ", n ", call.n, ", k ", call.k));
  if (std::string violation = int8Violation(call); !violation.empty())
    return check.error(violation);
  // A and B are `dtype`; C, the bias and D the output type (i32 for int8).
  const DType outType = call.outputDType();
  for (int64_t stride :
       {call.strideA, call.strideB, call.strideC, call.strideD})
    if (stride < 0)
      return check.error(absl::StrCat("negative batch stride ", stride));
  const int64_t mn = call.m * call.n;
  if (call.batch > 1 && call.strideD < mn)
    return check.error(absl::StrCat("strideD ", call.strideD,
                                    " overlaps the batch's ", call.m, "x",
                                    call.n, " results"));
  // Elements spanned by `batch` matrices of `size` elements `stride` apart.
  auto span = [&](int64_t size, int64_t stride) {
    return call.batch > 1 ? mulAdd(call.batch - 1, stride, size)
                          : mulAdd(size, 1);
  };
  const bool biasEpilogue = call.epilogue == MatmulCall::Epilogue::Bias ||
                            call.epilogue == MatmulCall::Epilogue::BiasRelu ||
                            call.epilogue == MatmulCall::Epilogue::BiasGelu;
  if (call.beta != 0 && call.c < 0)
    return check.error(absl::StrCat("beta ", call.beta, " without a C"));
  if (biasEpilogue && call.bias < 0)
    return check.error("the epilogue adds a bias, but there is none");
  if (!biasEpilogue && call.bias >= 0)
    return check.error("a bias, but the epilogue adds none");
  if (auto s = check.operand("A", call.a, call.dtype,
                             span(call.m * call.k, call.strideA));
      !s.ok())
    return s;
  if (auto s = check.operand("B", call.b, call.dtype,
                             span(call.k * call.n, call.strideB));
      !s.ok())
    return s;
  if (call.c >= 0)
    if (auto s = check.operand("C", call.c, outType, span(mn, call.strideC));
        !s.ok())
      return s;
  if (call.bias >= 0)
    if (auto s =
            check.operand("the bias", call.bias, outType, mulAdd(call.n, 1));
        !s.ok())
      return s;
  if (auto s = check.operand("D", call.d, outType, span(mn, call.strideD));
      !s.ok())
    return s;
  if (auto s = check.output("D", call.d); !s.ok())
    return s;
  if (call.d == call.a || call.d == call.b || call.d == call.bias)
    return check.error(absl::StrCat("D (buffer ", call.d,
                                    ") is also an input of the product"));
  // cuBLASLt computes in place only with identical C and D layouts.
  if (call.d == call.c && call.strideC != call.strideD)
    return check.error("C is D, with another batch stride");
  return absl::OkStatus();
}

absl::Status checkConv(const DeviceExecutable &executable, size_t index) {
  const ConvCall &call = executable.spec().convs[index];
  StepChecker check(executable, absl::StrCat("conv ", index));
  if (!isLibraryDType(call.dtype))
    return check.error(absl::StrCat("dtype ",
                                    std::string(runtime::dtypeName(call.dtype)),
                                    " (cuDNN takes f32, f16, bf16 or i8)"));
  const int64_t positive[] = {
      call.n,         call.c,         call.h,      call.w,       call.k,
      call.r,         call.s,         call.groups, call.strideH, call.strideW,
      call.dilationH, call.dilationW, call.outH,   call.outW};
  for (int64_t v : positive)
    if (v < 1 || v > INT32_MAX)
      return check.error(
          absl::StrCat("bad shape or parameter ", v, " in ", call.describe()));
  if (call.padH < 0 || call.padW < 0 || call.padH > INT32_MAX ||
      call.padW > INT32_MAX)
    return check.error(absl::StrCat("bad padding ", call.padH, "x", call.padW));
  if (call.c % call.groups != 0 || call.k % call.groups != 0)
    return check.error(absl::StrCat(call.groups, " groups do not divide ",
                                    call.c, " input and ", call.k,
                                    " output channels"));
  if (std::string violation = int8Violation(call); !violation.empty())
    return check.error(violation);
  // Cross-correlation output size, as cuDNN computes it.
  auto outSize = [](int64_t in, int64_t pad, int64_t filter, int64_t stride,
                    int64_t dilation) {
    const int64_t extent = (filter - 1) * dilation + 1;
    const int64_t padded = in + 2 * pad;
    return padded < extent ? 0 : (padded - extent) / stride + 1;
  };
  const int64_t outH =
      outSize(call.h, call.padH, call.r, call.strideH, call.dilationH);
  const int64_t outW =
      outSize(call.w, call.padW, call.s, call.strideW, call.dilationW);
  if (outH != call.outH || outW != call.outW)
    return check.error(absl::StrCat("the output is ", outH, "x", outW, ", not ",
                                    call.outH, "x", call.outW, " (",
                                    call.describe(), ")"));
  auto count = [](std::initializer_list<int64_t> dims) {
    std::optional<uint64_t> n = 1;
    for (int64_t d : dims)
      n = n ? mulAdd(int64_t(*n), d) : std::nullopt;
    return n;
  };
  const std::optional<uint64_t> xCount =
      count({call.n, call.c, call.h, call.w});
  const std::optional<uint64_t> yCount =
      count({call.n, call.k, call.outH, call.outW});
  const std::optional<uint64_t> wCount =
      count({call.k, call.c / call.groups, call.r, call.s});
  // cuDNN's legacy API indexes tensors with ints.
  for (const std::optional<uint64_t> &n : {xCount, yCount, wCount})
    if (!n || *n > uint64_t(INT32_MAX))
      return check.error(absl::StrCat(call.describe(),
                                      ": cuDNN takes tensors of fewer than "
                                      "2^31 elements"));
  if (auto s = check.operand("x", call.x, call.dtype, xCount); !s.ok())
    return s;
  if (auto s = check.operand("the filter", call.filter, call.dtype, wCount);
      !s.ok())
    return s;
  // x and the filter are `dtype`; y, z and the bias the output type (f32 for
  // int8).
  const DType outType = call.outputDType();
  if (call.bias >= 0)
    if (auto s =
            check.operand("the bias", call.bias, outType, mulAdd(call.k, 1));
        !s.ok())
      return s;
  if (call.z >= 0)
    if (auto s = check.operand("z", call.z, outType, yCount); !s.ok())
      return s;
  if (auto s = check.operand("y", call.y, outType, yCount); !s.ok())
    return s;
  if (auto s = check.output("y", call.y); !s.ok())
    return s;
  // z may be y (a residual accumulated in place); nothing else may.
  if (call.y == call.x || call.y == call.filter || call.y == call.bias)
    return check.error(absl::StrCat("y (buffer ", call.y,
                                    ") is also an input of the convolution"));
  return absl::OkStatus();
}
} // namespace

absl::StatusOr<std::unique_ptr<DeviceExecutable>>
DeviceExecutable::create(ExecutableSpec spec) {
  std::unique_ptr<DeviceExecutable> executable(
      new DeviceExecutable(std::move(spec)));
  const ExecutableSpec &p = executable->program;
  const int n = executable->numBuffers();
  for (size_t i = 0; i < p.launches.size(); ++i) {
    const Launch &launch = p.launches[i];
    switch (launch.kind) {
    case Launch::Kind::Kernel:
      if (launch.kernel < 0 || launch.kernel >= (int)p.kernels.size())
        return absl::InvalidArgumentError(
            absl::StrCat("launch ", i, ": no kernel ", launch.kernel));
      if (launch.grid == 0 || launch.block == 0 || launch.block > 1024)
        return absl::InvalidArgumentError(
            absl::StrCat("launch ", i, ": bad configuration <<<", launch.grid,
                         ", ", launch.block, ">>>"));
      break;
    case Launch::Kind::Matmul:
      if (launch.kernel < 0 || launch.kernel >= (int)p.matmuls.size())
        return absl::InvalidArgumentError(
            absl::StrCat("launch ", i, ": no matmul ", launch.kernel));
      break;
    case Launch::Kind::Conv:
      if (launch.kernel < 0 || launch.kernel >= (int)p.convs.size())
        return absl::InvalidArgumentError(
            absl::StrCat("launch ", i, ": no conv ", launch.kernel));
      break;
    default:
      return absl::InvalidArgumentError(absl::StrCat(
          "launch ", i, ": unknown kind ", static_cast<int>(launch.kind)));
    }
    for (int b : launch.buffers)
      if (b < 0 || b >= n)
        return absl::InvalidArgumentError(
            absl::StrCat("launch ", i, ": no buffer ", b));
  }
  for (size_t i = 0; i < p.matmuls.size(); ++i)
    if (auto status = checkMatmul(*executable, i); !status.ok())
      return status;
  for (size_t i = 0; i < p.convs.size(); ++i)
    if (auto status = checkConv(*executable, i); !status.ok())
      return status;
  for (size_t i = 0; i < p.results.size(); ++i)
    if (p.results[i] < 0 || p.results[i] >= n)
      return absl::InvalidArgumentError(
          absl::StrCat("result ", i, ": no buffer ", p.results[i]));
  if (!p.resultSpecs.empty()) {
    if (p.resultSpecs.size() != p.results.size())
      return absl::InvalidArgumentError(
          absl::StrCat(p.resultSpecs.size(), " result specs for ",
                       p.results.size(), " results"));
    for (size_t i = 0; i < p.results.size(); ++i)
      if (p.resultSpecs[i].byteSize() >
          executable->bufferSpec(p.results[i]).byteSize())
        return absl::InvalidArgumentError(
            absl::StrCat("result ", i, ": ", p.resultSpecs[i].describe(),
                         " does not fit buffer ", p.results[i], " (",
                         executable->bufferSpec(p.results[i]).describe(), ")"));
  }
  return executable;
}

std::string DeviceExecutable::describe() const {
  std::string text;
  auto buffer = [&](int b) {
    return absl::StrCat("b", b, ":", bufferSpec(b).describe());
  };
  for (const Launch &launch : program.launches) {
    switch (launch.kind) {
    case Launch::Kind::Kernel: {
      std::vector<std::string> args;
      for (int b : launch.buffers)
        args.push_back(buffer(b));
      absl::StrAppend(&text, "launch ", program.kernels[launch.kernel].name,
                      " <<<", launch.grid, ", ", launch.block, ">>> (",
                      absl::StrJoin(args, ", "), ")\n");
      break;
    }
    case Launch::Kind::Matmul: {
      const MatmulCall &call = program.matmuls[launch.kernel];
      std::vector<std::string> args = {absl::StrCat("A ", buffer(call.a)),
                                       absl::StrCat("B ", buffer(call.b))};
      if (call.c >= 0)
        args.push_back(absl::StrCat("C ", buffer(call.c)));
      if (call.bias >= 0)
        args.push_back(absl::StrCat("bias ", buffer(call.bias)));
      absl::StrAppend(&text, call.describe(), " (", absl::StrJoin(args, ", "),
                      ") -> ", buffer(call.d), "\n");
      break;
    }
    case Launch::Kind::Conv: {
      const ConvCall &call = program.convs[launch.kernel];
      std::vector<std::string> args = {absl::StrCat("x ", buffer(call.x)),
                                       absl::StrCat("w ", buffer(call.filter))};
      if (call.bias >= 0)
        args.push_back(absl::StrCat("bias ", buffer(call.bias)));
      if (call.z >= 0)
        args.push_back(absl::StrCat("z ", buffer(call.z)));
      absl::StrAppend(&text, call.describe(), " (", absl::StrJoin(args, ", "),
                      ") -> ", buffer(call.y), "\n");
      break;
    }
    }
  }
  std::vector<std::string> results;
  for (int b : program.results)
    results.push_back(absl::StrCat("b", b));
  absl::StrAppend(&text, "results: ", absl::StrJoin(results, ", "), "\n");
  return text;
}

//===----------------------------------------------------------------------===//
// DeviceExecutable: running
//===----------------------------------------------------------------------===//

absl::Status DeviceExecutable::prepare(Device &device) {
  if (boundDevice == &device)
    return absl::OkStatus();
  if (boundDevice)
    return absl::FailedPreconditionError(
        "a CUDA executable runs on the device it first ran on");
  if (auto status = device.makeCurrent(); !status.ok())
    return status;
  // Built aside and kept only when everything succeeds, so that a failed
  // prepare leaves nothing behind and a later call starts over.
  auto created = device.createStream();
  if (!created.ok())
    return created.status();
  std::unique_ptr<Stream> newStream = std::move(*created);
  std::vector<void *> newFunctions;
  std::vector<DevicePtr> newConstants;
  std::vector<std::unique_ptr<BlasMatmul>> newMatmuls(program.matmuls.size());
  std::vector<std::unique_ptr<DnnConv>> newConvs(program.convs.size());
  size_t newWorkspace = 0;
  DevicePtr newStatus = 0;
  std::vector<int> newSlots;
  int numSlots = 0;
  for (const KernelImage &kernel : program.kernels)
    newSlots.push_back(kernel.checks.empty() ? -1 : numSlots++);
  auto fail = [&](absl::Status status) {
    (void)newStream->synchronize();
    newMatmuls.clear();
    newConvs.clear();
    for (DevicePtr ptr : newConstants)
      device.pool().free(ptr);
    if (newStatus)
      device.pool().free(newStatus);
    return status;
  };
  if (numSlots > 0) {
    auto ptr = device.pool().allocate(16 * static_cast<size_t>(numSlots));
    if (!ptr.ok())
      return fail(ptr.status());
    newStatus = *ptr;
  }
  for (const KernelImage &kernel : program.kernels) {
    auto function =
        device.kernels().getFunctionFromImage(kernel.image, kernel.name);
    if (!function.ok() && !kernel.fallbackImage.empty())
      function = device.kernels().getFunctionFromImage(kernel.fallbackImage,
                                                       kernel.name);
    if (!function.ok())
      return fail(function.status());
    newFunctions.push_back(*function);
  }
  for (const HostTensor &constant : program.constants) {
    auto ptr = device.pool().allocate(constant.byteSize());
    if (!ptr.ok())
      return fail(ptr.status());
    newConstants.push_back(*ptr);
    // The spec owns the host data, which outlives the copy.
    if (auto status =
            newStream->copyToDevice(*ptr, constant.data(), constant.byteSize());
        !status.ok())
      return fail(status);
  }
  // Library plans for the calls the steps use: cuBLASLt and cuDNN are only
  // loaded by plans that have such steps.
  for (const Launch &launch : program.launches) {
    const size_t i = static_cast<size_t>(launch.kernel);
    if (launch.kind == Launch::Kind::Matmul && !newMatmuls[i]) {
      auto plan = BlasMatmul::create(device, program.matmuls[i]);
      if (!plan.ok())
        return fail(plan.status());
      newWorkspace = std::max(newWorkspace, (*plan)->workspaceBytes());
      newMatmuls[i] = std::move(*plan);
    } else if (launch.kind == Launch::Kind::Conv && !newConvs[i]) {
      auto plan = DnnConv::create(device, *newStream, program.convs[i]);
      if (!plan.ok())
        return fail(plan.status());
      newWorkspace = std::max(newWorkspace, (*plan)->workspaceBytes());
      newConvs[i] = std::move(*plan);
    }
  }
  stream = std::move(newStream);
  functions = std::move(newFunctions);
  constantBuffers = std::move(newConstants);
  matmulPlans = std::move(newMatmuls);
  convPlans = std::move(newConvs);
  workspaceBytes = newWorkspace;
  statusBuffer = newStatus;
  statusSlots = std::move(newSlots);
  statusZeros.assign(2 * static_cast<size_t>(numSlots), 0);
  statusHost.assign(2 * static_cast<size_t>(numSlots), 0);
  boundDevice = &device;
  return absl::OkStatus();
}

absl::Status DeviceExecutable::enqueueSteps(Device &device,
                                            std::vector<DevicePtr> &buffers,
                                            std::vector<DevicePtr> &owned) {
  buffers.insert(buffers.end(), constantBuffers.begin(), constantBuffers.end());
  for (const TensorSpec &spec : program.intermediates) {
    auto ptr = device.pool().allocate(spec.byteSize());
    if (!ptr.ok())
      return ptr.status();
    owned.push_back(*ptr);
    buffers.push_back(*ptr);
  }
  DevicePtr workspace = 0;
  if (workspaceBytes > 0) {
    auto ptr = device.pool().allocate(workspaceBytes);
    if (!ptr.ok())
      return ptr.status();
    owned.push_back(*ptr);
    workspace = *ptr;
  }
  if (statusBuffer)
    if (auto status = stream->copyToDevice(statusBuffer, statusZeros.data(),
                                           8 * statusZeros.size());
        !status.ok())
      return status;
  auto optional = [&](int b) { return b >= 0 ? buffers[b] : DevicePtr(0); };
  for (const Launch &launch : program.launches) {
    absl::Status status;
    switch (launch.kind) {
    case Launch::Kind::Kernel: {
      std::vector<DevicePtr> values;
      for (int b : launch.buffers)
        values.push_back(buffers[b]);
      if (int slot = statusSlots[launch.kernel]; slot >= 0)
        values.push_back(statusBuffer + 16 * static_cast<DevicePtr>(slot));
      std::vector<void *> params;
      for (DevicePtr &value : values)
        params.push_back(&value);
      status = stream->launch(functions[launch.kernel], launch.grid,
                              launch.block, launch.sharedBytes, params.data());
      break;
    }
    case Launch::Kind::Matmul: {
      const MatmulCall &call = program.matmuls[launch.kernel];
      status = matmulPlans[launch.kernel]->enqueue(
          stream->handle(), buffers[call.a], buffers[call.b], optional(call.c),
          optional(call.bias), buffers[call.d], workspace, workspaceBytes);
      break;
    }
    case Launch::Kind::Conv: {
      const ConvCall &call = program.convs[launch.kernel];
      status = convPlans[launch.kernel]->enqueue(
          stream->handle(), buffers[call.x], buffers[call.filter],
          optional(call.bias), optional(call.z), buffers[call.y], workspace,
          workspaceBytes);
      break;
    }
    }
    if (!status.ok())
      return status;
  }
  return absl::OkStatus();
}

absl::Status DeviceExecutable::enqueueStatusRead() {
  if (!statusBuffer)
    return absl::OkStatus();
  return stream->copyToHost(statusHost.data(), statusBuffer,
                            8 * statusHost.size());
}

absl::Status DeviceExecutable::checkStatus() const {
  if (!statusBuffer)
    return absl::OkStatus();
  for (const Launch &launch : program.launches) {
    if (launch.kind != Launch::Kind::Kernel)
      continue;
    const int slot = statusSlots[launch.kernel];
    if (slot < 0 || statusHost[2 * slot] == 0)
      continue;
    const std::vector<std::string> &checks =
        program.kernels[launch.kernel].checks;
    const uint64_t id = statusHost[2 * slot] - 1;
    const int64_t value = static_cast<int64_t>(statusHost[2 * slot + 1]);
    if (id >= checks.size())
      return absl::InternalError(
          absl::StrCat("kernel ", program.kernels[launch.kernel].name,
                       " reported an unknown check ", id));
    return absl::OutOfRangeError(
        absl::StrReplaceAll(checks[id], {{"%v", absl::StrCat(value)}}));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>>
DeviceExecutable::run(Device &device, const std::vector<HostTensor> &args) {
  if (args.size() != program.inputs.size())
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", program.inputs.size(), " arguments, got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i].dtype() != program.inputs[i].dtype ||
        args[i].shape() != program.inputs[i].shape)
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, " is ", args[i].describe(),
                       ", expected ", program.inputs[i].describe()));

  std::lock_guard<std::mutex> lock(mutex);
  if (auto status = prepare(device); !status.ok())
    return status;
  if (auto status = device.makeCurrent(); !status.ok())
    return status;

  // Device addresses of every buffer; what this call allocates goes back to
  // the pool at the end (after the synchronization).
  std::vector<DevicePtr> buffers;
  std::vector<DevicePtr> owned;
  auto release = [&] {
    for (DevicePtr ptr : owned)
      device.pool().free(ptr);
  };
  auto fail = [&](absl::Status status) {
    // Wait for enqueued work before the buffers can be reused.
    (void)stream->synchronize();
    release();
    return status;
  };
  for (size_t i = 0; i < args.size(); ++i) {
    auto ptr = device.pool().allocate(args[i].byteSize());
    if (!ptr.ok())
      return fail(ptr.status());
    owned.push_back(*ptr);
    buffers.push_back(*ptr);
    if (auto status =
            stream->copyToDevice(*ptr, args[i].data(), args[i].byteSize());
        !status.ok())
      return fail(status);
  }
  if (auto status = enqueueSteps(device, buffers, owned); !status.ok())
    return fail(status);
  std::vector<HostTensor> results;
  for (size_t r = 0; r < program.results.size(); ++r) {
    const int b = program.results[r];
    TensorSpec spec =
        program.resultSpecs.empty() ? bufferSpec(b) : program.resultSpecs[r];
    auto tensor = HostTensor::allocateUninitialized(spec.dtype, spec.shape);
    if (!tensor.ok())
      return fail(tensor.status());
    if (auto status =
            stream->copyToHost(tensor->data(), buffers[b], spec.byteSize());
        !status.ok())
      return fail(status);
    results.push_back(std::move(*tensor));
  }
  if (auto status = enqueueStatusRead(); !status.ok())
    return fail(status);
  // The one synchronization of the call.
  absl::Status done = stream->synchronize();
  release();
  if (!done.ok())
    return done;
  if (absl::Status checked = checkStatus(); !checked.ok())
    return checked;
  return results;
}

absl::StatusOr<std::vector<DeviceTensor>>
DeviceExecutable::runOnDevice(const std::vector<DeviceTensor> &args) {
  if (args.size() != program.inputs.size())
    return absl::InvalidArgumentError(absl::StrCat(
        "expected ", program.inputs.size(), " arguments, got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].valid())
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, " holds no device memory"));
    if (args[i].device() != args[0].device())
      return absl::InvalidArgumentError(absl::StrCat(
          "argument #", i, " is ", args[i].describe(), ", argument #0 is ",
          args[0].describe(), ": all arguments must be on one device"));
    if (args[i].dtype() != program.inputs[i].dtype ||
        args[i].shape() != program.inputs[i].shape)
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, " is ", args[i].describe(),
                       ", expected ", program.inputs[i].describe()));
  }

  std::lock_guard<std::mutex> lock(mutex);
  std::shared_ptr<Device> shared;
  if (!args.empty()) {
    shared = args[0].storage->device;
  } else {
    absl::StatusOr<std::shared_ptr<Device>> opened =
        openDevice(boundDevice ? boundDevice->ordinal() : 0);
    if (!opened.ok())
      return opened.status();
    shared = *opened;
  }
  Device &device = *shared;
  if (auto status = prepare(device); !status.ok())
    return status;
  if (auto status = device.makeCurrent(); !status.ok())
    return status;

  std::vector<DevicePtr> buffers;
  std::vector<DevicePtr> owned;
  for (const DeviceTensor &arg : args)
    buffers.push_back(arg.data());
  // Results are built (and own their blocks) as they are enqueued; on
  // failure they are dropped after the synchronization in `fail`.
  std::vector<DeviceTensor> results;
  auto release = [&] {
    for (DevicePtr ptr : owned)
      device.pool().free(ptr);
  };
  auto fail = [&](absl::Status status) {
    (void)stream->synchronize();
    release();
    results.clear();
    return status;
  };
  if (auto status = enqueueSteps(device, buffers, owned); !status.ok())
    return fail(status);
  const int firstIntermediate =
      static_cast<int>(program.inputs.size() + program.constants.size());
  std::vector<bool> handedOver(buffers.size(), false);
  for (size_t r = 0; r < program.results.size(); ++r) {
    const int b = program.results[r];
    TensorSpec spec =
        program.resultSpecs.empty() ? bufferSpec(b) : program.resultSpecs[r];
    if (b >= firstIntermediate && !handedOver[b]) {
      // This call's own block, holding nothing else the caller gets: the
      // result takes it over instead of a copy.
      handedOver[b] = true;
      if (auto it = std::find(owned.begin(), owned.end(), buffers[b]);
          it != owned.end())
        owned.erase(it);
      results.push_back(DeviceTensor::adopt(shared, buffers[b], spec));
      continue;
    }
    const size_t bytes = spec.byteSize();
    absl::StatusOr<DeviceTensor> copy =
        DeviceTensor::allocate(shared, std::move(spec));
    if (!copy.ok())
      return fail(copy.status());
    results.push_back(std::move(*copy));
    if (auto status =
            stream->copyOnDevice(results.back().data(), buffers[b], bytes);
        !status.ok())
      return fail(status);
  }
  if (auto status = enqueueStatusRead(); !status.ok())
    return fail(status);
  // The one synchronization of the call.
  absl::Status done = stream->synchronize();
  release();
  if (!done.ok()) {
    results.clear();
    return done;
  }
  if (absl::Status checked = checkStatus(); !checked.ok())
    return checked;
  return results;
}
