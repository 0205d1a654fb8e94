//===- StructureTest.cpp - output structures flatten and unflatten --------===//

#include "FrontendTestUtils.h"

#include "tgc/Structure.h"

#include <array>
#include <map>
#include <optional>
#include <tuple>
#include <type_traits>
#include <unordered_map>
#include <vector>

using namespace tgc;
using namespace tgc::frontend::test;

namespace {

static_assert(std::is_same_v<HostStructureT<Tensor>, HostTensor>);
static_assert(std::is_same_v<HostStructureT<const Tensor &>, HostTensor>);
static_assert(
    std::is_same_v<HostStructureT<std::tuple<Tensor, std::vector<Tensor>>>,
                   std::tuple<HostTensor, std::vector<HostTensor>>>);
static_assert(std::is_same_v<HostStructureT<std::pair<Tensor, Tensor>>,
                             std::pair<HostTensor, HostTensor>>);
static_assert(
    std::is_same_v<HostStructureT<std::vector<std::pair<
                       std::optional<Tensor>, std::array<Tensor, 2>>>>,
                   std::vector<std::pair<std::optional<HostTensor>,
                                         std::array<HostTensor, 2>>>>);
static_assert(std::is_same_v<HostStructureT<std::map<std::string, Tensor>>,
                             std::map<std::string, HostTensor>>);
static_assert(kIsOutputStructure<std::tuple<Tensor, std::vector<Tensor>>>);
static_assert(!kIsOutputStructure<int>);
static_assert(!kIsOutputStructure<std::tuple<Tensor, int>>);
static_assert(!kIsOutputStructure<std::vector<HostTensor>>);

/// Distinct host tensors 0, 1, 2, ... (a rank-0 f32 holding its index).
std::vector<HostTensor> numbered(size_t n) {
  std::vector<HostTensor> out;
  for (size_t i = 0; i < n; ++i)
    out.push_back(f32({}, {double(i)}));
  return out;
}

double valueOf(const HostTensor &t) { return t.getDouble(0); }

/// Traces a function returning `structure(args)` and checks flattening order
/// by comparing values: returns the flat values.
TEST_F(TracerTest, FlattenOrderIsDepthFirst) {
  using Nested = std::tuple<Tensor, std::vector<Tensor>,
                            std::pair<Tensor, std::optional<Tensor>>,
                            std::optional<Tensor>, std::array<Tensor, 2>>;
  std::optional<Nested> symbolic;
  TracedModule traced = traceOk(
      {{DType::F32, {}}}, [&](llvm::ArrayRef<Tensor> a) -> std::vector<Tensor> {
        const Tensor &x = a[0];
        symbolic = Nested{x + 0,
                          {x + 1, x + 2},
                          {x + 3, std::nullopt},
                          x + 4,
                          {x + 5, x + 6}};
        return flattenOutputs(*symbolic);
      });
  ASSERT_TRUE(symbolic);
  EXPECT_EQ(countOutputs(*symbolic), 7u);
  auto flat = run(traced, {f32({}, {0})});
  ASSERT_EQ(flat.size(), 7u);
  for (size_t i = 0; i < flat.size(); ++i)
    EXPECT_EQ(valueOf(flat[i]), double(i));

  size_t pos = 0;
  auto host = unflattenOutputs(*symbolic, flat, pos);
  EXPECT_EQ(pos, 7u);
  static_assert(
      std::is_same_v<
          decltype(host),
          std::tuple<HostTensor, std::vector<HostTensor>,
                     std::pair<HostTensor, std::optional<HostTensor>>,
                     std::optional<HostTensor>, std::array<HostTensor, 2>>>);
  EXPECT_EQ(valueOf(std::get<0>(host)), 0);
  ASSERT_EQ(std::get<1>(host).size(), 2u);
  EXPECT_EQ(valueOf(std::get<1>(host)[0]), 1);
  EXPECT_EQ(valueOf(std::get<1>(host)[1]), 2);
  EXPECT_EQ(valueOf(std::get<2>(host).first), 3);
  EXPECT_FALSE(std::get<2>(host).second.has_value());
  ASSERT_TRUE(std::get<3>(host).has_value());
  EXPECT_EQ(valueOf(*std::get<3>(host)), 4);
  EXPECT_EQ(valueOf(std::get<4>(host)[0]), 5);
  EXPECT_EQ(valueOf(std::get<4>(host)[1]), 6);
}

TEST(Structure, SingleTensorAndPair) {
  Tensor t;
  std::vector<Tensor> flat;
  flattenOutputs(t, flat);
  EXPECT_EQ(flat.size(), 1u);

  std::vector<HostTensor> host = numbered(3);
  size_t pos = 1;
  HostTensor one = unflattenOutputs(t, host, pos);
  EXPECT_EQ(valueOf(one), 1);
  EXPECT_EQ(pos, 2u);

  std::pair<Tensor, Tensor> p;
  EXPECT_EQ(flattenOutputs(p).size(), 2u);
  auto hostPair = unflattenOutputs(p, numbered(2));
  EXPECT_EQ(valueOf(hostPair.first), 0);
  EXPECT_EQ(valueOf(hostPair.second), 1);
}

TEST(Structure, VectorsOfTuplesKeepTracedLengths) {
  std::vector<std::tuple<Tensor, std::vector<Tensor>>> symbolic(2);
  std::get<1>(symbolic[0]).resize(3);
  std::get<1>(symbolic[1]).resize(0);
  EXPECT_EQ(countOutputs(symbolic), 5u);
  auto host = unflattenOutputs(symbolic, numbered(5));
  ASSERT_EQ(host.size(), 2u);
  EXPECT_EQ(valueOf(std::get<0>(host[0])), 0);
  ASSERT_EQ(std::get<1>(host[0]).size(), 3u);
  EXPECT_EQ(valueOf(std::get<1>(host[0])[2]), 3);
  EXPECT_EQ(valueOf(std::get<0>(host[1])), 4);
  EXPECT_TRUE(std::get<1>(host[1]).empty());
}

TEST(Structure, MapsFollowKeyOrder) {
  std::map<std::string, std::vector<Tensor>> symbolic;
  symbolic["b"].resize(1);
  symbolic["a"].resize(2);
  EXPECT_EQ(countOutputs(symbolic), 3u);
  auto host = unflattenOutputs(symbolic, numbered(3));
  ASSERT_EQ(host.size(), 2u);
  EXPECT_EQ(valueOf(host["a"][0]), 0);
  EXPECT_EQ(valueOf(host["a"][1]), 1);
  EXPECT_EQ(valueOf(host["b"][0]), 2);

  std::unordered_map<int, Tensor> unordered = {{1, Tensor()}, {2, Tensor()}};
  std::vector<Tensor> flat;
  flattenOutputs(unordered, flat);
  EXPECT_EQ(flat.size(), 2u);
  auto hostUnordered = unflattenOutputs(unordered, numbered(2));
  EXPECT_EQ(hostUnordered.size(), 2u);
  // Same iteration order as flattening.
  size_t i = 0;
  for (const auto &entry : unordered)
    EXPECT_EQ(valueOf(hostUnordered.at(entry.first)), double(i++));
}

TEST(Structure, ShortInputIsDetectableNotACrash) {
  std::tuple<Tensor, Tensor, Tensor> symbolic;
  std::vector<HostTensor> flat = numbered(2);
  size_t pos = 0;
  auto host = unflattenOutputs(symbolic, flat, pos);
  EXPECT_EQ(pos, 3u); // != flat.size(): a mismatch.
  EXPECT_EQ(valueOf(std::get<0>(host)), 0);
  EXPECT_EQ(valueOf(std::get<1>(host)), 1);
  EXPECT_EQ(std::get<2>(host).rank(), 0);
}

} // namespace
