//===- Function.h - traced functions: tgc::function -------------*- C++ -*-===//
//
// tgc::function wraps a C++ callable written over symbolic tgc::Tensors. Each
// call maps its arguments to a TraceType; the specialization cache decides
// whether an existing specialization serves it or the callable is traced
// again; the specialization runs on its target device (FunctionOptions::
// device: the CPU backend by default, the reference interpreter, or a CUDA
// device) and the results come back in the structure the callable returned.
//
//   auto f = tgc::function([](Tensor x, Tensor w) { return relu(x * w); });
//   absl::StatusOr<HostTensor> y = (*f)(x, w);
//
//   FunctionOptions options;
//   options.device = *Device::parse("cuda:0");   // key: (..., @cuda:0)
//   auto g = tgc::function(callable, options);
//
// Arguments: runtime::HostTensor (becomes a symbolic Tensor), tracing::
// TensorSpec (a placeholder, for concrete functions), scalars (baked into the
// trace), and std containers of these (vector, array, tuple, pair, optional,
// map, unordered_map) nested to any depth. See docs/tracing.md.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_FRONTEND_FUNCTION_H
#define TGC_FRONTEND_FUNCTION_H

#include "codegen/cpu/Compiler.h"
#include "codegen/reference/Interpreter.h"
#include "frontend/Structure.h"
#include "frontend/Tensor.h"
#include "frontend/Tracer.h"
#include "frontend/Variable.h"
#include "runtime/HostTensor.h"
#include "runtime/StridedView.h"
#include "runtime/cuda/Executable.h"
#include "tracing/Device.h"
#include "tracing/SpecializationCache.h"
#include "tracing/TraceTraits.h"
#include "tracing/TraceType.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "mlir/IR/MLIRContext.h"

#include <algorithm>
#include <any>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <typeindex>
#include <vector>

