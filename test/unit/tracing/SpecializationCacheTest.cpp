//===- SpecializationCacheTest.cpp - the retracing cache ------------------===//

#include "tracing/SpecializationCache.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

using namespace tgc::tracing;
using tgc::runtime::DType;

namespace {

TraceType args(std::vector<TraceType> elements) {
  return TraceType::sequence(TraceType::SequenceKind::Tuple,
                             std::move(elements));
}

TraceType tensor(std::vector<int64_t> shape, DType dtype = DType::F32) {
  return TraceType::tensor(TensorSpec{dtype, std::move(shape)});
}

/// A cache whose payload is the traced type's string, counting builds.
struct Fixture {
  explicit Fixture(CacheOptions options = {}) : cache(std::move(options)) {}
  SpecializationCache<std::string> cache;
  std::atomic<int> builds{0};

  std::string call(const TraceType &type) {
    auto entry = cache.getOrTrace(type, [&](const TraceType &t) {
      ++builds;
      return llvm::Expected<std::shared_ptr<const std::string>>(
          std::make_shared<const std::string>(t.str()));
    });
    if (!entry)
      return "error: " + llvm::toString(entry.takeError());
    return *(*entry)->payload;
  }
};

TEST(SpecializationCache, RepeatCallsHit) {
  Fixture f;
  TraceType a = args({tensor({2, 3})});
  EXPECT_EQ(f.call(a), a.str());
  EXPECT_EQ(f.call(a), a.str());
  EXPECT_EQ(f.builds, 1);
  EXPECT_EQ(f.cache.traceCount(), 1u);
  auto specs = f.cache.specializations();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0]->hits.load(), 2u);
  EXPECT_EQ(specs[0]->reason.kind, TraceReason::Kind::FirstCall);
}

TEST(SpecializationCache, NewShapeRetracesWithReason) {
  Fixture f;
  f.call(args({tensor({2, 3})}));
  f.call(args({tensor({4, 3})}));
  EXPECT_EQ(f.builds, 2);
  auto history = f.cache.history();
  ASSERT_EQ(history.size(), 2u);
  const TraceReason &reason = history[1].reason;
  EXPECT_EQ(reason.kind, TraceReason::Kind::NewType);
  EXPECT_EQ(reason.path, "arg0");
  EXPECT_NE(reason.str().find("was"), std::string::npos) << reason.str();
  EXPECT_NE(reason.previousType.find("2x3"), std::string::npos)
      << reason.previousType;
  EXPECT_NE(reason.newType.find("4x3"), std::string::npos) << reason.newType;
}

TEST(SpecializationCache, DynamicSpecializationServesMatchingCalls) {
  Fixture f;
  auto general = f.cache.getConcrete(
      args({tensor({kDynamic, 3})}), [](const TraceType &t) {
        return llvm::Expected<std::shared_ptr<const std::string>>(
            std::make_shared<const std::string>("general"));
      });
  ASSERT_TRUE(static_cast<bool>(general));
  EXPECT_EQ(f.call(args({tensor({7, 3})})), "general");
  EXPECT_EQ(f.call(args({tensor({9, 3})})), "general");
  EXPECT_EQ(f.builds, 0);
  // A more specific specialization wins once it exists.
  auto specific =
      f.cache.getConcrete(args({tensor({7, 3})}), [](const TraceType &) {
        return llvm::Expected<std::shared_ptr<const std::string>>(
            std::make_shared<const std::string>("specific"));
      });
  ASSERT_TRUE(static_cast<bool>(specific));
  EXPECT_EQ(f.call(args({tensor({7, 3})})), "specific");
  EXPECT_EQ(f.call(args({tensor({9, 3})})), "general");
}

TEST(SpecializationCache, ConcreteFunctionIsPinnedAndStable) {
  Fixture f(CacheOptions{.maxEntries = 2});
  TraceType pinned = args({tensor({1})});
  auto build = [](const TraceType &t) {
    return llvm::Expected<std::shared_ptr<const std::string>>(
        std::make_shared<const std::string>(t.str()));
  };
  auto first = f.cache.getConcrete(pinned, build);
  auto second = f.cache.getConcrete(pinned, build);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->get(), second->get());
  for (int64_t n = 2; n < 8; ++n)
    f.call(args({tensor({n})}));
  bool stillThere = false;
  for (auto &entry : f.cache.specializations())
    stillThere |= entry->type == pinned;
  EXPECT_TRUE(stillThere);
}

