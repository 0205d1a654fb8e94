//===- KernelsTest.cpp - CPU kernels against naive loops ------------------===//

#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"
#include "tgc/AbslStatus.h"

#include "dialects/ScalarMath.h"

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <omp.h>
#include <random>
#include <thread>

using namespace tgc::runtime;
using namespace tgc::runtime::cpu;

namespace {

HostTensor make(DType dtype, const Shape &shape,
                const std::vector<double> &values) {
  HostTensor t = *HostTensor::allocate(dtype, shape);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, values.size() == 1 ? values[0] : values[i]);
  return t;
}

HostTensor randomTensor(DType dtype, const Shape &shape, unsigned seed,
                        double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  HostTensor t = *HostTensor::allocate(dtype, shape);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    double v = dist(gen);
    if (!isFloatDType(dtype))
      v = std::round(v);
    t.setDouble(i, v);
  }
  return t;
}

int64_t flatIndex(const Shape &shape, const std::vector<int64_t> &index) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d)
    flat = flat * shape[d] + index[d];
  return flat;
}

/// Runs `kernel` and returns its single output.
HostTensor runOne(const KernelPtr &kernel, const std::vector<HostTensor> &in,
                  DType dtype, const Shape &shape, int threads = 1) {
  std::vector<HostTensor> out = {*HostTensor::allocate(dtype, shape)};
  KernelContext context;
  context.numThreads = threads;
  absl::Status status = kernel->run(context, in, out);
  EXPECT_TRUE(status.ok()) << kernel->name() << ": " << status;
  return out[0];
}

#define EXPECT_CLOSE(actual, expected, rtol, atol)                             \
  do {                                                                         \
    absl::Status s_ = allClose(actual, expected, rtol, atol);                  \
    EXPECT_TRUE(s_.ok()) << s_;                                                \
  } while (0)

/// numpy transpose.
HostTensor permute(const HostTensor &t, const std::vector<int64_t> &perm) {
  Shape shape;
  for (int64_t p : perm)
    shape.push_back(t.dim(p));
  HostTensor out = *HostTensor::allocate(t.dtype(), shape);
  for (int64_t i = 0; i < t.numElements(); ++i) {
    std::vector<int64_t> idx = t.unflattenIndex(i), o;
    for (int64_t p : perm)
      o.push_back(idx[p]);
    out.setDouble(flatIndex(shape, o), t.getDouble(i));
  }
  return out;
}

//===----------------------------------------------------------------------===//
// matmul
//===----------------------------------------------------------------------===//

HostTensor naiveMatmul(const HostTensor &a, const HostTensor &b, bool ta,
                       bool tb, const Shape &result) {
  HostTensor out = *HostTensor::allocate(a.dtype(), result);
  size_t R = result.size();
  Shape pa(R - a.shape().size(), 1), pb(R - b.shape().size(), 1);
  pa.insert(pa.end(), a.shape().begin(), a.shape().end());
  pb.insert(pb.end(), b.shape().begin(), b.shape().end());
  int64_t K = ta ? pa[R - 2] : pa[R - 1];
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::vector<int64_t> idx = out.unflattenIndex(i);
    std::vector<int64_t> ia(R), ib(R);
    for (size_t d = 0; d + 2 < R; ++d) {
      ia[d] = pa[d] == 1 ? 0 : idx[d];
      ib[d] = pb[d] == 1 ? 0 : idx[d];
    }
    double sum = 0;
    for (int64_t k = 0; k < K; ++k) {
      ia[R - 2] = ta ? k : idx[R - 2];
      ia[R - 1] = ta ? idx[R - 2] : k;
      ib[R - 2] = tb ? idx[R - 1] : k;
      ib[R - 1] = tb ? k : idx[R - 1];
      sum += a.getDouble(flatIndex(pa, ia)) * b.getDouble(flatIndex(pb, ib));
    }
    out.setDouble(i, sum);
  }
  return out;
}

/// out[i] = f(out[i], operand[broadcast i]).
void applyBroadcast(HostTensor &out, const HostTensor &operand,
                    const std::function<double(double, double)> &f) {
  size_t R = out.shape().size();
  Shape p(R - operand.shape().size(), 1);
  p.insert(p.end(), operand.shape().begin(), operand.shape().end());
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::vector<int64_t> idx = out.unflattenIndex(i);
    for (size_t d = 0; d < R; ++d)
      if (p[d] == 1)
        idx[d] = 0;
    out.setDouble(i, f(out.getDouble(i), operand.getDouble(flatIndex(p, idx))));
  }
}

struct MatmulCase {
  Shape a, b, r;
  bool ta, tb;
};

TEST(Matmul, ShapesTransposesAndBatchBroadcast) {
  std::vector<MatmulCase> cases = {
      {{3, 5}, {5, 4}, {3, 4}, false, false},
      {{5, 3}, {5, 4}, {3, 4}, true, false},
      {{3, 5}, {4, 5}, {3, 4}, false, true},
      {{5, 3}, {4, 5}, {3, 4}, true, true},
      {{2, 3, 5}, {5, 4}, {2, 3, 4}, false, false},
      {{3, 5}, {2, 5, 4}, {2, 3, 4}, false, false},
      {{2, 1, 3, 5}, {1, 3, 5, 4}, {2, 3, 3, 4}, false, false},
      {{2, 1, 5, 3}, {3, 4, 5}, {2, 3, 3, 4}, true, true},
      {{1, 17}, {17, 33}, {1, 33}, false, false},
  };
  unsigned seed = 1;
  for (const MatmulCase &c : cases) {
    for (DType dtype :
         {DType::F32, DType::F64, DType::I32, DType::BF16, DType::F16}) {
      MatmulDesc d{dtype, c.a, c.b, c.r, c.ta, c.tb};
      auto kernel = createMatmul(d);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      HostTensor a = randomTensor(dtype, c.a, seed++, -2, 2);
      HostTensor b = randomTensor(dtype, c.b, seed++, -2, 2);
      HostTensor got = runOne(*kernel, {a, b}, dtype, c.r);
      HostTensor want = naiveMatmul(a, b, c.ta, c.tb, c.r);
      bool half = dtype == DType::BF16 || dtype == DType::F16;
      SCOPED_TRACE(std::string((*kernel)->name()) + " " +
                   std::string(dtypeName(dtype)));
      EXPECT_CLOSE(got, want, half ? 2e-2 : 1e-4, half ? 5e-2 : 1e-5);
    }
  }
}

TEST(Matmul, F32RunsOnOneDnn) {
  auto kernel = createMatmul({DType::F32, {8, 16}, {16, 4}, {8, 4}});
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ((*kernel)->name(), "onednn.matmul");
}

