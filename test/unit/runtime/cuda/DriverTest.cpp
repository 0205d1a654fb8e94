//===- DriverTest.cpp - the driver loader and devices ---------------------===//
//
// Where no driver or GPU exists (these CI machines), opening a device must
// give a clear error, never crash; tests that need a device skip with
// "no CUDA device: <reason>".
//
//===----------------------------------------------------------------------===//

#include "runtime/cuda/Device.h"
#include "runtime/cuda/Executable.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tgc::cuda;

namespace {
bool startsWith(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}
} // namespace

TEST(Driver, MissingLibraryIsAClearError) {
  auto driver = loadDriverFrom("libtgc-no-such-driver.so.1");
  ASSERT_FALSE(driver.ok());
  EXPECT_TRUE(absl::IsNotFound(driver.status()));
  EXPECT_EQ(driver.status().message(),
            "no CUDA driver (libtgc-no-such-driver.so.1 not found)");
}

TEST(Driver, LibraryWithoutTheEntryPointsIsAClearError) {
  // A library that exists but is not a driver.
  auto driver = loadDriverFrom("libm.so.6");
  ASSERT_FALSE(driver.ok());
  EXPECT_EQ(driver.status().message(),
            "no CUDA driver (libm.so.6 lacks cuInit)");
}

TEST(Driver, LibraryNameCanBeOverridden) {
  EXPECT_EQ(driverLibraryName(), std::getenv("TGC_CUDA_DRIVER")
                                     ? std::getenv("TGC_CUDA_DRIVER")
                                     : "libcuda.so.1");
}

TEST(Driver, OpenDeviceSucceedsOrSaysWhyNot) {
  auto device = openDevice(0);
  if (device.ok()) {
    EXPECT_FALSE((*device)->name().empty());
    EXPECT_TRUE(startsWith((*device)->arch(), "sm_"));
    // Opened once, shared afterwards.
    EXPECT_EQ(openDevice(0)->get(), device->get());
    return;
  }
  std::string message(device.status().message());
  EXPECT_TRUE(startsWith(message, "no CUDA driver (") ||
              startsWith(message, "no CUDA device"))
      << message;
  // The same answer again, without crashing.
  EXPECT_EQ(openDevice(0).status(), device.status());
  EXPECT_EQ(deviceCount().status(), device.status());
}

TEST(Driver, BadOrdinal) {
  auto count = deviceCount();
  if (!count.ok())
    GTEST_SKIP() << "no CUDA device: " << count.status().message();
  auto device = openDevice(*count);
  ASSERT_FALSE(device.ok());
  EXPECT_TRUE(startsWith(std::string(device.status().message()),
                         "no CUDA device with ordinal"))
      << device.status();
}

TEST(ExecutableSpec, ValidatesIndices) {
  ExecutableSpec spec;
  spec.inputs.push_back({tgc::runtime::DType::F32, {4}});
  spec.intermediates.push_back({tgc::runtime::DType::F32, {4}});
  spec.kernels.push_back({"k", "ptx"});
  spec.launches.push_back({0, 1, 128, 0, {0, 1}});
  spec.results = {1};
  auto ok = DeviceExecutable::create(spec);
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ((*ok)->numBuffers(), 2);
  EXPECT_EQ((*ok)->describe(),
            "launch k <<<1, 128>>> (b0:4xf32, b1:4xf32)\nresults: b1\n");
  ExecutableSpec badBuffer = spec;
  badBuffer.launches[0].buffers.push_back(7);
  EXPECT_EQ(DeviceExecutable::create(badBuffer).status().message(),
            "launch 0: no buffer 7");
  ExecutableSpec badKernel = spec;
  badKernel.launches[0].kernel = 3;
  EXPECT_FALSE(DeviceExecutable::create(badKernel).ok());
  ExecutableSpec badBlock = spec;
  badBlock.launches[0].block = 2048;
  EXPECT_FALSE(DeviceExecutable::create(badBlock).ok());
  ExecutableSpec badResult = spec;
  badResult.results = {2};
  EXPECT_FALSE(DeviceExecutable::create(badResult).ok());
}

TEST(Device, StreamsAndPool) {
  auto device = openDevice(0);
  if (!device.ok())
    GTEST_SKIP() << "no CUDA device: " << device.status().message();
  Device &d = **device;
  auto stream = d.createStream();
  ASSERT_TRUE(stream.ok()) << stream.status();
  std::vector<float> host(1000), back(1000);
  for (int i = 0; i < 1000; ++i)
    host[i] = static_cast<float>(i) * 0.5f;
  auto a = d.pool().allocate(host.size() * sizeof(float));
  auto b = d.pool().allocate(host.size() * sizeof(float));
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE((*stream)->copyToDevice(*a, host.data(), 4000).ok());
  ASSERT_TRUE((*stream)->copyOnDevice(*b, *a, 4000).ok());
  ASSERT_TRUE((*stream)->copyToHost(back.data(), *b, 4000).ok());
  ASSERT_TRUE((*stream)->synchronize().ok());
  EXPECT_EQ(host, back);
  d.pool().free(*a);
  d.pool().free(*b);
  EXPECT_EQ(d.pool().stats().bytesInUse, 0u);
}
