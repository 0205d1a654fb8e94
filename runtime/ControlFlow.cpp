//===- ControlFlow.cpp - kernels that run nested plans --------------------===//

#include "runtime/ControlFlow.h"

#include "absl/strings/str_cat.h"

#include <cstring>
#include <utility>

namespace tgc::runtime {

namespace {

RunOptions nestedOptions(const KernelContext &context) {
  RunOptions options;
  options.numThreads = context.numThreads;
  options.readEnvironment = false;
  return options;
}

/// The one element of a condition.
absl::StatusOr<bool> predicate(const HostTensor &condition) {
  if (condition.numElements() != 1)
    return absl::InvalidArgumentError(absl::StrCat(
        "the condition holds ", condition.numElements(), " elements, not one"));
  return condition.getInt(0) != 0;
}

class IfKernel final : public Kernel {
public:
  IfKernel(std::shared_ptr<const Executable> thenPlan,
           std::shared_ptr<const Executable> elsePlan, NestedPlanOwner owner)
      : plans{std::move(thenPlan), std::move(elsePlan)},
        owner(std::move(owner)) {}
  std::string_view name() const override { return "control.if"; }
  std::vector<std::pair<std::string, const Executable *>>
  nestedPlans() const override {
    return {{"then", plans[0].get()}, {"else", plans[1].get()}};
  }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    if (inputs.empty())
      return absl::InvalidArgumentError("an if step takes its condition");
    auto taken = predicate(inputs[0]);
    if (!taken.ok())
      return taken.status();
    // The branch plans take the step's inputs as they are (the condition
    // first, unread), and write the step's outputs.
    const Executable &plan = *plans[*taken ? 0 : 1];
    absl::Status status = plan.runInto(inputs, outputs, nestedOptions(context));
    if (!status.ok())
      return absl::Status(status.code(),
                          absl::StrCat(*taken ? "then" : "else",
                                       " branch: ", status.message()));
    return absl::OkStatus();
  }

private:
  std::shared_ptr<const Executable> plans[2];
  NestedPlanOwner owner;
};

class WhileKernel final : public Kernel {
public:
  WhileKernel(std::shared_ptr<const Executable> condPlan,
              std::shared_ptr<const Executable> bodyPlan, size_t carried,
              NestedPlanOwner owner)
      : condPlan(std::move(condPlan)), bodyPlan(std::move(bodyPlan)),
        carried(carried), owner(std::move(owner)) {}
  std::string_view name() const override { return "control.while"; }
  std::vector<std::pair<std::string, const Executable *>>
  nestedPlans() const override {
    return {{"cond", condPlan.get()}, {"body", bodyPlan.get()}};
  }
  absl::Status run(const KernelContext &context,
                   const std::vector<HostTensor> &inputs,
                   std::vector<HostTensor> &outputs) const override {
    if (inputs.size() < carried || outputs.size() != carried)
      return absl::InvalidArgumentError(absl::StrCat(
          "a while step carrying ", carried, " values got ", inputs.size(),
          " inputs and ", outputs.size(), " outputs"));
    // The carried values alternate between the outputs and `scratch`.
    std::vector<HostTensor> scratch;
    scratch.reserve(carried);
    for (const HostTensor &output : outputs) {
      auto buffer =
          HostTensor::allocateUninitialized(output.dtype(), output.shape());
      if (!buffer.ok())
        return buffer.status();
      scratch.push_back(*std::move(buffer));
    }
    const ValueInfo &conditionInfo =
        condPlan->values[static_cast<size_t>(condPlan->outputs.at(0))];
    auto condition = HostTensor::allocateUninitialized(conditionInfo.dtype,
                                                       conditionInfo.shape);
    if (!condition.ok())
      return condition.status();
    std::vector<HostTensor> conditionBuffer = {*std::move(condition)};
    // args: the carried values (replaced each iteration), then the captures.
    std::vector<HostTensor> args = inputs;
    enum class Holder { Inputs, Outputs, Scratch } current = Holder::Inputs;
    RunOptions options = nestedOptions(context);
    for (int64_t iteration = 0;; ++iteration) {
      absl::Status go = condPlan->runInto(args, conditionBuffer, options);
      if (!go.ok())
        return annotate(go, "condition", iteration);
      auto again = predicate(conditionBuffer[0]);
      if (!again.ok())
        return annotate(again.status(), "condition", iteration);
      if (!*again)
        break;
      bool intoOutputs = current != Holder::Outputs;
      absl::Status next =
          bodyPlan->runInto(args, intoOutputs ? outputs : scratch, options);
      if (!next.ok())
        return annotate(next, "body", iteration);
      current = intoOutputs ? Holder::Outputs : Holder::Scratch;
      for (size_t i = 0; i < carried; ++i)
        args[i] = intoOutputs ? outputs[i] : scratch[i];
    }
    if (current != Holder::Outputs)
      for (size_t i = 0; i < carried; ++i)
        if (outputs[i].byteSize())
          std::memcpy(outputs[i].data(), args[i].data(), outputs[i].byteSize());
    return absl::OkStatus();
  }

private:
  static absl::Status annotate(const absl::Status &status, const char *region,
                               int64_t iteration) {
    return absl::Status(status.code(),
                        absl::StrCat(region, " of iteration ", iteration, ": ",
                                     status.message()));
  }

  std::shared_ptr<const Executable> condPlan, bodyPlan;
  size_t carried;
  NestedPlanOwner owner;
};

} // namespace

std::shared_ptr<const Kernel>
makeIfKernel(std::shared_ptr<const Executable> thenPlan,
             std::shared_ptr<const Executable> elsePlan,
             NestedPlanOwner owner) {
  return std::make_shared<IfKernel>(std::move(thenPlan), std::move(elsePlan),
                                    std::move(owner));
}

std::shared_ptr<const Kernel>
makeWhileKernel(std::shared_ptr<const Executable> condPlan,
                std::shared_ptr<const Executable> bodyPlan, size_t carried,
                NestedPlanOwner owner) {
  return std::make_shared<WhileKernel>(std::move(condPlan), std::move(bodyPlan),
                                       carried, std::move(owner));
}

} // namespace tgc::runtime
