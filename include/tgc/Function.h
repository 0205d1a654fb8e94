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
//   StatusOr<HostTensor> y = (*f)(x, w);
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

#ifndef TGC_FUNCTION_H
#define TGC_FUNCTION_H

#include "tgc/Callback.h"
#include "tgc/Determinism.h"
#include "tgc/Device.h"
#include "tgc/DeviceTensor.h"
#include "tgc/Engine.h"
#include "tgc/HostTensor.h"
#include "tgc/Precision.h"
#include "tgc/StridedView.h"
#include "tgc/Structure.h"
#include "tgc/Tensor.h"
#include "tgc/TraceTraits.h"
#include "tgc/TraceType.h"
#include "tgc/Variable.h"

#include "tgc/Status.h"

#include <any>
#include <memory>
#include <optional>
#include <source_location>
#include <span>
#include <string>
#include <tuple>
#include <typeinfo>
#include <vector>

namespace tgc {

namespace tracing {
/// A strided view is keyed like the dense tensor it stands for.
template <> struct TraceTraits<runtime::StridedView> {
  static TraceType traceType(const runtime::StridedView &view) {
    return TraceType::tensor(
        TensorSpec{view.dtype(), view.shape(), false, "cpu"});
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
  /// The persistent compilation cache: a directory processes share (empty:
  /// TGC_CACHE_DIR, else none). The CPU backend keeps the machine code of
  /// its loop kernels there and loads it instead of compiling again.
  std::string cacheDir;
  /// The determinism contract of its plans (tgc/Determinism.h,
  /// docs/determinism.md): RunToRun or Strict; Default: TGC_DETERMINISTIC.
  Determinism deterministic = Determinism::Default;
  /// The precision policy of its plans (tgc/Precision.h,
  /// docs/precision.md): F32, BF16 or Auto; Default: TGC_PRECISION, else
  /// F32.
  Precision precision = Precision::Default;
  /// With precision Int8: the calibration table file its contractions'
  /// input scales come from (`tgc-run --calibration-table`,
  /// Model::calibrate); read when a plan compiles.
  std::string calibrationTable;
  /// Most plans a specialization with dynamic dims keeps (one per set of
  /// input shapes; the least recently used is dropped, and recompiled if a
  /// call needs it again).
  size_t maxPlansPerSpecialization = 16;
  /// Log every trace with its reason.
  bool verbose = false;
  /// Where verbose logs and frequent-retracing warnings go (default: stderr).
  Callback<void(const std::string &)> log;
  /// Host tensors and scalars captured by reference (CaptureRef::of): read
  /// on every call, a tensor's type or a scalar's value part of the key
  /// (after the arguments), read in the callable with CaptureRef::read() (or
  /// value<T>() for a scalar).
  std::vector<CaptureRef> captures;
};

/// What a specialization is and how it has been used.
struct SpecializationInfo {
  std::string signature;
  std::string reason;
  uint64_t hits = 0;
  double traceSeconds = 0;
  bool pinned = false;
  /// Plans compiled for it so far (one for static shapes; one per set of
  /// input shapes for dynamic dims, recompiles of dropped plans included),
  /// and the seconds they took.
  uint64_t compiles = 0;
  double compileSeconds = 0;
  /// Plans loaded from the persistent compilation cache instead of
  /// compiled (FunctionOptions::cacheDir), and the seconds that took.
  uint64_t plansLoaded = 0;
  double loadSeconds = 0;
  /// Plans it holds now, and the host memory they hold (constants,
  /// prepacked weights, a run's arena) in bytes.
  size_t plansHeld = 0;
  int64_t planBytes = 0;
  /// The traced module (with `loc(...)` locations when asked).
  Callback<std::string(bool withLocations)> printModule;
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
/// A string literal reaches the callable as a std::string (the characters
/// before the first NUL, as its String key).
template <size_t N> struct Symbolic<char[N]> { using type = std::string; };
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
template <typename M>
requires MapLike<M>
struct Symbolic<M> {
  using type = RebindMapT<M, SymbolicT<typename M::mapped_type>>;
};

/// Sorts `entries` by their TraceType (stable).
void sortByTraceType(
    std::vector<std::pair<tracing::TraceType, const void *>> &entries);

/// Map entries in TraceType key order: the order tensor leaves are numbered
/// in, whatever the container's own iteration order.
template <typename M> auto sortedEntries(const M &map) {
  std::vector<std::pair<tracing::TraceType, const void *>> keyed;
  for (const auto &entry : map)
    keyed.emplace_back(tracing::traceTypeOf(entry.first), &entry);
  sortByTraceType(keyed);
  std::vector<const typename M::value_type *> entries;
  entries.reserve(keyed.size());
  for (const auto &entry : keyed)
    entries.push_back(
        static_cast<const typename M::value_type *>(entry.second));
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
template <typename M>
requires MapLike<M>
struct HoldsDeviceTensor<M>
    : std::bool_constant<kHoldsDeviceTensor<typename M::mapped_type>> {
};

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
  Status error;
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
      out.error = Status(
          StatusCode::kInvalidArgument,
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
      collectInputs(entry->second, out);
  }
}

/// Alias class of each variable occurrence: the index of the first
/// occurrence with the same storage.
std::vector<int64_t> aliasClasses(const std::vector<Variable> &variables);

/// `type` with its variable leaves given `classes` (in occurrence order).
tracing::TraceType withAliasClasses(const tracing::TraceType &type,
                                    const std::vector<int64_t> &classes);

/// What makeSymbolic consumes while building the callable's arguments.
struct SymbolicInputs {
  std::span<const Tensor> leaves;
  size_t pos = 0;
  std::span<const int64_t> aliasClasses;
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
      result.emplace(entry->first, makeSymbolic(entry->second, in));
    return result;
  } else if constexpr (std::is_array_v<U>) {
    static_assert(std::is_same_v<std::remove_extent_t<U>, char>,
                  "arrays other than string literals are not arguments");
    size_t length = 0;
    while (length < std::extent_v<U> && value[length] != '\0')
      ++length;
    return std::string(value, length);
  } else {
    return value;
  }
}

/// What the callable produced while tracing: its results flattened, then the
/// final value of each assigned variable.
struct TraceOutputs {
  std::vector<Tensor> results;
  /// How many of `results` the callable returned.
  size_t numOutputs = 0;
  /// The alias class of each variable result (after the outputs).
  std::vector<int64_t> variableWrites;
  /// The first error recorded by VariableRef::assign, if any.
  std::string variableError;
  /// The value the callable returned (its structure).
  std::any structure;
};

/// Builds the callable's symbolic arguments from the argument leaves of a
/// trace (captures excluded) and calls it; used only during the call that
/// passes it (a cache hit calls nothing and allocates nothing for it).
using TraceBody = CallbackRef<TraceOutputs(std::span<const Tensor> leaves)>;

/// The state shared by copies of a Function, and one compiled specialization
/// (frontend/Function.h; opaque here).
struct FunctionState;
struct Compiled;
using CompiledPtr = std::shared_ptr<const Compiled>;

/// How many parameters a callable takes, or -1 where that is not one number
/// (a generic lambda, an overloaded call operator).
template <typename F, typename = void> struct CallableArity {
  static constexpr int value = -1;
};
template <typename R, typename... A> struct CallableArity<R (*)(A...)> {
  static constexpr int value = sizeof...(A);
};
template <typename R, typename... A>
struct CallableArity<R (*)(A...) noexcept> : CallableArity<R (*)(A...)> {};
template <typename M> struct MemberArity { static constexpr int value = -1; };
template <typename R, typename C, typename... A>
struct MemberArity<R (C::*)(A...)> {
  static constexpr int value = sizeof...(A);
};
template <typename R, typename C, typename... A>
struct MemberArity<R (C::*)(A...) const> : MemberArity<R (C::*)(A...)> {};
template <typename R, typename C, typename... A>
struct MemberArity<R (C::*)(A...) noexcept> : MemberArity<R (C::*)(A...)> {};
template <typename R, typename C, typename... A>
struct MemberArity<R (C::*)(A...) const noexcept>
    : MemberArity<R (C::*)(A...)> {};
template <typename F>
struct CallableArity<F, std::void_t<decltype(&F::operator())>>
    : MemberArity<decltype(&F::operator())> {};

/// Validates the options (and, where the callable takes a known number of
/// parameters, that an input signature has as many) and creates the state.
StatusOr<std::shared_ptr<FunctionState>>
makeFunctionState(FunctionOptions options, std::source_location location,
                  int callableArity = -1);
const FunctionOptions &optionsOf(const FunctionState &state);

/// The specialization that serves a call with arguments of `argsType`
/// (checked against the input signature and the target device), traced now
/// with `body` if none does.
StatusOr<CompiledPtr> specializationForCall(FunctionState &state,
                                            const tracing::TraceType &argsType,
                                            const TraceBody &body);
/// A pinned specialization: what it is, what runs it, and its cache key.
struct ConcreteEntry {
  SpecializationInfo info;
  CompiledPtr compiled;
  tracing::TraceType key;
};

/// specializationForCall for a call whose arguments are all host tensors:
/// served from the function's dispatch memo where it can be (a hit builds
/// no TraceType).
StatusOr<CompiledPtr>
specializationForTensors(FunctionState &state,
                         std::span<const runtime::HostTensor *const> tensors,
                         const TraceBody &body);

/// The specialization for exactly `type`, traced now if needed and pinned.
StatusOr<ConcreteEntry> concreteSpecialization(FunctionState &state,
                                               const tracing::TraceType &type,
                                               const TraceBody &body);

/// ConcreteFunction::saveArtifact.
Status saveArtifact(FunctionState &state, const Compiled &compiled,
                    const std::string &path);

/// ConcreteFunction::calibrate.
Status calibrate(FunctionState &state, const Compiled &compiled,
                 const std::vector<std::vector<runtime::HostTensor>> &samples,
                 const CalibrationOptions &options);

/// ConcreteFunction::compile.
StatusOr<CompiledModel> compileModel(std::shared_ptr<FunctionState> state,
                                     CompiledPtr compiled,
                                     const EngineOptions &options);

/// Checks a call of a concrete function (arguments of `argsType`) against
/// the key it was traced for: an error naming the first argument that does
/// not fit (a concrete function never retraces).
Status checkConcreteCall(const FunctionState &state,
                         const tracing::TraceType &key,
                         const tracing::TraceType &argsType);
/// What the callable returned while `compiled` was traced, after checking
/// that it has the C++ type `resultType` (calls must use one argument
/// structure per TraceType).
StatusOr<const std::any *> structureOf(const FunctionState &state,
                                       const Compiled &compiled,
                                       const std::type_info &resultType);

/// Runs a specialization on the call's inputs, writes assigned variables
/// back, and returns the callable's results.
StatusOr<std::vector<runtime::HostTensor>> execute(const FunctionState &state,
                                                   const Compiled &compiled,
                                                   const CallInputs &inputs);
/// The same on a CUDA target with device-resident results: device tensor
/// arguments are used in place, host ones are copied in first.
StatusOr<std::vector<cuda::DeviceTensor>>
executeOnDevice(const FunctionState &state, const Compiled &compiled,
                const CallInputs &inputs);

size_t tracingCount(const FunctionState &state);
size_t compileCount(const FunctionState &state);
/// The specializations (dropping those keyed by dead objects first).
std::vector<SpecializationInfo> specializations(FunctionState &state);
std::vector<tracing::TraceEvent> history(const FunctionState &state);

/// Whether this build of tgc compiles for CUDA (TGC_ENABLE_CUDA).
bool hasCudaCodegen();

} // namespace detail

template <typename F, typename R> class ConcreteFunction;

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
  auto operator()(const Args &...args) const -> StatusOr<
      StructureT<std::invoke_result_t<F &, detail::SymbolicT<Args>...>,
                 detail::ResultLeafT<Args...>>> {
    using R = std::invoke_result_t<F &, detail::SymbolicT<Args>...>;
    using Leaf = detail::ResultLeafT<Args...>;
    if constexpr (sizeof...(Args) > 0 &&
                  (std::is_same_v<Args, runtime::HostTensor> && ...)) {
      // The common call, host tensors only: no TraceType on a hit.
      const runtime::HostTensor *tensors[] = {&args...};
      std::vector<int64_t> classes;
      auto trace = body<R>(classes, args...);
      auto compiled = detail::specializationForTensors(
          *state, std::span<const runtime::HostTensor *const>(tensors), trace);
      if (!compiled.ok())
        return compiled.status();
      detail::CallInputs inputs;
      inputs.tensors.reserve(sizeof...(Args) + options().captures.size());
      (inputs.tensors.push_back(args), ...);
      for (const CaptureRef &capture : options().captures)
        if (!capture.isScalar())
          inputs.tensors.push_back(capture.current());
      return run<R, Leaf>(*state, **compiled, inputs);
    }
    detail::CallInputs inputs;
    std::vector<int64_t> classes;
    tracing::TraceType argsType = prepare(inputs, classes, args...);
    if (!inputs.error.ok())
      return inputs.error;
    auto trace = body<R>(classes, args...);
    auto compiled = detail::specializationForCall(*state, argsType, trace);
    if (!compiled.ok())
      return compiled.status();
    return run<R, Leaf>(*state, **compiled, inputs);
  }

