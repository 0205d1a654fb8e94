//===- CalibrationTest.cpp - int8 calibration and int8 plans -------------===//
//
// codegen/Calibration.h's statistics and calibrators against hand-computed
// values, its table files, cpu::calibrate (batching does not change a
// table), and CPU plans compiled with a table: contractions in int8 near
// the f32 plan, the rest f32, the errors for a missing table.
//
//===----------------------------------------------------------------------===//

#include "codegen/Calibration.h"
#include "TestSources.h"
#include "codegen/Backends.h"
#include "codegen/cpu/Calibrate.h"
#include "codegen/cpu/Compiler.h"
#include "runtime/cpu/Kernels.h"
#include "runtime/cpu/PlanFile.h"
#include "tools/lib/Registration.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <unistd.h>

using namespace tgc;
using codegen::CalibrationEntry;
using codegen::CalibrationTable;
using codegen::Calibrator;
using codegen::TensorStatistics;
using runtime::DType;
using runtime::HostTensor;

using tgc::testing::denseF32;

namespace {

TEST(Calibration, MinMaxIsTheLargestMagnitude) {
  TensorStatistics stats;
  std::vector<float> a = {0.5f, -3.0f, 2.0f}, b = {1.0f, 2.5f};
  stats.addRange(a.data(), 3);
  stats.addRange(b.data(), 2);
  EXPECT_EQ(stats.min(), -3.0);
  EXPECT_EQ(stats.max(), 2.5);
  EXPECT_EQ(stats.count(), 5);
  EXPECT_EQ(stats.threshold(Calibrator::MinMax, 127), 3.0);
  // A tensor of zeros quantizes with threshold 1 (any would do).
  TensorStatistics zeros;
  std::vector<float> z(4, 0.0f);
  zeros.addRange(z.data(), 4);
  EXPECT_EQ(zeros.threshold(Calibrator::MinMax, 127), 1.0);
}

TEST(Calibration, PercentileIsTheBinEdgeReachingIt) {
  // 10000 elements: 9999 in bin 0, 1 in bin 99: the 99.99th percentile
  // ends bin 0 (width 0.5), the 100th bin 99.
  std::vector<uint64_t> bins(100, 0);
  bins[0] = 9999;
  bins[99] = 1;
  EXPECT_DOUBLE_EQ(codegen::percentileThreshold(bins, 0.5, 99.99), 0.5);
  EXPECT_DOUBLE_EQ(codegen::percentileThreshold(bins, 0.5, 100), 50.0);
  // Through TensorStatistics: 10000 values 1..10000 / 10000 (|x| range 1):
  // the 99.99th percentile is the 9999th value, in bin 2047 of 2048.
  TensorStatistics stats;
  std::vector<float> values;
  for (int i = 1; i <= 10000; ++i)
    values.push_back(static_cast<float>(i) / 10000.0f);
  stats.addRange(values.data(), 10000);
  stats.addHistogram(values.data(), 10000);
  EXPECT_NEAR(stats.threshold(Calibrator::Percentile, 127), 1.0,
              1.0 / TensorStatistics::kBins);
  EXPECT_LT(stats.threshold(Calibrator::Percentile, 127), 1.0 + 1e-12);
}

TEST(Calibration, EntropyKeepsWhatTheDistributionHolds) {
  const double width = 0.01;
  // Everything in the first 128 bins: 128 quantized bins hold it exactly
  // (divergence 0), so the threshold ends bin 128.
  std::vector<uint64_t> head(2048, 0);
  for (int i = 0; i < 128; ++i)
    head[static_cast<size_t>(i)] = 10 + static_cast<uint64_t>(i % 7);
  EXPECT_DOUBLE_EQ(codegen::entropyThreshold(head, width, 127), 128.5 * width);
  // A uniform histogram over all 2048 bins: only the whole range quantizes
  // it without loss (anything shorter folds outliers into its last bin).
  std::vector<uint64_t> uniform(2048, 50);
  EXPECT_DOUBLE_EQ(codegen::entropyThreshold(uniform, width, 127),
                   2048.5 * width);
  // A decaying bulk and one far outlier: merging 16 bins of the bulk
  // into one distorts its shape more than clipping the outlier does.
  std::vector<uint64_t> tail(2048, 0);
  for (int i = 0; i < 256; ++i)
    tail[static_cast<size_t>(i)] =
        static_cast<uint64_t>(100000 * std::exp(-i / 40.0)) + 1;
  tail[2047] = 1;
  double t = codegen::entropyThreshold(tail, width, 127);
  EXPECT_LT(t, 1024 * width);
  EXPECT_GE(t, 128.5 * width);
}

// CalibrationOptions::excludedNodes: an ONNX node name removes that node's
// keys (every ordinal; "#5" the unnamed node 5), a location "file:line" or
// "file:line:col" the keys it starts; a name matching nothing is an error
// naming it.
TEST(Calibration, ExcludedNodesLeaveTheTable) {
  CalibrationTable table;
  table.entries["m.onnx:0:0 (node '/0/Gemm' (Gemm, opset 17))#0"] = {0, 1, 1};
  table.entries["m.onnx:0:0 (node '/0/Gemm' (Gemm, opset 17))#1"] = {0, 1, 1};
  table.entries["m.onnx:0:0 (node '/4/Gemm' (Gemm, opset 17))#0"] = {0, 1, 1};
  table.entries["net.cpp:12:7#0"] = {0, 1, 1};
  table.entries["net.cpp:120:3#0"] = {0, 1, 1};
  table.entries["net.cpp:13:1#0"] = {0, 1, 1};
  table.entries["m.onnx:0:0 (node #5 (Conv, opset 13))#0"] = {0, 1, 1};
  ASSERT_TRUE(table.exclude({"/0/Gemm", "net.cpp:12", "#5"}).ok());
  std::vector<std::string> left;
  for (const auto &[key, entry] : table.entries)
    left.push_back(key);
  EXPECT_EQ(left, (std::vector<std::string>{
                      "m.onnx:0:0 (node '/4/Gemm' (Gemm, opset 17))#0",
                      "net.cpp:120:3#0", "net.cpp:13:1#0"}));
  ASSERT_TRUE(table.exclude({"net.cpp:13:1"}).ok());
  EXPECT_EQ(table.entries.size(), 2u);
  tgc::Status missing = table.exclude({"/9/Gemm"});
  EXPECT_EQ(missing.code(), tgc::StatusCode::kInvalidArgument);
  EXPECT_NE(std::string(missing.message()).find("'/9/Gemm'"), std::string::npos)
      << missing;
  EXPECT_EQ(table.entries.size(), 2u);
}

TEST(Calibration, TablesRoundTripThroughFiles) {
  CalibrationTable table;
  table.calibrator = Calibrator::Percentile;
  table.samples = 200;
  table.asymmetric = true;
  table.entries["model.onnx:0:0 (node 'conv 1')#0"] = {0.0, 6.25, 5.5};
  table.entries["net.mlir:3:8#1"] = {-1.0 / 3, 0.1, 0.3333333333333333};
  std::string text = table.serialize();
  auto parsed = CalibrationTable::parse(text, "t");
  ASSERT_TRUE(parsed.ok()) << parsed.status();
  EXPECT_EQ(parsed->serialize(), text);
  EXPECT_EQ(parsed->calibrator, Calibrator::Percentile);
  EXPECT_EQ(parsed->samples, 200);
  const CalibrationEntry *e = parsed->find("net.mlir:3:8#1");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->min, -1.0 / 3); // bitwise: shortest round-trip decimals
  EXPECT_FALSE(e->unsignedValues());
  EXPECT_TRUE(parsed->asymmetric);
  // Signed, symmetric: s8 over [-threshold, threshold].
  codegen::ActivationQuantization s8 = e->quantization(false);
  EXPECT_FALSE(s8.unsignedValues);
  EXPECT_FLOAT_EQ(s8.scale, static_cast<float>(0.3333333333333333 / 127));
  EXPECT_EQ(s8.zeroPoint, 0);
  // Signed, asymmetric: u8 over [-1/3, 0.1] with 0 at level round(255 *
  // (1/3) / (1/3 + 0.1)) = 196.
  codegen::ActivationQuantization u8 = e->quantization(true);
  EXPECT_TRUE(u8.unsignedValues);
  EXPECT_FLOAT_EQ(u8.scale, static_cast<float>((0.1 + 1.0 / 3) / 255));
  EXPECT_EQ(u8.zeroPoint, 196);
  // Never negative: u8 over [0, min(max, threshold)] either way.
  const CalibrationEntry *relu =
      parsed->find("model.onnx:0:0 (node 'conv 1')#0");
  EXPECT_TRUE(relu->unsignedValues());
  EXPECT_FLOAT_EQ(relu->quantization(true).scale, 5.5f / 255);
  EXPECT_EQ(relu->quantization(true).zeroPoint, 0);
  EXPECT_FLOAT_EQ(relu->quantization(false).scale, 5.5f / 255);

