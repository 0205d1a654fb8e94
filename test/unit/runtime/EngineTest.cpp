//===- EngineTest.cpp - CompiledModel / InferRequest streams --------------===//
//
// The engine (include/tgc/Engine.h) over a test model source: stream sizing,
// the process-wide thread budget, request states and their errors,
// callbacks and output buffers. The compiled paths (ONNX, traced functions,
// artifacts) are tested in the frontend and onnx suites.
//
//===----------------------------------------------------------------------===//

#include "runtime/EngineInternal.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

/// Requests running at once, over every TestSource.
std::atomic<int> running{0};
std::atomic<int> mostRunning{0};

/// y = 2 * x for x of 4 floats, after `delay`; x[0] < 0 is an error. It
/// writes no result buffer (the engine copies into it, as for a device
/// backend).
class TestSource : public detail::ModelSource {
public:
  explicit TestSource(std::chrono::milliseconds delay) : delay(delay) {
    inputs = {TensorInfo{"x", DType::F32, {4}}};
    outputs = {TensorInfo{"y", DType::F32, {4}}};
  }

  absl::StatusOr<std::vector<HostTensor>>
  run(const std::vector<HostTensor> &args,
      const runtime::RunOptions &options) const override {
    int now = ++running;
    int seen = mostRunning.load();
    while (now > seen && !mostRunning.compare_exchange_weak(seen, now)) {
    }
    threadsSeen = options.numThreads;
    std::this_thread::sleep_for(delay);
    --running;
    if (args.size() != 1 || args[0].shape() != std::vector<int64_t>{4})
      return absl::InvalidArgumentError("bad arguments");
    if (args[0].dataAs<float>()[0] < 0)
      return absl::InvalidArgumentError("negative input");
    HostTensor y = *HostTensor::allocate(DType::F32, {4});
    for (int i = 0; i < 4; ++i)
      y.dataAs<float>()[i] = 2 * args[0].dataAs<float>()[i];
    return std::vector<HostTensor>{y};
  }
  std::string describe() const override { return "test plan\n"; }

  std::chrono::milliseconds delay;
  mutable std::atomic<int> threadsSeen{0};
};

HostTensor vector4(float first) {
  HostTensor x = *HostTensor::allocate(DType::F32, {4});
  for (int i = 0; i < 4; ++i)
    x.dataAs<float>()[i] = first + static_cast<float>(i);
  return x;
}

CompiledModel testModel(int streams, int threads,
                        std::chrono::milliseconds delay = {},
                        std::shared_ptr<TestSource> *sourceOut = nullptr) {
  auto source = std::make_shared<TestSource>(delay);
  if (sourceOut)
    *sourceOut = source;
  return detail::makeCompiledModel(source, PerformanceHint::Throughput,
                                   StreamConfig{streams, threads});
}

StreamConfig plan(PerformanceHint hint, int cores, int budget, int streams = 0,
                  int threads = 0, int compiled = 0) {
  EngineOptions options;
  options.hint = hint;
  options.streams = streams;
  options.threadsPerStream = threads;
  auto config = detail::planStreams(options, cores, budget, compiled);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.value_or(StreamConfig{});
}

::testing::AssertionResult is(StreamConfig config, int streams, int threads) {
  if (config.streams == streams && config.threadsPerStream == threads)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << config.streams << " x " << config.threadsPerStream
         << " thread(s), expected " << streams << " x " << threads;
}

TEST(Engine, StreamsFollowTheHintAndTheCores) {
  using enum PerformanceHint;
  EXPECT_TRUE(is(plan(Latency, 8, 8), 1, 8));
  EXPECT_TRUE(is(plan(Latency, 2, 2), 1, 2));
  // The budget caps the cores used.
  EXPECT_TRUE(is(plan(Latency, 8, 3), 1, 3));
  // An artifact's compiled thread count is a latency stream's default.
  EXPECT_TRUE(is(plan(Latency, 8, 8, 0, 0, 2), 1, 2));
  EXPECT_TRUE(is(plan(Throughput, 2, 2), 2, 1));
  EXPECT_TRUE(is(plan(Throughput, 4, 4), 4, 1));
  EXPECT_TRUE(is(plan(Throughput, 8, 8), 4, 2));
  EXPECT_TRUE(is(plan(Throughput, 32, 32), 8, 4));
  EXPECT_TRUE(is(plan(Throughput, 16, 4), 4, 1));
  // Explicit counts win.
  EXPECT_TRUE(is(plan(Throughput, 8, 8, 3), 3, 2));
  EXPECT_TRUE(is(plan(Throughput, 8, 8, 0, 4), 2, 4));
  EXPECT_TRUE(is(plan(Latency, 8, 8, 2), 2, 4));

  EngineOptions bad;
  bad.streams = -1;
  auto refused = detail::planStreams(bad, 4, 4);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("must be >= 0"), std::string::npos)
      << refused.status();
  EXPECT_GE(physicalCores(), 1);
  EXPECT_GE(threadBudget(), 1);
}

