//===- SpecializationCache.h - TraceType-keyed specialization cache -*- C++
//-*-===//
//
// The cache behind tgc::function: maps call TraceTypes to compiled
// specializations, decides when to retrace, and records why.
//
// - A hit takes only a shared lock: concurrent hits never serialize.
//   Exact repeats are found by hash; other calls go to the most specific
//   accepting specialization (selectMostSpecific), and the answer is
//   remembered for the exact type.
// - Concurrent misses on one key trace once; the others wait for that result.
//   A failed trace reports its error to every waiter and leaves nothing behind.
// - A trace that calls back into the same cache with the same key (recursion)
//   is an error, not a deadlock.
// - A builder that throws leaves nothing behind (every piece of per-trace
//   state is an RAII guard): the exception propagates to its caller, the
//   attempt is in history(), threads waiting for that key trace again
//   themselves, and the next call retraces.
// - The cache is bounded: least-recently-used unpinned entries are evicted
//   (pinned ones do not count against the bound), and a later call that
//   needed one retraces with reason "evicted".
// - With reduceRetracing, a miss traces the most specific common supertype of
//   the call and the existing specializations (varying dims become dynamic).
//   Ranks are never relaxed: a supertype with a tensor of unknown rank
//   (which no builder can trace) is not used.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TRACING_SPECIALIZATIONCACHE_H
#define TGC_TRACING_SPECIALIZATIONCACHE_H

#include "tgc/AbslStatus.h"
#include "tgc/TraceType.h"
#include "tracing/TraceTypeWalk.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <unordered_map>
#include <vector>

