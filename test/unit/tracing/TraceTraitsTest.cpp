//===- TraceTraitsTest.cpp - C++ argument values to TraceTypes ------------===//

#include "tgc/TraceTraits.h"
#include "tgc/AbslStatus.h"

#include "gtest/gtest.h"

#include <set>

using namespace tgc;
using namespace tgc::tracing;
using runtime::DType;
using runtime::HostTensor;
using Kind = TraceType::Kind;
using SequenceKind = TraceType::SequenceKind;

//===----------------------------------------------------------------------===//
// User types for the two opt-in routes (at namespace scope for ADL)
//===----------------------------------------------------------------------===//

namespace user_types {
/// Opts in through the ADL hook.
struct Dense {
  HostTensor weight;
  bool useBias = true;
};
TraceType tgcTraceType(const Dense &layer) {
  return userTraceType<Dense>(TraceType::sequence(
      TraceType::SequenceKind::Tuple,
      {traceTypeOf(layer.weight), traceTypeOf(layer.useBias)}));
}

/// Opts in through a TraceTraits specialization.
struct Config {
  int layers = 2;
  std::string activation = "relu";
};

/// Has both; the specialization wins.
struct Both {};
TraceType tgcTraceType(const Both &) { return TraceType::string("hook"); }

/// Has a hook with the wrong return type: not traceable.
struct WrongHook {};
inline int tgcTraceType(const WrongHook &) { return 0; }

struct NoTraits {};

enum class Mode : uint8_t { Train, Eval };
enum Plain { kA = -1, kB = 1 };
} // namespace user_types

template <> struct tgc::tracing::TraceTraits<user_types::Config> {
  static TraceType traceType(const user_types::Config &config) {
    return TraceType::user("Config",
                           TraceType::map({{TraceType::string("layers"),
                                            traceTypeOf(config.layers)},
                                           {TraceType::string("activation"),
                                            traceTypeOf(config.activation)}}));
  }
};

template <> struct tgc::tracing::TraceTraits<user_types::Both> {
  static TraceType traceType(const user_types::Both &) {
    return TraceType::string("traits");
  }
};

