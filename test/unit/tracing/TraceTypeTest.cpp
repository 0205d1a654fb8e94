//===- TraceTypeTest.cpp - TraceType identity, lattice, diagnostics -------===//

#include "tgc/TraceType.h"
#include "tgc/AbslStatus.h"

#include "gtest/gtest.h"

#include <algorithm>
#include <limits>
#include <random>
#include <unordered_set>

using namespace tgc;
using namespace tgc::tracing;
using runtime::DType;
using Kind = TraceType::Kind;
using SequenceKind = TraceType::SequenceKind;

namespace {

constexpr int64_t kDyn = kDynamic;

TraceType tensor(std::vector<int64_t> shape, DType dtype = DType::F32,
                 std::string device = "cpu") {
  return TraceType::tensor(
      TensorSpec{dtype, std::move(shape), false, std::move(device)});
}
TraceType unranked(DType dtype = DType::F32) {
  return TraceType::tensor(TensorSpec{dtype, {}, true});
}
TraceType variable(std::vector<int64_t> shape, int64_t alias) {
  return TraceType::variable(TensorSpec{DType::F32, std::move(shape)}, alias);
}
TraceType intOf(int64_t value) { return TraceType::integer(value, "int"); }
TraceType str(std::string value) { return TraceType::string(std::move(value)); }
TraceType tuple(std::vector<TraceType> elements) {
  return TraceType::sequence(SequenceKind::Tuple, std::move(elements));
}
TraceType vec(std::vector<TraceType> elements) {
  return TraceType::sequence(SequenceKind::Vector, std::move(elements));
}
TraceType arr(std::vector<TraceType> elements) {
  return TraceType::sequence(SequenceKind::Array, std::move(elements));
}
TraceType pair(TraceType first, TraceType second) {
  return TraceType::sequence(SequenceKind::Pair,
                             {std::move(first), std::move(second)});
}
TraceType mapOf(std::vector<std::pair<TraceType, TraceType>> entries) {
  return TraceType::map(std::move(entries));
}

std::string errorMessage(const absl::Status &status) {
  return std::string(status.message());
}

//===----------------------------------------------------------------------===//
// Equality and hash
//===----------------------------------------------------------------------===//

TEST(TraceTypeEquality, TensorsCompareDTypeShapeAndDevice) {
  TraceType a = tensor({2, 3});
  EXPECT_EQ(a, tensor({2, 3}));
  EXPECT_EQ(a.hash(), tensor({2, 3}).hash());
  EXPECT_NE(a, tensor({2, 3}, DType::F64));
  EXPECT_NE(a, tensor({2, 4}));
  EXPECT_NE(a, tensor({2, 3, 1}));
  EXPECT_NE(a, tensor({2, kDyn}));
  EXPECT_NE(a, tensor({2, 3}, DType::F32, "gpu:0"));
  EXPECT_NE(a, unranked());
  EXPECT_NE(tensor({}), unranked());
}

TEST(TraceTypeEquality, UnknownRankIgnoresShape) {
  TraceType a = TraceType::tensor(TensorSpec{DType::I64, {2, 3}, true});
  EXPECT_EQ(a, unranked(DType::I64));
  EXPECT_TRUE(a.tensorSpec().shape.empty());
}

TEST(TraceTypeEquality, MapIsOrderInsensitive) {
  TraceType a = mapOf({{str("lr"), tensor({1})},
                       {str("beta"), intOf(2)},
                       {intOf(7), str("x")}});
  TraceType b = mapOf({{intOf(7), str("x")},
                       {str("lr"), tensor({1})},
                       {str("beta"), intOf(2)}});
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.hash(), b.hash());
  EXPECT_EQ(a.str(), b.str());
  // Entries are canonical: sorted by key.
  for (size_t i = 1; i < a.mapEntries().size(); ++i)
    EXPECT_LT(a.mapEntries()[i - 1].first, a.mapEntries()[i].first);
  EXPECT_NE(a, mapOf({{str("lr"), tensor({1})}, {str("beta"), intOf(2)}}));
  EXPECT_NE(a, mapOf({{str("lr"), tensor({1})},
                      {str("beta"), intOf(3)},
                      {intOf(7), str("x")}}));
}

TEST(TraceTypeEquality, SequenceKindsAreDistinct) {
  std::vector<TraceType> contents = {tensor({2}), intOf(1)};
  TraceType v = vec(contents), t = tuple(contents), a = arr(contents),
            p = pair(contents[0], contents[1]);
  std::vector<TraceType> all = {v, t, a, p};
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < all.size(); ++j)
      EXPECT_EQ(i == j, all[i] == all[j])
          << all[i].str() << " vs " << all[j].str();
  EXPECT_NE(vec({}), tuple({}));
  EXPECT_NE(vec({intOf(1)}), vec({intOf(1), intOf(1)}));
}

TEST(TraceTypeEquality, BoolIsNotInt) {
  EXPECT_NE(TraceType::boolean(true), TraceType::integer(1, "int"));
  EXPECT_NE(TraceType::boolean(false), TraceType::integer(0, "int"));
  EXPECT_NE(TraceType::boolean(true), TraceType::boolean(false));
  EXPECT_EQ(TraceType::boolean(true), TraceType::boolean(true));
}

TEST(TraceTypeEquality, IntegersAreKeyedByCppTypeAndValue) {
  EXPECT_EQ(TraceType::integer(1, "int"), TraceType::integer(1, "int"));
  EXPECT_NE(TraceType::integer(1, "int"), TraceType::integer(1, "int64_t"));
  EXPECT_NE(TraceType::integer(1, "int"), TraceType::integer(2, "int"));
  EXPECT_NE(TraceType::integer(1, "x"), TraceType::unsignedInteger(1, "x"));
  TraceType max = TraceType::unsignedInteger(
      std::numeric_limits<uint64_t>::max(), "uint64_t");
  EXPECT_EQ(max.uintValue(), std::numeric_limits<uint64_t>::max());
  EXPECT_TRUE(max.isUnsigned());
  EXPECT_EQ(max.str(), "uint64_t=18446744073709551615");
}

