//===- Common.cpp - shared helpers of the CPU kernels ---------------------===//

#include "runtime/cpu/Common.h"

#include "absl/strings/str_cat.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <tuple>

namespace tgc::runtime::cpu::detail {

//===----------------------------------------------------------------------===//
// oneDNN basics
//===----------------------------------------------------------------------===//

absl::StatusOr<const dnnl::engine *> cpuEngine() {
  // Created once, on first use, and never destroyed (no static constructor
  // or destructor runs for it).
  static const dnnl::engine *engine = []() -> const dnnl::engine * {
    try {
      return new dnnl::engine(dnnl::engine::kind::cpu, 0);
    } catch (const dnnl::error &) {
      return nullptr;
    }
  }();
  if (!engine)
    return absl::UnavailableError("could not create the oneDNN CPU engine");
  return engine;
}

} // namespace tgc::runtime::cpu::detail

namespace tgc::runtime::cpu {

namespace {
bool hasIsa(dnnl_cpu_isa_t effective, dnnl_cpu_isa_t isa) {
  return (static_cast<unsigned>(effective) & static_cast<unsigned>(isa)) ==
         static_cast<unsigned>(isa);
}

const char *isaName(dnnl_cpu_isa_t isa) {
  switch (isa) {
  case dnnl_cpu_isa_sse41:
    return "sse41";
  case dnnl_cpu_isa_avx:
    return "avx";
  case dnnl_cpu_isa_avx2:
    return "avx2";
  case dnnl_cpu_isa_avx2_vnni:
    return "avx2_vnni";
  case dnnl_cpu_isa_avx512_mic:
    return "avx512_mic";
  case dnnl_cpu_isa_avx512_mic_4ops:
    return "avx512_mic_4ops";
  case dnnl_cpu_isa_avx512_core:
    return "avx512_core";
  case dnnl_cpu_isa_avx512_core_vnni:
    return "avx512_core_vnni";
  case dnnl_cpu_isa_avx512_core_bf16:
    return "avx512_core_bf16";
  case dnnl_cpu_isa_avx512_core_amx:
    return "avx512_core_amx";
  default:
    return "x86-64";
  }
}
} // namespace

const CpuIsa &cpuIsa() {
  // Determined once, on first use, and never destroyed.
  static const CpuIsa *isa = [] {
    auto *result = new CpuIsa;
    dnnl_cpu_isa_t effective = dnnl_get_effective_cpu_isa();
    result->name = isaName(effective);
    result->avx2 = hasIsa(effective, dnnl_cpu_isa_avx2);
    result->avx512 = hasIsa(effective, dnnl_cpu_isa_avx512_core);
    result->channelBlock = result->avx512 ? 16 : result->avx2 ? 8 : 0;
    result->winograd = result->avx512;
    result->bf16 = hasIsa(effective, dnnl_cpu_isa_avx512_core_bf16);
    result->vnni = hasIsa(effective, dnnl_cpu_isa_avx512_core_vnni) ||
                   hasIsa(effective, dnnl_cpu_isa_avx2_vnni);
    if (!result->avx512)
      result->disabledJitFeatures.push_back("avx512f");
    if (!result->avx2)
      for (const char *feature : {"avx2", "fma", "avx"})
        result->disabledJitFeatures.push_back(feature);
    return result;
  }();
  return *isa;
}

Int8WeightRule int8WeightRule(bool unsignedInput) {
  if (cpuIsa().vnni)
    return {127, 0};
  return unsignedInput ? Int8WeightRule{127, 128} : Int8WeightRule{63, 0};
}

std::string blockedLayoutName(int64_t channelBlock) {
  return absl::StrCat("nChw", channelBlock, "c");
}

} // namespace tgc::runtime::cpu

namespace tgc::runtime::cpu::detail {

std::optional<dnnl::memory::data_type> toDnnl(DType dtype) {
  using dt = dnnl::memory::data_type;
  switch (dtype) {
  case DType::F32:
    return dt::f32;
  case DType::F16:
    return dt::f16;
  case DType::BF16:
    return dt::bf16;
  case DType::I8:
    return dt::s8;
  case DType::I32:
    return dt::s32;
  default:
    return std::nullopt;
  }
}

absl::Status checkNativeDType(DType dtype, std::string_view what) {
  if (hasNativeTraits(dtype))
    return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("no native ", std::string(what),
                                               " kernel for ",
                                               std::string(dtypeName(dtype))));
}

absl::Status unimplementedFrom(const dnnl::error &error,
                               std::string_view what) {
  return absl::UnimplementedError(absl::StrCat(
      "oneDNN does not support this ", std::string(what), ": ", error.what()));
}

dnnl::memory::desc plainDesc(const Shape &shape, dnnl::memory::data_type type) {
  return stridedDesc(shape, rowMajorStrides(shape), type);
}

dnnl::memory::desc stridedDesc(const Shape &dims, const Shape &strides,
                               dnnl::memory::data_type type) {
  Dims d(dims.begin(), dims.end()), s(strides.begin(), strides.end());
  if (d.empty()) { // oneDNN has no rank-0 tensors.
    d = {1};
    s = {1};
  }
  return dnnl::memory::desc(d, type, s);
}

