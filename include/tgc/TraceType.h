//===- TraceType.h - the cache key of a traced function ---------*- C++ -*-===//
//
// A TraceType describes one call of a traced function the way the
// specialization cache sees it: tensors by dtype, shape and device, scalars by
// C++ type and value, containers by structure, user types through their own
// description. It is an immutable value type (a shared pointer to an immutable
// node), cheap to copy, hashable, totally ordered, and forms a subtype lattice:
//
//   a.isSubtypeOf(b)  <=>  every call of type `a` is accepted by a
//                          specialization traced for `b`.
//
// The rules are documented in docs/tracing.md. Part of the public API: no
// MLIR or LLVM dependency.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRACETYPE_H
#define TGC_TRACETYPE_H

#include "tgc/DType.h"

#include "tgc/Status.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace tgc::tracing {

/// A dynamic dimension in a TensorSpec: it accepts any size.
inline constexpr int64_t kDynamic = -1;

/// The sizes a dynamic dim accepts, [min, max] (TensorRT optimization
/// profiles, torch.export's Dim(min, max), OpenVINO's Dimension(1, 512)).
struct DimRange {
  int64_t min = 0;
  int64_t max = std::numeric_limits<int64_t>::max();
  bool bounded() const {
    return min != 0 || max != std::numeric_limits<int64_t>::max();
  }
  friend bool operator==(const DimRange &, const DimRange &) = default;
};

/// The static description of a tensor argument.
struct TensorSpec {
  runtime::DType dtype = runtime::DType::F32;
  /// One entry per dim: a size >= 0 or kDynamic. Empty (and ignored) when
  /// unknownRank is set.
  std::vector<int64_t> shape;
  /// Accepts tensors of any rank (with this dtype and device).
  bool unknownRank = false;
  std::string device = "cpu";
  /// Empty, or one range per dim: a kDynamic dim accepts only the sizes in
  /// its range (a call with another size is an error naming the dim, not a
  /// new trace); a static dim's range must be the default one.
  std::vector<DimRange> ranges;

  /// The range of dim `i` (the default one where none is given).
  DimRange range(size_t i) const {
    return i < ranges.size() ? ranges[i] : DimRange();
  }
};

/// Checks that every dim is >= 0 or kDynamic, that the product of the static
/// dims fits int64, that an unknown-rank spec has no dims, that ranges are
/// absent or one per dim with 0 <= min <= max (and only on dynamic dims),
/// and that the device is not empty. The error message names the offending
/// dim.
Status validateTensorSpec(const TensorSpec &spec);

/// Readable form of a spec, e.g. "Tensor<?x3xf32>", "Tensor<*xi64>",
/// "Tensor<2xf32, gpu:0>" (the device is shown only when it is not "cpu").
std::string formatTensorSpec(const TensorSpec &spec);

namespace detail {
struct TraceTypeNode;
} // namespace detail

class TraceType {
public:
  enum class Kind {
    Tensor,
    Variable,
    Bool,
    Int,
    Float,
    String,
    None,
    Sequence,
    Optional,
    Map,
    User
  };
  enum class SequenceKind { Vector, Array, Tuple, Pair };

  /// A default-constructed TraceType is none().
  TraceType();

  //===--------------------------------------------------------------------===//
  // Construction
  //===--------------------------------------------------------------------===//

  /// A tensor. The spec is not validated here (see validateTensorSpec); an
  /// unknown-rank spec has its shape cleared.
  static TraceType tensor(TensorSpec spec);
  /// A variable: a mutable tensor that outlives the call. `aliasClass` is the
  /// index of the first argument that aliases this variable's storage, so the
  /// aliasing pattern among the arguments is part of the key, not identity.
  static TraceType variable(TensorSpec spec, int64_t aliasClass);
  static TraceType boolean(bool value);
  /// A signed integer scalar of C++ type `cppType` ("int", "int64_t", ...).
  static TraceType integer(int64_t value, std::string cppType);
  /// An unsigned integer scalar ("unsigned", "uint64_t", ...): printed as
  /// unsigned; never equal to a signed integer.
  static TraceType unsignedInteger(uint64_t value, std::string cppType);
  /// A floating-point scalar ("float" or "double"). Keyed by bit pattern, so
  /// 0.0 and -0.0 differ; all NaNs are one key.
  static TraceType floating(double value, std::string cppType);
  static TraceType string(std::string value);
  /// std::nullopt_t / std::nullptr_t: a value with no content.
  static TraceType none();
  static TraceType sequence(SequenceKind kind, std::vector<TraceType> elements);
  /// std::optional<T>: engaged (with the value's type) or empty. An empty
  /// optional is not none(), and neither is a subtype of the other.
  static TraceType optional(std::optional<TraceType> value);
  /// A map. Entries are canonicalized by sorting on (key, value) in the total
  /// order of compare(), so the key is insensitive to insertion/iteration
  /// order.
  static TraceType map(std::vector<std::pair<TraceType, TraceType>> entries);
  /// A user type, identified by name, described by `inner`.
  static TraceType user(std::string typeName, TraceType inner);
  /// The device a call runs on ("cuda:0"): tgc::function appends it to the
  /// key (after the arguments and captures) of a function that does not run
  /// on the CPU, so that specializations for different devices never share a
  /// key and signatures show where they run. A user type named "@target"
  /// holding the device string (equal only to the same device; no common
  /// supertype with another), printed "@cuda:0". See targetOf().
  static TraceType target(std::string device);

