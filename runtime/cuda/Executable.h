//===- Executable.h - a compiled function for one CUDA device ----*- C++
//-*-===//
//
// What codegen/cuda produces and the runtime runs: device buffers (the
// function's inputs, constants uploaded once, intermediates from the pool),
// kernel images (PTX or cubin, compiled at compile time), library calls
// (cuBLASLt matmuls, Blas.h; cuDNN convolutions, Dnn.h; their descriptors
// and algorithms are prepared once, on the first call, and the libraries
// are loaded only by executables that have such steps), and a list of steps
// over the buffers. A call
//   1. copies the arguments to the device (host -> device, asynchronous;
//      runOnDevice takes device tensors instead),
//   2. enqueues every step on the executable's one stream (library calls
//      share one workspace block from the pool),
//   3. copies the results back (device -> host, asynchronous; runOnDevice
//      hands them over as device tensors) and returns intermediates to the
//      pool after
//   4. synchronizing the stream once.
// Host-device transfers happen only at this boundary. Calls are serialized
// per executable (one stream).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CUDA_EXECUTABLE_H
#define TGC_RUNTIME_CUDA_EXECUTABLE_H

#include "runtime/cuda/Device.h"
#include "tgc/AbslStatus.h"
#include "tgc/DeviceTensor.h"
#include "tgc/HostTensor.h"

#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace tgc::cuda {

struct KernelImage {
  std::string name;
  std::string image;
  /// Loaded when `image` does not load (a cubin for another GPU, or a
  /// driver too old for it): PTX the driver JIT-compiles. May be empty.
  std::string fallbackImage;
  /// The run-time checks the kernel makes (an index in range), by the id
  /// the kernel reports: "<location>: 'tgc.gather' op index %v is out of
  /// range [-5, 5)", %v standing for the offending value. A kernel with
  /// checks takes one more argument after its buffers: its status, two
  /// 64-bit words {check id + 1, value}, zero until a check fails (the
  /// first failure wins). A failed check fails the call with its message.
  std::vector<std::string> checks;
};

/// A (batched) matrix multiplication on cuBLASLt (Blas.h), row-major:
///   D[i] = epilogue(alpha * op(A[i]) * op(B[i]) + beta * C[i] + bias)
/// for i < batch, op(X) = X^T when trans is set (A is then stored k x m,
/// B n x k). The bias (length n, one value per output column) is added
/// before the activation, as cuBLASLt's BIAS epilogues do; C (the residual,
/// when `c` >= 0) has D's shape and strides.
///
/// int8 (dtype I8): D (i32) = A (i8, m x k) * B (i8, stored n x k)^T,
/// exact in int32 -- transA false, transB true, n and k multiples of 4,
/// batch 1, no C, no bias, no epilogue, alpha 1 (Blas.h, int8Violation).
struct MatmulCall {
  enum class Epilogue { None, Relu, Gelu, Bias, BiasRelu, BiasGelu };
  /// The element type of A and B, and of C, D and the bias except for int8
  /// (outputDType()): f32, f16 or bf16 (accumulated in f32), or i8
  /// (accumulated in int32).
  runtime::DType dtype = runtime::DType::F32;
  /// The element type of C, D and the bias: I32 for an I8 call, else
  /// `dtype`.
  runtime::DType outputDType() const {
    return dtype == runtime::DType::I8 ? runtime::DType::I32 : dtype;
  }
  int64_t batch = 1, m = 1, n = 1, k = 1;
  bool transA = false, transB = false;
  /// Elements between consecutive matrices of the batch; 0 broadcasts one
  /// matrix to every batch (strideD is never 0 when batch > 1).
  int64_t strideA = 0, strideB = 0, strideC = 0, strideD = 0;
  /// Gelu is the tanh approximation (cuBLASLt's GELU epilogue).
  Epilogue epilogue = Epilogue::None;
  float alpha = 1, beta = 0;
  /// Lets f32 matmuls use TF32 tensor cores (faster, ~1e-3 relative error);
  /// off by default: results track the reference interpreter.
  bool allowTf32 = false;
  /// Buffers; `c` and `bias` are -1 when absent (beta must then be 0, and
  /// the epilogue must not add a bias).
  int a = -1, b = -1, c = -1, bias = -1, d = -1;
  /// "matmul 8x(128x768 * 768x2304) +bias relu"; "matmul 5x12 * (8x12)^T
  /// int8 (s32 out)".
  std::string describe() const;
};