void useThreads(int numThreads) {
  if (numThreads > 0 && omp_get_max_threads() != numThreads)
    omp_set_num_threads(numThreads);
}

absl::Status execute(const dnnl::primitive &primitive,
                     const std::unordered_map<int, dnnl::memory> &args,
                     const KernelContext &context) {
  auto engine = cpuEngine();
  if (!engine.ok())
    return engine.status();
  useThreads(context.numThreads);
  try {
    dnnl::stream stream(**engine);
    primitive.execute(stream, args);
    stream.wait();
  } catch (const dnnl::error &error) {
    return absl::InternalError(
        absl::StrCat("oneDNN primitive failed: ", error.what()));
  }
  return absl::OkStatus();
}

bool splitsReductions(const char *impl) {
  std::string_view name(impl ? impl : "");
  return name.find("gemm:") != std::string_view::npos ||
         name.find("wino") != std::string_view::npos;
}

OneThreadScope::OneThreadScope(bool enable) {
  if (!enable)
    return;
  previous = omp_get_max_threads();
  omp_set_num_threads(1);
}

OneThreadScope::~OneThreadScope() {
  if (previous > 0)
    omp_set_num_threads(previous);
}

namespace {
thread_local bool threadInvariantKernels = false;
} // namespace

} // namespace tgc::runtime::cpu::detail

namespace tgc::runtime::cpu {
ThreadInvariantKernels::ThreadInvariantKernels(bool enable)
    : previous(detail::threadInvariantKernels) {
  detail::threadInvariantKernels = previous || enable;
}
ThreadInvariantKernels::~ThreadInvariantKernels() {
  detail::threadInvariantKernels = previous;
}
bool ThreadInvariantKernels::active() { return detail::threadInvariantKernels; }
} // namespace tgc::runtime::cpu

namespace tgc::runtime::cpu::detail {

dnnl::primitive_attr makeAttr() {
  dnnl::primitive_attr attr;
  attr.set_scratchpad_mode(dnnl::scratchpad_mode::user);
  return attr;
}

void *threadBuffer(ThreadBuffer which, size_t bytes) {
  struct Buffer {
    void *data = nullptr;
    size_t size = 0;
    ~Buffer() { std::free(data); }
  };
  thread_local Buffer buffers[2];
  Buffer &buffer = buffers[which == ThreadBuffer::Scratchpad ? 0 : 1];
  if (bytes > buffer.size) {
    std::free(buffer.data);
    size_t rounded = (bytes + 4095) / 4096 * 4096;
    buffer.data = std::aligned_alloc(4096, rounded);
    buffer.size = buffer.data ? rounded : 0;
  }
  return buffer.data;
}

dnnl::memory wrap(const dnnl::memory::desc &desc, const void *data) {
  // The engine exists: every kernel that calls wrap() created it.
  return dnnl::memory(desc, **cpuEngine(), const_cast<void *>(data));
}

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

namespace {
class FunctionKernel final : public Kernel {
public:
  FunctionKernel(std::string name, RunFn fn, int inPlaceInput)
      : kernelName(std::move(name)), fn(std::move(fn)),
        inPlaceInput(inPlaceInput) {}
  std::string_view name() const override { return kernelName; }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    return fn(context, inputs, outputs);
  }
  bool canRunInPlace(size_t index) const override {
    return inPlaceInput >= 0 && index == static_cast<size_t>(inPlaceInput);
  }

private:
  std::string kernelName;
  RunFn fn;
  int inPlaceInput;
};
} // namespace

KernelPtr makeKernel(std::string name, RunFn fn, int inPlaceInput) {
  return std::make_shared<FunctionKernel>(std::move(name), std::move(fn),
                                          inPlaceInput);
}

namespace {
class WrappingKernel final : public Kernel {
public:
  WrappingKernel(std::string name, KernelPtr inner, RunFn fn)
      : kernelName(std::move(name)), inner(std::move(inner)),
        fn(std::move(fn)) {}
  std::string_view name() const override { return kernelName; }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    return fn(context, inputs, outputs);
  }
  int64_t heldBytes() const override { return inner->heldBytes(); }
  bool readsInput(size_t index) const override {
    return inner->readsInput(index);
  }
  bool canUnpackConstant(size_t index, size_t bytes) const override {
    return inner->canUnpackConstant(index, bytes);
  }
  absl::Status unpackConstant(size_t index, HostTensor &into) const override {
    return inner->unpackConstant(index, into);
  }
  std::vector<DerivedConstant> derivedConstants() const override {
    return inner->derivedConstants();
  }

private:
  std::string kernelName;
  KernelPtr inner;
  RunFn fn;
};
} // namespace

KernelPtr makeWrappingKernel(std::string name, KernelPtr inner, RunFn fn) {
  return std::make_shared<WrappingKernel>(std::move(name), std::move(inner),
                                          std::move(fn));
}

