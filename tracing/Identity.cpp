//===- Identity.cpp - identity keys for shared objects --------------------===//
//
// A std::shared_ptr argument is keyed by the identity of the object it
// points to: a number given the first time the object is seen and never
// given to another object, however addresses are reused. The registry holds
// a weak_ptr to each object, which keeps its control block (and so its owner
// identity) from being reused while the entry exists; entries of dead objects
// are pruned as the registry grows, after which their numbers are dead for
// good (identityAlive answers false).
//
//===----------------------------------------------------------------------===//

#include "tgc/TraceTraits.h"
#include "tracing/TraceTypeWalk.h"

#include <map>
#include <mutex>
#include <unordered_map>

using namespace tgc::tracing;

namespace {
/// An object: its owner (control block) and address (aliasing shared_ptrs to
/// different sub-objects are different identities).
struct ObjectKey {
  std::weak_ptr<const void> owner;
  const void *address;
};
struct ObjectLess {
  bool operator()(const ObjectKey &a, const ObjectKey &b) const {
    if (a.owner.owner_before(b.owner))
      return true;
    if (b.owner.owner_before(a.owner))
      return false;
    return std::less<const void *>()(a.address, b.address);
  }
};

struct IdentityRegistry {
  std::mutex mutex;
  std::map<ObjectKey, uint64_t, ObjectLess> ids;
  std::unordered_map<uint64_t, std::weak_ptr<const void>> objects;
  uint64_t next = 1;
  size_t pruneAt = 64;

  void pruneLocked() {
    for (auto it = ids.begin(); it != ids.end();) {
      if (it->first.owner.expired()) {
        objects.erase(it->second);
        it = ids.erase(it);
      } else {
        ++it;
      }
    }
    pruneAt = std::max<size_t>(64, 2 * ids.size());
  }
};

IdentityRegistry &registry() {
  // Never destroyed: functions may outlive static destruction order.
  static IdentityRegistry *instance = new IdentityRegistry;
  return *instance;
}
} // namespace

static const char kIdentityPrefix[] = "identity of ";

TraceType
tgc::tracing::identityTraceType(const std::shared_ptr<const void> &object,
                                std::string_view typeName) {
  if (!object)
    return TraceType::none();
  IdentityRegistry &r = registry();
  uint64_t id;
  {
    std::lock_guard lock(r.mutex);
    ObjectKey key{object, object.get()};
    auto it = r.ids.find(key);
    if (it != r.ids.end()) {
      id = it->second;
    } else {
      if (r.ids.size() >= r.pruneAt)
        r.pruneLocked();
      id = r.next++;
      r.ids.emplace(std::move(key), id);
      r.objects.emplace(id, object);
    }
  }
  return TraceType::user(kIdentityPrefix + std::string(typeName),
                         TraceType::unsignedInteger(id, "id"));
}

std::optional<uint64_t> tgc::tracing::identityOf(const TraceType &type) {
  if (type.kind() != TraceType::Kind::User ||
      type.userTypeName().rfind(kIdentityPrefix, 0) != 0)
    return std::nullopt;
  const TraceType &inner = type.userInner();
  if (inner.kind() != TraceType::Kind::Int)
    return std::nullopt;
  return inner.uintValue();
}

bool tgc::tracing::identityAlive(uint64_t id) {
  IdentityRegistry &r = registry();
  std::lock_guard lock(r.mutex);
  auto it = r.objects.find(id);
  return it != r.objects.end() && !it->second.expired();
}

bool tgc::tracing::hasDeadIdentity(const TraceType &type) {
  return anyNested(type, [](const TraceType &t) {
    std::optional<uint64_t> id = identityOf(t);
    return id && !identityAlive(*id);
  });
}

bool tgc::tracing::hasIdentity(const TraceType &type) {
  return anyNested(
      type, [](const TraceType &t) { return identityOf(t).has_value(); });
}