TEST(TraceTypeEquality, FloatsAreKeyedByCppTypeAndBits) {
  EXPECT_EQ(TraceType::floating(0.5, "double"),
            TraceType::floating(0.5, "double"));
  EXPECT_NE(TraceType::floating(0.5, "double"),
            TraceType::floating(0.5, "float"));
  EXPECT_NE(TraceType::floating(0.0, "double"),
            TraceType::floating(-0.0, "double"));
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(TraceType::floating(nan, "double"),
            TraceType::floating(-nan, "double"));
  EXPECT_EQ(TraceType::floating(nan, "double").hash(),
            TraceType::floating(-nan, "double").hash());
  EXPECT_NE(TraceType::floating(1.0, "double"), TraceType::integer(1, "int"));
}

TEST(TraceTypeEquality, NoneOptionalAndDefault) {
  EXPECT_EQ(TraceType(), TraceType::none());
  EXPECT_EQ(TraceType().kind(), Kind::None);
  TraceType empty = TraceType::optional(std::nullopt);
  EXPECT_NE(empty, TraceType::none());
  EXPECT_NE(empty, TraceType::optional(intOf(1)));
  EXPECT_EQ(TraceType::optional(intOf(1)), TraceType::optional(intOf(1)));
  EXPECT_FALSE(empty.optionalValue().has_value());
  EXPECT_EQ(*TraceType::optional(intOf(1)).optionalValue(), intOf(1));
}

TEST(TraceTypeEquality, UserTypesAndVariables) {
  EXPECT_EQ(TraceType::user("Cfg", intOf(1)), TraceType::user("Cfg", intOf(1)));
  EXPECT_NE(TraceType::user("Cfg", intOf(1)),
            TraceType::user("Other", intOf(1)));
  EXPECT_NE(TraceType::user("Cfg", intOf(1)), intOf(1));
  EXPECT_EQ(variable({2}, 0), variable({2}, 0));
  EXPECT_NE(variable({2}, 0), variable({2}, 1));
  EXPECT_NE(variable({2}, 0), tensor({2}));
  EXPECT_EQ(variable({2}, 3).aliasClass(), 3);
}

TEST(TraceTypeEquality, UsableAsHashKeyAndCopiesShareTheNode) {
  std::unordered_set<TraceType> set;
  set.insert(tuple({tensor({2}), intOf(1)}));
  set.insert(tuple({tensor({2}), intOf(1)}));
  set.insert(tuple({tensor({2}), intOf(2)}));
  set.insert(vec({tensor({2}), intOf(1)}));
  EXPECT_EQ(set.size(), 3u);
  TraceType a = tuple({tensor({2})});
  TraceType copy = a;
  EXPECT_EQ(copy, a);
  EXPECT_EQ(&copy.elements()[0], &a.elements()[0]);
}

TEST(TraceTypeEquality, CompareIsATotalOrderConsistentWithEquality) {
  std::vector<TraceType> types = {
      tensor({2, 3}),
      tensor({2, kDyn}),
      unranked(),
      variable({2}, 0),
      variable({2}, 1),
      intOf(-1),
      intOf(3),
      TraceType::integer(3, "long"),
      TraceType::unsignedInteger(3, "int"),
      TraceType::boolean(false),
      TraceType::boolean(true),
      TraceType::floating(-0.0, "double"),
      TraceType::floating(0.0, "double"),
      TraceType::floating(std::numeric_limits<double>::quiet_NaN(), "double"),
      str(""),
      str("a"),
      TraceType::none(),
      vec({}),
      vec({intOf(1)}),
      tuple({intOf(1)}),
      pair(intOf(1), intOf(2)),
      TraceType::optional(std::nullopt),
      TraceType::optional(intOf(1)),
      mapOf({}),
      mapOf({{str("a"), intOf(1)}}),
      TraceType::user("U", intOf(1))};
  for (const TraceType &a : types) {
    for (const TraceType &b : types) {
      EXPECT_EQ(a.compare(b) == 0, a == b) << a.str() << " vs " << b.str();
      EXPECT_EQ(a.compare(b), -b.compare(a)) << a.str() << " vs " << b.str();
      for (const TraceType &c : types)
        if (a.compare(b) < 0 && b.compare(c) < 0) {
          EXPECT_LT(a.compare(c), 0);
        }
    }
  }
}

//===----------------------------------------------------------------------===//
// Printing
//===----------------------------------------------------------------------===//

TEST(TraceTypeStr, Examples) {
  EXPECT_EQ(tuple({tensor({kDyn, 3}), intOf(4),
                   vec({tensor({2}, DType::I64), tensor({2}, DType::I64)})})
                .str(),
            "(Tensor<?x3xf32>, int=4, [Tensor<2xi64>, Tensor<2xi64>])");
  EXPECT_EQ(tensor({}).str(), "Tensor<f32>");
  EXPECT_EQ(unranked(DType::BF16).str(), "Tensor<*xbf16>");
  EXPECT_EQ(tensor({2}, DType::F16, "gpu:0").str(), "Tensor<2xf16, gpu:0>");
  EXPECT_EQ(variable({kDyn, 4}, 1).str(), "Variable<?x4xf32, alias=1>");
  EXPECT_EQ(TraceType::boolean(true).str(), "bool=true");
  EXPECT_EQ(TraceType::integer(-7, "int64_t").str(), "int64_t=-7");
  EXPECT_EQ(TraceType::floating(0.1f, "float").str(), "float=0.1");
  EXPECT_EQ(TraceType::floating(0.1, "double").str(), "double=0.1");
  EXPECT_EQ(TraceType::floating(-1.0 / 0.0, "double").str(), "double=-inf");
  EXPECT_EQ(str(std::string("a\"b\\\n\x01", 6)).str(),
            "string=\"a\\\"b\\\\\\n\\x01\"");
  EXPECT_EQ(TraceType::none().str(), "nullopt");
  EXPECT_EQ(TraceType::optional(std::nullopt).str(), "optional()");
  EXPECT_EQ(TraceType::optional(intOf(1)).str(), "optional(int=1)");
  EXPECT_EQ(tuple({intOf(1)}).str(), "(int=1,)");
  EXPECT_EQ(tuple({}).str(), "()");
  EXPECT_EQ(arr({intOf(1), intOf(2)}).str(), "array[int=1, int=2]");
  EXPECT_EQ(pair(str("k"), tensor({1})).str(),
            "pair(string=\"k\", Tensor<1xf32>)");
  EXPECT_EQ(mapOf({{str("b"), intOf(2)}, {str("a"), intOf(1)}}).str(),
            "{string=\"a\": int=1, string=\"b\": int=2}");
  EXPECT_EQ(TraceType::user("ns::Cfg", tuple({intOf(1), intOf(2)})).str(),
            "ns::Cfg((int=1, int=2))");
  EXPECT_EQ(formatTensorSpec(TensorSpec{DType::I1, {0, kDyn}}),
            "Tensor<0x?xi1>");
}

