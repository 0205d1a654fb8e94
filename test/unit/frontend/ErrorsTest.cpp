//===- ErrorsTest.cpp - trace errors with user locations ------------------===//
//
// Every error names the user's file:line of the offending call and carries
// the dialect's message; the first error wins and poisoned tensors do not
// report again; the tracer stays usable; nothing crashes.
//
//===----------------------------------------------------------------------===//

#include "FrontendTestUtils.h"

#include <thread>

using namespace tgc;
using namespace tgc::frontend::test;

namespace {

ArgSpec spec(Shape shape, DType dtype = DType::F32) {
  return ArgSpec{dtype, std::move(shape)};
}

size_t countOf(const std::string &text, const std::string &needle) {
  size_t count = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos;
       pos = text.find(needle, pos + 1))
    ++count;
  return count;
}

/// Expects exactly one error, at `line` of this file, containing `message`.
#define EXPECT_TRACE_ERROR(error, line, message)                               \
  do {                                                                         \
    EXPECT_EQ(error.rfind(at(__FILE__, line), 0), 0u) << error;                \
    EXPECT_NE(error.find(message), std::string::npos) << error;                \
    EXPECT_EQ(countOf(error, "error:"), 1u) << error;                          \
  } while (false)

TEST_F(TracerTest, AddShapeMismatch) {
  int line = 0;
  std::string error =
      traceError({spec({2, 3}), spec({4, 3})},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   return {add(a[0], a[1])};
                 });
  EXPECT_TRACE_ERROR(error, line,
                     "error: 'tgc.add' op operand shapes 2x3, 4x3 are not "
                     "broadcast-compatible");
}

TEST_F(TracerTest, OperatorErrorsPointAtTheOperator) {
  int line = 0;
  std::string error =
      traceError({spec({2, 3}), spec({4, 3})},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   Tensor ok = a[0] * 2;
                   line = __LINE__ + 1;
                   Tensor bad = ok - a[1];
                   return {bad};
                 });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.sub' op operand shapes 2x3, 4x3 are not "
                     "broadcast-compatible");
}

TEST_F(TracerTest, DTypeMismatchIsNotPromoted) {
  int line = 0;
  std::string error =
      traceError({spec({3}), spec({3}, DType::I32)},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   return {a[0] + a[1]};
                 });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.add' op lhs and rhs must have the same element "
                     "type, got 'f32' and 'i32'");
}

TEST_F(TracerTest, MatmulContractionMismatch) {
  int line = 0;
  std::string error =
      traceError({spec({kDynamic, 4}), spec({5, 8})},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   return {matmul(a[0], a[1])};
                 });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.matmul' op contraction dims differ: lhs ?x4 has K "
                     "= 4, rhs 5x8 has K = 5");
}

