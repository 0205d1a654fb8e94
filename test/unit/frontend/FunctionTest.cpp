//===- FunctionTest.cpp - tgc::function: tracing, cache, retracing --------===//

#include "frontend/Function.h"
#include "tgc/AbslStatus.h"
#include "tgc/Artifact.h"

#include "FrontendTestUtils.h"

#include <atomic>
#include <cstring>
#include <filesystem>
#include <map>
#include <thread>
#include <unistd.h>

using namespace tgc;
using namespace tgc::frontend::test;
using tracing::TensorSpec;

namespace {

constexpr int64_t kDyn = tracing::kDynamic;

/// The trace events of a history (it also lists compiles and dropped plans).
std::vector<tracing::TraceEvent>
traces(const std::vector<tracing::TraceEvent> &history) {
  std::vector<tracing::TraceEvent> result;
  for (const tracing::TraceEvent &event : history)
    if (event.kind == tracing::TraceEvent::Kind::Trace)
      result.push_back(event);
  return result;
}

HostTensor ones(Shape shape) {
  auto t = HostTensor::allocate(DType::F32, shape);
  for (int64_t i = 0; i < t->numElements(); ++i)
    t->setDouble(i, 1.0);
  return *t;
}

TEST(Function, CallsRunAndReturnHostTensors) {
  auto f = tgc::function([](Tensor x, Tensor y) { return x * y + 1.0; });
  ASSERT_TRUE(f.ok()) << f.status();
  auto r = (*f)(f32({2}, {2, 3}), f32({2}, {4, 5}));
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {2}, {9, 16});
  EXPECT_EQ(f->tracingCount(), 1u);
}

TEST(Function, SameTypesHitDifferentShapesRetrace) {
  auto f = tgc::function([](Tensor x) { return relu(x); });
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)(ones({2, 3})).ok());
  ASSERT_TRUE((*f)(ones({2, 3})).ok());
  EXPECT_EQ(f->tracingCount(), 1u);
  ASSERT_TRUE((*f)(ones({4, 3})).ok());
  EXPECT_EQ(f->tracingCount(), 2u);
  auto history = traces(f->history());
  ASSERT_EQ(history.size(), 2u);
  EXPECT_EQ(history[0].reason.kind, tracing::TraceReason::Kind::FirstCall);
  EXPECT_EQ(history[1].reason.kind, tracing::TraceReason::Kind::NewType);
  EXPECT_EQ(history[1].reason.path, "arg0");
  auto specs = f->specializations();
  ASSERT_EQ(specs.size(), 2u);
  EXPECT_EQ(specs[0].hits, 2u);
  EXPECT_EQ(specs[1].hits, 1u);
}

TEST(Function, DtypeIsPartOfTheKey) {
  auto f = tgc::function([](Tensor x) { return x + x; });
  ASSERT_TRUE((*f)(f32({1}, {1})).ok());
  auto r = (*f)(makeI(DType::I32, {1}, {3}));
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->dtype(), DType::I32);
  EXPECT_EQ(r->getInt(0), 6);
  EXPECT_EQ(f->tracingCount(), 2u);
}

TEST(Function, ScalarsAreBakedInAndKeyed) {
  auto f = tgc::function([](Tensor x, double scale, bool negate) {
    Tensor y = x * scale;
    return negate ? -y : y;
  });
  HostTensor x = f32({2}, {1, 2});
  expectValues(*(*f)(x, 2.0, false), DType::F32, {2}, {2, 4});
  expectValues(*(*f)(x, 3.0, false), DType::F32, {2}, {3, 6});
  expectValues(*(*f)(x, 3.0, true), DType::F32, {2}, {-3, -6});
  expectValues(*(*f)(x, 3.0, false), DType::F32, {2}, {3, 6});
  EXPECT_EQ(f->tracingCount(), 3u);
}

TEST(Function, ContainersInAndStructuresOut) {
  auto f = tgc::function([](const std::vector<Tensor> &xs,
                            const std::map<std::string, Tensor> &named) {
    Tensor sum = xs[0];
    for (size_t i = 1; i < xs.size(); ++i)
      sum = sum + xs[i];
    return std::make_tuple(
        sum, std::vector<Tensor>{named.at("a"), named.at("b") * 2.0});
  });
  ASSERT_TRUE(f.ok());
  std::vector<HostTensor> xs = {f32({2}, {1, 2}), f32({2}, {10, 20}),
                                f32({2}, {100, 200})};
  std::map<std::string, HostTensor> named = {{"b", f32({1}, {7})},
                                             {"a", f32({1}, {5})}};
  auto r = (*f)(xs, named);
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(std::get<0>(*r), DType::F32, {2}, {111, 222});
  ASSERT_EQ(std::get<1>(*r).size(), 2u);
  expectValues(std::get<1>(*r)[0], DType::F32, {1}, {5});
  expectValues(std::get<1>(*r)[1], DType::F32, {1}, {14});
  // A vector of another length is another TraceType.
  xs.pop_back();
  ASSERT_TRUE((*f)(xs, named).ok());
  EXPECT_EQ(f->tracingCount(), 2u);
}

TEST(Function, InputSignatureNeverRetraces) {
  FunctionOptions options;
  options.inputSignature =
      std::vector<TensorSpec>{TensorSpec{DType::F32, {kDyn, 3}}};
  auto f = tgc::function([](Tensor x) { return reduceSum(x, {1}); }, options);
  ASSERT_TRUE(f.ok()) << f.status();
  for (int64_t batch : {1, 2, 7, 0}) {
    auto r = (*f)(ones({batch, 3}));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->shape(), (Shape{batch}));
  }
  EXPECT_EQ(f->tracingCount(), 1u);
  ASSERT_EQ(f->specializations().size(), 1u);
  EXPECT_TRUE(f->specializations()[0].pinned);
}

