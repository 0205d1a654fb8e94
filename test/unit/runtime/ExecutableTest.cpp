//===- ExecutableTest.cpp - tests for runtime/Executable.h ----------------===//

#include "runtime/Executable.h"
#include "runtime/Environment.h"
#include "tgc/AbslStatus.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <set>
#include <string_view>
#include <thread>

using namespace tgc::runtime;
using ::testing::HasSubstr;

namespace {

//===----------------------------------------------------------------------===//
// Test kernels
//===----------------------------------------------------------------------===//

/// out[i] = in0[i] * scale + bias (f32). In-place capable when asked.
class AffineKernel : public Kernel {
public:
  AffineKernel(float scale, float bias, bool inPlace = false)
      : scale(scale), bias(bias), inPlace(inPlace) {}
  std::string_view name() const override { return "test.affine"; }
  absl::Status run(const KernelContext &, const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) const override {
    const float *x = in[0].dataAs<float>();
    float *y = out[0].dataAs<float>();
    for (int64_t i = 0; i < out[0].numElements(); ++i)
      y[i] = x[i] * scale + bias;
    return absl::OkStatus();
  }
  bool canRunInPlace(size_t index) const override {
    return inPlace && index == 0;
  }

private:
  float scale, bias;
  bool inPlace;
};

/// Writes nothing; counts its runs.
class CountingKernel : public Kernel {
public:
  std::string_view name() const override { return "test.count"; }
  absl::Status run(const KernelContext &, const std::vector<HostTensor> &,
                   std::vector<HostTensor> &) const override {
    ++runs;
    return absl::OkStatus();
  }
  mutable std::atomic<int> runs{0};
};

/// AffineKernel that remembers where it wrote its output last.
class RecordingAffineKernel : public AffineKernel {
public:
  RecordingAffineKernel(float scale, float bias) : AffineKernel(scale, bias) {}
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) const override {
    lastOutput.store(out[0].data());
    return AffineKernel::run(context, in, out);
  }
  mutable std::atomic<void *> lastOutput{nullptr};
};

/// out = in0 + in1 (f32, same shapes).
class AddKernel : public Kernel {
public:
  explicit AddKernel(bool inPlace = false) : inPlace(inPlace) {}
  std::string_view name() const override { return "test.add"; }
  absl::Status run(const KernelContext &, const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) const override {
    const float *a = in[0].dataAs<float>();
    const float *b = in[1].dataAs<float>();
    float *y = out[0].dataAs<float>();
    for (int64_t i = 0; i < out[0].numElements(); ++i)
      y[i] = a[i] + b[i];
    return absl::OkStatus();
  }
  bool canRunInPlace(size_t) const override { return inPlace; }

private:
  bool inPlace;
};

/// Counts its calls; copies input 0 to output 0 when both exist.
class RecordingKernel : public Kernel {
public:
  std::string_view name() const override { return "test.record"; }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) const override {
    calls.fetch_add(1);
    lastThreads.store(context.numThreads);
    if (!in.empty() && !out.empty())
      std::memcpy(out[0].data(), in[0].data(), out[0].byteSize());
    return absl::OkStatus();
  }
  mutable std::atomic<int> calls{0};
  mutable std::atomic<int> lastThreads{0};
};

class NoOpKernel : public Kernel {
public:
  std::string_view name() const override { return "test.noop"; }
  absl::Status run(const KernelContext &, const std::vector<HostTensor> &,
                   std::vector<HostTensor> &) const override {
    return absl::OkStatus();
  }
};

class FailingKernel : public Kernel {
public:
  std::string_view name() const override { return "test.fail"; }
  absl::Status run(const KernelContext &, const std::vector<HostTensor> &,
                   std::vector<HostTensor> &) const override {
    return absl::InvalidArgumentError("boom");
  }
};

/// i32: out[i] = (sum_k in_k[i % n_k] * (k + 1) + salt) % 1000. Reads each
/// element before writing it, so it may run in place on any input of the
/// output's size.
class MixKernel : public Kernel {
public:
  MixKernel(int32_t salt, std::vector<int64_t> inputSizes, int64_t outputSize)
      : salt(salt), inputSizes(std::move(inputSizes)), outputSize(outputSize) {}
  std::string_view name() const override { return "test.mix"; }
  absl::Status run(const KernelContext &, const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) const override {
    int32_t *y = out[0].dataAs<int32_t>();
    for (int64_t i = 0; i < outputSize; ++i) {
      int64_t sum = salt;
      for (size_t k = 0; k < in.size(); ++k)
        sum += in[k].dataAs<int32_t>()[i % in[k].numElements()] *
               static_cast<int64_t>(k + 1);
      y[i] = static_cast<int32_t>(sum % 1000);
    }
    return absl::OkStatus();
  }
  bool canRunInPlace(size_t index) const override {
    return inputSizes[index] == outputSize;
  }

private:
  int32_t salt;
  std::vector<int64_t> inputSizes;
  int64_t outputSize;
};

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// Builds plans value by value.
struct PlanBuilder {
  Executable plan;

  int64_t add(DType dtype, std::vector<int64_t> shape, ValueStorage storage) {
    ValueInfo info;
    info.dtype = dtype;
    info.shape = std::move(shape);
    info.storage = storage;
    plan.values.push_back(std::move(info));
    return static_cast<int64_t>(plan.values.size()) - 1;
  }
  int64_t input(std::vector<int64_t> shape, DType dtype = DType::F32) {
    int64_t id = add(dtype, std::move(shape),
                     {ValueStorage::Kind::Input,
                      static_cast<int64_t>(plan.inputs.size()), 0});
    plan.inputs.push_back(id);
    return id;
  }
  int64_t arena(std::vector<int64_t> shape, DType dtype = DType::F32) {
    return add(dtype, std::move(shape), {ValueStorage::Kind::Arena, 0, 0});
  }
  int64_t constant(HostTensor tensor) {
    int64_t id = add(tensor.dtype(), tensor.shape(),
                     {ValueStorage::Kind::Constant,
                      static_cast<int64_t>(plan.constants.size()), 0});
    plan.constants.push_back(std::move(tensor));
    return id;
  }
  int64_t view(int64_t target, std::vector<int64_t> shape) {
    DType dtype = plan.values[static_cast<size_t>(target)].dtype;
    return add(dtype, std::move(shape), {ValueStorage::Kind::View, target, 0});
  }
  void step(std::shared_ptr<const Kernel> kernel, std::vector<int64_t> inputs,
            std::vector<int64_t> outputs, std::string op = "tgc.op",
            std::string path = "native") {
    Step step;
    step.kernel = std::move(kernel);
    step.inputs = std::move(inputs);
    step.outputs = std::move(outputs);
    step.op = std::move(op);
    step.path = std::move(path);
    plan.steps.push_back(std::move(step));
  }
  /// Plans memory, verifies and returns the plan.
  Executable finish() {
    absl::Status planned = planMemory(plan);
    EXPECT_TRUE(planned.ok()) << planned;
    absl::Status verified = plan.verify();
    EXPECT_TRUE(verified.ok()) << verified << "\n" << plan.describe();
    return plan;
  }
};

HostTensor tensorOf(std::vector<int64_t> shape, std::vector<float> data) {
  absl::StatusOr<HostTensor> tensor =
      HostTensor::allocate(DType::F32, std::move(shape));
  EXPECT_TRUE(tensor.ok());
  EXPECT_EQ(static_cast<size_t>(tensor->numElements()), data.size());
  std::copy(data.begin(), data.end(), tensor->dataAs<float>());
  return *std::move(tensor);
}

std::vector<float> elementsOf(const HostTensor &tensor) {
  const float *data = tensor.dataAs<float>();
  return std::vector<float>(data, data + tensor.numElements());
}

int64_t bytesOf(const ValueInfo &info) {
  int64_t bytes = static_cast<int64_t>(dtypeSize(info.dtype));
  for (int64_t d : info.shape)
    bytes *= d;
  return bytes;
}

/// x -> a = 2x + 1 -> b = a - 3 (in place allowed) -> c = a + b.
Executable threeStepPlan() {
  PlanBuilder b;
  int64_t x = b.input({4});
  int64_t a = b.arena({4}), bb = b.arena({4}), c = b.arena({4});
  b.step(std::make_shared<AffineKernel>(2, 1), {x}, {a}, "tgc.affine at f:1:1");
  b.step(std::make_shared<AffineKernel>(1, -3, true), {a}, {bb},
         "tgc.sub at f:2:1");
  b.step(std::make_shared<AddKernel>(true), {a, bb}, {c}, "tgc.add at f:3:1");
  b.plan.outputs = {c};
  return b.finish();
}

//===----------------------------------------------------------------------===//
// Running
//===----------------------------------------------------------------------===//

TEST(ExecutableTest, RunsThreeStepsEndToEnd) {
  Executable plan = threeStepPlan();
  HostTensor x = tensorOf({4}, {0, 1, 2, 3});
  absl::StatusOr<std::vector<HostTensor>> results = plan.run({x});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 1u);
  EXPECT_TRUE((*results)[0].isOwned());
  EXPECT_EQ((*results)[0].shape(), std::vector<int64_t>({4}));
  // a = 2x+1 = 1,3,5,7; b = a-3 = -2,0,2,4; c = -1,3,7,11.
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({-1, 3, 7, 11}));

  // A second run reuses the cached state and sees new inputs.
  HostTensor y = tensorOf({4}, {1, 1, 1, 1});
  results = plan.run({y});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({3, 3, 3, 3}));
}