TEST(Matmul, BiasReluAndBinaryPostOps) {
  Shape a{2, 6, 8}, b{8, 5}, r{2, 6, 5};
  MatmulDesc d{DType::F32, a, b, r};
  d.biasShape = Shape{5};
  PostOp add;
  add.kind = PostOp::Kind::Add;
  add.operandShape = {2, 6, 5};
  PostOp relu;
  PostOp mul;
  mul.kind = PostOp::Kind::Mul;
  mul.operandShape = {6, 1};
  PostOp rsqrtLike; // no oneDNN algorithm: runs natively after
  rsqrtLike.eltwise = EltwiseKind::Sin;
  d.postOps = {add, relu, mul, rsqrtLike};
  auto kernel = createMatmul(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  HostTensor x = randomTensor(DType::F32, a, 1),
             w = randomTensor(DType::F32, b, 2);
  HostTensor bias = randomTensor(DType::F32, {5}, 3);
  HostTensor residual = randomTensor(DType::F32, {2, 6, 5}, 4);
  HostTensor scale = randomTensor(DType::F32, {6, 1}, 5);
  HostTensor got =
      runOne(*kernel, {x, w, bias, residual, scale}, DType::F32, r);
  HostTensor want = naiveMatmul(x, w, false, false, r);
  applyBroadcast(want, bias, [](double p, double q) { return p + q; });
  applyBroadcast(want, residual, [](double p, double q) { return p + q; });
  for (int64_t i = 0; i < want.numElements(); ++i)
    want.setDouble(i, std::max(want.getDouble(i), 0.0));
  applyBroadcast(want, scale, [](double p, double q) { return p * q; });
  for (int64_t i = 0; i < want.numElements(); ++i)
    want.setDouble(i, std::sin(want.getDouble(i)));
  EXPECT_CLOSE(got, want, 1e-4, 1e-5);
}

/// lhs [B..., M, K] x rhs [K, N] runs as one [B*M, K] GEMM; bias and
/// binary post-op operands along the last dim or of the full result shape
/// come along, others keep the batched form. Results match either way.
TEST(Matmul, SharedRhsBatchesFoldIntoOneGemm) {
  struct Case {
    Shape a, b, r, operand;
    bool constant;
  };
  std::vector<Case> cases = {
      {{128, 1, 16}, {16, 24}, {128, 1, 24}, {24}, true},
      {{2, 3, 1, 16}, {1, 16, 24}, {2, 3, 1, 24}, {2, 3, 1, 24}, false},
      {{4, 5, 16}, {16, 24}, {4, 5, 24}, {5, 1}, false}, // stays batched
      {{4, 5, 16}, {16, 24}, {4, 5, 24}, {1, 1, 24}, true},
      // Batch dims of 1 drop (a 2-D GEMM with the rhs prepacked).
      {{1, 12, 16}, {16, 24}, {1, 12, 24}, {1, 12, 24}, true},
      {{1, 1, 12, 16}, {1, 16, 24}, {1, 1, 12, 24}, {24}, false},
  };
  unsigned seed = 40;
  for (const Case &c : cases) {
    HostTensor x = randomTensor(DType::F32, c.a, seed++),
               w = randomTensor(DType::F32, c.b, seed++);
    HostTensor bias = randomTensor(DType::F32, {c.r.back()}, seed++);
    HostTensor operand = randomTensor(DType::F32, c.operand, seed++);
    MatmulDesc d{DType::F32, c.a, c.b, c.r};
    d.biasShape = Shape{c.r.back()};
    PostOp add;
    add.kind = PostOp::Kind::Add;
    add.operandShape = c.operand;
    PostOp relu;
    d.postOps = {add, relu};
    if (c.constant)
      d.constantRhs = &w;
    auto kernel = createMatmul(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    HostTensor got = runOne(*kernel, {x, w, bias, operand}, DType::F32, c.r);
    HostTensor want = naiveMatmul(x, w, false, false, c.r);
    applyBroadcast(want, bias, [](double p, double q) { return p + q; });
    applyBroadcast(want, operand, [](double p, double q) { return p + q; });
    for (int64_t i = 0; i < want.numElements(); ++i)
      want.setDouble(i, std::max(want.getDouble(i), 0.0));
    SCOPED_TRACE(testing::Message() << "case with lhs rank " << c.a.size()
                                    << ", operand rank " << c.operand.size());
    EXPECT_CLOSE(got, want, 1e-4, 1e-5);
  }
}

TEST(Matmul, ConstantRhsIsPrepacked) {
  Shape a{4, 32, 64}, b{48, 64}, r{4, 32, 48};
  HostTensor x = randomTensor(DType::F32, a, 7),
             w = randomTensor(DType::F32, b, 8);
  MatmulDesc d{DType::F32, a, b, r, false, true};
  d.constantRhs = &w;
  PostOp relu;
  d.postOps = {relu};
  auto kernel = createMatmul(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  // 128 rows: a 1x1 convolution with AVX2 (tryPointwiseConvMatmul).
  EXPECT_EQ((*kernel)->name(), std::string("onednn.matmul") +
                                   (cpuIsa().avx512 ? "" : "[1x1 conv]"));
  // Input 1 is ignored: pass garbage.
  HostTensor garbage = make(DType::F32, b, {123.0});
  HostTensor got = runOne(*kernel, {x, garbage}, DType::F32, r);
  HostTensor want = naiveMatmul(x, w, false, true, r);
  for (int64_t i = 0; i < want.numElements(); ++i)
    want.setDouble(i, std::max(want.getDouble(i), 0.0));
  EXPECT_CLOSE(got, want, 1e-4, 1e-5);
}

/// With AVX2 but not AVX-512, a matmul of rows by constant weights runs as
/// a 1x1 convolution (f32 from 8 rows: oneDNN 2.6's jit_1x1:avx2 beats its
/// gemm:jit there); with AVX-512 only a narrow (at most 32 columns) or
/// single-row (at most 2 rows) one (brgconv_1x1 beats the brgemm matmul
/// there); elsewhere as a matmul. Either way
/// the results match, with transposed weights, a bias, and binary post-ops
/// of every broadcast a matmul's operand may have (oneDNN's convolutions
/// take no operand broadcast along the rows, [M, 1]: those stay matmuls).
/// (ctest runs this file under DNNL_MAX_CPU_ISA=AVX2 too:
/// cpu-kernels-avx2.)
TEST(Matmul, ConstantWeightsRunAsPointwiseConvolutionsWhereTheyPay) {
  struct Case {
    int64_t m, k, n;
    bool transposeB;
    Shape operand;
  };
  std::vector<Case> cases = {
      {8, 16, 24, false, {8, 24}},  {37, 33, 5, true, {1, 5}},
      {64, 40, 24, false, {64, 1}}, {4, 16, 24, false, {4, 24}},
      {1, 16, 24, true, {24}},      {64, 1024, 10, false, {64, 10}},
      {2, 64, 100, true, {1, 100}}, {16, 64, 48, false, {1, 48}},
  };
  const CpuIsa &isa = cpuIsa();
  unsigned seed = 90;
  for (const Case &c : cases) {
    Shape a{c.m, c.k}, r{c.m, c.n};
    Shape b = c.transposeB ? Shape{c.n, c.k} : Shape{c.k, c.n};
    HostTensor x = randomTensor(DType::F32, a, seed++),
               w = randomTensor(DType::F32, b, seed++);
    HostTensor bias = randomTensor(DType::F32, {c.n}, seed++);
    HostTensor operand = randomTensor(DType::F32, c.operand, seed++);
    HostTensor scale = randomTensor(DType::F32, {1, c.n}, seed++);
    MatmulDesc d{DType::F32, a, b, r, false, c.transposeB};
    d.biasShape = Shape{c.n};
    d.constantRhs = &w;
    PostOp add, relu, mul;
    add.kind = PostOp::Kind::Add;
    add.operandShape = c.operand;
    mul.kind = PostOp::Kind::Mul;
    mul.operandShape = {1, c.n};
    d.postOps = {add, relu, mul};
    auto kernel = createMatmul(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    SCOPED_TRACE(testing::Message() << c.m << "x" << c.k << "x" << c.n << " "
                                    << (*kernel)->name());
    bool rowOperand = c.operand == Shape{c.m, 1};
    bool convolution =
        isa.avx512 ? c.n <= 32 || c.m <= 2 : isa.avx2 && c.m >= 8;
    EXPECT_EQ((*kernel)->name(),
              std::string("onednn.matmul") +
                  (convolution && !rowOperand ? "[1x1 conv]" : ""));
    HostTensor got =
        runOne(*kernel, {x, w, bias, operand, scale}, DType::F32, r);
    HostTensor want = naiveMatmul(x, w, false, c.transposeB, r);
    applyBroadcast(want, bias, [](double p, double q) { return p + q; });
    applyBroadcast(want, operand, [](double p, double q) { return p + q; });
    for (int64_t i = 0; i < want.numElements(); ++i)
      want.setDouble(i, std::max(want.getDouble(i), 0.0));
    applyBroadcast(want, scale, [](double p, double q) { return p * q; });
    EXPECT_CLOSE(got, want, 1e-4, 1e-5);
  }
}

/// Operands read through strided views of their inputs
/// (MatmulDesc::OperandView): an attention head's query and key cut from
/// a projection's result [q | k] of 8 positions x 2 heads x 4 dims, the
/// key transposed, a scaling post-op; with and without the flag
/// transposes; equal to the matmul of the materialized operands, also
/// when made again from its recipe (a saved plan).
TEST(Matmul, StridedOperandViewsMatchMaterializedOperands) {
  const int64_t heads = 2, positions = 8, dims = 4, width = 2 * heads * dims;
  HostTensor p = randomTensor(DType::F32, {positions, width}, 31);
  const auto *pv = static_cast<const float *>(p.data());
  // q[h, s, d] = p[s, h * dims + d]; k[h, s, d] = p[s, 8 + h * dims + d].
  auto head = [&](int64_t offset, bool transposed) {
    Shape shape = transposed ? Shape{heads, dims, positions}
                             : Shape{heads, positions, dims};
    HostTensor t = *HostTensor::allocate(DType::F32, shape);
    auto *tv = static_cast<float *>(t.data());
    for (int64_t h = 0; h < heads; ++h)
      for (int64_t s = 0; s < positions; ++s)
        for (int64_t d = 0; d < dims; ++d)
          tv[transposed ? (h * dims + d) * positions + s
                        : (h * positions + s) * dims + d] =
              pv[s * width + offset + h * dims + d];
    return t;
  };
  HostTensor q = head(0, false), k = head(heads * dims, false),
             kt = head(heads * dims, true);
  Shape r{heads, positions, positions};
  for (bool flag : {false, true}) {
    SCOPED_TRACE(flag ? "transpose_b" : "key transposed by its view");
    MatmulDesc d{DType::F32, q.shape(), flag ? k.shape() : kt.shape(),
                 r,          false,     flag};
    d.lhsView = MatmulDesc::OperandView{{dims, width, 1}, 0};
    d.rhsView = MatmulDesc::OperandView{
        flag ? Shape{dims, width, 1} : Shape{dims, 1, width}, heads * dims};
    PostOp scale;
    scale.eltwise = EltwiseKind::Linear;
    scale.alpha = 0.5;
    d.postOps = {scale};
    auto kernel = createMatmul(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_NE((*kernel)->name().find("[strided]"), std::string_view::npos)
        << (*kernel)->name();
    HostTensor want = naiveMatmul(q, flag ? k : kt, false, flag, r);
    for (int64_t i = 0; i < want.numElements(); ++i)
      want.setDouble(i, 0.5 * want.getDouble(i));
    EXPECT_CLOSE(runOne(*kernel, {p, p}, DType::F32, r, 2), want, 1e-5, 1e-6);
    // From its recipe, as a loaded plan makes it.
    const KernelRecipe &recipe = *(*kernel)->recipe;
    RemakeContext remake;
    auto again = remakeKernel(recipe.factory, recipe.descriptor, remake);
    ASSERT_TRUE(again.ok()) << again.status();
    EXPECT_CLOSE(runOne(*again, {p, p}, DType::F32, r), want, 1e-5, 1e-6);
    // An input too small for the view fails the run, naming the sizes
    // (the key's view reaches the last element of p).
    HostTensor small = randomTensor(DType::F32, {positions, width - 1}, 32);
    std::vector<HostTensor> out = {*HostTensor::allocate(DType::F32, r)};
    absl::Status status = (*kernel)->run(KernelContext(), {p, small}, out);
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << status;
    EXPECT_NE(std::string(status.message()).find("strided view reads"),
              std::string::npos)
        << status;
  }
  // Integer operands take the native kernel, views and all.
  HostTensor pi = randomTensor(DType::I32, {positions, width}, 33);
  MatmulDesc di{
      DType::I32, {positions, dims}, {dims, positions}, {positions, positions}};
  di.lhsView = MatmulDesc::OperandView{{width, 1}, 3};
  di.rhsView = MatmulDesc::OperandView{{1, width}, 9};
  auto native = createMatmul(di);
  ASSERT_TRUE(native.ok()) << native.status();
  HostTensor a = *HostTensor::allocate(DType::I32, {positions, dims}),
             b = *HostTensor::allocate(DType::I32, {dims, positions});
  for (int64_t s = 0; s < positions; ++s)
    for (int64_t j = 0; j < dims; ++j) {
      a.setDouble(s * dims + j, pi.getDouble(s * width + 3 + j));
      b.setDouble(j * positions + s, pi.getDouble(9 + j + s * width));
    }
  HostTensor got =
      runOne(*native, {pi, pi}, DType::I32, {positions, positions});
  HostTensor want = naiveMatmul(a, b, false, false, {positions, positions});
  for (int64_t i = 0; i < want.numElements(); ++i)
    EXPECT_EQ(got.getDouble(i), want.getDouble(i)) << i;
}

/// Views the kernels cannot take are refused with a clear error.
TEST(Matmul, BadOperandViewsAreRefused) {
  MatmulDesc d{DType::F32, {4, 3}, {3, 2}, {4, 2}};
  d.lhsView = MatmulDesc::OperandView{{3}, 0}; // one stride for two dims
  auto kernel = createMatmul(d);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(std::string(kernel.status().message()).find("one stride per dim"),
            std::string::npos)
      << kernel.status();
  d.lhsView = MatmulDesc::OperandView{{-3, 1}, 0};
  kernel = createMatmul(d);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(std::string(kernel.status().message()).find("negative"),
            std::string::npos)
      << kernel.status();
  // Each stride fits, their reach together does not.
  int64_t big = std::numeric_limits<int64_t>::max() / 4;
  d.lhsView = MatmulDesc::OperandView{{big, big}, big};
  kernel = createMatmul(d);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(std::string(kernel.status().message()).find("largest offset"),
            std::string::npos)
      << kernel.status();
  d.lhsView = MatmulDesc::OperandView{{3, 1}, 0};
  HostTensor w = randomTensor(DType::F32, {3, 2}, 5);
  d.constantRhs = &w;
  d.rhsView = MatmulDesc::OperandView{{2, 1}, 0};
  kernel = createMatmul(d);
  ASSERT_FALSE(kernel.ok());
  EXPECT_NE(std::string(kernel.status().message()).find("not constant"),
            std::string::npos)
      << kernel.status();
}

TEST(Matmul, ZeroSizes) {
  // K = 0: the result is the bias.
  MatmulDesc d{DType::F32, {3, 0}, {0, 4}, {3, 4}};
  d.biasShape = Shape{4};
  auto kernel = createMatmul(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  HostTensor bias = make(DType::F32, {4}, {1, 2, 3, 4});
  HostTensor got = runOne(*kernel,
                          {*HostTensor::allocate(DType::F32, {3, 0}),
                           *HostTensor::allocate(DType::F32, {0, 4}), bias},
                          DType::F32, {3, 4});
  EXPECT_CLOSE(got,
               make(DType::F32, {3, 4}, {1, 2, 3, 4, 1, 2, 3, 4, 1, 2, 3, 4}),
               0, 0);
  // M = 0: nothing to do.
  auto empty = createMatmul({DType::F32, {0, 5}, {5, 4}, {0, 4}});
  ASSERT_TRUE(empty.ok());
  runOne(*empty,
         {*HostTensor::allocate(DType::F32, {0, 5}),
          randomTensor(DType::F32, {5, 4}, 1)},
         DType::F32, {0, 4});
}

TEST(Matmul, MalformedDescriptorsAreErrors) {
  EXPECT_FALSE(createMatmul({DType::F32, {3, 5}, {4, 4}, {3, 4}}).ok());
  EXPECT_FALSE(createMatmul({DType::F32, {5}, {5, 4}, {4}}).ok());
  EXPECT_FALSE(
      createMatmul({DType::F32, {2, 3, 5}, {3, 5, 4}, {3, 3, 4}}).ok());
}

//===----------------------------------------------------------------------===//
// conv2d
//===----------------------------------------------------------------------===//

/// NCHW / OIHW reference.
HostTensor naiveConv(const HostTensor &x, const HostTensor &f,
                     const HostTensor *bias, const Conv2DDesc &d) {
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  int64_t O = f.dim(0), CI = f.dim(1), KH = f.dim(2), KW = f.dim(3);
  int64_t OH =
      (H + d.padding[0] + d.padding[2] - d.dilations[0] * (KH - 1) - 1) /
          d.strides[0] +
      1;
  int64_t OW =
      (W + d.padding[1] + d.padding[3] - d.dilations[1] * (KW - 1) - 1) /
          d.strides[1] +
      1;
  HostTensor out = *HostTensor::allocate(x.dtype(), {N, O, OH, OW});
  int64_t og = O / d.groups;
  for (int64_t n = 0; n < N; ++n)
    for (int64_t o = 0; o < O; ++o)
      for (int64_t y = 0; y < OH; ++y)
        for (int64_t z = 0; z < OW; ++z) {
          double acc = bias ? bias->getDouble(o) : 0;
          for (int64_t i = 0; i < CI; ++i)
            for (int64_t r = 0; r < KH; ++r)
              for (int64_t s = 0; s < KW; ++s) {
                int64_t ih =
                    y * d.strides[0] - d.padding[0] + r * d.dilations[0];
                int64_t iw =
                    z * d.strides[1] - d.padding[1] + s * d.dilations[1];
                if (ih < 0 || ih >= H || iw < 0 || iw >= W)
                  continue;
                int64_t c = (o / og) * CI + i;
                acc += x.getDouble(((n * C + c) * H + ih) * W + iw) *
                       f.getDouble(((o * CI + i) * KH + r) * KW + s);
              }
          out.setDouble(((n * O + o) * OH + y) * OW + z, acc);
        }
  (void)C;
  return out;
}

struct ConvCase {
  int64_t n, c, h, w, o, kh, kw, groups;
  int64_t stride[2], pad[4], dil[2];
};

/// With `oihw` (NHWC only): the filter keeps its OIHW order under the HWIO
/// shape (Conv2DDesc::filterOIHW).
void checkConv(const ConvCase &c, bool nhwc, bool constant, bool withBias,
               std::vector<PostOp> postOps = {}, DType dtype = DType::F32,
               bool oihw = false) {
  SCOPED_TRACE("conv c=" + std::to_string(c.c) + " o=" + std::to_string(c.o) +
               " groups=" + std::to_string(c.groups) +
               (nhwc ? " nhwc" : " nchw") + (constant ? " const" : "") +
               (oihw ? " oihw" : ""));
  Conv2DDesc d;
  d.dtype = dtype;
  d.nhwc = nhwc;
  d.filterOIHW = oihw;
  d.groups = c.groups;
  for (int i = 0; i < 2; ++i) {
    d.strides[i] = c.stride[i];
    d.dilations[i] = c.dil[i];
  }
  for (int i = 0; i < 4; ++i)
    d.padding[i] = c.pad[i];
  HostTensor x = randomTensor(dtype, {c.n, c.c, c.h, c.w}, 11);
  HostTensor f = randomTensor(dtype, {c.o, c.c / c.groups, c.kh, c.kw}, 12);
  HostTensor bias = randomTensor(dtype, {c.o}, 13);
  HostTensor want = naiveConv(x, f, withBias ? &bias : nullptr, d);
  for (const PostOp &p : postOps) {
    ASSERT_EQ(p.kind, PostOp::Kind::Eltwise);
    for (int64_t i = 0; i < want.numElements(); ++i)
      want.setDouble(i, std::max(want.getDouble(i), 0.0)); // relu only
  }
  HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
  HostTensor fin = nhwc && !oihw ? permute(f, {2, 3, 1, 0}) : f;
  if (oihw)
    fin =
        *HostTensor::borrow(dtype, {c.kh, c.kw, c.c / c.groups, c.o}, f.data());
  HostTensor wantLayout = nhwc ? permute(want, {0, 2, 3, 1}) : want;
  d.inputShape = xin.shape();
  d.filterShape = fin.shape();
  d.resultShape = wantLayout.shape();
  if (withBias)
    d.biasShape = Shape{c.o};
  d.postOps = postOps;
  if (constant)
    d.constantFilter = &fin;
  auto kernel = createConv2D(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<HostTensor> in = {xin,
                                constant ? make(dtype, fin.shape(), {7}) : fin};
  if (withBias)
    in.push_back(bias);
  HostTensor got = runOne(*kernel, in, dtype, d.resultShape);
  EXPECT_CLOSE(got, wantLayout, 1e-4, 1e-4);
}

TEST(Conv2D, LayoutsStridesPaddingDilationGroups) {
  std::vector<ConvCase> cases = {
      {2, 3, 7, 6, 4, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {1, 4, 9, 9, 8, 3, 2, 1, {2, 1}, {0, 1, 2, 0}, {1, 2}},
      {1, 6, 8, 8, 4, 3, 3, 2, {1, 2}, {1, 0, 1, 1}, {2, 1}},
      {2, 8, 6, 5, 8, 3, 3, 8, {1, 1}, {1, 1, 1, 1}, {1, 1}}, // depthwise
      {1, 4, 6, 6, 8, 3, 3, 4, {2, 2}, {1, 1, 0, 0}, {1, 1}}, // multiplier 2
      {1, 16, 10, 10, 32, 1, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}},
  };
  for (const ConvCase &c : cases)
    for (bool nhwc : {false, true})
      for (bool constant : {false, true})
        checkConv(c, nhwc, constant, /*withBias=*/true);
}

TEST(Conv2D, OihwOrderedFiltersOfNhwcConvolutions) {
  // The layout pass leaves a constant filter in the model's OIHW order; the
  // kernels read it so (oneDNN's direct, Winograd-sized and grouped
  // convolutions, with the filter constant (prepacked) or not, and the
  // native kernel, f64).
  std::vector<ConvCase> cases = {
      {2, 3, 7, 6, 4, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {1, 6, 8, 8, 4, 3, 3, 2, {1, 2}, {1, 0, 1, 1}, {2, 1}},
      {2, 8, 6, 5, 8, 3, 3, 8, {1, 1}, {1, 1, 1, 1}, {1, 1}}, // depthwise
      {1, 32, 8, 8, 32, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {1, 16, 10, 10, 32, 1, 1, 1, {1, 1}, {0, 0, 0, 0}, {1, 1}},
  };
  for (const ConvCase &c : cases)
    for (bool constant : {false, true}) {
      checkConv(c, /*nhwc=*/true, constant, /*withBias=*/true, {}, DType::F32,
                /*oihw=*/true);
      checkConv(c, /*nhwc=*/true, constant, /*withBias=*/false, {}, DType::F64,
                /*oihw=*/true);
    }
  // An OIHW-ordered filter belongs to an NHWC convolution.
  Conv2DDesc d{DType::F32};
  d.inputShape = {1, 2, 4, 4};
  d.filterShape = {2, 2, 1, 1};
  d.resultShape = {1, 2, 4, 4};
  d.filterOIHW = true;
  auto refused = createConv2D(d);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("OIHW-ordered filter is for NHWC"),
            std::string::npos)
      << refused.status();
}

TEST(Conv2D, ReluPostOpAndNoBias) {
  PostOp relu;
  checkConv({1, 8, 8, 8, 16, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}}, true, true,
            false, {relu});
  checkConv({1, 8, 8, 8, 16, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}}, false,
            false, true, {relu});
}

TEST(Conv2D, BinaryPostOpsInBothLayouts) {
  for (bool nhwc : {false, true}) {
    Conv2DDesc d;
    d.dtype = DType::F32;
    d.nhwc = nhwc;
    d.padding[0] = d.padding[1] = d.padding[2] = d.padding[3] = 1;
    HostTensor x = randomTensor(DType::F32, {2, 8, 6, 6}, 21);
    HostTensor f = randomTensor(DType::F32, {16, 8, 3, 3}, 22);
    HostTensor want = naiveConv(x, f, nullptr, d); // NCHW
    HostTensor residual = randomTensor(DType::F32, want.shape(), 23);
    HostTensor scale = randomTensor(DType::F32, {16, 1, 1}, 24); // per channel
    applyBroadcast(want, residual, [](double p, double q) { return p + q; });
    for (int64_t i = 0; i < want.numElements(); ++i)
      want.setDouble(i, std::max(want.getDouble(i), 0.0));
    applyBroadcast(want, scale, [](double p, double q) { return p * q; });
    HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
    HostTensor fin = nhwc ? permute(f, {2, 3, 1, 0}) : f;
    HostTensor resIn = nhwc ? permute(residual, {0, 2, 3, 1}) : residual;
    HostTensor scaleIn = nhwc ? make(DType::F32, {16}, {0}) : scale;
    if (nhwc)
      for (int64_t i = 0; i < 16; ++i)
        scaleIn.setDouble(i, scale.getDouble(i));
    HostTensor wantLayout = nhwc ? permute(want, {0, 2, 3, 1}) : want;
    d.inputShape = xin.shape();
    d.filterShape = fin.shape();
    d.resultShape = wantLayout.shape();
    d.constantFilter = &fin;
    PostOp add, relu, mul;
    add.kind = PostOp::Kind::Add;
    add.operandShape = resIn.shape();
    mul.kind = PostOp::Kind::Mul;
    mul.operandShape = scaleIn.shape();
    d.postOps = {add, relu, mul};
    auto kernel = createConv2D(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_EQ((*kernel)->name(), "onednn.conv2d");
    HostTensor got =
        runOne(*kernel, {xin, fin, resIn, scaleIn}, DType::F32, d.resultShape);
    EXPECT_CLOSE(got, wantLayout, 1e-4, 1e-4);
  }
}

/// A blocked buffer of `layout` (flat, its byte size).
Shape blockedShape(const ActivationLayout &layout) {
  return {layout.bytes / 4};
}

/// The channel block of this machine's blocked layout (16 with AVX-512, 8
/// with AVX2; DNNL_MAX_CPU_ISA caps it) and its name, e.g. "nChw16c".
int64_t channelBlock() { return cpuIsa().channelBlock; }
std::string blockName() { return blockedLayoutName(channelBlock()); }

/// Blocked-layout tests need an ISA with blocked convolution kernels
/// (AVX2 and up): every x86 machine tgc targets has one.
#define SKIP_WITHOUT_BLOCKED_LAYOUTS()                                         \
  if (channelBlock() == 0)                                                     \
  GTEST_SKIP() << "no blocked layouts on " << cpuIsa().name

TEST(BlockedLayouts, IsaDecidesTheBlock) {
  const CpuIsa &isa = cpuIsa();
  EXPECT_FALSE(isa.name.empty());
  EXPECT_EQ(isa.channelBlock, isa.avx512 ? 16 : isa.avx2 ? 8 : 0);
  EXPECT_EQ(isa.winograd, isa.avx512);
  // The JIT drops AVX-512 exactly where oneDNN does.
  EXPECT_EQ(std::count(isa.disabledJitFeatures.begin(),
                       isa.disabledJitFeatures.end(),
                       std::string("avx512f")) == 1,
            !isa.avx512);
  if (const char *cap = std::getenv("DNNL_MAX_CPU_ISA");
      cap && std::string(cap) == "AVX2") {
    EXPECT_FALSE(isa.avx512);
    EXPECT_EQ(blockName(), isa.avx2 ? "nChw8c" : "nChw0c");
  }
}

TEST(BlockedLayouts, BlockedConvChainWithResidualMatchesPlain) {
  // 24 channels: nChw16c pads them to 32 (nChw8c takes 3 whole blocks).
  // conv1 3x3 + relu, then conv2 1x1 + residual (conv1's result, in the
  // same layout) + relu.
  SKIP_WITHOUT_BLOCKED_LAYOUTS();
  const int64_t C = 24, H = 7, W = 7;
  const int64_t B = channelBlock(), blocks = (C + B - 1) / B;
  HostTensor x = randomTensor(DType::F32, {1, H, W, C}, 41);
  HostTensor f1 = randomTensor(DType::F32, {3, 3, C, C}, 42, -0.2, 0.2);
  HostTensor f2 = randomTensor(DType::F32, {1, 1, C, C}, 43, -0.3, 0.3);
  PostOp relu, add;
  add.kind = PostOp::Kind::Add;
  add.operandShape = {1, H, W, C};
  Conv2DDesc d1;
  d1.dtype = DType::F32;
  d1.nhwc = true;
  d1.inputShape = d1.resultShape = {1, H, W, C};
  d1.filterShape = f1.shape();
  d1.padding[0] = d1.padding[1] = d1.padding[2] = d1.padding[3] = 1;
  d1.postOps = {relu};
  d1.constantFilter = &f1;
  Conv2DDesc d2 = d1;
  d2.filterShape = f2.shape();
  d2.padding[0] = d2.padding[1] = d2.padding[2] = d2.padding[3] = 0;
  d2.postOps = {add, relu};
  d2.constantFilter = &f2;

  // Plain NHWC.
  auto p1 = createConv2D(d1), p2 = createConv2D(d2);
  ASSERT_TRUE(p1.ok() && p2.ok());
  HostTensor y1 = runOne(*p1, {x, f1}, DType::F32, d1.resultShape);
  HostTensor want = runOne(*p2, {y1, f2, y1}, DType::F32, d2.resultShape);

  // Blocked: the plain input reordered in, both convolutions blocked, the
  // result reordered out.
  ConvLayouts l1;
  l1.anyInput = true;
  l1.blockTag = true;
  auto b1 = createLayoutConv2D(d1, l1);
  ASSERT_TRUE(b1.ok()) << b1.status();
  ASSERT_TRUE(b1->inputLayout && b1->resultLayout);
  EXPECT_EQ(b1->inputLayout->name, blockName());
  EXPECT_EQ(b1->resultLayout->name, blockName());
  EXPECT_EQ(b1->resultLayout->bytes, blocks * B * H * W * 4);
  const ActivationLayout &L = *b1->resultLayout;
  ConvLayouts l2;
  l2.input = &L;
  l2.result = &L;
  l2.postOpOperands = {&L, nullptr};
  auto b2 = createLayoutConv2D(d2, l2);
  ASSERT_TRUE(b2.ok()) << b2.status();
  ASSERT_TRUE(b2->resultLayout);
  EXPECT_TRUE(sameLayout(*b2->resultLayout, L));
  auto in =
      createLayoutReorder(DType::F32, x.shape(), nullptr, &*b1->inputLayout);
  auto out = createLayoutReorder(DType::F32, x.shape(), &L, nullptr);
  ASSERT_TRUE(in.ok() && out.ok());
  HostTensor xb = runOne(*in, {x}, DType::F32, blockedShape(*b1->inputLayout));
  HostTensor y1b = runOne(b1->kernel, {xb, f1}, DType::F32, blockedShape(L), 2);
  // The padded channels (24..31 in nChw16c: second block, lanes 8..15)
  // are zero.
  for (int64_t p = 0; p < H * W; ++p)
    for (int64_t lane = C - (blocks - 1) * B; lane < B; ++lane)
      ASSERT_EQ(y1b.getDouble(((blocks - 1) * H * W + p) * B + lane), 0.0);
  HostTensor y2b =
      runOne(b2->kernel, {y1b, f2, y1b}, DType::F32, blockedShape(L), 2);
  HostTensor got = runOne(*out, {y2b}, DType::F32, want.shape());
  EXPECT_CLOSE(got, want, 1e-4, 1e-5);
}

TEST(BlockedLayouts, WinogradForCandidatesOnly) {
  // 40 channels, 3x3, stride 1, bias + relu: a candidate, on oneDNN's
  // Winograd kernel when asked for where the ISA has one (AVX-512), with
  // the direct kernel's results; on the direct kernel elsewhere.
  SKIP_WITHOUT_BLOCKED_LAYOUTS();
  const int64_t C = 40, H = 9, W = 9;
  HostTensor x = randomTensor(DType::F32, {1, H, W, C}, 51);
  HostTensor f = randomTensor(DType::F32, {3, 3, C, C}, 52, -0.1, 0.1);
  HostTensor b = randomTensor(DType::F32, {C}, 53);
  Conv2DDesc d;
  d.dtype = DType::F32;
  d.nhwc = true;
  d.inputShape = d.resultShape = {1, H, W, C};
  d.filterShape = f.shape();
  d.biasShape = Shape{C};
  d.padding[0] = d.padding[1] = d.padding[2] = d.padding[3] = 1;
  d.postOps = {PostOp{}};
  d.constantFilter = &f;
  EXPECT_TRUE(winogradCandidate(d));

  auto plain = createConv2D(d);
  ASSERT_TRUE(plain.ok()) << plain.status();
  HostTensor want = runOne(*plain, {x, f, b}, DType::F32, d.resultShape);

  ConvLayouts layouts;
  layouts.anyInput = true;
  layouts.blockTag = true;
  layouts.winograd = true;
  auto wino = createLayoutConv2D(d, layouts);
  ASSERT_TRUE(wino.ok()) << wino.status();
  EXPECT_EQ(wino->winograd, cpuIsa().winograd);
  EXPECT_EQ(wino->kernel->name(),
            cpuIsa().winograd ? "onednn.conv2d.winograd" : "onednn.conv2d");
  ASSERT_TRUE(wino->inputLayout && wino->resultLayout);
  auto in =
      createLayoutReorder(DType::F32, x.shape(), nullptr, &*wino->inputLayout);
  auto out =
      createLayoutReorder(DType::F32, x.shape(), &*wino->resultLayout, nullptr);
  ASSERT_TRUE(in.ok() && out.ok());
  HostTensor xb =
      runOne(*in, {x}, DType::F32, blockedShape(*wino->inputLayout));
  HostTensor yb = runOne(wino->kernel, {xb, f, b}, DType::F32,
                         blockedShape(*wino->resultLayout), 2);
  HostTensor got = runOne(*out, {yb}, DType::F32, want.shape());
  EXPECT_CLOSE(got, want, 1e-4, 1e-5);

  // Not asked for: the direct kernel in the same layouts.
  layouts.winograd = false;
  auto direct = createLayoutConv2D(d, layouts);
  ASSERT_TRUE(direct.ok()) << direct.status();
  EXPECT_FALSE(direct->winograd);

  // Not candidates, and so never on Winograd kernels.
  auto refused = [&](Conv2DDesc e) {
    EXPECT_FALSE(winogradCandidate(e));
    layouts.winograd = true;
    auto kernel = createLayoutConv2D(e, layouts);
    return !kernel.ok() || !kernel->winograd;
  };
  Conv2DDesc strided = d;
  strided.strides[0] = strided.strides[1] = 2;
  strided.resultShape = {1, 5, 5, C};
  EXPECT_TRUE(refused(strided));
  Conv2DDesc dilated = d;
  dilated.dilations[0] = dilated.dilations[1] = 2;
  dilated.padding[0] = dilated.padding[1] = dilated.padding[2] =
      dilated.padding[3] = 2;
  EXPECT_TRUE(refused(dilated));
  HostTensor narrowFilter =
      randomTensor(DType::F32, {3, 3, C, 16}, 54, -0.1, 0.1);
  Conv2DDesc narrow = d;
  narrow.filterShape = narrowFilter.shape();
  narrow.resultShape = {1, H, W, 16};
  narrow.biasShape = Shape{16};
  narrow.constantFilter = &narrowFilter;
  EXPECT_TRUE(refused(narrow));
  Conv2DDesc half = d;
  half.dtype = DType::F16;
  EXPECT_FALSE(winogradCandidate(half));
}

TEST(BlockedLayouts, WinogradFiltersFitTheLastLevelCache) {
  // 1024 channels at 7x7, batch 4: oneDNN's Winograd filter (jit_wino_4x3,
  // 6x6 tiles: 151 MB) would stream from memory on every call; the direct
  // kernel runs it. The plain filter is 37.7 MB.
  ASSERT_GT(lastLevelCacheBytes(), 0);
  if (lastLevelCacheBytes() >= (int64_t{151} << 20))
    GTEST_SKIP() << "a last-level cache of " << lastLevelCacheBytes()
                 << " bytes holds the Winograd filter";
  const int64_t C = 1024;
  HostTensor f = randomTensor(DType::F32, {3, 3, C, C}, 71, -0.01, 0.01);
  Conv2DDesc d;
  d.dtype = DType::F32;
  d.nhwc = true;
  d.inputShape = d.resultShape = {4, 7, 7, C};
  d.filterShape = f.shape();
  d.padding[0] = d.padding[1] = d.padding[2] = d.padding[3] = 1;
  d.constantFilter = &f;
  ASSERT_TRUE(winogradCandidate(d));
  ConvLayouts layouts;
  layouts.anyInput = true;
  layouts.blockTag = true;
  layouts.winograd = true;
  auto kernel = createLayoutConv2D(d, layouts);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_FALSE(kernel->winograd);
  EXPECT_EQ(kernel->kernel->name(), "onednn.conv2d");
}

TEST(BlockedLayouts, WeightBoundConvolutions) {
  // ResNet-50's layer4.0.conv2 at batch 1: 3x3, stride 2, 512 channels,
  // 14x14 -> 7x7; its filter holds 19x the elements of its activations.
  // Only with AVX-512 (oneDNN's NHWC brgemm kernels): never below.
  Conv2DDesc d;
  d.dtype = DType::F32;
  d.nhwc = true;
  d.inputShape = {1, 14, 14, 512};
  d.filterShape = {3, 3, 512, 512};
  d.resultShape = {1, 7, 7, 512};
  d.strides[0] = d.strides[1] = 2;
  d.padding[0] = d.padding[1] = d.padding[2] = d.padding[3] = 1;
  if (!cpuIsa().avx512) {
    EXPECT_FALSE(weightBoundConv(d));
    return;
  }
  EXPECT_TRUE(weightBoundConv(d));
  Conv2DDesc bf16 = d;
  bf16.dtype = DType::BF16;
  EXPECT_TRUE(weightBoundConv(bf16));
  // At batch 8 the filter holds only 2.4x their elements: not bound.
  Conv2DDesc batch8 = d;
  batch8.inputShape[0] = batch8.resultShape[0] = 8;
  EXPECT_FALSE(weightBoundConv(batch8));
  // layer3.0.conv2 (256 channels, 28x28 -> 14x14): 2.4x too.
  Conv2DDesc layer3 = d;
  layer3.inputShape = {1, 28, 28, 256};
  layer3.filterShape = {3, 3, 256, 256};
  layer3.resultShape = {1, 14, 14, 256};
  EXPECT_FALSE(weightBoundConv(layer3));
  // 1x1 convolutions and Winograd candidates keep their blocked kernels.
  Conv2DDesc pointwise = d;
  pointwise.filterShape = {1, 1, 512, 2048};
  pointwise.resultShape = {1, 7, 7, 2048};
  pointwise.padding[0] = pointwise.padding[1] = pointwise.padding[2] =
      pointwise.padding[3] = 0;
  EXPECT_FALSE(weightBoundConv(pointwise));
  Conv2DDesc unitStride = d;
  unitStride.inputShape = {1, 7, 7, 512};
  unitStride.strides[0] = unitStride.strides[1] = 1;
  ASSERT_TRUE(winogradCandidate(unitStride));
  EXPECT_FALSE(weightBoundConv(unitStride));
  // Grouped, integer and malformed descriptors are never weight-bound.
  Conv2DDesc grouped = d;
  grouped.groups = 2;
  grouped.filterShape = {3, 3, 256, 512};
  EXPECT_FALSE(weightBoundConv(grouped));
  Conv2DDesc integer = d;
  integer.dtype = DType::I32;
  EXPECT_FALSE(weightBoundConv(integer));
  Conv2DDesc malformed = d;
  malformed.resultShape = {1, 7, 7};
  EXPECT_FALSE(weightBoundConv(malformed));
}

TEST(BlockedLayouts, ChannelConcatCopiesBlocks) {
  // Two blocked activations (16 and 32 channels, batch 2: whole blocks of
  // 16 or 8) joined along the channels match the plain concat.
  SKIP_WITHOUT_BLOCKED_LAYOUTS();
  Shape a{2, 3, 5, 16}, b{2, 3, 5, 32}, r{2, 3, 5, 48};
  HostTensor x = randomTensor(DType::F32, a, 61),
             y = randomTensor(DType::F32, b, 62);
  auto plain = createConcat(DType::F32, {a, b}, 3);
  ASSERT_TRUE(plain.ok()) << plain.status();
  HostTensor want = runOne(*plain, {x, y}, DType::F32, r);

  // Blocked layouts of each shape: the result layout of a blocked 1x1
  // convolution.
  std::vector<std::unique_ptr<HostTensor>> filters;
  auto blockedLayout = [&](const Shape &nhwc) {
    filters.push_back(std::make_unique<HostTensor>(
        randomTensor(DType::F32, {1, 1, nhwc[3], nhwc[3]}, 63)));
    Conv2DDesc d;
    d.dtype = DType::F32;
    d.nhwc = true;
    d.inputShape = d.resultShape = nhwc;
    d.filterShape = filters.back()->shape();
    d.constantFilter = filters.back().get();
    ConvLayouts layouts;
    layouts.anyInput = true;
    layouts.blockTag = true;
    auto conv = createLayoutConv2D(d, layouts);
    EXPECT_TRUE(conv.ok() && conv->resultLayout) << conv.status();
    return conv.ok() && conv->resultLayout ? *conv->resultLayout
                                           : ActivationLayout();
  };
  ActivationLayout la = blockedLayout(a), lb = blockedLayout(b);
  auto concat = createLayoutConcat(DType::F32, {a, b}, {&la, &lb}, true);
  ASSERT_TRUE(concat.ok()) << concat.status();
  ASSERT_TRUE(concat->resultLayout);
  EXPECT_EQ(concat->resultLayout->name, blockName());
  auto inA = createLayoutReorder(DType::F32, a, nullptr, &la);
  auto inB = createLayoutReorder(DType::F32, b, nullptr, &lb);
  auto out =
      createLayoutReorder(DType::F32, r, &*concat->resultLayout, nullptr);
  ASSERT_TRUE(inA.ok() && inB.ok() && out.ok());
  HostTensor xb = runOne(*inA, {x}, DType::F32, blockedShape(la));
  HostTensor yb = runOne(*inB, {y}, DType::F32, blockedShape(lb));
  HostTensor rb = runOne(concat->kernel, {xb, yb}, DType::F32,
                         blockedShape(*concat->resultLayout), 2);
  HostTensor got = runOne(*out, {rb}, DType::F32, r);
  EXPECT_CLOSE(got, want, 0, 0);

  // Refused: a 1.5-block input (24 channels in nChw16c: its padded block
  // would land inside the result), a plain input, or no blocked layout
  // asked for.
  Shape c{2, 3, 5, channelBlock() * 3 / 2};
  ActivationLayout lc = blockedLayout(c);
  EXPECT_EQ(
      createLayoutConcat(DType::F32, {a, c}, {&la, &lc}, true).status().code(),
      absl::StatusCode::kUnimplemented);
  EXPECT_EQ(createLayoutConcat(DType::F32, {a, b}, {&la, nullptr}, true)
                .status()
                .code(),
            absl::StatusCode::kUnimplemented);
  EXPECT_EQ(
      createLayoutConcat(DType::F32, {a, b}, {&la, &lb}, false).status().code(),
      absl::StatusCode::kUnimplemented);
}

TEST(BlockedLayouts, PoolKeepsTheLayout) {
  SKIP_WITHOUT_BLOCKED_LAYOUTS();
  const int64_t C = 24;
  HostTensor x = randomTensor(DType::F32, {1, 9, 9, C}, 44);
  Pool2DDesc d;
  d.kind = Pool2DDesc::Kind::Max;
  d.dtype = DType::F32;
  d.nhwc = true;
  d.inputShape = x.shape();
  d.resultShape = {1, 5, 5, C};
  d.kernel[0] = d.kernel[1] = 3;
  d.strides[0] = d.strides[1] = 2;
  d.padding[0] = d.padding[1] = d.padding[2] = d.padding[3] = 1;
  auto plain = createPool2D(d);
  ASSERT_TRUE(plain.ok());
  HostTensor want = runOne(*plain, {x}, DType::F32, d.resultShape);
  // The blocked layout of a 1x1 convolution's preferred input.
  Conv2DDesc c;
  c.dtype = DType::F32;
  c.nhwc = true;
  c.inputShape = c.resultShape = x.shape();
  c.filterShape = {1, 1, C, C};
  ConvLayouts any;
  any.anyInput = true;
  any.blockTag = true;
  HostTensor f = randomTensor(DType::F32, c.filterShape, 45);
  c.constantFilter = &f;
  auto conv = createLayoutConv2D(c, any);
  ASSERT_TRUE(conv.ok() && conv->inputLayout) << conv.status();
  const ActivationLayout &L = *conv->inputLayout;
  auto pool = createLayoutPool2D(d, L);
  ASSERT_TRUE(pool.ok()) << pool.status();
  ASSERT_TRUE(pool->resultLayout);
  EXPECT_EQ(pool->resultLayout->name, blockName());
  auto in = createLayoutReorder(DType::F32, x.shape(), nullptr, &L);
  auto out = createLayoutReorder(DType::F32, d.resultShape,
                                 &*pool->resultLayout, nullptr);
  ASSERT_TRUE(in.ok() && out.ok());
  HostTensor xb = runOne(*in, {x}, DType::F32, blockedShape(L));
  HostTensor yb =
      runOne(pool->kernel, {xb}, DType::F32, blockedShape(*pool->resultLayout));
  HostTensor got = runOne(*out, {yb}, DType::F32, want.shape());
  EXPECT_CLOSE(got, want, 0, 0);
}

TEST(BlockedLayouts, StridedPointwiseConvolutionsCopyTheirPixelsFirst) {
  // A strided unpadded 1x1 convolution over a blocked layout copies the
  // pixels it reads, then convolves at stride 1: 24 channels (a padded
  // block in nChw16c), two
  // images, strides that do and do not divide the image, a bias and a
  // ReLU. A padded one reads padding and is left alone.
  SKIP_WITHOUT_BLOCKED_LAYOUTS();
  const int64_t C = 24, O = 40, H = 9, W = 11;
  HostTensor x = randomTensor(DType::F32, {2, H, W, C}, 51);
  HostTensor f = randomTensor(DType::F32, {1, 1, C, O}, 52);
  HostTensor bias = randomTensor(DType::F32, {O}, 53);
  Conv2DDesc c;
  c.dtype = DType::F32;
  c.nhwc = true;
  c.inputShape = c.resultShape = x.shape();
  c.filterShape = {1, 1, C, C};
  HostTensor cf = randomTensor(DType::F32, c.filterShape, 54);
  c.constantFilter = &cf;
  ConvLayouts any;
  any.anyInput = true;
  any.blockTag = true;
  auto producer = createLayoutConv2D(c, any);
  ASSERT_TRUE(producer.ok() && producer->inputLayout) << producer.status();
  const ActivationLayout &L = *producer->inputLayout;
  ASSERT_EQ(L.name, blockName());
  auto in = createLayoutReorder(DType::F32, x.shape(), nullptr, &L);
  ASSERT_TRUE(in.ok());
  HostTensor xb = runOne(*in, {x}, DType::F32, blockedShape(L));

  struct Case {
    int64_t sh, sw, pad;
    bool subsampled;
  };
  for (Case k : {Case{2, 2, 0, true}, Case{2, 1, 0, true}, Case{3, 4, 0, true},
                 Case{2, 2, 1, false}}) {
    SCOPED_TRACE(absl::StrCat("strides ", k.sh, "x", k.sw, " pad ", k.pad));
    Conv2DDesc d;
    d.dtype = DType::F32;
    d.nhwc = true;
    d.inputShape = x.shape();
    d.filterShape = {1, 1, C, O};
    d.biasShape = Shape{O};
    d.strides[0] = k.sh;
    d.strides[1] = k.sw;
    for (int64_t &p : d.padding)
      p = k.pad;
    d.resultShape = {2, (H + 2 * k.pad - 1) / k.sh + 1,
                     (W + 2 * k.pad - 1) / k.sw + 1, O};
    PostOp relu;
    d.postOps = {relu};
    d.constantFilter = &f;
    auto plain = createConv2D(d);
    ASSERT_TRUE(plain.ok()) << plain.status();
    HostTensor want = runOne(*plain, {x, f, bias}, DType::F32, d.resultShape);
    ConvLayouts layouts;
    layouts.input = &L;
    layouts.blockTag = true;
    auto blocked = createLayoutConv2D(d, layouts);
    if (!k.subsampled) {
      // oneDNN 2.6 has only its reference kernel for this one blocked: the
      // caller runs it plain.
      EXPECT_TRUE(!blocked.ok() ||
                  blocked->kernel->name() != "onednn.conv2d.subsampled");
      if (!blocked.ok()) {
        EXPECT_EQ(blocked.status().code(), absl::StatusCode::kUnimplemented);
        continue;
      }
    }
    ASSERT_TRUE(blocked.ok()) << blocked.status();
    EXPECT_EQ(blocked->kernel->name() == "onednn.conv2d.subsampled",
              k.subsampled)
        << blocked->kernel->name();
    ASSERT_TRUE(blocked->resultLayout);
    HostTensor yb = runOne(blocked->kernel, {xb, f, bias}, DType::F32,
                           blockedShape(*blocked->resultLayout), 2);
    auto out = createLayoutReorder(DType::F32, d.resultShape,
                                   &*blocked->resultLayout, nullptr);
    ASSERT_TRUE(out.ok());
    HostTensor got = runOne(*out, {yb}, DType::F32, d.resultShape);
    EXPECT_CLOSE(got, want, 1e-4, 1e-5);
  }
}

TEST(BlockedLayouts, RefusedWhereTheyDoNotApply) {
  Conv2DDesc d;
  d.dtype = DType::F32;
  d.nhwc = false; // NCHW
  d.inputShape = d.resultShape = {1, 16, 4, 4};
  d.filterShape = {16, 16, 1, 1};
  ConvLayouts any;
  any.anyInput = true;
  any.blockTag = true;
  EXPECT_EQ(createLayoutConv2D(d, any).status().code(),
            absl::StatusCode::kUnimplemented);
  d.nhwc = true;
  d.inputShape = d.resultShape = {1, 4, 4, 16};
  d.filterShape = {1, 1, 16, 16};
  d.dtype = DType::F64;
  EXPECT_EQ(createLayoutConv2D(d, any).status().code(),
            absl::StatusCode::kUnimplemented);
  // A blocked residual operand in another layout than the result's.
  d.dtype = DType::F32;
  HostTensor f = randomTensor(DType::F32, d.filterShape, 46);
  d.constantFilter = &f;
  auto conv = createLayoutConv2D(d, any);
  ASSERT_TRUE(conv.ok() && conv->resultLayout);
  PostOp add;
  add.kind = PostOp::Kind::Add;
  add.operandShape = d.resultShape;
  d.postOps = {add};
  ConvLayouts mismatch;
  mismatch.input = &*conv->resultLayout;
  mismatch.postOpOperands = {&*conv->resultLayout};
  EXPECT_EQ(createLayoutConv2D(d, mismatch).status().code(),
            absl::StatusCode::kUnimplemented);
}

TEST(Conv2D, F64RunsNatively) {
  checkConv({1, 2, 5, 5, 3, 3, 3, 1, {1, 1}, {1, 1, 1, 1}, {1, 1}}, true, false,
            true, {}, DType::F64);
}

TEST(Conv2D, ZeroBatchAndBadShapes) {
  Conv2DDesc d;
  d.dtype = DType::F32;
  d.inputShape = {0, 3, 5, 5};
  d.filterShape = {4, 3, 3, 3};
  d.resultShape = {0, 4, 3, 3};
  auto kernel = createConv2D(d);
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  runOne(*kernel,
         {*HostTensor::allocate(DType::F32, d.inputShape),
          *HostTensor::allocate(DType::F32, d.filterShape)},
         DType::F32, d.resultShape);
  d.resultShape = {0, 4, 4, 4};
  EXPECT_EQ(createConv2D(d).status().code(),
            absl::StatusCode::kInvalidArgument);
}

//===----------------------------------------------------------------------===//
// Pooling
//===----------------------------------------------------------------------===//

int64_t poolOut(int64_t size, int64_t k, int64_t s, int64_t pb, int64_t pe,
                int64_t d, bool ceil) {
  int64_t span = size + pb + pe - (d * (k - 1) + 1);
  int64_t out = ceil ? (span + s - 1) / s + 1 : span / s + 1;
  if (ceil && (out - 1) * s >= size + pb)
    --out;
  return out;
}

HostTensor naivePool(const HostTensor &x, const Pool2DDesc &d, int64_t OH,
                     int64_t OW) {
  int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
  HostTensor out = *HostTensor::allocate(x.dtype(), {N, C, OH, OW});
  for (int64_t p = 0; p < N * C; ++p)
    for (int64_t y = 0; y < OH; ++y)
      for (int64_t z = 0; z < OW; ++z) {
        double best = -INFINITY, sum = 0;
        int64_t real = 0, rows = 0, cols = 0;
        for (int64_t r = 0; r < d.kernel[0]; ++r) {
          int64_t ih = y * d.strides[0] - d.padding[0] + r * d.dilations[0];
          rows += ih >= -d.padding[0] && ih < H + d.padding[2];
          for (int64_t s = 0; s < d.kernel[1]; ++s) {
            int64_t iw = z * d.strides[1] - d.padding[1] + s * d.dilations[1];
            if (r == 0)
              cols += iw >= -d.padding[1] && iw < W + d.padding[3];
            if (ih < 0 || ih >= H || iw < 0 || iw >= W)
              continue;
            double v = x.getDouble((p * H + ih) * W + iw);
            best = std::max(best, v);
            sum += v;
            ++real;
          }
        }
        double v = d.kind == Pool2DDesc::Kind::Max
                       ? best
                       : sum / double(d.countIncludePad ? rows * cols : real);
        out.setDouble((p * OH + y) * OW + z, v);
      }
  return out;
}

TEST(Pool2D, MaxAvgPaddingCeilMode) {
  struct Case {
    int64_t h, w, k[2], s[2], pad[4], dil[2];
    bool ceil;
  };
  std::vector<Case> cases = {
      {8, 8, {2, 2}, {2, 2}, {0, 0, 0, 0}, {1, 1}, false},
      {7, 9, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, false},
      {7, 9, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}, true},
      {6, 7, {2, 3}, {2, 2}, {0, 1, 0, 0}, {1, 1}, true},
      {10, 10, {3, 2}, {3, 3}, {1, 0, 1, 0}, {2, 1}, true},
      {5, 5, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}, false},
  };
  unsigned seed = 30;
  for (const Case &c : cases)
    for (auto kind : {Pool2DDesc::Kind::Max, Pool2DDesc::Kind::Avg})
      for (bool include : {false, true})
        for (bool nhwc : {false, true}) {
          Pool2DDesc d;
          d.kind = kind;
          d.dtype = DType::F32;
          d.nhwc = nhwc;
          d.ceilMode = c.ceil;
          d.countIncludePad = include;
          for (int i = 0; i < 2; ++i) {
            d.kernel[i] = c.k[i];
            d.strides[i] = c.s[i];
            d.dilations[i] = c.dil[i];
          }
          for (int i = 0; i < 4; ++i)
            d.padding[i] = c.pad[i];
          int64_t OH = poolOut(c.h, c.k[0], c.s[0], c.pad[0], c.pad[2],
                               c.dil[0], c.ceil);
          int64_t OW = poolOut(c.w, c.k[1], c.s[1], c.pad[1], c.pad[3],
                               c.dil[1], c.ceil);
          HostTensor x = randomTensor(DType::F32, {2, 3, c.h, c.w}, seed++);
          HostTensor want = naivePool(x, d, OH, OW);
          HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
          HostTensor wantLayout = nhwc ? permute(want, {0, 2, 3, 1}) : want;
          d.inputShape = xin.shape();
          d.resultShape = wantLayout.shape();
          auto kernel = createPool2D(d);
          ASSERT_TRUE(kernel.ok()) << kernel.status();
          SCOPED_TRACE(std::string((*kernel)->name()) +
                       " h=" + std::to_string(c.h) +
                       " include=" + std::to_string(include) +
                       " ceil=" + std::to_string(c.ceil));
          HostTensor got = runOne(*kernel, {xin}, DType::F32, d.resultShape);
          EXPECT_CLOSE(got, wantLayout, 1e-5, 1e-6);
        }
}

TEST(Pool2D, AvgIncludePadCeilModeFallsBackToNative) {
  Pool2DDesc d;
  d.kind = Pool2DDesc::Kind::Avg;
  d.dtype = DType::F32;
  d.kernel[0] = d.kernel[1] = 2;
  d.strides[0] = d.strides[1] = 2;
  d.ceilMode = true;
  d.countIncludePad = true;
  d.inputShape = {1, 1, 3, 3};
  d.resultShape = {1, 1, 2, 2};
  auto kernel = createPool2D(d);
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ((*kernel)->name(), "native.pool2d");
  HostTensor got = runOne(
      *kernel, {make(DType::F32, {1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})},
      DType::F32, {1, 1, 2, 2});
  // The ceil-mode windows hang past the input: those positions never count.
  EXPECT_CLOSE(got, make(DType::F32, {1, 1, 2, 2}, {3, 4.5, 7.5, 9}), 1e-6, 0);
}

TEST(Pool2D, GlobalAverage) {
  for (bool nhwc : {false, true}) {
    Pool2DDesc d;
    d.kind = Pool2DDesc::Kind::GlobalAvg;
    d.dtype = DType::F32;
    d.nhwc = nhwc;
    HostTensor x = randomTensor(DType::F32, {2, 3, 4, 5}, 3);
    HostTensor want = *HostTensor::allocate(DType::F32, {2, 3, 1, 1});
    for (int64_t p = 0; p < 6; ++p) {
      double s = 0;
      for (int64_t i = 0; i < 20; ++i)
        s += x.getDouble(p * 20 + i);
      want.setDouble(p, s / 20);
    }
    HostTensor xin = nhwc ? permute(x, {0, 2, 3, 1}) : x;
    HostTensor wantLayout = nhwc ? permute(want, {0, 2, 3, 1}) : want;
    d.inputShape = xin.shape();
    d.resultShape = wantLayout.shape();
    auto kernel = createPool2D(d);
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_CLOSE(runOne(*kernel, {xin}, DType::F32, d.resultShape), wantLayout,
                 1e-5, 1e-6);
  }
}

//===----------------------------------------------------------------------===//
// Eltwise
//===----------------------------------------------------------------------===//

double referenceEltwise(EltwiseKind k, double x, double a, double b) {
  using E = EltwiseKind;
  namespace s = tgc::scalar;
  switch (k) {
  case E::Relu:
    return s::relu(x);
  case E::LeakyRelu:
    return s::leakyRelu(x, a);
  case E::Elu:
    return s::elu(x, a);
  case E::Tanh:
    return std::tanh(x);
  case E::Sigmoid:
    return s::sigmoid(x);
  case E::Exp:
    return std::exp(x);
  case E::Log:
    return std::log(x);
  case E::Sqrt:
    return std::sqrt(x);
  case E::Rsqrt:
    return 1 / std::sqrt(x);
  case E::Abs:
    return std::fabs(x);
  case E::Neg:
    return -x;
  case E::Clamp:
    return s::clamp(x, a, b);
  case E::GeluErf:
    return s::gelu(x, false);
  case E::GeluTanh:
    return s::gelu(x, true);
  case E::Round:
    return s::roundHalfEven(x);
  case E::Reciprocal:
    return 1 / x;
  case E::Square:
    return x * x;
  case E::Swish:
    return x * s::sigmoid(x);
  case E::HardSwish:
    return x * std::min(std::max(x + 3, 0.0), 6.0) / 6;
  case E::Mish:
    return x * std::tanh(std::log1p(std::exp(x)));
  case E::Floor:
    return std::floor(x);
  case E::Ceil:
    return std::ceil(x);
  case E::Erf:
    return std::erf(x);
  case E::Sin:
    return std::sin(x);
  case E::Cos:
    return std::cos(x);
  case E::Sign:
    return s::sign(x);
  }
  return 0;
}

TEST(Eltwise, EveryKindF32AndF64) {
  for (int k = 0; k <= static_cast<int>(EltwiseKind::Sign); ++k) {
    auto kind = static_cast<EltwiseKind>(k);
    bool positive = kind == EltwiseKind::Log || kind == EltwiseKind::Sqrt ||
                    kind == EltwiseKind::Rsqrt;
    for (DType dtype : {DType::F32, DType::F64, DType::BF16, DType::F16}) {
      Shape shape{3, 37};
      HostTensor x =
          randomTensor(dtype, shape, 100 + k, positive ? 0.1 : -4, 4);
      if (kind == EltwiseKind::Round) // exact halves: ties to even
        for (int i = 0; i < 8; ++i)
          x.setDouble(i, -3.5 + i);
      EltwiseDesc d{kind, dtype, shape, 0.3, 0.7};
      if (kind == EltwiseKind::Clamp)
        d.alpha = -0.5;
      auto kernel = createEltwise(d);
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      SCOPED_TRACE(std::string((*kernel)->name()) + " kind " +
                   std::to_string(k) + " " + std::string(dtypeName(dtype)));
      EXPECT_TRUE((*kernel)->canRunInPlace(0));
      HostTensor got = runOne(*kernel, {x}, dtype, shape);
      HostTensor want = *HostTensor::allocate(dtype, shape);
      for (int64_t i = 0; i < x.numElements(); ++i)
        want.setDouble(i,
                       referenceEltwise(kind, x.getDouble(i), d.alpha, d.beta));
      bool half = dtype == DType::BF16 || dtype == DType::F16;
      EXPECT_CLOSE(got, want, half ? 1e-2 : 1e-4, half ? 1e-2 : 1e-5);
    }
  }
}

TEST(Eltwise, OneDnnRoundIsHalfToEven) {
  auto kernel = createEltwise({EltwiseKind::Round, DType::F32, {6}});
  ASSERT_TRUE(kernel.ok());
  EXPECT_EQ((*kernel)->name(), "onednn.eltwise");
  HostTensor got =
      runOne(*kernel, {make(DType::F32, {6}, {0.5, 1.5, 2.5, -0.5, -1.5, 2.6})},
             DType::F32, {6});
  EXPECT_CLOSE(got, make(DType::F32, {6}, {0, 2, 2, -0, -2, 3}), 0, 0);
}

TEST(Eltwise, IntegersAndInPlace) {
  HostTensor x = make(DType::I32, {5}, {-3, -1, 0, 2, 7});
  struct Case {
    EltwiseKind kind;
    std::vector<double> want;
  } cases[] = {{EltwiseKind::Relu, {0, 0, 0, 2, 7}},
               {EltwiseKind::Neg, {3, 1, 0, -2, -7}},
               {EltwiseKind::Abs, {3, 1, 0, 2, 7}},
               {EltwiseKind::Sign, {-1, -1, 0, 1, 1}},
               {EltwiseKind::Square, {9, 1, 0, 4, 49}},
               {EltwiseKind::Clamp, {-1, -1, 0, 2, 2}}};
  for (const Case &c : cases) {
    auto kernel = createEltwise({c.kind, DType::I32, {5}, -1.5, 2.9});
    ASSERT_TRUE(kernel.ok());
    HostTensor got = runOne(*kernel, {x}, DType::I32, {5});
    EXPECT_CLOSE(got, make(DType::I32, {5}, c.want), 0, 0);
  }
  EXPECT_EQ(createEltwise({EltwiseKind::Exp, DType::I32, {5}}).status().code(),
            absl::StatusCode::kUnimplemented);
  // In place: output aliases the input.
  auto kernel = createEltwise({EltwiseKind::Exp, DType::F32, {4}});
  HostTensor t = make(DType::F32, {4}, {0, 1, 2, 3});
  std::vector<HostTensor> out = {t};
  ASSERT_TRUE((*kernel)->run({}, {t}, out).ok());
  EXPECT_NEAR(t.getDouble(3), std::exp(3.0), 1e-4);
}

//===----------------------------------------------------------------------===//
// Binary, compare, select
//===----------------------------------------------------------------------===//

HostTensor naiveBinary(const HostTensor &a, const HostTensor &b,
                       const Shape &result, DType dtype,
                       const std::function<double(double, double)> &f) {
  HostTensor out = *HostTensor::allocate(dtype, result);
  size_t R = result.size();
  for (int64_t i = 0; i < out.numElements(); ++i) {
    std::vector<int64_t> idx = out.unflattenIndex(i);
    auto at = [&](const HostTensor &t) {
      Shape p(R - t.shape().size(), 1);
      p.insert(p.end(), t.shape().begin(), t.shape().end());
      std::vector<int64_t> j = idx;
      for (size_t d = 0; d < R; ++d)
        if (p[d] == 1)
          j[d] = 0;
      return t.getDouble(flatIndex(p, j));
    };
    out.setDouble(i, f(at(a), at(b)));
  }
  return out;
}

TEST(Binary, ArithmeticWithBroadcasting) {
  using K = BinaryDesc::Kind;
  struct Shapes {
    Shape a, b, r;
  } shapes[] = {{{4, 5}, {4, 5}, {4, 5}}, {{4, 5}, {5}, {4, 5}},
                {{5}, {4, 5}, {4, 5}},    {{3, 1, 5}, {4, 1}, {3, 4, 5}},
                {{}, {2, 3}, {2, 3}},     {{2, 3}, {}, {2, 3}}};
  std::pair<K, std::function<double(double, double)>> ops[] = {
      {K::Add, [](double x, double y) { return x + y; }},
      {K::Sub, [](double x, double y) { return x - y; }},
      {K::Mul, [](double x, double y) { return x * y; }},
      {K::Div, [](double x, double y) { return x / y; }},
      {K::Max, [](double x, double y) { return std::max(x, y); }},
      {K::Min, [](double x, double y) { return std::min(x, y); }},
      {K::Pow, [](double x, double y) { return std::pow(x, y); }}};
  unsigned seed = 200;
  for (const Shapes &s : shapes)
    for (const auto &[kind, f] : ops)
      for (DType dtype : {DType::F32, DType::F64, DType::I64, DType::I32,
                          DType::BF16, DType::F16}) {
        bool isInt = !isFloatDType(dtype);
        HostTensor a =
            randomTensor(dtype, s.a, seed++, kind == K::Pow ? 0.5 : -5, 5);
        HostTensor b = randomTensor(dtype, s.b, seed++,
                                    isInt && kind == K::Pow ? 0 : 0.5, 5);
        if (kind == K::Pow && !isInt)
          b = randomTensor(dtype, s.b, seed++, -2, 2);
        auto kernel = createBinary({kind, dtype, s.a, s.b, s.r});
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        SCOPED_TRACE(std::string((*kernel)->name()) + " op " +
                     std::to_string(int(kind)) + " " +
                     std::string(dtypeName(dtype)));
        HostTensor got = runOne(*kernel, {a, b}, dtype, s.r);
        auto fi = [&](double x, double y) {
          if (isInt && kind == K::Div)
            return std::trunc(x / y);
          if (isInt && kind == K::Pow)
            return double(tgc::scalar::powInt(int64_t(x), int64_t(y)));
          return f(x, y);
        };
        bool half = dtype == DType::BF16 || dtype == DType::F16;
        EXPECT_CLOSE(got, naiveBinary(a, b, s.r, dtype, fi), half ? 1e-2 : 1e-5,
                     half ? 1e-2 : 1e-6);
      }
}

TEST(Binary, IntegerDivisionByZeroIsAnError) {
  auto kernel =
      createBinary({BinaryDesc::Kind::Div, DType::I32, {2}, {2}, {2}});
  ASSERT_TRUE(kernel.ok());
  std::vector<HostTensor> out = {*HostTensor::allocate(DType::I32, {2})};
  absl::Status s = (*kernel)->run(
      {}, {make(DType::I32, {2}, {4, 5}), make(DType::I32, {2}, {2, 0})}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
}

TEST(Binary, CompareAndLogical) {
  using K = BinaryDesc::Kind;
  double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor a = make(DType::F32, {2, 3}, {1, 2, nan, 4, 5, 6});
  HostTensor b = make(DType::F32, {3}, {2, 2, 2});
  std::pair<K, std::vector<double>> cases[] = {
      {K::Eq, {0, 1, 0, 0, 0, 0}}, {K::Ne, {1, 0, 1, 1, 1, 1}},
      {K::Lt, {1, 0, 0, 0, 0, 0}}, {K::Le, {1, 1, 0, 0, 0, 0}},
      {K::Gt, {0, 0, 0, 1, 1, 1}}, {K::Ge, {0, 1, 0, 1, 1, 1}}};
  for (const auto &[kind, want] : cases) {
    auto kernel = createBinary({kind, DType::F32, {2, 3}, {3}, {2, 3}});
    ASSERT_TRUE(kernel.ok());
    HostTensor got = runOne(*kernel, {a, b}, DType::I1, {2, 3});
    EXPECT_CLOSE(got, make(DType::I1, {2, 3}, want), 0, 0);
  }
  auto ints = createBinary({K::Lt, DType::I64, {3}, {3}, {3}});
  EXPECT_CLOSE(runOne(*ints,
                      {make(DType::I64, {3}, {1, 5, -2}),
                       make(DType::I64, {3}, {2, 5, -3})},
                      DType::I1, {3}),
               make(DType::I1, {3}, {1, 0, 0}), 0, 0);
  HostTensor p = make(DType::I1, {4}, {0, 0, 1, 1}),
             q = make(DType::I1, {4}, {0, 1, 0, 1});
  auto andK = createBinary({K::And, DType::I1, {4}, {4}, {4}});
  auto orK = createBinary({K::Or, DType::I1, {4}, {4}, {4}});
  EXPECT_CLOSE(runOne(*andK, {p, q}, DType::I1, {4}),
               make(DType::I1, {4}, {0, 0, 0, 1}), 0, 0);
  EXPECT_CLOSE(runOne(*orK, {p, q}, DType::I1, {4}),
               make(DType::I1, {4}, {0, 1, 1, 1}), 0, 0);
}

TEST(Select, BroadcastsAllThree) {
  HostTensor c = make(DType::I1, {2, 1}, {1, 0});
  HostTensor x = make(DType::F32, {2, 3}, {1, 2, 3, 4, 5, 6});
  HostTensor y = make(DType::F32, {}, {-1});
  auto kernel = createSelect({DType::F32, {2, 1}, {2, 3}, {}, {2, 3}});
  ASSERT_TRUE(kernel.ok());
  EXPECT_CLOSE(runOne(*kernel, {c, x, y}, DType::F32, {2, 3}),
               make(DType::F32, {2, 3}, {1, 2, 3, -1, -1, -1}), 0, 0);
  auto i64 = createSelect({DType::I64, {3}, {3}, {3}, {3}});
  EXPECT_CLOSE(
      runOne(*i64,
             {make(DType::I1, {3}, {0, 1, 0}), make(DType::I64, {3}, {1, 2, 3}),
              make(DType::I64, {3}, {7, 8, 9})},
             DType::I64, {3}),
      make(DType::I64, {3}, {7, 2, 9}), 0, 0);
}

//===----------------------------------------------------------------------===//
// Softmax and norms
//===----------------------------------------------------------------------===//

TEST(Softmax, AxesAndLog) {
  Shape shape{3, 4, 5};
  for (DType dtype : {DType::F32, DType::F64, DType::BF16})
    for (int64_t axis = 0; axis < 3; ++axis)
      for (bool log : {false, true}) {
        HostTensor x = randomTensor(dtype, shape, 300 + axis, -3, 3);
        auto kernel = createSoftmax({dtype, shape, axis, log});
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        HostTensor want = *HostTensor::allocate(dtype, shape);
        for (int64_t i = 0; i < x.numElements(); ++i) {
          std::vector<int64_t> idx = x.unflattenIndex(i);
          double sum = 0;
          for (int64_t k = 0; k < shape[axis]; ++k) {
            std::vector<int64_t> j = idx;
            j[axis] = k;
            sum += std::exp(x.getDouble(flatIndex(shape, j)));
          }
          double v = x.getDouble(i);
          want.setDouble(i, log ? v - std::log(sum) : std::exp(v) / sum);
        }
        SCOPED_TRACE(std::string((*kernel)->name()));
        double tol = dtype == DType::BF16 ? 2e-2 : 1e-4;
        EXPECT_CLOSE(runOne(*kernel, {x}, dtype, shape), want, tol, tol / 10);
      }
}

TEST(LayerNorm, WithAndWithoutScaleBias) {
  Shape shape{2, 3, 8};
  for (DType dtype : {DType::F32, DType::F64})
    for (int64_t axis : {1, 2})
      for (int flags = 0; flags < 4; ++flags) {
        bool hasScale = flags & 1, hasBias = flags & 2;
        Shape norm(shape.begin() + axis, shape.end());
        HostTensor x = randomTensor(dtype, shape, 400 + flags, -2, 3);
        HostTensor g = randomTensor(dtype, norm, 410);
        HostTensor b = randomTensor(dtype, norm, 411);
        auto kernel =
            createLayerNorm({dtype, shape, axis, 1e-5, hasScale, hasBias});
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        int64_t inner = x.numElements() / (axis == 1 ? 2 : 6);
        HostTensor want = *HostTensor::allocate(dtype, shape);
        for (int64_t o = 0; o < x.numElements() / inner; ++o) {
          double mean = 0, var = 0;
          for (int64_t i = 0; i < inner; ++i)
            mean += x.getDouble(o * inner + i) / inner;
          for (int64_t i = 0; i < inner; ++i)
            var += std::pow(x.getDouble(o * inner + i) - mean, 2) / inner;
          for (int64_t i = 0; i < inner; ++i) {
            double v =
                (x.getDouble(o * inner + i) - mean) / std::sqrt(var + 1e-5);
            if (hasScale)
              v *= g.getDouble(i);
            if (hasBias)
              v += b.getDouble(i);
            want.setDouble(o * inner + i, v);
          }
        }
        std::vector<HostTensor> in = {x};
        if (hasScale)
          in.push_back(g);
        if (hasBias)
          in.push_back(b);
        SCOPED_TRACE(std::string((*kernel)->name()) + " flags " +
                     std::to_string(flags));
        EXPECT_CLOSE(runOne(*kernel, in, dtype, shape), want, 1e-4, 1e-5);
      }
}

/// Inference batch norm by the definition, in double.
HostTensor naiveBatchNorm(const HostTensor &x, const HostTensor &scale,
                          const HostTensor &bias, const HostTensor &mean,
                          const HostTensor &var, int64_t axis, double eps) {
  HostTensor want = *HostTensor::allocate(x.dtype(), x.shape());
  for (int64_t i = 0; i < x.numElements(); ++i) {
    int64_t c = x.unflattenIndex(i)[axis];
    want.setDouble(i, (x.getDouble(i) - mean.getDouble(c)) /
                              std::sqrt(var.getDouble(c) + eps) *
                              scale.getDouble(c) +
                          bias.getDouble(c));
  }
  return want;
}

TEST(BatchNorm, ChannelAxisOneAndLast) {
  Shape shape{2, 4, 3, 5};
  for (DType dtype : {DType::F32, DType::F64})
    for (int64_t axis : {1, 3}) {
      int64_t C = shape[axis];
      HostTensor x = randomTensor(dtype, shape, 500);
      HostTensor scale = randomTensor(dtype, {C}, 501);
      HostTensor bias = randomTensor(dtype, {C}, 502);
      HostTensor mean = randomTensor(dtype, {C}, 503);
      HostTensor var = randomTensor(dtype, {C}, 504, 0.5, 2);
      auto kernel = createBatchNorm({dtype, shape, axis, 1e-3});
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      HostTensor want = naiveBatchNorm(x, scale, bias, mean, var, axis, 1e-3);
      SCOPED_TRACE(std::string((*kernel)->name()));
      EXPECT_CLOSE(runOne(*kernel, {x, scale, bias, mean, var}, dtype, shape),
                   want, 1e-4, 1e-5);
    }
}

// Every rank and channel axis, shapes big enough to split across threads
// mid-row and mid-plane (odd sizes), every float dtype, 1 and 3 threads.
TEST(BatchNorm, RanksAxesDTypesAndThreads) {
  std::vector<std::pair<Shape, int64_t>> cases = {
      {{37}, 0},
      {{1000, 33}, 1},        // [N, C]
      {{33, 1000}, 0},        // channels first, 2-D
      {{7, 19, 301}, 1},      // [N, C, L]
      {{7, 301, 19}, 2},      // [N, L, C]
      {{301, 7, 19}, 0},      // channel axis 0
      {{2, 64, 17, 19}, 1},   // NCHW
      {{2, 17, 19, 64}, 3},   // NHWC
      {{3, 5, 67, 7}, 2},     // channel axis 2 of 4-D
      {{1, 3, 7, 11}, 3},     // few elements, channels last
      {{2, 3, 4, 5, 33}, 1},  // NCDHW
      {{2, 3, 4, 5, 33}, 4}}; // NDHWC
  for (const auto &[shape, axis] : cases)
    for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16})
      for (int threads : {1, 3}) {
        int64_t C = shape[static_cast<size_t>(axis)];
        HostTensor x = randomTensor(dtype, shape, 510, -3, 3);
        HostTensor scale = randomTensor(dtype, {C}, 511);
        HostTensor bias = randomTensor(dtype, {C}, 512);
        HostTensor mean = randomTensor(dtype, {C}, 513);
        HostTensor var = randomTensor(dtype, {C}, 514, 0.1, 3);
        auto kernel = createBatchNorm({dtype, shape, axis, 1e-5});
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        HostTensor want = naiveBatchNorm(x, scale, bias, mean, var, axis, 1e-5);
        bool half = dtype == DType::F16 || dtype == DType::BF16;
        double rtol = dtype == DType::BF16 ? 2e-2 : half ? 2e-3 : 1e-5;
        double atol = dtype == DType::BF16 ? 5e-2 : half ? 5e-3 : 1e-5;
        SCOPED_TRACE(std::string((*kernel)->name()) + " " +
                     std::string(dtypeName(dtype)) + " shape " +
                     testing::PrintToString(shape) + " axis " +
                     std::to_string(axis) + " threads " +
                     std::to_string(threads));
        EXPECT_CLOSE(
            runOne(*kernel, {x, scale, bias, mean, var}, dtype, shape, threads),
            want, rtol, atol);
      }
}

// The statistics are run-time inputs: one kernel, different parameters per
// call; and the output may be the input (the kernel runs in place).
TEST(BatchNorm, ParametersPerCallAndInPlace) {
  for (int64_t axis : {1, 3}) {
    Shape shape{1, 32, 33, 34};
    int64_t C = shape[static_cast<size_t>(axis)];
    auto kernel = createBatchNorm({DType::F32, shape, axis, 1e-5});
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_TRUE((*kernel)->canRunInPlace(0));
    for (unsigned call = 0; call < 3; ++call) {
      HostTensor x = randomTensor(DType::F32, shape, 520 + call);
      HostTensor scale = randomTensor(DType::F32, {C}, 530 + call);
      HostTensor bias = randomTensor(DType::F32, {C}, 540 + call);
      HostTensor mean = randomTensor(DType::F32, {C}, 550 + call);
      HostTensor var = randomTensor(DType::F32, {C}, 560 + call, 0.1, 3);
      HostTensor want = naiveBatchNorm(x, scale, bias, mean, var, axis, 1e-5);
      SCOPED_TRACE("axis " + std::to_string(axis) + " call " +
                   std::to_string(call));
      EXPECT_CLOSE(
          runOne(*kernel, {x, scale, bias, mean, var}, DType::F32, shape, 2),
          want, 1e-5, 1e-5);
      // In place: output 0 is input 0.
      std::vector<HostTensor> in = {x, scale, bias, mean, var};
      std::vector<HostTensor> out = {x};
      KernelContext context;
      context.numThreads = 2;
      ASSERT_TRUE((*kernel)->run(context, in, out).ok());
      EXPECT_CLOSE(x, want, 1e-5, 1e-5);
    }
  }
}

//===----------------------------------------------------------------------===//
// Reductions
//===----------------------------------------------------------------------===//

TEST(Reduce, EveryKindAxesKeepdims) {
  using K = ReduceDesc::Kind;
  Shape shape{3, 4, 5};
  std::vector<std::vector<int64_t>> axesList = {
      {0}, {1}, {2}, {0, 2}, {0, 1, 2}};
  for (K kind : {K::Sum, K::Mean, K::Max, K::Min, K::Prod})
    for (DType dtype : {DType::F32, DType::F64, DType::I32})
      for (const auto &axes : axesList)
        for (bool keepdims : {false, true}) {
          if (kind == K::Mean && dtype == DType::I32)
            continue;
          HostTensor x =
              randomTensor(dtype, shape, 600, kind == K::Prod ? 0.5 : -4,
                           kind == K::Prod ? 1.5 : 4);
          if (kind == K::Prod && dtype == DType::I32)
            x = randomTensor(dtype, shape, 601, -2, 2);
          Shape kept = shape, result;
          for (int64_t a : axes)
            kept[a] = 1;
          for (size_t d = 0; d < shape.size(); ++d) {
            bool reduced =
                std::find(axes.begin(), axes.end(), int64_t(d)) != axes.end();
            if (!reduced || keepdims)
              result.push_back(kept[d]);
          }
          auto kernel =
              createReduce({kind, dtype, shape, result, axes, keepdims});
          ASSERT_TRUE(kernel.ok()) << kernel.status();
          HostTensor want = *HostTensor::allocate(dtype, result);
          SCOPED_TRACE(std::string((*kernel)->name()));
          std::vector<double> out(static_cast<size_t>(want.numElements()),
                                  kind == K::Prod  ? 1
                                  : kind == K::Max ? -INFINITY
                                  : kind == K::Min ? INFINITY
                                                   : 0);
          int64_t count = x.numElements() / want.numElements();
          for (int64_t i = 0; i < x.numElements(); ++i) {
            std::vector<int64_t> idx = x.unflattenIndex(i);
            for (int64_t a : axes)
              idx[a] = 0;
            int64_t o = flatIndex(kept, idx);
            double v = x.getDouble(i);
            switch (kind) {
            case K::Max:
              out[o] = std::max(out[o], v);
              break;
            case K::Min:
              out[o] = std::min(out[o], v);
              break;
            case K::Prod:
              out[o] *= v;
              break;
            default:
              out[o] += v;
              break;
            }
          }
          for (int64_t o = 0; o < want.numElements(); ++o)
            want.setDouble(o, kind == K::Mean ? out[o] / count : out[o]);
          EXPECT_CLOSE(runOne(*kernel, {x}, dtype, result), want, 1e-4, 1e-5);
        }
}

TEST(Reduce, ArgMaxArgMinTiesAndNaN) {
  using K = ReduceDesc::Kind;
  double nan = std::numeric_limits<double>::quiet_NaN();
  HostTensor x = make(DType::F32, {2, 4}, {1, 3, 3, 0, 2, nan, 5, nan});
  auto first = createReduce({K::ArgMax, DType::F32, {2, 4}, {2}, {1}});
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_CLOSE(runOne(*first, {x}, DType::I64, {2}),
               make(DType::I64, {2}, {1, 1}), 0, 0);
  auto last =
      createReduce({K::ArgMax, DType::F32, {2, 4}, {2, 1}, {1}, true, true});
  ASSERT_TRUE(last.ok()) << last.status();
  EXPECT_CLOSE(runOne(*last, {x}, DType::I64, {2, 1}),
               make(DType::I64, {2, 1}, {2, 3}), 0, 0);
  auto argmin = createReduce({K::ArgMin, DType::I32, {2, 3}, {3}, {0}});
  ASSERT_TRUE(argmin.ok());
  EXPECT_CLOSE(runOne(*argmin, {make(DType::I32, {2, 3}, {1, 5, 3, 2, 4, 3})},
                      DType::I64, {3}),
               make(DType::I64, {3}, {0, 1, 0}), 0, 0);
}

/// tgc.topk by a stable sort of each line: values larger first (smaller
/// with !largest), NaN above every number, equal values in index order.
std::pair<HostTensor, HostTensor> naiveTopK(const HostTensor &x, int64_t axis,
                                            int64_t k, bool largest) {
  Shape shape = x.shape();
  int64_t len = shape[static_cast<size_t>(axis)];
  if (k == -1)
    k = len;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d)
    outer *= shape[static_cast<size_t>(d)];
  for (size_t d = static_cast<size_t>(axis) + 1; d < shape.size(); ++d)
    inner *= shape[d];
  Shape out = shape;
  out[static_cast<size_t>(axis)] = k;
  HostTensor values = *HostTensor::allocate(x.dtype(), out);
  HostTensor indices = *HostTensor::allocate(DType::I64, out);
  bool isFloat = isFloatDType(x.dtype());
  auto greater = [&](int64_t a, int64_t b) {
    if (isFloat) {
      double p = x.getDouble(a), q = x.getDouble(b);
      if (std::isnan(p) || std::isnan(q))
        return std::isnan(p) && !std::isnan(q);
      return p > q;
    }
    return x.getInt(a) > x.getInt(b);
  };
  size_t size = dtypeSize(x.dtype());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<int64_t> order(static_cast<size_t>(len));
      for (int64_t j = 0; j < len; ++j)
        order[static_cast<size_t>(j)] = j;
      int64_t base = o * len * inner + i;
      std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
        int64_t fa = base + a * inner, fb = base + b * inner;
        return largest ? greater(fa, fb) : greater(fb, fa);
      });
      for (int64_t j = 0; j < k; ++j) {
        int64_t to = (o * k + j) * inner + i;
        int64_t from = base + order[static_cast<size_t>(j)] * inner;
        std::memcpy(static_cast<char *>(values.data()) + to * size,
                    static_cast<const char *>(x.data()) + from * size, size);
        indices.setInt(to, order[static_cast<size_t>(j)]);
      }
    }
  return {std::move(values), std::move(indices)};
}