  llvm::SmallString<128> path;
  llvm::sys::path::system_temp_directory(true, path);
  llvm::sys::path::append(path, "tgc-calibration-" +
                                    std::to_string(::getpid()) + ".table");
  ASSERT_TRUE(table.save(std::string(path)).ok());
  auto loaded = CalibrationTable::load(std::string(path));
  ASSERT_TRUE(loaded.ok()) << loaded.status();
  EXPECT_EQ(loaded->serialize(), text);
  std::remove(path.c_str());

  // Damaged tables: errors naming the source and line.
  for (const auto &[bad, message] :
       std::vector<std::pair<std::string, std::string>>{
           {"", "empty"},
           {"hello\n", "t:1: not a tgc calibration table"},
           {"# tgc calibration table v1\ncalibrator\tmedian\n",
            "t:2: unknown calibrator 'median'"},
           {"# tgc calibration table v1\nk\t0\t1\n", "t:2: an entry has 4"},
           {"# tgc calibration table v1\nsamples\t-3\n",
            "t:2: the sample count must be a number >= 0"},
           {"# tgc calibration table v1\nactivations\tlopsided\n",
            "t:2: activations are 'asymmetric' or 'symmetric'"},
           {"# tgc calibration table v1\nk\t0\t1\tx\n", "t:2: min, max"},
           {"# tgc calibration table v1\nk\t2\t1\t1\n", "t:2: an entry needs"},
           {"# tgc calibration table v1\nk\t0\t1\t0\n", "t:2: an entry needs"},
           {"# tgc calibration table v1\nk\t0\t1\t1\nk\t0\t1\t1\n",
            "t:3: key 'k' appears twice"}}) {
    auto result = CalibrationTable::parse(bad, "t");
    ASSERT_FALSE(result.ok()) << bad;
    EXPECT_NE(result.status().message().find(message), std::string::npos)
        << result.status();
  }
  auto missing = CalibrationTable::load("/nonexistent/table");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
}