TEST(ExecutableTest, ArgumentMismatchesAreCaughtBeforeAnyKernelRuns) {
  auto kernel = std::make_shared<RecordingKernel>();
  PlanBuilder b;
  int64_t x = b.input({4, 8});
  int64_t y = b.input({4, 8});
  int64_t out = b.arena({4, 8});
  b.step(kernel, {x, y}, {out});
  b.plan.outputs = {out};
  Executable plan = b.finish();

  HostTensor good = *HostTensor::allocate(DType::F32, {4, 8});
  HostTensor wide = *HostTensor::allocate(DType::F32, {4, 9});
  HostTensor ints = *HostTensor::allocate(DType::I32, {4, 8});
  HostTensor flat = *HostTensor::allocate(DType::F32, {32});

  absl::StatusOr<std::vector<HostTensor>> results = plan.run({good});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(results.status().message(),
              HasSubstr("expected 2 arguments, got 1"));

  results = plan.run({good, wide});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(results.status().message(),
            "argument #1: expected tensor<4x8xf32>, got tensor<4x9xf32>");

  results = plan.run({ints, good});
  EXPECT_EQ(results.status().message(),
            "argument #0: expected tensor<4x8xf32>, got tensor<4x8xi32>");

  results = plan.run({good, flat});
  EXPECT_EQ(results.status().message(),
            "argument #1: expected tensor<4x8xf32>, got tensor<32xf32>");

  results = plan.run({good, good, good});
  EXPECT_FALSE(results.ok());
  EXPECT_EQ(kernel->calls.load(), 0);

  results = plan.run({good, good});
  EXPECT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(kernel->calls.load(), 1);
}

TEST(ExecutableTest, KernelErrorsNameTheOp) {
  PlanBuilder b;
  int64_t x = b.input({2});
  int64_t a = b.arena({2}), c = b.arena({2});
  b.step(std::make_shared<AffineKernel>(1, 1), {x}, {a}, "tgc.first at m:1:2");
  b.step(std::make_shared<FailingKernel>(), {a}, {c}, "tgc.second at m:2:3");
  b.plan.outputs = {c};
  Executable plan = b.finish();
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({2}, {1, 2})});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(results.status().message(), "tgc.second at m:2:3: boom");
}

TEST(ExecutableTest, OutputsAreFreshCopiesEvenOfInputsAndConstants) {
  PlanBuilder b;
  int64_t x = b.input({3});
  int64_t k = b.constant(tensorOf({3}, {7, 8, 9}));
  int64_t a = b.arena({3});
  b.step(std::make_shared<AddKernel>(), {x, k}, {a});
  b.plan.outputs = {x, k, a, a};
  Executable plan = b.finish();
  HostTensor input = tensorOf({3}, {1, 2, 3});
  absl::StatusOr<std::vector<HostTensor>> results = plan.run({input});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 4u);
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({1, 2, 3}));
  EXPECT_EQ(elementsOf((*results)[1]), std::vector<float>({7, 8, 9}));
  EXPECT_EQ(elementsOf((*results)[2]), std::vector<float>({8, 10, 12}));
  EXPECT_EQ(elementsOf((*results)[3]), std::vector<float>({8, 10, 12}));
  for (const HostTensor &result : *results)
    EXPECT_TRUE(result.isOwned());
  EXPECT_NE((*results)[0].data(), input.data());
  EXPECT_NE((*results)[1].data(), plan.constants[0].data());
  EXPECT_NE((*results)[2].data(), (*results)[3].data());
}

// Sanitizer allocators abort on impossible sizes instead of returning null.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define TGC_SANITIZED_ALLOCATOR 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define TGC_SANITIZED_ALLOCATOR 1
#endif
#endif

TEST(ExecutableTest, StepOutputResultsAreWrittenInPlace) {
  auto kernel = std::make_shared<RecordingAffineKernel>(2, 1);
  PlanBuilder b;
  int64_t x = b.input({2, 3});
  int64_t a = b.arena({2, 3});
  b.step(kernel, {x}, {a});
  b.plan.outputs = {a};
  auto plan = std::make_unique<Executable>(b.finish());

  absl::StatusOr<std::vector<HostTensor>> first =
      plan->run({tensorOf({2, 3}, {0, 1, 2, 3, 4, 5})});
  ASSERT_TRUE(first.ok()) << first.status();
  HostTensor &r1 = (*first)[0];
  EXPECT_TRUE(r1.isOwned());
  EXPECT_EQ(r1.shape(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(r1.data(), kernel->lastOutput.load()); // no copy
  EXPECT_EQ(reinterpret_cast<uintptr_t>(r1.data()) % 64, 0u);
  EXPECT_EQ(elementsOf(r1), std::vector<float>({1, 3, 5, 7, 9, 11}));

  // A second run, the first result still alive: its own storage, and the
  // first result is untouched.
  absl::StatusOr<std::vector<HostTensor>> second =
      plan->run({tensorOf({2, 3}, {1, 1, 1, 1, 1, 1})});
  ASSERT_TRUE(second.ok()) << second.status();
  HostTensor &r2 = (*second)[0];
  EXPECT_NE(r2.data(), r1.data());
  EXPECT_EQ(r2.data(), kernel->lastOutput.load());
  EXPECT_EQ(elementsOf(r2), std::vector<float>(6, 3));
  EXPECT_EQ(elementsOf(r1), std::vector<float>({1, 3, 5, 7, 9, 11}));

  // Results outlive the executable and its arena.
  plan.reset();
  EXPECT_EQ(elementsOf(r1), std::vector<float>({1, 3, 5, 7, 9, 11}));
  EXPECT_EQ(elementsOf(r2), std::vector<float>(6, 3));
}

TEST(ExecutableTest, ResultBuffersAreWrittenByTheKernel) {
  auto kernel = std::make_shared<RecordingAffineKernel>(2, 1);
  PlanBuilder b;
  int64_t x = b.input({2, 3});
  int64_t a = b.arena({2, 3});
  b.step(kernel, {x}, {a});
  b.plan.outputs = {a, x};
  Executable plan = b.finish();
  HostTensor input = tensorOf({2, 3}, {0, 1, 2, 3, 4, 5});
  std::vector<float> first(6, -1), second(6, -1);
  HostTensor buffer = *HostTensor::borrow(DType::F32, {2, 3}, first.data());
  HostTensor copyBuffer =
      *HostTensor::borrow(DType::F32, {2, 3}, second.data());
  std::vector<HostTensor *> buffers = {&buffer, &copyBuffer};
  RunOptions options;
  options.resultBuffers = &buffers;
  auto results = plan.run({input}, options);
  ASSERT_TRUE(results.ok()) << results.status();
  // The kernel wrote the caller's buffer; the input result was copied
  // into the second.
  EXPECT_EQ(kernel->lastOutput.load(), static_cast<void *>(first.data()));
  EXPECT_EQ((*results)[0].data(), static_cast<void *>(first.data()));
  EXPECT_FALSE((*results)[0].isOwned());
  EXPECT_EQ(first, std::vector<float>({1, 3, 5, 7, 9, 11}));
  EXPECT_EQ((*results)[1].data(), static_cast<void *>(second.data()));
  EXPECT_EQ(second, std::vector<float>({0, 1, 2, 3, 4, 5}));

  // A null entry allocates.
  buffers = {nullptr, &copyBuffer};
  results = plan.run({input}, options);
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_TRUE((*results)[0].isOwned());

  auto refused = [&](std::vector<HostTensor *> given, const std::string &text) {
    buffers = std::move(given);
    auto run = plan.run({input}, options);
    ASSERT_FALSE(run.ok());
    EXPECT_EQ(run.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(run.status().message().find(text), std::string::npos)
        << run.status();
  };
  HostTensor wrongShape = *HostTensor::allocate(DType::F32, {3, 2});
  refused({&wrongShape}, "result #0: the output buffer is tensor<3x2xf32>, "
                         "the result tensor<2x3xf32>");
  HostTensor overInput = *HostTensor::borrow(DType::F32, {2, 3}, input.data());
  refused({&overInput}, "result #0: the output buffer overlaps argument #0");
  refused({&buffer, &buffer},
          "result #1: the output buffer overlaps result #0's");
  std::vector<uint8_t> bytes(6 * 4 + 1);
  HostTensor misaligned =
      *HostTensor::borrow(DType::F32, {2, 3}, bytes.data() + 1);
  if (reinterpret_cast<uintptr_t>(misaligned.data()) % 4)
    refused({&misaligned}, "not aligned to its element");
}

TEST(ExecutableTest, ViewResultsShareTheStepOutputsStorage) {
  auto kernel = std::make_shared<RecordingAffineKernel>(1, 10);
  PlanBuilder b;
  int64_t x = b.input({6});
  int64_t a = b.arena({6});
  int64_t table = b.view(a, {3, 2});
  int64_t column = b.view(table, {6, 1}); // a chain of views
  b.step(kernel, {x}, {a});
  b.plan.outputs = {table};
  Executable reshaped = b.finish();
  b.plan.outputs = {column};
  Executable chained = b.finish();

  for (const Executable *plan : {&reshaped, &chained}) {
    absl::StatusOr<std::vector<HostTensor>> results =
        plan->run({tensorOf({6}, {0, 1, 2, 3, 4, 5})});
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), 1u);
    const HostTensor &result = (*results)[0];
    EXPECT_EQ(result.shape(), plan == &reshaped ? std::vector<int64_t>({3, 2})
                                                : std::vector<int64_t>({6, 1}));
    EXPECT_TRUE(result.isOwned());
    EXPECT_EQ(result.data(), kernel->lastOutput.load());
    EXPECT_EQ(elementsOf(result), std::vector<float>({10, 11, 12, 13, 14, 15}));
  }

  // A result that is a view of a result, and one result read by a later
  // step: each stays correct.
  PlanBuilder b2;
  int64_t y = b2.input({4});
  int64_t p = b2.arena({4}), q = b2.arena({4});
  int64_t pSquare = b2.view(p, {2, 2});
  b2.step(std::make_shared<AffineKernel>(1, 1), {y}, {p});
  b2.step(std::make_shared<AffineKernel>(1, 1, true), {p}, {q});
  b2.plan.outputs = {pSquare, q, p};
  Executable plan = b2.finish();
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({4}, {0, 1, 2, 3})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].shape(), std::vector<int64_t>({2, 2}));
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({1, 2, 3, 4}));
  EXPECT_EQ(elementsOf((*results)[1]), std::vector<float>({2, 3, 4, 5}));
  EXPECT_EQ(elementsOf((*results)[2]), std::vector<float>({1, 2, 3, 4}));
  EXPECT_NE((*results)[2].data(), (*results)[0].data());
}

