//===- Structure.h - output structures of traced functions ------*- C++ -*-===//
//
// A traced callable may return a Tensor or any nesting of std::tuple,
// std::pair, std::vector, std::array, std::optional, std::map and
// std::unordered_map (values) of Tensors. The tracer returns a flat list of
// tensors (depth-first, left to right; map values in the map's iteration
// order; an empty optional contributes nothing), and the results of running
// the function are mapped back into the same structure with every Tensor
// replaced by a runtime::HostTensor (StructureT<R, Leaf> replaces it by any
// leaf type: cuda::DeviceTensor for device-resident results):
//
//   HostStructureT<std::tuple<Tensor, std::vector<Tensor>>>
//       == std::tuple<runtime::HostTensor, std::vector<runtime::HostTensor>>
//
// Vector lengths, optional presence and map keys are taken from the value
// returned while tracing (they are part of the trace). A type outside this
// set is rejected at compile time.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_STRUCTURE_H
#define TGC_STRUCTURE_H

#include "tgc/HostTensor.h"
#include "tgc/MapTraits.h"
#include "tgc/Tensor.h"

#include <array>
#include <cstddef>
#include <optional>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tgc {

/// Whether R (cv-ref qualifiers ignored) is a supported output structure.
template <typename R> struct IsOutputStructure : std::false_type {};
template <> struct IsOutputStructure<Tensor> : std::true_type {};
template <typename... Ts>
struct IsOutputStructure<std::tuple<Ts...>>
    : std::bool_constant<(IsOutputStructure<Ts>::value && ...)> {};
template <typename A, typename B>
struct IsOutputStructure<std::pair<A, B>>
    : std::bool_constant<IsOutputStructure<A>::value &&
                         IsOutputStructure<B>::value> {};
template <typename T, typename Alloc>
struct IsOutputStructure<std::vector<T, Alloc>> : IsOutputStructure<T> {};
template <typename T, size_t N>
struct IsOutputStructure<std::array<T, N>> : IsOutputStructure<T> {};
template <typename T>
struct IsOutputStructure<std::optional<T>> : IsOutputStructure<T> {};
template <typename M>
requires detail::MapLike<M>
struct IsOutputStructure<M> : IsOutputStructure<typename M::mapped_type> {
};

template <typename R>
inline constexpr bool kIsOutputStructure =
    IsOutputStructure<std::remove_cvref_t<R>>::value;

namespace detail {
template <typename R, typename Leaf> struct StructureImpl {
  static_assert(
      kIsOutputStructure<R>,
      "tgc: a traced function must return a tgc::Tensor or a "
      "std::tuple, std::pair, std::vector, std::array, std::optional, "
      "std::map or std::unordered_map of them (nested to any depth)");
  using type = void;
};
} // namespace detail

/// R with every Tensor replaced by `Leaf` (runtime::HostTensor for host
/// results, cuda::DeviceTensor for device-resident ones).
template <typename R, typename Leaf>
using StructureT =
    typename detail::StructureImpl<std::remove_cvref_t<R>, Leaf>::type;

/// R with every Tensor replaced by runtime::HostTensor.
template <typename R> struct HostStructure {
  using type = StructureT<R, runtime::HostTensor>;
};
template <typename R> using HostStructureT = typename HostStructure<R>::type;

namespace detail {
template <typename Leaf> struct StructureImpl<Tensor, Leaf> {
  using type = Leaf;
};
template <typename... Ts, typename Leaf>
struct StructureImpl<std::tuple<Ts...>, Leaf> {
  using type = std::tuple<StructureT<Ts, Leaf>...>;
};
template <typename A, typename B, typename Leaf>
struct StructureImpl<std::pair<A, B>, Leaf> {
  using type = std::pair<StructureT<A, Leaf>, StructureT<B, Leaf>>;
};
template <typename T, typename Alloc, typename Leaf>
struct StructureImpl<std::vector<T, Alloc>, Leaf> {
  using type = std::vector<StructureT<T, Leaf>>;
};
template <typename T, size_t N, typename Leaf>
struct StructureImpl<std::array<T, N>, Leaf> {
  using type = std::array<StructureT<T, Leaf>, N>;
};
template <typename T, typename Leaf>
struct StructureImpl<std::optional<T>, Leaf> {
  using type = std::optional<StructureT<T, Leaf>>;
};
template <typename M, typename Leaf>
requires MapLike<M>
struct StructureImpl<M, Leaf> {
  using type = RebindMapT<M, StructureT<typename M::mapped_type, Leaf>>;
};

template <typename T> struct IsStdArray : std::false_type {};
template <typename T, size_t N>
struct IsStdArray<std::array<T, N>> : std::true_type {};
template <typename T> struct IsTupleOrPair : std::false_type {};
template <typename... Ts>
struct IsTupleOrPair<std::tuple<Ts...>> : std::true_type {};
template <typename A, typename B>
struct IsTupleOrPair<std::pair<A, B>> : std::true_type {};
template <typename T> struct IsStdVector : std::false_type {};
template <typename T, typename A>
struct IsStdVector<std::vector<T, A>> : std::true_type {};
template <typename T> struct IsStdOptional : std::false_type {};
template <typename T>
struct IsStdOptional<std::optional<T>> : std::true_type {};
/// std::map, std::unordered_map and other maps (tgc/MapTraits.h).
template <typename T> struct IsStdMap : std::bool_constant<MapLike<T>> {};
} // namespace detail

