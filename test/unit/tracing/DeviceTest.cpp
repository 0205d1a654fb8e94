//===- DeviceTest.cpp - devices, tensor placement and targets in keys -----===//

#include "tgc/Device.h"
#include "tgc/TraceType.h"
#include "tracing/SpecializationCache.h"

#include <gtest/gtest.h>

#include <unordered_set>

using namespace tgc;
using namespace tgc::tracing;
using runtime::DType;

namespace {

constexpr int64_t kDyn = kDynamic;

TraceType tensor(std::vector<int64_t> shape, std::string device = "cpu",
                 DType dtype = DType::F32) {
  return TraceType::tensor(
      TensorSpec{dtype, std::move(shape), false, std::move(device)});
}
TraceType args(std::vector<TraceType> elements) {
  return TraceType::sequence(TraceType::SequenceKind::Tuple,
                             std::move(elements));
}

std::string parseError(const std::string &text) {
  auto device = Device::parse(text);
  return device.ok() ? "<ok>" : std::string(device.status().message());
}

TEST(Device, ParsesAndPrints) {
  auto cpu = Device::parse("cpu");
  ASSERT_TRUE(cpu.ok()) << cpu.status();
  EXPECT_TRUE(cpu->isCpu());
  EXPECT_EQ(cpu->str(), "cpu");
  auto cuda = Device::parse("cuda");
  ASSERT_TRUE(cuda.ok()) << cuda.status();
  EXPECT_EQ(*cuda, Device::cuda(0));
  EXPECT_EQ(cuda->str(), "cuda:0");
  auto cuda3 = Device::parse("cuda:3");
  ASSERT_TRUE(cuda3.ok()) << cuda3.status();
  EXPECT_TRUE(cuda3->isCuda());
  EXPECT_EQ(cuda3->ordinal, 3);
  EXPECT_EQ(cuda3->str(), "cuda:3");
  EXPECT_EQ(Device::parse(cuda3->str())->ordinal, 3);
  EXPECT_NE(Device::cuda(0), Device::cuda(1));
  EXPECT_NE(Device::cpu(), Device::cuda(0));
  EXPECT_EQ(Device::cpu(), Device::cpu());
}

TEST(Device, BadStringsAreClearErrors) {
  EXPECT_EQ(parseError("gpu"), "invalid device 'gpu': unknown device kind "
                               "(expected cpu, cuda or cuda:N)");
  EXPECT_EQ(parseError(""), "invalid device '': unknown device kind "
                            "(expected cpu, cuda or cuda:N)");
  EXPECT_EQ(parseError("CUDA:0"), "invalid device 'CUDA:0': unknown device "
                                  "kind (expected cpu, cuda or cuda:N)");
  EXPECT_EQ(parseError("cuda:"), "invalid device 'cuda:': missing ordinal "
                                 "after 'cuda:' (expected cpu, cuda or "
                                 "cuda:N)");
  EXPECT_EQ(parseError("cuda:-1"),
            "invalid device 'cuda:-1': the ordinal must be a non-negative "
            "decimal number (expected cpu, cuda or cuda:N)");
  EXPECT_EQ(parseError("cuda:1x"),
            "invalid device 'cuda:1x': the ordinal must be a non-negative "
            "decimal number (expected cpu, cuda or cuda:N)");
  EXPECT_EQ(parseError("cuda:99999999999"),
            "invalid device 'cuda:99999999999': the ordinal is out of range "
            "(expected cpu, cuda or cuda:N)");
  EXPECT_EQ(parseError("cpu:0"), "invalid device 'cpu:0': unknown device "
                                 "kind (expected cpu, cuda or cuda:N)");
}

// A host tensor and a device tensor of the same dtype and shape are
// different keys; so are tensors on two devices.
TEST(TensorPlacement, IsPartOfTheKey) {
  TraceType host = tensor({2, 3});
  TraceType dev0 = tensor({2, 3}, "cuda:0");
  TraceType dev1 = tensor({2, 3}, "cuda:1");
  EXPECT_NE(host, dev0);
  EXPECT_NE(dev0, dev1);
  EXPECT_EQ(dev0, tensor({2, 3}, Device::cuda(0).str()));
  EXPECT_EQ(dev0.hash(), tensor({2, 3}, "cuda:0").hash());
  std::unordered_set<TraceType> set{host, dev0, dev1, tensor({2, 3}, "cuda:0")};
  EXPECT_EQ(set.size(), 3u);
  EXPECT_NE(host.compare(dev0), 0);
  EXPECT_EQ(host.compare(dev0), -dev0.compare(host));
  // Printing: the placement only when it is not the host.
  EXPECT_EQ(host.str(), "Tensor<2x3xf32>");
  EXPECT_EQ(dev0.str(), "Tensor<2x3xf32, cuda:0>");
  EXPECT_EQ(args({dev0, host}).str(), "(Tensor<2x3xf32, cuda:0>, "
                                      "Tensor<2x3xf32>)");
  EXPECT_EQ(formatTensorSpec(TensorSpec{DType::I64, {kDyn}, false, "cuda:1"}),
            "Tensor<?xi64, cuda:1>");
}

TEST(TensorPlacement, SubtypesAndSupertypesStayOnOneDevice) {
  TraceType host = tensor({2, 3});
  TraceType dev0 = tensor({2, 3}, "cuda:0");
  TraceType dynDev0 = tensor({kDyn, 3}, "cuda:0");
  EXPECT_TRUE(dev0.isSubtypeOf(dynDev0));
  EXPECT_FALSE(host.isSubtypeOf(dynDev0));
  EXPECT_FALSE(dev0.isSubtypeOf(tensor({kDyn, 3})));
  // Relaxing (reduce_retracing) keeps the device and never joins two.
  auto join = tensor({4, 3}, "cuda:0").mostSpecificCommonSupertype({dev0});
  ASSERT_TRUE(join);
  EXPECT_EQ(*join, dynDev0);
  EXPECT_FALSE(host.mostSpecificCommonSupertype({dev0}));
  EXPECT_FALSE(dev0.mostSpecificCommonSupertype({tensor({2, 3}, "cuda:1")}));
  // Mismatches name the argument and the placements.
  auto m = findArgsMismatch(args({host}), args({dev0}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "arg0");
  EXPECT_EQ(m->reason, "device differs: expected cuda:0, got cpu");
  // Dispatch never sends a host call to a device specialization.
  EXPECT_FALSE(selectMostSpecific(args({host}), {args({dynDev0})}));
  EXPECT_EQ(selectMostSpecific(args({dev0}),
                               {args({tensor({kDyn, 3})}), args({dynDev0})}),
            std::optional<size_t>(1));
}

TEST(TraceTypeTarget, PrintsComparesAndNeverJoins) {
  TraceType cuda0 = TraceType::target("cuda:0");
  TraceType cuda1 = TraceType::target("cuda:1");
  EXPECT_TRUE(cuda0.isTarget());
  EXPECT_EQ(cuda0.targetDevice(), "cuda:0");
  EXPECT_FALSE(TraceType::user("U", TraceType::string("cuda:0")).isTarget());
  EXPECT_FALSE(TraceType::string("cuda:0").isTarget());
  EXPECT_EQ(cuda0.str(), "@cuda:0");
  EXPECT_EQ(cuda0, TraceType::target("cuda:0"));
  EXPECT_EQ(cuda0.hash(), TraceType::target("cuda:0").hash());
  EXPECT_NE(cuda0, cuda1);
  EXPECT_FALSE(cuda0.isSubtypeOf(cuda1));
  EXPECT_FALSE(cuda0.mostSpecificCommonSupertype({cuda1}));

  TraceType onCpu = args({tensor({2})});
  TraceType on0 = args({tensor({2}), cuda0});
  TraceType on1 = args({tensor({2}), cuda1});
  EXPECT_EQ(on0.str(), "(Tensor<2xf32>, @cuda:0)");
  EXPECT_EQ(targetOf(onCpu), "cpu");
  EXPECT_EQ(targetOf(on0), "cuda:0");
  EXPECT_EQ(targetOf(tensor({2})), "cpu");
  EXPECT_NE(on0, on1);
  EXPECT_NE(on0, onCpu);
  EXPECT_FALSE(on0.isSubtypeOf(on1));
  EXPECT_FALSE(on0.isSubtypeOf(onCpu));
  EXPECT_FALSE(onCpu.isSubtypeOf(on0));
  EXPECT_FALSE(on0.mostSpecificCommonSupertype({on1}));
  EXPECT_FALSE(on0.mostSpecificCommonSupertype({onCpu}));
  // Same target: shapes relax as usual.
  auto join = args({tensor({3}), cuda0}).mostSpecificCommonSupertype({on0});
  ASSERT_TRUE(join);
  EXPECT_EQ(join->str(), "(Tensor<?xf32>, @cuda:0)");
  EXPECT_TRUE(on0.isSubtypeOf(*join));
  EXPECT_FALSE(on1.isSubtypeOf(*join));
  EXPECT_FALSE(selectMostSpecific(on1, {onCpu, *join}));
  EXPECT_EQ(selectMostSpecific(on0, {onCpu, on1, *join}),
            std::optional<size_t>(2));
}

TEST(TraceTypeTarget, MismatchesNameTheTarget) {
  TraceType onCpu = args({tensor({2})});
  TraceType on0 = args({tensor({2}), TraceType::target("cuda:0")});
  TraceType on1 = args({tensor({2}), TraceType::target("cuda:1")});
  auto m = findArgsMismatch(on1, on0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "target");
  EXPECT_EQ(m->expected, "@cuda:0");
  EXPECT_EQ(m->actual, "@cuda:1");
  EXPECT_EQ(m->reason, "target device differs: expected cuda:0, got cuda:1");
  m = findArgsMismatch(onCpu, on0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->reason, "target device differs: expected cuda:0, got cpu");
  // Same target: the arguments are compared without it.
  m = findArgsMismatch(args({tensor({3}), TraceType::target("cuda:0")}), on0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "arg0");
  EXPECT_EQ(m->reason, "dim 0 differs: expected 2, got 3");
  m = findArgsMismatch(
      args({tensor({2}), tensor({2}), TraceType::target("cuda:0")}), on0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->reason, "expected 1 arguments, got 2");
  EXPECT_FALSE(findArgsMismatch(on0, on0));
}

// The cache never serves a call for one target with a specialization
// traced for another, with or without reduce_retracing.
TEST(TraceTypeTarget, CacheKeysByTarget) {
  for (bool relax : {false, true}) {
    CacheOptions options;
    options.reduceRetracing = relax;
    SpecializationCache<std::string> cache(options);
    int builds = 0;
    auto call = [&](const TraceType &type) {
      auto entry = cache.getOrTrace(type, [&](const TraceType &t) {
        ++builds;
        return llvm::Expected<std::shared_ptr<const std::string>>(
            std::make_shared<const std::string>(t.str()));
      });
      EXPECT_TRUE(static_cast<bool>(entry));
      if (!entry) {
        llvm::consumeError(entry.takeError());
        return std::string();
      }
      return *(*entry)->payload;
    };
    TraceType target0 = TraceType::target("cuda:0");
    EXPECT_EQ(call(args({tensor({2})})), "(Tensor<2xf32>,)");
    EXPECT_EQ(call(args({tensor({2}), target0})), "(Tensor<2xf32>, @cuda:0)");
    EXPECT_EQ(call(args({tensor({2}), TraceType::target("cuda:1")})),
              "(Tensor<2xf32>, @cuda:1)");
    EXPECT_EQ(call(args({tensor({2}, "cuda:0"), target0})),
              "(Tensor<2xf32, cuda:0>, @cuda:0)");
    EXPECT_EQ(builds, 4);
    EXPECT_EQ(call(args({tensor({2}), target0})), "(Tensor<2xf32>, @cuda:0)");
    EXPECT_EQ(builds, 4);
    auto history = cache.history();
    ASSERT_EQ(history.size(), 4u);
    EXPECT_EQ(history[1].reason.path, "target");
    EXPECT_EQ(history[1].reason.str(),
              "new argument types: target was @cpu, now @cuda:0 (closest "
              "specialization: (Tensor<2xf32>,))");
    // The closest specialization is one for the same target.
    EXPECT_EQ(history[3].reason.path, "arg0");
    EXPECT_EQ(history[3].reason.previousType, "Tensor<2xf32>");
    EXPECT_EQ(history[3].reason.newType, "Tensor<2xf32, cuda:0>");
    // A new shape on one target relaxes against that target only.
    call(args({tensor({3}), target0}));
    EXPECT_EQ(cache.specializations().back()->type.str(),
              relax ? "(Tensor<?xf32>, @cuda:0)" : "(Tensor<3xf32>, @cuda:0)");
  }
}

} // namespace