TEST(Function, InputSignatureMismatchNamesTheArgument) {
  FunctionOptions options;
  options.inputSignature = std::vector<TensorSpec>{
      TensorSpec{DType::F32, {kDyn, 3}}, TensorSpec{DType::F32, {3}}};
  auto f = tgc::function([](Tensor x, Tensor b) { return x + b; }, options);
  ASSERT_TRUE(f.ok());
  auto bad = (*f)(ones({2, 4}), ones({3}));
  ASSERT_FALSE(bad.ok());
  std::string message(bad.status().message());
  EXPECT_NE(message.find("arg0"), std::string::npos) << message;
  EXPECT_NE(message.find("?x3"), std::string::npos) << message;
  EXPECT_NE(message.find("2x4"), std::string::npos) << message;
  auto wrongDtype = (*f)(ones({2, 3}), makeI(DType::I32, {3}, {1, 2, 3}));
  ASSERT_FALSE(wrongDtype.ok());
  EXPECT_NE(std::string(wrongDtype.status().message()).find("arg1"),
            std::string::npos)
      << wrongDtype.status();
  // (A wrong number of arguments does not compile: the callable's arity.)
  // Nothing was traced or cached by the failures.
  EXPECT_EQ(f->tracingCount(), 0u);
  ASSERT_TRUE((*f)(ones({2, 3}), ones({3})).ok());
  EXPECT_EQ(f->tracingCount(), 1u);
}

TEST(Function, InvalidSignatureRejectedAtCreation) {
  FunctionOptions options;
  options.inputSignature =
      std::vector<TensorSpec>{TensorSpec{DType::F32, {-5, 3}}};
  auto f = tgc::function([](Tensor x) { return x; }, options);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(std::string(f.status().message()).find("input_signature"),
            std::string::npos)
      << f.status();
  options.inputSignature =
      std::vector<TensorSpec>{TensorSpec{DType::F32, {INT64_MAX, INT64_MAX}}};
  EXPECT_FALSE(tgc::function([](Tensor x) { return x; }, options).ok());
}

TEST(Function, ReduceRetracingTracesAtMostTwiceForVaryingBatch) {
  FunctionOptions options;
  options.reduceRetracing = true;
  auto f = tgc::function([](Tensor x, Tensor w) { return relu(matmul(x, w)); },
                         options);
  HostTensor w = ones({4, 2});
  for (int64_t batch : {1, 2, 3, 16, 5, 1}) {
    auto r = (*f)(ones({batch, 4}), w);
    ASSERT_TRUE(r.ok()) << r.status();
    expectValues(*r, DType::F32, {batch, 2},
                 std::vector<double>(batch * 2, 4.0));
  }
  EXPECT_EQ(f->tracingCount(), 2u);
  EXPECT_EQ(traces(f->history())[1].reason.kind,
            tracing::TraceReason::Kind::Relaxed);
}

TEST(Function, ConcreteFunctionAheadOfCalls) {
  auto f = tgc::function([](Tensor x) { return exp(x); });
  auto c1 = f->concreteFunction(TensorSpec{DType::F32, {kDyn}});
  ASSERT_TRUE(c1.ok()) << c1.status();
  auto c2 = f->concreteFunction(TensorSpec{DType::F32, {kDyn}});
  ASSERT_TRUE(c2.ok());
  EXPECT_EQ(c1->signature, c2->signature);
  EXPECT_TRUE(c1->pinned);
  EXPECT_EQ(f->tracingCount(), 1u);
  // Calls of any length are served by it.
  ASSERT_TRUE((*f)(ones({3})).ok());
  ASSERT_TRUE((*f)(ones({5})).ok());
  EXPECT_EQ(f->tracingCount(), 1u);
  std::string ir = c1->printModule(true);
  EXPECT_NE(ir.find("tgc.exp"), std::string::npos) << ir;
  EXPECT_NE(ir.find("FunctionTest.cpp"), std::string::npos) << ir;
}

TEST(Function, BoundedCacheEvictsAndRetracesWithReason) {
  FunctionOptions options;
  options.maxSpecializations = 2;
  options.log = [](const std::string &) {};
  auto f = tgc::function([](Tensor x) { return x * 2.0; }, options);
  ASSERT_TRUE((*f)(ones({1})).ok());
  ASSERT_TRUE((*f)(ones({2})).ok());
  ASSERT_TRUE((*f)(ones({3})).ok());
  EXPECT_EQ(f->specializations().size(), 2u);
  ASSERT_TRUE((*f)(ones({1})).ok());
  EXPECT_EQ(f->tracingCount(), 4u);
  EXPECT_EQ(traces(f->history()).back().reason.kind,
            tracing::TraceReason::Kind::Evicted);
}

TEST(Function, TraceErrorsPointAtUserCodeAndCacheStaysClean) {
  auto f = tgc::function([](Tensor x, Tensor y) {
    return x + y; // the failing line
  });
  int line = __LINE__ - 2;
  auto r = (*f)(ones({2, 3}), ones({4, 3}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("broadcast"), std::string::npos) << message;
  EXPECT_TRUE(f->specializations().empty());
  ASSERT_TRUE((*f)(ones({2, 3}), ones({3})).ok());
  EXPECT_EQ(f->specializations().size(), 1u);
}

TEST(Function, VerboseModeLogsReasons) {
  std::vector<std::string> lines;
  FunctionOptions options;
  options.verbose = true;
  options.log = [&](const std::string &line) { lines.push_back(line); };
  auto f = tgc::function([](Tensor x) { return x; }, options);
  ASSERT_TRUE((*f)(ones({1})).ok());
  ASSERT_TRUE((*f)(ones({2})).ok());
  // Each trace compiles its static plan first (events in the order they
  // complete).
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(
      lines[0].rfind("tgc: 'traced' compiled (Tensor<1xf32>,) for (1) (", 0),
      0u)
      << lines[0];
  EXPECT_NE(lines[1].find("first call"), std::string::npos) << lines[1];
  EXPECT_NE(lines[2].find("compiled"), std::string::npos) << lines[2];
  EXPECT_NE(lines[3].find("arg0 was"), std::string::npos) << lines[3];
}

TEST(Function, FrequentRetracingWarns) {
  std::vector<std::string> lines;
  FunctionOptions options;
  options.log = [&](const std::string &line) { lines.push_back(line); };
  auto f = tgc::function([](Tensor x) { return x; }, options);
  for (int64_t n = 1; n <= 12; ++n)
    ASSERT_TRUE((*f)(ones({n})).ok());
  ASSERT_FALSE(lines.empty());
  EXPECT_NE(lines[0].find("warning"), std::string::npos) << lines[0];
}

TEST(Function, ConcurrentCallsWithMixedSignatures) {
  auto f = tgc::function([](Tensor x) { return x * 2.0 + 1.0; });
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        int64_t n = (t + i) % 3 + 1;
        auto r = (*f)(ones({n}));
        if (!r.ok() || r->numElements() != n || r->getDouble(0) != 3.0)
          ++failures;
      }
    });
  }
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(failures, 0);
  EXPECT_EQ(f->tracingCount(), 3u);
}