/// Runs a topk kernel and checks both results bit for bit against naiveTopK.
void checkTopK(const HostTensor &x, int64_t axis, int64_t k, bool largest,
               int threads) {
  SCOPED_TRACE(std::string(dtypeName(x.dtype())) + " " +
               cpu::detail::shapeString(x.shape()) + " axis " +
               std::to_string(axis) + " k " + std::to_string(k) +
               (largest ? " largest" : " smallest") + " threads " +
               std::to_string(threads));
  auto kernel = createTopK({x.dtype(), x.shape(), axis, k, largest});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  auto [values, indices] = naiveTopK(x, axis, k, largest);
  std::vector<HostTensor> out = {
      *HostTensor::allocate(x.dtype(), values.shape()),
      *HostTensor::allocate(DType::I64, values.shape())};
  KernelContext context;
  context.numThreads = threads;
  absl::Status status = (*kernel)->run(context, {x}, out);
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_EQ(std::memcmp(out[0].data(), values.data(), values.byteSize()), 0);
  EXPECT_EQ(std::memcmp(out[1].data(), indices.data(), indices.byteSize()), 0);
}

TEST(TopK, TiesNaNInfinitiesAndSignedZeros) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  double inf = std::numeric_limits<double>::infinity();
  HostTensor x = make(DType::F32, {8}, {1, -0.0, nan, inf, 0.0, -inf, 1, nan});
  auto kernel = createTopK({DType::F32, {8}, 0, 5, true});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  std::vector<HostTensor> out = {*HostTensor::allocate(DType::F32, {5}),
                                 *HostTensor::allocate(DType::I64, {5})};
  ASSERT_TRUE((*kernel)->run(KernelContext{}, {x}, out).ok());
  // NaN first (in index order), then +inf, the two 1s, then -0 before +0
  // would come (they tie: index order).
  std::vector<int64_t> expected = {2, 7, 3, 0, 6};
  for (int64_t j = 0; j < 5; ++j)
    EXPECT_EQ(out[1].getInt(j), expected[static_cast<size_t>(j)]) << j;
  EXPECT_TRUE(std::isnan(out[0].getDouble(0)));
  EXPECT_EQ(out[0].getDouble(2), inf);
  // Smallest: -inf, then the zeros in index order (bitwise: -0 first).
  for (int threads : {1, 2}) {
    checkTopK(x, 0, 4, false, threads);
    checkTopK(x, 0, -1, true, threads);
    checkTopK(x, 0, -1, false, threads);
  }
}