/// Appends the tensors of `value` to `out` in structure order.
template <typename R>
void flattenOutputs(const R &value, std::vector<Tensor> &out) {
  using T = std::remove_cvref_t<R>;
  static_assert(
      kIsOutputStructure<T>,
      "tgc: a traced function must return a tgc::Tensor or a "
      "std::tuple, std::pair, std::vector, std::array, std::optional, "
      "std::map or std::unordered_map of them (nested to any depth)");
  if constexpr (std::is_same_v<T, Tensor>) {
    out.push_back(value);
  } else if constexpr (detail::IsTupleOrPair<T>::value) {
    std::apply(
        [&](const auto &...elements) { (flattenOutputs(elements, out), ...); },
        value);
  } else if constexpr (detail::IsStdVector<T>::value ||
                       detail::IsStdArray<T>::value) {
    for (const auto &element : value)
      flattenOutputs(element, out);
  } else if constexpr (detail::IsStdOptional<T>::value) {
    if (value)
      flattenOutputs(*value, out);
  } else if constexpr (detail::IsStdMap<T>::value) {
    for (const auto &entry : value)
      flattenOutputs(entry.second, out);
  }
}

/// The flat list of tensors of `value`.
template <typename R> std::vector<Tensor> flattenOutputs(const R &value) {
  std::vector<Tensor> out;
  flattenOutputs(value, out);
  return out;
}

/// The number of tensors flattenOutputs produces for `value`.
template <typename R> size_t countOutputs(const R &value) {
  return flattenOutputs(value).size();
}

/// Rebuilds the structure of `symbolic` (the value the callable returned while
/// tracing) from `flat` (host or device tensors), starting at `pos` and
/// advancing it; tensors are moved out of `flat`. When `flat` runs short the
/// missing entries are default-constructed and `pos` still advances, so
/// `pos != flat.size()` afterwards tells a mismatch.
template <typename R, typename Leaf>
StructureT<R, Leaf> unflattenOutputs(const R &symbolic, std::vector<Leaf> &flat,
                                     size_t &pos) {
  using T = std::remove_cvref_t<R>;
  using Out = StructureT<T, Leaf>;
  if constexpr (std::is_same_v<T, Tensor>) {
    size_t index = pos++;
    return index < flat.size() ? std::move(flat[index]) : Leaf();
  } else if constexpr (detail::IsTupleOrPair<T>::value) {
    // Braced initialization evaluates left to right.
    return std::apply(
        [&](const auto &...elements) {
          return Out{unflattenOutputs(elements, flat, pos)...};
        },
        symbolic);
  } else if constexpr (detail::IsStdVector<T>::value) {
    Out result;
    result.reserve(symbolic.size());
    for (const auto &element : symbolic)
      result.push_back(unflattenOutputs(element, flat, pos));
    return result;
  } else if constexpr (detail::IsStdArray<T>::value) {
    Out result;
    for (size_t i = 0; i < symbolic.size(); ++i)
      result[i] = unflattenOutputs(symbolic[i], flat, pos);
    return result;
  } else if constexpr (detail::IsStdOptional<T>::value) {
    if (!symbolic)
      return Out();
    return Out(unflattenOutputs(*symbolic, flat, pos));
  } else {
    static_assert(detail::IsStdMap<T>::value);
    Out result;
    for (const auto &entry : symbolic)
      result.emplace(entry.first, unflattenOutputs(entry.second, flat, pos));
    return result;
  }
}

/// Convenience: rebuilds the whole structure from `flat` starting at 0.
template <typename R, typename Leaf>
StructureT<R, Leaf> unflattenOutputs(const R &symbolic,
                                     std::vector<Leaf> flat) {
  size_t pos = 0;
  return unflattenOutputs(symbolic, flat, pos);
}

} // namespace tgc

#endif // TGC_STRUCTURE_H
