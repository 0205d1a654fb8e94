//===- BoundedDimsTest.cpp - input signatures with bounded dynamic dims ---===//
//
// A TensorSpec dim may carry a [min, max] range (tracing::DimRange): one
// trace serves every size in the range, and a call outside it is an error
// naming the dim, not a new trace.
//
//===----------------------------------------------------------------------===//

#include "tgc/Function.h"

#include "FrontendTestUtils.h"

#include <random>

using namespace tgc;
using namespace tgc::frontend::test;
using tracing::DimRange;
using tracing::TensorSpec;

namespace {

constexpr int64_t kDyn = tracing::kDynamic;
constexpr int64_t kModel = 16;
/// Calls with random lengths (each length is compiled once, on its first
/// call; the trace is shared).
constexpr int kCalls = 100;

HostTensor filled(Shape shape, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> dist(-0.5, 0.5);
  HostTensor t = *HostTensor::allocate(DType::F32, shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, dist(rng));
  return t;
}

/// A transformer encoder block (single-head self-attention and an MLP, each
/// with a residual and a layer norm) over a [seq, kModel] input.
Tensor block(Tensor x, Tensor wq, Tensor wk, Tensor wv, Tensor w1, Tensor w2) {
  Tensor q = matmul(x, wq), k = matmul(x, wk), v = matmul(x, wv);
  Tensor scores = mul(matmul(q, transpose(k, {1, 0})), 0.25);
  Tensor attended = matmul(softmax(scores, -1), v);
  Tensor h = layerNorm(add(x, attended), std::nullopt, std::nullopt, -1);
  Tensor mlp = matmul(gelu(matmul(h, w1)), w2);
  return layerNorm(add(h, mlp), std::nullopt, std::nullopt, -1);
}

TEST(BoundedDims, OneTraceServesEveryLengthInTheRange) {
  FunctionOptions options;
  TensorSpec sequence{DType::F32, {kDyn, kModel}};
  sequence.ranges = {DimRange{1, 512}, DimRange{}};
  TensorSpec square{DType::F32, {kModel, kModel}};
  TensorSpec up{DType::F32, {kModel, 2 * kModel}};
  TensorSpec down{DType::F32, {2 * kModel, kModel}};
  options.inputSignature =
      std::vector<TensorSpec>{sequence, square, square, square, up, down};
  auto f = tgc::function(block, options);
  ASSERT_TRUE(f.ok()) << f.status();
  FunctionOptions reference = options;
  reference.backend = FunctionOptions::Backend::Reference;
  auto oracle = tgc::function(block, reference);
  ASSERT_TRUE(oracle.ok()) << oracle.status();
  HostTensor wq = filled({kModel, kModel}, 1), wk = filled({kModel, kModel}, 2),
             wv = filled({kModel, kModel}, 3),
             w1 = filled({kModel, 2 * kModel}, 4),
             w2 = filled({2 * kModel, kModel}, 5);
  std::mt19937 rng(7);
  std::uniform_int_distribution<int64_t> lengths(1, 512);
  for (int call = 0; call < kCalls; ++call) {
    int64_t length = call == 0 ? 1 : call == 1 ? 512 : lengths(rng);
    HostTensor x = filled({length, kModel}, 100 + call);
    auto r = (*f)(x, wq, wk, wv, w1, w2);
    ASSERT_TRUE(r.ok()) << "length " << length << ": " << r.status();
    ASSERT_EQ(r->shape(), (Shape{length, kModel}));
    if (call % 10 == 0) { // against the interpreter, now and then
      auto expected = (*oracle)(x, wq, wk, wv, w1, w2);
      ASSERT_TRUE(expected.ok()) << expected.status();
      for (int64_t i = 0; i < r->numElements(); ++i)
        ASSERT_NEAR(r->getDouble(i), expected->getDouble(i), 1e-4)
            << "length " << length << ", element " << i;
    }
  }
  EXPECT_EQ(f->tracingCount(), 1u);
  ASSERT_EQ(f->specializations().size(), 1u);
  std::printf("%d calls, 1 trace, %zu plans compiled (one per length)\n",
              kCalls, f->compileCount());
  // Outside the range: an error naming the dim; nothing is traced.
  for (int64_t length : {0, 513}) {
    auto r = (*f)(filled({length, kModel}, 9), wq, wk, wv, w1, w2);
    ASSERT_FALSE(r.ok()) << length;
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
    std::string message(r.status().message());
    EXPECT_NE(message.find("dim 0 is " + std::to_string(length) +
                           ", outside the range [1, 512]"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(f->tracingCount(), 1u);
}

} // namespace
