//===- Recipes.h - kernels made again from saved descriptors ----*- C++ -*-===//
//
// Every public factory of Kernels.h records, on the kernel it returns, a
// KernelRecipe (runtime/Executable.h): its name and its arguments encoded
// with ByteWriter. remakeKernel() decodes a recipe and calls the factory
// again, in a process that may have no compiler: this is how a saved plan
// (PlanFile.h) is loaded. The factories themselves are the *Unrecorded
// functions below (private to runtime/cpu).
//
//===----------------------------------------------------------------------===//

#ifndef TGC_RUNTIME_CPU_RECIPES_H
#define TGC_RUNTIME_CPU_RECIPES_H

#include "runtime/cpu/Kernels.h"

#include <oneapi/dnnl/dnnl_types.h>

#include <functional>
#include <optional>
#include <string_view>

namespace tgc::runtime::cpu {

/// What remakeKernel needs besides the recipe.
struct RemakeContext {
  /// The executable constants the recipe's slots name (stable addresses:
  /// kernels may keep pointers to them).
  std::vector<const HostTensor *> constants;
  /// Bytes the kernel derived from those constants when it was first made
  /// (DerivedConstant), in order, and what keeps them alive; a kernel whose
  /// primitive wants the same layout takes them instead of reordering.
  struct Derived {
    std::string layout;
    const void *data = nullptr;
    size_t bytes = 0;
  };
  std::vector<Derived> derived;
  std::shared_ptr<const void> owner;
  /// Constants known to hold no NaN or infinity (checked when the plan was
  /// saved): the factories skip scanning them.
  std::vector<const HostTensor *> finite;
  /// Set by remakeKernel: how many derived blobs were used as they were.
  size_t derivedUsed = 0;
};

/// Makes the kernel `factory` with `descriptor` again (see KernelRecipe).
/// Kernels whose factory is not in runtime/cpu (the compiler's loop
/// kernels) need a loader registered with registerKernelLoader. A
/// descriptor that does not decode is DataLoss; a kernel whose layouts come
/// out differently on this machine (another oneDNN ISA) is
/// FailedPrecondition.
absl::StatusOr<KernelPtr> remakeKernel(std::string_view factory,
                                       std::string_view descriptor,
                                       RemakeContext &context);

/// A loader for kernels made outside runtime/cpu (factory name -> kernel).
using KernelLoader = std::function<absl::StatusOr<KernelPtr>(
    std::string_view descriptor, RemakeContext &context)>;
/// Registers `loader` for `factory` (thread-safe; the first one stays).
void registerKernelLoader(std::string factory, KernelLoader loader);

/// A tgc.if / tgc.while step (runtime/ControlFlow.h). With `savable`, and
/// where both nested plans can be saved, its recipe holds them (serialized
/// plans, loaded again with loadPlanFromBytes); otherwise it has none, and
/// the enclosing plan cannot be saved (checkSavable names the step).
KernelPtr createIfKernel(std::shared_ptr<const Executable> thenPlan,
                         std::shared_ptr<const Executable> elsePlan,
                         std::shared_ptr<const void> owner, bool savable);
KernelPtr createWhileKernel(std::shared_ptr<const Executable> condPlan,
                            std::shared_ptr<const Executable> bodyPlan,
                            size_t carried, std::shared_ptr<const void> owner,
                            bool savable);

/// Sets `kernel`'s recipe (the kernel was just made and is not shared yet).
KernelPtr withRecipe(KernelPtr kernel, std::string factory,
                     std::string descriptor,
                     std::vector<const void *> constants = {});

namespace detail {
/// The context of the remakeKernel running on this thread, or null: while
/// it runs, prepacking weights takes the context's derived blobs (in order)
/// where their layout is the one wanted.
RemakeContext *currentDerivedSupply();
/// A oneDNN memory descriptor read from a file (its bytes), if it is one
/// oneDNN can be given (the size, dims, blocking and types in range; with
/// `blockedOnly`, a blocked layout): oneDNN does not check the descriptors
/// it is given.
std::optional<dnnl_memory_desc_t> memoryDescFromBytes(std::string_view bytes,
                                                      bool blockedOnly);
/// hasSpecialValues(constant, NonFinite) for a kernel's constant weights,
/// answered without a scan where the plan being loaded knows it.
bool constantHasSpecialValues(const HostTensor &constant);
} // namespace detail

// The factories, without recording (defined in the *Kernels.cpp files).
absl::StatusOr<KernelPtr> createMatmulUnrecorded(const MatmulDesc &desc);
absl::StatusOr<KernelPtr> createConv2DUnrecorded(const Conv2DDesc &desc);
absl::StatusOr<KernelPtr> createPool2DUnrecorded(const Pool2DDesc &desc);
absl::StatusOr<LayoutKernel>
createLayoutConv2DUnrecorded(const Conv2DDesc &desc,
                             const ConvLayouts &layouts);
absl::StatusOr<LayoutKernel>
createLayoutPool2DUnrecorded(const Pool2DDesc &desc,
                             const ActivationLayout &input);
absl::StatusOr<LayoutKernel> createLayoutConcatUnrecorded(
    DType dtype, const std::vector<Shape> &nhwcInputs,
    const std::vector<const ActivationLayout *> &inputs, bool blockTag);
absl::StatusOr<KernelPtr>
createLayoutReorderUnrecorded(DType dtype, const Shape &nhwcShape,
                              const ActivationLayout *from,
                              const ActivationLayout *to);
absl::StatusOr<KernelPtr> createEltwiseUnrecorded(const EltwiseDesc &desc);
absl::StatusOr<KernelPtr> createBinaryUnrecorded(const BinaryDesc &desc);
absl::StatusOr<KernelPtr> createSelectUnrecorded(const SelectDesc &desc);
absl::StatusOr<KernelPtr> createSoftmaxUnrecorded(const SoftmaxDesc &desc);
absl::StatusOr<KernelPtr> createLayerNormUnrecorded(const LayerNormDesc &desc);
absl::StatusOr<KernelPtr> createBatchNormUnrecorded(const BatchNormDesc &desc);
absl::StatusOr<KernelPtr> createReduceUnrecorded(const ReduceDesc &desc);
absl::StatusOr<KernelPtr> createTopKUnrecorded(const TopKDesc &desc);
absl::StatusOr<KernelPtr> createLogicalNotUnrecorded(const Shape &shape);
absl::StatusOr<KernelPtr> createCastUnrecorded(DType from, DType to,
                                               const Shape &shape);
absl::StatusOr<KernelPtr>
createTransposeUnrecorded(DType dtype, const Shape &inputShape,
                          const std::vector<int64_t> &perm);
absl::StatusOr<KernelPtr> createBroadcastToUnrecorded(DType dtype,
                                                      const Shape &inputShape,
                                                      const Shape &resultShape);
absl::StatusOr<KernelPtr>
createConcatUnrecorded(DType dtype, const std::vector<Shape> &inputShapes,
                       int64_t axis);
absl::StatusOr<KernelPtr> createSliceUnrecorded(
    DType dtype, const Shape &inputShape, const std::vector<int64_t> &starts,
    const std::vector<int64_t> &steps, const Shape &resultShape);
absl::StatusOr<KernelPtr> createPadUnrecorded(DType dtype,
                                              const Shape &inputShape,
                                              const std::vector<int64_t> &low,
                                              const Shape &resultShape,
                                              double value);
absl::StatusOr<KernelPtr>
createGatherUnrecorded(DType dtype, const Shape &dataShape, DType indexDType,
                       const Shape &indicesShape, int64_t axis);

} // namespace tgc::runtime::cpu

#endif // TGC_RUNTIME_CPU_RECIPES_H