TEST(SpecializationCache, ReduceRetracingTracesAtMostTwice) {
  Fixture f(CacheOptions{.reduceRetracing = true});
  for (int64_t batch : {1, 2, 3, 8, 16, 5})
    f.call(args({tensor({batch, 4}), tensor({4, 4})}));
  EXPECT_EQ(f.builds, 2);
  auto history = f.cache.history();
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[1].reason.kind, TraceReason::Kind::Relaxed);
  EXPECT_NE(history[1].type.find("?x4"), std::string::npos) << history[1].type;
}

TEST(SpecializationCache, ScalarsAreNotRelaxed) {
  Fixture f(CacheOptions{.reduceRetracing = true});
  f.call(args({TraceType::integer(1, "int")}));
  f.call(args({TraceType::integer(2, "int")}));
  f.call(args({TraceType::integer(1, "int")}));
  EXPECT_EQ(f.builds, 2);
}

TEST(SpecializationCache, EvictsLeastRecentlyUsedAndSaysSo) {
  Fixture f(CacheOptions{.maxEntries = 2});
  TraceType a = args({tensor({1})}), b = args({tensor({2})}),
            c = args({tensor({3})});
  f.call(a);
  f.call(b);
  f.call(a); // b is now least recently used
  f.call(c); // evicts b
  EXPECT_EQ(f.cache.specializations().size(), 2u);
  EXPECT_EQ(f.builds, 3);
  f.call(a); // still cached
  EXPECT_EQ(f.builds, 3);
  f.call(b); // retraced
  EXPECT_EQ(f.builds, 4);
  EXPECT_EQ(f.cache.history().back().reason.kind, TraceReason::Kind::Evicted);
  EXPECT_NE(f.cache.history().back().reason.str().find("evicted"),
            std::string::npos);
}

TEST(SpecializationCache, FailedTraceLeavesNothingBehind) {
  SpecializationCache<std::string> cache;
  TraceType a = args({tensor({1})});
  auto failed = cache.getOrTrace(a, [](const TraceType &) {
    return llvm::Expected<std::shared_ptr<const std::string>>(
        llvm::createStringError(llvm::inconvertibleErrorCode(), "boom"));
  });
  ASSERT_FALSE(static_cast<bool>(failed));
  EXPECT_EQ(llvm::toString(failed.takeError()), "boom");
  EXPECT_TRUE(cache.specializations().empty());
  EXPECT_TRUE(cache.history().back().failed);
  auto ok = cache.getOrTrace(a, [](const TraceType &) {
    return llvm::Expected<std::shared_ptr<const std::string>>(
        std::make_shared<const std::string>("ok"));
  });
  ASSERT_TRUE(static_cast<bool>(ok));
  EXPECT_EQ(*(*ok)->payload, "ok");
}

TEST(SpecializationCache, RecursiveTraceOfSameKeyIsAnError) {
  SpecializationCache<std::string> cache;
  TraceType a = args({tensor({1})});
  std::string inner;
  auto outer = cache.getOrTrace(a, [&](const TraceType &t) {
    auto nested = cache.getOrTrace(t, [](const TraceType &) {
      return llvm::Expected<std::shared_ptr<const std::string>>(
          std::make_shared<const std::string>("never"));
    });
    inner = nested ? "no error" : llvm::toString(nested.takeError());
    return llvm::Expected<std::shared_ptr<const std::string>>(
        std::make_shared<const std::string>("outer"));
  });
  ASSERT_TRUE(static_cast<bool>(outer));
  EXPECT_NE(inner.find("recursive call"), std::string::npos) << inner;
}