namespace {
/// Whether any of bits[lo, hi) (floats as `Bits`, exponent mask `exponent`)
/// is NaN, or with `nonFinite` NaN or infinite. Without its sign, a float's
/// bits are above the exponent mask exactly when it is NaN (at it when
/// infinite), so the scan is a max reduction the compiler vectorizes.
template <typename Bits>
[[gnu::always_inline]] inline bool anySpecialBits(const Bits *bits, int64_t lo,
                                                  int64_t hi, Bits exponent,
                                                  bool nonFinite) {
  const Bits signless = static_cast<Bits>(~(Bits(1) << (sizeof(Bits) * 8 - 1)));
  Bits largest = 0;
  for (int64_t i = lo; i < hi; ++i) {
    Bits magnitude = static_cast<Bits>(bits[i] & signless);
    largest = magnitude > largest ? magnitude : largest;
  }
  return nonFinite ? largest >= exponent : largest > exponent;
}

// One clone per vector width, picked for the CPU when the library loads:
// the scan guards every NaN-sensitive oneDNN kernel (max pool, softmax,
// ...), and at SSE2 width it took longer than the kernels it guards
// (ResNet-50's max pool: 200 us of scan for 52 us of pooling).
#define TGC_SCAN_CLONES                                                        \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
TGC_SCAN_CLONES bool anySpecial16(const uint16_t *bits, int64_t lo, int64_t hi,
                                  uint16_t exponent, bool nonFinite) {
  return anySpecialBits(bits, lo, hi, exponent, nonFinite);
}
TGC_SCAN_CLONES bool anySpecial32(const uint32_t *bits, int64_t lo, int64_t hi,
                                  uint32_t exponent, bool nonFinite) {
  return anySpecialBits(bits, lo, hi, exponent, nonFinite);
}
TGC_SCAN_CLONES bool anySpecial64(const uint64_t *bits, int64_t lo, int64_t hi,
                                  uint64_t exponent, bool nonFinite) {
  return anySpecialBits(bits, lo, hi, exponent, nonFinite);
}
#undef TGC_SCAN_CLONES

bool anySpecial(const uint16_t *b, int64_t lo, int64_t hi, uint16_t e,
                bool nf) {
  return anySpecial16(b, lo, hi, e, nf);
}
bool anySpecial(const uint32_t *b, int64_t lo, int64_t hi, uint32_t e,
                bool nf) {
  return anySpecial32(b, lo, hi, e, nf);
}
bool anySpecial(const uint64_t *b, int64_t lo, int64_t hi, uint64_t e,
                bool nf) {
  return anySpecial64(b, lo, hi, e, nf);
}

/// Whether any of `count` floats of `Bits` (exponent mask `exponent`) is
/// NaN, or any is NaN or infinite.
template <typename Bits>
bool scanBits(const void *data, int64_t count, Bits exponent, bool nonFinite,
              int numThreads) {
  const Bits *bits = static_cast<const Bits *>(data);
  std::atomic<bool> found{false};
  parallelRange(numThreads, count, 1 << 16, [&](int64_t lo, int64_t hi) {
    if (anySpecial(bits, lo, hi, exponent, nonFinite))
      found.store(true, std::memory_order_relaxed);
  });
  return found.load();
}

class NaNGuardedKernel final : public Kernel {
public:
  using Factory = std::function<absl::StatusOr<KernelPtr>()>;
  NaNGuardedKernel(KernelPtr fast, Factory makeExact, std::vector<int> scanned,
                   NaNGuardScan scan)
      : fast(std::move(fast)), makeExact(std::move(makeExact)),
        scanned(std::move(scanned)), scan(scan) {}
  std::string_view name() const override { return fast->name(); }
  bool canRunInPlace(size_t index) const override {
    // The exact kernel is not known yet: in place only where the fast
    // one's input is its first (eltwise, softmax: the natives allow it).
    return fast->canRunInPlace(index) && inPlaceExact;
  }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    for (int i : scanned) {
      if (i < 0 || static_cast<size_t>(i) >= inputs.size() ||
          !hasSpecialValues(inputs[static_cast<size_t>(i)], scan,
                            context.numThreads))
        continue;
      std::call_once(once, [&] {
        if (unpacked >= 0) {
          // The constant's own bytes may be gone (the plan let them go:
          // `fast` packed them): its values from that packed copy.
          const HostTensor &given = inputs[static_cast<size_t>(unpacked)];
          auto copy =
              HostTensor::allocateUninitialized(given.dtype(), given.shape());
          if (!copy.ok()) {
            exactError = copy.status();
            return;
          }
          if (absl::Status status =
                  fast->unpackConstant(static_cast<size_t>(unpacked), *copy);
              !status.ok()) {
            exactError = status;
            return;
          }
          unpackedValue = *std::move(copy);
        }
        auto made = makeExact();
        if (made.ok())
          exact = *made;
        else
          exactError = made.status();
      });
      if (!exact)
        return exactError;
      if (unpacked < 0)
        return exact->run(context, inputs, outputs);
      std::vector<HostTensor> withConstant = inputs;
      withConstant[static_cast<size_t>(unpacked)] = unpackedValue;
      return exact->run(context, withConstant, outputs);
    }
    return fast->run(context, inputs, outputs);
  }
  bool inPlaceExact = false;
  /// The constant input the exact kernel takes from `fast`'s packed copy
  /// (Kernel::unpackConstant), which the guard therefore does not read;
  /// -1: none.
  int unpacked = -1;
  bool readsInput(size_t index) const override {
    return unpacked < 0 || index != static_cast<size_t>(unpacked);
  }
  // The exact kernel is made on first need and then holds its own memory.
  int64_t heldBytes() const override { return fast->heldBytes(); }
  std::vector<DerivedConstant> derivedConstants() const override {
    return fast->derivedConstants();
  }

private:
  KernelPtr fast;
  Factory makeExact;
  std::vector<int> scanned;
  NaNGuardScan scan;
  mutable std::once_flag once;
  mutable KernelPtr exact;
  mutable HostTensor unpackedValue;
  mutable absl::Status exactError;
};
} // namespace

