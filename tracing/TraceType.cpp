//===- TraceType.cpp - the cache key of a traced function -----------------===//

#include "tgc/TraceType.h"
#include "tgc/AbslStatus.h"

#include "llvm/ADT/Hashing.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <charconv>
#include <cmath>
#include <limits>

using namespace tgc;
using namespace tgc::tracing;

namespace tgc::tracing::detail {

/// One immutable node. Only the fields of its kind are meaningful.
struct TraceTypeNode {
  TraceType::Kind kind = TraceType::Kind::None;
  TensorSpec spec;         // Tensor, Variable
  int64_t aliasClass = 0;  // Variable
  bool boolValue = false;  // Bool
  bool isUnsigned = false; // Int
  int64_t intValue = 0;    // Int (bits if unsigned)
  double floatValue = 0.0; // Float (NaN canonical)
  std::string text;        // cppType, string, user name
  TraceType::SequenceKind seqKind = TraceType::SequenceKind::Vector;
  std::vector<TraceType> children; // Sequence; Optional (0/1);
                                   // User (1)
  std::vector<std::pair<TraceType, TraceType>> entries; // Map, canonical
  size_t hash = 0;
};

} // namespace tgc::tracing::detail

using tgc::tracing::detail::TraceTypeNode;

namespace tgc::tracing {
/// The one way into TraceType's private constructor and node.
struct TraceTypeAccess {
  static TraceType make(TraceTypeNode &&node) {
    return TraceType(std::make_shared<const TraceTypeNode>(std::move(node)));
  }
  static const TraceTypeNode &get(const TraceType &type) { return type.node(); }
};
} // namespace tgc::tracing

using Kind = TraceType::Kind;
using SequenceKind = TraceType::SequenceKind;

//===----------------------------------------------------------------------===//
// TensorSpec
//===----------------------------------------------------------------------===//

tgc::Status tracing::validateTensorSpec(const TensorSpec &spec) {
  if (spec.device.empty())
    return absl::InvalidArgumentError(
        llvm::formatv("tensor spec {0}: empty device name",
                      formatTensorSpec(spec))
            .str());
  if (spec.unknownRank) {
    if (!spec.shape.empty())
      return absl::InvalidArgumentError(
          llvm::formatv(
              "tensor spec with unknown rank must have no dims, got {0}",
              spec.shape.size())
              .str());
    return absl::OkStatus();
  }
  if (!spec.ranges.empty() && spec.ranges.size() != spec.shape.size())
    return absl::InvalidArgumentError(
        llvm::formatv("tensor spec {0}: {1} dim ranges for {2} dims",
                      formatTensorSpec(spec), spec.ranges.size(),
                      spec.shape.size())
            .str());
  for (auto [index, range] : llvm::enumerate(spec.ranges)) {
    if (!range.bounded())
      continue;
    if (spec.shape[index] != kDynamic)
      return absl::InvalidArgumentError(
          llvm::formatv("tensor spec {0}: dim {1} is static ({2}); only a "
                        "dynamic dim takes a range",
                        formatTensorSpec(spec), index, spec.shape[index])
              .str());
    if (range.min < 0 || range.min > range.max)
      return absl::InvalidArgumentError(
          llvm::formatv("tensor spec {0}: dim {1} has the empty or negative "
                        "range [{2}, {3}]",
                        formatTensorSpec(spec), index, range.min, range.max)
              .str());
  }
  int64_t product = 1;
  for (auto [index, dim] : llvm::enumerate(spec.shape)) {
    if (dim == kDynamic)
      continue;
    if (dim < 0)
      return absl::InvalidArgumentError(
          llvm::formatv("tensor spec {0}: dim {1} is {2}; a dim must be >= 0 "
                        "or dynamic (-1)",
                        formatTensorSpec(spec), index, dim)
              .str());
    if (llvm::MulOverflow(product, dim, product))
      return absl::InvalidArgumentError(
          llvm::formatv("tensor spec {0}: the number of elements overflows "
                        "int64 at dim {1}",
                        formatTensorSpec(spec), index)
              .str());
  }
  return absl::OkStatus();
}

static void printSpec(llvm::raw_ostream &os, const TensorSpec &spec) {
  os << "Tensor<";
  if (spec.unknownRank) {
    os << "*x";
  } else {
    for (auto [i, dim] : llvm::enumerate(spec.shape)) {
      if (dim == kDynamic) {
        os << '?';
        if (DimRange range = spec.range(i); range.bounded()) {
          os << '[' << range.min << "..";
          if (range.max != DimRange().max)
            os << range.max;
          os << ']';
        }
      } else {
        os << dim;
      }
      os << 'x';
    }
  }
  os << runtime::dtypeName(spec.dtype);
  if (spec.device != "cpu")
    os << ", " << spec.device;
  os << '>';
}

std::string tracing::formatTensorSpec(const TensorSpec &spec) {
  std::string result;
  llvm::raw_string_ostream os(result);
  printSpec(os, spec);
  return result;
}

//===----------------------------------------------------------------------===//
// Construction
//===----------------------------------------------------------------------===//

static size_t hashSpec(const TensorSpec &spec) {
  size_t hash = llvm::hash_combine(
      static_cast<uint8_t>(spec.dtype), spec.unknownRank,
      llvm::hash_combine_range(spec.shape.begin(), spec.shape.end()),
      llvm::hash_value(spec.device));
  for (size_t i = 0; i < spec.shape.size(); ++i)
    if (DimRange range = spec.range(i); range.bounded())
      hash = llvm::hash_combine(hash, i, range.min, range.max);
  return hash;
}