TEST(Function, VariablesAreUpdatedByCalls) {
  Variable counter = Variable::create(f32({2}, {0, 10}));
  auto step = tgc::function([](VariableRef v, Tensor delta) {
    v.assign(v.read() + delta);
    return v.read() * 2.0;
  });
  for (int i = 0; i < 3; ++i) {
    auto r = (*step)(counter, f32({2}, {1, 1}));
    ASSERT_TRUE(r.ok()) << r.status();
    expectValues(*r, DType::F32, {2}, {2.0 * (i + 1), 2.0 * (11 + i)});
  }
  expectValues(counter.value(), DType::F32, {2}, {3, 13});
  EXPECT_EQ(step->tracingCount(), 1u);
  // Another variable of the same type shares the specialization.
  Variable other = Variable::create(f32({2}, {5, 5}));
  ASSERT_TRUE((*step)(other, f32({2}, {1, 2})).ok());
  expectValues(other.value(), DType::F32, {2}, {6, 7});
  expectValues(counter.value(), DType::F32, {2}, {3, 13});
  EXPECT_EQ(step->tracingCount(), 1u);
}

TEST(Function, VariableAliasingIsPartOfTheKey) {
  auto f = tgc::function([](VariableRef a, VariableRef b) {
    a.assign(a.read() + 1.0);
    b.assign(b.read() * 2.0);
    return b.read();
  });
  Variable x = Variable::create(f32({1}, {1}));
  Variable y = Variable::create(f32({1}, {1}));
  ASSERT_TRUE((*f)(x, y).ok());
  expectValues(x.value(), DType::F32, {1}, {2});
  expectValues(y.value(), DType::F32, {1}, {2});
  // The same variable twice: b sees a's update.
  Variable z = Variable::create(f32({1}, {1}));
  auto r = (*f)(z, z);
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {1}, {4});
  expectValues(z.value(), DType::F32, {1}, {4});
  EXPECT_EQ(f->tracingCount(), 2u);
  // Aliasing pattern, not identity: another aliased pair hits.
  Variable w = Variable::create(f32({1}, {3}));
  ASSERT_TRUE((*f)(w, w).ok());
  expectValues(w.value(), DType::F32, {1}, {8});
  EXPECT_EQ(f->tracingCount(), 2u);
}

TEST(Function, BadVariableAssignmentIsATraceError) {
  auto f = tgc::function([](VariableRef v) {
    v.assign(cast(v.read(), DType::I32)); // wrong dtype
    return v.read();
  });
  int line = __LINE__ - 3;
  Variable v = Variable::create(f32({2}, {1, 2}));
  auto r = (*f)(v);
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_NE(message.find("cannot assign"), std::string::npos) << message;
  expectValues(v.value(), DType::F32, {2}, {1, 2});
  EXPECT_TRUE(f->specializations().empty());
}

TEST(Function, FailedCallLeavesVariablesUnchanged) {
  auto f = tgc::function([](VariableRef v, Tensor index) {
    v.assign(v.read() + 1.0);
    return gather(v.read(), index, 0);
  });
  Variable v = Variable::create(f32({2}, {1, 2}));
  auto bad = (*f)(v, makeI(DType::I64, {1}, {5})); // index out of range
  ASSERT_FALSE(bad.ok());
  expectValues(v.value(), DType::F32, {2}, {1, 2});
  auto good = (*f)(v, makeI(DType::I64, {1}, {1}));
  ASSERT_TRUE(good.ok()) << good.status();
  expectValues(*good, DType::F32, {1}, {3});
  expectValues(v.value(), DType::F32, {2}, {2, 3});
}

TEST(Function, CapturesByReferenceAreReadOnEveryCall) {
  HostTensor scale = f32({2}, {2, 3});
  CaptureRef captured = CaptureRef::of(&scale);
  HostTensor baked = f32({2}, {100, 100});
  FunctionOptions options;
  options.captures = {captured};
  options.log = [](const std::string &) {};
  auto f = tgc::function(
      [captured, baked](Tensor x) {
        // `baked` becomes a constant at trace time; `captured` is an input.
        return x * captured.read() + constant(baked);
      },
      options);
  ASSERT_TRUE(f.ok()) << f.status();
  HostTensor x = f32({2}, {1, 1});
  expectValues(*(*f)(x), DType::F32, {2}, {102, 103});
  scale.setDouble(0, 5);
  baked.setDouble(0, 0); // not seen: baked in
  expectValues(*(*f)(x), DType::F32, {2}, {105, 103});
  EXPECT_EQ(f->tracingCount(), 1u);
  // A capture of another type is another key; the retrace bakes the
  // constant anew.
  scale = f32({1}, {4});
  auto r = (*f)(x);
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {2}, {4, 104});
  EXPECT_EQ(f->tracingCount(), 2u);
  EXPECT_EQ(traces(f->history()).back().reason.path, "arg1");
}