/// conv (3x3, with a constant filter and bias) + relu, then a matmul with
/// a constant rhs: both contractions calibrate; the dynamic batch lets
/// samples come in any batch size.
constexpr const char *kNet = R"mlir(
func.func @net(%x: tensor<?x8x6x6xf32>, %f: tensor<16x8x3x3xf32>, %b: tensor<16xf32>, %w: tensor<6x10xf32>) -> tensor<?x16x6x10xf32> {
  %c = tgc.conv2d %x, %f, %b {padding = array<i64: 1, 1, 1, 1>} : (tensor<?x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> tensor<?x16x6x6xf32>
  %r = tgc.relu %c : tensor<?x16x6x6xf32>
  %y = tgc.matmul %r, %w : (tensor<?x16x6x6xf32>, tensor<6x10xf32>) -> tensor<?x16x6x10xf32>
  return %y : tensor<?x16x6x10xf32>
}
)mlir";

HostTensor random(std::vector<int64_t> shape, unsigned seed, float lo = -1,
                  float hi = 1) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(lo, hi);
  auto *p = static_cast<float *>(t.data());
  for (int64_t i = 0; i < t.numElements(); ++i)
    p[i] = dist(gen);
  return t;
}

class Int8PlanTest : public ::testing::Test {
protected:
  void SetUp() override {
    tgc::testing::loadAllDialects(context);
    codegen::registerAllBackends();
  }
  mlir::func::FuncOp parse(const std::string &source) {
    module = mlir::parseSourceString<mlir::ModuleOp>(source, &context);
    EXPECT_TRUE(module);
    return module->lookupSymbol<mlir::func::FuncOp>("net");
  }
  /// `func` compiled for `shapes` at f32 and at int8 with `table` (two
  /// threads); null plans where a compile failed (the test has failed).
  struct Plans {
    std::shared_ptr<const runtime::Executable> f32, int8;
  };
  Plans compileBoth(mlir::func::FuncOp func,
                    const std::vector<std::vector<int64_t>> &shapes,
                    CalibrationTable table) {
    cpu::CompileOptions options;
    options.numThreads = 2;
    Plans plans;
    auto f32 = cpu::compile(func, shapes, options);
    EXPECT_TRUE(static_cast<bool>(f32)) << llvm::toString(f32.takeError());
    if (!f32)
      return plans;
    plans.f32 = f32->executable;
    options.precision = Precision::Int8;
    options.calibration =
        std::make_shared<const CalibrationTable>(std::move(table));
    auto int8 = cpu::compile(func, shapes, options);
    EXPECT_TRUE(static_cast<bool>(int8)) << llvm::toString(int8.takeError());
    if (int8)
      plans.int8 = int8->executable;
    return plans;
  }