TEST(ExecutableTest, ResultsOnTheSameBytesAreSeparateTensors) {
  auto kernel = std::make_shared<RecordingAffineKernel>(1, 1);
  PlanBuilder b;
  int64_t x = b.input({6});
  int64_t a = b.arena({6});
  int64_t square = b.view(a, {2, 3});
  // A view of a's last four elements (bytes 8..24): never zero-copy.
  int64_t tail = b.add(DType::F32, {4}, {ValueStorage::Kind::View, a, 8});
  b.step(kernel, {x}, {a});
  b.plan.outputs = {tail, a, a, square};
  Executable plan = b.finish();
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({6}, {0, 1, 2, 3, 4, 5})});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 4u);
  std::vector<float> expected = {1, 2, 3, 4, 5, 6};
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({3, 4, 5, 6}));
  EXPECT_EQ(elementsOf((*results)[1]), expected);
  EXPECT_EQ(elementsOf((*results)[2]), expected);
  EXPECT_EQ((*results)[3].shape(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ(elementsOf((*results)[3]), expected);
  // The first result on a's full bytes is written in place; the others are
  // copies, so no two results share storage.
  EXPECT_EQ((*results)[1].data(), kernel->lastOutput.load());
  for (size_t i = 0; i < results->size(); ++i) {
    EXPECT_TRUE((*results)[i].isOwned());
    for (size_t j = 0; j < i; ++j)
      EXPECT_NE((*results)[i].data(), (*results)[j].data()) << i << " " << j;
  }
  (*results)[1].dataAs<float>()[0] = 100;
  EXPECT_EQ((*results)[2].dataAs<float>()[0], 1);
  EXPECT_EQ((*results)[3].dataAs<float>()[0], 1);
}

TEST(ExecutableTest, InputAndConstantResultsAreCopies) {
  PlanBuilder b;
  int64_t x = b.input({2, 2});
  int64_t k = b.constant(tensorOf({4}, {7, 8, 9, 10}));
  int64_t xFlat = b.view(x, {4});
  int64_t kSquare = b.view(k, {2, 2});
  int64_t a = b.arena({4});
  b.step(std::make_shared<AddKernel>(), {xFlat, k}, {a});
  b.plan.outputs = {x, k, xFlat, kSquare, a};
  Executable plan = b.finish();
  HostTensor input = tensorOf({2, 2}, {1, 2, 3, 4});
  absl::StatusOr<std::vector<HostTensor>> results = plan.run({input});
  ASSERT_TRUE(results.ok()) << results.status();
  ASSERT_EQ(results->size(), 5u);
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({1, 2, 3, 4}));
  EXPECT_EQ(elementsOf((*results)[1]), std::vector<float>({7, 8, 9, 10}));
  EXPECT_EQ(elementsOf((*results)[2]), std::vector<float>({1, 2, 3, 4}));
  EXPECT_EQ((*results)[3].shape(), std::vector<int64_t>({2, 2}));
  EXPECT_EQ(elementsOf((*results)[3]), std::vector<float>({7, 8, 9, 10}));
  EXPECT_EQ(elementsOf((*results)[4]), std::vector<float>({8, 10, 12, 14}));
  for (int i : {0, 2})
    EXPECT_NE((*results)[static_cast<size_t>(i)].data(), input.data());
  for (int i : {1, 3})
    EXPECT_NE((*results)[static_cast<size_t>(i)].data(),
              plan.constants[0].data());
  // Writing a result touches neither the caller's input nor the constant.
  (*results)[0].dataAs<float>()[0] = -1;
  (*results)[1].dataAs<float>()[0] = -1;
  (*results)[3].dataAs<float>()[1] = -1;
  EXPECT_EQ(input.dataAs<float>()[0], 1);
  EXPECT_EQ(elementsOf(plan.constants[0]), std::vector<float>({7, 8, 9, 10}));
  results = plan.run({input});
  ASSERT_TRUE(results.ok());
  EXPECT_EQ(elementsOf((*results)[1]), std::vector<float>({7, 8, 9, 10}));
}

#ifndef TGC_SANITIZED_ALLOCATOR
TEST(ExecutableTest, HugeResultsAreResourceExhausted) {
  auto kernel = std::make_shared<RecordingKernel>();
  PlanBuilder b;
  int64_t x = b.input({1}, DType::I8);
  int64_t huge = b.arena({int64_t(1) << 61}, DType::I8); // 2 EiB
  b.step(kernel, {x}, {huge});
  b.plan.outputs = {huge};
  Executable plan = b.finish();
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({*HostTensor::allocate(DType::I8, {1})});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kResourceExhausted)
      << results.status();
  EXPECT_EQ(kernel->calls.load(), 0);
}
#endif

TEST(ExecutableTest, PassesTheThreadCountToKernels) {
  auto kernel = std::make_shared<RecordingKernel>();
  PlanBuilder b;
  int64_t x = b.input({1});
  int64_t a = b.arena({1});
  b.step(kernel, {x}, {a});
  b.plan.outputs = {a};
  Executable plan = b.finish();
  RunOptions options;
  options.numThreads = 3;
  ASSERT_TRUE(plan.run({tensorOf({1}, {1})}, options).ok());
  EXPECT_EQ(kernel->lastThreads.load(), 3);
  EXPECT_EQ(omp_get_max_threads(), 3);
  options.numThreads = 1;
  ASSERT_TRUE(plan.run({tensorOf({1}, {1})}, options).ok());
  EXPECT_EQ(kernel->lastThreads.load(), 1);
  EXPECT_EQ(omp_get_max_threads(), 1);
}

TEST(ExecutableTest, ZeroSizeTensorsTakeNoBytes) {
  PlanBuilder b;
  int64_t x = b.input({0, 3});
  int64_t a = b.arena({0, 3}), c = b.arena({0, 3});
  b.step(std::make_shared<AffineKernel>(1, 1), {x}, {a});
  b.step(std::make_shared<AffineKernel>(1, 1), {a}, {c});
  b.plan.outputs = {c};
  Executable plan = b.finish();
  EXPECT_EQ(plan.arenaBytes, 0);
  EXPECT_EQ(plan.values[static_cast<size_t>(a)].storage.offset, 0);
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({*HostTensor::allocate(DType::F32, {0, 3})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ((*results)[0].shape(), std::vector<int64_t>({0, 3}));
}

TEST(ExecutableTest, ConcurrentRunsEachHaveTheirOwnArena) {
  Executable plan = threeStepPlan();
  constexpr int kThreads = 8, kIterations = 300;
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  // Every result is kept alive: no run may write into another's results.
  std::vector<std::vector<HostTensor>> kept(kThreads);
  // c = (2x + 1) + (2x - 2) = 4x - 1.
  auto check = [&](const HostTensor &result, float v) {
    const float *c = result.dataAs<float>();
    for (int i = 0; i < 4; ++i)
      if (c[i] != 4 * (v + static_cast<float>(i)) - 1)
        failures.fetch_add(1);
  };
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int iteration = 0; iteration < kIterations; ++iteration) {
        float v = static_cast<float>(t * 1000 + iteration);
        absl::StatusOr<std::vector<HostTensor>> results =
            plan.run({tensorOf({4}, {v, v + 1, v + 2, v + 3})});
        if (!results.ok()) {
          failures.fetch_add(1);
          kept[static_cast<size_t>(t)].emplace_back();
          continue;
        }
        check((*results)[0], v);
        kept[static_cast<size_t>(t)].push_back((*results)[0]);
      }
    });
  }
  for (std::thread &thread : threads)
    thread.join();
  EXPECT_EQ(failures.load(), 0);
  std::vector<const void *> pointers;
  for (int t = 0; t < kThreads; ++t)
    for (int iteration = 0; iteration < kIterations; ++iteration) {
      const HostTensor &result =
          kept[static_cast<size_t>(t)][static_cast<size_t>(iteration)];
      check(result, static_cast<float>(t * 1000 + iteration));
      pointers.push_back(result.data());
    }
  EXPECT_EQ(failures.load(), 0);
  std::sort(pointers.begin(), pointers.end());
  EXPECT_EQ(std::adjacent_find(pointers.begin(), pointers.end()),
            pointers.end());
}

