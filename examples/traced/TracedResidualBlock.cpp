//===- TracedResidualBlock.cpp - a traced ResNet-style block --------------===//
//
// conv-bn-relu-conv-bn + identity, relu: the basic block of ResNet, traced
// with tgc::function and called with varying batch sizes under
// reduce_retracing. A shape error in user code is reported at its line.
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

static HostTensor randomTensor(std::vector<int64_t> shape, std::mt19937 &rng,
                               double lo = -0.5, double hi = 0.5) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  std::uniform_real_distribution<double> dist(lo, hi);
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, dist(rng));
  return t;
}

struct BatchNormParams {
  HostTensor scale, bias, mean, variance;
};

int main() {
  constexpr int64_t kChannels = 8;
  std::mt19937 rng(1);
  HostTensor w1 = randomTensor({kChannels, kChannels, 3, 3}, rng);
  HostTensor w2 = randomTensor({kChannels, kChannels, 3, 3}, rng);
  auto bnParams = [&] {
    return std::vector<HostTensor>{randomTensor({kChannels}, rng, 0.5, 1.5),
                                   randomTensor({kChannels}, rng),
                                   randomTensor({kChannels}, rng),
                                   randomTensor({kChannels}, rng, 0.5, 1.5)};
  };
  std::vector<HostTensor> bn1 = bnParams(), bn2 = bnParams();

  auto block = [](Tensor x, Tensor w1, const std::vector<Tensor> &bn1,
                  Tensor w2, const std::vector<Tensor> &bn2) {
    Conv2DOptions same{.padding = {1, 1}};
    Tensor y = conv2d(x, w1, same);
    y = relu(batchNorm(y, bn1[0], bn1[1], bn1[2], bn1[3]));
    y = conv2d(y, w2, same);
    y = batchNorm(y, bn2[0], bn2[1], bn2[2], bn2[3]);
    return relu(y + x);
  };

  FunctionOptions options;
  options.name = "residual_block";
  options.reduceRetracing = true;
  options.verbose = true;
  options.log = [](const std::string &line) {
    std::cout << "  " << line << "\n";
  };
  auto f = *tgc::function(block, options);

  std::cout
      << "A ResNet basic block (8 channels, 6x6) under reduce_retracing:\n";
  for (int64_t batch : {1, 2, 4, 2}) {
    HostTensor x = randomTensor({batch, kChannels, 6, 6}, rng);
    auto y = f(x, w1, bn1, w2, bn2);
    if (!y.ok()) {
      std::cerr << "error: " << y.status().ToString() << "\n";
      return 1;
    }
    double sum = 0;
    bool nonNegative = true;
    for (int64_t i = 0; i < y->numElements(); ++i) {
      sum += y->getDouble(i);
      nonNegative &= y->getDouble(i) >= 0;
    }
    std::cout << "  batch " << batch << " -> " << y->describe() << ", mean "
              << fixed(5, sum / y->numElements())
              << (nonNegative ? " (all >= 0 after the final relu)"
                              : " (NEGATIVE?)")
              << "\n";
    if (!nonNegative)
      return 1;
  }
  std::cout << "  " << f.tracingCount() << " traces, specializations:\n";
  for (const auto &spec : f.specializations())
    std::cout << "    " << spec.signature << ": " << spec.hits
              << " call(s), traced in " << fixed(2, spec.traceSeconds * 1e3)
              << " ms\n";

  std::cout << "\nA channel mismatch is reported at the user's line:\n";
  HostTensor wrong = randomTensor({kChannels, 3, 3, 3}, rng);
  auto bad = f(randomTensor({1, kChannels, 6, 6}, rng), wrong, bn1, w2, bn2);
  std::cout << "  "
            << (bad.ok() ? std::string("unexpected success")
                         : std::string(bad.status().message()))
            << "\n";
  return bad.ok() || f.tracingCount() != 3 ? 1 : 0;
}
