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
