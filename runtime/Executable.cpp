//===- Executable.cpp - compiled plans and their executor -----------------===//
//
// The executor keeps, per Executable, a pool of run states: an arena and the
// kernel argument views of every step, built once and revalidated (data
// pointer, dtype, shape) on each run. In the steady state a run allocates
// only its results, and the kernels write those straight into them: a
// result's root value is redirected from its arena slot to the result's
// storage for that run, so only the views touching it are rebuilt.
//
//===----------------------------------------------------------------------===//

#include "runtime/Executable.h"
#include "runtime/Environment.h"
#include "runtime/LargeBuffer.h"
#include "runtime/Shape.h"
#include "tgc/StridedView.h"

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

#include <omp.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <numeric>
#include <thread>
#include <unordered_map>

using namespace tgc::runtime;

namespace {

constexpr int64_t kArenaAlignment = 64;

/// absl::StrCat takes absl::string_view, which is not std::string_view here.
absl::string_view sv(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

/// "tensor<2x3xf32>", "tensor<f32>".
std::string typeString(const ValueInfo &info) {
  std::string result = tensorTypeString(info.dtype, info.shape);
  if (!info.layout.empty())
    absl::StrAppend(&result, " (", info.layout, ")");
  return result;
}

/// Byte size of a value, or -1 for a negative dim or an overflow.
int64_t byteSizeOf(DType dtype, const std::vector<int64_t> &shape) {
  int64_t bytes = static_cast<int64_t>(dtypeSize(dtype));
  for (int64_t d : shape) {
    if (d < 0 || __builtin_mul_overflow(bytes, d, &bytes))
      return -1;
  }
  return bytes;
}

/// Byte size of a value's storage: its layout's size, or the dense size.
int64_t byteSizeOf(const ValueInfo &info) {
  if (!info.layout.empty())
    return info.layoutBytes;
  return byteSizeOf(info.dtype, info.shape);
}

int64_t alignUp(int64_t bytes) {
  return (bytes + kArenaAlignment - 1) / kArenaAlignment * kArenaAlignment;
}

/// A new arena of at least `bytes` (64-byte multiples), its pages faulted in
/// at once: a first run then takes no page fault per page (on a VM a fault
/// costs tens of microseconds; ResNet-50's 7 MB arena took ~35 ms of faults
/// otherwise). 4 KiB pages (LargeBuffer.h says why). No bytes when out of
/// memory.
ArenaPool::Arena newArena(int64_t bytes) {
  int64_t rounded = alignUp(std::max<int64_t>(bytes, 1));
  ArenaPool::Arena arena;
  arena.bytes =
      allocateLargeBuffer(static_cast<size_t>(rounded), /*populate=*/true,
                          /*hugePages=*/false);
  arena.capacity = arena.bytes ? rounded : 0;
  return arena;
}

bool inRange(int64_t id, size_t size) {
  return id >= 0 && static_cast<uint64_t>(id) < size;
}

const char *storageKindName(ValueStorage::Kind kind) {
  switch (kind) {
  case ValueStorage::Kind::Input:
    return "input";
  case ValueStorage::Kind::Constant:
    return "constant";
  case ValueStorage::Kind::Arena:
    return "arena";
  case ValueStorage::Kind::View:
    return "view";
  }
  return "?";
}

/// Follows View storage from `id` to the value that owns the bytes. Returns
/// -1 on an out-of-range target or a cycle; adds the views' offsets to
/// `offset` when given.
int64_t resolveRoot(const std::vector<ValueInfo> &values, int64_t id,
                    int64_t *offset = nullptr) {
  for (size_t hops = 0; hops <= values.size(); ++hops) {
    if (!inRange(id, values.size()))
      return -1;
    const ValueStorage &storage = values[static_cast<size_t>(id)].storage;
    if (storage.kind != ValueStorage::Kind::View)
      return id;
    if (offset)
      *offset += storage.offset;
    id = storage.index;
  }
  return -1;
}

/// Appends `text` as a JSON string literal.
void appendJsonString(std::string &out, std::string_view text) {
  out += '"';
  for (char c : text) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\b':
      out += "\\b";
      break;
    case '\f':
      out += "\\f";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\r':
      out += "\\r";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buffer[8];
        std::snprintf(buffer, sizeof(buffer), "\\u%04x",
                      static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += buffer;
      } else {
        out += c;
      }
    }
  }
  out += '"';
}

void appendJsonNumber(std::string &out, double value) {
  if (!(value > -1e300 && value < 1e300)) // NaN and infinities
    value = 0;
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.3f", value);
  out += buffer;
}

} // namespace

//===----------------------------------------------------------------------===//
// Run states
//===----------------------------------------------------------------------===//

namespace {

/// Everything one run needs besides the plan. Reused across runs.
struct RunState {
  RunState() = default;
  RunState(const RunState &) = delete;
  RunState &operator=(const RunState &) = delete;
  ~RunState() { releaseArena(); }

  /// With a pool: takes an arena of at least `bytes` from it for this run.
  bool takeArena(ArenaPool &pool, int64_t bytes) {
    return holdArena(pool.take(bytes));
  }
  /// Gives the arena back to `pool` when the run ends.
  void giveArena(ArenaPool &pool) {
    if (arenaBuffer)
      pool.give({std::move(arenaBuffer), arenaCapacity});
    releaseArena();
  }

  /// Makes the arena at least `bytes` large (newArena). False when out of
  /// memory.
  bool reserveArena(int64_t bytes) {
    if (bytes <= arenaCapacity)
      return true;
    releaseArena();
    return holdArena(newArena(bytes));
  }

  /// Makes `taken` this state's arena; false when it has no bytes.
  bool holdArena(ArenaPool::Arena taken) {
    if (!taken.bytes)
      return false;
    releaseArena();
    arenaBuffer = std::move(taken.bytes);
    arena = reinterpret_cast<uint8_t *>(arenaBuffer.get());
    arenaCapacity = taken.capacity;
    return true;
  }

  void releaseArena() {
    arenaBuffer.reset();
    arena = nullptr;
    arenaCapacity = 0;
  }

  std::shared_ptr<char> arenaBuffer;
  uint8_t *arena = nullptr;
  int64_t arenaCapacity = 0;
  /// Data pointer of every value for this run.
  std::vector<void *> pointers;
  /// Per value: for an Arena value whose bytes are a result this run (its
  /// kernels write straight into the result's storage), that storage and
  /// its byte size; null elsewhere.
  std::vector<uint8_t *> resultBase;
  std::vector<int64_t> resultBytes;
  /// Per result: whether it is copied out after the kernels (inputs,
  /// constants, a second result on the same bytes, partial views).
  std::vector<char> copyResult;
  /// Per result: where its bytes go this run.
  std::vector<void *> resultData;
  /// Borrowed views passed to each step's kernel.
  std::vector<std::vector<HostTensor>> stepInputs, stepOutputs;
};

} // namespace

struct RunStateCache::Impl {
  std::mutex mutex;
  std::vector<std::unique_ptr<RunState>> freeStates;

