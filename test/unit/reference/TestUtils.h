//===- TestUtils.h - helpers for the reference interpreter tests -*- C++
//-*-===//
//
// Parses an MLIR module from a string, runs its @main (or its only function)
// with the reference interpreter, and compares results with expected values
// written out in the tests.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TEST_UNIT_REFERENCE_TESTUTILS_H
#define TGC_TEST_UNIT_REFERENCE_TESTUTILS_H

#include "tgc/HostTensor.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace tgc::reference::test {

using runtime::DType;
using runtime::HostTensor;
using Shape = std::vector<int64_t>;

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// A tensor filled with setDouble (floats round to the dtype).
HostTensor makeF(DType dtype, Shape shape, std::vector<double> values);
/// A tensor filled with setInt (integers wrap, i1 is v != 0).
HostTensor makeI(DType dtype, Shape shape, std::vector<int64_t> values);

struct RunOutcome {
  std::vector<HostTensor> results;
  std::string error; // Empty on success.
};

/// Parses `source` (file name "test.mlir") and runs @main, or the first
/// func.func when there is no @main. Parse failures are reported as errors
/// starting with "parse error".
RunOutcome run(std::string_view source, std::vector<HostTensor> inputs,
               bool allowUnregistered = false);

/// Runs and expects success with exactly one result, which it returns (an
/// empty f32 scalar after a test failure).
HostTensor runOne(std::string_view source, std::vector<HostTensor> inputs);

/// Runs and expects a run-time error; returns its message.
std::string runError(std::string_view source, std::vector<HostTensor> inputs,
                     bool allowUnregistered = false);

/// Checks dtype and shape exactly and values with allClose(rtol, atol).
void expectFloats(const HostTensor &actual, DType dtype, Shape shape,
                  std::vector<double> values, double rtol = 1e-6,
                  double atol = 1e-6);
/// Checks dtype, shape and integer values exactly.
void expectInts(const HostTensor &actual, DType dtype, Shape shape,
                std::vector<int64_t> values);

/// `func.func @main(%x: T) -> T { %0 = tgc.<op> %x <attrs> : T }`.
inline std::string unarySource(const std::string &op, const std::string &type,
                               const std::string &attrs = "") {
  return "func.func @main(%x: " + type + ") -> " + type + " {\n" +
         "  %0 = tgc." + op + " %x " + attrs + " : " + type + "\n" +
         "  return %0 : " + type + "\n}\n";
}

/// `func.func @main(%x: A, %y: B) -> R { %0 = tgc.<op> %x, %y : (A, B) -> R }`.
inline std::string binarySource(const std::string &op, const std::string &lhs,
                                const std::string &rhs,
                                const std::string &result) {
  return "func.func @main(%x: " + lhs + ", %y: " + rhs + ") -> " + result +
         " {\n  %0 = tgc." + op + " %x, %y : (" + lhs + ", " + rhs + ") -> " +
         result + "\n  return %0 : " + result + "\n}\n";
}

/// `func.func @main(%x: A) -> R { %0 = tgc.<op> %x <attrs> : (A) -> R }`, the
/// functional-type form.
inline std::string functionalSource(const std::string &op,
                                    const std::string &input,
                                    const std::string &result,
                                    const std::string &attrs = "") {
  return "func.func @main(%x: " + input + ") -> " + result + " {\n  %0 = tgc." +
         op + " %x " + attrs + " : (" + input + ") -> " + result +
         "\n  return %0 : " + result + "\n}\n";
}

} // namespace tgc::reference::test

#endif // TGC_TEST_UNIT_REFERENCE_TESTUTILS_H