namespace tgc::tracing {

struct CacheOptions {
  /// The traced function's name, in warnings.
  std::string name;
  /// Most unpinned specializations kept; older ones are evicted (LRU).
  size_t maxEntries = 64;
  /// Trace the common supertype of a missing call and the existing
  /// specializations rather than the call's exact type.
  bool reduceRetracing = false;
  /// Frequent-retracing warning: fires when at least `warnTraces` of the
  /// last `warnWindow` calls traced, at most `maxWarnings` times.
  size_t warnWindow = 10;
  size_t warnTraces = 5;
  size_t maxWarnings = 3;
  /// Receives the retrace history as it happens (verbose mode) and the
  /// frequent-retracing warnings.
  std::function<void(const std::string &)> log;
  bool verbose = false;
};

/// One traced and compiled specialization.
template <typename Payload> struct Specialization {
  TraceType type;
  std::shared_ptr<const Payload> payload;
  TraceReason reason;
  double traceSeconds = 0;
  bool pinned = false;
  mutable std::atomic<uint64_t> hits{0};
  mutable std::atomic<uint64_t> lastUse{0};
};

template <typename Payload> class SpecializationCache {
public:
  using Entry = Specialization<Payload>;
  using EntryPtr = std::shared_ptr<const Entry>;
  /// Traces and compiles a specialization for a type.
  using Builder =
      llvm::function_ref<llvm::Expected<std::shared_ptr<const Payload>>(
          const TraceType &)>;

  explicit SpecializationCache(CacheOptions options = {})
      : options(std::move(options)) {}

  /// The specialization that serves `call`, tracing one if none does.
  llvm::Expected<EntryPtr> getOrTrace(const TraceType &call, Builder build) {
    uint64_t now = ++clock;
    if (EntryPtr hit = lookup(call, now))
      return hit;
    return trace(call, build, /*pin=*/false, now);
  }

  /// The specialization for exactly `type`, traced now if needed and pinned
  /// (never evicted). Asking twice returns the same one.
  llvm::Expected<EntryPtr> getConcrete(const TraceType &type, Builder build) {
    uint64_t now = ++clock;
    {
      std::unique_lock lock(mutex);
      for (auto &entry : entries) {
        if (entry->type == type) {
          const_cast<Entry &>(*entry).pinned = true;
          return EntryPtr(entry);
        }
      }
    }
    return trace(type, build, /*pin=*/true, now);
  }

  /// Drops the entries whose type `dead` accepts (keys no call can match
  /// again, such as those of dead objects); returns how many.
  size_t dropIf(llvm::function_ref<bool(const TraceType &)> dead) {
    std::vector<EntryPtr> gone; // released after the lock
    {
      std::unique_lock lock(mutex);
      std::erase_if(entries, [&](const EntryPtr &entry) {
        if (!dead(entry->type))
          return false;
        gone.push_back(entry);
        return true;
      });
      if (gone.empty())
        return 0;
      generationCounter.fetch_add(1, std::memory_order_release);
      std::erase_if(exact, [&](const auto &kv) {
        return llvm::is_contained(gone, kv.second) || dead(kv.first);
      });
      std::erase_if(evicted, [&](const TraceType &t) { return dead(t); });
    }
    if (options.verbose && options.log)
      options.log(logPrefix() + "dropped " + std::to_string(gone.size()) +
                  " specialization" + (gone.size() == 1 ? "" : "s") +
                  " keyed by dead objects");
    return gone.size();
  }

  /// Specializations, oldest first.
  std::vector<EntryPtr> specializations() const {
    std::shared_lock lock(mutex);
    return {entries.begin(), entries.end()};
  }

  /// Every trace attempted (successful or not), oldest first.
  std::vector<TraceEvent> history() const {
    std::lock_guard lock(historyMutex);
    return {events.begin(), events.end()};
  }

  size_t traceCount() const { return traces.load(); }

  /// Changes whenever a call could be dispatched differently (an entry
  /// added, evicted or dropped): a client's memo of dispatches is valid
  /// while this stays the same.
  uint64_t generation() const {
    return generationCounter.load(std::memory_order_acquire);
  }
  /// Counts a hit of `entry` served from such a memo (for the LRU order
  /// and the hit counts).
  void touch(const Entry &entry) {
    entry.hits.fetch_add(1, std::memory_order_relaxed);
    entry.lastUse.store(++clock, std::memory_order_relaxed);
  }

  /// Appends an event that is not a trace (a compile, a dropped plan) to
  /// the history, and logs it in verbose mode.
  void recordEvent(TraceEvent event) const {
    std::string line;
    if (options.verbose && options.log) {
      line =
          logPrefix() +
          (event.kind == TraceEvent::Kind::Compile ? "compiled "
                                                   : "dropped the plan of ") +
          event.type + " for " + event.shapes;
      if (event.kind == TraceEvent::Kind::Compile) {
        char ms[32];
        std::snprintf(ms, sizeof ms, " (%.2f ms)", event.traceSeconds * 1e3);
        line += ms;
      }
      if (!event.error.empty())
        line += event.kind == TraceEvent::Kind::Compile
                    ? ", failed: " + event.error
                    : ": " + event.error;
    }
    {
      std::lock_guard lock(historyMutex);
      events.push_back(std::move(event));
    }
    if (!line.empty())
      options.log(line);
  }
  size_t warningCount() const { return warnings.load(); }

private:
  struct Pending {
    std::mutex mutex;
    std::condition_variable done;
    bool finished = false;
    /// The tracing thread unwound (its builder threw): nothing was decided.
    bool abandoned = false;
    EntryPtr result;
    std::string error;
  };

  struct TypeHash {
    size_t operator()(const TraceType &type) const { return type.hash(); }
  };

  /// The thread-local set of keys this thread is tracing, for recursion.
  static std::vector<std::pair<const void *, TraceType>> &activeTraces() {
    thread_local std::vector<std::pair<const void *, TraceType>> active;
    return active;
  }

  EntryPtr lookup(const TraceType &call, uint64_t now) {
    std::shared_lock lock(mutex);
    auto it = exact.find(call);
    if (it != exact.end()) {
      it->second->hits.fetch_add(1, std::memory_order_relaxed);
      it->second->lastUse.store(now, std::memory_order_relaxed);
      return it->second;
    }
    std::vector<TraceType> types;
    types.reserve(entries.size());
    for (auto &entry : entries)
      types.push_back(entry->type);
    std::optional<size_t> best = selectMostSpecific(call, types);
    if (!best)
      return nullptr;
    EntryPtr entry = entries[*best];
    entry->hits.fetch_add(1, std::memory_order_relaxed);
    entry->lastUse.store(now, std::memory_order_relaxed);
    lock.unlock();
    // Remember the dispatch for the exact type.
    std::unique_lock writeLock(mutex);
    if (exact.size() > 16 * options.maxEntries + 16)
      rebuildExact();
    if (std::find(entries.begin(), entries.end(), entry) != entries.end())
      exact.emplace(call, entry);
    return entry;
  }

  /// The type to trace for `call` and why.
  std::pair<TraceType, TraceReason> planTrace(const TraceType &call) {
    std::shared_lock lock(mutex);
    TraceReason reason;
    if (entries.empty() && !evictedBefore(call)) {
      reason.kind = TraceReason::Kind::FirstCall;
      return {call, reason};
    }
    if (evictedBefore(call)) {
      reason.kind = TraceReason::Kind::Evicted;
      return {call, reason};
    }
    // The closest previous specialization: the most recent one with a
    // mismatch (all mismatch, or we would have hit), preferring one for the
    // same target device.
    const Entry *closest = nullptr;
    std::optional<Mismatch> difference;
    std::string callTarget = targetOf(call);
    for (bool sameTarget : {true, false}) {
      for (auto it = entries.rbegin(); it != entries.rend() && !closest; ++it) {
        if (sameTarget && targetOf((*it)->type) != callTarget)
          continue;
        if (auto m = call.kind() == TraceType::Kind::Sequence
                         ? findArgsMismatch(call, (*it)->type)
                         : findMismatch(call, (*it)->type)) {
          closest = it->get();
          difference = std::move(m);
        }
      }
    }
    reason.kind = TraceReason::Kind::NewType;
    if (closest) {
      reason.closest = closest->type.str();
      reason.path = difference->path;
      reason.previousType = difference->expected;
      reason.newType = difference->actual;
    }
    if (!options.reduceRetracing)
      return {call, reason};
    std::vector<TraceType> others;
    for (auto &entry : entries)
      others.push_back(entry->type);
    // Generalize against every existing specialization it has a common
    // supertype with.
    TraceType general = call;
    for (const TraceType &other : others) {
      if (auto super = general.mostSpecificCommonSupertype({other});
          super && !hasUnknownRank(*super))
        general = *super;
    }
    if (!(general == call))
      reason.kind = TraceReason::Kind::Relaxed;
    return {general, reason};
  }

  bool evictedBefore(const TraceType &type) const {
    for (const TraceType &old : evicted)
      if (type.isSubtypeOf(old))
        return true;
    return false;
  }

  /// "tgc: 'name' " (or "tgc: " for an unnamed function), before log lines.
  std::string logPrefix() const {
    return "tgc: " +
           (options.name.empty() ? std::string() : "'" + options.name + "' ");
  }

  /// Whether `type` has a tensor leaf of unknown rank.
  static bool hasUnknownRank(const TraceType &type) {
    return anyNested(type, [](const TraceType &t) {
      return (t.kind() == TraceType::Kind::Tensor ||
              t.kind() == TraceType::Kind::Variable) &&
             t.tensorSpec().unknownRank;
    });
  }

  /// Removes this thread's active-trace entry when the trace ends, however
  /// it ends.
  struct ActiveTraceGuard {
    ActiveTraceGuard(const void *cache, const TraceType &key) {
      activeTraces().emplace_back(cache, key);
    }
    ~ActiveTraceGuard() { activeTraces().pop_back(); }
    ActiveTraceGuard(const ActiveTraceGuard &) = delete;
    ActiveTraceGuard &operator=(const ActiveTraceGuard &) = delete;
  };

  /// Owns the in-flight marker of a trace: unless the trace finished
  /// (`finish`), the destructor (an exception unwinding through the builder)
  /// removes the marker and wakes the waiters, who trace again themselves.
  class InFlightGuard {
  public:
    InFlightGuard(SpecializationCache &cache, TraceType key,
                  std::shared_ptr<Pending> pending)
        : cache(cache), key(std::move(key)), pending(std::move(pending)) {}
    InFlightGuard(const InFlightGuard &) = delete;
    InFlightGuard &operator=(const InFlightGuard &) = delete;
    ~InFlightGuard() {
      if (finished)
        return;
      {
        std::unique_lock lock(cache.mutex);
        cache.inFlight.erase(key);
      }
      publish(nullptr, "", /*abandoned=*/true);
    }
    /// The trace ended with `result` (null: failed with `error`). Caller
    /// holds the cache's exclusive lock (for the marker).
    void finishLocked() {
      cache.inFlight.erase(key);
      finished = true;
    }
    void publish(EntryPtr result, const std::string &error,
                 bool abandoned = false) {
      {
        std::lock_guard lock(pending->mutex);
        pending->finished = true;
        pending->abandoned = abandoned;
        pending->result = std::move(result);
        pending->error = error;
      }
      pending->done.notify_all();
    }

  private:
    SpecializationCache &cache;
    TraceType key;
    std::shared_ptr<Pending> pending;
    bool finished = false;
  };

  llvm::Expected<EntryPtr> trace(const TraceType &call, Builder build, bool pin,
                                 uint64_t now) {
    for (auto &[cache, key] : activeTraces())
      if (cache == this && key == call)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "recursive call of a traced function with the same argument types "
            "from inside its own trace: " +
                call.str());

    auto [target, reason] =
        pin ? std::pair<TraceType, TraceReason>(
                  call, TraceReason{TraceReason::Kind::Requested})
            : planTrace(call);

    // One trace per key: later arrivals wait for the first (and trace
    // themselves when its builder threw).
    std::shared_ptr<Pending> pending;
    for (;;) {
      bool owner = false;
      {
        std::unique_lock lock(mutex);
        auto it = inFlight.find(target);
        if (it != inFlight.end()) {
          pending = it->second;
        } else {
          // Another thread may have finished this trace since our lookup.
          for (auto &entry : entries) {
            if (entry->type == target) {
              entry->lastUse.store(now, std::memory_order_relaxed);
              if (pin)
                const_cast<Entry &>(*entry).pinned = true;
              return EntryPtr(entry);
            }
          }
          pending = std::make_shared<Pending>();
          inFlight.emplace(target, pending);
          owner = true;
        }
      }
      if (owner)
        break;
      std::unique_lock wait(pending->mutex);
      pending->done.wait(wait, [&] { return pending->finished; });
      if (pending->abandoned)
        continue;
      if (!pending->result)
        return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                       pending->error);
      return pending->result;
    }