TEST(SpecializationCache, FrequentRetracingWarnsBoundedly) {
  std::vector<std::string> logs;
  CacheOptions options;
  options.log = [&](const std::string &line) { logs.push_back(line); };
  options.maxWarnings = 2;
  Fixture f(options);
  for (int64_t n = 1; n <= 40; ++n)
    f.call(args({tensor({n})}));
  size_t warnings = 0;
  for (auto &line : logs)
    warnings += line.find("warning") != std::string::npos;
  EXPECT_EQ(warnings, 2u);
  EXPECT_EQ(f.cache.warningCount(), 2u);
}

TEST(SpecializationCache, NoWarningForStableCalls) {
  std::vector<std::string> logs;
  CacheOptions options;
  options.log = [&](const std::string &line) { logs.push_back(line); };
  Fixture f(options);
  for (int i = 0; i < 100; ++i)
    f.call(args({tensor({i % 2 + 1})}));
  EXPECT_TRUE(logs.empty());
}

TEST(SpecializationCache, ConcurrentMissesTraceOnce) {
  SpecializationCache<std::string> cache;
  std::atomic<int> builds{0};
  std::vector<std::thread> threads;
  std::atomic<int> errors{0};
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        TraceType type = args({tensor({(t + i) % 4 + 1, 8})});
        auto entry = cache.getOrTrace(type, [&](const TraceType &ty) {
          ++builds;
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          return llvm::Expected<std::shared_ptr<const std::string>>(
              std::make_shared<const std::string>(ty.str()));
        });
        if (!entry || *(*entry)->payload != type.str()) {
          if (!entry)
            llvm::consumeError(entry.takeError());
          ++errors;
        }
      }
    });
  }
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(errors, 0);
  EXPECT_EQ(builds, 4);
  EXPECT_EQ(cache.traceCount(), 4u);
}

TEST(SpecializationCache, ConcurrentFailuresReachEveryWaiter) {
  SpecializationCache<std::string> cache;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  TraceType a = args({tensor({3})});
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      auto entry = cache.getOrTrace(a, [&](const TraceType &) {
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        return llvm::Expected<std::shared_ptr<const std::string>>(
            llvm::createStringError(llvm::inconvertibleErrorCode(), "bad"));
      });
      if (!entry) {
        llvm::consumeError(entry.takeError());
        ++failures;
      }
    });
  }
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 16);
  EXPECT_TRUE(cache.specializations().empty());
}

} // namespace

namespace {
using Payload = llvm::Expected<std::shared_ptr<const std::string>>;
Payload payloadOf(const std::string &text) {
  return Payload(std::make_shared<const std::string>(text));
}
} // namespace

// A builder that throws (the user's callable did) must leave nothing behind:
// before the RAII guards, the in-flight marker and the thread's active-trace
// entry stayed, so this thread's next call was "recursive" forever.
TEST(SpecializationCache, ThrowingBuilderLeavesNothingBehind) {
  SpecializationCache<std::string> cache;
  TraceType a = args({tensor({1})});
  EXPECT_THROW(cache.getOrTrace(a,
                                [](const TraceType &) -> Payload {
                                  throw std::runtime_error("user bug");
                                }),
               std::runtime_error);
  EXPECT_TRUE(cache.specializations().empty());
  EXPECT_EQ(cache.traceCount(), 1u);
  ASSERT_EQ(cache.history().size(), 1u);
  EXPECT_TRUE(cache.history()[0].failed);
  EXPECT_EQ(cache.history()[0].error, "the traced callable threw: user bug");
  // Non-std exceptions too.
  EXPECT_THROW(
      cache.getOrTrace(a, [](const TraceType &) -> Payload { throw 7; }), int);
  EXPECT_EQ(cache.history().back().error,
            "the traced callable threw an exception");
  auto ok =
      cache.getOrTrace(a, [](const TraceType &) { return payloadOf("ok"); });
  ASSERT_TRUE(static_cast<bool>(ok)) << llvm::toString(ok.takeError());
  EXPECT_EQ(*(*ok)->payload, "ok");
  EXPECT_EQ(cache.specializations().size(), 1u);
}