/// A 2-D convolution on cuDNN (Dnn.h):
///   y = act(conv(x, w) + alpha2 * z + bias)
/// NCHW (filter KCRS, i.e. OIHW) or NHWC (filter KRSC, i.e. OHWI): the
/// compiler hands the filter over in cuDNN's order. Padding is symmetric
/// (the compiler pads asymmetric inputs with a kernel first).
///
/// int8 (dtype I8, cuDNN's INT8_EXT_CONFIG): x and the filter are i8, y is
/// f32, accumulated in int32 (exact up to f32's rounding of the sums) --
/// NHWC only, c and k multiples of 4, one group, no bias, no z, no relu
/// (Dnn.h, int8Violation).
struct ConvCall {
  /// The element type of x and the filter, and of y, z and the bias except
  /// for int8 (outputDType()): f32, f16, bf16 or i8.
  runtime::DType dtype = runtime::DType::F32;
  /// The element type of y, z and the bias: F32 for an I8 call, else
  /// `dtype`.
  runtime::DType outputDType() const {
    return dtype == runtime::DType::I8 ? runtime::DType::F32 : dtype;
  }
  bool nhwc = false;
  int64_t n = 1, c = 1, h = 1, w = 1; ///< input
  int64_t k = 1, r = 1, s = 1;        ///< output channels, filter size
  int64_t groups = 1;
  int64_t padH = 0, padW = 0, strideH = 1, strideW = 1, dilationH = 1,
          dilationW = 1;
  int64_t outH = 1, outW = 1;
  /// ReLU after the bias and residual (cuDNN's fused conv-bias-activation);
  /// otherwise no activation.
  bool relu = false;
  /// The scale of the residual `z` (used when z >= 0).
  float alpha2 = 1;
  bool allowTf32 = false;
  /// Buffers: input, filter, bias (k values; -1: none), residual (y's
  /// shape; -1: none), output.
  int x = -1, filter = -1, bias = -1, z = -1, y = -1;
  /// "conv 1x64x56x56 * 64x64x3x3 pad 1 stride 1 -> 1x64x56x56 +bias +z relu";
  /// "conv nhwc 1x6x6x8 * 4x3x3x8 pad 1 stride 1 -> 1x6x6x4 int8 (f32 out)".
  std::string describe() const;
};

/// One step of the plan: a generated kernel launch, or a library call.
/// Every kernel takes only device pointers (static shapes are baked into
/// the code), one per entry of `buffers`.
struct Launch {
  /// Kernel: index into ExecutableSpec::kernels; Matmul / Conv: index into
  /// ExecutableSpec::matmuls / convs.
  int kernel = 0;
  /// Kernels only: the launch configuration.
  unsigned grid = 1, block = 256, sharedBytes = 0;
  /// Kernels: their arguments. Library calls name their buffers in their
  /// MatmulCall / ConvCall; `buffers` may list them too (checked to be in
  /// range, otherwise unused).
  std::vector<int> buffers;
  /// Last, so that `{kernel, grid, block, sharedBytes, buffers}` still
  /// initializes a kernel launch.
  enum class Kind { Kernel, Matmul, Conv };
  Kind kind = Kind::Kernel;
};

/// Buffers are numbered inputs first, then constants, then intermediates.
struct ExecutableSpec {
  std::vector<TensorSpec> inputs;
  std::vector<runtime::HostTensor> constants;
  std::vector<TensorSpec> intermediates;
  std::vector<KernelImage> kernels;
  std::vector<Launch> launches;
  std::vector<MatmulCall> matmuls;
  std::vector<ConvCall> convs;
  /// The buffer each result is copied back from.
  std::vector<int> results;
  /// Optional, one per result: the dtype and shape it is copied back as (a
  /// view of the first bytes of its buffer: a reshape, or an intermediate
  /// buffer shared by values of several shapes). Empty: the buffer's own.
  std::vector<TensorSpec> resultSpecs;
};