namespace tgc {

namespace cuda {
struct CompiledFunction;
} // namespace cuda

namespace tracing {
/// A strided view is keyed like the dense tensor it stands for.
template <> struct TraceTraits<runtime::StridedView> {
  static TraceType traceType(const runtime::StridedView &view) {
    return TraceType::tensor(
        TensorSpec{view.dtype(), view.shape(), false, "cpu"});
  }
};
/// A device tensor is keyed by dtype, shape and placement ("cuda:0"): never
/// equal to a host tensor of the same type.
template <> struct TraceTraits<cuda::DeviceTensor> {
  static TraceType traceType(const cuda::DeviceTensor &tensor) {
    return TraceType::tensor(TensorSpec{
        tensor.dtype(), tensor.shape(), false,
        tensor.device() ? Device::cuda(tensor.device()->ordinal()).str()
                        : "cuda:?"});
  }
};
/// A TensorSpec argument is a placeholder: the TraceType it stands for.
template <> struct TraceTraits<TensorSpec> {
  static TraceType traceType(const TensorSpec &spec) {
    return TraceType::tensor(spec);
  }
};
} // namespace tracing

struct FunctionOptions {
  /// Name of the traced func.func (and of the function in messages).
  std::string name = "traced";
  /// How specializations run: compiled for the CPU (oneDNN primitives and
  /// native kernels), on the reference interpreter (on the CPU), or compiled
  /// for a CUDA device (generated kernels; Backend::Cuda alone means cuda:0).
  enum class Backend { Cpu, Reference, Cuda } backend = Backend::Cpu;
  /// Where specializations run (Device::parse("cuda:1")). A CUDA device
  /// selects Backend::Cuda. A CUDA target is part of every key (the
  /// signatures end in "@cuda:0"); the device is opened on the first call
  /// (no GPU or driver: that call fails with "no CUDA device: ...").
  Device device;
  /// Intra-op threads for the CPU backend (0: TGC_NUM_THREADS or all cores).
  int numThreads = 0;
  /// The CPU backend compiles with the `tgc-cpu` pipeline (layout, batch-norm
  /// folding, post-op and loop fusion); false: `tgc-cpu-unfused`. TGC_FUSION=0
  /// also turns fusion off.
  bool fuse = true;
  /// Inter-op parallelism for the CPU backend: run up to this many
  /// independent kernels at once (1: in order).
  int interOpThreads = 1;
  /// When set, calls must match these specs (one tensor argument each,
  /// kDynamic dims accept any size); they never retrace.
  std::optional<std::vector<tracing::TensorSpec>> inputSignature;
  /// On a miss, trace the common supertype of the call and the existing
  /// specializations (varying dims become dynamic).
  bool reduceRetracing = false;
  /// Most unpinned specializations kept (least recently used are evicted).
  size_t maxSpecializations = 64;
  /// Log every trace with its reason.
  bool verbose = false;
  /// Where verbose logs and frequent-retracing warnings go (default: stderr).
  std::function<void(const std::string &)> log;
  /// Host tensors captured by reference: read on every call, their types
  /// part of the key (after the arguments), read in the callable with
  /// CaptureRef::read().
  std::vector<CaptureRef> captures;
};

/// What a specialization is and how it has been used.
struct SpecializationInfo {
  std::string signature;
  std::string reason;
  uint64_t hits = 0;
  double traceSeconds = 0;
  bool pinned = false;
  /// The traced module (with `loc(...)` locations when asked).
  std::function<std::string(bool withLocations)> printModule;
};

namespace detail {

/// The symbolic counterpart of an argument type.
template <typename T, typename = void> struct Symbolic {
  using type = T; // scalars and other baked-in values pass through
};
template <> struct Symbolic<runtime::HostTensor> { using type = Tensor; };
template <> struct Symbolic<tracing::TensorSpec> { using type = Tensor; };
template <> struct Symbolic<Variable> { using type = VariableRef; };
template <> struct Symbolic<runtime::StridedView> { using type = Tensor; };
template <> struct Symbolic<cuda::DeviceTensor> { using type = Tensor; };
template <typename T>
using SymbolicT = typename Symbolic<std::remove_cvref_t<T>>::type;
template <typename T, typename A> struct Symbolic<std::vector<T, A>> {
  using type = std::vector<SymbolicT<T>>;
};
template <typename T, size_t N> struct Symbolic<std::array<T, N>> {
  using type = std::array<SymbolicT<T>, N>;
};
template <typename... Ts> struct Symbolic<std::tuple<Ts...>> {
  using type = std::tuple<SymbolicT<Ts>...>;
};
template <typename A, typename B> struct Symbolic<std::pair<A, B>> {
  using type = std::pair<SymbolicT<A>, SymbolicT<B>>;
};
template <typename T> struct Symbolic<std::optional<T>> {
  using type = std::optional<SymbolicT<T>>;
};
template <typename K, typename V, typename C, typename A>
struct Symbolic<std::map<K, V, C, A>> {
  using type = std::map<K, SymbolicT<V>, C>;
};
template <typename K, typename V, typename H, typename E, typename A>
struct Symbolic<std::unordered_map<K, V, H, E, A>> {
  using type = std::unordered_map<K, SymbolicT<V>, H, E>;
};

/// Map entries in TraceType key order: the order tensor leaves are numbered
/// in, whatever the container's own iteration order.
template <typename M> auto sortedEntries(const M &map) {
  std::vector<std::pair<tracing::TraceType, const typename M::value_type *>>
      entries;
  for (const auto &entry : map)
    entries.emplace_back(tracing::traceTypeOf(entry.first), &entry);
  std::sort(entries.begin(), entries.end(),
            [](const auto &a, const auto &b) { return a.first < b.first; });
  return entries;
}

/// Whether an argument of type T holds cuda::DeviceTensors (directly or in
/// containers): calls with such arguments return device-resident results.
template <typename T> struct HoldsDeviceTensor : std::false_type {};
template <typename T>
inline constexpr bool kHoldsDeviceTensor =
    HoldsDeviceTensor<std::remove_cvref_t<T>>::value;
template <> struct HoldsDeviceTensor<cuda::DeviceTensor> : std::true_type {};
template <typename T, typename A>
struct HoldsDeviceTensor<std::vector<T, A>>
    : std::bool_constant<kHoldsDeviceTensor<T>> {};
template <typename T, size_t N>
struct HoldsDeviceTensor<std::array<T, N>>
    : std::bool_constant<kHoldsDeviceTensor<T>> {};
template <typename... Ts>
struct HoldsDeviceTensor<std::tuple<Ts...>>
    : std::bool_constant<(kHoldsDeviceTensor<Ts> || ...)> {};
template <typename A, typename B>
struct HoldsDeviceTensor<std::pair<A, B>>
    : std::bool_constant<kHoldsDeviceTensor<A> || kHoldsDeviceTensor<B>> {};
template <typename T>
struct HoldsDeviceTensor<std::optional<T>>
    : std::bool_constant<kHoldsDeviceTensor<T>> {};
template <typename K, typename V, typename C, typename A>
struct HoldsDeviceTensor<std::map<K, V, C, A>>
    : std::bool_constant<kHoldsDeviceTensor<V>> {};
template <typename K, typename V, typename H, typename E, typename A>
struct HoldsDeviceTensor<std::unordered_map<K, V, H, E, A>>
    : std::bool_constant<kHoldsDeviceTensor<V>> {};

/// The tensor type of a call's results: device tensors when any argument
/// holds one, host tensors otherwise.
template <typename... Args>
using ResultLeafT = std::conditional_t<(kHoldsDeviceTensor<Args> || ...),
                                       cuda::DeviceTensor, runtime::HostTensor>;

/// The tensors a call feeds to a specialization, in TraceType order, and
/// the variables among them (in order of occurrence).
struct CallInputs {
  /// One per tensor leaf (an empty placeholder for a device tensor).
  std::vector<runtime::HostTensor> tensors;
  /// The device tensors among them: (index into `tensors`, tensor).
  std::vector<std::pair<size_t, cuda::DeviceTensor>> deviceTensors;
  std::vector<Variable> variables;
  /// Set when an argument could not be turned into a dense tensor.
  absl::Status error;
};

/// Appends the inputs of `value` in TraceType order.
template <typename T> void collectInputs(const T &value, CallInputs &out) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, runtime::HostTensor>) {
    out.tensors.push_back(value);
  } else if constexpr (std::is_same_v<U, runtime::StridedView>) {
    // Non-contiguous views are packed at the call boundary.
    auto dense = value.dense();
    if (!dense.ok() && out.error.ok())
      out.error = dense.status();
    out.tensors.push_back(dense.ok() ? *std::move(dense)
                                     : runtime::HostTensor());
  } else if constexpr (std::is_same_v<U, cuda::DeviceTensor>) {
    if (!value.valid() && out.error.ok())
      out.error = absl::InvalidArgumentError(
          "tgc: an argument is an empty (default-constructed) DeviceTensor");
    out.deviceTensors.emplace_back(out.tensors.size(), value);
    out.tensors.emplace_back();
  } else if constexpr (std::is_same_v<U, Variable>) {
    out.tensors.push_back(value.value());
    out.variables.push_back(value);
  } else if constexpr (IsTupleOrPair<U>::value) {
    std::apply([&](const auto &...e) { (collectInputs(e, out), ...); }, value);
  } else if constexpr (IsStdVector<U>::value || IsStdArray<U>::value) {
    for (const auto &e : value)
      collectInputs(e, out);
  } else if constexpr (IsStdOptional<U>::value) {
    if (value)
      collectInputs(*value, out);
  } else if constexpr (IsStdMap<U>::value) {
    for (const auto &entry : sortedEntries(value))
      collectInputs(entry.second->second, out);
  }
}