TEST(Function, UndeclaredCaptureIsATraceError) {
  HostTensor scale = f32({1}, {2});
  CaptureRef captured = CaptureRef::of(&scale);
  auto f = tgc::function([captured](Tensor x) {
    return x * captured.read(); // not declared in the options
  });
  int line = __LINE__ - 2;
  auto r = (*f)(f32({1}, {1}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find("FunctionOptions::captures"), std::string::npos)
      << message;
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
  EXPECT_TRUE(f->specializations().empty());
}

TEST(Function, InterOpParallelismGivesTheSameResults) {
  FunctionOptions options;
  options.interOpThreads = 2;
  auto branches = [](Tensor x, Tensor w1, Tensor w2) {
    return relu(matmul(x, w1)) + tanh(matmul(x, w2));
  };
  auto parallel = tgc::function(branches, options);
  auto sequential = tgc::function(branches);
  HostTensor x = f32({2, 3}, {1, -2, 3, 0.5, 0.25, -1});
  HostTensor w1 = f32({3, 2}, {1, 0, 0, 1, 1, 1});
  HostTensor w2 = f32({3, 2}, {0.5, -0.5, 0.25, 0.75, -1, 1});
  auto a = (*parallel)(x, w1, w2);
  auto b = (*sequential)(x, w1, w2);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_TRUE(runtime::allClose(*a, *b, 0, 0).ok());
  // relu([[4, 1], [-0.5, -0.75]]) + tanh([[-3, 1], [1.3125, -1.0625]])
  expectValues(*a, DType::F32, {2, 2},
               {4 + std::tanh(-3.0), 1 + std::tanh(1.0), std::tanh(1.3125),
                std::tanh(-1.0625)});
}

TEST(Function, NonContiguousViewsMatchDenseInputsOnBothBackends) {
  using runtime::StridedView;
  auto body = [](Tensor a, Tensor b, Tensor c) {
    return relu(matmul(a, b) + c);
  };
  FunctionOptions reference;
  reference.backend = FunctionOptions::Backend::Reference;
  auto onCpu = tgc::function(body);
  auto onReference = tgc::function(body, reference);
  // a: the transpose of a 3x2 buffer; b: every other row of a 6x4 buffer,
  // columns reversed; c: one row broadcast over 2 rows (stride 0).
  HostTensor bufA = f32({3, 2}, {1, 2, 3, 4, 5, 6});
  HostTensor bufB =
      f32({6, 4}, {1,  2,  3,  4,  -1, -1, -1, -1, 0,  1,  0,  1,
                   -1, -1, -1, -1, 2,  0,  0,  2,  -1, -1, -1, -1});
  HostTensor bufC = f32({4}, {10, -20, 30, -40});
  auto a = StridedView::over(bufA, 0, {2, 3}, {1, 2});
  auto b = StridedView::over(bufB, 3, {3, 4}, {8, -1});
  auto c = StridedView::over(bufC, 0, {2, 4}, {0, 1});
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  // The same values, dense, written out by hand.
  HostTensor denseA = f32({2, 3}, {1, 3, 5, 2, 4, 6});
  HostTensor denseB = f32({3, 4}, {4, 3, 2, 1, 1, 0, 1, 0, 2, 0, 0, 2});
  HostTensor denseC = f32({2, 4}, {10, -20, 30, -40, 10, -20, 30, -40});
  auto want = (*onReference)(denseA, denseB, denseC);
  ASSERT_TRUE(want.ok()) << want.status();
  // a@b = [[17, 3, 5, 11], [24, 6, 8, 14]]; + c; relu.
  expectValues(*want, DType::F32, {2, 4}, {27, 0, 35, 0, 34, 0, 38, 0});
  auto cpuResult = (*onCpu)(*a, *b, *c);
  ASSERT_TRUE(cpuResult.ok()) << cpuResult.status();
  EXPECT_TRUE(runtime::allClose(*cpuResult, *want, 1e-4, 1e-5).ok());
  auto referenceResult = (*onReference)(*a, *b, *c);
  ASSERT_TRUE(referenceResult.ok()) << referenceResult.status();
  EXPECT_TRUE(runtime::allClose(*referenceResult, *want, 0, 0).ok());
  // Views and dense tensors of one type share a specialization.
  ASSERT_TRUE((*onCpu)(denseA, denseB, denseC).ok());
  EXPECT_EQ(onCpu->tracingCount(), 1u);
}

TEST(Function, RecursiveCallOnTheSameKeyIsAnErrorNotADeadlock) {
  HostTensor h = f32({1}, {1});
  std::function<absl::StatusOr<HostTensor>(const HostTensor &)> self;
  std::string innerError;
  auto f = tgc::function([&](Tensor x) {
    auto inner = self(h); // same key as the outer call, from inside its trace
    innerError =
        inner.ok() ? "no error" : std::string(inner.status().message());
    return x + 1.0;
  });
  self = [&](const HostTensor &t) { return (*f)(t); };
  auto r = (*f)(h);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_NE(innerError.find("recursive call"), std::string::npos) << innerError;
  // A nested call with another key traces normally.
  HostTensor other = f32({2}, {1, 2});
  auto g = tgc::function([&](Tensor x) {
    auto inner = (*f)(other);
    innerError = inner.ok() ? "ok" : std::string(inner.status().message());
    return x;
  });
  ASSERT_TRUE((*g)(h).ok());
  EXPECT_EQ(innerError, "ok");
}

} // namespace

namespace {
struct UserError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
} // namespace