namespace {

using namespace user_types;

HostTensor makeTensor(DType dtype, std::vector<int64_t> shape) {
  absl::StatusOr<HostTensor> tensor = HostTensor::allocate(dtype, shape);
  EXPECT_TRUE(tensor.ok());
  return *std::move(tensor);
}

TraceType tensorType(DType dtype, std::vector<int64_t> shape) {
  return TraceType::tensor(TensorSpec{dtype, std::move(shape)});
}

//===----------------------------------------------------------------------===//
// Detection
//===----------------------------------------------------------------------===//

static_assert(kIsTraceable<HostTensor>);
static_assert(kIsTraceable<const HostTensor &>);
static_assert(kIsTraceable<bool>);
static_assert(kIsTraceable<int> && kIsTraceable<unsigned long long> &&
              kIsTraceable<char> && kIsTraceable<int8_t>);
static_assert(kIsTraceable<float> && kIsTraceable<double>);
static_assert(kIsTraceable<std::string> && kIsTraceable<std::string_view> &&
              kIsTraceable<const char *> && kIsTraceable<char[6]>);
static_assert(kIsTraceable<std::nullopt_t> && kIsTraceable<std::nullptr_t>);
static_assert(kIsTraceable<Mode> && kIsTraceable<Plain>);
static_assert(
    kIsTraceable<std::map<std::string,
                          std::vector<std::tuple<HostTensor, std::optional<int>,
                                                 std::pair<float, bool>>>>>);
static_assert(kIsTraceable<std::unordered_map<int, std::array<HostTensor, 2>>>);
static_assert(kIsTraceable<Dense> && kIsTraceable<Config> &&
              kIsTraceable<Both>);
static_assert(kIsTraceable<std::vector<Dense>>);

static_assert(!kIsTraceable<NoTraits>);
static_assert(!kIsTraceable<WrongHook>);
static_assert(!kIsTraceable<std::vector<NoTraits>>);
static_assert(!kIsTraceable<std::map<int, NoTraits>>);
static_assert(!kIsTraceable<std::map<NoTraits, int>>);
static_assert(!kIsTraceable<std::tuple<int, NoTraits>>);
static_assert(!kIsTraceable<std::pair<NoTraits, int>>);
static_assert(!kIsTraceable<std::optional<std::vector<NoTraits>>>);
static_assert(!kIsTraceable<std::array<NoTraits, 3>>);
static_assert(!kIsTraceable<long double>);
static_assert(!kIsTraceable<__int128>);
static_assert(!kIsTraceable<int *>);
static_assert(!kIsTraceable<void *>);

// The compile error names the innermost offending type.
static_assert(
    std::is_same_v<tracing::detail::Culprit<std::vector<std::map<
                       int, std::tuple<float, std::optional<NoTraits>>>>>::type,
                   NoTraits>);
static_assert(
    std::is_same_v<tracing::detail::Culprit<NoTraits>::type, NoTraits>);

//===----------------------------------------------------------------------===//
// Leaves
//===----------------------------------------------------------------------===//

TEST(TraceTraits, HostTensor) {
  HostTensor t = makeTensor(DType::BF16, {2, 0, 3});
  TraceType type = traceTypeOf(t);
  EXPECT_EQ(type.kind(), Kind::Tensor);
  EXPECT_EQ(type, tensorType(DType::BF16, {2, 0, 3}));
  EXPECT_EQ(type.tensorSpec().device, "cpu");
  EXPECT_EQ(traceTypeOf(makeTensor(DType::I64, {})).str(), "Tensor<i64>");
  // Only dtype and shape count, not the data.
  HostTensor u = makeTensor(DType::BF16, {2, 0, 3});
  EXPECT_EQ(traceTypeOf(u), type);
}

TEST(TraceTraits, Bool) {
  EXPECT_EQ(traceTypeOf(true), TraceType::boolean(true));
  EXPECT_EQ(traceTypeOf(false).kind(), Kind::Bool);
  EXPECT_NE(traceTypeOf(true), traceTypeOf(1));
}

template <typename T> void expectInteger(const char *name) {
  T one = 1;
  TraceType type = traceTypeOf(one);
  EXPECT_EQ(type.kind(), Kind::Int) << name;
  EXPECT_EQ(type.cppType(), name);
  EXPECT_EQ(type.isUnsigned(), std::is_unsigned_v<T>) << name;
  EXPECT_EQ(type.intValue(), 1);
  EXPECT_EQ(type.str(), std::string(name) + "=1");
  EXPECT_EQ(traceTypeOf(std::numeric_limits<T>::max()).uintValue(),
            static_cast<uint64_t>(std::numeric_limits<T>::max()))
      << name;
  EXPECT_EQ(traceTypeOf(std::numeric_limits<T>::min()).intValue(),
            static_cast<int64_t>(std::numeric_limits<T>::min()))
      << name;
}

TEST(TraceTraits, Integers) {
  expectInteger<int>("int");
  expectInteger<unsigned>("unsigned");
  expectInteger<int64_t>("int64_t");
  expectInteger<uint64_t>("uint64_t");
  expectInteger<int8_t>("int8_t");
  expectInteger<uint8_t>("uint8_t");
  expectInteger<int16_t>("int16_t");
  expectInteger<uint16_t>("uint16_t");
  expectInteger<char>("char");
  expectInteger<char8_t>("char8_t");
  expectInteger<char16_t>("char16_t");
  expectInteger<char32_t>("char32_t");
  expectInteger<wchar_t>("wchar_t");
  // On LP64 int64_t is long, so long long is the other 64-bit type.
  if constexpr (std::is_same_v<int64_t, long>) {
    expectInteger<long>("int64_t");
    expectInteger<long long>("long long");
    expectInteger<unsigned long long>("unsigned long long");
  }
  EXPECT_EQ(traceTypeOf(-5).intValue(), -5);
  EXPECT_EQ(traceTypeOf(std::numeric_limits<uint64_t>::max()).str(),
            "uint64_t=18446744073709551615");
}

TEST(TraceTraits, EveryIntegerTypeIsADistinctKey) {
  std::vector<TraceType> ones = {traceTypeOf(char(1)),
                                 traceTypeOf((signed char)1),
                                 traceTypeOf((unsigned char)1),
                                 traceTypeOf(short(1)),
                                 traceTypeOf((unsigned short)1),
                                 traceTypeOf(1),
                                 traceTypeOf(1u),
                                 traceTypeOf(1l),
                                 traceTypeOf(1ul),
                                 traceTypeOf(1ll),
                                 traceTypeOf(1ull),
                                 traceTypeOf(wchar_t(1)),
                                 traceTypeOf(char8_t(1)),
                                 traceTypeOf(char16_t(1)),
                                 traceTypeOf(char32_t(1))};
  std::set<std::string> names;
  for (const TraceType &t : ones)
    names.insert(t.cppType());
  EXPECT_EQ(names.size(), ones.size());
  for (size_t i = 0; i < ones.size(); ++i)
    for (size_t j = 0; j < ones.size(); ++j)
      EXPECT_EQ(ones[i] == ones[j], i == j);
  // int 1 and long 1 are different keys; so are true and 1.
  EXPECT_NE(traceTypeOf(1), traceTypeOf(1L));
  EXPECT_NE(traceTypeOf(1), traceTypeOf(int64_t{1}));
  EXPECT_NE(traceTypeOf(true), traceTypeOf(1));
  EXPECT_EQ(traceTypeOf(3), traceTypeOf(3));
  EXPECT_NE(traceTypeOf(3), traceTypeOf(4));
}

TEST(TraceTraits, Enums) {
  TraceType train = traceTypeOf(Mode::Train);
  EXPECT_EQ(train.kind(), Kind::Int);
  EXPECT_EQ(train.cppType(), "user_types::Mode");
  EXPECT_TRUE(train.isUnsigned());
  EXPECT_EQ(train.str(), "user_types::Mode=0");
  EXPECT_NE(train, traceTypeOf(Mode::Eval));
  EXPECT_NE(traceTypeOf(Mode::Train), traceTypeOf(uint8_t{0}));
  EXPECT_EQ(traceTypeOf(kA).intValue(), -1);
  EXPECT_EQ(traceTypeOf(kA).cppType(), "user_types::Plain");
}

TEST(TraceTraits, Floats) {
  EXPECT_EQ(traceTypeOf(0.5f), TraceType::floating(0.5, "float"));
  EXPECT_EQ(traceTypeOf(0.5), TraceType::floating(0.5, "double"));
  EXPECT_NE(traceTypeOf(0.5f), traceTypeOf(0.5));
  EXPECT_EQ(traceTypeOf(0.1f).str(), "float=0.1");
  EXPECT_EQ(traceTypeOf(1e-300).str(), "double=1e-300");
}

TEST(TraceTraits, Strings) {
  TraceType expected = TraceType::string("relu");
  std::string s = "relu";
  std::string_view view = s;
  const char *c = "relu";
  char buffer[16] = "relu";
  char *mutableC = buffer;
  EXPECT_EQ(traceTypeOf(s), expected);
  EXPECT_EQ(traceTypeOf(view), expected);
  EXPECT_EQ(traceTypeOf(c), expected);
  EXPECT_EQ(traceTypeOf("relu"), expected);
  EXPECT_EQ(traceTypeOf(buffer), expected);
  EXPECT_EQ(traceTypeOf(mutableC), expected);
  EXPECT_NE(traceTypeOf("gelu"), expected);
  EXPECT_EQ(traceTypeOf(std::string("a\0b", 3)).stringValue().size(), 3u);
  const char *null = nullptr;
  EXPECT_EQ(traceTypeOf(null), TraceType::none());
}

TEST(TraceTraits, NoneLike) {
  EXPECT_EQ(traceTypeOf(std::nullopt), TraceType::none());
  EXPECT_EQ(traceTypeOf(nullptr), TraceType::none());
}

//===----------------------------------------------------------------------===//
// Containers
//===----------------------------------------------------------------------===//

TEST(TraceTraits, Vector) {
  std::vector<HostTensor> tensors = {makeTensor(DType::F32, {2}),
                                     makeTensor(DType::F32, {3})};
  TraceType type = traceTypeOf(tensors);
  EXPECT_EQ(type.kind(), Kind::Sequence);
  EXPECT_EQ(type.sequenceKind(), SequenceKind::Vector);
  EXPECT_EQ(type.str(), "[Tensor<2xf32>, Tensor<3xf32>]");
  EXPECT_EQ(traceTypeOf(std::vector<int>{}).elements().size(), 0u);
  EXPECT_EQ(traceTypeOf(std::vector<bool>{true, false}).str(),
            "[bool=true, bool=false]");
  EXPECT_NE(traceTypeOf(std::vector<int>{1, 2}),
            traceTypeOf(std::vector<int>{1, 2, 3}));
}

TEST(TraceTraits, ArrayTupleAndPairAreDistinctFromVector) {
  std::vector<int> v = {1, 2};
  std::array<int, 2> a = {1, 2};
  std::tuple<int, int> t = {1, 2};
  std::pair<int, int> p = {1, 2};
  EXPECT_EQ(traceTypeOf(a).sequenceKind(), SequenceKind::Array);
  EXPECT_EQ(traceTypeOf(t).sequenceKind(), SequenceKind::Tuple);
  EXPECT_EQ(traceTypeOf(p).sequenceKind(), SequenceKind::Pair);
  std::vector<TraceType> all = {traceTypeOf(v), traceTypeOf(a), traceTypeOf(t),
                                traceTypeOf(p)};
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = 0; j < all.size(); ++j)
      EXPECT_EQ(all[i] == all[j], i == j);
  EXPECT_EQ(traceTypeOf(std::tuple<>{}).str(), "()");
  EXPECT_EQ(
      traceTypeOf(std::make_tuple(makeTensor(DType::I8, {4}), 2.0, "x")).str(),
      "(Tensor<4xi8>, double=2, string=\"x\")");
  EXPECT_EQ(traceTypeOf(std::make_pair(std::string("k"), true)).str(),
            "pair(string=\"k\", bool=true)");
}