/// Alias class of each variable occurrence: the index of the first
/// occurrence with the same storage.
std::vector<int64_t> aliasClasses(const std::vector<Variable> &variables);

/// `type` with its variable leaves given `classes` (in occurrence order).
tracing::TraceType withAliasClasses(const tracing::TraceType &type,
                                    llvm::ArrayRef<int64_t> classes);

/// What makeSymbolic consumes while building the callable's arguments.
struct SymbolicInputs {
  llvm::ArrayRef<Tensor> leaves;
  size_t pos = 0;
  llvm::ArrayRef<int64_t> aliasClasses;
  size_t variable = 0;
  /// One state per alias class (indexed by the class).
  std::vector<std::shared_ptr<SymbolicVariableState>> states;
};

/// Builds the symbolic argument for `value`, taking tensors from `in`.
template <typename T>
SymbolicT<T> makeSymbolic(const T &value, SymbolicInputs &in) {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, runtime::HostTensor> ||
                std::is_same_v<U, runtime::StridedView> ||
                std::is_same_v<U, cuda::DeviceTensor> ||
                std::is_same_v<U, tracing::TensorSpec>) {
    return in.pos < in.leaves.size() ? in.leaves[in.pos++] : Tensor();
  } else if constexpr (std::is_same_v<U, Variable>) {
    Tensor initial = in.pos < in.leaves.size() ? in.leaves[in.pos++] : Tensor();
    size_t occurrence = in.variable++;
    int64_t cls = occurrence < in.aliasClasses.size()
                      ? in.aliasClasses[occurrence]
                      : static_cast<int64_t>(occurrence);
    if (in.states.size() <= static_cast<size_t>(cls))
      in.states.resize(cls + 1);
    if (!in.states[cls]) {
      in.states[cls] = std::make_shared<SymbolicVariableState>();
      in.states[cls]->initial = initial;
      in.states[cls]->current = initial;
    }
    VariableRef ref;
    ref.state = in.states[cls];
    return ref;
  } else if constexpr (IsTupleOrPair<U>::value) {
    return std::apply(
        [&](const auto &...e) { return SymbolicT<T>{makeSymbolic(e, in)...}; },
        value);
  } else if constexpr (IsStdVector<U>::value) {
    SymbolicT<T> result;
    for (const auto &e : value)
      result.push_back(makeSymbolic(e, in));
    return result;
  } else if constexpr (IsStdArray<U>::value) {
    SymbolicT<T> result;
    for (size_t i = 0; i < value.size(); ++i)
      result[i] = makeSymbolic(value[i], in);
    return result;
  } else if constexpr (IsStdOptional<U>::value) {
    if (!value)
      return SymbolicT<T>();
    return SymbolicT<T>(makeSymbolic(*value, in));
  } else if constexpr (IsStdMap<U>::value) {
    SymbolicT<T> result;
    for (const auto &entry : sortedEntries(value))
      result.emplace(entry.second->first,
                     makeSymbolic(entry.second->second, in));
    return result;
  } else {
    return value;
  }
}