TEST_F(TracerTest, ImpossibleReshapes) {
  int line = 0;
  std::string error = traceError(
      {spec({2, 3})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        line = __LINE__ + 1;
        return {reshape(a[0], {4, 2})};
      });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.reshape' op cannot reshape input 2x3 (6 elements) "
                     "to [4, 2] (8 elements)");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {reshape(a[0], {4, -1})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "cannot reshape input 2x3 (6 elements) to [4, -1]");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {reshape(a[0], {-1, -1})};
                     });
  EXPECT_TRACE_ERROR(error, line, "may contain -1 (infer this dim) only once");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {reshape(a[0], {6, -7})};
                     });
  EXPECT_TRACE_ERROR(error, line, "has invalid dim -7");

  // Dynamic input with a static target is checked by the dialect's verifier.
  error = traceError({spec({kDynamic, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {reshape(a[0], {0, -1})};
                     });
  EXPECT_TRACE_ERROR(error, line, "the other dims hold zero elements");
}

TEST_F(TracerTest, BadAxes) {
  int line = 0;
  std::string error = traceError(
      {spec({2, 3})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        line = __LINE__ + 1;
        return {softmax(a[0], 2)};
      });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.softmax' op axis 2 is out of range [-2, 2) for "
                     "input 2x3");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {reduceSum(a[0], {-3})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.reduce_sum' op axis -3 is out of range [-2, 2)");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {reduceMax(a[0], {1, -1})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.reduce_max' op axes [1, -1] name a dim twice");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {concat({a[0], a[0]}, 5)};
                     });
  EXPECT_TRACE_ERROR(error, line, "'tgc.concat' op axis 5 is out of range");

  // Dialect-checked: transpose permutations.
  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {transpose(a[0], {0, 0})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.transpose' op permutation must be a permutation "
                     "of [0, 2)");

  error = traceError({spec({2, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {squeeze(a[0], {0})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.squeeze' op cannot squeeze dim 0 of size 2");
}

TEST_F(TracerTest, InvalidAttributesAndOperandTypes) {
  int line = 0;
  std::string error = traceError(
      {spec({3})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        line = __LINE__ + 1;
        return {clamp(a[0], 2, 1)};
      });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.clamp' op min (2.000000e+00) must not exceed "
                     "max (1.000000e+00)");

  error = traceError({spec({3}, DType::I32)},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {exp(a[0])};
                     });
  EXPECT_TRACE_ERROR(error, line, "'tgc.exp' op operand #0 must be");

  error = traceError({spec({1, 3, 8, 8}), spec({4, 2, 3, 3})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {conv2d(a[0], a[1])};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.conv2d' op filter 4x2x3x3 has 2 input channels per "
                     "group, but the input has 3 channels");

  error = traceError({spec({1, 3, 8, 8})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {maxPool2d(a[0], {.kernel = {3}})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.max_pool2d' op kernel must be 2 positive values");

  error = traceError({spec({2}, DType::I1)},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {a[0] < a[0]};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "predicate 'lt' is not defined for i1 operands");

  error = traceError({spec({2})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {broadcastTo(a[0], {3})};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.broadcast_to' op cannot broadcast 2 to 3");

  error = traceError({spec({2})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {concat({}, 0)};
                     });
  EXPECT_TRACE_ERROR(error, line, "'tgc.concat' op needs at least one input");
}

TEST_F(TracerTest, ScalarsThatTheDTypeCannotRepresent) {
  int line = 0;
  std::string error =
      traceError({spec({3}, DType::I32)},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   return {a[0] + 2.5};
                 });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.add' op scalar 2.5 is not an integer and cannot be "
                     "represented exactly as i32");

  error = traceError({spec({3}, DType::I8)},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {a[0] * 300};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.mul' op scalar 300 cannot be represented exactly as "
                     "i8");

  error = traceError({}, [&](llvm::ArrayRef<Tensor>) -> std::vector<Tensor> {
    line = __LINE__ + 1;
    return {full({2, -1}, 0, DType::F32)};
  });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.constant' op constant shape [2, -1] must have "
                     "static, non-negative dims");
}

TEST_F(TracerTest, PoisonedTensorsDoNotReportAgain) {
  int line = 0;
  bool poisonedValid = true;
  bool laterValid = true;
  std::vector<int64_t> poisonedShape = {1};
  std::string error =
      traceError({spec({2, 3}), spec({3, 2})},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   Tensor bad = a[0] + a[1]; // 2x3 vs 3x2.
                   poisonedValid = bad.valid();
                   poisonedShape = bad.shape();
                   // Everything downstream is poisoned silently, including ops
                   // that would be errors on their own.
                   Tensor worse = matmul(bad, bad);
                   Tensor alsoBad = reshape(relu(worse), {7, 7});
                   Tensor mixed = alsoBad * a[0] + 1.5;
                   Tensor chosen = select(mixed > 0, mixed, a[1]);
                   laterValid = chosen.valid();
                   return {chosen, reduceSum(chosen, {5})};
                 });
  EXPECT_FALSE(poisonedValid);
  EXPECT_FALSE(laterValid);
  EXPECT_TRUE(poisonedShape.empty());
  EXPECT_TRACE_ERROR(error, line, "'tgc.add' op operand shapes 2x3, 3x2");
}

TEST_F(TracerTest, FirstOfIndependentErrorsWins) {
  int line = 0;
  std::string error =
      traceError({spec({2, 3}), spec({3, 2})},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   Tensor first = softmax(a[0], 7);
                   Tensor second =
                       a[0] + a[1]; // Also wrong, but reported second.
                   return {first, second};
                 });
  EXPECT_TRACE_ERROR(error, line, "'tgc.softmax' op axis 7");
  EXPECT_EQ(error.find("tgc.add"), std::string::npos) << error;
}

TEST_F(TracerTest, TracerStaysUsableAfterAnError) {
  std::string error = traceError(
      {spec({2})}, [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        return {matmul(a[0], a[0])};
      });
  EXPECT_NE(error.find("'tgc.matmul' op operands must have rank >= 2"),
            std::string::npos)
      << error;
  HostTensor r =
      traceAndRun({spec({2})},
                  [](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                    return {a[0] + a[0]};
                  },
                  {f32({2}, {1, 2})});
  expectValues(r, DType::F32, {2}, {2, 4});
}

TEST_F(TracerTest, TensorsFromAnotherTrace) {
  Tensor leaked;
  traceOk({spec({2})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
    leaked = exp(a[0]);
    return {leaked};
  });
  EXPECT_TRUE(leaked.valid());
  // Shape queries stay safe after the trace (types live in the context).
  EXPECT_EQ(leaked.shape(), (Shape{2}));

  int line = 0;
  std::string error = traceError(
      {spec({2})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        line = __LINE__ + 1;
        return {a[0] + leaked};
      });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.add' op operand #1 belongs to another trace");

  // Returning it directly is reported at the trace call.
  line = __LINE__ + 1;
  auto traced = tracer.trace(
      "f", {spec({2})},
      [&](llvm::ArrayRef<Tensor>) -> std::vector<Tensor> { return {leaked}; });
  ASSERT_FALSE(static_cast<bool>(traced));
  error = llvm::toString(traced.takeError());
  EXPECT_TRACE_ERROR(error, line, "result #0 was not produced by this trace");
}

TEST_F(TracerTest, TensorsOfAnEnclosingTrace) {
  int line = 0;
  std::string innerError;
  traceOk(
      {spec({2})}, [&](llvm::ArrayRef<Tensor> outer) -> std::vector<Tensor> {
        Tracer inner(context);
        auto traced =
            inner.trace("inner", {spec({2})},
                        [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                          line = __LINE__ + 1;
                          return {a[0] * outer[0]};
                        });
        EXPECT_FALSE(static_cast<bool>(traced));
        if (!traced)
          innerError = llvm::toString(traced.takeError());
        return {outer[0]};
      });
  EXPECT_TRACE_ERROR(innerError, line,
                     "'tgc.mul' op operand #1 belongs to another trace");
}

TEST_F(TracerTest, EmptyTensors) {
  int line = 0;
  std::string error = traceError(
      {spec({2})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        Tensor empty;
        line = __LINE__ + 1;
        return {a[0] + empty};
      });
  EXPECT_TRACE_ERROR(error, line, "'tgc.add' op operand #1 is an empty Tensor");

  line = __LINE__ + 1;
  auto traced = tracer.trace(
      "f", {spec({2})},
      [](llvm::ArrayRef<Tensor>) -> std::vector<Tensor> { return {Tensor()}; });
  ASSERT_FALSE(static_cast<bool>(traced));
  error = llvm::toString(traced.takeError());
  EXPECT_TRACE_ERROR(error, line, "result #0 is an empty Tensor");
}

TEST_F(TracerTest, OpsOutsideTracingReturnInvalidTensors) {
  HostTensor h = f32({2}, {1, 2});
  Tensor c = constant(h);
  Tensor s = scalar(1.0, DType::F32);
  Tensor sum = c + s;
  EXPECT_FALSE(c.valid());
  EXPECT_FALSE(s.valid());
  EXPECT_FALSE(sum.valid());
  EXPECT_EQ(Tracer::current(), nullptr);
  // A tensor made outside tracing is reported when a trace uses it.
  int line = 0;
  std::string error = traceError(
      {spec({2})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        line = __LINE__ + 1;
        return {a[0] - c};
      });
  EXPECT_TRACE_ERROR(error, line, "operand #1 is an empty Tensor");
}

TEST_F(TracerTest, ErrorsInsideOptionalOperands) {
  int line = 0;
  std::string error =
      traceError({spec({2, 4}), spec({3})},
                 [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                   line = __LINE__ + 1;
                   return {layerNorm(a[0], a[1], std::nullopt)};
                 });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.layer_norm' op scale must have the normalized "
                     "shape 4, got 3");

  error = traceError({spec({1, 2, 4, 4}), spec({3, 2, 1, 1}), spec({2})},
                     [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
                       line = __LINE__ + 1;
                       return {conv2d(a[0], a[1], a[2])};
                     });
  EXPECT_TRACE_ERROR(error, line,
                     "'tgc.conv2d' op bias must have shape 3, got 2");
}

} // namespace

namespace {

TEST_F(TracerTest, VerifierErrorsCarryNoGenericOpDump) {
  std::string error = traceError(
      {spec({3})}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        return {clamp(a[0], 2, 1)};
      });
  EXPECT_EQ(error.find("see current operation"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
}

TEST_F(TracerTest, ConcurrentTracesOnOneContextKeepTheirOwnErrors) {
  // Diagnostic handlers are per context; each thread's errors must reach its
  // own trace.
  constexpr int kThreads = 8;
  constexpr int kTraces = 25;
  std::vector<std::string> failures(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kTraces; ++i) {
        bool fail = (i + t) % 3 == 0;
        int line = 0;
        int64_t width = 2 + t;
        std::string name = "f";
        name += std::to_string(t);
        auto traced = tracer.trace(
            name, {spec({width}), spec({fail ? 1 + width : width})},
            [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
              Tensor sum = a[0] * 2 + 1;
              line = __LINE__ + 1;
              return {reduceSum(sum - a[1], {0})};
            });
        if (fail) {
          if (traced) {
            failures[t] += "trace " + std::to_string(i) + " succeeded; ";
            continue;
          }
          std::string error = llvm::toString(traced.takeError());
          std::string expected = "operand shapes " + std::to_string(width) +
                                 ", " + std::to_string(width + 1) +
                                 " are not broadcast-compatible";
          if (error.rfind(at(__FILE__, line), 0) != 0 ||
              error.find(expected) == std::string::npos)
            failures[t] += "wrong error: " + error + "; ";
        } else if (!traced) {
          failures[t] +=
              "unexpected error: " + llvm::toString(traced.takeError()) + "; ";
        } else if (traced->func.getFunctionType().getNumInputs() != 2) {
          failures[t] += "bad function; ";
        }
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  for (int t = 0; t < kThreads; ++t)
    EXPECT_EQ(failures[t], "") << "thread " << t;
}

} // namespace