  /// The specialization for exactly these argument types (host tensors or
  /// TensorSpec placeholders), traced now if needed and pinned in the cache.
  /// Asking twice returns the same one. It is callable (with arguments that
  /// fit the types it was traced for; it never retraces) and says what it is
  /// (SpecializationInfo).
  template <typename... Args>
  auto concreteFunction(const Args &...args) -> StatusOr<ConcreteFunction<
      F, std::invoke_result_t<F &, detail::SymbolicT<Args>...>>> {
    using R = std::invoke_result_t<F &, detail::SymbolicT<Args>...>;
    detail::CallInputs inputs;
    std::vector<int64_t> classes;
    tracing::TraceType type = prepare(inputs, classes, args...);
    auto trace = body<R>(classes, args...);
    auto entry = detail::concreteSpecialization(*state, type, trace);
    if (!entry.ok())
      return entry.status();
    return ConcreteFunction<F, R>(*this, *std::move(entry));
  }

  /// How many traces ran (successful or not).
  size_t tracingCount() const { return detail::tracingCount(*state); }
  /// How many plans were compiled (every specialization; successful or
  /// not).
  size_t compileCount() const { return detail::compileCount(*state); }
  /// The specializations in the cache, oldest first.
  std::vector<SpecializationInfo> specializations() const {
    return detail::specializations(*state);
  }
  /// Every trace with its reason, and every compile and dropped plan, in
  /// the order they completed.
  std::vector<tracing::TraceEvent> history() const {
    return detail::history(*state);
  }
  const FunctionOptions &options() const { return detail::optionsOf(*state); }

private:
  template <typename, typename> friend class ConcreteFunction;

