//===- ControlFlowTest.cpp - tgc::cond, whileLoop, forLoop, scan ----------===//
//
// Traced control flow (include/tgc/ControlFlow.h): every function runs on
// the CPU backend (each region compiled into a plan of its own) and on the
// reference interpreter, and both are checked against values computed here
// in C++; errors are located at the caller's line.
//
//===----------------------------------------------------------------------===//

#include "tgc/ControlFlow.h"
#include "tgc/Function.h"

#include "FrontendTestUtils.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <thread>

// Every allocation through operator new in this test program, counted (the
// loop test below checks that iterations allocate nothing).
static std::atomic<int64_t> allocations{0};
void *operator new(std::size_t bytes) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(bytes ? bytes : 1))
    return p;
  throw std::bad_alloc();
}
void operator delete(void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }

using namespace tgc;
using namespace tgc::frontend::test;

namespace {

using Backend = FunctionOptions::Backend;

FunctionOptions on(Backend backend) {
  FunctionOptions options;
  options.backend = backend;
  return options;
}

/// Runs `fn` on both backends with `args`; expects the same results
/// (within `tol`) and returns the CPU backend's.
template <typename Fn, typename... Args>
std::vector<HostTensor> runBoth(Fn fn, double tol, const Args &...args) {
  std::vector<HostTensor> results[2];
  for (Backend backend : {Backend::Cpu, Backend::Reference}) {
    auto f = tgc::function(fn, on(backend));
    EXPECT_TRUE(f.ok()) << f.status();
    if (!f.ok())
      return {};
    auto r = (*f)(args...);
    EXPECT_TRUE(r.ok()) << r.status();
    if (!r.ok())
      return {};
    std::vector<HostTensor> flat;
    if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*r)>, HostTensor>)
      flat.push_back(*r);
    else
      std::apply([&](const auto &...t) { (flat.push_back(t), ...); }, *r);
    results[backend == Backend::Cpu ? 0 : 1] = std::move(flat);
  }
  EXPECT_EQ(results[0].size(), results[1].size());
  for (size_t i = 0; i < results[0].size() && i < results[1].size(); ++i) {
    const HostTensor &a = results[0][i], &b = results[1][i];
    EXPECT_EQ(a.describe(), b.describe()) << "result " << i;
    if (a.numElements() != b.numElements())
      continue;
    for (int64_t e = 0; e < a.numElements(); ++e)
      EXPECT_NEAR(a.getDouble(e), b.getDouble(e), tol)
          << "result " << i << " element " << e;
  }
  return results[0];
}

HostTensor boolean(bool value) { return makeI(DType::I1, {}, {value}); }
HostTensor i64(int64_t value) { return makeI(DType::I64, {}, {value}); }

// A piecewise function: the branch is chosen by the data, per call.
TEST(ControlFlow, CondPicksTheBranchTheDataSays) {
  auto piecewise = [](Tensor x) {
    return tgc::cond(
        greater(reduceSum(x, {0}), 0.0), [](Tensor v) { return mul(v, 2.0); },
        [](Tensor v) { return neg(relu(neg(v))); }, x);
  };
  auto up = runBoth(piecewise, 0, f32({3}, {1, -2, 4}));
  ASSERT_EQ(up.size(), 1u);
  expectValues(up[0], DType::F32, {3}, {2, -4, 8});
  auto down = runBoth(piecewise, 0, f32({3}, {1, -2, -4}));
  ASSERT_EQ(down.size(), 1u);
  expectValues(down[0], DType::F32, {3}, {0, -2, -4});
  // One trace serves both branches.
  auto f = tgc::function(piecewise);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)(f32({3}, {1, 1, 1})).ok());
  ASSERT_TRUE((*f)(f32({3}, {-1, -1, -1})).ok());
  EXPECT_EQ(f->tracingCount(), 1u);
}