TEST(ExecutableTest, CopiesGetAnEmptyRunCache) {
  Executable plan = threeStepPlan();
  ASSERT_TRUE(plan.run({tensorOf({4}, {0, 0, 0, 0})}).ok());
  Executable copy = plan;
  // Growing the copy's plan must not confuse the original's cache.
  PlanBuilder b;
  b.plan = copy;
  int64_t d = b.arena({4});
  b.step(std::make_shared<AffineKernel>(10, 0), {b.plan.outputs[0]}, {d});
  b.plan.outputs = {d};
  Executable grown = b.finish();
  absl::StatusOr<std::vector<HostTensor>> results =
      grown.run({tensorOf({4}, {1, 1, 1, 1})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({30, 30, 30, 30}));
  results = plan.run({tensorOf({4}, {1, 1, 1, 1})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({3, 3, 3, 3}));
}

//===----------------------------------------------------------------------===//
// Memory planning
//===----------------------------------------------------------------------===//

TEST(ExecutableTest, PlanMemoryReusesBytesAlongAChain) {
  PlanBuilder b;
  int64_t x = b.input({256});
  int64_t previous = x;
  std::vector<int64_t> intermediates;
  for (int i = 0; i < 10; ++i) {
    int64_t next = b.arena({256});
    b.step(std::make_shared<AffineKernel>(1, 1), {previous}, {next});
    intermediates.push_back(next);
    previous = next;
  }
  b.plan.outputs = {previous};
  Executable plan = b.finish();
  // Without in-place, a chain needs two buffers that alternate.
  EXPECT_EQ(plan.arenaBytes, 2 * 1024);
  EXPECT_LT(plan.arenaBytes, 10 * 1024);
  for (int64_t id : intermediates)
    EXPECT_EQ(plan.values[static_cast<size_t>(id)].storage.offset % 64, 0);
  std::vector<float> zeros(256, 0);
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({256}, zeros)});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>(256, 10));
}

TEST(ExecutableTest, RemoveDeadStepsKeepsWhatResultsNeed) {
  // x -> a (dead: nothing reads it) ; x -> b -> c (result); x -> w writes
  // into a view of buffer d, read by the step making e (result); a step
  // with no outputs stays.
  auto recording = std::make_shared<RecordingAffineKernel>(1, 100);
  PlanBuilder b;
  int64_t x = b.input({64});
  int64_t a = b.arena({1024}), bb = b.arena({64}), c = b.arena({64});
  int64_t d = b.arena({64}), dPart = b.view(d, {64}), e = b.arena({64});
  b.step(recording, {x}, {a}, "tgc.dead");
  b.step(std::make_shared<AffineKernel>(2, 0), {x}, {bb}, "tgc.b");
  b.step(std::make_shared<AffineKernel>(1, 1), {bb}, {c}, "tgc.c");
  b.step(std::make_shared<AffineKernel>(1, 5), {x}, {dPart}, "tgc.part");
  b.step(std::make_shared<AffineKernel>(1, 0), {d}, {e}, "tgc.e");
  auto noOutputs = std::make_shared<CountingKernel>();
  b.step(noOutputs, {x}, {}, "tgc.effect");
  b.plan.outputs = {c, e};
  EXPECT_EQ(removeDeadSteps(b.plan), 1);
  std::vector<std::string> ops;
  for (const Step &step : b.plan.steps)
    ops.push_back(step.op);
  EXPECT_EQ(ops, std::vector<std::string>(
                     {"tgc.b", "tgc.c", "tgc.part", "tgc.e", "tgc.effect"}));
  EXPECT_EQ(removeDeadSteps(b.plan), 0);

  // The dead step's 4 KiB value shares offset 0; the arena still holds it
  // (verify checks every value fits) and the live values do not overlap.
  Executable plan = b.finish();
  EXPECT_EQ(plan.values[static_cast<size_t>(a)].storage.offset, 0);
  EXPECT_GE(plan.arenaBytes, 4096);
  EXPECT_NE(plan.values[static_cast<size_t>(bb)].storage.offset,
            plan.values[static_cast<size_t>(c)].storage.offset);
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({64}, std::vector<float>(64, 1))});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>(64, 3));
  EXPECT_EQ(elementsOf((*results)[1]), std::vector<float>(64, 6));
  EXPECT_EQ(recording->lastOutput.load(), nullptr);
  EXPECT_EQ(noOutputs->runs.load(), 1);
}

TEST(ExecutableTest, ValuesInAnOpaqueLayoutTakeTheLayoutsBytes) {
  // a is kept in a padded layout of 4096 bytes (its kernels know how): the
  // plan gives it that many, and c never overlaps them.
  PlanBuilder b;
  int64_t x = b.input({4});
  int64_t a = b.arena({4}), c = b.arena({4});
  b.plan.values[static_cast<size_t>(a)].layout = "padded";
  b.plan.values[static_cast<size_t>(a)].layoutBytes = 4096;
  b.step(std::make_shared<AffineKernel>(2, 1), {x}, {a});
  b.step(std::make_shared<AffineKernel>(1, 1), {a}, {c});
  b.plan.outputs = {c};
  Executable plan = b.finish();
  ASSERT_TRUE(plan.verify().ok());
  const ValueStorage &sa = plan.values[static_cast<size_t>(a)].storage;
  const ValueStorage &sc = plan.values[static_cast<size_t>(c)].storage;
  EXPECT_GE(plan.arenaBytes, 4096 + 16);
  EXPECT_TRUE(sc.offset >= sa.offset + 4096 || sc.offset + 16 <= sa.offset);
  EXPECT_THAT(plan.describe(), HasSubstr("tensor<4xf32> (padded)"));
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({4}, {1, 2, 3, 4})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), (std::vector<float>{4, 6, 8, 10}));
}

TEST(ExecutableTest, PlanMemoryAlignsOffsets) {
  PlanBuilder b;
  int64_t x = b.input({3});
  int64_t a = b.arena({3}), c = b.arena({3});
  b.step(std::make_shared<AffineKernel>(1, 1), {x}, {a});
  b.step(std::make_shared<AddKernel>(), {x, a}, {c});
  b.plan.outputs = {a, c};
  Executable plan = b.finish();
  EXPECT_EQ(plan.arenaBytes, 128);
  EXPECT_NE(plan.values[static_cast<size_t>(a)].storage.offset,
            plan.values[static_cast<size_t>(c)].storage.offset);
}

TEST(ExecutableTest, InPlaceWhenTheInputDiesThere) {
  PlanBuilder b;
  int64_t x = b.input({8});
  int64_t a = b.arena({8}), c = b.arena({8}), d = b.arena({8});
  b.step(std::make_shared<AffineKernel>(1, 1, true), {x}, {a});
  b.step(std::make_shared<AffineKernel>(2, 0, true), {a}, {c});
  b.step(std::make_shared<AffineKernel>(1, -1, true), {c}, {d});
  b.plan.outputs = {d};
  Executable plan = b.finish();
  // Never in place over a function input; a, c and d share one buffer.
  EXPECT_EQ(plan.arenaBytes, 64);
  EXPECT_EQ(plan.values[static_cast<size_t>(c)].storage.offset,
            plan.values[static_cast<size_t>(a)].storage.offset);
  EXPECT_EQ(plan.values[static_cast<size_t>(d)].storage.offset,
            plan.values[static_cast<size_t>(a)].storage.offset);
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({8}, {0, 1, 2, 3, 4, 5, 6, 7})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]),
            std::vector<float>({1, 3, 5, 7, 9, 11, 13, 15}));
}

TEST(ExecutableTest, NoInPlaceWhenTheInputIsUsedLaterOrNotAllowed) {
  PlanBuilder b;
  int64_t x = b.input({8});
  int64_t a = b.arena({8}), c = b.arena({8}), d = b.arena({8}),
          e = b.arena({8});
  b.step(std::make_shared<AffineKernel>(1, 1), {x}, {a});
  b.step(std::make_shared<AffineKernel>(2, 0, true), {a}, {c}); // a used later
  b.step(std::make_shared<AddKernel>(false), {a, c}, {d}); // kernel says no
  b.step(std::make_shared<AffineKernel>(1, 0, true), {d}, {e}); // d is result
  b.plan.outputs = {d, e};
  Executable plan = b.finish();
  auto offset = [&](int64_t id) {
    return plan.values[static_cast<size_t>(id)].storage.offset;
  };
  EXPECT_NE(offset(a), offset(c));
  EXPECT_NE(offset(d), offset(a));
  EXPECT_NE(offset(d), offset(c));
  EXPECT_NE(offset(e), offset(d));
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({8}, {0, 1, 2, 3, 4, 5, 6, 7})});
  ASSERT_TRUE(results.ok()) << results.status();
  // a = x+1, c = 2a, d = 3a.
  EXPECT_EQ(elementsOf((*results)[0]),
            std::vector<float>({3, 6, 9, 12, 15, 18, 21, 24}));
  EXPECT_EQ(elementsOf((*results)[1]), elementsOf((*results)[0]));
}