  static HostTensor runPlan(const runtime::Executable &exe,
                            const std::vector<HostTensor> &args) {
    runtime::RunOptions options;
    options.numThreads = 2;
    auto results = exe.run(args, options);
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? (*results)[0] : HostTensor();
  }

  /// The int8 plan's result on `args` differs from the f32 plan's by less
  /// than 5% of its largest magnitude (and is not the same), and the int8
  /// plan saved to a file and loaded back runs bitwise alike (its kernels
  /// and quantized layouts remade from their recipes).
  static void expectNearF32AndSavable(const Plans &plans,
                                      const std::vector<HostTensor> &args,
                                      const std::string &name) {
    HostTensor exact = runPlan(*plans.f32, args);
    HostTensor got = runPlan(*plans.int8, args);
    double scale = 0, worst = 0;
    for (int64_t i = 0; i < exact.numElements(); ++i) {
      scale = std::max(scale, std::abs(exact.getDouble(i)));
      worst = std::max(worst, std::abs(got.getDouble(i) - exact.getDouble(i)));
    }
    EXPECT_GT(worst, 0.0);
    EXPECT_LT(worst, 0.05 * scale);
    llvm::SmallString<128> path;
    llvm::sys::path::system_temp_directory(true, path);
    llvm::sys::path::append(path,
                            name + "-" + std::to_string(::getpid()) + ".tgcx");
    ASSERT_TRUE(
        runtime::cpu::savePlan(*plans.int8, {}, std::string(path)).ok());
    auto loaded = runtime::cpu::loadPlan(std::string(path));
    ASSERT_TRUE(loaded.ok()) << loaded.status();
    HostTensor again = runPlan(*loaded->executable, args);
    EXPECT_EQ(std::memcmp(again.data(), got.data(), got.byteSize()), 0);
    std::remove(path.c_str());
  }

  mlir::MLIRContext context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
};

