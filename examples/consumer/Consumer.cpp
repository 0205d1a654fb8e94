// Traces a function and runs an ONNX model through the installed tgc
// package, checking both results against plain C++ loops. Exit status 0 when
// everything matches.
//
//   consumer MATMUL_MODEL.onnx      (ONNX's test_matmul_2d: C = A x B)

#include <tgc/tgc.h>

#include <cmath>
#include <cstdio>
#include <vector>

using tgc::runtime::DType;
using tgc::runtime::HostTensor;

namespace {

HostTensor iota(std::vector<int64_t> shape, float scale) {
  auto t = *HostTensor::allocate(DType::F32, shape);
  float *data = t.dataAs<float>();
  for (int64_t i = 0; i < t.numElements(); ++i)
    data[i] = scale * static_cast<float>((i % 7) - 3);
  return t;
}

bool near(float a, float b) {
  return std::fabs(a - b) <= 1e-4f * (1.0f + std::fabs(b));
}

int fail(const char *what, const tgc::Status &status) {
  std::fprintf(stderr, "consumer: %s: %s\n", what,
               std::string(status.message()).c_str());
  return 1;
}

} // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer MATMUL_MODEL.onnx\n");
    return 2;
  }
  std::printf("tgc %s (compiled against %s)\n", tgc::libraryVersion(),
              TGC_VERSION);

  // 1. A traced function: relu(x * w + b) with a broadcast bias.
  auto f = tgc::function([](tgc::Tensor x, tgc::Tensor w, tgc::Tensor b) {
    return tgc::relu(tgc::matmul(x, w) + b);
  });
  if (!f.ok())
    return fail("tgc::function", f.status());
  HostTensor x = iota({4, 8}, 0.5f), w = iota({8, 3}, 0.25f),
             b = iota({3}, 1.0f);
  auto y = (*f)(x, w, b);
  if (!y.ok())
    return fail("calling the traced function", y.status());
  for (int64_t i = 0; i < 4; ++i)
    for (int64_t j = 0; j < 3; ++j) {
      float acc = b.dataAs<float>()[j];
      for (int64_t k = 0; k < 8; ++k)
        acc += x.dataAs<float>()[i * 8 + k] * w.dataAs<float>()[k * 3 + j];
      float expected = acc > 0 ? acc : 0;
      if (!near(y->dataAs<float>()[i * 3 + j], expected)) {
        std::fprintf(stderr, "consumer: traced y[%ld][%ld] = %g, expected %g\n",
                     static_cast<long>(i), static_cast<long>(j),
                     y->dataAs<float>()[i * 3 + j], expected);
        return 1;
      }
    }
  std::printf("traced function: %zu trace(s), signature %s\n",
              f->tracingCount(), f->specializations()[0].signature.c_str());

  // 2. An ONNX model: C = A x B.
  auto model = tgc::Model::loadOnnx(argv[1]);
  if (!model.ok())
    return fail("loading the model", model.status());
  if (model->inputs().size() != 2 || model->outputs().size() != 1) {
    std::fprintf(stderr, "consumer: expected a model with 2 inputs and 1 "
                         "output\n");
    return 1;
  }
  const std::vector<int64_t> &aShape = model->inputs()[0].shape;
  const std::vector<int64_t> &bShape = model->inputs()[1].shape;
  if (aShape.size() != 2 || bShape.size() != 2 || aShape[1] != bShape[0]) {
    std::fprintf(stderr, "consumer: expected 2-D matmul inputs\n");
    return 1;
  }
  HostTensor a = iota(aShape, 0.5f), bm = iota(bShape, 2.0f);
  auto outputs = model->run({a, bm});
  if (!outputs.ok())
    return fail("running the model", outputs.status());
  int64_t m = aShape[0], k = aShape[1], n = bShape[1];
  const HostTensor &c = (*outputs)[0];
  if (c.shape() != std::vector<int64_t>{m, n}) {
    std::fprintf(stderr, "consumer: the model's output has the wrong shape\n");
    return 1;
  }
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      float acc = 0;
      for (int64_t q = 0; q < k; ++q)
        acc += a.dataAs<float>()[i * k + q] * bm.dataAs<float>()[q * n + j];
      if (!near(c.dataAs<float>()[i * n + j], acc)) {
        std::fprintf(stderr, "consumer: model C[%ld][%ld] = %g, expected %g\n",
                     static_cast<long>(i), static_cast<long>(j),
                     c.dataAs<float>()[i * n + j], acc);
        return 1;
      }
    }
  std::printf("onnx model: inputs %s, %s; output %s: %ldx%ld matches\n",
              model->inputs()[0].name.c_str(), model->inputs()[1].name.c_str(),
              model->outputs()[0].name.c_str(), static_cast<long>(m),
              static_cast<long>(n));

  // 3. Bad input is an error, not a crash.
  auto wrong = model->run({a});
  if (wrong.ok()) {
    std::fprintf(stderr, "consumer: a call with one input succeeded\n");
    return 1;
  }
  std::printf("wrong arity: %s\n",
              std::string(wrong.status().message()).c_str());
  return 0;
}