TEST(TopK, DTypesAxesAndEveryPath) {
  unsigned seed = 1;
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16,
                      DType::I8, DType::I32, DType::I64})
    for (int threads : {1, 2}) {
      // Few distinct values: many ties.
      HostTensor x = randomTensor(dtype, {3, 40, 5}, seed++, -4, 4);
      for (int64_t axis : {0, 1, 2})
        for (bool largest : {true, false}) {
          int64_t len = x.shape()[static_cast<size_t>(axis)];
          for (int64_t k : {int64_t(0), int64_t(1), len / 2, len, int64_t(-1)})
            checkTopK(x, axis, k, largest, threads);
        }
    }
}

TEST(TopK, LongLinesSplitAcrossThreads) {
  // One line of 200,000 (split across the threads, candidates merged) with
  // many ties, a few of k and half of it; two lines of it too.
  HostTensor one = randomTensor(DType::F32, {200000}, 11, -100, 100);
  for (int64_t i = 0; i < one.numElements(); ++i)
    one.setDouble(i, std::round(one.getDouble(i)));
  for (int threads : {1, 2, 3})
    for (int64_t k : {int64_t(1), int64_t(1000), int64_t(100000)})
      for (bool largest : {true, false})
        checkTopK(one, 0, k, largest, threads);
  HostTensor two = randomTensor(DType::I32, {2, 70000}, 12, -50, 50);
  checkTopK(two, 1, 300, true, 2);
  HostTensor strided = randomTensor(DType::BF16, {70000, 1}, 13, -9, 9);
  checkTopK(strided, 0, 70, false, 2);
}