bool hasSpecialValues(const HostTensor &t, NaNGuardScan scan, int numThreads) {
  bool nonFinite = scan == NaNGuardScan::NonFinite;
  int64_t n = t.numElements();
  switch (t.dtype()) {
  case DType::F32:
    return scanBits<uint32_t>(t.data(), n, 0x7f800000u, nonFinite, numThreads);
  case DType::F64:
    return scanBits<uint64_t>(t.data(), n, 0x7ff0000000000000ull, nonFinite,
                              numThreads);
  case DType::F16:
    return scanBits<uint16_t>(t.data(), n, 0x7c00, nonFinite, numThreads);
  case DType::BF16:
    return scanBits<uint16_t>(t.data(), n, 0x7f80, nonFinite, numThreads);
  default:
    return false;
  }
}

KernelPtr makeNaNGuardedKernel(KernelPtr fast, KernelPtr exact,
                               std::vector<int> scanned, NaNGuardScan scan) {
  bool inPlace = true;
  for (size_t i = 0; i < 8; ++i)
    if (fast->canRunInPlace(i) && !exact->canRunInPlace(i))
      inPlace = false;
  auto kernel = std::make_shared<NaNGuardedKernel>(
      std::move(fast), [exact]() -> absl::StatusOr<KernelPtr> { return exact; },
      std::move(scanned), scan);
  kernel->inPlaceExact = inPlace;
  return kernel;
}

KernelPtr makeNaNGuardedKernel(KernelPtr fast,
                               std::function<absl::StatusOr<KernelPtr>()> exact,
                               std::vector<int> scanned, NaNGuardScan scan,
                               int unpackedConstant) {
  auto kernel = std::make_shared<NaNGuardedKernel>(
      std::move(fast), std::move(exact), std::move(scanned), scan);
  kernel->unpacked = unpackedConstant;
  return kernel;
}

absl::Status checkViewFits(std::string_view kernel, int index,
                           const HostTensor &input, int64_t minBytes) {
  if (minBytes <= 0 || static_cast<size_t>(minBytes) <= input.byteSize())
    return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      std::string(kernel), ": input ", index, " holds ", input.byteSize(),
      " bytes, its strided view reads ", minBytes));
}

KernelPtr makeNoOpKernel(std::string name) {
  return makeKernel(std::move(name),
                    [](const KernelContext &, const std::vector<HostTensor> &,
                       std::vector<HostTensor> &) { return absl::OkStatus(); });
}

