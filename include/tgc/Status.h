//===- Status.h - errors returned by the tgc API ------------------*- C++
//-*-===//
//
// tgc::Status and tgc::StatusOr<T>: what every fallible tgc call returns.
// They mirror absl::Status / absl::StatusOr (same codes, same member names:
// ok(), code(), message(), ToString(), status(), value(), operator*), but
// cost a user's translation unit almost nothing to include, where
// absl/status/statusor.h alone takes longer to parse than the whole tgc API.
//
// A program that uses Abseil includes "tgc/AbslStatus.h": then tgc::Status
// and absl::Status convert into each other implicitly, as do tgc::StatusOr<T>
// and absl::StatusOr<T>, and codes compare across the two.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_STATUS_H
#define TGC_STATUS_H

#include <exception>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

namespace tgc {

/// The canonical error codes (the values of absl::StatusCode).
enum class StatusCode : int {
  kOk = 0,
  kCancelled = 1,
  kUnknown = 2,
  kInvalidArgument = 3,
  kDeadlineExceeded = 4,
  kNotFound = 5,
  kAlreadyExists = 6,
  kPermissionDenied = 7,
  kResourceExhausted = 8,
  kFailedPrecondition = 9,
  kAborted = 10,
  kOutOfRange = 11,
  kUnimplemented = 12,
  kInternal = 13,
  kUnavailable = 14,
  kDataLoss = 15,
  kUnauthenticated = 16,
};

/// "INVALID_ARGUMENT" etc.
std::string_view statusCodeName(StatusCode code);

namespace detail {
/// Conversions between tgc's status types and another library's
/// (tgc/AbslStatus.h specializes these for Abseil). The primary templates
/// convert nothing.
template <typename S> struct StatusInterop {};
template <typename S> struct StatusOrInterop {};

template <typename S, typename = void>
struct ConvertsToStatus : std::false_type {};
template <typename S>
struct ConvertsToStatus<S, std::void_t<decltype(StatusInterop<S>::toTgc(
                               std::declval<const S &>()))>> : std::true_type {
};
} // namespace detail

/// An error (a code and a message), or OK.
class [[nodiscard]] Status {
public:
  /// OK.
  Status() = default;
  /// `code` with `message`; StatusCode::kOk gives OK (the message dropped).
  Status(StatusCode code, std::string_view message)
      : statusCode(code),
        text(code == StatusCode::kOk ? std::string() : std::string(message)) {}

  /// From another library's status (tgc/AbslStatus.h).
  template <typename S,
            typename = std::enable_if_t<detail::ConvertsToStatus<S>::value>>
  Status(const S &other) : Status(detail::StatusInterop<S>::toTgc(other)) {}
  /// To another library's status (tgc/AbslStatus.h).
  template <typename S, typename = decltype(detail::StatusInterop<S>::fromTgc(
                            std::declval<const Status &>()))>
  operator S() const {
    return detail::StatusInterop<S>::fromTgc(*this);
  }

  bool ok() const { return statusCode == StatusCode::kOk; }
  StatusCode code() const { return statusCode; }
  std::string_view message() const { return text; }
  /// "OK", or "INVALID_ARGUMENT: message".
  std::string ToString() const;