class BlasMatmul;
class DnnConv;

class DeviceExecutable {
public:
  ~DeviceExecutable();

  /// Checks the spec: every buffer, kernel, matmul and conv index in range,
  /// every result an input, constant or intermediate of the right size;
  /// library calls: dtypes (f32, f16, bf16; i8 within the int8 paths'
  /// limits, with i32 (matmul) or f32 (conv) outputs), shapes, buffers
  /// large enough for their (strided) operands, outputs that are
  /// intermediates and do not alias their inputs, a C for beta != 0, a bias
  /// for the bias epilogues.
  static absl::StatusOr<std::unique_ptr<DeviceExecutable>>
  create(ExecutableSpec spec);

  const ExecutableSpec &spec() const { return program; }
  int numBuffers() const;
  TensorSpec bufferSpec(int buffer) const;
  /// One line per step: "launch k0 <<<grid, block>>> (b0:4xf32, b3:4xf32)",
  /// "matmul 128x768 * 768x2304 +bias relu (A b0:..., B b1:..., bias
  /// b2:...) -> b3:...", "conv ... (x b0:..., w b1:...) -> b2:...", then
  /// "results: b3".
  std::string describe() const;

  /// Runs on `device` (the executable binds to the first device it runs
  /// on): one stream, one synchronization.
  absl::StatusOr<std::vector<runtime::HostTensor>>
  run(Device &device, const std::vector<runtime::HostTensor> &args);

  /// Runs on the device the arguments live on (the bound device, or device
  /// 0, when there are none), without host transfers: the results stay on
  /// the device. Still one synchronization per call (so that the results
  /// are complete when it returns). Results never alias the arguments, the
  /// constants or each other: an intermediate buffer that holds a result is
  /// handed over to it (the first result it holds; intermediates are fresh
  /// pool blocks each call), anything else is copied on the device into a
  /// fresh block.
  absl::StatusOr<std::vector<DeviceTensor>>
  runOnDevice(const std::vector<DeviceTensor> &args);

private:
  explicit DeviceExecutable(ExecutableSpec spec);
  /// Binds to `device` on the first call: stream, kernels, constants,
  /// library plans (cuBLASLt / cuDNN are loaded only when the plan has such
  /// steps).
  absl::Status prepare(Device &device);
  /// Enqueues every step. `buffers` holds the inputs' addresses on entry and
  /// every buffer's on return; what it allocates (intermediates, the
  /// workspace) is appended to `owned`.
  absl::Status enqueueSteps(Device &device, std::vector<DevicePtr> &buffers,
                            std::vector<DevicePtr> &owned);
  /// Enqueues the copy of the kernels' status words to the host (nothing
  /// when no kernel makes checks); checkStatus reads it after the call's
  /// synchronization: the first failed check, in launch order, as an error.
  absl::Status enqueueStatusRead();
  absl::Status checkStatus() const;

  ExecutableSpec program;
  std::mutex mutex;
  Device *boundDevice = nullptr;
  std::unique_ptr<Stream> stream;
  std::vector<void *> functions;
  /// Device copies of the constants (owned, from the pool).
  std::vector<DevicePtr> constantBuffers;
  /// One per ExecutableSpec::matmuls / convs entry that a step uses.
  std::vector<std::unique_ptr<BlasMatmul>> matmulPlans;
  std::vector<std::unique_ptr<DnnConv>> convPlans;
  /// The most workspace one library call needs (one pool block per call).
  size_t workspaceBytes = 0;
  /// Kernels with checks: their status words (16 bytes each, by
  /// statusSlots[kernel], -1 for kernels without checks), zeroed at the
  /// start of every call, and the host copy read after it.
  DevicePtr statusBuffer = 0;
  std::vector<int> statusSlots;
  std::vector<uint64_t> statusZeros, statusHost;
};

} // namespace tgc::cuda

#endif // TGC_RUNTIME_CUDA_EXECUTABLE_H