namespace {
/// An input converted before the primitive runs (Binding::from).
struct StagedInput {
  size_t binding;
  dnnl::primitive convert;
  size_t offset; ///< in the thread's staging buffer
};

class PrimitiveKernel final : public Kernel {
public:
  PrimitiveKernel(PrimitiveKernelSpec spec, dnnl::memory::desc scratchpad,
                  std::vector<StagedInput> staged, size_t stagingBytes)
      : spec(std::move(spec)), scratchpad(scratchpad),
        scratchpadBytes(scratchpad.get_size()), staged(std::move(staged)),
        stagingBytes(stagingBytes) {
    // Made once: memory objects over the spec's own int32 and f32 values.
    for (const auto &[arg, values] : this->spec.int32Arguments)
      argumentMemories.emplace_back(
          arg, wrap(dnnl::memory::desc({static_cast<int64_t>(values.size())},
                                       dnnl::memory::data_type::s32,
                                       dnnl::memory::format_tag::x),
                    values.data()));
    for (const auto &[arg, value] : this->spec.f32Arguments)
      argumentMemories.emplace_back(
          arg, wrap(value.first, const_cast<float *>(value.second.data())));
  }
  std::string_view name() const override { return spec.name; }
  bool canRunInPlace(size_t index) const override {
    return spec.inPlaceInput >= 0 &&
           index == static_cast<size_t>(spec.inPlaceInput);
  }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    std::unordered_map<int, dnnl::memory> args;
    char *staging = nullptr;
    if (stagingBytes) {
      staging = static_cast<char *>(
          threadBuffer(ThreadBuffer::Staging, stagingBytes));
      if (!staging)
        return absl::ResourceExhaustedError(
            "cannot allocate the converted operands of a oneDNN primitive");
    }
    try {
      for (const Binding &b : spec.bindings) {
        const HostTensor &bound =
            b.input < 0 ? outputs[0] : inputs[static_cast<size_t>(b.input)];
        if (absl::Status fits =
                checkViewFits(spec.name, b.input, bound, b.minBytes);
            !fits.ok())
          return fits;
        const char *data =
            static_cast<const char *>(bound.data()) + b.offsetBytes;
        args.emplace(b.arg, wrap(b.from.data.ndims ? b.from : b.desc, data));
      }
      for (const StagedInput &s : staged) {
        const Binding &b = spec.bindings[s.binding];
        dnnl::memory to = wrap(b.desc, staging + s.offset);
        if (absl::Status status = execute(
                s.convert, {{DNNL_ARG_FROM, args.at(b.arg)}, {DNNL_ARG_TO, to}},
                context);
            !status.ok())
          return status;
        args[b.arg] = to;
      }
      if (scratchpadBytes) {
        void *buffer = threadBuffer(ThreadBuffer::Scratchpad, scratchpadBytes);
        if (!buffer)
          return absl::ResourceExhaustedError(
              "cannot allocate the oneDNN scratchpad");
        args.emplace(DNNL_ARG_SCRATCHPAD, wrap(scratchpad, buffer));
      }
    } catch (const dnnl::error &error) {
      return absl::InternalError(
          absl::StrCat("oneDNN memory creation failed: ", error.what()));
    }
    for (const auto &[arg, memory] : spec.constants)
      args.emplace(arg, memory);
    for (const auto &[arg, memory] : argumentMemories)
      args.emplace(arg, memory);
    if (spec.sumInput >= 0) {
      // The sum post-op adds what output 0 holds: the input, unless the
      // memory plan put the output over it already.
      const HostTensor &addend = inputs[static_cast<size_t>(spec.sumInput)];
      if (addend.data() != outputs[0].data()) {
        size_t bytes = spec.sumBytes >= 0
                           ? static_cast<size_t>(spec.sumBytes)
                           : std::min(addend.byteSize(), outputs[0].byteSize());
        const char *from = static_cast<const char *>(addend.data());
        char *to = static_cast<char *>(outputs[0].data());
        parallelRange(context.numThreads, static_cast<int64_t>(bytes), 1 << 16,
                      [&](int64_t lo, int64_t hi) {
                        std::memcpy(to + lo, from + lo,
                                    static_cast<size_t>(hi - lo));
                      });
      }
    }
    if ((spec.serial || (spec.work >= 0 && spec.work < kSerialWork)) &&
        context.numThreads != 1) {
      // One thread for this primitive; the next kernel sets its own count
      // (execute() does), and the caller's is restored here.
      int previous = omp_get_max_threads();
      KernelContext serial = context;
      serial.numThreads = 1;
      absl::Status s = execute(spec.primitive, args, serial);
      if (previous != 1)
        omp_set_num_threads(previous);
      if (!s.ok())
        return s;
    } else if (absl::Status s = execute(spec.primitive, args, context);
               !s.ok()) {
      return s;
    }
    if (spec.firstNativePostOp >= spec.postOps.size())
      return absl::OkStatus();
    std::vector<const HostTensor *> operands(spec.postOps.size(), nullptr);
    for (size_t i = 0; i < spec.postOps.size(); ++i)
      if (spec.postOpInputs[i] >= 0)
        operands[i] = &inputs[static_cast<size_t>(spec.postOpInputs[i])];
    return applyPostOpsNative(spec.postOps, spec.firstNativePostOp, operands,
                              outputs[0], context.numThreads);
  }

  int64_t heldBytes() const override {
    int64_t bytes = 0;
    for (const auto &[arg, memory] : spec.constants)
      if (!spec.constantsOwner) // borrowed from a mapped plan file otherwise
        bytes += static_cast<int64_t>(memory.get_desc().get_size());
    return bytes;
  }
  bool readsInput(size_t index) const override {
    if (spec.sumInput >= 0 && static_cast<size_t>(spec.sumInput) == index)
      return true;
    for (int input : spec.readAtRemake)
      if (input >= 0 && static_cast<size_t>(input) == index)
        return true;
    for (const Binding &b : spec.bindings)
      if (b.input >= 0 && static_cast<size_t>(b.input) == index)
        return true;
    for (size_t i = spec.firstNativePostOp; i < spec.postOpInputs.size(); ++i)
      if (spec.postOpInputs[i] >= 0 &&
          static_cast<size_t>(spec.postOpInputs[i]) == index)
        return true;
    return false;
  }
  bool canUnpackConstant(size_t index, size_t bytes) const override {
    const PrimitiveKernelSpec::PackedInput *packed = packedInput(index);
    return packed && packed->plain.get_size() == bytes;
  }
  absl::Status unpackConstant(size_t index, HostTensor &into) const override {
    const PrimitiveKernelSpec::PackedInput *packed = packedInput(index);
    auto held = packed
                    ? std::find_if(spec.constants.begin(), spec.constants.end(),
                                   [&](const auto &constant) {
                                     return constant.first == packed->arg;
                                   })
                    : spec.constants.end();
    if (held == spec.constants.end() ||
        packed->plain.get_size() != into.byteSize())
      return absl::InternalError(
          absl::StrCat("no packed copy of input ", index, " to unpack"));
    auto engine = cpuEngine();
    if (!engine.ok())
      return engine.status();
    try {
      dnnl::memory packedCopy = held->second;
      dnnl::memory plain(packed->plain, **engine, into.data());
      dnnl::stream stream(**engine);
      dnnl::reorder(packedCopy, plain).execute(stream, packedCopy, plain);
      stream.wait();
      return absl::OkStatus();
    } catch (const dnnl::error &error) {
      return absl::InternalError(
          absl::StrCat("cannot unpack input ", index, ": ", error.what()));
    }
  }
  std::vector<DerivedConstant> derivedConstants() const override {
    std::vector<DerivedConstant> derived;
    for (const auto &[arg, memory] : spec.constants) {
      dnnl::memory::desc desc = memory.get_desc();
      derived.push_back({std::string(reinterpret_cast<const char *>(&desc.data),
                                     sizeof(desc.data)),
                         memory.get_data_handle(), desc.get_size()});
    }
    return derived;
  }

private:
  const PrimitiveKernelSpec::PackedInput *packedInput(size_t index) const {
    for (const PrimitiveKernelSpec::PackedInput &p : spec.packedInputs)
      if (p.input >= 0 && static_cast<size_t>(p.input) == index)
        return &p;
    return nullptr;
  }

