//===- MapTraits.h - associative containers in traced structures --*- C++
//-*-===//
//
// Traced arguments and results may hold maps from keys to values: std::map,
// std::unordered_map, or any container with their member types (key_type,
// mapped_type, value_type = std::pair<const key_type, mapped_type>), such as
// absl::flat_hash_map. Recognizing them by their members keeps <map> and
// <unordered_map> out of the public headers.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_MAPTRAITS_H
#define TGC_MAPTRAITS_H

#include <cstddef>
#include <memory>
#include <type_traits>
#include <utility>

namespace tgc::detail {

/// A map from keys to values.
template <typename T>
concept MapLike = requires {
  typename T::key_type;
  typename T::mapped_type;
  typename T::value_type;
}
&&std::is_same_v<typename T::value_type, std::pair<const typename T::key_type,
                                                   typename T::mapped_type>>;

template <typename A, typename = void> struct IsAllocator : std::false_type {};
template <typename A>
struct IsAllocator<
    A, std::void_t<typename A::value_type,
                   decltype(std::declval<A &>().allocate(std::size_t{1}))>>
    : std::true_type {};

/// A template argument of a map, with allocators rebound to `Value`.
template <typename Arg, typename Value, bool = IsAllocator<Arg>::value>
struct RebindMapArgument {
  using type = Arg;
};
template <typename Arg, typename Value>
struct RebindMapArgument<Arg, Value, true> {
  using type =
      typename std::allocator_traits<Arg>::template rebind_alloc<Value>;
};

/// The map type M with mapped type V (same keys, ordering or hashing).
template <typename M, typename V> struct RebindMap;
template <template <typename...> class M, typename K, typename T,
          typename... Rest, typename V>
struct RebindMap<M<K, T, Rest...>, V> {
  using type =
      M<K, V, typename RebindMapArgument<Rest, std::pair<const K, V>>::type...>;
};
template <typename M, typename V>
using RebindMapT = typename RebindMap<M, V>::type;

} // namespace tgc::detail

#endif // TGC_MAPTRAITS_H