// Branches may read tensors of the enclosing trace (captures), return
// structures, and take none.
TEST(ControlFlow, CondCapturesAndStructures) {
  auto fn = [](Tensor p, Tensor x, Tensor y) {
    auto [a, b] = tgc::cond(
        p,
        [&] {
          return std::pair{add(x, y), mul(x, y)};
        },
        [&] {
          return std::pair{sub(x, y), x};
        });
    return std::tuple{a, b};
  };
  auto t = runBoth(fn, 0, boolean(true), f32({2}, {3, 4}), f32({2}, {1, 2}));
  ASSERT_EQ(t.size(), 2u);
  expectValues(t[0], DType::F32, {2}, {4, 6});
  expectValues(t[1], DType::F32, {2}, {3, 8});
  auto e = runBoth(fn, 0, boolean(false), f32({2}, {3, 4}), f32({2}, {1, 2}));
  ASSERT_EQ(e.size(), 2u);
  expectValues(e[0], DType::F32, {2}, {2, 2});
  expectValues(e[1], DType::F32, {2}, {3, 4});
}

// Collatz: a loop whose trip count only the data knows.
TEST(ControlFlow, WhileLoopRunsAsOftenAsTheDataSays) {
  auto collatz = [](Tensor n) {
    auto [value, steps] = tgc::whileLoop(
        [](const std::pair<Tensor, Tensor> &c) {
          return greater(c.first, int64_t(1));
        },
        [](const std::pair<Tensor, Tensor> &c) {
          Tensor odd =
              equal(sub(c.first, mul(div(c.first, int64_t(2)), int64_t(2))),
                    int64_t(1));
          Tensor next = tgc::cond(
              odd, [](Tensor v) { return add(mul(v, int64_t(3)), int64_t(1)); },
              [](Tensor v) { return div(v, int64_t(2)); }, c.first);
          return std::pair{next, add(c.second, int64_t(1))};
        },
        std::pair{n, scalar(0, DType::I64)});
    return std::tuple{value, steps};
  };
  for (auto [start, expected] :
       {std::pair<int64_t, int64_t>{27, 111}, {1, 0}, {6, 8}}) {
    auto r = runBoth(collatz, 0, i64(start));
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].getInt(0), 1) << start;
    EXPECT_EQ(r[1].getInt(0), expected) << start;
  }
}

// A beam-search-like loop: extend the scores step by step, stop early
// when the best beam passes a threshold or after a step limit.
TEST(ControlFlow, BeamSearchLikeLoopExitsEarly) {
  auto search = [](Tensor scores, Tensor gains, Tensor threshold) {
    using State = std::tuple<Tensor, Tensor, Tensor>; // step, scores, done
    State init{scalar(0, DType::I64), scores, scalar(false, DType::I1)};
    State last = tgc::whileLoop(
        [](const State &s) {
          return logicalAnd(less(std::get<0>(s), int64_t(50)),
                            logicalNot(std::get<2>(s)));
        },
        [&](const State &s) {
          Tensor extended = add(mul(std::get<1>(s), 0.9), gains);
          Tensor best = reduceMax(extended, {0});
          return State{add(std::get<0>(s), int64_t(1)), extended,
                       greater(best, threshold)};
        },
        init);
    return std::tuple{std::get<0>(last), std::get<1>(last)};
  };
  // Computed here: the same recurrence in C++.
  std::vector<float> sf = {0.5f, 0.1f, -0.2f, 0.3f},
                     g = {0.2f, 0.5f, 0.1f, 0.3f};
  float threshold = 3.0f;
  int64_t steps = 0;
  while (steps < 50) {
    float best = -1e30f;
    for (size_t i = 0; i < sf.size(); ++i) {
      float scaled = sf[i] * 0.9f;
      sf[i] = scaled + g[i];
      best = std::max(best, sf[i]);
    }
    ++steps;
    if (best > threshold)
      break;
  }
  auto r = runBoth(search, 1e-5, f32({4}, {0.5, 0.1, -0.2, 0.3}),
                   f32({4}, {0.2, 0.5, 0.1, 0.3}), f32({}, {threshold}));
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0].getInt(0), steps);
  EXPECT_LT(steps, 50) << "the loop should exit early";
  expectValues(r[1], DType::F32, {4}, std::vector<double>(sf.begin(), sf.end()),
               1e-4);
}