// An exception from the callable propagates, caches nothing, and the next
// call traces again. Before the RAII guards the key was wedged: the same
// thread got "recursive call ... from inside its own trace" forever.
TEST(Function, ThrowingCallableDoesNotWedgeTheKey) {
  std::atomic<bool> fail{true};
  HostTensor scale = f32({1}, {3});
  CaptureRef captured = CaptureRef::of(&scale);
  FunctionOptions options;
  options.name = "flaky";
  options.captures = {captured};
  auto f = tgc::function(
      [&fail, captured](Tensor x) {
        Tensor y = x * captured.read();
        if (fail)
          throw UserError("bad weights");
        return y;
      },
      options);
  ASSERT_TRUE(f.ok()) << f.status();
  HostTensor x = f32({2}, {1, 2});
  EXPECT_THROW((void)(*f)(x), UserError);
  EXPECT_TRUE(f->specializations().empty());
  ASSERT_EQ(f->history().size(), 1u);
  EXPECT_TRUE(f->history()[0].failed);
  EXPECT_EQ(f->history()[0].error, "the traced callable threw: bad weights");
  // Outside a trace, a capture reads as an invalid tensor again (the scope
  // of the dead trace was restored).
  EXPECT_FALSE(captured.read().valid());
  fail = false;
  auto r = (*f)(x);
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {2}, {3, 6});
  EXPECT_EQ(f->tracingCount(), 2u);
}

TEST(Function, ThrowingCallableUnderSixteenThreads) {
  std::atomic<int> traces{0};
  auto f = tgc::function([&traces](Tensor x) {
    if (traces.fetch_add(1) < 4)
      throw UserError("not yet");
    return x + 1.0;
  });
  ASSERT_TRUE(f.ok());
  std::atomic<int> thrown{0}, served{0}, wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 16; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20; ++i) {
        try {
          auto r = (*f)(f32({2}, {1, 2}));
          if (r.ok() && r->dataAs<float>()[1] == 3.0f)
            ++served;
          else
            ++wrong;
        } catch (const UserError &) {
          ++thrown;
        }
      }
    });
  for (auto &thread : threads)
    thread.join();
  EXPECT_EQ(wrong, 0);
  EXPECT_EQ(thrown, 4);
  EXPECT_EQ(served + thrown, 16 * 20);
  EXPECT_EQ(f->tracingCount(), 5u);
  EXPECT_EQ(f->specializations().size(), 1u);
}

// reduce_retracing over a rank change used to relax to an unknown rank that
// no trace accepts, failing that call and every later one of the new rank.
TEST(Function, ReduceRetracingOverARankChangeKeepsWorking) {
  FunctionOptions options;
  options.reduceRetracing = true;
  auto f = tgc::function([](Tensor x) { return x * 2.0; }, options);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)(ones({2})).ok());
  auto r = (*f)(ones({2, 3}));
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {2, 3}, {2, 2, 2, 2, 2, 2});
  ASSERT_TRUE((*f)(ones({4, 3})).ok());
  ASSERT_TRUE((*f)(ones({5, 3})).ok());
  EXPECT_EQ(f->tracingCount(), 3u); // {2}, {2,3}, then {?,3}
  ASSERT_TRUE((*f)(ones({7})).ok());
  EXPECT_EQ(f->tracingCount(), 4u); // {?}
}

TEST(Function, StringLiteralsAreStringKeys) {
  auto f = tgc::function([](const std::string &activation, Tensor x) {
    return activation == "relu" ? relu(x) : x * 2.0;
  });
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({2}, {-1, 2});
  auto relu = (*f)("relu", x);
  ASSERT_TRUE(relu.ok()) << relu.status();
  expectValues(*relu, DType::F32, {2}, {0, 2});
  auto twice = (*f)("twice", x);
  ASSERT_TRUE(twice.ok()) << twice.status();
  expectValues(*twice, DType::F32, {2}, {-2, 4});
  // The literal, a std::string and a C string are one key.
  const char *name = "twice";
  ASSERT_TRUE((*f)(std::string("relu"), x).ok());
  ASSERT_TRUE((*f)(name, x).ok());
  EXPECT_EQ(f->tracingCount(), 2u);
}

TEST(Function, SignatureArityIsCheckedAtCreation) {
  FunctionOptions options;
  options.name = "pair";
  options.inputSignature = std::vector<TensorSpec>{TensorSpec{DType::F32, {2}},
                                                   TensorSpec{DType::F32, {2}},
                                                   TensorSpec{DType::F32, {2}}};
  auto f = tgc::function([](Tensor x, Tensor y) { return x + y; }, options);
  int line = __LINE__ - 1;
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(),
            at(__FILE__, line) +
                " tgc: function 'pair': its input_signature has 3 entries "
                "but the callable takes 2 arguments");
  options.inputSignature->pop_back();
  EXPECT_TRUE(
      tgc::function([](Tensor x, Tensor y) { return x + y; }, options).ok());
  // A generic callable's arity is not one number: checked at the call.
  EXPECT_TRUE(
      tgc::function([](auto... xs) { return (xs + ...); }, options).ok());
}

TEST(Function, ConcreteFunctionsAreCallable) {
  auto f = tgc::function([](Tensor x) { return exp(x) * 0.0 + x * 3.0; });
  ASSERT_TRUE(f.ok());
  auto c = f->concreteFunction(TensorSpec{DType::F32, {kDyn}});
  ASSERT_TRUE(c.ok()) << c.status();
  auto r = (*c)(f32({3}, {1, 2, 3}));
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {3}, {3, 6, 9});
  ASSERT_TRUE((*c)(ones({5})).ok());
  EXPECT_EQ(f->tracingCount(), 1u);
  // It never retraces: another rank or dtype is an error naming the arg.
  auto wrong = (*c)(ones({2, 2}));
  ASSERT_FALSE(wrong.ok());
  std::string message(wrong.status().message());
  EXPECT_NE(message.find("concrete function of 'traced'"), std::string::npos)
      << message;
  EXPECT_NE(message.find("arg0"), std::string::npos) << message;
  EXPECT_EQ(f->tracingCount(), 1u);
}