static size_t computeHash(const TraceTypeNode &node) {
  auto kind = static_cast<unsigned>(node.kind);
  switch (node.kind) {
  case Kind::Tensor:
    return llvm::hash_combine(kind, hashSpec(node.spec));
  case Kind::Variable:
    return llvm::hash_combine(kind, hashSpec(node.spec), node.aliasClass);
  case Kind::Bool:
    return llvm::hash_combine(kind, node.boolValue);
  case Kind::Int:
    return llvm::hash_combine(kind, node.intValue, node.isUnsigned,
                              llvm::hash_value(node.text));
  case Kind::Float:
    return llvm::hash_combine(kind, std::bit_cast<uint64_t>(node.floatValue),
                              llvm::hash_value(node.text));
  case Kind::String:
    return llvm::hash_combine(kind, llvm::hash_value(node.text));
  case Kind::None:
    return llvm::hash_combine(kind);
  case Kind::Sequence:
  case Kind::Optional:
  case Kind::User: {
    llvm::hash_code code =
        llvm::hash_combine(kind, static_cast<unsigned>(node.seqKind),
                           node.children.size(), llvm::hash_value(node.text));
    for (const TraceType &child : node.children)
      code = llvm::hash_combine(code, child.hash());
    return code;
  }
  case Kind::Map: {
    llvm::hash_code code = llvm::hash_combine(kind, node.entries.size());
    for (const auto &[key, value] : node.entries)
      code = llvm::hash_combine(code, key.hash(), value.hash());
    return code;
  }
  }
  llvm_unreachable("unknown TraceType kind");
}

TraceType::TraceType(std::shared_ptr<const TraceTypeNode> node)
    : impl(std::move(node)) {}

TraceType::TraceType() : TraceType(none()) {}

static TraceType makeNode(TraceTypeNode &&node) {
  node.hash = computeHash(node);
  return TraceTypeAccess::make(std::move(node));
}

TraceType TraceType::tensor(TensorSpec spec) {
  TraceTypeNode node;
  node.kind = Kind::Tensor;
  if (spec.unknownRank)
    spec.shape.clear();
  node.spec = std::move(spec);
  return makeNode(std::move(node));
}

TraceType TraceType::variable(TensorSpec spec, int64_t aliasClass) {
  TraceTypeNode node;
  node.kind = Kind::Variable;
  if (spec.unknownRank)
    spec.shape.clear();
  node.spec = std::move(spec);
  node.aliasClass = aliasClass;
  return makeNode(std::move(node));
}

TraceType TraceType::boolean(bool value) {
  TraceTypeNode node;
  node.kind = Kind::Bool;
  node.boolValue = value;
  return makeNode(std::move(node));
}

TraceType TraceType::integer(int64_t value, std::string cppType) {
  TraceTypeNode node;
  node.kind = Kind::Int;
  node.intValue = value;
  node.text = std::move(cppType);
  return makeNode(std::move(node));
}

TraceType TraceType::unsignedInteger(uint64_t value, std::string cppType) {
  TraceTypeNode node;
  node.kind = Kind::Int;
  node.isUnsigned = true;
  node.intValue = static_cast<int64_t>(value);
  node.text = std::move(cppType);
  return makeNode(std::move(node));
}

TraceType TraceType::floating(double value, std::string cppType) {
  TraceTypeNode node;
  node.kind = Kind::Float;
  node.floatValue =
      std::isnan(value) ? std::numeric_limits<double>::quiet_NaN() : value;
  node.text = std::move(cppType);
  return makeNode(std::move(node));
}

TraceType TraceType::string(std::string value) {
  TraceTypeNode node;
  node.kind = Kind::String;
  node.text = std::move(value);
  return makeNode(std::move(node));
}

TraceType TraceType::none() {
  // Shared by every none(); a function-local static, not a static constructor.
  static const TraceType kNone = [] {
    TraceTypeNode node;
    node.kind = Kind::None;
    node.hash = computeHash(node);
    return TraceTypeAccess::make(std::move(node));
  }();
  return kNone;
}

TraceType TraceType::sequence(SequenceKind kind,
                              std::vector<TraceType> elements) {
  assert((kind != SequenceKind::Pair || elements.size() == 2) &&
         "a pair has two elements");
  TraceTypeNode node;
  node.kind = Kind::Sequence;
  node.seqKind = kind;
  node.children = std::move(elements);
  return makeNode(std::move(node));
}

TraceType TraceType::optional(std::optional<TraceType> value) {
  TraceTypeNode node;
  node.kind = Kind::Optional;
  if (value)
    node.children.push_back(std::move(*value));
  return makeNode(std::move(node));
}

TraceType TraceType::map(std::vector<std::pair<TraceType, TraceType>> entries) {
  TraceTypeNode node;
  node.kind = Kind::Map;
  std::sort(entries.begin(), entries.end(),
            [](const auto &lhs, const auto &rhs) {
              if (int c = lhs.first.compare(rhs.first))
                return c < 0;
              return lhs.second.compare(rhs.second) < 0;
            });
  node.entries = std::move(entries);
  return makeNode(std::move(node));
}

TraceType TraceType::user(std::string typeName, TraceType inner) {
  TraceTypeNode node;
  node.kind = Kind::User;
  node.text = std::move(typeName);
  node.children.push_back(std::move(inner));
  return makeNode(std::move(node));
}