TEST(ExecutableTest, ViewsShareBytesAndKeepTheirTargetAlive) {
  PlanBuilder b;
  int64_t x = b.input({4});
  int64_t a = b.arena({4});
  int64_t square = b.view(a, {2, 2});
  int64_t flat = b.view(square, {4}); // a chain of views
  int64_t c = b.arena({4}), d = b.arena({4});
  b.step(std::make_shared<AffineKernel>(1, 1), {x}, {a});
  b.step(std::make_shared<AffineKernel>(1, 2), {x}, {c}); // a not used here
  b.step(std::make_shared<AddKernel>(), {flat, c}, {d});  // ... but its view is
  b.plan.outputs = {d, square};
  Executable plan = b.finish();
  EXPECT_NE(plan.values[static_cast<size_t>(a)].storage.offset,
            plan.values[static_cast<size_t>(c)].storage.offset);
  EXPECT_NE(plan.values[static_cast<size_t>(a)].storage.offset,
            plan.values[static_cast<size_t>(d)].storage.offset);
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({4}, {1, 2, 3, 4})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({5, 7, 9, 11}));
  EXPECT_EQ((*results)[1].shape(), std::vector<int64_t>({2, 2}));
  EXPECT_EQ(elementsOf((*results)[1]), std::vector<float>({2, 3, 4, 5}));
}

TEST(ExecutableTest, ViewsOfInputsAndConstants) {
  PlanBuilder b;
  int64_t x = b.input({2, 3});
  int64_t k = b.constant(tensorOf({6}, {1, 1, 1, 2, 2, 2}));
  int64_t xFlat = b.view(x, {6});
  int64_t kTable = b.view(k, {2, 3});
  int64_t a = b.arena({6});
  b.step(std::make_shared<AddKernel>(), {xFlat, k}, {a});
  b.plan.outputs = {a, kTable, xFlat};
  Executable plan = b.finish();
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({2, 3}, {0, 1, 2, 3, 4, 5})});
  ASSERT_TRUE(results.ok()) << results.status();
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>({1, 2, 3, 5, 6, 7}));
  EXPECT_EQ((*results)[1].shape(), std::vector<int64_t>({2, 3}));
  EXPECT_EQ((*results)[2].shape(), std::vector<int64_t>({6}));
}

/// A random DAG of MixKernel steps over i32 tensors of random sizes, with
/// views; `inPlace` lets kernels run in place.
struct RandomDag {
  Executable plan;
  std::vector<int64_t> sizeOf; ///< elements of each value
  int numInputs = 3;
};

RandomDag makeRandomDag(uint32_t seed, int numSteps) {
  std::mt19937 rng(seed);
  auto uniform = [&](int lo, int hi) {
    return std::uniform_int_distribution<int>(lo, hi)(rng);
  };
  RandomDag dag;
  PlanBuilder b;
  std::vector<int64_t> available; // values steps may read
  const int64_t sizes[] = {1, 3, 16, 17, 64, 100};
  for (int i = 0; i < dag.numInputs; ++i)
    available.push_back(b.input({sizes[uniform(0, 5)]}, DType::I32));
  for (int s = 0; s < numSteps; ++s) {
    int numIn = uniform(1, 3);
    std::vector<int64_t> ins, inSizes;
    for (int k = 0; k < numIn; ++k) {
      // Prefer recent values so that most die soon.
      int64_t pick = available.size() <= 6 || uniform(0, 3) == 0
                         ? available[static_cast<size_t>(
                               uniform(0, int(available.size()) - 1))]
                         : available[available.size() - 1 -
                                     static_cast<size_t>(uniform(0, 5))];
      ins.push_back(pick);
      int64_t elements = 1;
      for (int64_t d : b.plan.values[static_cast<size_t>(pick)].shape)
        elements *= d;
      inSizes.push_back(elements);
    }
    // Often the size of the first input, so that in-place is possible.
    int64_t outSize = uniform(0, 1) ? inSizes[0] : sizes[uniform(0, 5)];
    int64_t out = b.arena({outSize}, DType::I32);
    b.step(std::make_shared<MixKernel>(s, inSizes, outSize), ins, {out},
           "tgc.mix");
    available.push_back(out);
    if (uniform(0, 4) == 0) // a view of the new value, read later
      available.push_back(b.view(out, {1, outSize}));
  }
  for (int i = 0; i < 3; ++i)
    b.plan.outputs.push_back(
        available[static_cast<size_t>(uniform(0, int(available.size()) - 1))]);
  b.plan.outputs.push_back(available.back());
  dag.plan = b.finish();
  return dag;
}

/// Evaluates the DAG with a separate buffer per value.
std::vector<std::vector<int32_t>>
evaluateDirectly(const Executable &plan, const std::vector<HostTensor> &args) {
  std::vector<HostTensor> tensors(plan.values.size());
  for (size_t i = 0; i < args.size(); ++i)
    tensors[static_cast<size_t>(plan.inputs[i])] = args[i].clone();
  auto materialize = [&](int64_t id) -> HostTensor & {
    const ValueInfo &info = plan.values[static_cast<size_t>(id)];
    if (info.storage.kind == ValueStorage::Kind::View)
      tensors[static_cast<size_t>(id)] = *HostTensor::borrow(
          info.dtype, info.shape,
          tensors[static_cast<size_t>(info.storage.index)].data());
    return tensors[static_cast<size_t>(id)];
  };
  for (const Step &step : plan.steps) {
    std::vector<HostTensor> ins, outs;
    for (int64_t id : step.inputs)
      ins.push_back(materialize(id));
    for (int64_t id : step.outputs) {
      const ValueInfo &info = plan.values[static_cast<size_t>(id)];
      tensors[static_cast<size_t>(id)] =
          *HostTensor::allocate(info.dtype, info.shape);
      outs.push_back(tensors[static_cast<size_t>(id)]);
    }
    EXPECT_TRUE(step.kernel->run(KernelContext{}, ins, outs).ok());
  }
  std::vector<std::vector<int32_t>> results;
  for (int64_t id : plan.outputs) {
    HostTensor &tensor = materialize(id);
    const int32_t *data = tensor.dataAs<int32_t>();
    results.emplace_back(data, data + tensor.numElements());
  }
  return results;
}

TEST(ExecutableTest, PlanMemoryNeverOverlapsLiveValuesInARandomDag) {
  int totalAliasedPairs = 0, totalViews = 0;
  for (uint32_t seed = 1; seed <= 20; ++seed) {
    SCOPED_TRACE(seed);
    RandomDag dag = makeRandomDag(seed, 50);
    const Executable &plan = dag.plan;
    size_t n = plan.values.size();
    int64_t end = static_cast<int64_t>(plan.steps.size());

    // Live ranges recomputed independently: a value's bytes are live from
    // its defining step to its last use (a use of a view counts for its
    // target); results live to the end.
    auto rootOf = [&](int64_t id) {
      while (plan.values[static_cast<size_t>(id)].storage.kind ==
             ValueStorage::Kind::View)
        id = plan.values[static_cast<size_t>(id)].storage.index;
      return id;
    };
    std::vector<int64_t> def(n, -1), lastUse(n, -1);
    std::vector<std::vector<int64_t>> inputsOfStep(plan.steps.size());
    for (int64_t s = 0; s < end; ++s) {
      const Step &step = plan.steps[static_cast<size_t>(s)];
      for (int64_t id : step.inputs) {
        lastUse[static_cast<size_t>(rootOf(id))] = s;
        inputsOfStep[static_cast<size_t>(s)].push_back(rootOf(id));
      }
      for (int64_t id : step.outputs)
        def[static_cast<size_t>(id)] = s;
    }
    for (int64_t id : plan.outputs)
      lastUse[static_cast<size_t>(rootOf(id))] = end;
    int64_t sumOfIntermediates = 0;
    int aliasedPairs = 0;
    for (size_t u = 0; u < n; ++u) {
      const ValueInfo &a = plan.values[u];
      if (a.storage.kind != ValueStorage::Kind::Arena)
        continue;
      sumOfIntermediates += bytesOf(a);
      EXPECT_EQ(a.storage.offset % 64, 0);
      EXPECT_LE(a.storage.offset + bytesOf(a), plan.arenaBytes);
      int64_t uLast = std::max(lastUse[u], def[u]);
      for (size_t v = u + 1; v < n; ++v) {
        const ValueInfo &c = plan.values[v];
        if (c.storage.kind != ValueStorage::Kind::Arena)
          continue;
        int64_t vLast = std::max(lastUse[v], def[v]);
        bool liveTogether = def[u] <= vLast && def[v] <= uLast;
        bool bytesOverlap = a.storage.offset < c.storage.offset + bytesOf(c) &&
                            c.storage.offset < a.storage.offset + bytesOf(a);
        if (!liveTogether || !bytesOverlap)
          continue;
        // The one allowed overlap: in place, where the earlier value dies
        // at the step that defines the later one, as output 0 over one of
        // its (in-place capable) inputs of the same size.
        size_t early = def[u] < def[v] ? u : v, late = early == u ? v : u;
        int64_t s = def[late];
        const Step &step = plan.steps[static_cast<size_t>(s)];
        bool allowed = lastUse[early] == s &&
                       step.outputs[0] == static_cast<int64_t>(late);
        bool isInput = false;
        for (size_t k = 0; k < step.inputs.size(); ++k)
          if (step.inputs[k] == static_cast<int64_t>(early) &&
              step.kernel->canRunInPlace(k))
            isInput = true;
        allowed = allowed && isInput &&
                  bytesOf(plan.values[early]) == bytesOf(plan.values[late]);
        EXPECT_TRUE(allowed)
            << "values " << u << " and " << v << " overlap while live\n"
            << plan.describe();
        ++aliasedPairs;
      }
    }
    EXPECT_LT(plan.arenaBytes, sumOfIntermediates);
    totalAliasedPairs += aliasedPairs;
    for (const ValueInfo &info : plan.values)
      totalViews += info.storage.kind == ValueStorage::Kind::View;

    // And the plan computes what separate buffers compute.
    std::vector<HostTensor> args;
    for (int i = 0; i < dag.numInputs; ++i) {
      const ValueInfo &info =
          plan.values[static_cast<size_t>(plan.inputs[static_cast<size_t>(i)])];
      HostTensor arg = *HostTensor::allocate(info.dtype, info.shape);
      for (int64_t e = 0; e < arg.numElements(); ++e)
        arg.dataAs<int32_t>()[e] = static_cast<int32_t>((e * 7 + i) % 13);
      args.push_back(arg);
    }
    std::vector<std::vector<int32_t>> expected = evaluateDirectly(plan, args);
    absl::StatusOr<std::vector<HostTensor>> results = plan.run(args);
    ASSERT_TRUE(results.ok()) << results.status();
    ASSERT_EQ(results->size(), expected.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      const int32_t *data = (*results)[i].dataAs<int32_t>();
      EXPECT_EQ(std::vector<int32_t>(data, data + (*results)[i].numElements()),
                expected[i])
          << "result " << i;
    }
  }
  // The DAGs exercised in-place reuse and views.
  EXPECT_GT(totalAliasedPairs, 0);
  EXPECT_GT(totalViews, 0);
}