// A scalar captured by reference is keyed by value: a change retraces (or
// finds the specialization for that value) instead of being ignored, as a
// plain lambda [&s] capture is.
TEST(Function, ScalarCapturesAreKeyedByValue) {
  double scale = 2.0;
  int32_t offset = 1;
  bool negate = false;
  CaptureRef s = CaptureRef::of(&scale), o = CaptureRef::of(&offset),
             n = CaptureRef::of(&negate);
  FunctionOptions options;
  options.captures = {s, o, n};
  auto f = tgc::function(
      [s, o, n](Tensor x) {
        Tensor y = x * s.value<double>() + static_cast<double>(o.value<int>());
        return n.value<bool>() ? -y : y;
      },
      options);
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({2}, {1, 2});
  expectValues(*(*f)(x), DType::F32, {2}, {3, 5});
  scale = 10.0;
  expectValues(*(*f)(x), DType::F32, {2}, {11, 21});
  offset = 0;
  negate = true;
  expectValues(*(*f)(x), DType::F32, {2}, {-10, -20});
  EXPECT_EQ(f->tracingCount(), 3u);
  EXPECT_EQ(traces(f->history())[1].reason.path, "arg1");
  scale = 2.0;
  offset = 1;
  negate = false;
  expectValues(*(*f)(x), DType::F32, {2}, {3, 5}); // the first one again
  EXPECT_EQ(f->tracingCount(), 3u);
  // Outside a trace value() is the current value; read() needs a trace.
  EXPECT_EQ(s.value<double>(), 2.0);
  EXPECT_FALSE(s.read().valid());
}

TEST(Function, ScalarCapturesReadAsConstantsAndMixWithTensorCaptures) {
  float gain = 3.0f;
  HostTensor bias = f32({2}, {10, 20});
  CaptureRef g = CaptureRef::of(&gain), b = CaptureRef::of(&bias);
  FunctionOptions options;
  options.captures = {g, b};
  auto f = tgc::function([g, b](Tensor x) { return x * g.read() + b.read(); },
                         options);
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({2}, {1, 2});
  expectValues(*(*f)(x), DType::F32, {2}, {13, 26});
  bias.setDouble(0, 0); // a tensor capture is an input: no retrace
  expectValues(*(*f)(x), DType::F32, {2}, {3, 26});
  EXPECT_EQ(f->tracingCount(), 1u);
  gain = 1.0f;
  expectValues(*(*f)(x), DType::F32, {2}, {1, 22});
  EXPECT_EQ(f->tracingCount(), 2u);
}

TEST(Function, UndeclaredScalarCaptureIsATraceError) {
  double scale = 2.0;
  CaptureRef s = CaptureRef::of(&scale);
  auto f = tgc::function([s](Tensor x) { return x * s.value<double>(); });
  int line = __LINE__ - 1;
  auto r = (*f)(f32({1}, {1}));
  ASSERT_FALSE(r.ok());
  std::string message(r.status().message());
  EXPECT_NE(message.find("a scalar captured by reference"), std::string::npos)
      << message;
  EXPECT_NE(message.find(at(__FILE__, line)), std::string::npos) << message;
}

namespace {
/// A user object a traced function reads at trace time.
struct Model {
  double scale;
};
} // namespace

// A std::shared_ptr argument is keyed by the object's identity: the same
// object hits, another object (even with equal contents, even at a reused
// address) traces, and the specializations of a dead object are dropped.
TEST(Function, SharedPtrArgumentsAreKeyedByIdentity) {
  FunctionOptions options;
  options.verbose = true;
  std::vector<std::string> logs;
  options.log = [&](const std::string &line) { logs.push_back(line); };
  auto f = tgc::function([](const std::shared_ptr<Model> &model,
                            Tensor x) { return x * model->scale; },
                         options);
  ASSERT_TRUE(f.ok());
  HostTensor x = f32({2}, {1, 2});
  auto a = std::make_shared<Model>(Model{2});
  auto b = std::make_shared<Model>(Model{2});
  expectValues(*(*f)(a, x), DType::F32, {2}, {2, 4});
  expectValues(*(*f)(a, x), DType::F32, {2}, {2, 4});
  EXPECT_EQ(f->tracingCount(), 1u);
  expectValues(*(*f)(b, x), DType::F32, {2}, {2, 4});
  EXPECT_EQ(f->tracingCount(), 2u);
  EXPECT_NE(f->specializations()[0].signature.find("identity of "),
            std::string::npos)
      << f->specializations()[0].signature;
  // Equal contents are not the same object; a different object is another
  // key even if it reuses the dead one's address.
  b.reset();
  EXPECT_EQ(f->specializations().size(), 1u);
  bool dropped = false;
  for (const std::string &line : logs)
    dropped |= line.find("dropped 1 specialization keyed by dead objects") !=
               std::string::npos;
  EXPECT_TRUE(dropped);
  for (int i = 0; i < 4; ++i) {
    auto c = std::make_shared<Model>(Model{static_cast<double>(i)});
    auto r = (*f)(c, x);
    ASSERT_TRUE(r.ok()) << r.status();
    expectValues(*r, DType::F32, {2}, {static_cast<double>(i), 2.0 * i});
  }
  EXPECT_EQ(f->tracingCount(), 6u);
  EXPECT_EQ(f->specializations().size(), 1u); // only a's is alive
  // A null pointer is None.
  EXPECT_EQ(tracing::traceTypeOf(std::shared_ptr<Model>()),
            tracing::TraceType::none());
}