//===----------------------------------------------------------------------===//
// Subtyping
//===----------------------------------------------------------------------===//

TEST(TraceTypeSubtype, TensorDims) {
  EXPECT_TRUE(tensor({4, 3}).isSubtypeOf(tensor({4, 3})));
  EXPECT_TRUE(tensor({4, 3}).isSubtypeOf(tensor({kDyn, 3})));
  EXPECT_TRUE(tensor({4, 3}).isSubtypeOf(tensor({kDyn, kDyn})));
  EXPECT_TRUE(tensor({kDyn, 3}).isSubtypeOf(tensor({kDyn, kDyn})));
  EXPECT_FALSE(tensor({kDyn, 3}).isSubtypeOf(tensor({4, 3})));
  EXPECT_FALSE(tensor({4, 3}).isSubtypeOf(tensor({4, 2})));
  EXPECT_FALSE(tensor({4, 3}).isSubtypeOf(tensor({kDyn})));
  EXPECT_FALSE(tensor({4}).isSubtypeOf(tensor({4, kDyn})));
  EXPECT_TRUE(tensor({}).isSubtypeOf(tensor({})));
  EXPECT_FALSE(tensor({}).isSubtypeOf(tensor({kDyn})));
  EXPECT_TRUE(tensor({0, 5}).isSubtypeOf(tensor({kDyn, 5})));
}

TEST(TraceTypeSubtype, TensorUnknownRank) {
  EXPECT_TRUE(tensor({}).isSubtypeOf(unranked()));
  EXPECT_TRUE(tensor({4, 3}).isSubtypeOf(unranked()));
  EXPECT_TRUE(tensor({kDyn, 3, 7}).isSubtypeOf(unranked()));
  EXPECT_TRUE(unranked().isSubtypeOf(unranked()));
  EXPECT_FALSE(unranked().isSubtypeOf(tensor({kDyn})));
  EXPECT_FALSE(unranked().isSubtypeOf(tensor({})));
  EXPECT_FALSE(tensor({4}).isSubtypeOf(unranked(DType::I32)));
}

TEST(TraceTypeSubtype, TensorDTypeAndDevice) {
  EXPECT_FALSE(tensor({4}, DType::F32).isSubtypeOf(tensor({4}, DType::F16)));
  EXPECT_FALSE(tensor({4}, DType::I32).isSubtypeOf(tensor({kDyn}, DType::I64)));
  EXPECT_FALSE(tensor({4}).isSubtypeOf(tensor({4}, DType::F32, "gpu:0")));
  EXPECT_FALSE(
      tensor({4}, DType::F32, "gpu:0").isSubtypeOf(unranked(DType::F32)));
  EXPECT_TRUE(tensor({4}, DType::F32, "gpu:0")
                  .isSubtypeOf(tensor({kDyn}, DType::F32, "gpu:0")));
}

TEST(TraceTypeSubtype, Variables) {
  EXPECT_TRUE(variable({4, 3}, 0).isSubtypeOf(variable({kDyn, 3}, 0)));
  EXPECT_FALSE(variable({4, 3}, 0).isSubtypeOf(variable({kDyn, 3}, 1)));
  EXPECT_FALSE(variable({4, 3}, 0).isSubtypeOf(tensor({4, 3})));
  EXPECT_FALSE(tensor({4, 3}).isSubtypeOf(variable({4, 3}, 0)));
  EXPECT_TRUE(variable({4, 3}, 2).isSubtypeOf(
      TraceType::variable(TensorSpec{DType::F32, {}, true}, 2)));
}

TEST(TraceTypeSubtype, ScalarsOnlyAcceptTheSameValue) {
  std::vector<TraceType> scalars = {TraceType::boolean(true),
                                    TraceType::boolean(false),
                                    intOf(1),
                                    TraceType::integer(1, "long"),
                                    TraceType::floating(1.0, "double"),
                                    TraceType::floating(1.0, "float"),
                                    str("1"),
                                    TraceType::none()};
  for (size_t i = 0; i < scalars.size(); ++i) {
    EXPECT_TRUE(scalars[i].isScalar());
    for (size_t j = 0; j < scalars.size(); ++j)
      EXPECT_EQ(scalars[i].isSubtypeOf(scalars[j]), i == j)
          << scalars[i].str() << " <: " << scalars[j].str();
  }
}

TEST(TraceTypeSubtype, Sequences) {
  TraceType sub = tuple({tensor({4, 3}), vec({tensor({2}), intOf(1)})});
  TraceType super = tuple({tensor({kDyn, 3}), vec({tensor({kDyn}), intOf(1)})});
  EXPECT_TRUE(sub.isSubtypeOf(super));
  EXPECT_FALSE(super.isSubtypeOf(sub));
  EXPECT_FALSE(sub.isSubtypeOf(
      tuple({tensor({kDyn, 3}), vec({tensor({kDyn}), intOf(2)})})));
  EXPECT_FALSE(vec({tensor({2})}).isSubtypeOf(tuple({tensor({kDyn})})));
  EXPECT_FALSE(vec({tensor({2})}).isSubtypeOf(arr({tensor({kDyn})})));
  EXPECT_FALSE(
      vec({tensor({2})}).isSubtypeOf(vec({tensor({kDyn}), tensor({kDyn})})));
  EXPECT_TRUE(
      pair(tensor({2}), str("a")).isSubtypeOf(pair(unranked(), str("a"))));
  EXPECT_FALSE(
      pair(tensor({2}), str("a")).isSubtypeOf(pair(unranked(), str("b"))));
  EXPECT_TRUE(vec({}).isSubtypeOf(vec({})));
}

TEST(TraceTypeSubtype, Optionals) {
  TraceType empty = TraceType::optional(std::nullopt);
  EXPECT_TRUE(empty.isSubtypeOf(empty));
  EXPECT_TRUE(TraceType::optional(tensor({2}))
                  .isSubtypeOf(TraceType::optional(tensor({kDyn}))));
  EXPECT_FALSE(empty.isSubtypeOf(TraceType::optional(tensor({kDyn}))));
  EXPECT_FALSE(TraceType::optional(tensor({2})).isSubtypeOf(empty));
  EXPECT_FALSE(empty.isSubtypeOf(TraceType::none()));
  EXPECT_FALSE(TraceType::none().isSubtypeOf(empty));
}