  PrimitiveKernelSpec spec;
  dnnl::memory::desc scratchpad;
  size_t scratchpadBytes;
  std::vector<StagedInput> staged;
  size_t stagingBytes;
  std::vector<std::pair<int, dnnl::memory>> argumentMemories;
};
} // namespace

KernelPtr makePrimitiveKernel(PrimitiveKernelSpec spec) {
  if (spec.postOpInputs.size() < spec.postOps.size())
    spec.postOpInputs.resize(spec.postOps.size(), -1);
  dnnl::memory::desc scratchpad;
  const_dnnl_primitive_desc_t pd = nullptr;
  if (dnnl_primitive_get_primitive_desc(spec.primitive.get(), &pd) ==
          dnnl_success &&
      pd) {
    if (const dnnl_memory_desc_t *md =
            dnnl_primitive_desc_query_md(pd, dnnl_query_scratchpad_md, 0))
      scratchpad = dnnl::memory::desc(*md);
  }
  // Staged inputs: the bound input holds `from`, the primitive reads `desc`.
  std::vector<StagedInput> staged;
  size_t stagingBytes = 0;
  for (size_t i = 0; i < spec.bindings.size(); ++i) {
    const Binding &b = spec.bindings[i];
    if (b.from.data.ndims == 0)
      continue;
    // Throws dnnl::error where oneDNN cannot convert (the callers' catch).
    const dnnl::engine &engine = **cpuEngine();
    dnnl::primitive_attr attr = makeAttr();
    if (!b.fromScales.empty())
      attr.set_output_scales(b.fromScalesMask, b.fromScales);
    else if (b.fromScale != 1)
      attr.set_output_scales(0, {b.fromScale});
    if (b.fromZeroPoint != 0)
      attr.set_zero_points(DNNL_ARG_DST, 0, {b.fromZeroPoint});
    dnnl::reorder::primitive_desc convert(engine, b.from, engine, b.desc, attr);
    staged.push_back({i, dnnl::reorder(convert), stagingBytes});
    stagingBytes += (b.desc.get_size() + 63) / 64 * 64;
  }
  return std::make_shared<PrimitiveKernel>(std::move(spec), scratchpad,
                                           std::move(staged), stagingBytes);
}

std::vector<int> postOpInputIndices(const std::vector<PostOp> &postOps,
                                    int firstInput) {
  std::vector<int> indices;
  for (const PostOp &p : postOps)
    indices.push_back(p.kind == PostOp::Kind::Eltwise ? -1 : firstInput++);
  return indices;
}

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

std::string shapeString(const Shape &shape) {
  if (shape.empty())
    return "scalar";
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i)
    absl::StrAppend(&s, i ? "x" : "", shape[i]);
  return s;
}

absl::Status checkShape(const Shape &shape, std::string_view what) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(what), " has a negative dim: ", shapeString(shape)));
    if (d && n > INT64_MAX / d)
      return absl::InvalidArgumentError(absl::StrCat(
          std::string(what), " is too large: ", shapeString(shape)));
    n *= d;
  }
  return absl::OkStatus();
}

//===----------------------------------------------------------------------===//
// Eltwise
//===----------------------------------------------------------------------===//

std::optional<dnnl::algorithm> eltwiseAlgorithm(EltwiseKind kind, double &alpha,
                                                double &beta, bool reluAsMax) {
  using E = EltwiseKind;
  using A = dnnl::algorithm;
  switch (kind) {
  case E::Relu:
    // eltwise_relu computes alpha * x below zero: -0 for a negative x,
    // where relu gives +0, and rsqrt or a division then tell them apart
    // (tgc-smith seed 13000 index 95). clip(x, 0, inf) returns the +0 it
    // is given (same kernels, one more instruction).
    if (reluAsMax) {
      alpha = beta = 0;
      return A::eltwise_relu;
    }
    alpha = 0;
    beta = std::numeric_limits<double>::infinity();
    return A::eltwise_clip;
  case E::LeakyRelu:
    beta = 0;
    return A::eltwise_relu;
  case E::Elu:
    beta = 0;
    return A::eltwise_elu;
  case E::Tanh:
    return A::eltwise_tanh;
  case E::Sigmoid:
    return A::eltwise_logistic;
  case E::Exp:
    return A::eltwise_exp;
  // Log runs natively: oneDNN's eltwise_log is off by about 1e-6 near 1
  // (log(1) = -1.4e-6), outside ONNX's atol of 1e-7.
  case E::Sqrt:
    return A::eltwise_sqrt;
  case E::Abs:
    return A::eltwise_abs;
  // Neg runs natively: eltwise_linear's -1 * x + 0 makes -0 of +0 but +0
  // of -0 (-0 + 0), where negation flips the sign, and rsqrt(-0) is -inf
  // (tgc-smith seed 9128 index 11873).
  case E::Clamp:
    return A::eltwise_clip;
  case E::GeluErf:
    return A::eltwise_gelu_erf;
  case E::GeluTanh:
    return A::eltwise_gelu_tanh;
  case E::Round:
    return A::eltwise_round; // nearest, ties to even (vroundps / nearbyint)
  case E::Square:
    return A::eltwise_square;
  case E::Swish:
    alpha = 1;
    return A::eltwise_swish;
  case E::HardSwish:
    return A::eltwise_hardswish;
  case E::Mish:
    return A::eltwise_mish;
  case E::Linear:
    return A::eltwise_linear;
  default:
    return std::nullopt;
  }
}

