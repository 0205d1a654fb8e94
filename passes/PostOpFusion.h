//===- PostOpFusion.h - the post-op fusion table ----------------*- C++ -*-===//
//
// The declarative table of `tgc-fuse-post-ops`: each entry describes a
// consumer of a contraction result (a single op, or a small graph of
// primitive ops such as `x * sigmoid(x)`) and the post-op it computes. The
// pass grows a `tgc.fusion <contraction>` around a conv2d/matmul and the
// longest chain of entries that consume its result; a backend reads the
// chain back from the fusion body with `analyzeContractionFusion`, using the
// same table, so that it lowers exactly what the pass built.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_PASSES_POSTOPFUSION_H
#define TGC_PASSES_POSTOPFUSION_H

#include "dialects/TgcOps.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <optional>

namespace tgc {

/// What a post-op computes on the contraction's running result `x`. The
/// CPU backend maps each to a oneDNN eltwise or binary post-op.
enum class PostOpKind {
  Linear,    ///< alpha * x + beta
  Relu,      ///< max(x, 0)
  Clamp,     ///< min(max(x, alpha), beta)
  LeakyRelu, ///< x >= 0 ? x : alpha * x
  Elu,       ///< x > 0 ? x : alpha * (e^x - 1)
  GeluErf,
  GeluTanh,
  Sigmoid,
  Tanh,
  Swish,     ///< x * sigmoid(x)
  HardSwish, ///< x * min(max(x + 3, 0), 6) / 6
  Mish,      ///< x * tanh(log(1 + e^x))
  Add,       ///< x + operand (binary post-ops take an extra operand)
  Sub,       ///< x - operand
  Mul,       ///< x * operand
  Div,       ///< x / operand
};

/// One operand of a pattern node.
struct PatternRef {
  enum Kind : uint8_t {
    None,    ///< unary node: no second operand
    Input,   ///< the running result x
    Node,    ///< the result of an earlier node of the same entry
    Const,   ///< a splat constant equal to `value`
    Scalar,  ///< any splat float constant (captured as a parameter)
    Channel, ///< an extra operand broadcast per output channel (bias)
    Full,    ///< an extra operand with x's static shape (residual)
  };
  Kind kind = None;
  int8_t node = 0;
  double value = 0;
};

/// One op of a pattern: its name, operands and an optional extra condition
/// on its attributes. Add, mul, max and min match either operand order.
struct PatternNode {
  llvm::StringLiteral op;
  PatternRef lhs, rhs;
  bool (*where)(mlir::Operation *) = nullptr;
};

/// Where a post-op parameter comes from.
struct ParamRef {
  enum Kind : uint8_t {
    Fixed,              ///< `value`
    Attr,               ///< the f64 attribute `attr` of node `node`
    Captured,           ///< the Scalar operand of node `node`
    CapturedReciprocal, ///< 1 / that
    CapturedNegated,    ///< - that
  };
  Kind kind = Fixed;
  int8_t node = 0;
  llvm::StringLiteral attr = "";
  double value = 0;
};

/// A table entry: ops (in topological order, the last one gives the
/// entry's result) and the post-op they compute.
struct PostOpPattern {
  llvm::StringLiteral name;     ///< e.g. "swish"
  llvm::StringLiteral spelling; ///< e.g. "x * sigmoid(x)"
  llvm::StringLiteral onednn;   ///< the oneDNN post-op, e.g. "eltwise_swish"
  PostOpKind kind;
  llvm::ArrayRef<PatternNode> nodes;
  ParamRef alpha = {}, beta = {};
};

/// The post-op fusion table, in matching order (longer spellings first).
llvm::ArrayRef<PostOpPattern> getPostOpTable();

/// How an extra operand relates to the contraction result.
enum class OperandClass { None, PerChannel, Full };

/// One matched table entry.
struct MatchedPostOp {
  const PostOpPattern *entry = nullptr;
  PostOpKind kind = PostOpKind::Relu;
  double alpha = 0, beta = 0;
  mlir::Value operand; ///< binary post-ops: the extra operand
  OperandClass operandClass = OperandClass::None;
  /// The matched ops in program order; the last gives the result.
  llvm::SmallVector<mlir::Operation *> ops;
  mlir::Value result() const { return ops.back()->getResult(0); }
};

/// A contraction and the post-ops consuming its result.
struct PostOpChain {
  mlir::Operation *contraction = nullptr;
  llvm::SmallVector<MatchedPostOp> postOps;
  mlir::Value result() const {
    return postOps.empty() ? contraction->getResult(0)
                           : postOps.back().result();
  }
};

/// At most this many post-ops are fused into one contraction.
constexpr unsigned kMaxFusedPostOps = 8;

/// Whether `op` is a contraction post-op fusion grows from: a tgc.conv2d or
/// tgc.matmul with a float result.
bool isFusableContraction(mlir::Operation *op);

/// The result dim that indexes output channels: 1 for NCHW conv2d, 3 for
/// NHWC, the last for matmul.
int64_t contractionChannelDim(mlir::Operation *contraction);

/// Matches the longest chain (at most `maxPostOps`) of table entries that
/// consume `contraction`'s result. An entry matches only when every use of
/// its input and of its intermediate values is inside the entry (nothing
/// computed is lost) and its extra operand does not depend on the
/// contraction.
PostOpChain matchPostOpChain(mlir::Operation *contraction,
                             unsigned maxPostOps = kMaxFusedPostOps);

/// Reads a `tgc.fusion <contraction>` back: its body must be one fusable
/// contraction of block arguments, splat constants and a chain of table
/// entries whose extra operands are block arguments, yielding the chain's
/// result. Returns std::nullopt otherwise.
std::optional<PostOpChain> analyzeContractionFusion(FusionOp fusion);

} // namespace tgc

#endif // TGC_PASSES_POSTOPFUSION_H