/// The tensor specs of a TraceType's tensor leaves, in order.
void collectTensorSpecs(const tracing::TraceType &type,
                        std::vector<tracing::TensorSpec> &out);

/// One compiled specialization.
struct Compiled {
  TracedModule traced;
  /// The value the callable returned while tracing (its structure), and the
  /// type it has, checked on every call.
  std::any structure;
  std::type_index structureType = typeid(void);
  /// Results of the callable; the function returns them first.
  size_t numOutputs = 0;
  /// Then the final value of each assigned variable, by alias class (the
  /// occurrence index of its first occurrence).
  std::vector<int64_t> variableWrites;
  /// Where it runs (the key's target).
  Device target;
  /// CPU backend: the plan of a specialization with static shapes, compiled
  /// when it is traced; specializations with dynamic dims compile one plan
  /// per set of input shapes on first use.
  std::shared_ptr<const cpu::CompiledFunction> staticPlan;
  mutable std::mutex planMutex;
  mutable std::map<std::vector<std::vector<int64_t>>,
                   std::shared_ptr<const cpu::CompiledFunction>>
      plans;
  /// CUDA backend: the same, compiled for the target device's arch.
  std::shared_ptr<const cuda::CompiledFunction> cudaStaticPlan;
  mutable std::map<std::vector<std::vector<int64_t>>,
                   std::shared_ptr<const cuda::CompiledFunction>>
      cudaPlans;
};

