//===- TraceTypeWalk.h - predicates over nested TraceTypes -------*- C++
//-*-===//
//
// Internal to the tracing library and its clients in the repository.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRACING_TRACETYPEWALK_H
#define TGC_TRACING_TRACETYPEWALK_H

#include "tgc/TraceType.h"

namespace tgc::tracing {

/// Whether `pred` holds for `type` or any type nested in it (sequence and
/// optional elements, map keys and values, a user type's inner type).
template <typename Pred> bool anyNested(const TraceType &type, Pred pred) {
  if (pred(type))
    return true;
  switch (type.kind()) {
  case TraceType::Kind::Sequence:
    for (const TraceType &element : type.elements())
      if (anyNested(element, pred))
        return true;
    return false;
  case TraceType::Kind::Optional:
    if (auto value = type.optionalValue())
      return anyNested(*value, pred);
    return false;
  case TraceType::Kind::Map:
    for (const auto &[key, value] : type.mapEntries())
      if (anyNested(key, pred) || anyNested(value, pred))
        return true;
    return false;
  case TraceType::Kind::User:
    return anyNested(type.userInner(), pred);
  default:
    return false;
  }
}

} // namespace tgc::tracing

#endif // TGC_TRACING_TRACETYPEWALK_H
