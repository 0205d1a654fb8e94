//===- TracedServing.cpp - tgc::function as a serving loop uses it --------===//
//
// What a long-running program relies on, shown and checked:
// - an exception thrown by the callable while it is traced reaches the
//   caller, leaves nothing behind, and the next call traces again;
// - a model object passed as std::shared_ptr is keyed by identity, and its
//   specializations go when it dies;
// - a scalar captured by reference is keyed by value (a change retraces);
// - a concrete function is callable and never retraces;
// - compile accounting: plans per specialization, their bytes, bounded;
// - the persistent compilation cache: a second function (as a second
//   process would) loads the loop kernels the first one compiled.
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <unistd.h>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

HostTensor filled(std::vector<int64_t> shape, double value) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, value + 0.001 * static_cast<double>(i % 7));
  return t;
}

int failures = 0;
void check(bool ok, const std::string &what) {
  std::cout << (ok ? "  ok: " : "  FAILED: ") << what << "\n";
  failures += ok ? 0 : 1;
}

struct Classifier {
  double scale;
};

} // namespace

int main() {
  FunctionOptions quiet;
  quiet.log = [](const std::string &) {};
  HostTensor x = filled({4, 256}, 0.5);

  std::cout << "An exception thrown while tracing:\n";
  bool broken = true;
  auto flaky = *tgc::function(
      [&broken](Tensor t) {
        if (broken)
          throw std::runtime_error("weights not loaded yet");
        return tanh(t) * 2.0;
      },
      quiet);
  try {
    (void)flaky(x);
    check(false, "the exception reached the caller");
  } catch (const std::runtime_error &e) {
    check(std::string(e.what()) == "weights not loaded yet",
          "the exception reached the caller unchanged");
  }
  check(flaky.specializations().empty(), "nothing was cached");
  broken = false;
  check(flaky(x).ok() && flaky.tracingCount() == 2,
        "the next call traced again and ran");

  std::cout << "Model objects keyed by identity:\n";
  auto scaled = *tgc::function([](const std::shared_ptr<Classifier> &model,
                                  Tensor t) { return t * model->scale; },
                               quiet);
  auto a = std::make_shared<Classifier>(Classifier{2.0});
  auto b = std::make_shared<Classifier>(Classifier{3.0});
  (void)scaled(a, x);
  (void)scaled(a, x);
  (void)scaled(b, x);
  check(scaled.tracingCount() == 2, "one trace per model object");
  b.reset();
  check(scaled.specializations().size() == 1,
        "the dead model's specialization is gone");

  std::cout << "A scalar captured by reference, keyed by value:\n";
  double temperature = 1.0;
  CaptureRef t = CaptureRef::of(&temperature);
  FunctionOptions captured = quiet;
  captured.captures = {t};
  auto sample = *tgc::function(
      [t](Tensor logits) { return softmax(logits / t.value<double>(), -1); },
      captured);
  auto cold = sample(x);
  temperature = 0.5;
  auto hot = sample(x);
  check(cold.ok() && hot.ok() && sample.tracingCount() == 2 &&
            cold->getDouble(6) != hot->getDouble(6),
        "changing the temperature retraced and changed the result");

  std::cout << "A callable concrete function:\n";
  auto layer = *tgc::function([](Tensor v) { return relu(v) + 1.0; }, quiet);
  auto concrete = *layer.concreteFunction(
      tracing::TensorSpec{DType::F32, {tracing::kDynamic, 256}});
  check(concrete(filled({2, 256}, 1.0)).ok() &&
            concrete(filled({9, 256}, 1.0)).ok() && layer.tracingCount() == 1,
        "it serves any batch without tracing (" + concrete.signature + ")");
  check(!concrete(filled({2, 8}, 1.0)).ok(),
        "a call that does not fit is an error, not a retrace");

  std::cout << "Compile accounting:\n";
  FunctionOptions bounded = quiet;
  bounded.inputSignature = std::vector<tracing::TensorSpec>{
      tracing::TensorSpec{DType::F32, {tracing::kDynamic, 256}}};
  bounded.maxPlansPerSpecialization = 2;
  auto dyn =
      *tgc::function([](Tensor v) { return exp(tanh(v)) * 0.5; }, bounded);
  for (int64_t rows : {1, 2, 3, 1})
    (void)dyn(filled({rows, 256}, 0.1));
  SpecializationInfo info = dyn.specializations().front();
  std::cout << "  " << info.signature << ": " << info.compiles << " compiles, "
            << info.plansHeld << " plans held (" << info.planBytes
            << " bytes)\n";
  check(info.compiles == 4 && info.plansHeld == 2,
        "plans are compiled per shape and bounded (LRU)");

  std::cout << "The persistent compilation cache:\n";
  std::filesystem::path dir = std::filesystem::temp_directory_path() /
                              ("tgc-demo-cache-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  FunctionOptions cachedOptions = quiet;
  cachedOptions.cacheDir = dir.string();
  auto body = [](Tensor v, Tensor w) { return exp(tanh(v * w)) + v; };
  auto timeFirstCall = [&](auto &f) {
    auto start = std::chrono::steady_clock::now();
    auto r = f(x, filled({256}, 0.25));
    double ms = std::chrono::duration<double, std::milli>(
                    std::chrono::steady_clock::now() - start)
                    .count();
    return std::make_pair(std::move(r), ms);
  };
  // One call site for both functions, as a program run twice has.
  auto make = [&] { return *tgc::function(body, cachedOptions); };
  auto first = make();
  auto [r1, cold_ms] = timeFirstCall(first);
  // A new function has nothing in memory: as in a new process, only the
  // directory can spare its compile.
  auto second = make();
  auto [r2, warm_ms] = timeFirstCall(second);
  size_t plans = 0, kernels = 0;
  for (const auto &entry : std::filesystem::directory_iterator(dir)) {
    plans += entry.path().extension() == ".tgcx";
    kernels += entry.path().extension() == ".tgcobj";
  }
  std::printf("  first call %.1f ms (compiled, stored the plan and %zu "
              "kernel(s)); first call of a second function %.1f ms (plan "
              "loaded: %zu compiles)\n",
              cold_ms, kernels, warm_ms, second.compileCount());
  std::fflush(stdout);
  check(r1.ok() && r2.ok() &&
            std::memcmp(r1->data(), r2->data(), r1->byteSize()) == 0,
        "the loaded plan gives bitwise the same result");
  check(plans == 1 && kernels >= 1,
        "the directory holds the plan and its kernels");
  check(second.compileCount() == 0 &&
            second.specializations().front().plansLoaded == 1,
        "the second function compiled nothing");
  std::filesystem::remove_all(dir);

  if (failures) {
    std::cout << failures << " check(s) failed\n";
    return 1;
  }
  return 0;
}
