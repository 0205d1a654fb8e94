//===- AbslStatus.h - tgc::Status <-> absl::Status ----------------*- C++
//-*-===//
//
// For programs that use Abseil: with this header, tgc::Status and
// absl::Status convert into each other implicitly, tgc::StatusOr<T> and
// absl::StatusOr<T> likewise, and tgc::StatusCode compares with
// absl::StatusCode. tgc/tgc.h does not include it (Abseil's status headers
// take longer to parse than the whole tgc API).
//
//   absl::StatusOr<tgc::runtime::HostTensor> y = (*f)(x);
//   absl::Status s = tgc::runtime::writeNpy(path, *y);
//
//===----------------------------------------------------------------------===//

#ifndef TGC_ABSLSTATUS_H
#define TGC_ABSLSTATUS_H

#include "tgc/Status.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tgc {
namespace detail {

template <> struct StatusInterop<absl::Status> {
  static Status toTgc(const absl::Status &status) {
    absl::string_view message = status.message();
    return Status(static_cast<StatusCode>(status.code()),
                  std::string_view(message.data(), message.size()));
  }
  static absl::Status fromTgc(const Status &status) {
    std::string_view message = status.message();
    return absl::Status(static_cast<absl::StatusCode>(status.code()),
                        absl::string_view(message.data(), message.size()));
  }
};

template <typename U> struct StatusOrInterop<absl::StatusOr<U>> {
  /// absl::StatusOr<U> -> tgc::StatusOr<T>.
  template <typename T, typename S,
            typename = std::enable_if_t<
                std::is_constructible_v<T, decltype(*std::declval<S &&>())>>>
  static StatusOr<T> toTgc(S &&other) {
    if (!other.ok())
      return StatusInterop<absl::Status>::toTgc(other.status());
    return StatusOr<T>(std::in_place, *std::forward<S>(other));
  }
  /// tgc::StatusOr<T> -> absl::StatusOr<U>.
  template <typename S, typename = std::enable_if_t<std::is_constructible_v<
                            U, decltype(*std::declval<S &&>())>>>
  static absl::StatusOr<U> fromTgc(S &&other) {
    if (!other.ok())
      return StatusInterop<absl::Status>::fromTgc(other.status());
    return absl::StatusOr<U>(U(*std::forward<S>(other)));
  }
};

} // namespace detail

/// Codes compare across the libraries (either order, == and !=).
inline bool operator==(StatusCode a, absl::StatusCode b) {
  return static_cast<int>(a) == static_cast<int>(b);
}

} // namespace tgc

#endif // TGC_ABSLSTATUS_H