static constexpr const char *kTargetTypeName = "@target";

TraceType TraceType::target(std::string device) {
  return user(kTargetTypeName, string(std::move(device)));
}

//===----------------------------------------------------------------------===//
// Accessors
//===----------------------------------------------------------------------===//

Kind TraceType::kind() const { return node().kind; }

bool TraceType::isScalar() const {
  switch (kind()) {
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
  case Kind::String:
  case Kind::None:
    return true;
  default:
    return false;
  }
}

const TensorSpec &TraceType::tensorSpec() const {
  assert(isTensorLike() && "tensorSpec() of a non-tensor");
  return node().spec;
}
int64_t TraceType::aliasClass() const {
  assert(kind() == Kind::Variable && "aliasClass() of a non-variable");
  return node().aliasClass;
}
bool TraceType::boolValue() const {
  assert(kind() == Kind::Bool && "boolValue() of a non-bool");
  return node().boolValue;
}
int64_t TraceType::intValue() const {
  assert(kind() == Kind::Int && "intValue() of a non-integer");
  return node().intValue;
}
uint64_t TraceType::uintValue() const {
  assert(kind() == Kind::Int && "uintValue() of a non-integer");
  return static_cast<uint64_t>(node().intValue);
}
bool TraceType::isUnsigned() const {
  assert(kind() == Kind::Int && "isUnsigned() of a non-integer");
  return node().isUnsigned;
}
double TraceType::floatValue() const {
  assert(kind() == Kind::Float && "floatValue() of a non-float");
  return node().floatValue;
}
const std::string &TraceType::cppType() const {
  assert((kind() == Kind::Int || kind() == Kind::Float) &&
         "cppType() of a non-numeric scalar");
  return node().text;
}
const std::string &TraceType::stringValue() const {
  assert(kind() == Kind::String && "stringValue() of a non-string");
  return node().text;
}
SequenceKind TraceType::sequenceKind() const {
  assert(kind() == Kind::Sequence && "sequenceKind() of a non-sequence");
  return node().seqKind;
}
const std::vector<TraceType> &TraceType::elements() const {
  assert(kind() == Kind::Sequence && "elements() of a non-sequence");
  return node().children;
}
std::optional<TraceType> TraceType::optionalValue() const {
  assert(kind() == Kind::Optional && "optionalValue() of a non-optional");
  if (node().children.empty())
    return std::nullopt;
  return node().children.front();
}
const std::vector<std::pair<TraceType, TraceType>> &
TraceType::mapEntries() const {
  assert(kind() == Kind::Map && "mapEntries() of a non-map");
  return node().entries;
}
const std::string &TraceType::userTypeName() const {
  assert(kind() == Kind::User && "userTypeName() of a non-user type");
  return node().text;
}
const TraceType &TraceType::userInner() const {
  assert(kind() == Kind::User && "userInner() of a non-user type");
  return node().children.front();
}

bool TraceType::isTarget() const {
  return kind() == Kind::User && node().text == kTargetTypeName &&
         node().children.size() == 1 &&
         node().children.front().kind() == Kind::String;
}

const std::string &TraceType::targetDevice() const {
  assert(isTarget() && "targetDevice() of a non-target type");
  return node().children.front().stringValue();
}

size_t TraceType::hash() const { return node().hash; }

//===----------------------------------------------------------------------===//
// Total order and equality
//===----------------------------------------------------------------------===//

template <typename T> static int cmp(const T &lhs, const T &rhs) {
  return lhs < rhs ? -1 : (rhs < lhs ? 1 : 0);
}

static int compareSpecs(const TensorSpec &lhs, const TensorSpec &rhs) {
  if (int c = cmp(lhs.dtype, rhs.dtype))
    return c;
  if (int c = lhs.device.compare(rhs.device))
    return c < 0 ? -1 : 1;
  if (int c = cmp(lhs.unknownRank, rhs.unknownRank))
    return c;
  if (int c = cmp(lhs.shape.size(), rhs.shape.size()))
    return c;
  for (size_t i = 0, e = lhs.shape.size(); i != e; ++i)
    if (int c = cmp(lhs.shape[i], rhs.shape[i]))
      return c;
  for (size_t i = 0, e = lhs.shape.size(); i != e; ++i) {
    DimRange l = lhs.range(i), r = rhs.range(i);
    if (int c = cmp(l.min, r.min))
      return c;
    if (int c = cmp(l.max, r.max))
      return c;
  }
  return 0;
}

/// Numeric order, with -0.0 < +0.0 and NaN (canonical) greatest.
static int compareDoubles(double lhs, double rhs) {
  bool lhsNan = std::isnan(lhs), rhsNan = std::isnan(rhs);
  if (lhsNan || rhsNan)
    return cmp(lhsNan, rhsNan);
  if (lhs == rhs)
    return cmp(!std::signbit(lhs), !std::signbit(rhs));
  return lhs < rhs ? -1 : 1;
}