  friend bool operator==(const Status &a, const Status &b) {
    return a.statusCode == b.statusCode && a.text == b.text;
  }

private:
  StatusCode statusCode = StatusCode::kOk;
  std::string text;
};

/// Writes status.ToString().
std::ostream &operator<<(std::ostream &os, const Status &status);
std::ostream &operator<<(std::ostream &os, StatusCode code);

inline Status okStatus() { return Status(); }

/// Thrown by StatusOr::value() on an error.
class BadStatusOrAccess : public std::exception {
public:
  explicit BadStatusOrAccess(Status status);
  const char *what() const noexcept override { return whatText.c_str(); }
  const Status &status() const { return error; }

private:
  Status error;
  std::string whatText;
};

namespace detail {
[[noreturn]] void throwBadStatusOrAccess(const Status &status);
/// The status a StatusOr holds when it is built from an OK status.
Status okStatusOrError();
} // namespace detail

template <typename T> class StatusOr;

namespace detail {
template <typename U> struct IsTgcStatusOr : std::false_type {};
template <typename U> struct IsTgcStatusOr<StatusOr<U>> : std::true_type {};
} // namespace detail

/// A value of type T, or the error that prevented it.
template <typename T> class [[nodiscard]] StatusOr {
  template <typename U>
  static constexpr bool kIsValueArgument =
      std::is_constructible_v<T, U &&> &&
      !std::is_same_v<std::remove_cvref_t<U>, StatusOr> &&
      !std::is_same_v<std::remove_cvref_t<U>, Status> &&
      !std::is_same_v<std::remove_cvref_t<U>, std::in_place_t> &&
      !detail::ConvertsToStatus<std::remove_cvref_t<U>>::value &&
      !detail::IsTgcStatusOr<std::remove_cvref_t<U>>::value;

public:
  using value_type = T;

  /// An unknown error, as absl::StatusOr's default.
  StatusOr() : error(StatusCode::kUnknown, "") {}
  /// An error; an OK status becomes an internal error.
  StatusOr(const Status &status) : error(status) { checkError(); }
  StatusOr(Status &&status) : error(std::move(status)) { checkError(); }
  /// Another library's error status (tgc/AbslStatus.h).
  template <typename S,
            typename = std::enable_if_t<detail::ConvertsToStatus<S>::value>>
  StatusOr(const S &status) : StatusOr(Status(status)) {}
  /// Another library's StatusOr (tgc/AbslStatus.h).
  template <typename S, typename Other = std::remove_cvref_t<S>,
            typename = decltype(detail::StatusOrInterop<Other>::template toTgc<
                                T>(std::declval<S &&>())),
            typename = void>
  StatusOr(S &&other)
      : StatusOr(detail::StatusOrInterop<Other>::template toTgc<T>(
            std::forward<S>(other))) {}

  /// A value.
  template <typename U = T, typename = std::enable_if_t<kIsValueArgument<U>>>
  StatusOr(U &&v) : stored(std::in_place, std::forward<U>(v)) {}
  template <typename... A>
  explicit StatusOr(std::in_place_t, A &&...args)
      : stored(std::in_place, std::forward<A>(args)...) {}
  /// From a StatusOr of a convertible type.
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, T> &&
                                        std::is_constructible_v<T, U &&>>>
  StatusOr(StatusOr<U> &&other) : error(other.status()) {
    if (other.ok())
      stored.emplace(*std::move(other));
  }
  template <typename U,
            typename = std::enable_if_t<!std::is_same_v<U, T> &&
                                        std::is_constructible_v<T, const U &>>>
  StatusOr(const StatusOr<U> &other) : error(other.status()) {
    if (other.ok())
      stored.emplace(*other);
  }

  StatusOr(const StatusOr &) = default;
  StatusOr(StatusOr &&) = default;
  StatusOr &operator=(const StatusOr &) = default;
  StatusOr &operator=(StatusOr &&) = default;

  /// To another library's StatusOr (tgc/AbslStatus.h).
  template <typename S, typename = decltype(detail::StatusOrInterop<S>::fromTgc(
                            std::declval<const StatusOr &>()))>
  operator S() const & {
    return detail::StatusOrInterop<S>::fromTgc(*this);
  }
  template <typename S,
            typename = decltype(detail::StatusOrInterop<S>::fromTgc(
                std::declval<StatusOr &&>())),
            typename = void>
  operator S() && {
    return detail::StatusOrInterop<S>::fromTgc(std::move(*this));
  }

  bool ok() const { return stored.has_value(); }
  /// OK when a value is held.
  const Status &status() const & { return error; }
  Status status() && { return std::move(error); }

  const T &value() const & {
    if (!ok())
      detail::throwBadStatusOrAccess(error);
    return *stored;
  }
  T &value() & {
    if (!ok())
      detail::throwBadStatusOrAccess(error);
    return *stored;
  }
  T &&value() && {
    if (!ok())
      detail::throwBadStatusOrAccess(error);
    return std::move(*stored);
  }
  template <typename U> T value_or(U &&fallback) const & {
    return ok() ? *stored : static_cast<T>(std::forward<U>(fallback));
  }
  template <typename U> T value_or(U &&fallback) && {
    return ok() ? std::move(*stored)
                : static_cast<T>(std::forward<U>(fallback));
  }

  /// The value; the StatusOr must hold one.
  const T &operator*() const & { return *stored; }
  T &operator*() & { return *stored; }
  T &&operator*() && { return std::move(*stored); }
  const T *operator->() const { return &*stored; }
  T *operator->() { return &*stored; }

  template <typename... A> T &emplace(A &&...args) {
    error = Status();
    return stored.emplace(std::forward<A>(args)...);
  }

private:
  void checkError() {
    if (error.ok())
      error = detail::okStatusOrError();
  }

  Status error;
  std::optional<T> stored;
};

} // namespace tgc

#endif // TGC_STATUS_H