TEST(TopK, BadDescriptorsAreErrors) {
  auto tooMany = createTopK({DType::F32, {2, 3}, 1, 4, true});
  ASSERT_FALSE(tooMany.ok());
  EXPECT_EQ(tooMany.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(tooMany.status().message().find("k = 4"), std::string::npos)
      << tooMany.status();
  auto badAxis = createTopK({DType::F32, {2, 3}, 2, 1, true});
  ASSERT_FALSE(badAxis.ok());
  EXPECT_NE(badAxis.status().message().find("axis 2"), std::string::npos)
      << badAxis.status();
  auto negative = createTopK({DType::F32, {2, 3}, 1, -2, true});
  EXPECT_FALSE(negative.ok());
  // Unsigned integers have no native traits: the compiler runs those on
  // the reference kernels.
  auto unsignedInts = createTopK({DType::UI8, {2, 3}, 1, 1, true});
  ASSERT_FALSE(unsignedInts.ok());
  EXPECT_EQ(unsignedInts.status().code(), absl::StatusCode::kUnimplemented);
  // Nothing to write: a kernel that does nothing.
  auto none = createTopK({DType::F32, {0, 3}, 1, 2, true});
  ASSERT_TRUE(none.ok()) << none.status();
}

TEST(Reduce, EmptyReducedDimsGiveIdentities) {
  using K = ReduceDesc::Kind;
  HostTensor x = *HostTensor::allocate(DType::F32, {2, 0});
  std::pair<K, double> cases[] = {{K::Sum, 0},
                                  {K::Prod, 1},
                                  {K::Max, -INFINITY},
                                  {K::Min, INFINITY},
                                  {K::Mean, NAN}};
  for (const auto &[kind, value] : cases) {
    auto kernel = createReduce({kind, DType::F32, {2, 0}, {2}, {1}});
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    EXPECT_CLOSE(runOne(*kernel, {x}, DType::F32, {2}),
                 make(DType::F32, {2}, {value}), 0, 0);
  }
}

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

// Every pair of dtypes is native, with the reference interpreter's
// conversions (its runCast): floats truncate and saturate to the target's
// range (NaN is 0), integers wrap, unsigned values convert as unsigned.
// f32 <-> ui8 take direct loops, checked here against those rules too.
TEST(Cast, AllPairsMatchHostTensorConversions) {
  std::vector<double> values = {
      0,    1,     -1,   2.5, -2.5,  127.9, -128.7, 300.2, -1e10,    1e10,
      3e38, 65504, 1e-3, 7,   254.9, 255.5, 256,    NAN,   INFINITY, -INFINITY};
  for (DType from : kAllDTypes)
    for (DType to : kAllDTypes) {
      HostTensor x = *HostTensor::allocate(from, {int64_t(values.size())});
      for (size_t i = 0; i < values.size(); ++i)
        x.setDouble(int64_t(i), values[i]);
      auto kernel = createCast(from, to, x.shape());
      ASSERT_TRUE(kernel.ok()) << kernel.status();
      HostTensor got = runOne(*kernel, {x}, to, x.shape());
      HostTensor want = *HostTensor::allocate(to, x.shape());
      const unsigned bits = dtypeBits(to);
      const bool toUnsigned = isUnsignedDType(to);
      for (int64_t i = 0; i < x.numElements(); ++i) {
        if (isFloatDType(to)) {
          if (isFloatDType(from))
            want.setDouble(i, x.getDouble(i));
          else if (isUnsignedDType(from))
            want.setUInt(i, x.getUInt(i));
          else
            want.setInt(i, x.getInt(i));
        } else if (isFloatDType(from)) {
          want.setInt(
              i, tgc::scalar::floatToInt(x.getDouble(i), bits, toUnsigned));
        } else {
          want.setInt(i, tgc::scalar::wrapInt(x.getInt(i), bits, toUnsigned));
        }
      }
      SCOPED_TRACE(std::string((*kernel)->name()) + " " +
                   std::string(dtypeName(from)) + " -> " +
                   std::string(dtypeName(to)));
      EXPECT_CLOSE(got, want, 0, 0);
    }
}

TEST(Cast, SaturationAndWrapping) {
  auto f2i = createCast(DType::F32, DType::I8, {4});
  EXPECT_CLOSE(runOne(*f2i, {make(DType::F32, {4}, {300, -300, NAN, -7.9})},
                      DType::I8, {4}),
               make(DType::I8, {4}, {127, -128, 0, -7}), 0, 0);
  auto i2i = createCast(DType::I32, DType::I8, {2});
  EXPECT_CLOSE(
      runOne(*i2i, {make(DType::I32, {2}, {300, -129})}, DType::I8, {2}),
      make(DType::I8, {2}, {44, 127}), 0, 0);
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

TEST(DataMovement, TransposeEveryDType) {
  for (DType dtype : kAllDTypes)
    for (Shape shape : {Shape{2, 3, 4}, Shape{16, 32, 24}}) {
      HostTensor x = randomTensor(dtype, shape, 700, -100, 100);
      for (std::vector<int64_t> perm :
           {std::vector<int64_t>{2, 0, 1}, {0, 2, 1}, {1, 0, 2}}) {
        auto kernel = createTranspose(dtype, shape, perm);
        ASSERT_TRUE(kernel.ok()) << kernel.status();
        HostTensor want = permute(x, perm);
        EXPECT_CLOSE(runOne(*kernel, {x}, dtype, want.shape()), want, 0, 0);
      }
    }
}

TEST(DataMovement, BroadcastTo) {
  HostTensor x = make(DType::I64, {3, 1}, {1, 2, 3});
  auto kernel = createBroadcastTo(DType::I64, {3, 1}, {2, 3, 2});
  ASSERT_TRUE(kernel.ok());
  EXPECT_CLOSE(
      runOne(*kernel, {x}, DType::I64, {2, 3, 2}),
      make(DType::I64, {2, 3, 2}, {1, 1, 2, 2, 3, 3, 1, 1, 2, 2, 3, 3}), 0, 0);
  EXPECT_FALSE(createBroadcastTo(DType::I64, {3, 2}, {3, 3}).ok());
}

TEST(DataMovement, Concat) {
  auto kernel = createConcat(DType::F32, {{2, 1}, {2, 2}, {2, 0}}, 1);
  ASSERT_TRUE(kernel.ok());
  EXPECT_CLOSE(runOne(*kernel,
                      {make(DType::F32, {2, 1}, {1, 2}),
                       make(DType::F32, {2, 2}, {3, 4, 5, 6}),
                       *HostTensor::allocate(DType::F32, {2, 0})},
                      DType::F32, {2, 3}),
               make(DType::F32, {2, 3}, {1, 3, 4, 2, 5, 6}), 0, 0);
  auto axis0 = createConcat(DType::I8, {{1, 2}, {2, 2}}, 0);
  EXPECT_CLOSE(runOne(*axis0,
                      {make(DType::I8, {1, 2}, {1, 2}),
                       make(DType::I8, {2, 2}, {3, 4, 5, 6})},
                      DType::I8, {3, 2}),
               make(DType::I8, {3, 2}, {1, 2, 3, 4, 5, 6}), 0, 0);
}

TEST(DataMovement, SliceWithNegativeSteps) {
  HostTensor x = make(DType::F32, {3, 5},
                      {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14});
  // x[::-1, 4:0:-2]
  auto kernel = createSlice(DType::F32, {3, 5}, {2, 4}, {-1, -2}, {3, 2});
  ASSERT_TRUE(kernel.ok()) << kernel.status();
  EXPECT_CLOSE(runOne(*kernel, {x}, DType::F32, {3, 2}),
               make(DType::F32, {3, 2}, {14, 12, 9, 7, 4, 2}), 0, 0);
  auto neg = createSlice(DType::F32, {3, 5}, {-2, 1}, {1, 2}, {2, 2});
  ASSERT_TRUE(neg.ok());
  EXPECT_CLOSE(runOne(*neg, {x}, DType::F32, {2, 2}),
               make(DType::F32, {2, 2}, {6, 8, 11, 13}), 0, 0);
  EXPECT_FALSE(createSlice(DType::F32, {3, 5}, {0, 0}, {1, 2}, {3, 4}).ok());
}

TEST(DataMovement, Pad) {
  auto kernel = createPad(DType::I32, {2, 2}, {1, 0}, {3, 4}, 9.7);
  ASSERT_TRUE(kernel.ok());
  EXPECT_CLOSE(runOne(*kernel, {make(DType::I32, {2, 2}, {1, 2, 3, 4})},
                      DType::I32, {3, 4}),
               make(DType::I32, {3, 4}, {9, 9, 9, 9, 1, 2, 9, 9, 3, 4, 9, 9}),
               0, 0);
  auto f = createPad(DType::F32, {1, 1}, {1, 1}, {3, 3}, -1);
  EXPECT_CLOSE(runOne(*f, {make(DType::F32, {1, 1}, {5})}, DType::F32, {3, 3}),
               make(DType::F32, {3, 3}, {-1, -1, -1, -1, 5, -1, -1, -1, -1}), 0,
               0);
}

TEST(DataMovement, GatherNegativeAndOutOfRangeIndices) {
  HostTensor data = make(DType::F32, {3, 2}, {1, 2, 3, 4, 5, 6});
  auto kernel = createGather(DType::F32, {3, 2}, DType::I64, {2, 2}, 0);
  ASSERT_TRUE(kernel.ok());
  EXPECT_CLOSE(runOne(*kernel, {data, make(DType::I64, {2, 2}, {0, -1, 1, 2})},
                      DType::F32, {2, 2, 2}),
               make(DType::F32, {2, 2, 2}, {1, 2, 5, 6, 3, 4, 5, 6}), 0, 0);
  auto axis1 = createGather(DType::F32, {3, 2}, DType::I32, {3}, 1);
  EXPECT_CLOSE(runOne(*axis1, {data, make(DType::I32, {3}, {1, -2, 1})},
                      DType::F32, {3, 3}),
               make(DType::F32, {3, 3}, {2, 1, 2, 4, 3, 4, 6, 5, 6}), 0, 0);
  std::vector<HostTensor> out = {*HostTensor::allocate(DType::F32, {2, 2, 2})};
  absl::Status s =
      (*kernel)->run({}, {data, make(DType::I64, {2, 2}, {0, 3, 1, 1})}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
  s = (*kernel)->run({}, {data, make(DType::I64, {2, 2}, {0, -4, 1, 1})}, out);
  EXPECT_EQ(s.code(), absl::StatusCode::kOutOfRange);
}

//===----------------------------------------------------------------------===//
// Zero sizes, concurrency, throughput
//===----------------------------------------------------------------------===//

TEST(ZeroSize, EveryFactoryAcceptsEmptyTensors) {
  Shape empty{0, 4};
  std::vector<absl::StatusOr<KernelPtr>> kernels = {
      createEltwise({EltwiseKind::Tanh, DType::F32, empty}),
      createBinary({BinaryDesc::Kind::Add, DType::F32, empty, {4}, empty}),
      createSoftmax({DType::F32, empty, 1}),
      createLayerNorm({DType::F32, empty, 1, 1e-5}),
      createBatchNorm({DType::F32, empty, 1, 1e-5}),
      createCast(DType::F32, DType::BF16, empty),
      createTranspose(DType::F32, empty, {1, 0}),
      createBroadcastTo(DType::F32, {4}, empty),
      createSlice(DType::F32, {3, 4}, {0, 0}, {1, 1}, empty),
      createPad(DType::F32, empty, {0, 0}, empty, 0),
      createGather(DType::F32, {3, 4}, DType::I64, {0}, 0),
      createReduce({ReduceDesc::Kind::Sum, DType::F32, empty, {0}, {1}}),
  };
  for (auto &kernel : kernels) {
    ASSERT_TRUE(kernel.ok()) << kernel.status();
    std::vector<HostTensor> out = {*HostTensor::allocate(DType::F32, {0})};
    EXPECT_TRUE((*kernel)->run({}, {}, out).ok()) << (*kernel)->name();
  }
}

// A primitive with little work runs on the calling thread alone and leaves
// the caller's OpenMP thread count as it found it; results are the same on
// either side of the threshold.
TEST(Threads, SmallPrimitivesRunSeriallyAndKeepTheThreadCount) {
  for (int64_t n : {int64_t(8), int64_t(5000), int64_t(70000)}) {
    Shape shape{n};
    HostTensor x = randomTensor(DType::F32, shape, 700, -3, 3);
    HostTensor y = randomTensor(DType::F32, shape, 701, -3, 3);
    auto relu = createEltwise({EltwiseKind::Relu, DType::F32, shape});
    auto tanh = createEltwise({EltwiseKind::Tanh, DType::F32, shape});
    auto add =
        createBinary({BinaryDesc::Kind::Add, DType::F32, shape, shape, shape});
    ASSERT_TRUE(relu.ok() && tanh.ok() && add.ok());
    HostTensor wantRelu = *HostTensor::allocate(DType::F32, shape),
               wantTanh = *HostTensor::allocate(DType::F32, shape),
               wantAdd = *HostTensor::allocate(DType::F32, shape);
    for (int64_t i = 0; i < n; ++i) {
      wantRelu.setDouble(i, std::max(x.getDouble(i), 0.0));
      wantTanh.setDouble(i, std::tanh(x.getDouble(i)));
      wantAdd.setDouble(i, x.getDouble(i) + y.getDouble(i));
    }
    SCOPED_TRACE("n " + std::to_string(n));
    omp_set_num_threads(3);
    EXPECT_CLOSE(runOne(*relu, {x}, DType::F32, shape, 2), wantRelu, 0, 0);
    if (n < 16384) {
      EXPECT_EQ(omp_get_max_threads(), 3);
    }
    omp_set_num_threads(3);
    EXPECT_CLOSE(runOne(*tanh, {x}, DType::F32, shape, 2), wantTanh, 1e-5,
                 1e-6);
    if (n < 4096) {
      EXPECT_EQ(omp_get_max_threads(), 3);
    }
    omp_set_num_threads(3);
    EXPECT_CLOSE(runOne(*add, {x, y}, DType::F32, shape, 2), wantAdd, 1e-6, 0);
    if (n < 16384) {
      EXPECT_EQ(omp_get_max_threads(), 3);
    }
  }
}

TEST(Concurrency, OneKernelFromFourThreads) {
  Shape a{64, 96}, b{96, 80}, r{64, 80};
  HostTensor w = randomTensor(DType::F32, b, 2);
  MatmulDesc d{DType::F32, a, b, r};
  d.constantRhs = &w;
  PostOp gelu;
  gelu.eltwise = EltwiseKind::GeluTanh;
  d.postOps = {gelu};
  auto kernel = createMatmul(d);
  ASSERT_TRUE(kernel.ok());
  auto softmax = createSoftmax({DType::F32, r, 1});
  ASSERT_TRUE(softmax.ok());
  std::vector<HostTensor> inputs, wants;
  for (int t = 0; t < 4; ++t) {
    inputs.push_back(randomTensor(DType::F32, a, 10 + t));
    HostTensor want = naiveMatmul(inputs.back(), w, false, false, r);
    for (int64_t i = 0; i < want.numElements(); ++i)
      want.setDouble(i, tgc::scalar::gelu(want.getDouble(i), true));
    wants.push_back(want);
  }
  std::vector<absl::Status> results(4);
  std::vector<HostTensor> outs;
  for (int t = 0; t < 4; ++t)
    outs.push_back(*HostTensor::allocate(DType::F32, r));
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      KernelContext context;
      context.numThreads = 1 + t % 2;
      for (int iter = 0; iter < 20 && results[t].ok(); ++iter) {
        std::vector<HostTensor> out = {outs[t]};
        results[t] = (*kernel)->run(context, {inputs[t], w}, out);
        HostTensor scratch = *HostTensor::allocate(DType::F32, r);
        std::vector<HostTensor> sm = {scratch};
        if (results[t].ok())
          results[t] = (*softmax)->run(context, {outs[t]}, sm);
      }
    });
  }
  for (auto &thread : threads)
    thread.join();
  for (int t = 0; t < 4; ++t) {
    EXPECT_TRUE(results[t].ok()) << results[t];
    EXPECT_CLOSE(outs[t], wants[t], 1e-4, 1e-5);
  }
}

} // namespace