static int compareNodes(const TraceTypeNode &lhs, const TraceTypeNode &rhs) {
  if (&lhs == &rhs)
    return 0;
  if (int c = cmp(lhs.kind, rhs.kind))
    return c;
  switch (lhs.kind) {
  case Kind::Tensor:
    return compareSpecs(lhs.spec, rhs.spec);
  case Kind::Variable:
    if (int c = compareSpecs(lhs.spec, rhs.spec))
      return c;
    return cmp(lhs.aliasClass, rhs.aliasClass);
  case Kind::Bool:
    return cmp(lhs.boolValue, rhs.boolValue);
  case Kind::Int:
    if (int c = lhs.text.compare(rhs.text))
      return c < 0 ? -1 : 1;
    if (int c = cmp(lhs.isUnsigned, rhs.isUnsigned))
      return c;
    if (lhs.isUnsigned)
      return cmp(static_cast<uint64_t>(lhs.intValue),
                 static_cast<uint64_t>(rhs.intValue));
    return cmp(lhs.intValue, rhs.intValue);
  case Kind::Float:
    if (int c = lhs.text.compare(rhs.text))
      return c < 0 ? -1 : 1;
    return compareDoubles(lhs.floatValue, rhs.floatValue);
  case Kind::String:
    if (int c = lhs.text.compare(rhs.text))
      return c < 0 ? -1 : 1;
    return 0;
  case Kind::None:
    return 0;
  case Kind::Sequence:
  case Kind::Optional:
  case Kind::User:
    if (int c = cmp(lhs.seqKind, rhs.seqKind))
      return c;
    if (int c = lhs.text.compare(rhs.text))
      return c < 0 ? -1 : 1;
    if (int c = cmp(lhs.children.size(), rhs.children.size()))
      return c;
    for (size_t i = 0, e = lhs.children.size(); i != e; ++i)
      if (int c = lhs.children[i].compare(rhs.children[i]))
        return c;
    return 0;
  case Kind::Map:
    if (int c = cmp(lhs.entries.size(), rhs.entries.size()))
      return c;
    for (size_t i = 0, e = lhs.entries.size(); i != e; ++i) {
      if (int c = lhs.entries[i].first.compare(rhs.entries[i].first))
        return c;
      if (int c = lhs.entries[i].second.compare(rhs.entries[i].second))
        return c;
    }
    return 0;
  }
  llvm_unreachable("unknown TraceType kind");
}

int TraceType::compare(const TraceType &other) const {
  return compareNodes(node(), other.node());
}

bool TraceType::operator==(const TraceType &other) const {
  if (impl == other.impl)
    return true;
  if (node().hash != other.node().hash)
    return false;
  return compareNodes(node(), other.node()) == 0;
}

//===----------------------------------------------------------------------===//
// Subtyping
//===----------------------------------------------------------------------===//

static bool specIsSubtype(const TensorSpec &sub, const TensorSpec &super) {
  if (sub.dtype != super.dtype || sub.device != super.device)
    return false;
  if (super.unknownRank)
    return true;
  if (sub.unknownRank || sub.shape.size() != super.shape.size())
    return false;
  for (size_t i = 0, e = sub.shape.size(); i != e; ++i) {
    if (super.shape[i] != kDynamic) {
      if (super.shape[i] != sub.shape[i])
        return false;
      continue;
    }
    // A bounded dynamic dim takes the sizes in its range, and the dynamic
    // dims whose range lies inside it.
    DimRange range = super.range(i);
    DimRange inner = sub.shape[i] == kDynamic
                         ? sub.range(i)
                         : DimRange{sub.shape[i], sub.shape[i]};
    if (inner.min < range.min || inner.max > range.max)
      return false;
  }
  return true;
}

static bool isSubtypeNode(const TraceTypeNode &sub, const TraceTypeNode &super);

static bool isSubtype(const TraceType &sub, const TraceType &super) {
  return isSubtypeNode(TraceTypeAccess::get(sub), TraceTypeAccess::get(super));
}

static bool isSubtypeNode(const TraceTypeNode &sub,
                          const TraceTypeNode &super) {
  if (&sub == &super)
    return true;
  if (sub.kind != super.kind)
    return false;
  switch (sub.kind) {
  case Kind::Tensor:
    return specIsSubtype(sub.spec, super.spec);
  case Kind::Variable:
    return sub.aliasClass == super.aliasClass &&
           specIsSubtype(sub.spec, super.spec);
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
  case Kind::String:
  case Kind::None:
    // Scalars are baked into the trace: only the same value is accepted.
    return sub.hash == super.hash && compareNodes(sub, super) == 0;
  case Kind::Sequence:
  case Kind::Optional:
  case Kind::User:
    if (sub.seqKind != super.seqKind || sub.text != super.text ||
        sub.children.size() != super.children.size())
      return false;
    for (size_t i = 0, e = sub.children.size(); i != e; ++i)
      if (!isSubtype(sub.children[i], super.children[i]))
        return false;
    return true;
  case Kind::Map:
    if (sub.entries.size() != super.entries.size())
      return false;
    for (size_t i = 0, e = sub.entries.size(); i != e; ++i) {
      if (sub.entries[i].first != super.entries[i].first ||
          !isSubtype(sub.entries[i].second, super.entries[i].second))
        return false;
    }
    return true;
  }
  llvm_unreachable("unknown TraceType kind");
}

bool TraceType::isSubtypeOf(const TraceType &other) const {
  return isSubtypeNode(node(), other.node());
}

//===----------------------------------------------------------------------===//
// Common supertype
//===----------------------------------------------------------------------===//