  /// Runs `compiled` on the call's inputs and returns the results in the
  /// structure the callable returned (of C++ type R) with leaves of type
  /// Leaf.
  template <typename R, typename Leaf>
  static StatusOr<StructureT<R, Leaf>> run(const detail::FunctionState &state,
                                           const detail::Compiled &compiled,
                                           const detail::CallInputs &inputs) {
    auto structure = detail::structureOf(state, compiled, typeid(R));
    if (!structure.ok())
      return structure.status();
    StatusOr<std::vector<Leaf>> outputs;
    if constexpr (std::is_same_v<Leaf, cuda::DeviceTensor>)
      outputs = detail::executeOnDevice(state, compiled, inputs);
    else
      outputs = detail::execute(state, compiled, inputs);
    if (!outputs.ok())
      return outputs.status();
    size_t pos = 0;
    return unflattenOutputs(std::any_cast<const R &>(**structure), *outputs,
                            pos);
  }

  /// Collects the call's inputs (arguments, then captures) and variable
  /// alias classes; returns the arguments' TraceType.
  template <typename... Args>
  tracing::TraceType prepare(detail::CallInputs &inputs,
                             std::vector<int64_t> &classes,
                             const Args &...args) const {
    (detail::collectInputs(args, inputs), ...);
    for (const CaptureRef &capture : options().captures)
      if (!capture.isScalar())
        inputs.tensors.push_back(capture.current());
    classes = detail::aliasClasses(inputs.variables);
    tracing::TraceType type = tracing::traceTypeOfArgs(args...);
    if (!classes.empty())
      type = detail::withAliasClasses(type, classes);
    return type;
  }