/// State shared by copies of a Function.
struct FunctionState {
  explicit FunctionState(FunctionOptions options);
  FunctionOptions options;
  mlir::MLIRContext context;
  tracing::SpecializationCache<Compiled> cache;
  std::optional<tracing::TraceType> signature;
  std::source_location location;

  absl::Status checkSignature(const tracing::TraceType &call) const;
  /// The cache key: the arguments' TraceType followed by the types of the
  /// captures (read now) and, unless it is the CPU, the target device
  /// (TraceType::target).
  tracing::TraceType cacheKey(const tracing::TraceType &argsType) const;
  /// The target CUDA device, opened (once per process). Errors name the
  /// function and the target: "tgc: function 'f' targets cuda:0: no CUDA
  /// device: ...", or say that this build has no CUDA code generation.
  absl::StatusOr<std::shared_ptr<cuda::Device>> openTarget() const;
  /// Checks what a call needs before its specialization is looked up (and
  /// perhaps traced): every tensor argument on the host or on the target
  /// device, and a CUDA target's device.
  absl::Status checkCall(const tracing::TraceType &argsType) const;
  /// Every tensor argument on the host or on the target device: "tgc:
  /// function 'f' runs on the cpu but arg0 is a tensor on cuda:0 (...)".
  absl::Status checkPlacement(const tracing::TraceType &argsType) const;
  /// Compiles a specialization whose argument shapes are all static for its
  /// target (CPU or CUDA; errors come back as tracing errors).
  llvm::Error compileStatic(Compiled &compiled) const;
  /// Runs a specialization on the call's inputs, writes assigned variables
  /// back, and returns the callable's results.
  absl::StatusOr<std::vector<runtime::HostTensor>>
  execute(const Compiled &compiled, const CallInputs &inputs) const;
  /// The same on a CUDA target with device-resident results: device tensor
  /// arguments are used in place, host ones are copied in first.
  absl::StatusOr<std::vector<cuda::DeviceTensor>>
  executeOnDevice(const Compiled &compiled, const CallInputs &inputs) const;
  std::vector<SpecializationInfo> specializations() const;
};

/// Validates an input signature.
absl::Status validateSignature(const std::vector<tracing::TensorSpec> &specs);

/// Validates `options` (input signature, cache size, device and backend) and
/// makes the device and the backend agree: a CUDA device selects
/// Backend::Cuda, Backend::Cuda with the CPU device targets cuda:0.
absl::Status normalizeOptions(FunctionOptions &options);

/// Whether this build of tgc compiles for CUDA (TGC_ENABLE_CUDA).
bool hasCudaCodegen();

absl::Status toStatus(llvm::Error error);

} // namespace detail