/// kNet with its weights as constants (what int8 quantizes).
std::string constantNet() {
  return "func.func @net(%x: tensor<?x8x6x6xf32>) -> tensor<?x16x6x10xf32> "
         "{\n"
         "  %f = tgc.constant " +
         denseF32(16 * 8 * 9, 1) +
         " : tensor<16x8x3x3xf32>\n"
         "  %b = tgc.constant " +
         denseF32(16, 2) +
         " : tensor<16xf32>\n"
         "  %w = tgc.constant " +
         denseF32(6 * 10, 3) +
         " : tensor<6x10xf32>\n"
         "  %c = tgc.conv2d %x, %f, %b {padding = array<i64: 1, 1, 1, 1>} : "
         "(tensor<?x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> "
         "tensor<?x16x6x6xf32>\n"
         "  %r = tgc.relu %c : tensor<?x16x6x6xf32>\n"
         "  %y = tgc.matmul %r, %w : (tensor<?x16x6x6xf32>, "
         "tensor<6x10xf32>) -> tensor<?x16x6x10xf32>\n"
         "  return %y : tensor<?x16x6x10xf32>\n"
         "}\n";
}

TEST_F(Int8PlanTest, BatchingDoesNotChangeTheTable) {
  auto func = parse(kNet);
  ASSERT_TRUE(func);
  HostTensor f = random({16, 8, 3, 3}, 1), b = random({16}, 2),
             w = random({6, 10}, 3);
  // 8 samples of batch 1, and the same 8 images as one batch of 8.
  std::vector<HostTensor> images;
  for (unsigned i = 0; i < 8; ++i)
    images.push_back(random({1, 8, 6, 6}, 10 + i, -2, 2));
  HostTensor batch = *HostTensor::allocate(DType::F32, {8, 8, 6, 6});
  for (int64_t i = 0; i < 8; ++i)
    std::memcpy(static_cast<char *>(batch.data()) + i * images[0].byteSize(),
                images[static_cast<size_t>(i)].data(), images[0].byteSize());
  cpu::CalibrationSamples ones, eight;
  ones.count = 8;
  ones.read = [&](size_t i) -> StatusOr<std::vector<HostTensor>> {
    return std::vector<HostTensor>{images[i], f, b, w};
  };
  eight.count = 1;
  eight.read = [&](size_t) -> StatusOr<std::vector<HostTensor>> {
    return std::vector<HostTensor>{batch, f, b, w};
  };
  for (Calibrator c :
       {Calibrator::MinMax, Calibrator::Entropy, Calibrator::Percentile}) {
    SCOPED_TRACE(codegen::toString(c));
    auto a = cpu::calibrate(func, ones, c);
    auto z = cpu::calibrate(func, eight, c);
    ASSERT_TRUE(static_cast<bool>(a)) << llvm::toString(a.takeError());
    ASSERT_TRUE(static_cast<bool>(z)) << llvm::toString(z.takeError());
    ASSERT_EQ(a->entries.size(), 2u) << a->serialize();
    EXPECT_EQ(a->entries, z->entries);
    // The matmul reads ReLU output: unsigned; the conv reads signed input.
    size_t unsignedEntries = 0;
    for (const auto &[key, entry] : a->entries)
      unsignedEntries += entry.unsignedValues();
    EXPECT_EQ(unsignedEntries, 1u);
  }
  // A sample that does not fit the function is an error naming it.
  cpu::CalibrationSamples wrong;
  wrong.count = 2;
  wrong.read = [&](size_t i) -> StatusOr<std::vector<HostTensor>> {
    if (i == 1)
      return std::vector<HostTensor>{f, f, b, w};
    return std::vector<HostTensor>{images[0], f, b, w};
  };
  auto failed = cpu::calibrate(func, wrong, Calibrator::MinMax);
  ASSERT_FALSE(static_cast<bool>(failed));
  std::string message = llvm::toString(failed.takeError());
  EXPECT_NE(message.find("calibration sample 1"), std::string::npos) << message;
  cpu::CalibrationSamples none;
  auto empty = cpu::calibrate(func, none, Calibrator::MinMax);
  ASSERT_FALSE(static_cast<bool>(empty));
  EXPECT_NE(llvm::toString(empty.takeError()).find("at least one sample"),
            std::string::npos);
}