  /// Calls the callable on symbolic arguments: tensor leaves come from the
  /// trace (the target type's specs, possibly relaxed); scalars and
  /// structure come from `args`.
  template <typename R, typename... Args>
  auto body(const std::vector<int64_t> &classes, const Args &...args) const {
    return [this, &classes,
            &args...](std::span<const Tensor> leaves) -> detail::TraceOutputs {
      detail::SymbolicInputs inputs;
      inputs.leaves = leaves;
      inputs.aliasClasses =
          std::span<const int64_t>(classes.data(), classes.size());
      // Braced initialization keeps left-to-right order.
      auto symbolic = std::tuple<detail::SymbolicT<Args>...>{
          detail::makeSymbolic(args, inputs)...};
      R structure = std::apply(*callable, symbolic);
      detail::TraceOutputs out;
      out.results = flattenOutputs(structure);
      out.numOutputs = out.results.size();
      for (size_t cls = 0; cls < inputs.states.size(); ++cls) {
        const auto &variable = inputs.states[cls];
        if (variable && !variable->error.empty() && out.variableError.empty())
          out.variableError = variable->error;
        if (!variable || !variable->assigned)
          continue;
        out.results.push_back(variable->current);
        out.variableWrites.push_back(static_cast<int64_t>(cls));
      }
      out.structure = std::move(structure);
      return out;
    };
  }