TEST(TraceTraits, Optional) {
  std::optional<HostTensor> empty;
  std::optional<HostTensor> full = makeTensor(DType::F32, {5});
  EXPECT_EQ(traceTypeOf(empty), TraceType::optional(std::nullopt));
  EXPECT_EQ(traceTypeOf(full),
            TraceType::optional(tensorType(DType::F32, {5})));
  EXPECT_NE(traceTypeOf(empty), traceTypeOf(std::nullopt));
}

TEST(TraceTraits, MapsAreOrderInsensitive) {
  std::map<std::string, int> ordered = {{"a", 1}, {"b", 2}, {"c", 3}};
  std::unordered_map<std::string, int> small, large;
  small.insert({"c", 3});
  small.insert({"a", 1});
  small.insert({"b", 2});
  large.reserve(1024); // A different bucket layout, so a different iteration.
  large.insert({"b", 2});
  large.insert({"c", 3});
  large.insert({"a", 1});
  EXPECT_EQ(traceTypeOf(small), traceTypeOf(large));
  EXPECT_EQ(traceTypeOf(ordered), traceTypeOf(small));
  EXPECT_EQ(traceTypeOf(ordered).str(),
            "{string=\"a\": int=1, string=\"b\": int=2, string=\"c\": int=3}");
  std::map<std::string, int> fewer = {{"a", 1}, {"b", 2}};
  EXPECT_NE(traceTypeOf(ordered), traceTypeOf(fewer));
  EXPECT_FALSE(traceTypeOf(ordered).isSubtypeOf(traceTypeOf(fewer)));
}

