//===- ConverterTableTest.cpp - the ONNX importer's converter table -------===//
//
// A node of opset N is converted by the entry of its op type with the
// greatest since-version <= N; the importer's table has one entry per form
// of an op (e.g. Clip's min and max as attributes before opset 11, as inputs
// from 11 on).
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

#include <gtest/gtest.h>

using namespace tgc::onnximpl;

namespace {

llvm::Error first(Importer &) { return llvm::Error::success(); }
llvm::Error second(Importer &) { return llvm::Error::success(); }
llvm::Error third(Importer &) { return llvm::Error::success(); }

PartialResult partial(Importer &, llvm::ArrayRef<PartialInts>) {
  return std::optional<PartialInts>();
}

TEST(ConverterTable, PicksTheGreatestSinceVersionNotAboveTheOpset) {
  ConverterTable table;
  // Registered out of order.
  table.add("Op", 13, second, partial);
  table.add("Op", 1, first);
  table.add("Op", 18, third);
  EXPECT_EQ(table.lookup("Op", 1)->convert, &first);
  EXPECT_EQ(table.lookup("Op", 12)->convert, &first);
  EXPECT_EQ(table.lookup("Op", 13)->convert, &second);
  EXPECT_EQ(table.lookup("Op", 17)->convert, &second);
  EXPECT_EQ(table.lookup("Op", 18)->convert, &third);
  EXPECT_EQ(table.lookup("Op", 1000)->convert, &third);
  EXPECT_EQ(table.lookup("Op", 13)->sinceVersion, 13);
  EXPECT_EQ(table.lookup("Op", 13)->partial, &partial);
  EXPECT_EQ(table.lookup("Op", 12)->partial, nullptr);
}

TEST(ConverterTable, NothingBelowTheFirstSinceVersionOrForOtherOps) {
  ConverterTable table;
  table.add("Op", 11, first);
  EXPECT_EQ(table.lookup("Op", 10), nullptr);
  EXPECT_NE(table.lookup("Op", 11), nullptr);
  EXPECT_EQ(table.lookup("Other", 11), nullptr);
  EXPECT_EQ(table.lookup("op", 11), nullptr); // Op types are case-sensitive.
}

TEST(ConverterTable, TheImportersTable) {
  const ConverterTable &table = converterTable();
  // Every op's first entry is at since-version 1.
  for (const char *op : {"Add", "Conv", "Clip", "Resize", "LSTM", "Trilu"})
    EXPECT_EQ(table.lookup(op, 1)->sinceVersion, 1) << op;
  EXPECT_EQ(table.lookup("Clip", 10)->sinceVersion, 1);
  EXPECT_EQ(table.lookup("Clip", 11)->sinceVersion, 11);
  EXPECT_EQ(table.lookup("Softmax", 12)->sinceVersion, 1);
  EXPECT_EQ(table.lookup("Softmax", 13)->sinceVersion, 13);
  EXPECT_EQ(table.lookup("ReduceSum", 13)->sinceVersion, 13);
  EXPECT_EQ(table.lookup("ReduceMean", 17)->sinceVersion, 1);
  EXPECT_EQ(table.lookup("Upsample", 9)->sinceVersion, 9);
  EXPECT_EQ(table.lookup("Resize", 10)->sinceVersion, 1);
  EXPECT_EQ(table.lookup("Resize", 17)->sinceVersion, 11);
  EXPECT_EQ(table.lookup("Resize", 18)->sinceVersion, 18);
  // Shape arithmetic is tracked through Slice from opset 10 on only.
  EXPECT_EQ(table.lookup("Slice", 9)->partial, nullptr);
  EXPECT_NE(table.lookup("Slice", 10)->partial, nullptr);
  EXPECT_NE(table.lookup("Mul", 13)->partial, nullptr);
  EXPECT_EQ(table.lookup("MatMul", 13)->partial, nullptr);
  // Ops without a converter (imported through their function body, or not
  // supported).
  EXPECT_EQ(table.lookup("RandomUniformLike", 15), nullptr);
  EXPECT_NE(table.lookup("TfIdfVectorizer", 9), nullptr);
  EXPECT_EQ(table.lookup("MeanSquaredDistance", 13), nullptr);
}

} // namespace