TEST(ControlFlow, ForLoopSumsOverARuntimeBound) {
  auto triangle = [](Tensor n) {
    return tgc::forLoop(
        scalar(0, DType::I64), n,
        [](Tensor i, Tensor acc) { return add(acc, i); },
        scalar(0, DType::I64));
  };
  for (int64_t n : {0, 1, 10, 1000}) {
    auto r = runBoth(triangle, 0, i64(n));
    ASSERT_EQ(r.size(), 1u);
    EXPECT_EQ(r[0].getInt(0), n * (n - 1) / 2) << n;
  }
}

// An RNN written with scan: h_t = tanh(x_t W + h_{t-1} U), all h stacked.
TEST(ControlFlow, ScanRunsAnRnn) {
  const int64_t steps = 5, in = 3, hidden = 4;
  std::vector<double> xs, w, u;
  for (int64_t i = 0; i < steps * in; ++i)
    xs.push_back(std::sin(0.7 * double(i)));
  for (int64_t i = 0; i < in * hidden; ++i)
    w.push_back(0.3 * std::cos(1.3 * double(i)));
  for (int64_t i = 0; i < hidden * hidden; ++i)
    u.push_back(0.2 * std::sin(0.9 * double(i) + 0.5));
  auto rnn = [&](Tensor x, Tensor wt, Tensor ut) {
    auto [last, all] = tgc::scan(
        [&](Tensor h, Tensor xt) {
          Tensor pre = add(matmul(reshape(xt, {1, in}), wt), matmul(h, ut));
          Tensor next = tgc::tanh(pre);
          return std::pair{next, reshape(next, {hidden})};
        },
        full({1, hidden}, 0, DType::F32), x);
    return std::tuple{last, all};
  };
  // Computed here.
  std::vector<double> h(hidden, 0.0), expectedAll;
  for (int64_t t = 0; t < steps; ++t) {
    std::vector<double> next(hidden);
    for (int64_t j = 0; j < hidden; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < in; ++k)
        sum += xs[t * in + k] * w[k * hidden + j];
      for (int64_t k = 0; k < hidden; ++k)
        sum += h[k] * u[k * hidden + j];
      next[j] = std::tanh(sum);
    }
    h = next;
    expectedAll.insert(expectedAll.end(), h.begin(), h.end());
  }
  auto r = runBoth(rnn, 1e-5, f32({steps, in}, xs), f32({in, hidden}, w),
                   f32({hidden, hidden}, u));
  ASSERT_EQ(r.size(), 2u);
  expectValues(r[0], DType::F32, {1, hidden}, h, 1e-5);
  expectValues(r[1], DType::F32, {steps, hidden}, expectedAll, 1e-5);
}

// 10,000 iterations over a small state: each iteration is one run of the
// condition's plan and one of the body's, into buffers the loop holds (no
// allocation per iteration); the time per iteration is printed, not
// asserted (bench/ has the measurements).
TEST(ControlFlow, TenThousandIterations) {
  auto count = [](Tensor x) {
    return tgc::forLoop(
        int64_t(0), int64_t(10000),
        [](Tensor, Tensor v) { return add(mul(v, 0.5), 1.0); }, x);
  };
  auto f = tgc::function(count);
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({4}, {0, 1, 2, 3});
  ASSERT_TRUE((*f)(x).ok());
  auto start = std::chrono::steady_clock::now();
  auto r = (*f)(x);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {4}, {2, 2, 2, 2});
  std::printf("10000 iterations: %.2f us per iteration\n",
              seconds * 1e6 / 10000);
}

