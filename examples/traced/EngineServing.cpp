//===- EngineServing.cpp - a CompiledModel serving requests ---------------===//
//
// The deployment API (tgc/Engine.h, docs/deploy.md): a traced MLP compiled
// into a CompiledModel with the latency and the throughput hint, serving
// the same 400 requests (async, a callback each, results written into the
// caller's buffers) with both; then the strict determinism contract
// (docs/determinism.md): bitwise the same result at 1 and 2 threads.
// Exits non-zero when a result is off.
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

static HostTensor patterned(std::vector<int64_t> shape, int seed) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, 0.001 * static_cast<double>((i * 37 + seed) % 201) - 0.1);
  return t;
}

static bool sameBytes(const HostTensor &a, const HostTensor &b) {
  return a.shape() == b.shape() &&
         std::memcmp(a.data(), b.data(), a.byteSize()) == 0;
}

int main() {
  auto mlp = [](Tensor x, Tensor w1, Tensor w2) {
    return matmul(relu(matmul(x, w1)), w2);
  };
  FunctionOptions functionOptions;
  functionOptions.name = "mlp";
  auto f = tgc::function(mlp, functionOptions);
  if (!f.ok()) {
    std::fprintf(stderr, "%s\n", f.status().ToString().c_str());
    return 1;
  }
  using tracing::TensorSpec;
  auto concrete = f->concreteFunction(TensorSpec{DType::F32, {16, 784}},
                                      TensorSpec{DType::F32, {784, 512}},
                                      TensorSpec{DType::F32, {512, 10}});
  if (!concrete.ok()) {
    std::fprintf(stderr, "%s\n", concrete.status().ToString().c_str());
    return 1;
  }
  HostTensor x = patterned({16, 784}, 1), w1 = patterned({784, 512}, 2),
             w2 = patterned({512, 10}, 3);
  std::printf("physical cores %d, thread budget %d\n", physicalCores(),
              threadBudget());

  constexpr int kRequests = 400;
  for (PerformanceHint hint :
       {PerformanceHint::Latency, PerformanceHint::Throughput}) {
    EngineOptions options;
    options.hint = hint;
    auto model = concrete->compile(options);
    if (!model.ok()) {
      std::fprintf(stderr, "%s\n", model.status().ToString().c_str());
      return 1;
    }
    auto expected = model->run({x, w1, w2});
    if (!expected.ok())
      return 1;
    // One request (and one output buffer) per stream, each restarted from
    // its callback until all requests are sent.
    StreamConfig config = model->streamConfig();
    std::vector<InferRequest> requests;
    std::vector<std::vector<float>> buffers(config.streams,
                                            std::vector<float>(16 * 10));
    std::atomic<int> sent{0}, done{0}, wrong{0};
    auto start = std::chrono::steady_clock::now();
    for (int s = 0; s < config.streams; ++s) {
      requests.push_back(model->createInferRequest());
      InferRequest &request = requests.back();
      (void)request.setInput("input0", x);
      (void)request.setInput("input1", w1);
      (void)request.setInput("input2", w2);
      (void)request.setOutput(
          "output0",
          *HostTensor::borrow(DType::F32, {16, 10}, buffers[s].data()));
    }
    for (int s = 0; s < config.streams; ++s) {
      InferRequest *request = &requests[s];
      request->setCallback([&, request, s](const Status &status) {
        HostTensor y =
            *HostTensor::borrow(DType::F32, {16, 10}, buffers[s].data());
        if (!status.ok() || !sameBytes(y, (*expected)[0]))
          ++wrong;
        ++done;
        if (sent.fetch_add(1) < kRequests)
          (void)request->startAsync();
      });
      if (sent.fetch_add(1) < kRequests)
        (void)requests[s].startAsync();
    }
    while (done.load() < kRequests)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    for (InferRequest &request : requests)
      (void)request.wait();
    double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    std::printf("%-10s hint: %d stream(s) x %d thread(s), %d requests, "
                "%.0f requests/s, %d wrong\n",
                toString(hint), config.streams, config.threadsPerStream,
                done.load(), done.load() / seconds, wrong.load());
    if (wrong.load() != 0 || done.load() != kRequests)
      return 1;
  }

  // Strict determinism: bitwise the same at 1 and 2 intra-op threads.
  std::vector<HostTensor> results;
  for (int threads : {1, 2}) {
    EngineOptions options;
    options.threadsPerStream = threads;
    options.determinism = Determinism::Strict;
    auto model = concrete->compile(options);
    if (!model.ok())
      return 1;
    auto y = model->run({x, w1, w2});
    if (!y.ok())
      return 1;
    results.push_back((*y)[0]);
  }
  bool equal = sameBytes(results[0], results[1]);
  std::printf("strict determinism: 1 thread vs 2 threads %s\n",
              equal ? "bitwise equal" : "DIFFER");
  return equal ? 0 : 1;
}