static std::optional<TensorSpec> joinSpecs(const TensorSpec &lhs,
                                           const TensorSpec &rhs) {
  if (lhs.dtype != rhs.dtype || lhs.device != rhs.device)
    return std::nullopt;
  TensorSpec result;
  result.dtype = lhs.dtype;
  result.device = lhs.device;
  if (lhs.unknownRank || rhs.unknownRank ||
      lhs.shape.size() != rhs.shape.size()) {
    result.unknownRank = true;
    return result;
  }
  result.shape.reserve(lhs.shape.size());
  bool bounded = false;
  std::vector<DimRange> ranges;
  for (size_t i = 0, e = lhs.shape.size(); i != e; ++i) {
    bool same = lhs.shape[i] == rhs.shape[i] && lhs.range(i) == rhs.range(i);
    result.shape.push_back(same ? lhs.shape[i] : kDynamic);
    // A dynamic dim of a bounded side keeps a bound: the hull of both.
    DimRange range;
    if (!same || lhs.shape[i] == kDynamic) {
      auto of = [&](const TensorSpec &s) {
        return s.shape[i] == kDynamic ? s.range(i)
                                      : DimRange{s.shape[i], s.shape[i]};
      };
      DimRange l = of(lhs), r = of(rhs);
      // Only a range given by a spec survives: two sizes relax to any size,
      // as they always did.
      bool given = (lhs.shape[i] == kDynamic && l.bounded()) ||
                   (rhs.shape[i] == kDynamic && r.bounded());
      if (given && l.bounded() && r.bounded())
        range = DimRange{std::min(l.min, r.min), std::max(l.max, r.max)};
    }
    bounded |= range.bounded();
    ranges.push_back(range);
  }
  if (bounded)
    result.ranges = std::move(ranges);
  return result;
}

static std::optional<TraceType> join(const TraceType &lhs,
                                     const TraceType &rhs) {
  if (lhs == rhs)
    return lhs;
  if (lhs.kind() != rhs.kind())
    return std::nullopt;
  switch (lhs.kind()) {
  case Kind::Tensor: {
    std::optional<TensorSpec> spec =
        joinSpecs(lhs.tensorSpec(), rhs.tensorSpec());
    if (!spec)
      return std::nullopt;
    return TraceType::tensor(std::move(*spec));
  }
  case Kind::Variable: {
    if (lhs.aliasClass() != rhs.aliasClass())
      return std::nullopt;
    std::optional<TensorSpec> spec =
        joinSpecs(lhs.tensorSpec(), rhs.tensorSpec());
    if (!spec)
      return std::nullopt;
    return TraceType::variable(std::move(*spec), lhs.aliasClass());
  }
  case Kind::Bool:
  case Kind::Int:
  case Kind::Float:
  case Kind::String:
  case Kind::None:
    // Different scalar values have no common supertype: they are baked in.
    return std::nullopt;
  case Kind::Sequence: {
    if (lhs.sequenceKind() != rhs.sequenceKind() ||
        lhs.elements().size() != rhs.elements().size())
      return std::nullopt;
    std::vector<TraceType> elements;
    elements.reserve(lhs.elements().size());
    for (auto [l, r] : llvm::zip_equal(lhs.elements(), rhs.elements())) {
      std::optional<TraceType> element = join(l, r);
      if (!element)
        return std::nullopt;
      elements.push_back(std::move(*element));
    }
    return TraceType::sequence(lhs.sequenceKind(), std::move(elements));
  }
  case Kind::Optional: {
    std::optional<TraceType> l = lhs.optionalValue(), r = rhs.optionalValue();
    if (!l || !r)
      return std::nullopt; // Only one is engaged (both empty are equal).
    std::optional<TraceType> value = join(*l, *r);
    if (!value)
      return std::nullopt;
    return TraceType::optional(std::move(*value));
  }
  case Kind::Map: {
    if (lhs.mapEntries().size() != rhs.mapEntries().size())
      return std::nullopt;
    std::vector<std::pair<TraceType, TraceType>> entries;
    entries.reserve(lhs.mapEntries().size());
    for (auto [l, r] : llvm::zip_equal(lhs.mapEntries(), rhs.mapEntries())) {
      if (l.first != r.first)
        return std::nullopt;
      std::optional<TraceType> value = join(l.second, r.second);
      if (!value)
        return std::nullopt;
      entries.emplace_back(l.first, std::move(*value));
    }
    return TraceType::map(std::move(entries));
  }
  case Kind::User: {
    if (lhs.userTypeName() != rhs.userTypeName())
      return std::nullopt;
    std::optional<TraceType> inner = join(lhs.userInner(), rhs.userInner());
    if (!inner)
      return std::nullopt;
    return TraceType::user(lhs.userTypeName(), std::move(*inner));
  }
  }
  llvm_unreachable("unknown TraceType kind");
}

std::optional<TraceType> TraceType::mostSpecificCommonSupertype(
    const std::vector<TraceType> &others) const {
  std::optional<TraceType> result = *this;
  for (const TraceType &other : others) {
    result = join(*result, other);
    if (!result)
      return std::nullopt;
  }
  return result;
}

static void accumulateGenerality(const TraceType &type,
                                 std::pair<size_t, size_t> &acc) {
  switch (type.kind()) {
  case Kind::Tensor:
  case Kind::Variable:
    if (type.tensorSpec().unknownRank)
      ++acc.first;
    else
      acc.second += llvm::count(type.tensorSpec().shape, kDynamic);
    return;
  case Kind::Sequence:
    for (const TraceType &element : type.elements())
      accumulateGenerality(element, acc);
    return;
  case Kind::Optional:
    if (std::optional<TraceType> value = type.optionalValue())
      accumulateGenerality(*value, acc);
    return;
  case Kind::Map:
    for (const auto &entry : type.mapEntries()) {
      accumulateGenerality(entry.first, acc);
      accumulateGenerality(entry.second, acc);
    }
    return;
  case Kind::User:
    accumulateGenerality(type.userInner(), acc);
    return;
  default:
    return;
  }
}

