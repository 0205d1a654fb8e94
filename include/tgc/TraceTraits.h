//===- TraceTraits.h - C++ argument values to TraceTypes --------*- C++ -*-===//
//
// The customization point that maps the value of a traced function's argument
// to its TraceType. Provided for host tensors, bool, every integer type up to
// 64 bits, enums, float and double, strings, std::nullopt/nullptr, and
// std::vector, std::array, std::tuple, std::pair, std::optional, std::map and
// std::unordered_map of traceable types, nested to any depth.
//
// A user type T opts in either way (the specialization wins if both exist):
//
//   template <> struct tgc::tracing::TraceTraits<T> {
//     static TraceType traceType(const T &value);
//   };
//
//   // Found by argument-dependent lookup, next to T:
//   tgc::tracing::TraceType tgcTraceType(const T &value);
//
// Wrap the description in TraceType::user (see userTraceType<T>) so that it
// never collides with a plain container of the same contents.
//
// A type with neither is rejected at compile time by traceTypeOf.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRACETRAITS_H
#define TGC_TRACETRAITS_H

#include "tgc/HostTensor.h"
#include "tgc/MapTraits.h"
#include "tgc/TraceType.h"

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace tgc::tracing {

/// Specialize with `static TraceType traceType(const T &value)`. The primary
/// template is undefined: a type without a specialization has no traits.
template <typename T, typename = void> struct TraceTraits;

namespace detail {
/// Poison pill: the hook is found by argument-dependent lookup only.
void tgcTraceType() = delete;

template <typename T>
concept HasTraceTraits = requires(const T &value) {
  { TraceTraits<T>::traceType(value) } -> std::convertible_to<TraceType>;
};

template <typename T>
concept HasTraceHook = requires(const T &value) {
  { tgcTraceType(value) } -> std::convertible_to<TraceType>;
};
} // namespace detail

/// True when values of T (cv and references ignored) can be arguments of a
/// traced function.
template <typename T>
inline constexpr bool kIsTraceable =
    detail::HasTraceTraits<std::remove_cvref_t<T>> ||
    detail::HasTraceHook<std::remove_cvref_t<T>>;

namespace detail {
template <typename T> inline constexpr bool kAlwaysFalse = false;

/// The name of T as the compiler spells it ("ns::Model"), read from
/// __PRETTY_FUNCTION__ (GCC and Clang), as LLVM's getTypeName does.
template <typename DesiredTypeName> constexpr std::string_view typeName() {
  std::string_view name = __PRETTY_FUNCTION__;
  constexpr std::string_view key = "DesiredTypeName = ";
  size_t start = name.find(key);
  if (start == std::string_view::npos)
    return "<unknown type>";
  name.remove_prefix(start + key.size());
  // GCC appends "; std::string_view = ..." after the substitution; both
  // end with ']'.
  size_t end = name.rfind("; std::string_view = ");
  if (end == std::string_view::npos)
    end = name.empty() ? 0 : name.size() - 1;
  return name.substr(0, end);
}

/// The innermost type that makes T untraceable (T itself unless T is a
/// standard container whose element is the problem).
template <typename T> struct Culprit { using type = T; };
template <typename... Ts> struct FirstCulprit { using type = void; };
template <typename T, typename... Ts> struct FirstCulprit<T, Ts...> {
  using type = typename std::conditional_t<kIsTraceable<T>, FirstCulprit<Ts...>,
                                           Culprit<T>>::type;
};
template <typename T, typename A> struct Culprit<std::vector<T, A>> {
  using type = typename FirstCulprit<T>::type;
};
template <typename T, size_t N> struct Culprit<std::array<T, N>> {
  using type = typename FirstCulprit<T>::type;
};
template <typename T> struct Culprit<std::optional<T>> {
  using type = typename FirstCulprit<T>::type;
};
template <typename... Ts> struct Culprit<std::tuple<Ts...>> {
  using type = typename FirstCulprit<Ts...>::type;
};
template <typename A, typename B> struct Culprit<std::pair<A, B>> {
  using type = typename FirstCulprit<A, B>::type;
};
template <typename M>
requires tgc::detail::MapLike<M>
struct Culprit<M> {
  using type = typename FirstCulprit<typename M::key_type,
                                     typename M::mapped_type>::type;
};

/// Instantiated only for an untraceable argument type `Arg`; `Culprit` names
/// the innermost offending type in the compiler's instantiation note.
template <typename Arg, typename Culprit> void reportUntraceable() {
  static_assert(kAlwaysFalse<Arg>,
                "tgc: type T cannot be an argument of a traced function: "
                "specialize tgc::tracing::TraceTraits<T> or define "
                "tgcTraceType(const T&) (T is `Culprit` in the instantiation "
                "of reportUntraceable above)");
}

/// Readable, distinct names for the integer types. Each distinct C++ type
/// gets a distinct name; the types behind the fixed-width aliases are named
/// after the alias.
template <typename T> constexpr const char *integerTypeName() {
  if constexpr (std::is_same_v<T, std::int64_t>)
    return "int64_t";
  else if constexpr (std::is_same_v<T, std::uint64_t>)
    return "uint64_t";
  else if constexpr (std::is_same_v<T, int>)
    return "int";
  else if constexpr (std::is_same_v<T, unsigned>)
    return "unsigned";
  else if constexpr (std::is_same_v<T, std::int8_t>)
    return "int8_t";
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return "uint8_t";
  else if constexpr (std::is_same_v<T, std::int16_t>)
    return "int16_t";
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return "uint16_t";
  else if constexpr (std::is_same_v<T, char>)
    return "char";
  else if constexpr (std::is_same_v<T, long>)
    return "long";
  else if constexpr (std::is_same_v<T, unsigned long>)
    return "unsigned long";
  else if constexpr (std::is_same_v<T, long long>)
    return "long long";
  else if constexpr (std::is_same_v<T, unsigned long long>)
    return "unsigned long long";
  else if constexpr (std::is_same_v<T, short>)
    return "short";
  else if constexpr (std::is_same_v<T, unsigned short>)
    return "unsigned short";
  else if constexpr (std::is_same_v<T, signed char>)
    return "signed char";
  else if constexpr (std::is_same_v<T, unsigned char>)
    return "unsigned char";
  else if constexpr (std::is_same_v<T, wchar_t>)
    return "wchar_t";
  else if constexpr (std::is_same_v<T, char8_t>)
    return "char8_t";
  else if constexpr (std::is_same_v<T, char16_t>)
    return "char16_t";
  else if constexpr (std::is_same_v<T, char32_t>)
    return "char32_t";
  else
    static_assert(kAlwaysFalse<T>, "unhandled integer type");
}

template <typename T>
inline constexpr bool kIsTraceableInteger =
    std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8;
} // namespace detail

/// The TraceType of `value`. A compile error, not a runtime one, when T has
/// no mapping.
template <typename T> TraceType traceTypeOf(const T &value) {
  using U = std::remove_cvref_t<T>;
  if constexpr (detail::HasTraceTraits<U>) {
    return TraceTraits<U>::traceType(value);
  } else if constexpr (detail::HasTraceHook<U>) {
    return tgcTraceType(value);
  } else {
    detail::reportUntraceable<U, typename detail::Culprit<U>::type>();
    return TraceType();
  }
}

/// The TraceType of a call: a Tuple with one element per argument.
template <typename... Args> TraceType traceTypeOfArgs(const Args &...args) {
  std::vector<TraceType> elements;
  elements.reserve(sizeof...(Args));
  (elements.push_back(traceTypeOf(args)), ...);
  return TraceType::sequence(TraceType::SequenceKind::Tuple,
                             std::move(elements));
}

/// TraceType::user named after the C++ type T (as the compiler spells it).
template <typename T> TraceType userTraceType(TraceType inner) {
  return TraceType::user(std::string(detail::typeName<T>()), std::move(inner));
}

//===----------------------------------------------------------------------===//
// Provided traits
//===----------------------------------------------------------------------===//

template <> struct TraceTraits<runtime::HostTensor> {
  static TraceType traceType(const runtime::HostTensor &tensor) {
    return TraceType::tensor(
        TensorSpec{tensor.dtype(), tensor.shape(), false, "cpu"});
  }
};

template <> struct TraceTraits<bool> {
  static TraceType traceType(bool value) { return TraceType::boolean(value); }
};

template <typename T>
struct TraceTraits<T, std::enable_if_t<detail::kIsTraceableInteger<T>>> {
  static TraceType traceType(T value) {
    if constexpr (std::is_signed_v<T>)
      return TraceType::integer(static_cast<int64_t>(value),
                                detail::integerTypeName<T>());
    else
      return TraceType::unsignedInteger(static_cast<uint64_t>(value),
                                        detail::integerTypeName<T>());
  }
};

/// Enums are integers named after the enum type.
template <typename T>
struct TraceTraits<T, std::enable_if_t<std::is_enum_v<T>>> {
  static TraceType traceType(T value) {
    using Underlying = std::underlying_type_t<T>;
    std::string name(detail::typeName<T>());
    if constexpr (std::is_signed_v<Underlying>)
      return TraceType::integer(static_cast<int64_t>(value), std::move(name));
    else
      return TraceType::unsignedInteger(static_cast<uint64_t>(value),
                                        std::move(name));
  }
};

template <> struct TraceTraits<float> {
  static TraceType traceType(float value) {
    return TraceType::floating(value, "float");
  }
};

template <> struct TraceTraits<double> {
  static TraceType traceType(double value) {
    return TraceType::floating(value, "double");
  }
};

/// Every string-like type maps to the same String key.
template <> struct TraceTraits<std::string> {
  static TraceType traceType(const std::string &value) {
    return TraceType::string(value);
  }
};

template <> struct TraceTraits<std::string_view> {
  static TraceType traceType(std::string_view value) {
    return TraceType::string(std::string(value));
  }
};

/// A null C string is none().
template <> struct TraceTraits<const char *> {
  static TraceType traceType(const char *value) {
    return value ? TraceType::string(value) : TraceType::none();
  }
};

template <> struct TraceTraits<char *> {
  static TraceType traceType(const char *value) {
    return TraceTraits<const char *>::traceType(value);
  }
};

/// Character arrays (string literals): the characters before the first NUL.
template <size_t N> struct TraceTraits<char[N]> {
  static TraceType traceType(const char (&value)[N]) {
    return TraceType::string(std::string(value, strnlen(value, N)));
  }
};

/// The key of a shared object by identity (`TraceType::user("identity of
/// T", id)`, printed `identity of T(id=3)`): a number given the first time
/// the object is seen and never given to another object while any key can
/// still hold it. A null pointer is none().
TraceType identityTraceType(const std::shared_ptr<const void> &object,
                            std::string_view typeName);
/// The object number of an identity key made by identityTraceType.
std::optional<uint64_t> identityOf(const TraceType &type);
/// Whether the object with this number is still alive.
bool identityAlive(uint64_t id);
/// Whether `type` holds an identity key (anywhere in it), and whether one of
/// them is of a dead object (a key that no call can match again).
bool hasIdentity(const TraceType &type);
bool hasDeadIdentity(const TraceType &type);

/// A std::shared_ptr is keyed by the identity of its object (as TF keys
/// weakref-able objects), not its contents: the callable gets the pointer
/// and reads the object at trace time, calls with the same object hit, and
/// a tgc::function drops the specializations of an object once it dies.
template <typename T> struct TraceTraits<std::shared_ptr<T>> {
  static TraceType traceType(const std::shared_ptr<T> &object) {
    return identityTraceType(
        std::shared_ptr<const void>(object,
                                    static_cast<const void *>(object.get())),
        detail::typeName<std::remove_cv_t<T>>());
  }
};

template <> struct TraceTraits<std::nullopt_t> {
  static TraceType traceType(std::nullopt_t) { return TraceType::none(); }
};

template <> struct TraceTraits<std::nullptr_t> {
  static TraceType traceType(std::nullptr_t) { return TraceType::none(); }
};

template <typename T, typename A>
struct TraceTraits<std::vector<T, A>, std::enable_if_t<kIsTraceable<T>>> {
  static TraceType traceType(const std::vector<T, A> &value) {
    std::vector<TraceType> elements;
    elements.reserve(value.size());
    for (const auto &element : value)
      elements.push_back(traceTypeOf<T>(element));
    return TraceType::sequence(TraceType::SequenceKind::Vector,
                               std::move(elements));
  }
};

template <typename T, size_t N>
struct TraceTraits<std::array<T, N>, std::enable_if_t<kIsTraceable<T>>> {
  static TraceType traceType(const std::array<T, N> &value) {
    std::vector<TraceType> elements;
    elements.reserve(N);
    for (const T &element : value)
      elements.push_back(traceTypeOf(element));
    return TraceType::sequence(TraceType::SequenceKind::Array,
                               std::move(elements));
  }
};

template <typename... Ts>
struct TraceTraits<std::tuple<Ts...>,
                   std::enable_if_t<(kIsTraceable<Ts> && ...)>> {
  static TraceType traceType(const std::tuple<Ts...> &value) {
    std::vector<TraceType> elements;
    elements.reserve(sizeof...(Ts));
    std::apply(
        [&elements](const auto &...element) {
          (elements.push_back(traceTypeOf(element)), ...);
        },
        value);
    return TraceType::sequence(TraceType::SequenceKind::Tuple,
                               std::move(elements));
  }
};

template <typename A, typename B>
struct TraceTraits<std::pair<A, B>,
                   std::enable_if_t<kIsTraceable<A> && kIsTraceable<B>>> {
  static TraceType traceType(const std::pair<A, B> &value) {
    return TraceType::sequence(
        TraceType::SequenceKind::Pair,
        {traceTypeOf(value.first), traceTypeOf(value.second)});
  }
};

template <typename T>
struct TraceTraits<std::optional<T>, std::enable_if_t<kIsTraceable<T>>> {
  static TraceType traceType(const std::optional<T> &value) {
    if (!value)
      return TraceType::optional(std::nullopt);
    return TraceType::optional(traceTypeOf(*value));
  }
};

namespace detail {
template <typename Map> TraceType mapTraceType(const Map &value) {
  std::vector<std::pair<TraceType, TraceType>> entries;
  entries.reserve(value.size());
  for (const auto &[key, mapped] : value)
    entries.emplace_back(traceTypeOf(key), traceTypeOf(mapped));
  return TraceType::map(std::move(entries));
}
} // namespace detail

/// std::map, std::unordered_map and other maps (tgc/MapTraits.h).
template <typename M>
struct TraceTraits<M, std::enable_if_t<tgc::detail::MapLike<M> &&
                                       kIsTraceable<typename M::key_type> &&
                                       kIsTraceable<typename M::mapped_type>>> {
  static TraceType traceType(const M &value) {
    return detail::mapTraceType(value);
  }
};

} // namespace tgc::tracing

#endif // TGC_TRACETRAITS_H
