//===- TgcDialect.cpp - tgc dialect ---------------------------------------===//

#include "dialects/TgcDialect.h"
#include "dialects/TgcOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/DialectImplementation.h"
#include "mlir/Transforms/InliningUtils.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace tgc;

#include "dialects/TgcDialect.cpp.inc"
#include "dialects/TgcEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "dialects/TgcAttrs.cpp.inc"

namespace {
/// Every tgc op is pure and region-free: always legal to inline.
struct TgcInlinerInterface : public DialectInlinerInterface {
  using DialectInlinerInterface::DialectInlinerInterface;
  bool isLegalToInline(Operation *, Region *, bool, IRMapping &) const final {
    return true;
  }
  bool isLegalToInline(Region *, Region *, bool, IRMapping &) const final {
    return true;
  }
};
} // namespace

void TgcDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "dialects/TgcAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "dialects/TgcOps.cpp.inc"
      >();
  addInterfaces<TgcInlinerInterface>();
}

Operation *TgcDialect::materializeConstant(OpBuilder &builder, Attribute value,
                                           Type type, Location loc) {
  auto elements = dyn_cast<ElementsAttr>(value);
  if (!elements || elements.getType() != type ||
      !isa<DenseElementsAttr, DenseResourceElementsAttr>(elements))
    return nullptr;
  return ConstantOp::create(builder, loc, type, elements);
}

std::shared_ptr<void>
TgcDialect::backendState(llvm::StringRef key,
                         llvm::function_ref<std::shared_ptr<void>()> make) {
  std::lock_guard<std::mutex> lock(backendStateMutex);
  std::shared_ptr<void> &state = backendStates[key];
  if (!state)
    state = make();
  return state;
}