std::pair<size_t, size_t> TraceType::generality() const {
  std::pair<size_t, size_t> acc{0, 0};
  accumulateGenerality(*this, acc);
  return acc;
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

static void printDouble(llvm::raw_ostream &os, double value, bool asFloat) {
  if (std::isnan(value)) {
    os << "nan";
    return;
  }
  if (std::isinf(value)) {
    os << (value < 0 ? "-inf" : "inf");
    return;
  }
  char buffer[64];
  std::to_chars_result result =
      asFloat ? std::to_chars(buffer, buffer + sizeof(buffer),
                              static_cast<float>(value))
              : std::to_chars(buffer, buffer + sizeof(buffer), value);
  os << llvm::StringRef(buffer, result.ptr - buffer);
}

/// C-style quoting: \" \\ \n \t, other non-printable bytes as \xNN.
static void printQuoted(llvm::raw_ostream &os, llvm::StringRef text) {
  os << '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\')
      os << '\\' << c;
    else if (c == '\n')
      os << "\\n";
    else if (c == '\t')
      os << "\\t";
    else if (llvm::isPrint(c))
      os << c;
    else
      os << "\\x" << llvm::hexdigit(c >> 4) << llvm::hexdigit(c & 15);
  }
  os << '"';
}

/// The value of a scalar without its type, for map keys in paths.
static void printKeyLabel(llvm::raw_ostream &os, const TraceType &key) {
  switch (key.kind()) {
  case Kind::Bool:
    os << (key.boolValue() ? "true" : "false");
    return;
  case Kind::Int:
    if (key.isUnsigned())
      os << key.uintValue();
    else
      os << key.intValue();
    return;
  case Kind::Float:
    printDouble(os, key.floatValue(), key.cppType() == "float");
    return;
  case Kind::String:
    printQuoted(os, key.stringValue());
    return;
  default:
    os << key.str();
    return;
  }
}

static void print(llvm::raw_ostream &os, const TraceType &type) {
  auto printList = [&os](llvm::ArrayRef<TraceType> list) {
    llvm::interleaveComma(list, os,
                          [&os](const TraceType &t) { print(os, t); });
  };
  switch (type.kind()) {
  case Kind::Tensor:
    printSpec(os, type.tensorSpec());
    return;
  case Kind::Variable: {
    TensorSpec spec = type.tensorSpec();
    std::string tensor = formatTensorSpec(spec);
    // "Tensor<...>" -> "Variable<..., alias=N>".
    os << "Variable" << llvm::StringRef(tensor).drop_front(6).drop_back(1)
       << ", alias=" << type.aliasClass() << '>';
    return;
  }
  case Kind::Bool:
    os << "bool=" << (type.boolValue() ? "true" : "false");
    return;
  case Kind::Int:
    os << type.cppType() << '=';
    printKeyLabel(os, type);
    return;
  case Kind::Float:
    os << type.cppType() << '=';
    printKeyLabel(os, type);
    return;
  case Kind::String:
    os << "string=";
    printQuoted(os, type.stringValue());
    return;
  case Kind::None:
    os << "nullopt";
    return;
  case Kind::Sequence:
    switch (type.sequenceKind()) {
    case SequenceKind::Vector:
      os << '[';
      printList(type.elements());
      os << ']';
      return;
    case SequenceKind::Array:
      os << "array[";
      printList(type.elements());
      os << ']';
      return;
    case SequenceKind::Tuple:
      os << '(';
      printList(type.elements());
      if (type.elements().size() == 1)
        os << ',';
      os << ')';
      return;
    case SequenceKind::Pair:
      os << "pair(";
      printList(type.elements());
      os << ')';
      return;
    }
    llvm_unreachable("unknown sequence kind");
  case Kind::Optional:
    os << "optional(";
    if (std::optional<TraceType> value = type.optionalValue())
      print(os, *value);
    os << ')';
    return;
  case Kind::Map:
    os << '{';
    llvm::interleaveComma(type.mapEntries(), os, [&os](const auto &entry) {
      print(os, entry.first);
      os << ": ";
      print(os, entry.second);
    });
    os << '}';
    return;
  case Kind::User:
    if (type.isTarget()) {
      os << '@' << type.targetDevice();
      return;
    }
    os << type.userTypeName() << '(';
    print(os, type.userInner());
    os << ')';
    return;
  }
  llvm_unreachable("unknown TraceType kind");
}

std::string TraceType::str() const {
  std::string result;
  llvm::raw_string_ostream os(result);
  print(os, *this);
  return result;
}

static llvm::StringRef kindName(const TraceType &type) {
  switch (type.kind()) {
  case Kind::Tensor:
    return "tensor";
  case Kind::Variable:
    return "variable";
  case Kind::Bool:
    return "bool";
  case Kind::Int:
    return "integer";
  case Kind::Float:
    return "floating-point";
  case Kind::String:
    return "string";
  case Kind::None:
    return "nullopt";
  case Kind::Sequence:
    switch (type.sequenceKind()) {
    case SequenceKind::Vector:
      return "vector";
    case SequenceKind::Array:
      return "array";
    case SequenceKind::Tuple:
      return "tuple";
    case SequenceKind::Pair:
      return "pair";
    }
    break;
  case Kind::Optional:
    return "optional";
  case Kind::Map:
    return "map";
  case Kind::User:
    return "user type";
  }
  llvm_unreachable("unknown TraceType kind");
}