TEST(TraceTraits, DeepNesting) {
  using Nested =
      std::map<std::string,
               std::vector<std::tuple<HostTensor, std::optional<int>,
                                      std::pair<float, std::array<bool, 2>>>>>;
  Nested value;
  value["x"].emplace_back(
      makeTensor(DType::F16, {1, 2}), std::nullopt,
      std::make_pair(1.5f, std::array<bool, 2>{true, false}));
  value["y"];
  EXPECT_EQ(traceTypeOf(value).str(),
            "{string=\"x\": [(Tensor<1x2xf16>, optional(), pair(float=1.5, "
            "array[bool=true, bool=false]))], string=\"y\": []}");
}

//===----------------------------------------------------------------------===//
// User types and arguments
//===----------------------------------------------------------------------===//

TEST(TraceTraits, UserTypeThroughTheHook) {
  Dense layer{makeTensor(DType::F32, {4, 8}), false};
  TraceType type = traceTypeOf(layer);
  EXPECT_EQ(type.kind(), Kind::User);
  EXPECT_EQ(type.userTypeName(), "user_types::Dense");
  EXPECT_EQ(type.str(), "user_types::Dense((Tensor<4x8xf32>, bool=false))");
  // A user type never equals its plain description.
  EXPECT_NE(type, type.userInner());
  // And it nests inside containers.
  EXPECT_EQ(traceTypeOf(std::vector<Dense>{layer, layer}).elements()[1], type);
}

TEST(TraceTraits, UserTypeThroughTraits) {
  TraceType type = traceTypeOf(Config{3, "gelu"});
  EXPECT_EQ(type.str(), "Config({string=\"activation\": string=\"gelu\", "
                        "string=\"layers\": int=3})");
  EXPECT_NE(type, traceTypeOf(Config{4, "gelu"}));
}

TEST(TraceTraits, SpecializationWinsOverHook) {
  EXPECT_EQ(traceTypeOf(Both{}), TraceType::string("traits"));
}

TEST(TraceTraits, Args) {
  HostTensor x = makeTensor(DType::F32, {8, 3});
  std::vector<HostTensor> ws = {makeTensor(DType::I64, {2}),
                                makeTensor(DType::I64, {2})};
  TraceType args = traceTypeOfArgs(x, 4, ws);
  EXPECT_EQ(args.sequenceKind(), SequenceKind::Tuple);
  EXPECT_EQ(args.str(),
            "(Tensor<8x3xf32>, int=4, [Tensor<2xi64>, Tensor<2xi64>])");
  EXPECT_EQ(traceTypeOfArgs(), TraceType::sequence(SequenceKind::Tuple, {}));
  TraceType signature = TraceType::sequence(
      SequenceKind::Tuple,
      {tensorType(DType::F32, {kDynamic, 3}), TraceType::integer(4, "int"),
       TraceType::sequence(
           SequenceKind::Vector,
           {tensorType(DType::I64, {2}), tensorType(DType::I64, {kDynamic})})});
  EXPECT_TRUE(args.isSubtypeOf(signature));
  std::optional<Mismatch> m =
      findArgsMismatch(traceTypeOfArgs(x, 4L, ws), signature);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->path, "arg1");
  EXPECT_EQ(m->reason, "C++ type differs: expected int, got int64_t");
}

} // namespace