TEST(TraceTypeSubtype, Maps) {
  TraceType sub = mapOf({{str("w"), tensor({4, 3})}, {str("b"), tensor({3})}});
  TraceType super =
      mapOf({{str("b"), tensor({kDyn})}, {str("w"), tensor({kDyn, 3})}});
  EXPECT_TRUE(sub.isSubtypeOf(super));
  EXPECT_FALSE(super.isSubtypeOf(sub));
  // Different key sets never match, even when values would.
  EXPECT_FALSE(sub.isSubtypeOf(mapOf({{str("w"), unranked()}})));
  EXPECT_FALSE(mapOf({{str("w"), tensor({4, 3})}}).isSubtypeOf(super));
  EXPECT_FALSE(
      sub.isSubtypeOf(mapOf({{str("w"), unranked()}, {str("c"), unranked()}})));
  // Keys are compared exactly: int 1 and long 1 are different keys.
  EXPECT_FALSE(mapOf({{intOf(1), tensor({2})}})
                   .isSubtypeOf(mapOf(
                       {{TraceType::integer(1, "long"), tensor({kDyn})}})));
  EXPECT_TRUE(mapOf({}).isSubtypeOf(mapOf({})));
}

TEST(TraceTypeSubtype, UserTypes) {
  TraceType sub = TraceType::user("Cfg", tuple({tensor({2}), intOf(1)}));
  EXPECT_TRUE(
      sub.isSubtypeOf(TraceType::user("Cfg", tuple({unranked(), intOf(1)}))));
  EXPECT_FALSE(
      sub.isSubtypeOf(TraceType::user("Cfg2", tuple({unranked(), intOf(1)}))));
  EXPECT_FALSE(sub.isSubtypeOf(tuple({unranked(), intOf(1)})));
  EXPECT_FALSE(tuple({tensor({2}), intOf(1)}).isSubtypeOf(sub));
}

TEST(TraceTypeSubtype, KindsAreIncomparable) {
  std::vector<TraceType> types = {tensor({2}),
                                  variable({2}, 0),
                                  intOf(2),
                                  vec({intOf(2)}),
                                  TraceType::optional(intOf(2)),
                                  mapOf({{intOf(2), intOf(2)}}),
                                  TraceType::user("U", intOf(2))};
  for (size_t i = 0; i < types.size(); ++i)
    for (size_t j = 0; j < types.size(); ++j)
      EXPECT_EQ(types[i].isSubtypeOf(types[j]), i == j);
}

//===----------------------------------------------------------------------===//
// Common supertype
//===----------------------------------------------------------------------===//

TEST(TraceTypeSupertype, VaryingBatchBecomesDynamic) {
  TraceType a = tuple({tensor({4, 64}), tensor({64, 10})});
  TraceType b = tuple({tensor({8, 64}), tensor({64, 10})});
  std::optional<TraceType> super = a.mostSpecificCommonSupertype({b});
  ASSERT_TRUE(super);
  EXPECT_EQ(*super, tuple({tensor({kDyn, 64}), tensor({64, 10})}));
  // The relaxed specialization serves every later batch size.
  EXPECT_TRUE(tuple({tensor({16, 64}), tensor({64, 10})}).isSubtypeOf(*super));
  EXPECT_TRUE(a.isSubtypeOf(*super));
  EXPECT_TRUE(b.isSubtypeOf(*super));
}

TEST(TraceTypeSupertype, MostSpecific) {
  std::optional<TraceType> super =
      tensor({2, 3}).mostSpecificCommonSupertype({tensor({2, 4})});
  ASSERT_TRUE(super);
  EXPECT_EQ(*super, tensor({2, kDyn}));
  EXPECT_EQ(*tensor({2, 3}).mostSpecificCommonSupertype({}), tensor({2, 3}));
  EXPECT_EQ(*tensor({2, 3}).mostSpecificCommonSupertype({tensor({2, 3})}),
            tensor({2, 3}));
  EXPECT_EQ(*tensor({2, 3}).mostSpecificCommonSupertype(
                {tensor({5, 3}), tensor({7, 3}), tensor({2, 3})}),
            tensor({kDyn, 3}));
  EXPECT_EQ(*tensor({2, 3}).mostSpecificCommonSupertype(
                {tensor({kDyn, 3}), tensor({2, 3})}),
            tensor({kDyn, 3}));
}

TEST(TraceTypeSupertype, RankChangeGivesUnknownRank) {
  EXPECT_EQ(*tensor({2, 3}).mostSpecificCommonSupertype({tensor({2, 3, 1})}),
            unranked());
  EXPECT_EQ(*tensor({}).mostSpecificCommonSupertype({tensor({1})}), unranked());
  EXPECT_EQ(*unranked().mostSpecificCommonSupertype({tensor({1})}), unranked());
  EXPECT_EQ(
      *variable({2}, 0).mostSpecificCommonSupertype({variable({2, 2}, 0)}),
      TraceType::variable(TensorSpec{DType::F32, {}, true}, 0));
}