// The NaN guards' scan (hasSpecialValues): NaN of either sign, quiet or
// signaling, and (NonFinite) infinities, found at any position, including
// the last element of a chunk and of a vector tail; the largest finite
// values and subnormals are not special.
TEST(NaNGuardScan, FindsEverySpecialValueInEveryFloatType) {
  using tgc::runtime::cpu::detail::hasSpecialValues;
  using tgc::runtime::cpu::detail::NaNGuardScan;
  const double inf = std::numeric_limits<double>::infinity();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (DType dtype : {DType::F32, DType::F64, DType::F16, DType::BF16}) {
    double largest = dtype == DType::F16    ? 65504.0
                     : dtype == DType::BF16 ? 3.3895313892515355e38
                     : dtype == DType::F32  ? 3.4028234663852886e38
                                            : 1.7976931348623157e308;
    for (int64_t n : {int64_t(1), int64_t(17), int64_t(70001)}) {
      HostTensor t = make(dtype, {n}, {1.0});
      t.setDouble(0, -largest);
      t.setDouble(n - 1, largest);
      if (n > 2)
        t.setDouble(1, dtype == DType::F64 ? 4.9e-324 : 1e-40);
      for (int threads : {1, 2}) {
        EXPECT_FALSE(hasSpecialValues(t, NaNGuardScan::NaN, threads))
            << dtypeName(dtype) << " " << n;
        EXPECT_FALSE(hasSpecialValues(t, NaNGuardScan::NonFinite, threads))
            << dtypeName(dtype) << " " << n;
      }
      for (int64_t at : {int64_t(0), n / 2, n - 1}) {
        for (double special : {nan, -nan, inf, -inf}) {
          HostTensor u = t.clone();
          u.setDouble(at, special);
          bool isNaN = std::isnan(special);
          for (int threads : {1, 2}) {
            EXPECT_EQ(hasSpecialValues(u, NaNGuardScan::NaN, threads), isNaN)
                << dtypeName(dtype) << " n " << n << " at " << at << " "
                << special;
            EXPECT_TRUE(hasSpecialValues(u, NaNGuardScan::NonFinite, threads))
                << dtypeName(dtype) << " n " << n << " at " << at << " "
                << special;
          }
        }
      }
    }
  }
  // A signaling NaN (f32 bits 0x7f800001) and its negative.
  HostTensor s = make(DType::F32, {33}, {0.5});
  for (uint32_t bits : {0x7f800001u, 0xff800001u}) {
    HostTensor u = s.clone();
    std::memcpy(static_cast<char *>(u.data()) + 4 * 20, &bits, 4);
    EXPECT_TRUE(hasSpecialValues(u, NaNGuardScan::NaN, 1));
  }
}