TEST(Engine, TheThreadBudgetBoundsEveryModelsRequests) {
  // Two models of four single-threaded streams each, sixteen requests in
  // flight: never more running at once than the budget.
  for (int budget : {1, 2}) {
    setThreadBudget(budget);
    EXPECT_EQ(threadBudget(), budget);
    CompiledModel a = testModel(4, 1, std::chrono::milliseconds(3));
    CompiledModel b = testModel(4, 1, std::chrono::milliseconds(3));
    mostRunning = 0;
    std::vector<InferRequest> requests;
    for (int i = 0; i < 16; ++i) {
      requests.push_back((i % 2 ? a : b).createInferRequest());
      ASSERT_TRUE(requests.back().setInput("x", vector4(i)).ok());
      ASSERT_TRUE(requests.back().startAsync().ok());
    }
    for (int i = 0; i < 16; ++i) {
      ASSERT_TRUE(requests[i].wait().ok());
      EXPECT_EQ(requests[i].output("y")->dataAs<float>()[0], 2.0f * i);
    }
    EXPECT_LE(mostRunning.load(), budget);
    if (budget == 2)
      EXPECT_EQ(mostRunning.load(), 2) << "the streams never overlapped";
  }
  // A stream of more threads than the budget runs with the budget.
  setThreadBudget(1);
  std::shared_ptr<TestSource> source;
  CompiledModel wide = testModel(1, 4, {}, &source);
  ASSERT_TRUE(wide.run({vector4(1)}).ok());
  EXPECT_EQ(source->threadsSeen.load(), 1);
  setThreadBudget(0);
  EXPECT_GE(threadBudget(), 1);
}

TEST(Engine, RequestErrorsNameWhatIsWrong) {
  CompiledModel model = testModel(1, 1);
  InferRequest request = model.createInferRequest();
  auto expectError = [](const Status &status, absl::StatusCode code,
                        const std::string &text) {
    EXPECT_EQ(status.code(), code) << status;
    EXPECT_NE(status.message().find(text), std::string::npos) << status;
  };
  expectError(request.setInput("z", vector4(0)),
              absl::StatusCode::kInvalidArgument, "the model has no input 'z'");
  expectError(request.setInput(3, vector4(0)),
              absl::StatusCode::kInvalidArgument,
              "input #3 out of range (the model has 1)");
  expectError(request.setInput("x", *HostTensor::allocate(DType::F32, {5})),
              absl::StatusCode::kInvalidArgument,
              "input 'x' is tensor<4xf32>, got tensor<5xf32>");
  expectError(request.setInput("x", *HostTensor::allocate(DType::I32, {4})),
              absl::StatusCode::kInvalidArgument, "got tensor<4xi32>");
  expectError(request.setOutput("y", *HostTensor::allocate(DType::F32, {2})),
              absl::StatusCode::kInvalidArgument,
              "output 'y' is tensor<4xf32>, the buffer tensor<2xf32>");
  expectError(request.setOutput("w", vector4(0)),
              absl::StatusCode::kInvalidArgument, "no output 'w'");
  expectError(request.startAsync(), absl::StatusCode::kFailedPrecondition,
              "input 'x' is not set");
  expectError(request.output(0).status(), absl::StatusCode::kFailedPrecondition,
              "the request has not run");
  expectError(request.output("w").status(), absl::StatusCode::kInvalidArgument,
              "no output 'w'");
  expectError(model.run({}).status(), absl::StatusCode::kInvalidArgument,
              "expected 1 input, got 0");
  // A request that fails reports it, keeps no results, and runs again.
  ASSERT_TRUE(request.setInput("x", vector4(-5)).ok());
  expectError(request.run(), absl::StatusCode::kInvalidArgument,
              "negative input");
  expectError(request.output(0).status(), absl::StatusCode::kFailedPrecondition,
              "the request failed: negative input");
  ASSERT_TRUE(request.setInput("x", vector4(1)).ok());
  ASSERT_TRUE(request.run().ok());
  EXPECT_EQ(request.output(0)->dataAs<float>()[3], 8.0f);
}