TEST(TraceTypeSupertype, NoneWhenIncomparable) {
  EXPECT_FALSE(
      tensor({2}).mostSpecificCommonSupertype({tensor({2}, DType::F16)}));
  EXPECT_FALSE(tensor({2}).mostSpecificCommonSupertype(
      {tensor({2}, DType::F32, "gpu:0")}));
  EXPECT_FALSE(tensor({2}).mostSpecificCommonSupertype({variable({2}, 0)}));
  EXPECT_FALSE(
      variable({2}, 0).mostSpecificCommonSupertype({variable({2}, 1)}));
  // Scalars are baked in: a changed value has no common supertype.
  EXPECT_FALSE(intOf(1).mostSpecificCommonSupertype({intOf(2)}));
  EXPECT_FALSE(
      intOf(1).mostSpecificCommonSupertype({TraceType::integer(1, "long")}));
  EXPECT_FALSE(TraceType::boolean(true).mostSpecificCommonSupertype(
      {TraceType::boolean(false)}));
  EXPECT_FALSE(str("a").mostSpecificCommonSupertype({str("b")}));
  EXPECT_EQ(*intOf(1).mostSpecificCommonSupertype({intOf(1)}), intOf(1));
  // Containers: structure must agree.
  EXPECT_FALSE(
      vec({tensor({2})})
          .mostSpecificCommonSupertype({vec({tensor({2}), tensor({2})})}));
  EXPECT_FALSE(
      vec({tensor({2})}).mostSpecificCommonSupertype({tuple({tensor({2})})}));
  EXPECT_FALSE(
      tuple({tensor({2}), intOf(1)})
          .mostSpecificCommonSupertype({tuple({tensor({3}), intOf(2)})}));
  EXPECT_FALSE(
      mapOf({{str("a"), tensor({2})}})
          .mostSpecificCommonSupertype({mapOf({{str("b"), tensor({2})}})}));
  EXPECT_FALSE(
      TraceType::optional(tensor({2}))
          .mostSpecificCommonSupertype({TraceType::optional(std::nullopt)}));
  EXPECT_FALSE(
      TraceType::user("A", tensor({2}))
          .mostSpecificCommonSupertype({TraceType::user("B", tensor({2}))}));
  // A later incomparable argument spoils the whole fold.
  EXPECT_FALSE(tensor({2}).mostSpecificCommonSupertype(
      {tensor({3}), tensor({3}, DType::I8)}));
}

TEST(TraceTypeSupertype, ContainersElementwise) {
  TraceType a = TraceType::user(
      "Batch",
      mapOf({{str("x"), tensor({4, 3})},
             {str("mask"), TraceType::optional(tensor({4}, DType::I1))},
             {str("ids"), pair(tensor({4}, DType::I64), intOf(0))}}));
  TraceType b = TraceType::user(
      "Batch",
      mapOf({{str("x"), tensor({5, 3})},
             {str("mask"), TraceType::optional(tensor({5}, DType::I1))},
             {str("ids"), pair(tensor({5, 1}, DType::I64), intOf(0))}}));
  TraceType expected = TraceType::user(
      "Batch",
      mapOf({{str("x"), tensor({kDyn, 3})},
             {str("mask"), TraceType::optional(tensor({kDyn}, DType::I1))},
             {str("ids"), pair(unranked(DType::I64), intOf(0))}}));
  std::optional<TraceType> super = a.mostSpecificCommonSupertype({b});
  ASSERT_TRUE(super);
  EXPECT_EQ(*super, expected) << super->str();
  EXPECT_EQ(
      *arr({tensor({1}), tensor({2})})
           .mostSpecificCommonSupertype({arr({tensor({3}), tensor({2})})}),
      arr({tensor({kDyn}), tensor({2})}));
}

//===----------------------------------------------------------------------===//
// Mismatch diagnostics
//===----------------------------------------------------------------------===//

TEST(TraceTypeMismatch, NoneWhenSubtype) {
  EXPECT_FALSE(findMismatch(tensor({4, 3}), tensor({kDyn, 3})));
  EXPECT_FALSE(findMismatch(tuple({intOf(1)}), tuple({intOf(1)}), "args"));
  EXPECT_TRUE(findMismatches(tensor({4, 3}), tensor({kDyn, 3})).empty());
}

TEST(TraceTypeMismatch, NestedPath) {
  TraceType expected =
      tuple({tensor({kDyn, 3}),
             vec({pair(tensor({2}), intOf(0)), pair(tensor({2}), intOf(1)),
                  pair(tensor({2}), intOf(2))})});
  TraceType actual =
      tuple({tensor({8, 3}),
             vec({pair(tensor({2}), intOf(0)), pair(tensor({2}), intOf(1)),
                  pair(tensor({5}), intOf(2))})});
  std::optional<Mismatch> m = findArgsMismatch(actual, expected);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "arg1[2].first");
  EXPECT_EQ(m->expected, "Tensor<2xf32>");
  EXPECT_EQ(m->actual, "Tensor<5xf32>");
  EXPECT_EQ(m->reason, "dim 0 differs: expected 2, got 5");

  m = findMismatch(actual.elements()[1], expected.elements()[1], "arg1");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "arg1[2].first");
  m = findMismatch(actual, expected);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "[1][2].first");
}

TEST(TraceTypeMismatch, PathsThroughEveryContainer) {
  TraceType expected = mapOf(
      {{str("opt"),
        TraceType::optional(arr({intOf(1), pair(intOf(2), tensor({3}))}))},
       {intOf(4), TraceType::user("U", tuple({tensor({1})}))}});
  TraceType actual = mapOf(
      {{str("opt"), TraceType::optional(arr(
                        {intOf(1), pair(intOf(2), tensor({3}, DType::I32))}))},
       {intOf(4), TraceType::user("U", tuple({tensor({2})}))}});
  std::vector<Mismatch> all = findMismatches(actual, expected, "arg0");
  ASSERT_EQ(all.size(), 2u);
  // Canonical order: the int key sorts before the string key.
  EXPECT_EQ(all[0].path, "arg0[4][0]");
  EXPECT_EQ(all[0].reason, "dim 0 differs: expected 1, got 2");
  EXPECT_EQ(all[1].path, "arg0[\"opt\"].value()[1].second");
  EXPECT_EQ(all[1].reason, "dtype differs: expected f32, got i32");
  std::vector<Mismatch> first = findMismatches(actual, expected, "arg0", 1);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].path, all[0].path);
}