  std::unique_ptr<RunState> acquire() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      if (!freeStates.empty()) {
        std::unique_ptr<RunState> state = std::move(freeStates.back());
        freeStates.pop_back();
        return state;
      }
    }
    return std::make_unique<RunState>();
  }

  void release(std::unique_ptr<RunState> state) {
    std::lock_guard<std::mutex> lock(mutex);
    freeStates.push_back(std::move(state));
  }
};

RunStateCache::~RunStateCache() { delete impl.load(std::memory_order_acquire); }

RunStateCache::Impl &RunStateCache::get() const {
  Impl *current = impl.load(std::memory_order_acquire);
  if (current)
    return *current;
  Impl *fresh = new Impl();
  if (impl.compare_exchange_strong(current, fresh, std::memory_order_acq_rel,
                                   std::memory_order_acquire))
    return *fresh;
  delete fresh;
  return *current;
}

ArenaPool::Arena ArenaPool::take(int64_t bytes) {
  {
    std::lock_guard<std::mutex> lock(mutex);
    // The smallest free arena that fits.
    auto best = freeList.end();
    for (auto it = freeList.begin(); it != freeList.end(); ++it)
      if (it->capacity >= bytes &&
          (best == freeList.end() || it->capacity < best->capacity))
        best = it;
    if (best != freeList.end()) {
      Arena arena = std::move(*best);
      freeList.erase(best);
      return arena;
    }
    // None fits: the smaller ones would never serve this plan again.
    freeList.clear();
    ++madeCount;
  }
  return newArena(bytes);
}

void ArenaPool::give(Arena arena) {
  std::lock_guard<std::mutex> lock(mutex);
  freeList.push_back(std::move(arena));
}

size_t ArenaPool::freeArenas() const {
  std::lock_guard<std::mutex> lock(mutex);
  return freeList.size();
}

int64_t ArenaPool::freeBytes() const {
  std::lock_guard<std::mutex> lock(mutex);
  int64_t bytes = 0;
  for (const Arena &arena : freeList)
    bytes += arena.capacity;
  return bytes;
}

int64_t ArenaPool::made() const {
  std::lock_guard<std::mutex> lock(mutex);
  return madeCount;
}

namespace {

/// Returns the state to its pool when the run ends, whatever the outcome,
/// and its arena to `arenas` where the plan shares them.
class RunStateLease {
public:
  RunStateLease(RunStateCache::Impl &pool, ArenaPool *arenas)
      : pool(pool), arenas(arenas), state(pool.acquire()) {}
  ~RunStateLease() {
    if (arenas)
      state->giveArena(*arenas);
    pool.release(std::move(state));
  }
  RunState &operator*() { return *state; }
  RunState *operator->() { return state.get(); }

private:
  RunStateCache::Impl &pool;
  ArenaPool *arenas;
  std::unique_ptr<RunState> state;
};

/// Makes `slots` borrowed views of values `ids`, rebuilding only the views
/// whose data pointer, dtype or shape changed since the last run.
absl::Status refreshViews(std::vector<HostTensor> &slots,
                          const std::vector<int64_t> &ids,
                          const std::vector<ValueInfo> &values,
                          const std::vector<void *> &pointers) {
  if (slots.size() != ids.size()) {
    slots.clear();
    slots.reserve(ids.size());
    for (int64_t id : ids) {
      if (!inRange(id, values.size()))
        return absl::InternalError(
            absl::StrCat("malformed plan: value id ", id, " out of range"));
      const ValueInfo &info = values[static_cast<size_t>(id)];
      absl::StatusOr<HostTensor> view = HostTensor::borrow(
          info.dtype, info.shape, pointers[static_cast<size_t>(id)]);
      if (!view.ok())
        return view.status();
      slots.push_back(*std::move(view));
    }
    return absl::OkStatus();
  }
  for (size_t j = 0; j < ids.size(); ++j) {
    int64_t id = ids[j];
    if (!inRange(id, values.size()))
      return absl::InternalError(
          absl::StrCat("malformed plan: value id ", id, " out of range"));
    const ValueInfo &info = values[static_cast<size_t>(id)];
    void *data = pointers[static_cast<size_t>(id)];
    HostTensor &slot = slots[j];
    if (slot.dtype() == info.dtype && slot.shape() == info.shape) {
      // The same view of other memory (a control-flow step's nested plan
      // alternates its buffers): no allocation.
      if (slot.data() != data)
        slot.retarget(data);
      continue;
    }
    absl::StatusOr<HostTensor> view =
        HostTensor::borrow(info.dtype, info.shape, data);
    if (!view.ok())
      return view.status();
    slot = *std::move(view);
  }
  return absl::OkStatus();
}

std::string viewTypes(const std::vector<HostTensor> &views) {
  std::string result;
  for (size_t i = 0; i < views.size(); ++i) {
    if (i)
      result += ',';
    result += views[i].describe();
  }
  return result;
}

/// Whether the bytes of `a` and `b` overlap.
bool overlaps(const HostTensor &a, const HostTensor &b) {
  if (a.byteSize() == 0 || b.byteSize() == 0)
    return false;
  auto begin = [](const HostTensor &t) {
    return reinterpret_cast<uintptr_t>(t.data());
  };
  return begin(a) < begin(b) + b.byteSize() &&
         begin(b) < begin(a) + a.byteSize();
}

/// The caller buffer for result `i` must fit it (`info`); `bufferAt(j)`
/// gives the buffer of result j (or null).
template <typename BufferAt>
absl::Status checkResultBuffer(size_t i, const HostTensor &buffer,
                               const ValueInfo &info,
                               const std::vector<HostTensor> &args,
                               const BufferAt &bufferAt) {
  if (buffer.dtype() != info.dtype || buffer.shape() != info.shape)
    return absl::InvalidArgumentError(
        absl::StrCat("result #", i, ": the output buffer is ",
                     buffer.describe(), ", the result ", typeString(info)));
  if (reinterpret_cast<uintptr_t>(buffer.data()) % dtypeSize(info.dtype))
    return absl::InvalidArgumentError(absl::StrCat(
        "result #", i, ": the output buffer is not aligned to its element"));
  for (size_t a = 0; a < args.size(); ++a)
    if (overlaps(buffer, args[a]))
      return absl::InvalidArgumentError(absl::StrCat(
          "result #", i, ": the output buffer overlaps argument #", a));
  for (size_t j = 0; j < i; ++j)
    if (const HostTensor *other = bufferAt(j);
        other && overlaps(buffer, *other))
      return absl::InvalidArgumentError(absl::StrCat(
          "result #", i, ": the output buffer overlaps result #", j, "'s"));
  return absl::OkStatus();
}

} // namespace

//===----------------------------------------------------------------------===//
// Executable
//===----------------------------------------------------------------------===//

Kernel::~Kernel() = default;