// An iteration allocates nothing: a call of 10,000 iterations allocates as
// much as one of 10 (the nested plans run into the loop's buffers, their
// step views retargeted in place).
TEST(ControlFlow, IterationsAllocateNothing) {
  auto f = tgc::function([](Tensor n, Tensor x) {
    return tgc::forLoop(
        scalar(0, DType::I64), n,
        [](Tensor, Tensor v) { return add(mul(v, 0.5), 1.0); }, x);
  });
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({16}, std::vector<double>(16, 3.0));
  ASSERT_TRUE((*f)(i64(3), x).ok());
  auto count = [&](int64_t n) {
    int64_t before = allocations.load();
    auto r = (*f)(i64(n), x);
    int64_t used = allocations.load() - before;
    EXPECT_TRUE(r.ok()) << r.status();
    return used;
  };
  int64_t few = count(10), many = count(10000);
  // (The first calls also fill the plans' pools: the later call may need
  // fewer.)
  EXPECT_LE(many, few) << "allocations per call: " << few << " for 10 "
                       << "iterations, " << many << " for 10,000";
  EXPECT_EQ(f->tracingCount(), 1u);
}

// The same with a branch in the body: an if step runs its branch's plan on
// its own inputs and into its own outputs. (The branches are loop kernels:
// a oneDNN primitive step still builds its argument map and memory
// objects on every run.)
TEST(ControlFlow, BranchesInLoopsAllocateNothing) {
  auto f = tgc::function([](Tensor n, Tensor x) {
    return tgc::forLoop(
        scalar(0, DType::I64), n,
        [](Tensor i, Tensor v) {
          return tgc::cond(
              less(i, int64_t(5)),
              [](Tensor w) { return add(mul(w, 2.0), 1.0); },
              [](Tensor w) { return sub(mul(w, 0.5), 0.25); }, v);
        },
        x);
  });
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({16}, std::vector<double>(16, 3.0));
  ASSERT_TRUE((*f)(i64(3), x).ok());
  auto count = [&](int64_t n) {
    int64_t before = allocations.load();
    auto r = (*f)(i64(n), x);
    int64_t used = allocations.load() - before;
    EXPECT_TRUE(r.ok()) << r.status();
    return used;
  };
  int64_t few = count(10), many = count(10000);
  EXPECT_LE(many, few) << "allocations per call: " << few << " for 10 "
                       << "iterations, " << many << " for 10,000";
}

// One compiled function with a loop and a branch, called from 8 threads at
// once: each call's loop has its own buffers (the nested plans' arenas come
// from their pools).
TEST(ControlFlow, ConcurrentCallsAgree) {
  auto f = tgc::function([](Tensor n, Tensor x) {
    return tgc::forLoop(
        scalar(0, DType::I64), n,
        [](Tensor i, Tensor v) {
          Tensor even =
              equal(sub(i, mul(div(i, int64_t(2)), int64_t(2))), int64_t(0));
          return tgc::cond(
              even, [](Tensor w) { return add(w, 1.0); },
              [](Tensor w) { return mul(w, 2.0); }, v);
        },
        x);
  });
  ASSERT_TRUE(f.ok());
  auto expected = [](int64_t n, double x) {
    for (int64_t i = 0; i < n; ++i)
      x = i % 2 == 0 ? x + 1 : x * 2;
    return x;
  };
  std::vector<std::thread> threads;
  std::atomic<int> mismatches{0};
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int call = 0; call < 20; ++call) {
        int64_t n = (t * 7 + call) % 12;
        double x0 = 0.25 * t;
        auto r = (*f)(i64(n), f32({3}, {x0, x0, x0}));
        if (!r.ok() || std::fabs(r->getDouble(2) - expected(n, x0)) > 1e-3)
          ++mismatches;
      }
    });
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(mismatches.load(), 0);
  EXPECT_EQ(f->tracingCount(), 1u);
}