//===----------------------------------------------------------------------===//
// verify() and describe()
//===----------------------------------------------------------------------===//

TEST(ExecutableTest, VerifyAcceptsPlannedPlans) {
  EXPECT_TRUE(threeStepPlan().verify().ok());
  EXPECT_TRUE(Executable().verify().ok());
}

TEST(ExecutableTest, VerifyCatchesMalformedPlans) {
  struct Case {
    const char *what;
    std::function<void(Executable &)> breakIt;
    const char *message;
  };
  std::vector<Case> cases = {
      {"step input out of range",
       [](Executable &e) { e.steps[1].inputs[0] = 99; }, "out of range"},
      {"negative step input", [](Executable &e) { e.steps[1].inputs[0] = -1; },
       "out of range"},
      {"step output out of range",
       [](Executable &e) { e.steps[0].outputs[0] = 99; }, "out of range"},
      {"result out of range", [](Executable &e) { e.outputs[0] = 42; },
       "result #0"},
      {"argument out of range", [](Executable &e) { e.inputs[0] = 42; },
       "argument #0"},
      {"input storage index out of range",
       [](Executable &e) { e.values[0].storage.index = 3; }, "input"},
      {"constant index out of range",
       [](Executable &e) { e.values[1].storage.index = 5; }, "constant 5"},
      {"constant too small", [](Executable &e) { e.values[1].shape = {5}; },
       "larger than constant"},
      {"arena slice past the end",
       [](Executable &e) { e.values[2].storage.offset = e.arenaBytes; },
       "does not fit in the arena"},
      {"arena too small", [](Executable &e) { e.arenaBytes = 8; },
       "does not fit in the arena"},
      {"negative arena offset",
       [](Executable &e) { e.values[2].storage.offset = -64; },
       "does not fit in the arena"},
      {"misaligned arena offset",
       [](Executable &e) { e.values[2].storage.offset = 2; }, "misaligned"},
      {"view larger than its target",
       [](Executable &e) {
         e.values[5].shape = {2, 3};
       },
       "larger than its target"},
      {"view target out of range",
       [](Executable &e) { e.values[5].storage.index = 77; },
       "view of value 77"},
      {"cycle of views",
       [](Executable &e) {
         e.values[2].storage = {ValueStorage::Kind::View, 5, 0};
       },
       "cycle"},
      {"use before definition",
       [](Executable &e) { std::swap(e.steps[0], e.steps[1]); },
       "before it is defined"},
      {"result never defined", [](Executable &e) { e.steps.pop_back(); },
       "never defined"},
      {"step without a kernel",
       [](Executable &e) { e.steps[0].kernel.reset(); }, "no kernel"},
      {"writing an input", [](Executable &e) { e.steps[0].outputs[0] = 0; },
       "writes to input storage"},
      {"writing a constant", [](Executable &e) { e.steps[0].outputs[0] = 1; },
       "writes to constant storage"},
      {"writing a value twice",
       [](Executable &e) { e.steps[1].outputs[0] = 2; }, "already written"},
      {"argument whose storage is not that input",
       [](Executable &e) { e.inputs[0] = 2; }, "not input 0"},
      {"invalid shape", [](Executable &e) { e.values[3].shape = {-1}; },
       "invalid shape"},
      {"result in an opaque layout",
       [](Executable &e) {
         e.values[4].layout = "nChw16c";
         e.values[4].layoutBytes = 16;
       },
       "is in layout nChw16c"},
      {"view of a value in an opaque layout",
       [](Executable &e) {
         e.values[2].layout = "nChw16c";
         e.values[2].layoutBytes = 16;
       },
       "which is in layout nChw16c"},
      {"input in an opaque layout",
       [](Executable &e) {
         e.values[0].layout = "nChw16c";
         e.values[0].layoutBytes = 16;
       },
       "is not an arena value"},
      {"layout larger than the arena",
       [](Executable &e) {
         e.values[3].layout = "nChw16c";
         e.values[3].layoutBytes = 1 << 20;
       },
       "does not fit in the arena"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    // Values: 0 input x[4], 1 constant k[4], 2 a = x + k, 3 b = 2a, 4 c,
    // 5 view of a as 2x2.
    PlanBuilder b;
    int64_t x = b.input({4});
    int64_t k = b.constant(tensorOf({4}, {1, 2, 3, 4}));
    int64_t a = b.arena({4}), bb = b.arena({4}), cc = b.arena({4});
    int64_t view = b.view(a, {2, 2});
    b.step(std::make_shared<AddKernel>(), {x, k}, {a});
    b.step(std::make_shared<AffineKernel>(2, 0), {a}, {bb});
    b.step(std::make_shared<AddKernel>(), {a, bb}, {cc});
    b.plan.outputs = {cc, view};
    Executable plan = b.finish();
    ASSERT_TRUE(plan.verify().ok());
    c.breakIt(plan);
    absl::Status status = plan.verify();
    EXPECT_FALSE(status.ok());
    EXPECT_THAT(status.message(), HasSubstr(c.message));
  }
}

TEST(ExecutableTest, RunRejectsPlansWhoseValuesDoNotFit) {
  // run() does not need verify() to stay in bounds.
  Executable plan = threeStepPlan();
  plan.arenaBytes = 16;
  absl::StatusOr<std::vector<HostTensor>> results =
      plan.run({tensorOf({4}, {0, 0, 0, 0})});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInternal);
  EXPECT_THAT(results.status().message(), HasSubstr("does not fit"));
  plan = threeStepPlan();
  plan.steps[2].inputs[1] = 1000;
  results = plan.run({tensorOf({4}, {0, 0, 0, 0})});
  EXPECT_EQ(results.status().code(), absl::StatusCode::kInternal);
}

TEST(ExecutableTest, DescribeListsStepsArenaAndFallbacks) {
  PlanBuilder b;
  int64_t x = b.input({2, 3});
  int64_t a = b.arena({2, 3}), c = b.arena({2, 3}), d = b.arena({2, 3});
  b.step(std::make_shared<AffineKernel>(1, 1), {x}, {a},
         "tgc.exp at m.mlir:2:5", "onednn");
  b.step(std::make_shared<AddKernel>(), {x, a}, {c}, "tgc.erf at m.mlir:3:5",
         "reference");
  b.step(std::make_shared<AffineKernel>(1, 1), {c}, {d},
         "tgc.sign at m.mlir:4:5", "reference");
  b.plan.outputs = {d};
  Executable plan = b.finish();
  std::string text = plan.describe();
  EXPECT_THAT(text, HasSubstr("[0] onednn tgc.exp at m.mlir:2:5: "
                              "(tensor<2x3xf32>) -> tensor<2x3xf32>"));
  EXPECT_THAT(text, HasSubstr("[1] reference tgc.erf at m.mlir:3:5: "
                              "(tensor<2x3xf32>, tensor<2x3xf32>) -> "
                              "tensor<2x3xf32>"));
  EXPECT_THAT(text, HasSubstr("[2] reference tgc.sign"));
  EXPECT_THAT(text, HasSubstr("arena: 128 bytes"));
  EXPECT_THAT(text, HasSubstr("fallback to the reference path: 2 ops "
                              "(tgc.erf at m.mlir:3:5, tgc.sign at "
                              "m.mlir:4:5)"));
  EXPECT_THAT(threeStepPlan().describe(),
              HasSubstr("fallback to the reference path: 0 ops"));
}

//===----------------------------------------------------------------------===//
// Profiles, verbose mode and the environment
//===----------------------------------------------------------------------===//

