//===- TracedMlp.cpp - a traced MLP called with varying batch sizes -------===//
//
// Shows tgc::function's retracing: the default policy traces once per batch
// size; reduce_retracing relaxes the batch dim after the second size; an
// input_signature with a dynamic batch dim traces exactly once.
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <cstdio>
#include <iostream>
#include <string>
#include <string_view>

/// `value` with `digits` decimals.
static std::string fixed(int digits, double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof(buffer), "%.*f", digits, value);
  return buffer;
}

#include <random>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

static HostTensor randomTensor(std::vector<int64_t> shape, std::mt19937 &rng) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  std::uniform_real_distribution<double> dist(-0.5, 0.5);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, dist(rng));
  return t;
}

template <typename F> static void printHistory(std::string_view title, F &f) {
  std::cout << "  " << title << ": " << f.tracingCount() << " trace(s)\n";
  for (const auto &event : f.history()) {
    if (event.kind == tracing::TraceEvent::Kind::Trace)
      std::cout << "    traced " << event.type << "\n      because "
                << event.reason.str() << "\n";
    else if (event.kind == tracing::TraceEvent::Kind::Compile)
      std::cout << "    compiled a plan for shapes " << event.shapes << " ("
                << fixed(2, event.traceSeconds * 1e3) << " ms)\n";
  }
}

int main() {
  std::mt19937 rng(0);
  HostTensor w1 = randomTensor({16, 32}, rng), b1 = randomTensor({32}, rng);
  HostTensor w2 = randomTensor({32, 4}, rng);
  auto mlp = [](Tensor x, Tensor w1, Tensor b1, Tensor w2) {
    Tensor h = gelu(matmul(x, w1) + b1);
    return softmax(matmul(h, w2), -1);
  };

  std::cout << "A 2-layer MLP called with batch sizes 1, 2, 3, 8, 3, 1:\n";
  FunctionOptions quiet;
  quiet.log = [](const std::string &) {};
  auto exact = *tgc::function(mlp, quiet);
  FunctionOptions relaxed = quiet;
  relaxed.reduceRetracing = true;
  auto reduce = *tgc::function(mlp, relaxed);
  FunctionOptions signed_ = quiet;
  signed_.inputSignature =
      std::vector<tracing::TensorSpec>{{DType::F32, {tracing::kDynamic, 16}},
                                       {DType::F32, {16, 32}},
                                       {DType::F32, {32}},
                                       {DType::F32, {32, 4}}};
  auto signature = *tgc::function(mlp, signed_);

  for (int64_t batch : {1, 2, 3, 8, 3, 1}) {
    HostTensor x = randomTensor({batch, 16}, rng);
    auto a = exact(x, w1, b1, w2);
    auto b = reduce(x, w1, b1, w2);
    auto c = signature(x, w1, b1, w2);
    if (!a.ok() || !b.ok() || !c.ok()) {
      std::cerr << "error: "
                << (!a.ok()   ? a.status()
                    : !b.ok() ? b.status()
                              : c.status())
                       .ToString()
                << "\n";
      return 1;
    }
    if (!runtime::allClose(*a, *b, 1e-6, 1e-7).ok() ||
        !runtime::allClose(*a, *c, 1e-6, 1e-7).ok()) {
      std::cerr << "error: the specializations disagree\n";
      return 1;
    }
    std::cout << "  batch " << batch << " -> " << a->describe()
              << ", row 0 sums to "
              << fixed(6, a->getDouble(0) + a->getDouble(1) + a->getDouble(2) +
                              a->getDouble(3))
              << "\n";
  }
  printHistory("default policy", exact);
  printHistory("reduce_retracing", reduce);
  printHistory("input_signature [?x16]", signature);

  std::cout << "\nThe relaxed specialization, with the user's source "
               "locations:\n"
            << reduce.specializations().back().printModule(true) << "\n";
  return exact.tracingCount() == 4 && reduce.tracingCount() == 2 &&
                 signature.tracingCount() == 1
             ? 0
             : 1;
}