TEST(ControlFlow, ErrorsNameTheCallersLine) {
  // Branches of different shapes.
  int line = __LINE__ + 2;
  auto f = tgc::function([](Tensor p, Tensor x) {
    return tgc::cond(
        p, [](Tensor v) { return v; },
        [](Tensor v) {
          return concat({v, v}, 0);
        },
        x);
  });
  ASSERT_TRUE(f.ok());
  auto r = (*f)(boolean(true), f32({2}, {1, 2}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("the branches return different types as result #0: "
                         "tensor<2xf32> ('then') and tensor<4xf32> ('else')"),
            std::string::npos)
      << message;

  // A loop body that changes a carried shape.
  line = __LINE__ + 2;
  auto g = tgc::function([](Tensor x) {
    return tgc::whileLoop(
        [](Tensor v) { return less(reduceSum(v, {0}), 10.0); },
        [](Tensor v) {
          return concat({v, v}, 0);
        },
        x);
  });
  ASSERT_TRUE(g.ok());
  auto s = (*g)(f32({2}, {1, 2}));
  ASSERT_FALSE(s.ok());
  message = std::string(s.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("the loop body changes carried value #0 from "
                         "tensor<2xf32> to tensor<4xf32>"),
            std::string::npos)
      << message;

  // A condition that is not one boolean.
  line = __LINE__ + 2;
  auto h = tgc::function([](Tensor x) {
    return tgc::cond(
        greater(x, 0.0), [](Tensor v) { return v; }, [](Tensor v) { return v; },
        x);
  });
  ASSERT_TRUE(h.ok());
  auto t = (*h)(f32({2}, {1, 2}));
  ASSERT_FALSE(t.ok());
  message = std::string(t.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("condition must be a tensor<i1> holding one element"),
            std::string::npos)
      << message;
}

// The structural errors the tracing API reports itself, at the caller's
// line: branches returning different numbers of tensors, a branch
// returning a tensor of no trace, a scan over a dynamic leading dim.
TEST(ControlFlow, StructureErrorsNameTheCallersLine) {
  int line = __LINE__ + 2;
  auto f = tgc::function([](Tensor p, Tensor x) {
    return tgc::cond(
        p, [](Tensor v) { return std::vector<Tensor>{v}; },
        [](Tensor v) {
          return std::vector<Tensor>{v, v};
        },
        x);
  });
  ASSERT_TRUE(f.ok());
  auto r = (*f)(boolean(true), f32({2}, {1, 2}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("the 'then' branch returns 1 tensors but the 'else' "
                         "branch 2"),
            std::string::npos)
      << message;

  line = __LINE__ + 2;
  auto g = tgc::function([](Tensor p, Tensor x) {
    return tgc::cond(
        p, [](Tensor v) { return v; }, [](Tensor) { return Tensor(); }, x);
  });
  ASSERT_TRUE(g.ok());
  auto s = (*g)(boolean(true), f32({2}, {1, 2}));
  ASSERT_FALSE(s.ok());
  message = std::string(s.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("the 'else' branch returns an invalid tensor as "
                         "result #0 (default-constructed, or of another "
                         "trace)"),
            std::string::npos)
      << message;

  FunctionOptions options;
  options.inputSignature = std::vector<tracing::TensorSpec>{
      tracing::TensorSpec{DType::F32, {tracing::kDynamic, 2}}};
  line = __LINE__ + 3;
  auto h = tgc::function(
      [](Tensor xs) {
        return tgc::scan(
                   [](Tensor c, Tensor x) {
                     return std::pair{add(c, x), x};
                   },
                   full({2}, 0, DType::F32), xs)
            .first;
      },
      options);
  ASSERT_TRUE(h.ok());
  auto t = (*h)(f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  ASSERT_FALSE(t.ok());
  message = std::string(t.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("a scan runs over the leading dim of its input, "
                         "which must be static; the input is "
                         "tensor<?x2xf32>"),
            std::string::npos)
      << message;

  // Per-iteration outputs of a dynamic shape cannot be stacked.
  options.inputSignature = std::vector<tracing::TensorSpec>{
      tracing::TensorSpec{DType::F32, {3, tracing::kDynamic}}};
  line = __LINE__ + 3;
  auto k = tgc::function(
      [](Tensor xs) {
        return tgc::scan(
                   [](Tensor c, Tensor x) {
                     return std::pair{add(c, reduceSum(x, {0})), x};
                   },
                   full({}, 0, DType::F32), xs)
            .second;
      },
      options);
  ASSERT_TRUE(k.ok());
  auto u = (*k)(f32({3, 2}, {1, 2, 3, 4, 5, 6}));
  ASSERT_FALSE(u.ok());
  message = std::string(u.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("per-iteration output #0 is tensor<?xf32>: stacking "
                         "needs the same static shape on every iteration"),
            std::string::npos)
      << message;
}

// An exception thrown inside a branch leaves the trace (and the function)
// usable: the next call traces again.
TEST(ControlFlow, ExceptionsInBranchesPropagate) {
  bool thrown = false;
  auto f = tgc::function([&](Tensor p, Tensor x) {
    return tgc::cond(
        p,
        [&](Tensor v) {
          if (!thrown) {
            thrown = true;
            throw std::runtime_error("from the branch");
          }
          return v;
        },
        [](Tensor v) { return neg(v); }, x);
  });
  ASSERT_TRUE(f.ok());
  EXPECT_THROW((void)(*f)(boolean(true), f32({1}, {2})), std::runtime_error);
  auto r = (*f)(boolean(false), f32({1}, {2}));
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {1}, {-2});
}

} // namespace

// A data-dependent shape in a traced function (tgc::nonzero): one trace
// serves every count; the CPU backend compiles what follows the nonzero for
// each count when a call brings it (codegen/Staged.h).
TEST(DataDependent, NonZeroServesEveryCountWithOneTrace) {
  auto positives = [](Tensor x) {
    Tensor where = nonzero(greater(x, 0.0));
    Tensor picked = gather(x, reshape(where, {-1}), 0);
    return mul(picked, 2.0);
  };
  auto some = runBoth(positives, 0, f32({5}, {1, -2, 3, -4, 5}));
  ASSERT_EQ(some.size(), 1u);
  expectValues(some[0], DType::F32, {3}, {2, 6, 10});
  auto none = runBoth(positives, 0, f32({5}, {-1, -2, -3, -4, -5}));
  ASSERT_EQ(none.size(), 1u);
  expectValues(none[0], DType::F32, {0}, {});
  auto f = tgc::function(positives);
  ASSERT_TRUE(f.ok());
  for (double v : {1.0, -1.0, 2.0})
    ASSERT_TRUE((*f)(f32({5}, {v, -v, v, v, -v})).ok());
  EXPECT_EQ(f->tracingCount(), 1u);
  EXPECT_EQ(f->compileCount(), 1u);
  // Coordinates of a 2-D input, one column per nonzero element.
  auto coordinates = runBoth([](Tensor x) { return nonzero(x); }, 0,
                             f32({2, 3}, {0, 1, 0, 2, 0, 3}));
  ASSERT_EQ(coordinates.size(), 1u);
  expectValues(coordinates[0], DType::I64, {2, 3}, {0, 1, 1, 1, 0, 2});
}

// tgc::unique and tgc::nonMaxSuppression in traced functions, against
// values worked out by hand, on both backends.
TEST(DataDependent, UniqueAndNonMaxSuppressionTrace) {
  auto distinct = [](Tensor x) {
    UniqueTensors u = unique(x, std::nullopt, /*sorted=*/true);
    return std::make_tuple(u.values, u.indices, u.inverse, u.counts);
  };
  auto u = runBoth(distinct, 0, f32({5}, {3, 1, 3, 2, 1}));
  ASSERT_EQ(u.size(), 4u);
  expectValues(u[0], DType::F32, {3}, {1, 2, 3});
  expectValues(u[1], DType::I64, {3}, {1, 3, 0});
  expectValues(u[2], DType::I64, {5}, {2, 0, 2, 1, 0});
  expectValues(u[3], DType::I64, {3}, {2, 1, 2});
  auto suppress = [](Tensor boxes, Tensor scores) {
    Tensor keep = constant(makeI(DType::I64, {1}, {1}));
    Tensor iou = constant(f32({1}, {0.5}));
    Tensor floor = constant(f32({1}, {0.1}));
    return nonMaxSuppression(boxes, scores, keep, iou, floor);
  };
  // One box per class: class 0 keeps box 1 (best), class 1 keeps box 0
  // (box 1's score is below the floor).
  auto kept = runBoth(suppress, 0, f32({1, 2, 4}, {0, 0, 1, 1, 0, 0, 2, 2}),
                      f32({1, 2, 2}, {0.3, 0.6, 0.4, 0.05}));
  ASSERT_EQ(kept.size(), 1u);
  expectValues(kept[0], DType::I64, {2, 3}, {0, 0, 1, 0, 1, 0});
}

// tgc::topk with k = -1 sorts a whole dim, of a data-dependent size too:
// the positive elements, best first, on both backends; k below -1 is an
// error at the caller's line.
TEST(DataDependent, TopKOfEveryElementSortsADynamicDim) {
  auto sortPositives = [](Tensor x) {
    Tensor picked = gather(x, reshape(nonzero(greater(x, 0.0)), {-1}), 0);
    auto [values, indices] = topk(picked, -1);
    return std::make_pair(values, indices);
  };
  auto sorted = runBoth(sortPositives, 0, f32({6}, {1, -2, 5, 3, -4, 3}));
  ASSERT_EQ(sorted.size(), 2u);
  expectValues(sorted[0], DType::F32, {4}, {5, 3, 3, 1});
  expectValues(sorted[1], DType::I64, {4}, {1, 2, 3, 0});
  auto none = runBoth(sortPositives, 0, f32({3}, {-1, -2, -3}));
  ASSERT_EQ(none.size(), 2u);
  expectValues(none[0], DType::F32, {0}, {});

  auto bad = tgc::function([](Tensor x) { return topk(x, -2).first; });
  ASSERT_TRUE(bad.ok());
  auto r = (*bad)(f32({3}, {1, 2, 3}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(
      message.find("k must be -1 (every element) or non-negative, got -2"),
      std::string::npos)
      << message;
  EXPECT_NE(message.find("ControlFlowTest.cpp:"), std::string::npos) << message;
}

// tgc::dynamicBroadcastTo to a shape computed from values (as many copies
// of x as there are positive elements), on both backends; a shape that is
// not a 1-D i64 tensor is an error at the caller's line.
TEST(DataDependent, DynamicBroadcastToAShapeFromValues) {
  auto copies = [](Tensor x, Tensor m) {
    Tensor count =
        reduceSum(cast(greater(m, 0.0), DType::I64), {0}, /*keepDims=*/true);
    Tensor shape = concat({count, constant(makeI(DType::I64, {1}, {1}))}, 0);
    return dynamicBroadcastTo(x, shape);
  };
  auto two = runBoth(copies, 0, f32({2}, {1, 2}), f32({3}, {5, -1, 5}));
  ASSERT_EQ(two.size(), 1u);
  expectValues(two[0], DType::F32, {2, 2}, {1, 2, 1, 2});
  auto none = runBoth(copies, 0, f32({2}, {1, 2}), f32({3}, {-5, -1, -5}));
  ASSERT_EQ(none.size(), 1u);
  expectValues(none[0], DType::F32, {0, 2}, {});

  auto bad = tgc::function(
      [](Tensor x) { return dynamicBroadcastTo(x, reshape(x, {-1})); });
  ASSERT_TRUE(bad.ok());
  auto r = (*bad)(f32({2}, {1, 2}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find("'tgc.dynamic_broadcast_to' op the shape must be a "
                         "1-D i64 tensor of a static length, not "
                         "tensor<2xf32>"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("ControlFlowTest.cpp:"), std::string::npos) << message;
}