  //===--------------------------------------------------------------------===//
  // Accessors (each asserts the kind it needs)
  //===--------------------------------------------------------------------===//

  Kind kind() const;
  bool isTensorLike() const {
    return kind() == Kind::Tensor || kind() == Kind::Variable;
  }
  /// Bool, Int, Float, String or None: a value baked into the trace.
  bool isScalar() const;

  /// Tensor or Variable.
  const TensorSpec &tensorSpec() const;
  /// Variable.
  int64_t aliasClass() const;
  /// Bool.
  bool boolValue() const;
  /// Int: the value (the two's-complement bits for unsigned integers).
  int64_t intValue() const;
  /// Int: the value as unsigned (the bits for signed integers).
  uint64_t uintValue() const;
  /// Int: created by unsignedInteger().
  bool isUnsigned() const;
  /// Float.
  double floatValue() const;
  /// Int or Float: the C++ type name.
  const std::string &cppType() const;
  /// String.
  const std::string &stringValue() const;
  /// Sequence.
  SequenceKind sequenceKind() const;
  /// Sequence: the elements.
  const std::vector<TraceType> &elements() const;
  /// Optional: the value's type when engaged.
  std::optional<TraceType> optionalValue() const;
  /// Map: the entries, in canonical order.
  const std::vector<std::pair<TraceType, TraceType>> &mapEntries() const;
  /// User.
  const std::string &userTypeName() const;
  const TraceType &userInner() const;
  /// Made by target().
  bool isTarget() const;
  /// target(): the device string.
  const std::string &targetDevice() const;

  //===--------------------------------------------------------------------===//
  // Identity, order, lattice
  //===--------------------------------------------------------------------===//

  /// Structural equality (maps order-insensitive). O(1) when the hashes differ.
  bool operator==(const TraceType &other) const;
  bool operator!=(const TraceType &other) const { return !(*this == other); }
  /// Structural hash, computed once at construction.
  size_t hash() const;
  /// A total order consistent with ==: negative, zero or positive. Used to
  /// canonicalize maps and to break ties deterministically.
  int compare(const TraceType &other) const;
  bool operator<(const TraceType &other) const { return compare(other) < 0; }

  /// True when every call of type *this is accepted by a specialization traced
  /// for `other`. Reflexive and transitive; see docs/tracing.md for the rules.
  bool isSubtypeOf(const TraceType &other) const;

  /// The most specific type that *this and every one of `others` are subtypes
  /// of, or std::nullopt when there is none (different kinds, dtypes, devices,
  /// lengths, keys, or scalar values). Differing dims become kDynamic; a rank
  /// difference gives an unknown-rank tensor.
  std::optional<TraceType>
  mostSpecificCommonSupertype(const std::vector<TraceType> &others) const;

  /// Number of tensor/variable leaves with an unknown rank, and of dynamic dims
  /// in the others: the generality used to rank candidates.
  std::pair<size_t, size_t> generality() const;

  /// Readable form, e.g. "(Tensor<?x3xf32>, int=4, [Tensor<2xi64>])".
  std::string str() const;

private:
  friend struct TraceTypeAccess;
  explicit TraceType(std::shared_ptr<const detail::TraceTypeNode> node);
  const detail::TraceTypeNode &node() const { return *impl; }

  std::shared_ptr<const detail::TraceTypeNode> impl;
};

/// For llvm::hash_combine and absl hashing (found by argument-dependent
/// lookup).
inline size_t hash_value(const TraceType &type) { return type.hash(); }