// A specialization with dynamic dims compiles a plan per input shape: the
// accounting says so, the plans are bounded (LRU), and history() lists
// compiles and dropped plans beside traces.
TEST(Function, CompilesAreAccountedAndPlansBounded) {
  FunctionOptions options;
  options.inputSignature =
      std::vector<TensorSpec>{TensorSpec{DType::F32, {kDyn, 4}}};
  options.maxPlansPerSpecialization = 2;
  auto f = tgc::function([](Tensor x) { return relu(x) * 2.0; }, options);
  ASSERT_TRUE(f.ok());
  for (int64_t rows : {3, 4, 3, 5, 4, 3}) {
    auto r = (*f)(ones({rows, 4}));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->shape(), (Shape{rows, 4}));
  }
  // 3, 4 compile; 3 hits; 5 compiles and drops 4 (least recently used);
  // 4 recompiles and drops 3; 3 recompiles and drops 5.
  EXPECT_EQ(f->tracingCount(), 1u);
  EXPECT_EQ(f->compileCount(), 5u);
  auto specs = f->specializations();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].compiles, 5u);
  EXPECT_GT(specs[0].compileSeconds, 0.0);
  EXPECT_EQ(specs[0].plansHeld, 2u);
  EXPECT_GT(specs[0].planBytes, 0);
  std::vector<std::string> compiled, dropped;
  for (const tracing::TraceEvent &event : f->history()) {
    if (event.kind == tracing::TraceEvent::Kind::Compile)
      compiled.push_back(event.shapes);
    if (event.kind == tracing::TraceEvent::Kind::PlanEvicted) {
      dropped.push_back(event.shapes);
      EXPECT_NE(event.error.find("maxPlansPerSpecialization"),
                std::string::npos)
          << event.error;
    }
  }
  EXPECT_EQ(compiled, (std::vector<std::string>{"(3x4)", "(4x4)", "(5x4)",
                                                "(4x4)", "(3x4)"}));
  EXPECT_EQ(dropped, (std::vector<std::string>{"(4x4)", "(3x4)", "(5x4)"}));
  EXPECT_EQ(f->history().front().kind, tracing::TraceEvent::Kind::Trace);
}

TEST(Function, StaticSpecializationsCountTheirCompile) {
  auto f = tgc::function([](Tensor x) { return x + 1.0; });
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE((*f)(ones({2})).ok());
  ASSERT_TRUE((*f)(ones({2})).ok());
  ASSERT_TRUE((*f)(ones({3})).ok());
  EXPECT_EQ(f->compileCount(), 2u);
  for (const SpecializationInfo &info : f->specializations()) {
    EXPECT_EQ(info.compiles, 1u);
    EXPECT_EQ(info.plansHeld, 1u);
    EXPECT_GT(info.planBytes, 0);
  }
  FunctionOptions options;
  options.maxPlansPerSpecialization = 0;
  EXPECT_FALSE(tgc::function([](Tensor x) { return x; }, options).ok());
}

// Calls with host tensors only are dispatched from a memo (no TraceType on
// a hit); it must follow every change of the cache: a more specific
// specialization, an eviction.
TEST(Function, TheDispatchMemoFollowsTheCache) {
  auto f = tgc::function([](Tensor x) { return x + 1.0; });
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(f->concreteFunction(TensorSpec{DType::F32, {kDyn}}).ok());
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE((*f)(ones({3})).ok());
  auto hitsOf = [&](const std::string &signature) -> uint64_t {
    for (const SpecializationInfo &info : f->specializations())
      if (info.signature == signature)
        return info.hits;
    return ~uint64_t(0);
  };
  // Creating a specialization counts as its first hit.
  EXPECT_EQ(hitsOf("(Tensor<?xf32>,)"), 4u);
  // A more specific specialization now serves {3}.
  ASSERT_TRUE(f->concreteFunction(TensorSpec{DType::F32, {3}}).ok());
  ASSERT_TRUE((*f)(ones({3})).ok());
  ASSERT_TRUE((*f)(ones({3})).ok());
  EXPECT_EQ(hitsOf("(Tensor<3xf32>,)"), 3u);
  EXPECT_EQ(hitsOf("(Tensor<?xf32>,)"), 4u);

  FunctionOptions options;
  options.maxSpecializations = 1;
  auto g = tgc::function([](Tensor x) { return x * 2.0; }, options);
  ASSERT_TRUE((*g)(ones({1})).ok());
  ASSERT_TRUE((*g)(ones({1})).ok());
  ASSERT_TRUE((*g)(ones({2})).ok()); // evicts {1}
  auto r = (*g)(ones({1}));
  ASSERT_TRUE(r.ok()) << r.status();
  expectValues(*r, DType::F32, {1}, {2});
  EXPECT_EQ(g->tracingCount(), 3u);
  EXPECT_EQ(traces(g->history()).back().reason.kind,
            tracing::TraceReason::Kind::Evicted);
}

// FunctionOptions::cacheDir: a second function with the same body (nothing
// in memory, as in a new process) loads the whole plan from the directory:
// zero compiles by the accounting, a PlanLoaded event, bitwise the same
// results.
TEST(Function, ThePersistentCacheLoadsWholePlans) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tgc-function-plans-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  FunctionOptions options;
  options.cacheDir = dir.string();
  options.numThreads = 1;
  auto body = [](Tensor x, Tensor w) {
    return softmax(matmul(relu(x), w) * 0.5, 1);
  };
  runtime::HostTensor x = *runtime::HostTensor::allocate(DType::F32, {4, 16});
  runtime::HostTensor w = *runtime::HostTensor::allocate(DType::F32, {16, 8});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setDouble(i, 0.01 * static_cast<double>(i % 23) - 0.1);
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.setDouble(i, 0.02 * static_cast<double>(i % 11) - 0.1);
  // One call site for both, as a program run twice has (the function's
  // locations are part of the key: they name it in messages).
  auto make = [&] { return tgc::function(body, options); };
  auto cold = make();
  ASSERT_TRUE(cold.ok()) << cold.status();
  auto r1 = (*cold)(x, w);
  ASSERT_TRUE(r1.ok()) << r1.status();
  EXPECT_EQ(cold->compileCount(), 1u);
  EXPECT_EQ(cold->specializations()[0].plansLoaded, 0u);

  auto warm = make();
  ASSERT_TRUE(warm.ok()) << warm.status();
  auto r2 = (*warm)(x, w);
  ASSERT_TRUE(r2.ok()) << r2.status();
  EXPECT_EQ(warm->tracingCount(), 1u);
  EXPECT_EQ(warm->compileCount(), 0u);
  auto specs = warm->specializations();
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].compiles, 0u);
  EXPECT_EQ(specs[0].plansLoaded, 1u);
  EXPECT_EQ(specs[0].plansHeld, 1u);
  bool loadedEvent = false;
  for (const tracing::TraceEvent &event : warm->history())
    loadedEvent |= event.kind == tracing::TraceEvent::Kind::PlanLoaded;
  EXPECT_TRUE(loadedEvent);
  ASSERT_EQ(r1->byteSize(), r2->byteSize());
  EXPECT_EQ(std::memcmp(r1->data(), r2->data(), r1->byteSize()), 0);
  // Another body is another plan.
  auto other = tgc::function(
      [](Tensor x, Tensor w) { return softmax(matmul(x, w), 1); }, options);
  ASSERT_TRUE(other.ok());
  ASSERT_TRUE((*other)(x, w).ok());
  EXPECT_EQ(other->compileCount(), 1u);
  std::filesystem::remove_all(dir);
}