absl::StatusOr<std::vector<HostTensor>>
Executable::run(const std::vector<StridedView> &args,
                const RunOptions &options) const {
  std::vector<HostTensor> dense;
  dense.reserve(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    auto tensor = args[i].dense();
    if (!tensor.ok())
      return tgc::Status(tensor.status().code(),
                         absl::StrCat("argument #", i, ": ",
                                      std::string(tensor.status().message())));
    dense.push_back(*std::move(tensor));
  }
  return run(dense, options);
}

absl::Status
Executable::checkArguments(const std::vector<HostTensor> &args) const {
  if (args.size() != inputs.size())
    return absl::InvalidArgumentError(
        absl::StrCat("expected ", inputs.size(), " argument",
                     inputs.size() == 1 ? "" : "s", ", got ", args.size()));
  for (size_t i = 0; i < args.size(); ++i) {
    if (!inRange(inputs[i], values.size()))
      return absl::InternalError(absl::StrCat("malformed plan: argument #", i,
                                              " is value ", inputs[i],
                                              ", out of range"));
    const ValueInfo &info = values[static_cast<size_t>(inputs[i])];
    if (args[i].dtype() != info.dtype || args[i].shape() != info.shape)
      return absl::InvalidArgumentError(
          absl::StrCat("argument #", i, ": expected ", typeString(info),
                       ", got ", args[i].describe()));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<HostTensor>>
Executable::run(const std::vector<HostTensor> &args,
                const RunOptions &options) const {
  std::vector<HostTensor> results;
  if (absl::Status status = runImpl(args, options, &results, nullptr);
      !status.ok())
    return status;
  return results;
}

absl::Status Executable::runInto(const std::vector<HostTensor> &args,
                                 std::vector<HostTensor> &results,
                                 const RunOptions &options) const {
  if (results.size() != outputs.size())
    return absl::InvalidArgumentError(absl::StrCat("runInto: ", results.size(),
                                                   " buffers for ",
                                                   outputs.size(), " results"));
  return runImpl(args, options, nullptr, &results);
}

absl::Status Executable::runImpl(const std::vector<HostTensor> &args,
                                 const RunOptions &options,
                                 std::vector<HostTensor> *returned,
                                 std::vector<HostTensor> *into) const {
  using Clock = std::chrono::steady_clock;
  bool verbose =
      options.verbose || (options.readEnvironment && verboseFromEnvironment());
  bool timed = verbose || options.profile;
  Clock::time_point runStart;
  if (timed)
    runStart = Clock::now();
  // A profile's timeline starts with the first run it records.
  auto sinceOrigin = [&](Clock::time_point t) {
    return std::chrono::duration<double, std::micro>(t.time_since_epoch())
               .count() -
           options.profile->originMicros;
  };
  int profiledRun = 0;
  if (options.profile) {
    if (options.profile->originMicros < 0)
      options.profile->originMicros =
          std::chrono::duration<double, std::micro>(runStart.time_since_epoch())
              .count();
    profiledRun = static_cast<int>(options.profile->runs.size());
  }

  // Every argument must match the plan exactly before anything runs.
  if (absl::Status s = checkArguments(args); !s.ok())
    return s;

  // A deterministic plan: every buffer a kernel sees is 64-byte aligned.
  std::vector<HostTensor> alignedArgs;
  const std::vector<HostTensor> *argsUsed = &args;
  if (determinism != Determinism::Default) {
    for (size_t i = 0; i < args.size(); ++i) {
      if (reinterpret_cast<uintptr_t>(args[i].data()) % 64 == 0)
        continue;
      if (alignedArgs.empty())
        alignedArgs = args;
      alignedArgs[i] = args[i].clone();
    }
    if (!alignedArgs.empty())
      argsUsed = &alignedArgs;
  }
  if (argsUsed != &args)
    return runImpl(alignedArgs, options, returned, into);

  KernelContext context;
  context.numThreads = resolveThreadCount(options.numThreads);
  setNumThreads(context.numThreads);

  RunStateLease state(runCache.get(), arenaPool.get());
  if (arenaBytes < 0)
    return absl::InternalError("malformed plan: negative arena size");
  if (arenaPool ? !state->takeArena(*arenaPool, arenaBytes)
                : !state->reserveArena(arenaBytes))
    return absl::ResourceExhaustedError(
        absl::StrCat("cannot allocate an arena of ", arenaBytes, " bytes"));

  // Results, allocated before any kernel runs (uninitialized: every byte is
  // written below). A result whose bytes live in the arena (directly or
  // through views of the same dtype, size and offset 0) is zero-copy: its
  // root value's bytes are redirected into the result's storage for this
  // run, so the kernel producing it writes there and the arena slot goes
  // unused. Only the first result on a root gets it; the others, and
  // results on inputs or constants (which must not alias the caller's data
  // or the plan's), are copied out after the kernels.
  std::vector<uint8_t *> &resultBase = state->resultBase;
  std::vector<int64_t> &resultBytes = state->resultBytes;
  std::vector<char> &copyResult = state->copyResult;
  resultBase.assign(values.size(), nullptr);
  resultBytes.resize(values.size());
  copyResult.assign(outputs.size(), 1);
  std::vector<void *> &resultData = state->resultData;
  resultData.assign(outputs.size(), nullptr);
  // Result i's caller buffer (runInto's, or RunOptions::resultBuffers'), or
  // null.
  auto bufferAt = [&](size_t i) -> HostTensor * {
    if (into)
      return &(*into)[i];
    return options.resultBuffers && i < options.resultBuffers->size()
               ? (*options.resultBuffers)[i]
               : nullptr;
  };
  if (returned) {
    returned->clear();
    returned->reserve(outputs.size());
  }
  for (size_t i = 0; i < outputs.size(); ++i) {
    int64_t id = outputs[i];
    if (!inRange(id, values.size()))
      return absl::InternalError(
          absl::StrCat("malformed plan: output value ", id, " out of range"));
    const ValueInfo &info = values[static_cast<size_t>(id)];
    int64_t offset = 0;
    int64_t root = resolveRoot(values, id, &offset);
    if (root < 0)
      return absl::InternalError(absl::StrCat(
          "malformed plan: value ", id, " is a view of an invalid value"));
    const ValueInfo &rootInfo = values[static_cast<size_t>(root)];
    int64_t bytes = byteSizeOf(info.dtype, info.shape);
    int64_t rootBytes = byteSizeOf(rootInfo.dtype, rootInfo.shape);
    if (bytes < 0 || rootBytes < 0)
      return absl::InternalError(absl::StrCat("malformed plan: output value ",
                                              id, " has an invalid shape"));
    HostTensor *buffer = bufferAt(i);
    bool zeroCopy = rootInfo.storage.kind == ValueStorage::Kind::Arena &&
                    !resultBase[static_cast<size_t>(root)] && offset == 0 &&
                    info.dtype == rootInfo.dtype && bytes == rootBytes &&
                    (!buffer || determinism == Determinism::Default ||
                     reinterpret_cast<uintptr_t>(buffer->data()) % 64 == 0);
    if (buffer)
      if (absl::Status status =
              checkResultBuffer(i, *buffer, info, args, bufferAt);
          !status.ok())
        return status;
    const ValueInfo &allocated = zeroCopy ? rootInfo : info;
    if (!returned) {
      resultData[i] = buffer->data(); // runInto gives every buffer
    } else {
      absl::StatusOr<HostTensor> result =
          buffer ? HostTensor::borrow(allocated.dtype, allocated.shape,
                                      buffer->data())
                 : HostTensor::allocateUninitialized(allocated.dtype,
                                                     allocated.shape);
      if (!result.ok())
        return result.status();
      resultData[i] = result->data();
      if (zeroCopy && root != id) {
        result = result->reshapedView(info.shape);
        if (!result.ok())
          return result.status();
      }
      returned->push_back(*std::move(result));
    }
    if (zeroCopy) {
      resultBase[static_cast<size_t>(root)] =
          static_cast<uint8_t *>(resultData[i]);
      resultBytes[static_cast<size_t>(root)] = rootBytes;
      copyResult[i] = 0;
    }
  }

  // The data pointer of every value, with its bytes checked to lie inside
  // the storage it refers to.
  std::vector<void *> &pointers = state->pointers;
  pointers.resize(values.size());
  for (size_t v = 0; v < values.size(); ++v) {
    int64_t offset = 0;
    int64_t root = resolveRoot(values, static_cast<int64_t>(v), &offset);
    if (root < 0)
      return absl::InternalError(absl::StrCat(
          "malformed plan: value ", v, " is a view of an invalid value"));
    const ValueStorage &storage = values[static_cast<size_t>(root)].storage;
    const ValueInfo &info = values[v];
    int64_t bytes = byteSizeOf(info);
    uint8_t *base = nullptr;
    int64_t capacity = 0;
    switch (storage.kind) {
    case ValueStorage::Kind::Input:
      if (!inRange(storage.index, args.size()))
        return absl::InternalError(absl::StrCat(
            "malformed plan: value ", v, " refers to input ", storage.index));
      base = static_cast<uint8_t *>(
          const_cast<void *>(args[static_cast<size_t>(storage.index)].data()));
      capacity = static_cast<int64_t>(
          args[static_cast<size_t>(storage.index)].byteSize());
      break;
    case ValueStorage::Kind::Constant:
      if (!inRange(storage.index, constants.size()))
        return absl::InternalError(absl::StrCat("malformed plan: value ", v,
                                                " refers to constant ",
                                                storage.index));
      base = static_cast<uint8_t *>(const_cast<void *>(
          constants[static_cast<size_t>(storage.index)].data()));
      capacity = static_cast<int64_t>(
          constants[static_cast<size_t>(storage.index)].byteSize());
      break;
    case ValueStorage::Kind::Arena:
      if (uint8_t *result = resultBase[static_cast<size_t>(root)]) {
        base = result;
        capacity = resultBytes[static_cast<size_t>(root)];
        break;
      }
      if (storage.offset < 0 || storage.offset > arenaBytes)
        return absl::InternalError(
            absl::StrCat("malformed plan: value ", v, " (", typeString(info),
                         ") does not fit in its storage"));
      base = state->arena + storage.offset;
      capacity = arenaBytes - storage.offset;
      break;
    case ValueStorage::Kind::View:
      break; // resolveRoot never stops at a view
    }
    if (bytes < 0 || offset < 0 || offset > capacity ||
        bytes > capacity - offset)
      return absl::InternalError(absl::StrCat("malformed plan: value ", v, " (",
                                              typeString(info),
                                              ") does not fit in its storage"));
    pointers[v] = bytes == 0 && !base ? nullptr : base + offset;
  }

  // Kernel argument views, all checked before the first kernel runs.
  state->stepInputs.resize(steps.size());
  state->stepOutputs.resize(steps.size());
  for (size_t s = 0; s < steps.size(); ++s) {
    if (!steps[s].kernel)
      return absl::InternalError(
          absl::StrCat("malformed plan: step ", s, " has no kernel"));
    if (absl::Status status = refreshViews(state->stepInputs[s],
                                           steps[s].inputs, values, pointers);
        !status.ok())
      return status;
    if (absl::Status status = refreshViews(state->stepOutputs[s],
                                           steps[s].outputs, values, pointers);
        !status.ok())
      return status;
  }

  std::mutex logMutex; // verbose lines and profile events of parallel steps
  auto runStep = [&](size_t s,
                     const KernelContext &stepContext) -> absl::Status {
    const Step &step = steps[s];
    std::vector<HostTensor> &stepOutputs = state->stepOutputs[s];
    Clock::time_point start;
    if (options.observeStep)
      (*options.observeStep)(s, state->stepInputs[s]);
    if (timed)
      start = Clock::now();
    absl::Status status =
        step.kernel->run(stepContext, state->stepInputs[s], stepOutputs);
    if (!status.ok()) {
      absl::string_view what = step.op.empty() ? sv(step.kernel->name())
                                               : absl::string_view(step.op);
      return absl::Status(status.code(),
                          absl::StrCat(what, ": ", status.message()));
    }
    bool outputsIntact = stepOutputs.size() == step.outputs.size();
    for (size_t j = 0; outputsIntact && j < stepOutputs.size(); ++j)
      outputsIntact = stepOutputs[j].data() ==
                      pointers[static_cast<size_t>(step.outputs[j])];
    if (!outputsIntact) {
      // Rebuild the views on the next run.
      stepOutputs.clear();
      return absl::InternalError(absl::StrCat(step.op, ": kernel ",
                                              sv(step.kernel->name()),
                                              " replaced its output views"));
    }
    if (!timed)
      return absl::OkStatus();
    Clock::time_point end = Clock::now();
    double durationMicros =
        std::chrono::duration<double, std::micro>(end - start).count();
    std::lock_guard lock(logMutex);
    if (verbose) {
      char time[32];
      std::snprintf(time, sizeof(time), "%.3f ms", durationMicros / 1000.0);
      std::string line = absl::StrCat(
          "tgc: [", s, "] ", step.path, " ", step.op, " ",
          sv(step.kernel->name()), " in=", viewTypes(state->stepInputs[s]),
          " out=", viewTypes(stepOutputs), " ", time, "\n");
      std::fwrite(line.data(), 1, line.size(), stderr);
    }
    if (options.profile) {
      Profile::Event event;
      event.name = absl::StrCat(sv(step.kernel->name()), " ", step.op);
      event.category = step.path;
      event.startMicros = sinceOrigin(start);
      event.durationMicros = durationMicros;
      event.thread = options.profile->threadNumber();
      event.run = profiledRun;
      event.shapes = absl::StrCat("in=", viewTypes(state->stepInputs[s]),
                                  " out=", viewTypes(stepOutputs));
      options.profile->events.push_back(std::move(event));
    }
    return absl::OkStatus();
  };

  int interOp = std::max(1, options.interOpThreads);
  if (interOp > 1 && !options.observeStep &&
      stepLevels.size() == steps.size() && !steps.empty()) {
    // Independent steps of one level run concurrently; the memory plan was
    // made at level granularity (planMemory), so they never share bytes
    // that one of them writes.
    KernelContext branchContext = context;
    branchContext.numThreads = std::max(1, context.numThreads / interOp);
    int64_t maxLevel = *std::max_element(stepLevels.begin(), stepLevels.end());
    std::vector<std::vector<size_t>> byLevel(static_cast<size_t>(maxLevel) + 1);
    for (size_t s = 0; s < steps.size(); ++s)
      byLevel[static_cast<size_t>(stepLevels[s])].push_back(s);
    for (const std::vector<size_t> &level : byLevel) {
      if (level.size() == 1) {
        if (absl::Status status = runStep(level[0], context); !status.ok())
          return status;
        continue;
      }
      std::vector<absl::Status> statuses(level.size());
      std::vector<std::thread> workers;
      size_t lanes =
          std::min<size_t>(static_cast<size_t>(interOp), level.size());
      std::atomic<size_t> next{0};
      auto lane = [&] {
        setNumThreads(branchContext.numThreads);
        for (size_t i = next++; i < level.size(); i = next++)
          statuses[i] = runStep(level[i], branchContext);
      };
      for (size_t w = 1; w < lanes; ++w)
        workers.emplace_back(lane);
      lane();
      for (std::thread &worker : workers)
        worker.join();
      setNumThreads(context.numThreads);
      for (const absl::Status &status : statuses)
        if (!status.ok())
          return status;
    }
  } else {
    for (size_t s = 0; s < steps.size(); ++s)
      if (absl::Status status = runStep(s, context); !status.ok())
        return status;
  }

  // The results not written in place: copies of their bytes (the arena, a
  // zero-copy result sharing their root, an input or a constant).
  for (size_t i = 0; i < outputs.size(); ++i) {
    int64_t bytes = byteSizeOf(values[static_cast<size_t>(outputs[i])]);
    if (copyResult[i] && bytes > 0)
      std::memcpy(resultData[i], pointers[static_cast<size_t>(outputs[i])],
                  static_cast<size_t>(bytes));
  }
  if (options.profile) {
    Profile::Event run;
    run.name = absl::StrCat("run ", profiledRun);
    run.category = "run";
    run.startMicros = sinceOrigin(runStart);
    run.durationMicros =
        std::chrono::duration<double, std::micro>(Clock::now() - runStart)
            .count();
    run.thread = 0;
    run.run = profiledRun;
    options.profile->runs.push_back(std::move(run));
  }
  return absl::OkStatus();
}

int64_t tgc::runtime::constantOf(const Executable &exe, int64_t id) {
  for (size_t hops = 0; hops <= exe.values.size(); ++hops) {
    if (id < 0 || static_cast<size_t>(id) >= exe.values.size())
      return -1;
    const ValueStorage &storage = exe.values[static_cast<size_t>(id)].storage;
    if (storage.kind == ValueStorage::Kind::Constant)
      return storage.index;
    if (storage.kind != ValueStorage::Kind::View)
      return -1;
    id = storage.index;
  }
  return -1;
}

std::vector<bool>
tgc::runtime::constantsRead(const Executable &exe,
                            const std::function<bool(size_t step)> &ignore) {
  std::vector<bool> read(exe.constants.size(), false);
  auto mark = [&](int64_t id) {
    int64_t c = constantOf(exe, id);
    if (c >= 0 && static_cast<size_t>(c) < read.size())
      read[static_cast<size_t>(c)] = true;
  };
  for (size_t i = 0; i < exe.steps.size(); ++i) {
    if (ignore && ignore(i))
      continue;
    const Step &step = exe.steps[i];
    for (size_t k = 0; k < step.inputs.size(); ++k)
      if (!step.kernel || step.kernel->readsInput(k))
        mark(step.inputs[k]);
  }
  for (int64_t id : exe.outputs)
    mark(id);
  return read;
}

int64_t Executable::heldBytes() const {
  int64_t bytes = arenaBytes;
  for (size_t i = 0; i < constants.size(); ++i)
    if (i >= releasedFinite.size() || !releasedFinite[i])
      bytes += static_cast<int64_t>(constants[i].byteSize());
  for (const Step &step : steps)
    if (step.kernel)
      bytes += step.kernel->heldBytes();
  return bytes;
}

absl::Status Executable::verify() const {
  auto error = [](auto &&...parts) {
    return absl::InternalError(absl::StrCat("invalid executable: ", parts...));
  };
  size_t numValues = values.size();
  if (arenaBytes < 0)
    return error("negative arena size ", arenaBytes);

  std::vector<int64_t> bytes(numValues);
  for (size_t v = 0; v < numValues; ++v) {
    bytes[v] = byteSizeOf(values[v]);
    if (bytes[v] < 0)
      return error("value ", v, " has an invalid shape");
  }

  // Arguments: distinct values whose storage is the matching input.
  for (size_t i = 0; i < inputs.size(); ++i) {
    int64_t id = inputs[i];
    if (!inRange(id, numValues))
      return error("argument #", i, " is value ", id, ", out of range");
    const ValueStorage &storage = values[static_cast<size_t>(id)].storage;
    if (storage.kind != ValueStorage::Kind::Input ||
        storage.index != static_cast<int64_t>(i))
      return error("argument #", i, " is value ", id,
                   ", whose storage is not input ", i);
  }

  for (size_t v = 0; v < numValues; ++v) {
    const ValueStorage &storage = values[v].storage;
    switch (storage.kind) {
    case ValueStorage::Kind::Input:
      if (!inRange(storage.index, inputs.size()))
        return error("value ", v, " refers to input ", storage.index, " of ",
                     inputs.size());
      if (inputs[static_cast<size_t>(storage.index)] != static_cast<int64_t>(v))
        return error("value ", v, " refers to input ", storage.index,
                     ", which is value ",
                     inputs[static_cast<size_t>(storage.index)]);
      break;
    case ValueStorage::Kind::Constant:
      if (!inRange(storage.index, constants.size()))
        return error("value ", v, " refers to constant ", storage.index, " of ",
                     constants.size());
      if (bytes[v] >
          static_cast<int64_t>(
              constants[static_cast<size_t>(storage.index)].byteSize()))
        return error("value ", v, " (", typeString(values[v]),
                     ") is larger than constant ", storage.index, " (",
                     constants[static_cast<size_t>(storage.index)].describe(),
                     ")");
      break;
    case ValueStorage::Kind::Arena:
      if (storage.offset < 0 || storage.offset > arenaBytes ||
          bytes[v] > arenaBytes - storage.offset)
        return error("value ", v, " (", typeString(values[v]),
                     ", arena offset ", storage.offset,
                     ") does not fit in the arena of ", arenaBytes, " bytes");
      if (storage.offset % static_cast<int64_t>(dtypeSize(values[v].dtype)))
        return error("value ", v, " has misaligned arena offset ",
                     storage.offset);
      break;
    case ValueStorage::Kind::View: {
      if (!inRange(storage.index, numValues))
        return error("value ", v, " is a view of value ", storage.index,
                     ", out of range");
      if (resolveRoot(values, static_cast<int64_t>(v)) < 0)
        return error("value ", v, " is in a cycle of views");
      int64_t targetBytes = bytes[static_cast<size_t>(storage.index)];
      if (storage.offset < 0 || storage.offset > targetBytes ||
          bytes[v] > targetBytes - storage.offset)
        return error(
            "value ", v, " (", typeString(values[v]),
            ") is a view larger than its target, value ", storage.index, " (",
            typeString(values[static_cast<size_t>(storage.index)]), ")");
      break;
    }
    }
  }

  // Values in an opaque layout live in the arena and reach no view or result.
  for (size_t v = 0; v < numValues; ++v) {
    const ValueInfo &info = values[v];
    if (info.layout.empty())
      continue;
    if (info.storage.kind != ValueStorage::Kind::Arena)
      return error("value ", v, " in layout ", info.layout,
                   " is not an arena value");
    if (info.layoutBytes < 0)
      return error("value ", v, " has negative layout size ", info.layoutBytes);
  }
  for (size_t v = 0; v < numValues; ++v) {
    const ValueStorage &storage = values[v].storage;
    if (storage.kind == ValueStorage::Kind::View &&
        !values[static_cast<size_t>(storage.index)].layout.empty())
      return error("value ", v, " is a view of value ", storage.index,
                   ", which is in layout ",
                   values[static_cast<size_t>(storage.index)].layout);
  }
  for (size_t i = 0; i < outputs.size(); ++i)
    if (inRange(outputs[i], numValues) &&
        !values[static_cast<size_t>(outputs[i])].layout.empty())
      return error("result #", i, " (value ", outputs[i], ") is in layout ",
                   values[static_cast<size_t>(outputs[i])].layout);

  // Def-before-use over the values that own bytes: inputs and constants are
  // defined on entry, the rest by the step that writes them (or a view).
  std::vector<int64_t> root(numValues);
  for (size_t v = 0; v < numValues; ++v)
    root[v] = resolveRoot(values, static_cast<int64_t>(v));
  std::vector<char> defined(numValues, 0), written(numValues, 0);
  for (size_t v = 0; v < numValues; ++v) {
    ValueStorage::Kind kind = values[v].storage.kind;
    if (kind == ValueStorage::Kind::Input ||
        kind == ValueStorage::Kind::Constant)
      defined[v] = 1;
  }
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step &step = steps[s];
    std::string where = absl::StrCat("step ", s, " (", step.op, ")");
    if (!step.kernel)
      return error(where, " has no kernel");
    for (size_t j = 0; j < step.inputs.size(); ++j) {
      int64_t id = step.inputs[j];
      if (!inRange(id, numValues))
        return error(where, ": input ", j, " is value ", id, ", out of range");
      if (!defined[static_cast<size_t>(root[static_cast<size_t>(id)])])
        return error(where, ": input ", j, " (value ", id,
                     ") is used before it is defined");
    }
    for (size_t j = 0; j < step.outputs.size(); ++j) {
      int64_t id = step.outputs[j];
      if (!inRange(id, numValues))
        return error(where, ": output ", j, " is value ", id, ", out of range");
      int64_t r = root[static_cast<size_t>(id)];
      ValueStorage::Kind kind = values[static_cast<size_t>(r)].storage.kind;
      if (kind != ValueStorage::Kind::Arena)
        return error(where, ": output ", j, " (value ", id, ") writes to ",
                     storageKindName(kind), " storage");
      if (written[static_cast<size_t>(id)])
        return error(where, ": output ", j, " (value ", id,
                     ") was already written by an earlier step");
      written[static_cast<size_t>(id)] = 1;
    }
    for (int64_t id : step.outputs)
      defined[static_cast<size_t>(root[static_cast<size_t>(id)])] = 1;
  }

  for (size_t i = 0; i < outputs.size(); ++i) {
    int64_t id = outputs[i];
    if (!inRange(id, numValues))
      return error("result #", i, " is value ", id, ", out of range");
    if (!defined[static_cast<size_t>(root[static_cast<size_t>(id)])])
      return error("result #", i, " (value ", id, ") is never defined");
  }
  if (!stepLevels.empty()) {
    // Every step's operands come from steps of lower levels.
    if (stepLevels.size() != steps.size())
      return error("stepLevels has ", stepLevels.size(), " entries for ",
                   steps.size(), " steps");
    std::vector<int64_t> producerLevel(numValues, -1);
    for (size_t s = 0; s < steps.size(); ++s) {
      int64_t level = stepLevels[s];
      if (level < 0)
        return error("step ", s, " has negative level ", level);
      for (int64_t id : steps[s].inputs)
        if (producerLevel[static_cast<size_t>(root[static_cast<size_t>(id)])] >=
            level)
          return error("step ", s, " at level ", level,
                       " reads a value produced at the same or a later level");
      for (int64_t id : steps[s].outputs)
        producerLevel[static_cast<size_t>(root[static_cast<size_t>(id)])] =
            level;
    }
  }
  return absl::OkStatus();
}

std::string Executable::describe() const {
  auto valueType = [&](int64_t id) {
    return inRange(id, values.size())
               ? typeString(values[static_cast<size_t>(id)])
               : absl::StrCat("<invalid value ", id, ">");
  };
  std::string result;
  std::vector<std::string> fallbacks;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step &step = steps[s];
    absl::StrAppend(&result, "[", s, "] ", step.path, " ", step.op, ": (");
    for (size_t j = 0; j < step.inputs.size(); ++j)
      absl::StrAppend(&result, j ? ", " : "", valueType(step.inputs[j]));
    absl::StrAppend(&result, ") -> ");
    for (size_t j = 0; j < step.outputs.size(); ++j)
      absl::StrAppend(&result, j ? ", " : "", valueType(step.outputs[j]));
    if (step.kernel)
      absl::StrAppend(&result, " [", sv(step.kernel->name()), "]");
    result += '\n';
    if (step.kernel)
      for (const auto &[name, plan] : step.kernel->nestedPlans()) {
        absl::StrAppend(&result, "    ", name, ":\n");
        std::string nested = plan->describe();
        for (absl::string_view line : absl::StrSplit(nested, '\n'))
          if (!line.empty() && !absl::StartsWith(line, "target: "))
            absl::StrAppend(&result, "      ", line, "\n");
      }
    if (step.path == "reference")
      fallbacks.push_back(step.op);
  }
  absl::StrAppend(&result, "arena: ", arenaBytes, " bytes\n");
  absl::StrAppend(&result, "fallback to the reference path: ", fallbacks.size(),
                  fallbacks.size() == 1 ? " op" : " ops");
  if (!fallbacks.empty())
    absl::StrAppend(&result, " (", absl::StrJoin(fallbacks, ", "), ")");
  result += '\n';
  if (!target.empty())
    absl::StrAppend(&result, "target: ", target, "\n");
  if (determinism != Determinism::Default)
    absl::StrAppend(&result, "determinism: ", toString(determinism), "\n");
  return result;
}