/// A traced function. Cheap to copy; copies share the cache. Thread-safe.
template <typename F> class Function {
public:
  Function(F callable, std::shared_ptr<detail::FunctionState> state)
      : callable(std::make_shared<F>(std::move(callable))),
        state(std::move(state)) {}

  /// Calls the function: finds or traces the specialization for the
  /// arguments, runs it, and returns the results in the structure the
  /// callable returned: host tensors, or cuda::DeviceTensors on the target
  /// device when any argument is a device tensor (no host round trip).
  template <typename... Args>
  auto operator()(const Args &...args) const -> absl::StatusOr<
      StructureT<std::invoke_result_t<F &, detail::SymbolicT<Args>...>,
                 detail::ResultLeafT<Args...>>> {
    using R = std::invoke_result_t<F &, detail::SymbolicT<Args>...>;
    using Leaf = detail::ResultLeafT<Args...>;
    detail::CallInputs inputs;
    std::vector<int64_t> classes;
    tracing::TraceType argsType = prepare(inputs, classes, args...);
    if (!inputs.error.ok())
      return inputs.error;
    if (auto status = state->checkCall(argsType); !status.ok())
      return status;
    auto entry = lookup<R>(argsType, classes, args...);
    if (!entry.ok())
      return entry.status();
    const detail::Compiled &compiled = *(*entry)->payload;
    if (compiled.structureType != std::type_index(typeid(R)))
      return absl::InvalidArgumentError(
          "tgc: '" + state->options.name +
          "' was traced for arguments of another C++ type with the same "
          "TraceType; call it with one argument structure");
    absl::StatusOr<std::vector<Leaf>> outputs;
    if constexpr (std::is_same_v<Leaf, cuda::DeviceTensor>)
      outputs = state->executeOnDevice(compiled, inputs);
    else
      outputs = state->execute(compiled, inputs);
    if (!outputs.ok())
      return outputs.status();
    size_t pos = 0;
    return unflattenOutputs(std::any_cast<const R &>(compiled.structure),
                            *outputs, pos);
  }

  /// The specialization for exactly these argument types (host tensors or
  /// TensorSpec placeholders), traced now if needed and pinned in the cache.
  /// Asking twice returns the same one.
  template <typename... Args>
  absl::StatusOr<SpecializationInfo> concreteFunction(const Args &...args) {
    using R = std::invoke_result_t<F &, detail::SymbolicT<Args>...>;
    detail::CallInputs inputs;
    std::vector<int64_t> classes;
    tracing::TraceType type = prepare(inputs, classes, args...);
    if (auto status = state->checkSignature(type); !status.ok())
      return status;
    if (auto status = state->checkPlacement(type); !status.ok())
      return status;
    auto entry = state->cache.getConcrete(state->cacheKey(type),
                                          builder<R>(classes, args...));
    if (!entry)
      return detail::toStatus(entry.takeError());
    for (SpecializationInfo &info : state->specializations())
      if (info.signature == (*entry)->type.str())
        return info;
    return absl::InternalError("tgc: concrete function not in the cache");
  }

  /// How many traces ran (successful or not).
  size_t tracingCount() const { return state->cache.traceCount(); }
  /// The specializations in the cache, oldest first.
  std::vector<SpecializationInfo> specializations() const {
    return state->specializations();
  }
  /// Every trace with its reason, oldest first.
  std::vector<tracing::TraceEvent> history() const {
    return state->cache.history();
  }
  const FunctionOptions &options() const { return state->options; }

private:
  /// Collects the call's inputs (arguments, then captures) and variable
  /// alias classes; returns the arguments' TraceType.
  template <typename... Args>
  tracing::TraceType prepare(detail::CallInputs &inputs,
                             std::vector<int64_t> &classes,
                             const Args &...args) const {
    (detail::collectInputs(args, inputs), ...);
    for (const CaptureRef &capture : state->options.captures)
      inputs.tensors.push_back(capture.current());
    classes = detail::aliasClasses(inputs.variables);
    tracing::TraceType type = tracing::traceTypeOfArgs(args...);
    if (!classes.empty())
      type = detail::withAliasClasses(type, classes);
    return type;
  }

  template <typename R, typename... Args>
  absl::StatusOr<
      typename tracing::SpecializationCache<detail::Compiled>::EntryPtr>
  lookup(const tracing::TraceType &argsType,
         const std::vector<int64_t> &classes, const Args &...args) const {
    if (state->signature) {
      if (auto status = state->checkSignature(argsType); !status.ok())
        return status;
      auto entry = state->cache.getConcrete(state->cacheKey(*state->signature),
                                            builder<R>(classes, args...));
      if (!entry)
        return detail::toStatus(entry.takeError());
      return *entry;
    }
    auto entry = state->cache.getOrTrace(state->cacheKey(argsType),
                                         builder<R>(classes, args...));
    if (!entry)
      return detail::toStatus(entry.takeError());
    return *entry;
  }

  /// Traces the callable for a target type: tensor leaves get the target's
  /// specs (possibly relaxed); scalars and structure come from `args`.
  template <typename R, typename... Args>
  auto builder(const std::vector<int64_t> &classes, const Args &...args) const {
    return [this, &classes, &args...](const tracing::TraceType &target)
               -> llvm::Expected<std::shared_ptr<const detail::Compiled>> {
      std::vector<tracing::TensorSpec> specs;
      detail::collectTensorSpecs(target, specs);
      std::vector<ArgSpec> argSpecs;
      for (const tracing::TensorSpec &spec : specs) {
        if (spec.unknownRank)
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         "tgc: cannot trace '" +
                                             state->options.name +
                                             "' for a tensor of unknown rank");
        argSpecs.push_back(ArgSpec{spec.dtype, spec.shape});
      }
      auto compiled = std::make_shared<detail::Compiled>();
      compiled->target = state->options.device;
      detail::SymbolicInputs inputs;
      detail::CaptureScope captures;
      Tracer tracer(state->context);
      std::optional<R> structure;
      auto traced = tracer.trace(
          state->options.name, argSpecs,
          [&](llvm::ArrayRef<Tensor> leaves) -> std::vector<Tensor> {
            // Captures are the last leaves.
            size_t numCaptures =
                std::min(leaves.size(), state->options.captures.size());
            inputs.leaves = leaves.drop_back(numCaptures);
            inputs.aliasClasses = classes;
            for (size_t i = 0; i < numCaptures; ++i)
              captures.bound.emplace_back(
                  state->options.captures[i].id(),
                  leaves[leaves.size() - numCaptures + i]);
            captures.previous = detail::currentCaptureScope();
            detail::currentCaptureScope() = &captures;
            // Braced initialization keeps left-to-right order.
            auto symbolic = std::tuple<detail::SymbolicT<Args>...>{
                detail::makeSymbolic(args, inputs)...};
            structure.emplace(std::apply(*callable, symbolic));
            detail::currentCaptureScope() = captures.previous;
            std::vector<Tensor> results = flattenOutputs(*structure);
            for (auto [cls, variable] : llvm::enumerate(inputs.states)) {
              if (!variable || !variable->assigned)
                continue;
              results.push_back(variable->current);
              compiled->variableWrites.push_back(static_cast<int64_t>(cls));
            }
            return results;
          },
          state->location);
      // An undeclared capture is the root cause of the errors it poisons.
      if (!captures.error.empty()) {
        if (!traced)
          llvm::consumeError(traced.takeError());
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       captures.error);
      }
      if (!traced)
        return traced.takeError();
      for (const auto &variable : inputs.states)
        if (variable && !variable->error.empty())
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         variable->error);
      compiled->traced = std::move(*traced);
      if (auto error = state->compileStatic(*compiled))
        return std::move(error);
      compiled->numOutputs = flattenOutputs(*structure).size();
      compiled->structure = std::move(*structure);
      compiled->structureType = typeid(R);
      return std::shared_ptr<const detail::Compiled>(std::move(compiled));
    };
  }

  std::shared_ptr<F> callable;
  std::shared_ptr<detail::FunctionState> state;
};

/// Wraps `callable` into a traced function. Fails when the options are
/// invalid (e.g. a malformed input signature).
/// The location of the tgc::function call is the location of the traced
/// function, its arguments and its return.
template <typename F>
absl::StatusOr<Function<F>>
function(F callable, FunctionOptions options = {},
         std::source_location loc = std::source_location::current()) {
  if (auto status = detail::normalizeOptions(options); !status.ok())
    return status;
  auto state = std::make_shared<detail::FunctionState>(std::move(options));
  state->location = loc;
  return Function<F>(std::move(callable), std::move(state));
}

} // namespace tgc

#endif // TGC_FRONTEND_FUNCTION_H