    InFlightGuard inFlightGuard(*this, target, pending);
    auto start = std::chrono::steady_clock::now();
    auto elapsed = [&] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                           start)
          .count();
    };
    std::optional<llvm::Expected<std::shared_ptr<const Payload>>> payload;
    {
      ActiveTraceGuard active(this, target);
      try {
        payload.emplace(build(target));
      } catch (const std::exception &e) {
        traces.fetch_add(1);
        record(target, reason, elapsed(),
               std::string("the traced callable threw: ") + e.what());
        throw;
      } catch (...) {
        traces.fetch_add(1);
        record(target, reason, elapsed(),
               "the traced callable threw an exception");
        throw;
      }
    }
    double seconds = elapsed();
    traces.fetch_add(1);

    EntryPtr result;
    std::string error;
    if (*payload) {
      auto entry = std::make_shared<Entry>();
      entry->type = target;
      entry->payload = std::move(**payload);
      entry->reason = reason;
      entry->traceSeconds = seconds;
      entry->pinned = pin;
      entry->hits.store(1);
      entry->lastUse.store(now);
      result = entry;
    } else {
      error = llvm::toString(payload->takeError());
    }

    {
      std::unique_lock lock(mutex);
      if (result) {
        if (!pin)
          evictIfFull();
        // Remembered dispatches that the new specialization also accepts may
        // now have a more specific answer.
        std::erase_if(exact, [&](const auto &kv) {
          return kv.first.isSubtypeOf(target);
        });
        entries.push_back(result);
        generationCounter.fetch_add(1, std::memory_order_release);
        exact.emplace(call, result);
        exact.emplace(target, result);
        std::erase_if(
            evicted, [&](const TraceType &t) { return t.isSubtypeOf(target); });
      }
      inFlightGuard.finishLocked();
    }
    record(target, reason, seconds, error);
    noteTrace(now);
    inFlightGuard.publish(result, error);
    if (!result)
      return llvm::createStringError(llvm::inconvertibleErrorCode(), error);
    return result;
  }

  /// Forgets remembered dispatches, keeping each entry's own type. Caller
  /// holds the exclusive lock.
  void rebuildExact() {
    exact.clear();
    for (auto &entry : entries)
      exact.emplace(entry->type, entry);
  }

  /// Drops the least recently used unpinned entry while the unpinned ones
  /// fill the bound (pinned entries do not count). Caller holds the
  /// exclusive lock.
  void evictIfFull() {
    auto unpinned = [&] {
      return static_cast<size_t>(llvm::count_if(
          entries, [](const EntryPtr &entry) { return !entry->pinned; }));
    };
    while (unpinned() >= options.maxEntries) {
      auto victim = entries.end();
      for (auto it = entries.begin(); it != entries.end(); ++it)
        if (!(*it)->pinned &&
            (victim == entries.end() ||
             (*it)->lastUse.load() < (*victim)->lastUse.load()))
          victim = it;
      if (victim == entries.end())
        return; // everything is pinned
      EntryPtr gone = *victim;
      entries.erase(victim);
      generationCounter.fetch_add(1, std::memory_order_release);
      std::erase_if(exact, [&](const auto &kv) { return kv.second == gone; });
      evicted.push_back(gone->type);
      if (evicted.size() > 4 * options.maxEntries)
        evicted.pop_front();
    }
  }

  void record(const TraceType &type, const TraceReason &reason, double seconds,
              const std::string &error) {
    TraceEvent event{type.str(), reason, seconds, !error.empty(), error};
    {
      std::lock_guard lock(historyMutex);
      events.push_back(event);
    }
    if (options.verbose && options.log)
      options.log(logPrefix() + "traced " + event.type + " (" + reason.str() +
                  ")" + (error.empty() ? "" : ", failed: " + error));
  }

  /// The frequent-retracing warning: fires when `warnTraces` traces happened
  /// within the last `warnWindow` calls (calls are numbered by `clock`, so
  /// hits need no bookkeeping).
  void noteTrace(uint64_t now) {
    if (!options.log || options.warnTraces == 0)
      return;
    std::lock_guard lock(historyMutex);
    traceClocks.push_back(now);
    while (traceClocks.size() > options.warnTraces)
      traceClocks.pop_front();
    if (traceClocks.size() < options.warnTraces ||
        now - traceClocks.front() >= options.warnWindow ||
        warnings.load() >= options.maxWarnings)
      return;
    warnings.fetch_add(1);
    traceClocks.clear();
    options.log("tgc: warning: " +
                (options.name.empty() ? std::string()
                                      : "function '" + options.name + "': ") +
                std::to_string(options.warnTraces) +
                " traces within the last " +
                std::to_string(options.warnWindow) +
                " calls. Retracing is expensive: pass tensors of stable shapes "
                "and dtypes, give an input_signature with dynamic dims, or set "
                "reduce_retracing.");
  }

  CacheOptions options;
  mutable std::shared_mutex mutex;
  std::vector<EntryPtr> entries;
  std::unordered_map<TraceType, EntryPtr, TypeHash> exact;
  std::unordered_map<TraceType, std::shared_ptr<Pending>, TypeHash> inFlight;
  std::deque<TraceType> evicted;
  std::atomic<uint64_t> clock{0};
  std::atomic<uint64_t> generationCounter{0};
  std::atomic<size_t> traces{0};
  std::atomic<size_t> warnings{0};
  mutable std::mutex historyMutex;
  mutable std::vector<TraceEvent> events;
  std::deque<uint64_t> traceClocks;
};

} // namespace tgc::tracing

#endif // TGC_TRACING_SPECIALIZATIONCACHE_H