TEST(TraceTypeMismatch, Reasons) {
  auto reason = [](const TraceType &actual, const TraceType &expected) {
    std::optional<Mismatch> m = findMismatch(actual, expected, "x");
    return m ? m->reason : std::string("<none>");
  };
  EXPECT_EQ(reason(tensor({2}, DType::I64), tensor({2})),
            "dtype differs: expected f32, got i64");
  EXPECT_EQ(reason(tensor({2}, DType::F32, "gpu:0"), tensor({2})),
            "device differs: expected cpu, got gpu:0");
  EXPECT_EQ(reason(tensor({2, 3}), tensor({2})),
            "rank differs: expected 1, got 2");
  EXPECT_EQ(reason(unranked(), tensor({2})),
            "rank differs: expected rank 1, got an unknown rank");
  EXPECT_EQ(reason(tensor({kDyn}), tensor({2})),
            "dim 0 differs: expected 2, got a dynamic dim");
  EXPECT_EQ(reason(vec({intOf(1)}), tuple({intOf(1)})),
            "kind differs: expected a tuple, got a vector");
  EXPECT_EQ(reason(intOf(1), TraceType::boolean(true)),
            "kind differs: expected a bool, got a integer");
  EXPECT_EQ(reason(vec({intOf(1)}), vec({intOf(1), intOf(2)})),
            "length differs: expected 2, got 1");
  EXPECT_EQ(reason(intOf(1), intOf(2)),
            "value differs (scalars are baked into the trace)");
  EXPECT_EQ(reason(str("a"), str("b")),
            "value differs (scalars are baked into the trace)");
  EXPECT_EQ(reason(intOf(1), TraceType::integer(1, "int64_t")),
            "C++ type differs: expected int64_t, got int");
  EXPECT_EQ(
      reason(TraceType::optional(std::nullopt), TraceType::optional(intOf(1))),
      "expected an engaged optional, got an empty one");
  EXPECT_EQ(
      reason(TraceType::optional(intOf(1)), TraceType::optional(std::nullopt)),
      "expected an empty optional, got an engaged one");
  EXPECT_EQ(reason(mapOf({{str("a"), intOf(1)}, {str("c"), intOf(1)}}),
                   mapOf({{str("a"), intOf(1)}, {str("b"), intOf(1)}})),
            "keys differ: missing \"b\"; unexpected \"c\"");
  EXPECT_EQ(reason(mapOf({{str("a"), intOf(1)}}),
                   mapOf({{str("a"), intOf(1)}, {intOf(3), intOf(1)}})),
            "keys differ: missing 3");
  EXPECT_EQ(
      reason(TraceType::user("A", intOf(1)), TraceType::user("B", intOf(1))),
      "user type differs: expected B, got A");
  EXPECT_EQ(reason(variable({2}, 1), variable({2}, 0)),
            "aliasing differs: expected the storage of argument 0, got the "
            "storage of argument 1");
  std::optional<Mismatch> m = findMismatch(intOf(1), intOf(2));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "");
  EXPECT_EQ(m->expected, "int=2");
  EXPECT_EQ(m->actual, "int=1");
}

TEST(TraceTypeMismatch, ArgumentCount) {
  std::optional<Mismatch> m =
      findArgsMismatch(tuple({intOf(1)}), tuple({intOf(1), intOf(2)}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "");
  EXPECT_EQ(m->reason, "expected 2 arguments, got 1");
  EXPECT_FALSE(findArgsMismatch(tuple({tensor({3})}), tuple({tensor({kDyn})})));
  m = findArgsMismatch(tuple({tensor({3}), intOf(2)}),
                       tuple({tensor({kDyn}), intOf(1)}));
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "arg1");
}

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

std::optional<TraceType> selectType(const TraceType &call,
                                    const std::vector<TraceType> &candidates) {
  std::optional<size_t> index = selectMostSpecific(call, candidates);
  if (!index)
    return std::nullopt;
  EXPECT_TRUE(call.isSubtypeOf(candidates[*index]));
  return candidates[*index];
}

TEST(TraceTypeDispatch, NoneAccepts) {
  EXPECT_FALSE(selectMostSpecific(tensor({2}), {}));
  EXPECT_FALSE(
      selectMostSpecific(tensor({2}), {tensor({3}), tensor({2}, DType::I8)}));
}

TEST(TraceTypeDispatch, MostSpecificWins) {
  std::vector<TraceType> candidates = {unranked(), tensor({kDyn, kDyn}),
                                       tensor({kDyn, 3}), tensor({4, 3}),
                                       tensor({5, 3})};
  EXPECT_EQ(*selectType(tensor({4, 3}), candidates), tensor({4, 3}));
  EXPECT_EQ(*selectType(tensor({6, 3}), candidates), tensor({kDyn, 3}));
  EXPECT_EQ(*selectType(tensor({6, 2}), candidates), tensor({kDyn, kDyn}));
  EXPECT_EQ(*selectType(tensor({6}), candidates), unranked());
}

TEST(TraceTypeDispatch, IndependentOfInsertionOrder) {
  TraceType call = tuple({tensor({2, 3}), tensor({2, 3})});
  std::vector<TraceType> candidates = {
      tuple({tensor({kDyn, 3}), tensor({2, kDyn})}), // 2 dynamic dims
      tuple({tensor({2, kDyn}), tensor({kDyn, 3})}), // 2 dynamic dims
      tuple({tensor({2, 3}), unranked()}),           // 1 unknown rank
      tuple({tensor({kDyn, kDyn}), tensor({2, 3})}), // 2 dynamic dims
      tuple({unranked(), unranked()}),
      tuple({tensor({2, 3}), tensor({3, 3})}),        // rejects the call
      tuple({tensor({kDyn, 3}), tensor({kDyn, 3})})}; // 2 dynamic dims
  std::optional<TraceType> reference = selectType(call, candidates);
  ASSERT_TRUE(reference);
  EXPECT_EQ(reference->generality(), (std::pair<size_t, size_t>{0, 2}));
  std::mt19937 rng(42);
  for (int trial = 0; trial < 200; ++trial) {
    std::shuffle(candidates.begin(), candidates.end(), rng);
    EXPECT_EQ(*selectType(call, candidates), *reference);
  }
}

TEST(TraceTypeDispatch, DuplicatesPickTheLowestIndex) {
  std::vector<TraceType> candidates = {tensor({kDyn}), tensor({2}), tensor({2}),
                                       tensor({kDyn})};
  EXPECT_EQ(selectMostSpecific(tensor({2}), candidates), 1u);
  EXPECT_EQ(selectMostSpecific(tensor({3}), candidates), 0u);
}

TEST(TraceTypeDispatch, ScalarsAndContainersMustMatch) {
  std::vector<TraceType> candidates = {tuple({tensor({kDyn}), intOf(1)}),
                                       tuple({tensor({kDyn}), intOf(2)}),
                                       vec({tensor({kDyn}), intOf(1)})};
  EXPECT_EQ(selectMostSpecific(tuple({tensor({7}), intOf(2)}), candidates), 1u);
  EXPECT_EQ(selectMostSpecific(vec({tensor({7}), intOf(1)}), candidates), 2u);
  EXPECT_FALSE(selectMostSpecific(tuple({tensor({7}), intOf(3)}), candidates));
}