//===----------------------------------------------------------------------===//
// Memory planning
//===----------------------------------------------------------------------===//

absl::Status tgc::runtime::planMemory(Executable &executable) {
  std::vector<ValueInfo> &values = executable.values;
  const std::vector<Step> &steps = executable.steps;
  size_t numValues = values.size();
  int64_t end = static_cast<int64_t>(steps.size());

  std::vector<int64_t> bytes(numValues), root(numValues);
  for (size_t v = 0; v < numValues; ++v) {
    bytes[v] = byteSizeOf(values[v]);
    if (bytes[v] < 0)
      return absl::InvalidArgumentError(
          absl::StrCat("planMemory: value ", v, " has an invalid shape"));
    root[v] = resolveRoot(values, static_cast<int64_t>(v));
    if (root[v] < 0)
      return absl::InvalidArgumentError(absl::StrCat(
          "planMemory: value ", v, " is a view of an invalid value"));
  }
  auto isArena = [&](int64_t id) {
    return values[static_cast<size_t>(id)].storage.kind ==
           ValueStorage::Kind::Arena;
  };

  // With step levels (inter-op parallelism), time is the level: steps of one
  // level may run concurrently, so their operands must not share bytes.
  const std::vector<int64_t> &levels = executable.stepLevels;
  bool byLevel = !levels.empty();
  if (byLevel && levels.size() != steps.size())
    return absl::InvalidArgumentError(
        "planMemory: stepLevels must have one entry per step");
  auto timeOf = [&](int64_t s) {
    return byLevel ? levels[static_cast<size_t>(s)] : s;
  };
  if (byLevel)
    end = *std::max_element(levels.begin(), levels.end()) + 1;

  // Live ranges [first, last] in time, on the values owning bytes: a
  // use of a view is a use of its target.
  std::vector<int64_t> first(numValues, -1), last(numValues, -1);
  auto touch = [&](int64_t id, int64_t s) {
    s = timeOf(s);
    int64_t r = root[static_cast<size_t>(id)];
    if (first[static_cast<size_t>(r)] < 0)
      first[static_cast<size_t>(r)] = s;
    last[static_cast<size_t>(r)] = std::max(last[static_cast<size_t>(r)], s);
  };
  for (int64_t s = 0; s < static_cast<int64_t>(steps.size()); ++s) {
    const Step &step = steps[static_cast<size_t>(s)];
    for (const std::vector<int64_t> *ids : {&step.inputs, &step.outputs})
      for (int64_t id : *ids) {
        if (!inRange(id, numValues))
          return absl::InvalidArgumentError(absl::StrCat("planMemory: step ", s,
                                                         " refers to value ",
                                                         id, ", out of range"));
        touch(id, s);
      }
  }
  for (int64_t id : executable.outputs) {
    if (!inRange(id, numValues))
      return absl::InvalidArgumentError(
          absl::StrCat("planMemory: result value ", id, " out of range"));
    int64_t r = root[static_cast<size_t>(id)];
    if (first[static_cast<size_t>(r)] < 0)
      first[static_cast<size_t>(r)] = 0;
    last[static_cast<size_t>(r)] = end;
  }
  // Values no step touches (and no result) take no bytes: offset 0.
  std::vector<bool> untouched(numValues, false);
  for (size_t v = 0; v < numValues; ++v)
    if (first[v] < 0) {
      untouched[v] = true;
      first[v] = last[v] = 0;
    }

  // In-place: output 0 joins the group (one allocation) of an input that
  // dies at this step, when the kernel allows it.
  std::vector<int64_t> group(numValues);
  std::iota(group.begin(), group.end(), 0);
  std::vector<int64_t> groupLast = last;
  for (int64_t s = 0; !byLevel && s < end; ++s) {
    const Step &step = steps[static_cast<size_t>(s)];
    if (!step.kernel || step.outputs.empty())
      continue;
    int64_t out = step.outputs[0];
    if (!isArena(out) || bytes[static_cast<size_t>(out)] == 0 ||
        group[static_cast<size_t>(out)] != out ||
        first[static_cast<size_t>(out)] != s)
      continue;
    if (std::count(step.inputs.begin(), step.inputs.end(), out) ||
        std::count(step.outputs.begin(), step.outputs.end(), out) != 1)
      continue;
    for (size_t k = 0; k < step.inputs.size(); ++k) {
      int64_t in = step.inputs[k];
      if (!step.kernel->canRunInPlace(k) || !isArena(in) ||
          bytes[static_cast<size_t>(in)] != bytes[static_cast<size_t>(out)])
        continue;
      int64_t g = group[static_cast<size_t>(in)];
      if (groupLast[static_cast<size_t>(g)] != s ||
          last[static_cast<size_t>(in)] != s)
        continue;
      // Any other operand of this step sharing the input's bytes must be the
      // input itself (a view in another shape would be read out of order).
      bool safe = true;
      for (int64_t other : step.inputs)
        if (other != in && root[static_cast<size_t>(other)] == in)
          safe = false;
      for (int64_t other : step.outputs)
        if (root[static_cast<size_t>(other)] == in)
          safe = false;
      if (!safe)
        continue;
      group[static_cast<size_t>(out)] = g;
      groupLast[static_cast<size_t>(g)] = last[static_cast<size_t>(out)];
      break;
    }
  }

  // Greedy placement: largest first, each at the lowest offset that does not
  // overlap a placed group whose live range intersects its own.
  struct Block {
    int64_t id, size, first, last, offset;
  };
  std::vector<Block> blocks;
  for (size_t v = 0; v < numValues; ++v)
    if (isArena(static_cast<int64_t>(v)) &&
        group[v] == static_cast<int64_t>(v) && bytes[v] > 0 && !untouched[v])
      blocks.push_back(Block{static_cast<int64_t>(v), alignUp(bytes[v]),
                             first[v], groupLast[v], 0});
  std::sort(blocks.begin(), blocks.end(), [](const Block &a, const Block &b) {
    if (a.size != b.size)
      return a.size > b.size;
    if (a.first != b.first)
      return a.first < b.first;
    return a.id < b.id;
  });
  std::vector<int64_t> offsetOf(numValues, 0);
  int64_t arenaBytes = 0;
  std::vector<const Block *> conflicts;
  for (size_t i = 0; i < blocks.size(); ++i) {
    Block &block = blocks[i];
    conflicts.clear();
    for (size_t j = 0; j < i; ++j)
      if (blocks[j].first <= block.last && block.first <= blocks[j].last)
        conflicts.push_back(&blocks[j]);
    std::sort(
        conflicts.begin(), conflicts.end(),
        [](const Block *a, const Block *b) { return a->offset < b->offset; });
    int64_t offset = 0;
    for (const Block *other : conflicts) {
      if (offset + block.size <= other->offset)
        break;
      offset = std::max(offset, other->offset + other->size);
    }
    block.offset = offset;
    offsetOf[static_cast<size_t>(block.id)] = offset;
    arenaBytes = std::max(arenaBytes, offset + block.size);
  }

  // Untouched values share offset 0 with anything (nobody reads or writes
  // them); the arena only has to hold them for the bounds checks.
  for (size_t v = 0; v < numValues; ++v)
    if (isArena(static_cast<int64_t>(v)) && untouched[v])
      arenaBytes = std::max(arenaBytes, alignUp(bytes[v]));

  for (size_t v = 0; v < numValues; ++v) {
    if (!isArena(static_cast<int64_t>(v)))
      continue;
    values[v].storage.offset = bytes[v] == 0 || untouched[v]
                                   ? 0
                                   : offsetOf[static_cast<size_t>(group[v])];
  }
  executable.arenaBytes = arenaBytes;
  return absl::OkStatus();
}

