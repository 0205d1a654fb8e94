//===- StatusTest.cpp - tgc::Status, StatusOr, Callback, Abseil interop ---===//

#include "tgc/AbslStatus.h"
#include "tgc/Callback.h"
#include "tgc/HostTensor.h"

#include "gtest/gtest.h"

#include <functional>
#include <memory>
#include <sstream>
#include <string>

using namespace tgc;

namespace {

TEST(StatusTest, OkAndErrors) {
  Status ok;
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.code(), StatusCode::kOk);
  EXPECT_EQ(ok.ToString(), "OK");

  Status bad(StatusCode::kInvalidArgument, "shape mismatch");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.message(), "shape mismatch");
  EXPECT_EQ(bad.ToString(), "INVALID_ARGUMENT: shape mismatch");
  std::ostringstream os;
  os << bad << " " << StatusCode::kNotFound;
  EXPECT_EQ(os.str(), "INVALID_ARGUMENT: shape mismatch NOT_FOUND");

  // An OK code drops the message.
  EXPECT_EQ(Status(StatusCode::kOk, "ignored"), Status());
}

TEST(StatusTest, StatusOrHoldsValueOrError) {
  StatusOr<std::string> value = std::string("x");
  ASSERT_TRUE(value.ok());
  EXPECT_EQ(*value, "x");
  EXPECT_EQ(value->size(), 1u);
  EXPECT_TRUE(value.status().ok());

  StatusOr<std::string> error = Status(StatusCode::kNotFound, "gone");
  EXPECT_FALSE(error.ok());
  EXPECT_EQ(error.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(error.value_or("fallback"), "fallback");
  EXPECT_THROW((void)error.value(), BadStatusOrAccess);
  try {
    (void)error.value();
  } catch (const BadStatusOrAccess &e) {
    EXPECT_EQ(e.status().message(), "gone");
    EXPECT_NE(std::string(e.what()).find("NOT_FOUND: gone"), std::string::npos);
  }

  // An OK status is not a value: the StatusOr reports an internal error.
  StatusOr<int> fromOk = Status();
  EXPECT_FALSE(fromOk.ok());
  EXPECT_EQ(fromOk.status().code(), StatusCode::kInternal);

  // Move-only values.
  StatusOr<std::unique_ptr<int>> owned = std::make_unique<int>(3);
  std::unique_ptr<int> taken = *std::move(owned);
  EXPECT_EQ(*taken, 3);
}

TEST(StatusTest, ConvertsWithAbseil) {
  absl::Status abslError = absl::OutOfRangeError("too far");
  Status fromAbsl = abslError;
  EXPECT_EQ(fromAbsl.code(), StatusCode::kOutOfRange);
  EXPECT_EQ(fromAbsl.message(), "too far");
  EXPECT_EQ(fromAbsl.code(), absl::StatusCode::kOutOfRange);
  EXPECT_TRUE(absl::StatusCode::kOutOfRange == fromAbsl.code());

  absl::Status back = fromAbsl;
  EXPECT_EQ(back, abslError);
  EXPECT_TRUE(absl::IsOutOfRange(fromAbsl));

  // tgc -> absl StatusOr, both ways, value and error.
  StatusOr<int> tgcValue = 7;
  absl::StatusOr<int> abslValue = tgcValue;
  ASSERT_TRUE(abslValue.ok());
  EXPECT_EQ(*abslValue, 7);
  StatusOr<int> again = abslValue;
  EXPECT_EQ(*again, 7);
  absl::StatusOr<int> abslError2 = StatusOr<int>(fromAbsl);
  EXPECT_EQ(abslError2.status(), abslError);
  StatusOr<int> tgcError = absl::StatusOr<int>(absl::NotFoundError("no"));
  EXPECT_EQ(tgcError.status().code(), StatusCode::kNotFound);

  // A tgc API result used where Abseil is expected.
  absl::StatusOr<runtime::HostTensor> tensor =
      runtime::HostTensor::allocate(runtime::DType::F32, {-1});
  EXPECT_EQ(tensor.status().code(), absl::StatusCode::kInvalidArgument);
  auto returnsAbsl = []() -> absl::Status {
    return runtime::HostTensor::allocate(runtime::DType::F32, {2}).status();
  };
  EXPECT_TRUE(returnsAbsl().ok());
  auto returnsTgc = []() -> StatusOr<int> {
    return absl::InvalidArgumentError("bad");
  };
  EXPECT_EQ(returnsTgc().status().message(), "bad");
}

TEST(CallbackTest, HoldsCopiesAndCalls) {
  Callback<int(int)> empty;
  EXPECT_FALSE(empty);
  Callback<int(int)> fromNull = nullptr;
  EXPECT_FALSE(fromNull);
  int (*nullFn)(int) = nullptr;
  EXPECT_FALSE(Callback<int(int)>(nullFn));
  EXPECT_FALSE(Callback<int(int)>(std::function<int(int)>()));

  int calls = 0;
  Callback<int(int)> add = [&calls, offset = 10](int x) {
    ++calls;
    return x + offset;
  };
  ASSERT_TRUE(add);
  EXPECT_EQ(add(1), 11);
  Callback<int(int)> copy = add;
  EXPECT_EQ(copy(2), 12);
  EXPECT_EQ(calls, 2);

  // Copies copy the callable's state, as std::function does.
  Callback<int()> counter = [n = 0]() mutable { return ++n; };
  EXPECT_EQ(counter(), 1);
  Callback<int()> counterCopy = counter;
  EXPECT_EQ(counter(), 2);
  EXPECT_EQ(counterCopy(), 2);

  std::string seen;
  Callback<void(const std::string &)> log =
      std::function<void(const std::string &)>(
          [&seen](const std::string &s) { seen += s; });
  log("a");
  log("b");
  EXPECT_EQ(seen, "ab");
}

TEST(CallbackTest, RefCallsWithoutCopying) {
  int state = 0;
  auto bump = [&state](int by) {
    state += by;
    return state;
  };
  CallbackRef<int(int)> ref = bump;
  EXPECT_EQ(ref(2), 2);
  CallbackRef<int(int)> copy = ref;
  EXPECT_EQ(copy(3), 5);
  EXPECT_EQ(state, 5);
  int (*plain)(int) = [](int x) { return -x; };
  EXPECT_EQ(CallbackRef<int(int)>(plain)(4), -4);
  std::string seen;
  auto log = [&seen](const std::string &s) { seen += s; };
  CallbackRef<void(const std::string &)> logRef = log;
  logRef("a");
  EXPECT_EQ(seen, "a");
}

} // namespace