//===----------------------------------------------------------------------===//
// Mismatches
//===----------------------------------------------------------------------===//

namespace {
class MismatchFinder {
public:
  explicit MismatchFinder(size_t limit) : limit(limit) {}

  /// Appends the mismatches under (actual, expected) at `path`; returns false
  /// once the limit is reached.
  bool visit(const TraceType &actual, const TraceType &expected,
             const std::string &path);

  std::vector<Mismatch> found;

private:
  bool report(const TraceType &actual, const TraceType &expected,
              const std::string &path, std::string reason) {
    found.push_back(
        Mismatch{path, expected.str(), actual.str(), std::move(reason)});
    return found.size() < limit;
  }
  bool visitSpec(const TraceType &actual, const TraceType &expected,
                 const std::string &path);

  size_t limit;
};
} // namespace

static std::string formatString(const char *format, auto... args) {
  std::string result;
  llvm::raw_string_ostream os(result);
  os << llvm::format(format, args...);
  return result;
}

bool MismatchFinder::visitSpec(const TraceType &actual,
                               const TraceType &expected,
                               const std::string &path) {
  const TensorSpec &a = actual.tensorSpec(), &e = expected.tensorSpec();
  auto dtype = [](runtime::DType t) {
    return std::string(runtime::dtypeName(t));
  };
  if (a.dtype != e.dtype)
    return report(actual, expected, path,
                  "dtype differs: expected " + dtype(e.dtype) + ", got " +
                      dtype(a.dtype));
  if (a.device != e.device)
    return report(actual, expected, path,
                  "device differs: expected " + e.device + ", got " + a.device);
  if (e.unknownRank)
    return true;
  if (a.unknownRank)
    return report(actual, expected, path,
                  formatString("rank differs: expected rank %zu, got an "
                               "unknown rank",
                               e.shape.size()));
  if (a.shape.size() != e.shape.size())
    return report(actual, expected, path,
                  formatString("rank differs: expected %zu, got %zu",
                               e.shape.size(), a.shape.size()));
  for (size_t i = 0, n = a.shape.size(); i != n; ++i) {
    if (e.shape[i] == kDynamic) {
      DimRange range = e.range(i);
      if (a.shape[i] != kDynamic &&
          (a.shape[i] < range.min || a.shape[i] > range.max))
        return report(actual, expected, path,
                      formatString("dim %zu is %lld, outside the range "
                                   "[%lld, %lld] of dynamic dim %zu",
                                   i, static_cast<long long>(a.shape[i]),
                                   static_cast<long long>(range.min),
                                   static_cast<long long>(range.max), i));
      continue;
    }
    if (e.shape[i] == a.shape[i])
      continue;
    std::string got = a.shape[i] == kDynamic ? std::string("a dynamic dim")
                                             : std::to_string(a.shape[i]);
    return report(actual, expected, path,
                  formatString("dim %zu differs: expected %lld, got %s", i,
                               static_cast<long long>(e.shape[i]),
                               got.c_str()));
  }
  return true;
}

bool MismatchFinder::visit(const TraceType &actual, const TraceType &expected,
                           const std::string &path) {
  if (actual.kind() != expected.kind() ||
      (actual.kind() == Kind::Sequence &&
       actual.sequenceKind() != expected.sequenceKind()))
    return report(actual, expected, path,
                  "kind differs: expected a " + kindName(expected).str() +
                      ", got a " + kindName(actual).str());
  switch (actual.kind()) {
  case Kind::Tensor:
    return visitSpec(actual, expected, path);
  case Kind::Variable: {
    size_t before = found.size();
    if (!visitSpec(actual, expected, path))
      return false;
    if (found.size() != before)
      return true; // One report per variable.
    if (actual.aliasClass() != expected.aliasClass())
      return report(
          actual, expected, path,
          formatString("aliasing differs: expected the storage of argument "
                       "%lld, got the storage of argument %lld",
                       static_cast<long long>(expected.aliasClass()),
                       static_cast<long long>(actual.aliasClass())));
    return true;
  }
  case Kind::Bool:
  case Kind::String:
  case Kind::None:
    if (actual != expected)
      return report(actual, expected, path,
                    "value differs (scalars are baked into the trace)");
    return true;
  case Kind::Int:
  case Kind::Float:
    if (actual.cppType() != expected.cppType() ||
        (actual.kind() == Kind::Int &&
         actual.isUnsigned() != expected.isUnsigned()))
      return report(actual, expected, path,
                    "C++ type differs: expected " + expected.cppType() +
                        ", got " + actual.cppType());
    if (actual != expected)
      return report(actual, expected, path,
                    "value differs (scalars are baked into the trace)");
    return true;
  case Kind::Sequence: {
    llvm::ArrayRef<TraceType> a = actual.elements(), e = expected.elements();
    if (a.size() != e.size())
      return report(actual, expected, path,
                    formatString("length differs: expected %zu, got %zu",
                                 e.size(), a.size()));
    bool isPair = actual.sequenceKind() == SequenceKind::Pair;
    for (size_t i = 0, n = a.size(); i != n; ++i) {
      std::string sub = isPair ? path + (i == 0 ? ".first" : ".second")
                               : path + "[" + std::to_string(i) + "]";
      if (!visit(a[i], e[i], sub))
        return false;
    }
    return true;
  }
  case Kind::Optional: {
    std::optional<TraceType> a = actual.optionalValue(),
                             e = expected.optionalValue();
    if (a.has_value() != e.has_value())
      return report(actual, expected, path,
                    e ? "expected an engaged optional, got an empty one"
                      : "expected an empty optional, got an engaged one");
    if (a)
      return visit(*a, *e, path + ".value()");
    return true;
  }
  case Kind::Map: {
    llvm::ArrayRef<std::pair<TraceType, TraceType>> a = actual.mapEntries(),
                                                    e = expected.mapEntries();
    // Entries are sorted by key: a merge finds missing and extra keys.
    auto keyLabel = [](const TraceType &key) {
      std::string label;
      llvm::raw_string_ostream os(label);
      printKeyLabel(os, key);
      return label;
    };
    size_t i = 0, j = 0;
    std::vector<std::pair<size_t, size_t>> common;
    std::string missing, extra;
    while (i != a.size() || j != e.size()) {
      int c = i == a.size()   ? 1
              : j == e.size() ? -1
                              : a[i].first.compare(e[j].first);
      if (c == 0) {
        common.emplace_back(i++, j++);
      } else if (c < 0) {
        extra += (extra.empty() ? "" : ", ") + keyLabel(a[i++].first);
      } else {
        missing += (missing.empty() ? "" : ", ") + keyLabel(e[j++].first);
      }
    }
    if (!missing.empty() || !extra.empty()) {
      std::string reason = "keys differ:";
      if (!missing.empty())
        reason += " missing " + missing;
      if (!extra.empty())
        reason +=
            std::string(missing.empty() ? "" : ";") + " unexpected " + extra;
      return report(actual, expected, path, std::move(reason));
    }
    for (auto [ai, ei] : common)
      if (!visit(a[ai].second, e[ei].second,
                 path + "[" + keyLabel(a[ai].first) + "]"))
        return false;
    return true;
  }
  case Kind::User:
    if (actual.userTypeName() != expected.userTypeName())
      return report(actual, expected, path,
                    "user type differs: expected " + expected.userTypeName() +
                        ", got " + actual.userTypeName());
    return visit(actual.userInner(), expected.userInner(), path);
  }
  llvm_unreachable("unknown TraceType kind");
}