int64_t tgc::runtime::removeDeadSteps(Executable &executable) {
  const std::vector<ValueInfo> &values = executable.values;
  size_t numValues = values.size();
  auto rootOf = [&](int64_t id) {
    return inRange(id, numValues) ? resolveRoot(values, id) : -1;
  };
  // Backwards: a step is live when it writes bytes a later live step reads
  // or a result holds; its inputs' bytes are then read.
  std::vector<bool> read(numValues, false);
  for (int64_t id : executable.outputs)
    if (int64_t r = rootOf(id); r >= 0)
      read[static_cast<size_t>(r)] = true;
  std::vector<bool> keep(executable.steps.size(), false);
  for (size_t s = executable.steps.size(); s-- > 0;) {
    const Step &step = executable.steps[s];
    bool live = step.outputs.empty();
    for (int64_t out : step.outputs) {
      int64_t r = rootOf(out);
      live = live || r < 0 || read[static_cast<size_t>(r)];
    }
    if (!live)
      continue;
    keep[s] = true;
    for (int64_t in : step.inputs)
      if (int64_t r = rootOf(in); r >= 0)
        read[static_cast<size_t>(r)] = true;
  }
  std::vector<Step> kept;
  kept.reserve(executable.steps.size());
  for (size_t s = 0; s < executable.steps.size(); ++s)
    if (keep[s])
      kept.push_back(std::move(executable.steps[s]));
  int64_t dropped = static_cast<int64_t>(executable.steps.size() - kept.size());
  executable.steps = std::move(kept);
  if (dropped && !executable.stepLevels.empty())
    executable.stepLevels.clear(); // stale: the caller computes them after
  return dropped;
}