// ConcreteFunction::saveArtifact: the specialization compiled ahead of time
// and saved; the runtime alone (tgc::Artifact) runs it bitwise like the
// function. Dynamic dims cannot be saved, and say so.
TEST(Function, ConcreteFunctionsSaveArtifacts) {
  auto body = [](Tensor x, Tensor w) { return softmax(relu(matmul(x, w)), 1); };
  runtime::HostTensor x = *runtime::HostTensor::allocate(DType::F32, {4, 16});
  runtime::HostTensor w = *runtime::HostTensor::allocate(DType::F32, {16, 8});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setDouble(i, 0.03 * static_cast<double>(i % 19) - 0.2);
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.setDouble(i, 0.05 * static_cast<double>(i % 7) - 0.1);
  FunctionOptions options;
  options.name = "head";
  options.numThreads = 1;
  auto f = tgc::function(body, options);
  ASSERT_TRUE(f.ok());
  auto concrete = f->concreteFunction(x, w);
  ASSERT_TRUE(concrete.ok()) << concrete.status();
  std::string path = (std::filesystem::temp_directory_path() /
                      ("tgc-concrete-" + std::to_string(::getpid()) + ".tgcx"))
                         .string();
  ASSERT_TRUE(concrete->saveArtifact(path).ok())
      << concrete->saveArtifact(path);
  auto artifact = Artifact::load(path);
  ASSERT_TRUE(artifact.ok()) << artifact.status();
  EXPECT_EQ(artifact->function(), "head");
  ASSERT_EQ(artifact->inputs().size(), 2u);
  EXPECT_EQ(artifact->inputs()[1].shape, (Shape{16, 8}));
  auto viaFunction = (*f)(x, w);
  ASSERT_TRUE(viaFunction.ok());
  auto viaArtifact = artifact->run({x, w}, 1);
  ASSERT_TRUE(viaArtifact.ok()) << viaArtifact.status();
  ASSERT_EQ(viaArtifact->size(), 1u);
  EXPECT_EQ(std::memcmp(viaFunction->data(), (*viaArtifact)[0].data(),
                        viaFunction->byteSize()),
            0);
  std::filesystem::remove(path);

  auto relaxed = f->concreteFunction(TensorSpec{DType::F32, {kDyn, 16}},
                                     TensorSpec{DType::F32, {16, 8}});
  ASSERT_TRUE(relaxed.ok()) << relaxed.status();
  Status refused = relaxed->saveArtifact(path);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.message().find("function 'head': an artifact needs "
                                   "static shapes"),
            std::string::npos)
      << refused;
  EXPECT_FALSE(std::filesystem::exists(path));
}

// Sixteen threads, each with its own function (nothing in memory), on one
// cache directory at once: every call succeeds with bitwise the same
// result, whether its thread compiled and stored the plan or loaded it.
TEST(Function, ThreadsShareOnePersistentCache) {
  std::filesystem::path dir =
      std::filesystem::temp_directory_path() /
      ("tgc-function-threads-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  FunctionOptions options;
  options.cacheDir = dir.string();
  options.numThreads = 1;
  auto body = [](Tensor x, Tensor w) { return tanh(matmul(x, w)) * 2.0; };
  auto make = [&] { return tgc::function(body, options); };
  runtime::HostTensor x = *runtime::HostTensor::allocate(DType::F32, {8, 32});
  runtime::HostTensor w = *runtime::HostTensor::allocate(DType::F32, {32, 16});
  for (int64_t i = 0; i < x.numElements(); ++i)
    x.setDouble(i, 0.01 * static_cast<double>(i % 29) - 0.1);
  for (int64_t i = 0; i < w.numElements(); ++i)
    w.setDouble(i, 0.02 * static_cast<double>(i % 13) - 0.1);
  constexpr int kThreads = 16;
  std::vector<runtime::HostTensor> results(kThreads);
  std::vector<std::string> errors(kThreads);
  std::vector<size_t> compiles(kThreads), loads(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto f = make();
      if (!f.ok()) {
        errors[t] = std::string(f.status().message());
        return;
      }
      auto r = (*f)(x, w);
      if (!r.ok()) {
        errors[t] = std::string(r.status().message());
        return;
      }
      results[t] = *r;
      compiles[t] = f->compileCount();
      loads[t] = f->specializations()[0].plansLoaded;
    });
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_TRUE(errors[t].empty()) << "thread " << t << ": " << errors[t];
    EXPECT_EQ(compiles[t] + loads[t], 1u) << t;
    ASSERT_EQ(results[t].byteSize(), results[0].byteSize());
    EXPECT_EQ(std::memcmp(results[t].data(), results[0].data(),
                          results[0].byteSize()),
              0)
        << "thread " << t;
  }
  // A later function loads the plan.
  auto late = make();
  ASSERT_TRUE(late.ok());
  ASSERT_TRUE((*late)(x, w).ok());
  EXPECT_EQ(late->compileCount(), 0u);
  std::filesystem::remove_all(dir);
}