bool eltwisePropagatesNaN(EltwiseKind kind) {
  using E = EltwiseKind;
  return kind != E::Relu && kind != E::Clamp && kind != E::Exp;
}

bool eltwiseSupportsIntegers(EltwiseKind kind) {
  using E = EltwiseKind;
  return kind == E::Relu || kind == E::Neg || kind == E::Abs ||
         kind == E::Clamp || kind == E::Sign || kind == E::Square;
}

namespace {

template <typename T>
absl::Status eltwiseNativeTyped(EltwiseKind kind, double alpha, double beta,
                                const void *in, void *out, int64_t count,
                                int numThreads) {
  using S = typename T::S;
  using C = typename T::C;
  const S *src = static_cast<const S *>(in);
  S *dst = static_cast<S *>(out);
  if constexpr (T::isFloat) {
    C a = static_cast<C>(alpha), b = static_cast<C>(beta);
    dispatchEltwise(kind, [&](auto k) {
      constexpr EltwiseKind K = decltype(k)::value;
      parallelRange(numThreads, count, 16384, [&](int64_t lo, int64_t hi) {
        for (int64_t i = lo; i < hi; ++i)
          dst[i] = T::store(eltwiseFloat<K, C>(T::load(src[i]), a, b));
      });
    });
    return absl::OkStatus();
  } else {
    using E = EltwiseKind;
    if (!eltwiseSupportsIntegers(kind))
      return absl::UnimplementedError("eltwise kind not defined for integers");
    unsigned bits = dtypeBits(T::dtype);
    int64_t lo = scalar::attrToInt(alpha, bits);
    int64_t hi = scalar::attrToInt(beta, bits);
    parallelRange(numThreads, count, 16384, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        int64_t x = T::load(src[i]);
        uint64_t ux = static_cast<uint64_t>(x);
        int64_t y;
        switch (kind) {
        case E::Relu:
          y = x > 0 ? x : 0;
          break;
        case E::Neg:
          y = static_cast<int64_t>(0 - ux);
          break;
        case E::Abs:
          y = x < 0 ? static_cast<int64_t>(0 - ux) : x;
          break;
        case E::Clamp:
          y = std::clamp(x, lo, hi);
          break;
        case E::Sign:
          y = scalar::sign(x);
          break;
        default: // Square
          y = static_cast<int64_t>(ux * ux);
          break;
        }
        dst[i] = T::store(y);
      }
    });
    return absl::OkStatus();
  }
}

} // namespace

absl::Status eltwiseNative(EltwiseKind kind, DType dtype, double alpha,
                           double beta, const void *in, void *out,
                           int64_t count, int numThreads) {
  return dispatchDType(dtype, [&](auto t) {
    return eltwiseNativeTyped<decltype(t)>(kind, alpha, beta, in, out, count,
                                           numThreads);
  });
}

//===----------------------------------------------------------------------===//
// Post-ops
//===----------------------------------------------------------------------===//

dnnl::algorithm postOpBinaryAlgorithm(PostOp::Kind kind) {
  using A = dnnl::algorithm;
  switch (kind) {
  case PostOp::Kind::Add:
    return A::binary_add;
  case PostOp::Kind::Mul:
    return A::binary_mul;
  case PostOp::Kind::Max:
    return A::binary_max;
  case PostOp::Kind::Min:
    return A::binary_min;
  case PostOp::Kind::Sub:
    return A::binary_sub;
  case PostOp::Kind::Div:
    return A::binary_div;
  case PostOp::Kind::Eltwise:
    break;
  }
  return A::undef;
}

absl::Status checkPostOps(const std::vector<PostOp> &postOps,
                          const Shape &resultShape) {
  for (const PostOp &p : postOps) {
    if (p.kind == PostOp::Kind::Eltwise)
      continue;
    if (!broadcastsTo(p.operandShape, resultShape))
      return absl::InvalidArgumentError(absl::StrCat(
          "post-op operand ", shapeString(p.operandShape),
          " does not broadcast to the result ", shapeString(resultShape)));
  }
  return absl::OkStatus();
}