//===----------------------------------------------------------------------===//
// Profiles, threads and the environment
//===----------------------------------------------------------------------===//

int Profile::threadNumber() {
  size_t hash = std::hash<std::thread::id>{}(std::this_thread::get_id());
  for (size_t i = 0; i < threadHashes.size(); ++i)
    if (threadHashes[i] == hash)
      return static_cast<int>(i) + 1;
  threadHashes.push_back(hash);
  return static_cast<int>(threadHashes.size());
}

std::string Profile::toChromeTraceJson() const {
  std::string json = "{\"traceEvents\":[";
  bool first = true;
  auto append = [&](const Event &event) {
    if (!first)
      json += ',';
    first = false;
    json += "{\"name\":";
    appendJsonString(json, event.name);
    json += ",\"cat\":";
    appendJsonString(json, event.category);
    json += ",\"ph\":\"X\",\"ts\":";
    appendJsonNumber(json, event.startMicros);
    json += ",\"dur\":";
    appendJsonNumber(json, event.durationMicros);
    json += absl::StrCat(",\"pid\":1,\"tid\":", event.thread,
                         ",\"args\":{\"run\":", event.run);
    if (!event.shapes.empty()) {
      json += ",\"shapes\":";
      appendJsonString(json, event.shapes);
    }
    json += "}}";
  };
  for (const Event &event : events)
    append(event);
  for (const Event &run : runs)
    append(run);
  json += "]}\n";
  return json;
}