//===----------------------------------------------------------------------===//
// TensorSpec validation
//===----------------------------------------------------------------------===//

TEST(TensorSpecValidation, Valid) {
  EXPECT_EQ(errorMessage(validateTensorSpec(TensorSpec{DType::F32, {}})), "");
  EXPECT_EQ(
      errorMessage(validateTensorSpec(TensorSpec{DType::F32, {2, kDyn, 0}})),
      "");
  EXPECT_EQ(errorMessage(validateTensorSpec(TensorSpec{DType::F32, {}, true})),
            "");
  // Dynamic dims do not count toward the product.
  int64_t big = std::numeric_limits<int64_t>::max();
  EXPECT_EQ(errorMessage(
                validateTensorSpec(TensorSpec{DType::F32, {kDyn, big, kDyn}})),
            "");
  EXPECT_EQ(errorMessage(validateTensorSpec(TensorSpec{DType::F32, {big, 1}})),
            "");
}

TEST(TensorSpecValidation, NegativeDims) {
  std::string message =
      errorMessage(validateTensorSpec(TensorSpec{DType::F32, {2, -2}}));
  EXPECT_NE(message.find("dim 1 is -2"), std::string::npos) << message;
  EXPECT_NE(message.find("Tensor<2x-2xf32>"), std::string::npos) << message;
  EXPECT_NE(errorMessage(validateTensorSpec(
                TensorSpec{DType::F32, {std::numeric_limits<int64_t>::min()}})),
            "");
}

TEST(TensorSpecValidation, OverflowingProduct) {
  std::string message = errorMessage(
      validateTensorSpec(TensorSpec{DType::F32, {1LL << 32, kDyn, 1LL << 32}}));
  EXPECT_NE(message.find("overflows int64 at dim 2"), std::string::npos)
      << message;
  EXPECT_NE(errorMessage(validateTensorSpec(TensorSpec{
                DType::F32, {std::numeric_limits<int64_t>::max(), 2}})),
            "");
}

TEST(TensorSpecValidation, UnknownRankWithDimsAndEmptyDevice) {
  EXPECT_NE(errorMessage(validateTensorSpec(TensorSpec{DType::F32, {2}, true})),
            "");
  EXPECT_NE(
      errorMessage(validateTensorSpec(TensorSpec{DType::F32, {2}, false, ""})),
      "");
}

//===----------------------------------------------------------------------===//
// Lattice laws on random types
//===----------------------------------------------------------------------===//

class RandomTypes {
public:
  explicit RandomTypes(unsigned seed) : rng(seed) {}

  /// A random type; dims drawn from a small set so that relations are common.
  TraceType next(int depth = 0) {
    int choice = pick(depth >= 3 ? 4 : 9);
    switch (choice) {
    case 0:
    case 1:
      return nextTensor();
    case 2:
      return intOf(pick(2));
    case 3:
      return pick(2) ? str("k") : TraceType::boolean(pick(2));
    case 4:
      return TraceType::variable(nextTensor().tensorSpec(), pick(2));
    case 5:
    case 6: {
      std::vector<TraceType> elements;
      for (int i = 0, n = pick(3); i < n; ++i)
        elements.push_back(next(depth + 1));
      return TraceType::sequence(pick(2) ? SequenceKind::Tuple
                                         : SequenceKind::Vector,
                                 std::move(elements));
    }
    case 7:
      return pick(3) ? TraceType::optional(next(depth + 1))
                     : TraceType::optional(std::nullopt);
    default: {
      std::vector<std::pair<TraceType, TraceType>> entries;
      for (int i = 0, n = pick(3); i < n; ++i)
        entries.emplace_back(intOf(2 * i + pick(2)), next(depth + 1));
      return TraceType::user(pick(2) ? "A" : "B",
                             TraceType::map(std::move(entries)));
    }
    }
  }

private:
  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  TraceType nextTensor() {
    if (pick(6) == 0)
      return unranked(pick(4) ? DType::F32 : DType::I8);
    std::vector<int64_t> shape;
    const int64_t dims[] = {kDyn, 1, 2};
    for (int i = 0, n = pick(3); i < n; ++i)
      shape.push_back(dims[pick(3)]);
    return tensor(std::move(shape), pick(6) ? DType::F32 : DType::I8);
  }

  std::mt19937 rng;
};

TEST(TraceTypeLattice, LawsHoldOnRandomTypes) {
  RandomTypes random(7);
  std::vector<TraceType> types;
  for (int i = 0; i < 300; ++i)
    types.push_back(random.next());
  // Add joins so that related pairs are plentiful.
  for (int i = 0; i + 1 < 300; i += 2)
    if (std::optional<TraceType> join =
            types[i].mostSpecificCommonSupertype({types[i + 1]}))
      types.push_back(*join);

  size_t relatedPairs = 0, joins = 0;
  for (const TraceType &a : types) {
    EXPECT_TRUE(a.isSubtypeOf(a));
    for (const TraceType &b : types) {
      bool sub = a.isSubtypeOf(b);
      relatedPairs += sub && a != b;
      // findMismatch agrees with isSubtypeOf.
      EXPECT_EQ(!sub, findMismatch(a, b).has_value())
          << a.str() << " <: " << b.str();
      // Antisymmetry.
      if (sub && b.isSubtypeOf(a)) {
        EXPECT_EQ(a, b);
      }
      if (a == b) {
        EXPECT_EQ(a.hash(), b.hash());
      }
      // A strict subtype is strictly less general (dispatch relies on it).
      if (sub && a != b) {
        EXPECT_LT(a.generality(), b.generality())
            << a.str() << " <: " << b.str();
      }
      // The join is an upper bound, commutative, and the least one among
      // the types we have.
      std::optional<TraceType> join = a.mostSpecificCommonSupertype({b});
      std::optional<TraceType> joinBA = b.mostSpecificCommonSupertype({a});
      EXPECT_EQ(join.has_value(), joinBA.has_value());
      if (sub) {
        ASSERT_TRUE(join) << a.str() << " <: " << b.str();
        EXPECT_EQ(*join, b);
      }
      if (!join)
        continue;
      ++joins;
      EXPECT_EQ(*join, *joinBA);
      EXPECT_TRUE(a.isSubtypeOf(*join));
      EXPECT_TRUE(b.isSubtypeOf(*join));
    }
  }
  // Transitivity and leastness on a sample of triples.
  for (size_t i = 0; i < types.size(); i += 3)
    for (size_t j = 0; j < types.size(); j += 2)
      for (size_t k = 0; k < types.size(); k += 5) {
        const TraceType &a = types[i], &b = types[j], &c = types[k];
        if (a.isSubtypeOf(b) && b.isSubtypeOf(c)) {
          EXPECT_TRUE(a.isSubtypeOf(c));
        }
        if (a.isSubtypeOf(c) && b.isSubtypeOf(c)) {
          std::optional<TraceType> join = a.mostSpecificCommonSupertype({b});
          ASSERT_TRUE(join);
          EXPECT_TRUE(join->isSubtypeOf(c));
        }
      }
  EXPECT_GT(relatedPairs, 100u);
  EXPECT_GT(joins, 1000u);
}