  std::shared_ptr<F> callable;
  std::shared_ptr<detail::FunctionState> state;
};

/// A specialization of a Function pinned by concreteFunction(): callable
/// like the Function, but only with arguments that fit the types it was
/// traced for (TensorSpec dims of kDynamic accept any size); it never
/// traces. R is the C++ type the callable returned. Cheap to copy.
template <typename F, typename R>
class ConcreteFunction : public SpecializationInfo {
public:
  template <typename... Args>
  auto operator()(const Args &...args) const
      -> StatusOr<StructureT<R, detail::ResultLeafT<Args...>>> {
    using Leaf = detail::ResultLeafT<Args...>;
    detail::CallInputs inputs;
    std::vector<int64_t> classes;
    tracing::TraceType argsType = function.prepare(inputs, classes, args...);
    if (!inputs.error.ok())
      return inputs.error;
    if (Status status =
            detail::checkConcreteCall(*function.state, key, argsType);
        !status.ok())
      return status;
    return Function<F>::template run<R, Leaf>(*function.state, *compiled,
                                              inputs);
  }

  /// Compiles this specialization ahead of time for the CPU, for the shapes
  /// it was traced for, and saves the plan to `path`: an artifact that
  /// tgc::Artifact (the runtime alone) and `tgc-run` load and run without
  /// the compiler (docs/aot.md). Its inputs are the tensor arguments in
  /// order (then the values of the variables it reads), its outputs the
  /// results (then the variables' final values). A specialization with
  /// dynamic dims, for another device, or with an op only the reference
  /// interpreter runs cannot be saved: the error says why.
  Status saveArtifact(const std::string &path) const {
    return detail::saveArtifact(*function.state, *compiled, path);
  }

  /// Post-training int8 calibration (docs/precision.md): runs this
  /// specialization at f32 on the CPU over `samples` (each its inputs as
  /// saveArtifact orders them: the tensor arguments, then the values of the
  /// variables it reads) and writes the table to `options.tablePath`. A
  /// function made with FunctionOptions::precision = Int8 and that table
  /// runs its convolutions and matmuls with constant weights (tgc::constant)
  /// in int8.
  Status calibrate(const std::vector<std::vector<runtime::HostTensor>> &samples,
                   const CalibrationOptions &options) const {
    return detail::calibrate(*function.state, *compiled, samples, options);
  }

  /// Compiles this specialization for the CPU into a CompiledModel
  /// (Engine.h): shared by threads, served by streams sized by
  /// `options.hint`, compiled for the streams' intra-op threads. Inputs
  /// and outputs are those of saveArtifact, named "input0", ... and
  /// "output0", .... The same restrictions apply (static shapes, the CPU).
  StatusOr<CompiledModel> compile(const EngineOptions &options = {}) const {
    return detail::compileModel(function.state, compiled, options);
  }

private:
  friend class Function<F>;
  ConcreteFunction(Function<F> function, detail::ConcreteEntry entry)
      : SpecializationInfo(std::move(entry.info)),
        function(std::move(function)), compiled(std::move(entry.compiled)),
        key(std::move(entry.key)) {}

  Function<F> function;
  detail::CompiledPtr compiled;
  tracing::TraceType key;
};

/// Wraps `callable` into a traced function. Fails when the options are
/// invalid (e.g. a malformed input signature).
/// The location of the tgc::function call is the location of the traced
/// function, its arguments and its return.
template <typename F>
StatusOr<Function<F>>
function(F callable, FunctionOptions options = {},
         std::source_location loc = std::source_location::current()) {
  auto state = detail::makeFunctionState(
      std::move(options), loc, detail::CallableArity<std::decay_t<F>>::value);
  if (!state.ok())
    return state.status();
  return Function<F>(std::move(callable), *std::move(state));
}

} // namespace tgc

#endif // TGC_FUNCTION_H