TEST(ExecutableTest, ProfileRecordsOneEventPerKernel) {
  Executable plan = threeStepPlan();
  Profile profile;
  RunOptions options;
  options.profile = &profile;
  ASSERT_TRUE(plan.run({tensorOf({4}, {0, 1, 2, 3})}, options).ok());
  ASSERT_EQ(profile.events.size(), 3u);
  EXPECT_EQ(profile.events[0].name, "test.affine tgc.affine at f:1:1");
  EXPECT_EQ(profile.events[0].category, "native");
  EXPECT_EQ(profile.events[2].name, "test.add tgc.add at f:3:1");
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_GE(profile.events[i].startMicros, 0);
    EXPECT_GE(profile.events[i].durationMicros, 0);
    if (i) {
      EXPECT_GE(profile.events[i].startMicros,
                profile.events[i - 1].startMicros);
    }
  }
  std::string json = profile.toChromeTraceJson();
  EXPECT_EQ(json.rfind("{\"traceEvents\":[{\"name\":\"test.affine tgc.affine "
                       "at f:1:1\",\"cat\":\"native\",\"ph\":\"X\",\"ts\":",
                       0),
            0u);
  EXPECT_THAT(json,
              HasSubstr("\"pid\":1,\"tid\":1,\"args\":{\"run\":0,"
                        "\"shapes\":\"in=tensor<4xf32> out=tensor<4xf32>\"}}"));
  EXPECT_THAT(json, HasSubstr("},{\"name\":\"test.affine tgc.sub at f:2:1\""));
  EXPECT_THAT(json, HasSubstr("{\"name\":\"run 0\",\"cat\":\"run\""));
  EXPECT_THAT(json, testing::EndsWith("}]}\n"));
}

TEST(ExecutableTest, ProfileKeepsOneTimelineAcrossRuns) {
  Executable plan = threeStepPlan();
  Profile profile;
  RunOptions options;
  options.profile = &profile;
  for (int i = 0; i < 3; ++i)
    ASSERT_TRUE(plan.run({tensorOf({4}, {0, 1, 2, 3})}, options).ok());
  ASSERT_EQ(profile.events.size(), 9u);
  ASSERT_EQ(profile.runs.size(), 3u);
  for (size_t r = 0; r < 3; ++r) {
    EXPECT_EQ(profile.runs[r].name, "run " + std::to_string(r));
    EXPECT_EQ(profile.runs[r].thread, 0);
    if (r) { // each run after the last, not restarting at 0
      EXPECT_GE(profile.runs[r].startMicros,
                profile.runs[r - 1].startMicros +
                    profile.runs[r - 1].durationMicros);
    }
    for (size_t k = 0; k < 3; ++k) {
      const Profile::Event &event = profile.events[3 * r + k];
      EXPECT_EQ(event.run, static_cast<int>(r));
      EXPECT_EQ(event.thread, 1);
      EXPECT_GE(event.startMicros, profile.runs[r].startMicros);
      EXPECT_LE(event.startMicros + event.durationMicros,
                profile.runs[r].startMicros + profile.runs[r].durationMicros);
    }
  }
  std::string top = profile.topKernels(2);
  EXPECT_THAT(top, testing::StartsWith("top 2 kernels of 3 run(s), "));
  EXPECT_THAT(top,
              HasSubstr("  total ms   calls    mean us   share  kernel\n"));
  // Two rows of 3 calls each.
  EXPECT_EQ(std::count(top.begin(), top.end(), '\n'), 4);
  EXPECT_THAT(top, HasSubstr("       3 "));
}

TEST(ExecutableTest, TopKernelsSumsByNameAndSortsByTime) {
  Profile profile;
  profile.events.push_back({"a", "native", 0, 100});
  profile.events.push_back({"b", "native", 100, 300});
  profile.events.push_back({"a", "native", 400, 200});
  EXPECT_EQ(profile.topKernels(10),
            "top 2 kernels of 0 run(s), 0.600 ms in kernels:\n"
            "  total ms   calls    mean us   share  kernel\n"
            "     0.300       2      150.0   50.0%  a\n"
            "     0.300       1      300.0   50.0%  b\n");
  EXPECT_EQ(profile.topKernels(1).find("b\n"), std::string::npos);
}

TEST(ExecutableTest, ChromeTraceJsonEscapesStrings) {
  Profile profile;
  profile.events.push_back(
      {"a \"quoted\" \\ name\n\twith\x01", "cat/\"x\"", 1.5, 0.25});
  std::string json = profile.toChromeTraceJson();
  EXPECT_EQ(json, "{\"traceEvents\":[{\"name\":\"a \\\"quoted\\\" \\\\ "
                  "name\\n\\twith\\u0001\",\"cat\":\"cat/\\\"x\\\"\","
                  "\"ph\":\"X\",\"ts\":1.500,\"dur\":0.250,\"pid\":1,"
                  "\"tid\":1,\"args\":{\"run\":0}}]}\n");
  EXPECT_EQ(Profile().toChromeTraceJson(), "{\"traceEvents\":[]}\n");

  std::string path = ::testing::TempDir() + "/tgc-executable-trace.json";
  ASSERT_TRUE(profile.writeChromeTrace(path).ok());
  std::FILE *file = std::fopen(path.c_str(), "rb");
  ASSERT_NE(file, nullptr);
  std::string read(json.size() + 16, '\0');
  read.resize(std::fread(read.data(), 1, read.size(), file));
  std::fclose(file);
  EXPECT_EQ(read, json);
  std::remove(path.c_str());
  EXPECT_FALSE(profile.writeChromeTrace("/nonexistent-dir/x/trace.json").ok());
}

TEST(ExecutableTest, VerboseLogsEachKernelToStderr) {
  Executable plan = threeStepPlan();
  RunOptions options;
  options.verbose = true;
  testing::internal::CaptureStderr();
  ASSERT_TRUE(plan.run({tensorOf({4}, {0, 1, 2, 3})}, options).ok());
  std::string log = testing::internal::GetCapturedStderr();
  EXPECT_THAT(log, HasSubstr("tgc: [0] native tgc.affine at f:1:1 test.affine "
                             "in=tensor<4xf32> out=tensor<4xf32> "));
  EXPECT_THAT(log, HasSubstr("tgc: [2] native tgc.add at f:3:1 test.add "
                             "in=tensor<4xf32>,tensor<4xf32> "
                             "out=tensor<4xf32> "));
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 3);
  EXPECT_THAT(log, HasSubstr(" ms\n"));

  // Quiet by default; TGC_VERBOSE=1 turns it on.
  unsetenv("TGC_VERBOSE");
  testing::internal::CaptureStderr();
  ASSERT_TRUE(plan.run({tensorOf({4}, {0, 1, 2, 3})}).ok());
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  setenv("TGC_VERBOSE", "1", 1);
  testing::internal::CaptureStderr();
  ASSERT_TRUE(plan.run({tensorOf({4}, {0, 1, 2, 3})}).ok());
  EXPECT_THAT(testing::internal::GetCapturedStderr(), HasSubstr("tgc: [1] "));
  unsetenv("TGC_VERBOSE");
}

TEST(ExecutableTest, EnvironmentSettings) {
  EXPECT_EQ(resolveThreadCount(5), 5);
  setenv("TGC_NUM_THREADS", "3", 1);
  EXPECT_EQ(resolveThreadCount(0), 3);
  EXPECT_EQ(resolveThreadCount(2), 2);
  setenv("TGC_NUM_THREADS", "garbage", 1);
  EXPECT_GE(resolveThreadCount(0), 1);
  unsetenv("TGC_NUM_THREADS");
  EXPECT_GE(resolveThreadCount(0), 1);
  EXPECT_EQ(resolveThreadCount(-1), resolveThreadCount(0));
  // OMP_NUM_THREADS where TGC_NUM_THREADS is unset (its first level).
  const char *omp = std::getenv("OMP_NUM_THREADS");
  std::string savedOmp = omp ? omp : "";
  setenv("OMP_NUM_THREADS", "4,2", 1);
  EXPECT_EQ(resolveThreadCount(0), 4);
  setenv("TGC_NUM_THREADS", "3", 1);
  EXPECT_EQ(resolveThreadCount(0), 3);
  unsetenv("TGC_NUM_THREADS");
  setenv("OMP_NUM_THREADS", "zero", 1);
  EXPECT_GE(resolveThreadCount(0), 1);
  if (omp)
    setenv("OMP_NUM_THREADS", savedOmp.c_str(), 1);
  else
    unsetenv("OMP_NUM_THREADS");

  setNumThreads(2);
  EXPECT_EQ(omp_get_max_threads(), 2);
  setNumThreads(0); // ignored
  EXPECT_EQ(omp_get_max_threads(), 2);

  unsetenv("TGC_VERBOSE");
  EXPECT_FALSE(verboseFromEnvironment());
  setenv("TGC_VERBOSE", "1", 1);
  EXPECT_TRUE(verboseFromEnvironment());
  setenv("TGC_VERBOSE", "0", 1);
  EXPECT_FALSE(verboseFromEnvironment());
  unsetenv("TGC_VERBOSE");

  unsetenv("TGC_ENABLE_ONEDNN");
  EXPECT_TRUE(oneDnnEnabledFromEnvironment());
  setenv("TGC_ENABLE_ONEDNN", "0", 1);
  EXPECT_FALSE(oneDnnEnabledFromEnvironment());
  setenv("TGC_ENABLE_ONEDNN", "1", 1);
  EXPECT_TRUE(oneDnnEnabledFromEnvironment());
  unsetenv("TGC_ENABLE_ONEDNN");
}