std::vector<Mismatch> tracing::findMismatches(const TraceType &actual,
                                              const TraceType &expected,
                                              std::string rootPath,
                                              size_t limit) {
  if (limit == 0 || actual.isSubtypeOf(expected))
    return {};
  MismatchFinder finder(limit);
  finder.visit(actual, expected, rootPath);
  assert(!finder.found.empty() && "isSubtypeOf and findMismatch disagree");
  return std::move(finder.found);
}

std::optional<Mismatch> tracing::findMismatch(const TraceType &actual,
                                              const TraceType &expected,
                                              std::string rootPath) {
  std::vector<Mismatch> found =
      findMismatches(actual, expected, std::move(rootPath), 1);
  if (found.empty())
    return std::nullopt;
  return std::move(found.front());
}

std::optional<Mismatch>
tracing::findArgsMismatch(const TraceType &actualArgs,
                          const TraceType &expectedArgs) {
  auto isArgs = [](const TraceType &t) {
    return t.kind() == Kind::Sequence &&
           t.sequenceKind() == SequenceKind::Tuple;
  };
  if (!isArgs(actualArgs) || !isArgs(expectedArgs))
    return findMismatch(actualArgs, expectedArgs);
  std::string actualTarget = targetOf(actualArgs),
              expectedTarget = targetOf(expectedArgs);
  if (actualTarget != expectedTarget)
    return Mismatch{"target", "@" + expectedTarget, "@" + actualTarget,
                    "target device differs: expected " + expectedTarget +
                        ", got " + actualTarget};
  llvm::ArrayRef<TraceType> a = actualArgs.elements(),
                            e = expectedArgs.elements();
  auto dropTarget = [](llvm::ArrayRef<TraceType> elements) {
    return !elements.empty() && elements.back().isTarget()
               ? elements.drop_back()
               : elements;
  };
  a = dropTarget(a);
  e = dropTarget(e);
  if (a.size() != e.size())
    return Mismatch{
        "", expectedArgs.str(), actualArgs.str(),
        formatString("expected %zu arguments, got %zu", e.size(), a.size())};
  for (size_t i = 0, n = a.size(); i != n; ++i)
    if (std::optional<Mismatch> m =
            findMismatch(a[i], e[i], "arg" + std::to_string(i)))
      return m;
  return std::nullopt;
}

std::string tracing::targetOf(const TraceType &key) {
  if (key.kind() == Kind::Sequence &&
      key.sequenceKind() == SequenceKind::Tuple && !key.elements().empty() &&
      key.elements().back().isTarget())
    return key.elements().back().targetDevice();
  return "cpu";
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

std::optional<size_t>
tracing::selectMostSpecific(const TraceType &call,
                            const std::vector<TraceType> &candidates) {
  std::optional<size_t> best;
  std::pair<size_t, size_t> bestGenerality;
  for (auto [index, candidate] : llvm::enumerate(candidates)) {
    if (!call.isSubtypeOf(candidate))
      continue;
    std::pair<size_t, size_t> generality = candidate.generality();
    if (best) {
      if (generality > bestGenerality)
        continue;
      if (generality == bestGenerality &&
          candidate.compare(candidates[*best]) >= 0)
        continue; // Equal duplicates keep the lowest index.
    }
    best = index;
    bestGenerality = generality;
  }
  return best;
}
