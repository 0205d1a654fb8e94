//===- Status.cpp - tgc::Status -------------------------------------------===//

#include "tgc/Status.h"

#include <ostream>

namespace tgc {

std::string_view statusCodeName(StatusCode code) {
  switch (code) {
  case StatusCode::kOk:
    return "OK";
  case StatusCode::kCancelled:
    return "CANCELLED";
  case StatusCode::kUnknown:
    return "UNKNOWN";
  case StatusCode::kInvalidArgument:
    return "INVALID_ARGUMENT";
  case StatusCode::kDeadlineExceeded:
    return "DEADLINE_EXCEEDED";
  case StatusCode::kNotFound:
    return "NOT_FOUND";
  case StatusCode::kAlreadyExists:
    return "ALREADY_EXISTS";
  case StatusCode::kPermissionDenied:
    return "PERMISSION_DENIED";
  case StatusCode::kResourceExhausted:
    return "RESOURCE_EXHAUSTED";
  case StatusCode::kFailedPrecondition:
    return "FAILED_PRECONDITION";
  case StatusCode::kAborted:
    return "ABORTED";
  case StatusCode::kOutOfRange:
    return "OUT_OF_RANGE";
  case StatusCode::kUnimplemented:
    return "UNIMPLEMENTED";
  case StatusCode::kInternal:
    return "INTERNAL";
  case StatusCode::kUnavailable:
    return "UNAVAILABLE";
  case StatusCode::kDataLoss:
    return "DATA_LOSS";
  case StatusCode::kUnauthenticated:
    return "UNAUTHENTICATED";
  }
  return "UNKNOWN";
}

std::string Status::ToString() const {
  if (ok())
    return "OK";
  std::string out(statusCodeName(statusCode));
  out += ": ";
  out += text;
  return out;
}

std::ostream &operator<<(std::ostream &os, const Status &status) {
  return os << status.ToString();
}

std::ostream &operator<<(std::ostream &os, StatusCode code) {
  return os << statusCodeName(code);
}

BadStatusOrAccess::BadStatusOrAccess(Status status)
    : error(std::move(status)),
      whatText("tgc: StatusOr::value() called on an error: " +
               error.ToString()) {}

namespace detail {
void throwBadStatusOrAccess(const Status &status) {
  throw BadStatusOrAccess(status);
}

Status okStatusOrError() {
  return Status(StatusCode::kInternal,
                "tgc: a StatusOr was built from an OK status");
}
} // namespace detail

} // namespace tgc