std::string Profile::topKernels(size_t n) const {
  struct Row {
    std::string name;
    double micros = 0;
    int64_t calls = 0;
  };
  std::vector<Row> rows;
  std::unordered_map<std::string, size_t> index;
  double total = 0;
  for (const Event &event : events) {
    auto [it, inserted] = index.try_emplace(event.name, rows.size());
    if (inserted)
      rows.push_back({event.name});
    rows[it->second].micros += event.durationMicros;
    rows[it->second].calls += 1;
    total += event.durationMicros;
  }
  std::stable_sort(rows.begin(), rows.end(), [](const Row &a, const Row &b) {
    return a.micros > b.micros;
  });
  if (rows.size() > n)
    rows.resize(n);
  char line[96];
  std::snprintf(line, sizeof(line), "%.3f", total / 1000.0);
  std::string text =
      absl::StrCat("top ", rows.size(), " kernels of ", runs.size(),
                   " run(s), ", line, " ms in kernels:\n");
  text += "  total ms   calls    mean us   share  kernel\n";
  for (const Row &row : rows) {
    std::snprintf(line, sizeof(line), "%10.3f %7lld %10.1f %6.1f%%  ",
                  row.micros / 1000.0, static_cast<long long>(row.calls),
                  row.micros / static_cast<double>(row.calls),
                  total > 0 ? 100.0 * row.micros / total : 0.0);
    text += line;
    text += row.name;
    text += '\n';
  }
  return text;
}