TEST_F(Int8PlanTest, CalibratedPlansRunTheirContractionsInInt8) {
  auto func = parse(constantNet());
  ASSERT_TRUE(func);
  cpu::CalibrationSamples samples;
  samples.count = 16;
  samples.read = [](size_t i) -> StatusOr<std::vector<HostTensor>> {
    return std::vector<HostTensor>{
        random({2, 8, 6, 6}, 100 + static_cast<unsigned>(i), -2, 2)};
  };
  auto table = cpu::calibrate(func, samples, Calibrator::MinMax);
  ASSERT_TRUE(static_cast<bool>(table)) << llvm::toString(table.takeError());
  ASSERT_EQ(table->entries.size(), 2u);

  std::vector<std::vector<int64_t>> shapes = {{4, 8, 6, 6}};
  std::vector<HostTensor> args = {random({4, 8, 6, 6}, 7, -2, 2)};
  auto runPlan = [&](const runtime::Executable &exe) {
    runtime::RunOptions options;
    options.numThreads = 1;
    auto results = exe.run(args, options);
    EXPECT_TRUE(results.ok()) << results.status();
    return results.ok() ? (*results)[0] : HostTensor();
  };
  cpu::CompileOptions f32Options;
  f32Options.numThreads = 1;
  auto f32 = cpu::compile(func, shapes, f32Options);
  ASSERT_TRUE(static_cast<bool>(f32)) << llvm::toString(f32.takeError());
  HostTensor exact = runPlan(*f32->executable);

  cpu::CompileOptions options = f32Options;
  options.precision = Precision::Int8;
  options.calibration =
      std::make_shared<const CalibrationTable>(std::move(*table));
  auto int8 = cpu::compile(func, shapes, options);
  ASSERT_TRUE(static_cast<bool>(int8)) << llvm::toString(int8.takeError());
  std::string plan = int8->executable->describe();
  EXPECT_NE(plan.find("onednn.conv2d[int8]"), std::string::npos) << plan;
  EXPECT_NE(plan.find("onednn.matmul[int8]"), std::string::npos) << plan;
  HostTensor got = runPlan(*int8->executable);
  double scale = 0, worst = 0;
  for (int64_t i = 0; i < exact.numElements(); ++i) {
    scale = std::max(scale, std::abs(exact.getDouble(i)));
    worst = std::max(worst, std::abs(got.getDouble(i) - exact.getDouble(i)));
  }
  EXPECT_GT(worst, 0.0);
  EXPECT_LT(worst, 0.05 * scale) << "int8 strays from f32";

  // Contractions the table does not know stay f32: bitwise the f32 plan.
  options.calibration = std::make_shared<const CalibrationTable>();
  auto none = cpu::compile(func, shapes, options);
  ASSERT_TRUE(static_cast<bool>(none)) << llvm::toString(none.takeError());
  EXPECT_EQ(none->executable->describe().find("[int8]"), std::string::npos);
  HostTensor same = runPlan(*none->executable);
  EXPECT_EQ(std::memcmp(same.data(), exact.data(), exact.byteSize()), 0);

  // int8 without a table: an error that says what to do.
  options.calibration.reset();
  auto missing = cpu::compile(func, shapes, options);
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("precision int8 needs a calibration table"),
            std::string::npos);
}

/// Two int8 convolutions in a row: the first writes its result quantized
/// for the second (an int8 chain).
std::string chainNet() {
  return "func.func @net(%x: tensor<2x8x6x6xf32>) -> tensor<2x8x6x6xf32> {\n"
         "  %f1 = tgc.constant " +
         denseF32(16 * 8 * 9, 11) +
         " : tensor<16x8x3x3xf32>\n"
         "  %b1 = tgc.constant " +
         denseF32(16, 12) +
         " : tensor<16xf32>\n"
         "  %f2 = tgc.constant " +
         denseF32(8 * 16, 13) +
         " : tensor<8x16x1x1xf32>\n"
         "  %c1 = tgc.conv2d %x, %f1, %b1 {padding = array<i64: 1, 1, 1, 1>} "
         ": (tensor<2x8x6x6xf32>, tensor<16x8x3x3xf32>, tensor<16xf32>) -> "
         "tensor<2x16x6x6xf32>\n"
         "  %r1 = tgc.relu %c1 : tensor<2x16x6x6xf32>\n"
         "  %c2 = tgc.conv2d %r1, %f2 : (tensor<2x16x6x6xf32>, "
         "tensor<8x16x1x1xf32>) -> tensor<2x8x6x6xf32>\n"
         "  %r2 = tgc.relu %c2 : tensor<2x8x6x6xf32>\n"
         "  return %r2 : tensor<2x8x6x6xf32>\n"
         "}\n";
}