size_t fusablePostOps(const std::vector<PostOp> &postOps) {
  size_t n = 0;
  // oneDNN 2.6's jit post-op injectors (brgemm matmul at least) apply the
  // alpha/beta of the first eltwise post-op of an algorithm to later ones of
  // the same algorithm (linear 3, relu, linear 0.125 computes linear 3
  // twice): such a later one and what follows run natively.
  std::vector<std::tuple<dnnl::algorithm, float, float>> seen;
  for (const PostOp &p : postOps) {
    if (p.kind == PostOp::Kind::Eltwise) {
      double a = p.alpha, b = p.beta;
      auto alg = eltwiseAlgorithm(p.eltwise, a, b);
      if (!alg)
        break;
      auto params =
          std::tuple(*alg, static_cast<float>(a), static_cast<float>(b));
      if (std::any_of(seen.begin(), seen.end(), [&](const auto &q) {
            return std::get<0>(q) == std::get<0>(params) && q != params;
          }))
        break;
      seen.push_back(params);
    }
    ++n;
  }
  return n;
}

bool buildPostOps(const std::vector<PostOp> &postOps, size_t count,
                  const std::function<dnnl::memory::desc(size_t)> &operandDesc,
                  dnnl::post_ops &result, bool reluAsMax) {
  for (size_t i = 0; i < count; ++i) {
    const PostOp &p = postOps[i];
    if (p.kind == PostOp::Kind::Eltwise) {
      double a = p.alpha, b = p.beta;
      auto alg = eltwiseAlgorithm(p.eltwise, a, b, reluAsMax);
      if (!alg)
        return false;
      result.append_eltwise(1.0f, *alg, static_cast<float>(a),
                            static_cast<float>(b));
    } else {
      result.append_binary(postOpBinaryAlgorithm(p.kind), operandDesc(i));
    }
  }
  return true;
}

namespace {
template <typename T>
absl::Status binaryPostOpTyped(PostOp::Kind kind, const HostTensor &operand,
                               const Shape &operandShape, HostTensor &out,
                               int numThreads) {
  using S = typename T::S;
  using C = typename T::C;
  const S *b = static_cast<const S *>(operand.data());
  S *o = static_cast<S *>(out.data());
  BroadcastPlan<2> plan(out.shape(),
                        {rowMajorStrides(out.shape()),
                         broadcastStrides(operandShape, out.shape())});
  bool divByZero = false;
  parallelRange(numThreads, plan.total, 16384, [&](int64_t lo, int64_t hi) {
    plan.run(
        lo, hi, [&](int64_t, int64_t count, const auto &off, const auto &step) {
          S *x = o + off[0];
          const S *y = b + off[1];
          for (int64_t i = 0; i < count; ++i) {
            C l = T::load(x[i * step[0]]), r = T::load(y[i * step[1]]);
            C v;
            switch (kind) {
            case PostOp::Kind::Add:
              v = l + r;
              break;
            case PostOp::Kind::Sub:
              v = l - r;
              break;
            case PostOp::Kind::Mul:
              v = l * r;
              break;
            case PostOp::Kind::Div:
              if constexpr (T::isFloat) {
                v = l / r;
              } else {
                auto q = scalar::divInt(l, r, dtypeBits(T::dtype));
                if (!q)
                  divByZero = true;
                v = q ? *q : 0;
              }
              break;
            case PostOp::Kind::Max:
              if constexpr (T::isFloat)
                v = (std::isnan(l) || std::isnan(r)) ? l + r : (l > r ? l : r);
              else
                v = std::max(l, r);
              break;
            default:
              if constexpr (T::isFloat)
                v = (std::isnan(l) || std::isnan(r)) ? l + r : (l < r ? l : r);
              else
                v = std::min(l, r);
              break;
            }
            x[i * step[0]] = T::store(v);
          }
        });
  });
  if (divByZero)
    return absl::InvalidArgumentError(
        "integer division by zero or overflow in a post-op");
  return absl::OkStatus();
}
} // namespace

absl::Status applyPostOpsNative(const std::vector<PostOp> &postOps,
                                size_t first,
                                const std::vector<const HostTensor *> &operands,
                                HostTensor &out, int numThreads) {
  for (size_t i = first; i < postOps.size(); ++i) {
    const PostOp &p = postOps[i];
    absl::Status status;
    if (p.kind == PostOp::Kind::Eltwise) {
      status =
          eltwiseNative(p.eltwise, out.dtype(), p.alpha, p.beta, out.data(),
                        out.data(), out.numElements(), numThreads);
    } else {
      // The post-op's own operand shape says how it broadcasts (a conv2d
      // bias [O] is [1, O, 1, 1] against an NCHW result); the tensor holds
      // the same elements.
      const HostTensor &operand = *operands[i];
      const Shape &shape =
          !p.operandShape.empty() &&
                  numElements(p.operandShape) == operand.numElements()
              ? p.operandShape
              : operand.shape();
      status = dispatchDType(out.dtype(), [&](auto t) {
        return binaryPostOpTyped<decltype(t)>(p.kind, operand, shape, out,
                                              numThreads);
      });
    }
    if (!status.ok())
      return status;
  }
  return absl::OkStatus();
}

} // namespace tgc::runtime::cpu::detail