// 16 threads on one key whose builder throws on its first 5 attempts: every
// caller gets the exception or the result (none waits forever), waiters of a
// thrown trace trace again themselves, and the key works afterwards.
TEST(SpecializationCache, ThrowingBuilderUnderSixteenThreads) {
  SpecializationCache<std::string> cache;
  TraceType a = args({tensor({3})});
  std::atomic<int> attempts{0}, thrown{0}, served{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&] {
      try {
        auto entry = cache.getOrTrace(a, [&](const TraceType &) -> Payload {
          std::this_thread::sleep_for(std::chrono::milliseconds(2));
          if (attempts.fetch_add(1) < 5)
            throw std::runtime_error("flaky");
          return payloadOf("ok");
        });
        if (entry && *(*entry)->payload == "ok")
          ++served;
        else if (!entry)
          llvm::consumeError(entry.takeError());
      } catch (const std::runtime_error &) {
        ++thrown;
      }
    });
  }
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(thrown + served, 16);
  EXPECT_EQ(thrown, 5);
  EXPECT_EQ(attempts, 6); // the sixth attempt succeeded and served the rest
  EXPECT_EQ(cache.specializations().size(), 1u);
  auto again =
      cache.getOrTrace(a, [](const TraceType &) { return payloadOf("new"); });
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(*(*again)->payload, "ok");
}

// The bound is on unpinned entries: a concrete (pinned) specialization must
// not make the second ordinary one evict the first.
TEST(SpecializationCache, PinnedEntriesDoNotCountAgainstTheBound) {
  Fixture f(CacheOptions{.maxEntries = 2});
  TraceType pinned = args({tensor({9})});
  ASSERT_TRUE(static_cast<bool>(f.cache.getConcrete(
      pinned, [](const TraceType &t) { return payloadOf(t.str()); })));
  TraceType a = args({tensor({1})}), b = args({tensor({2})}),
            c = args({tensor({3})});
  f.call(a);
  f.call(b);
  EXPECT_EQ(f.cache.specializations().size(), 3u);
  EXPECT_EQ(f.builds, 2);
  f.call(a);
  EXPECT_EQ(f.builds, 2)
      << "a was evicted although only 2 entries are unpinned";
  f.call(c); // evicts b, the least recently used unpinned entry
  EXPECT_EQ(f.cache.specializations().size(), 3u);
  f.call(a);
  EXPECT_EQ(f.builds, 3);
  f.call(b);
  EXPECT_EQ(f.builds, 4);
  EXPECT_EQ(f.cache.history().back().reason.kind, TraceReason::Kind::Evicted);
}

// reduceRetracing over a rank change: the common supertype has an unknown
// rank, which no builder can trace; the call traces its own rank instead
// (and relaxes against specializations of its rank).
TEST(SpecializationCache, ReduceRetracingNeverRelaxesTheRank) {
  Fixture f(CacheOptions{.reduceRetracing = true});
  f.call(args({tensor({2})}));
  f.call(args({tensor({2, 3})}));
  f.call(args({tensor({4, 3})}));
  f.call(args({tensor({5, 3})}));
  auto history = f.cache.history();
  ASSERT_EQ(history.size(), 3u);
  EXPECT_EQ(history[1].type, args({tensor({2, 3})}).str());
  EXPECT_EQ(history[2].reason.kind, TraceReason::Kind::Relaxed);
  EXPECT_EQ(history[2].type.find("*"), std::string::npos) << history[2].type;
  EXPECT_NE(history[2].type.find("?x3"), std::string::npos) << history[2].type;
  EXPECT_EQ(f.builds, 3);
}

TEST(SpecializationCache, MessagesNameTheFunction) {
  std::vector<std::string> logs;
  CacheOptions options;
  options.name = "encoder";
  options.verbose = true;
  options.log = [&](const std::string &line) { logs.push_back(line); };
  options.maxWarnings = 1;
  Fixture f(options);
  for (int64_t n = 1; n <= 10; ++n)
    f.call(args({tensor({n})}));
  ASSERT_FALSE(logs.empty());
  EXPECT_EQ(logs[0].rfind("tgc: 'encoder' traced ", 0), 0u) << logs[0];
  bool warned = false;
  for (const std::string &line : logs)
    warned |= line.rfind("tgc: warning: function 'encoder': ", 0) == 0;
  EXPECT_TRUE(warned);
}