// One parsing rule for every flag (TGC_FUSION=false used to leave fusion on).
TEST(Environment, FlagsShareOneRule) {
  namespace env = tgc::runtime::env;
  for (const char *yes : {"1", "true", "TRUE", "on", "On", "yes"})
    EXPECT_EQ(env::parseFlag(yes), true) << yes;
  for (const char *no : {"0", "false", "False", "off", "OFF", "no"})
    EXPECT_EQ(env::parseFlag(no), false) << no;
  EXPECT_EQ(env::parseFlag("maybe"), std::nullopt);
  EXPECT_EQ(env::parseFlag(""), std::nullopt);

  unsetenv("TGC_FUSION");
  EXPECT_TRUE(env::flag("TGC_FUSION")); // the table's default
  setenv("TGC_FUSION", "false", 1);
  EXPECT_FALSE(env::flag("TGC_FUSION"));
  setenv("TGC_FUSION", "off", 1);
  EXPECT_FALSE(env::flag("TGC_FUSION"));
  setenv("TGC_FUSION", "maybe", 1); // not understood: the default
  EXPECT_TRUE(env::flag("TGC_FUSION"));
  unsetenv("TGC_FUSION");
  setenv("TGC_VERBOSE", "yes", 1);
  EXPECT_TRUE(verboseFromEnvironment());
  unsetenv("TGC_VERBOSE");
}

TEST(Environment, TheTableNamesEverySettingOnce) {
  namespace env = tgc::runtime::env;
  std::set<std::string_view> names;
  for (const env::Setting &setting : env::settings()) {
    EXPECT_TRUE(setting.name.starts_with("TGC_")) << setting.name;
    EXPECT_FALSE(setting.description.empty()) << setting.name;
    EXPECT_TRUE(names.insert(setting.name).second) << setting.name;
    EXPECT_EQ(env::lookup(setting.name), &setting);
  }
  EXPECT_EQ(env::lookup("TGC_NO_SUCH_SETTING"), nullptr);
}

TEST(Environment, ActiveSettingsSayHowTheyAreRead) {
  namespace env = tgc::runtime::env;
  setenv("TGC_FUSON", "1", 1);
  setenv("TGC_WINOGRAD", "maybe", 1);
  setenv("TGC_NUM_THREADS", "two", 1);
  std::vector<std::string> lines = env::describeActive();
  unsetenv("TGC_FUSON");
  unsetenv("TGC_WINOGRAD");
  unsetenv("TGC_NUM_THREADS");
  auto has = [&](const std::string &text) {
    return std::any_of(lines.begin(), lines.end(), [&](const std::string &l) {
      return l.find(text) != std::string::npos;
    });
  };
  EXPECT_TRUE(has("TGC_FUSON=1  (unknown: ignored"));
  EXPECT_TRUE(has("TGC_WINOGRAD=maybe  (not understood: 1 is used"));
  EXPECT_TRUE(has("TGC_NUM_THREADS=two  (not a number: ignored)"));
}

//===----------------------------------------------------------------------===//
// Overhead (measured and printed, never asserted)
//===----------------------------------------------------------------------===//

TEST(ExecutableTest, OverheadOfTenNoOpSteps) {
  PlanBuilder b;
  int64_t x = b.input({4});
  int64_t previous = x;
  for (int i = 0; i < 10; ++i) {
    int64_t next = b.arena({4});
    b.step(std::make_shared<NoOpKernel>(), {previous}, {next});
    previous = next;
  }
  b.plan.outputs = {previous};
  Executable plan = b.finish();
  std::vector<HostTensor> args = {tensorOf({4}, {1, 2, 3, 4})};
  RunOptions options;
  options.numThreads = 1;
  for (int i = 0; i < 1000; ++i)
    ASSERT_TRUE(plan.run(args, options).ok());
  constexpr int kIterations = 200000;
  double best = 1e30;
  for (int repeat = 0; repeat < 3; ++repeat) {
    auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < kIterations; ++i) {
      absl::StatusOr<std::vector<HostTensor>> results = plan.run(args, options);
      if (!results.ok())
        FAIL() << results.status();
    }
    double ns = std::chrono::duration<double, std::nano>(
                    std::chrono::steady_clock::now() - start)
                    .count() /
                kIterations;
    best = std::min(best, ns);
  }
  std::printf("[ overhead ] 10 no-op steps on tensor<4xf32>: %.0f ns/call\n",
              best);
  RecordProperty("ns_per_call", static_cast<int>(best));
}

} // namespace

//===----------------------------------------------------------------------===//
// Inter-op parallelism
//===----------------------------------------------------------------------===//

namespace {

/// Sleeps, then computes out = in * scale + bias: makes overlapping of
/// independent steps observable.
class SlowAffineKernel : public AffineKernel {
public:
  SlowAffineKernel(float scale, float bias, std::atomic<int> &running,
                   std::atomic<int> &maxRunning)
      : AffineKernel(scale, bias), running(running), maxRunning(maxRunning) {}
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &in,
                   std::vector<HostTensor> &out) const override {
    int now = ++running;
    int seen = maxRunning.load();
    while (now > seen && !maxRunning.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --running;
    return AffineKernel::run(context, in, out);
  }
  std::atomic<int> &running, &maxRunning;
};

} // namespace

TEST(ExecutableTest, IndependentStepsOfOneLevelRunConcurrently) {
  std::atomic<int> running{0}, maxRunning{0};
  PlanBuilder b;
  int64_t x = b.input({1024});
  int64_t p = b.arena({1024}), q = b.arena({1024}), r = b.arena({1024}),
          out = b.arena({1024});
  // Level 0: three independent branches; level 1: their sums.
  b.step(std::make_shared<SlowAffineKernel>(2, 0, running, maxRunning), {x},
         {p});
  b.step(std::make_shared<SlowAffineKernel>(3, 0, running, maxRunning), {x},
         {q});
  int64_t pq = b.arena({1024});
  b.step(std::make_shared<AddKernel>(), {p, q}, {pq});
  b.step(std::make_shared<SlowAffineKernel>(1, 1, running, maxRunning), {x},
         {r});
  b.step(std::make_shared<AddKernel>(), {pq, r}, {out});
  b.plan.outputs = {out};
  b.plan.stepLevels = {0, 0, 1, 0, 2};
  Executable plan = b.finish();

  // Operands of one level never share bytes.
  auto overlaps = [&](int64_t a, int64_t c) {
    const ValueInfo &va = plan.values[a], &vc = plan.values[c];
    return va.storage.offset < vc.storage.offset + bytesOf(vc) &&
           vc.storage.offset < va.storage.offset + bytesOf(va);
  };
  EXPECT_FALSE(overlaps(p, q));
  EXPECT_FALSE(overlaps(p, r));
  EXPECT_FALSE(overlaps(q, r));

  HostTensor input = tensorOf({1024}, std::vector<float>(1024, 1.0f));
  RunOptions options;
  options.interOpThreads = 3;
  auto results = plan.run({input}, options);
  ASSERT_TRUE(results.ok()) << results.status();
  // 2 + 3 + 2 = 7 everywhere.
  EXPECT_EQ(elementsOf((*results)[0]), std::vector<float>(1024, 7.0f));
  EXPECT_GE(maxRunning.load(), 2);

  // Sequentially the same numbers, one kernel at a time.
  maxRunning = 0;
  auto sequential = plan.run({input});
  ASSERT_TRUE(sequential.ok()) << sequential.status();
  EXPECT_EQ(elementsOf((*sequential)[0]), std::vector<float>(1024, 7.0f));
  EXPECT_EQ(maxRunning.load(), 1);
}

TEST(ExecutableTest, VerifyRejectsLevelsThatBreakDependencies) {
  Executable plan = threeStepPlan();
  plan.stepLevels = {0, 0, 1}; // step 1 reads step 0's output at one level
  absl::Status status = plan.verify();
  EXPECT_FALSE(status.ok());
  EXPECT_NE(std::string(status.message()).find("level"), std::string::npos)
      << status;
  plan.stepLevels = {0, 1};
  EXPECT_FALSE(plan.verify().ok());
}

TEST(ArenaPoolTest, RunsShareTheSmallestArenaThatFits) {
  ArenaPool pool;
  auto a = pool.take(1000);
  ASSERT_TRUE(a.bytes);
  EXPECT_GE(a.capacity, 1000);
  EXPECT_EQ(pool.made(), 1);
  pool.give(a);
  // A smaller need takes the free arena; a larger one makes a new arena and
  // drops the free ones that are too small for it.
  auto b = pool.take(500);
  EXPECT_EQ(b.bytes.get(), a.bytes.get());
  pool.give(b);
  auto big = pool.take(5000);
  EXPECT_NE(big.bytes.get(), a.bytes.get());
  EXPECT_EQ(pool.made(), 2);
  EXPECT_EQ(pool.freeArenas(), 0u);
  // Two at once: two arenas; both come back.
  auto other = pool.take(100);
  EXPECT_EQ(pool.made(), 3);
  pool.give(big);
  pool.give(other);
  EXPECT_EQ(pool.freeArenas(), 2u);
  EXPECT_GE(pool.freeBytes(), 5100);
  auto again = pool.take(4000);
  EXPECT_EQ(again.bytes.get(), big.bytes.get());
  EXPECT_EQ(pool.made(), 3);
}