TEST(Engine, AsyncRequestsCallBackAndWait) {
  CompiledModel model = testModel(2, 1, std::chrono::milliseconds(50));
  InferRequest request = model.createInferRequest();
  ASSERT_TRUE(request.setInput(0, vector4(1)).ok());
  std::atomic<int> called{0};
  Status seen = absl::UnknownError("not called");
  request.setCallback([&](const Status &status) {
    seen = status;
    ++called;
  });
  EXPECT_TRUE(request.wait().ok()) << "a request never started is done";
  ASSERT_TRUE(request.startAsync().ok());
  EXPECT_TRUE(request.busy());
  // Running: no rebinding, no second start, no results.
  EXPECT_EQ(request.startAsync().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(request.setInput(0, vector4(2)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(request.output(0).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(request.waitFor(std::chrono::milliseconds(1)));
  ASSERT_TRUE(request.wait().ok());
  EXPECT_FALSE(request.busy());
  EXPECT_EQ(called.load(), 1) << "the callback runs before wait() returns";
  EXPECT_TRUE(seen.ok()) << seen;
  EXPECT_EQ(request.output(0)->dataAs<float>()[0], 2.0f);

  // A callback that throws: the request reports it.
  request.setCallback([](const Status &) { throw std::runtime_error("boom"); });
  ASSERT_TRUE(request.startAsync().ok());
  Status threw = request.wait();
  EXPECT_EQ(threw.code(), absl::StatusCode::kInternal) << threw;
  EXPECT_NE(threw.message().find("callback threw: boom"), std::string::npos)
      << threw;

  // A callback may not wait for its own request, but may start it again.
  std::atomic<int> rounds{0};
  Status waited;
  request.setCallback([&](const Status &) {
    if (++rounds == 1) {
      waited = request.wait();
      (void)request.startAsync();
    }
  });
  ASSERT_TRUE(request.startAsync().ok());
  for (int i = 0; i < 2000 && rounds.load() < 2; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(request.wait().ok());
  EXPECT_EQ(rounds.load(), 2);
  EXPECT_EQ(waited.code(), absl::StatusCode::kFailedPrecondition) << waited;

  // A request deleted in its own callback, with the model released first:
  // the stream finishes it and the model goes afterwards.
  std::atomic<bool> released{false};
  {
    auto *owned = new InferRequest(model.createInferRequest());
    ASSERT_TRUE(owned->setInput(0, vector4(3)).ok());
    owned->setCallback([&released, owned](const Status &) {
      delete owned;
      released = true;
    });
    model = testModel(1, 1);
    ASSERT_TRUE(owned->startAsync().ok());
  }
  for (int i = 0; i < 2000 && !released; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  EXPECT_TRUE(released.load());
}

TEST(Engine, OutputBuffersReceiveTheResults) {
  CompiledModel model = testModel(1, 1);
  InferRequest request = model.createInferRequest();
  float storage[4] = {0, 0, 0, 0};
  HostTensor buffer = *HostTensor::borrow(DType::F32, {4}, storage);
  ASSERT_TRUE(request.setInput("x", vector4(10)).ok());
  ASSERT_TRUE(request.setOutput("y", buffer).ok());
  ASSERT_TRUE(request.run().ok());
  EXPECT_EQ(storage[0], 20.0f);
  EXPECT_EQ(storage[3], 26.0f);
  EXPECT_EQ(request.output("y")->data(), static_cast<void *>(storage));
  EXPECT_NE(model.describe().find("streams: 1 x 1 thread(s)"),
            std::string::npos)
      << model.describe();
}

} // namespace