TEST(TraceTypeLattice, DispatchNeverPicksAStrictSupertype) {
  RandomTypes random(11);
  std::vector<TraceType> candidates;
  for (int i = 0; i < 200; ++i)
    candidates.push_back(random.next());
  for (int i = 0; i < 200; ++i) {
    TraceType call = random.next();
    std::optional<size_t> chosen = selectMostSpecific(call, candidates);
    size_t accepting = 0;
    for (const TraceType &c : candidates) {
      if (!call.isSubtypeOf(c))
        continue;
      ++accepting;
      ASSERT_TRUE(chosen);
      EXPECT_FALSE(c.isSubtypeOf(candidates[*chosen]) &&
                   c != candidates[*chosen]);
    }
    EXPECT_EQ(accepting == 0, !chosen.has_value());
  }
}

} // namespace

//===----------------------------------------------------------------------===//
// Bounded dynamic dims
//===----------------------------------------------------------------------===//

namespace {
TensorSpec bounded(int64_t min, int64_t max) {
  TensorSpec spec{DType::F32, {kDyn, 8}};
  spec.ranges = {DimRange{min, max}, DimRange{}};
  return spec;
}
} // namespace

TEST(BoundedDims, AreValidatedAndPrinted) {
  EXPECT_TRUE(validateTensorSpec(bounded(1, 512)).ok());
  EXPECT_EQ(formatTensorSpec(bounded(1, 512)), "Tensor<?[1..512]x8xf32>");
  TensorSpec atLeast{DType::F32, {kDyn}};
  atLeast.ranges = {DimRange{4}};
  EXPECT_EQ(formatTensorSpec(atLeast), "Tensor<?[4..]xf32>");
  EXPECT_EQ(errorMessage(validateTensorSpec(bounded(5, 4))),
            "tensor spec Tensor<?[5..4]x8xf32>: dim 0 has the empty or "
            "negative range [5, 4]");
  EXPECT_EQ(errorMessage(validateTensorSpec(bounded(-1, 4))),
            "tensor spec Tensor<?[-1..4]x8xf32>: dim 0 has the empty or "
            "negative range [-1, 4]");
  TensorSpec onStatic{DType::F32, {3}};
  onStatic.ranges = {DimRange{1, 4}};
  EXPECT_EQ(errorMessage(validateTensorSpec(onStatic)),
            "tensor spec Tensor<3xf32>: dim 0 is static (3); only a dynamic "
            "dim takes a range");
  TensorSpec wrongCount{DType::F32, {kDyn, 3}};
  wrongCount.ranges = {DimRange{1, 4}};
  EXPECT_EQ(errorMessage(validateTensorSpec(wrongCount)),
            "tensor spec Tensor<?[1..4]x3xf32>: 1 dim ranges for 2 dims");
}

TEST(BoundedDims, AcceptTheSizesInTheirRange) {
  TraceType range = TraceType::tensor(bounded(1, 512));
  EXPECT_TRUE(tensor({1, 8}).isSubtypeOf(range));
  EXPECT_TRUE(tensor({512, 8}).isSubtypeOf(range));
  EXPECT_FALSE(tensor({0, 8}).isSubtypeOf(range));
  EXPECT_FALSE(tensor({513, 8}).isSubtypeOf(range));
  EXPECT_FALSE(tensor({100, 9}).isSubtypeOf(range));
  // A narrower range is a subtype, a wider one or an unbounded dim is not.
  EXPECT_TRUE(TraceType::tensor(bounded(2, 64)).isSubtypeOf(range));
  EXPECT_FALSE(TraceType::tensor(bounded(0, 64)).isSubtypeOf(range));
  EXPECT_FALSE(tensor({kDyn, 8}).isSubtypeOf(range));
  EXPECT_TRUE(range.isSubtypeOf(tensor({kDyn, 8})));
  // Ranges are part of the identity.
  EXPECT_NE(range, TraceType::tensor(bounded(1, 511)));
  EXPECT_NE(range, tensor({kDyn, 8}));
  EXPECT_EQ(range, TraceType::tensor(bounded(1, 512)));
  EXPECT_EQ(range.hash(), TraceType::tensor(bounded(1, 512)).hash());
}

TEST(BoundedDims, CallsOutsideTheRangeAreNamed) {
  TraceType range = TraceType::tensor(bounded(1, 512));
  std::optional<Mismatch> why = findMismatch(tensor({600, 8}), range, "x");
  ASSERT_TRUE(why.has_value());
  EXPECT_EQ(why->path, "x");
  EXPECT_EQ(why->reason,
            "dim 0 is 600, outside the range [1, 512] of dynamic dim 0");
  EXPECT_EQ(why->expected, "Tensor<?[1..512]x8xf32>");
  EXPECT_FALSE(findMismatch(tensor({512, 8}), range).has_value());
}

TEST(BoundedDims, RelaxingTwoSizesStaysUnbounded) {
  // reduce_retracing's supertype of two sizes accepts any size, as before;
  // a range given by a spec is kept (the hull with the other side).
  std::optional<TraceType> relaxed =
      tensor({3, 8}).mostSpecificCommonSupertype({tensor({5, 8})});
  ASSERT_TRUE(relaxed.has_value());
  EXPECT_EQ(*relaxed, tensor({kDyn, 8}));
  std::optional<TraceType> hull =
      TraceType::tensor(bounded(1, 16))
          .mostSpecificCommonSupertype({tensor({40, 8})});
  ASSERT_TRUE(hull.has_value());
  EXPECT_EQ(*hull, TraceType::tensor(bounded(1, 40)));
}