/// Why `actual` is not a subtype of `expected`.
struct Mismatch {
  /// Where, e.g. "arg1[2].first" (rootPath followed by the access path; empty
  /// when the roots themselves differ and rootPath is empty).
  std::string path;
  /// str() of the expected and actual types at `path`.
  std::string expected;
  std::string actual;
  /// E.g. "dim 0 differs: expected 3, got 4".
  std::string reason;
};

/// The first mismatch (in depth-first, left-to-right order) that keeps
/// `actual` from being a subtype of `expected`; std::nullopt exactly when
/// actual.isSubtypeOf(expected). Path segments: "[i]" for vector, array and
/// tuple elements, ".first"/".second" for pairs, ".value()" for optionals,
/// "[key]" for map values (strings quoted), nothing for a user type's inner.
std::optional<Mismatch> findMismatch(const TraceType &actual,
                                     const TraceType &expected,
                                     std::string rootPath = "");

/// Every mismatch, up to `limit` of them (in the order findMismatch would find
/// them): used to explain cache misses against the closest specialization.
std::vector<Mismatch> findMismatches(const TraceType &actual,
                                     const TraceType &expected,
                                     std::string rootPath = "",
                                     size_t limit = SIZE_MAX);

/// findMismatch for argument tuples (as built by traceTypeOfArgs): the
/// arguments are named "arg0", "arg1", ...; a different argument count is
/// reported at path "" with reason "expected N arguments, got M". A trailing
/// target() is not an argument: a different target (a missing one is "cpu")
/// is reported first, at path "target" with reason "target device differs:
/// expected cpu, got cuda:0".
std::optional<Mismatch> findArgsMismatch(const TraceType &actualArgs,
                                         const TraceType &expectedArgs);

/// The target device of a key: the device of its last element when the key
/// is a tuple ending in a target(), else "cpu".
std::string targetOf(const TraceType &key);

/// Deterministic dispatch: the index of the most specific candidate that
/// accepts `call` (call.isSubtypeOf(candidate)), or std::nullopt when none
/// does. Among accepting candidates the winner minimizes (generality(), then
/// compare()); since a strict subtype is always strictly less general, the
/// winner is never a strict supertype of another accepting candidate, and the
/// chosen type does not depend on the order of `candidates` (among equal
/// duplicates the lowest index is returned).
std::optional<size_t>
selectMostSpecific(const TraceType &call,
                   const std::vector<TraceType> &candidates);

/// Why a specialization was traced.
struct TraceReason {
  enum class Kind { FirstCall, NewType, Relaxed, Evicted, Requested };
  Kind kind = Kind::FirstCall;
  /// For NewType / Relaxed: the closest previous specialization and the first
  /// difference (argument path, its type there, the call's type).
  std::string closest, path, previousType, newType;

  std::string str() const {
    switch (kind) {
    case Kind::FirstCall:
      return "first call";
    case Kind::Evicted:
      return "evicted: this signature was traced before and evicted from the "
             "cache";
    case Kind::Requested:
      return "requested: the input_signature or a concrete function";
    case Kind::NewType:
    case Kind::Relaxed:
      break;
    }
    std::string s = kind == Kind::Relaxed
                        ? "relaxed (reduce_retracing) after a miss: "
                        : "new argument types: ";
    s += path.empty() ? std::string("arguments") : path;
    s += " was " + previousType + ", now " + newType;
    if (!closest.empty())
      s += " (closest specialization: " + closest + ")";
    return s;
  }
};

/// One line of a function's history: a trace, a compile of a plan, or a
/// plan dropped.
struct TraceEvent {
  /// The specialization's type.
  std::string type;
  /// Why it was traced (Trace events).
  TraceReason reason;
  /// How long the trace took (Trace; it includes the compile of a
  /// specialization with static shapes) or the compile (Compile).
  double traceSeconds = 0;
  bool failed = false;
  std::string error;
  enum class Kind {
    Trace,
    /// A plan compiled for `shapes`.
    Compile,
    /// The plan for `shapes` dropped (`error` says why).
    PlanEvicted,
    /// The plan for `shapes` loaded from the persistent compilation cache
    /// (FunctionOptions::cacheDir): no compile ran.
    PlanLoaded,
  } kind = Kind::Trace;
  /// Compile, PlanEvicted, PlanLoaded: the input shapes of the plan, e.g.
  /// "(2x3, 3)".
  std::string shapes;
};

} // namespace tgc::tracing

template <> struct std::hash<tgc::tracing::TraceType> {
  size_t operator()(const tgc::tracing::TraceType &type) const {
    return type.hash();
  }
};

#endif // TGC_TRACETYPE_H