TEST_F(Int8PlanTest, Int8ChainsKeepActivationsIn8Bits) {
  auto func = parse(chainNet());
  ASSERT_TRUE(func);
  cpu::CalibrationSamples samples;
  samples.count = 8;
  samples.read = [](size_t i) -> StatusOr<std::vector<HostTensor>> {
    return std::vector<HostTensor>{
        random({2, 8, 6, 6}, 300 + static_cast<unsigned>(i), -2, 2)};
  };
  auto table = cpu::calibrate(func, samples, Calibrator::MinMax);
  ASSERT_TRUE(static_cast<bool>(table)) << llvm::toString(table.takeError());
  ASSERT_EQ(table->entries.size(), 2u);
  std::vector<HostTensor> args = {random({2, 8, 6, 6}, 9, -2, 2)};
  Plans plans = compileBoth(func, {{2, 8, 6, 6}}, std::move(*table));
  ASSERT_TRUE(plans.f32 && plans.int8);
  std::string plan = plans.int8->describe();
  // The first convolution's result is u8 (after its ReLU) for the second.
  EXPECT_NE(plan.find(" u8]"), std::string::npos) << plan;
  size_t int8Kernels = 0;
  for (size_t at = 0; (at = plan.find("[int8]", at)) != std::string::npos; ++at)
    ++int8Kernels;
  EXPECT_EQ(int8Kernels, 2u) << plan;
  // The chain quantizes the first result exactly as the second
  // convolution would have: the same results as quantizing at its input,
  // near f32's.
  expectNearF32AndSavable(plans, args, "tgc-int8-chain");
}

TEST_F(Int8PlanTest, MatmulChainsKeepActivationsIn8Bits) {
  auto func = parse(
      "func.func @net(%x: tensor<4x32xf32>) -> tensor<4x8xf32> {\n"
      "  %w1 = tgc.constant " +
      denseF32(32 * 48, 31) +
      " : tensor<32x48xf32>\n"
      "  %w2 = tgc.constant " +
      denseF32(48 * 8, 32) +
      " : tensor<48x8xf32>\n"
      "  %h = tgc.matmul %x, %w1 : (tensor<4x32xf32>, tensor<32x48xf32>) -> "
      "tensor<4x48xf32>\n"
      "  %r = tgc.relu %h : tensor<4x48xf32>\n"
      "  %y = tgc.matmul %r, %w2 : (tensor<4x48xf32>, tensor<48x8xf32>) -> "
      "tensor<4x8xf32>\n"
      "  return %y : tensor<4x8xf32>\n"
      "}\n");
  ASSERT_TRUE(func);
  cpu::CalibrationSamples samples;
  samples.count = 8;
  samples.read = [](size_t i) -> StatusOr<std::vector<HostTensor>> {
    return std::vector<HostTensor>{
        random({4, 32}, 400 + static_cast<unsigned>(i), -2, 2)};
  };
  auto table = cpu::calibrate(func, samples, Calibrator::MinMax);
  ASSERT_TRUE(static_cast<bool>(table)) << llvm::toString(table.takeError());
  std::vector<HostTensor> args = {random({4, 32}, 17, -2, 2)};
  Plans plans = compileBoth(func, {{4, 32}}, std::move(*table));
  ASSERT_TRUE(plans.f32 && plans.int8);
  std::string plan = plans.int8->describe();
  EXPECT_NE(plan.find("[plain u8]"), std::string::npos) << plan;
  expectNearF32AndSavable(plans, args, "tgc-int8-matmul-chain");
}

} // namespace