absl::Status Profile::writeChromeTrace(const std::string &path) const {
  std::string json = toChromeTraceJson();
  std::FILE *file = std::fopen(path.c_str(), "wb");
  if (!file)
    return absl::UnavailableError(absl::StrCat(
        "cannot open ", path, " for writing: ", std::strerror(errno)));
  bool ok = std::fwrite(json.data(), 1, json.size(), file) == json.size();
  ok = std::fclose(file) == 0 && ok;
  if (!ok)
    return absl::UnavailableError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

int tgc::runtime::resolveThreadCount(int requested) {
  if (requested > 0)
    return requested;
  if (std::optional<int64_t> fromEnvironment = env::integer("TGC_NUM_THREADS");
      fromEnvironment && *fromEnvironment > 0 && *fromEnvironment <= 4096)
    return static_cast<int>(*fromEnvironment);
  // Then OpenMP's own setting, as oneDNN and PyTorch honour it: its first
  // (outermost) level, "4" of "4,2".
  if (const char *text = std::getenv("OMP_NUM_THREADS")) {
    absl::string_view first(text);
    first = first.substr(0, first.find(','));
    int fromEnvironment = 0;
    if (absl::SimpleAtoi(first, &fromEnvironment) && fromEnvironment > 0)
      return fromEnvironment;
  }
  // Processors this process may run on; asking costs a system call.
  static const int hardwareThreads = std::max(1, omp_get_num_procs());
  return hardwareThreads;
}

void tgc::runtime::setNumThreads(int numThreads) {
  if (numThreads > 0 && omp_get_max_threads() != numThreads)
    omp_set_num_threads(numThreads);
}

bool tgc::runtime::verboseFromEnvironment() { return env::flag("TGC_VERBOSE"); }

bool tgc::runtime::oneDnnEnabledFromEnvironment() {
  return env::flag("TGC_ENABLE_ONEDNN");
}
