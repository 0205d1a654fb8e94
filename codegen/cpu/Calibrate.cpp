//===- Calibrate.cpp - int8 calibration runs on the CPU -------------------===//

#include "codegen/cpu/Calibrate.h"

#include "codegen/reference/Interpreter.h"

#include <map>
#include <set>

using namespace tgc;

llvm::Expected<codegen::CalibrationTable>
cpu::calibrate(mlir::func::FuncOp func, const CalibrationSamples &samples,
               codegen::Calibrator calibrator, CompileOptions options,
               bool quantizeOutputLayers) {
  auto fail = [](const std::string &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (samples.count == 0 || !samples.read)
    return fail("int8 calibration needs at least one sample");
  options.precision = Precision::F32;
  options.calibration.reset();
  options.activationLayouts = ActivationLayouts::Plain;
  options.cacheDir.clear(); // cached plans keep no calibration keys
  options.savable = false;
  std::map<std::vector<std::vector<int64_t>>,
           std::shared_ptr<const runtime::Executable>>
      plans;
  std::vector<mlir::OwningOpRef<mlir::ModuleOp>> modules;
  std::map<std::string, codegen::TensorStatistics> statistics;
  // The keys of contractions whose result is a result of the function.
  std::set<std::string> outputKeys;
  auto findOutputKeys = [&](const runtime::Executable &exe) {
    auto rootOf = [&](int64_t id) {
      while (exe.values[static_cast<size_t>(id)].storage.kind ==
             runtime::ValueStorage::Kind::View)
        id = exe.values[static_cast<size_t>(id)].storage.index;
      return id;
    };
    std::set<int64_t> results;
    for (int64_t id : exe.outputs)
      results.insert(rootOf(id));
    for (const runtime::Step &step : exe.steps)
      if (!step.calibrationKey.empty())
        for (int64_t out : step.outputs)
          if (results.count(rootOf(out)))
            outputKeys.insert(step.calibrationKey);
  };
  bool histograms = calibrator != codegen::Calibrator::MinMax;
  for (int pass = 0; pass < (histograms ? 2 : 1); ++pass) {
    for (size_t i = 0; i < samples.count; ++i) {
      auto args = samples.read(i);
      if (!args.ok())
        return fail("calibration sample " + std::to_string(i) + ": " +
                    std::string(args.status().message()));
      if (llvm::Error error = reference::checkArguments(func, *args))
        return fail("calibration sample " + std::to_string(i) + ": " +
                    llvm::toString(std::move(error)));
      std::vector<std::vector<int64_t>> shapes;
      for (const runtime::HostTensor &t : *args)
        shapes.push_back(t.shape());
      auto &plan = plans[shapes];
      if (!plan) {
        auto compiled = compile(func, shapes, options);
        if (!compiled)
          return compiled.takeError();
        plan = compiled->executable;
        modules.push_back(std::move(compiled->module));
        findOutputKeys(*plan);
      }
      const runtime::Executable &exe = *plan;
      std::function<void(size_t, const std::vector<runtime::HostTensor> &)>
          observe = [&](size_t s, const std::vector<runtime::HostTensor> &in) {
            const runtime::Step &step = exe.steps[s];
            if (step.calibrationKey.empty())
              return;
            auto record = [&](const runtime::HostTensor &t,
                              const std::string &key) {
              if (t.dtype() != runtime::DType::F32)
                return;
              const auto *data = static_cast<const float *>(t.data());
              codegen::TensorStatistics &stats = statistics[key];
              if (pass == 0)
                stats.addRange(data, t.numElements());
              else
                stats.addHistogram(data, t.numElements());
            };
            if (!in.empty())
              record(in[0], step.calibrationKey);
            // A residual: its range, for a producer that writes it 8-bit.
            size_t residual = static_cast<size_t>(step.calibrationResidual);
            if (step.calibrationResidual >= 0 && residual < in.size())
              record(in[residual],
                     step.calibrationKey + codegen::kResidualKeySuffix);
          };
      runtime::RunOptions run;
      run.numThreads = options.numThreads;
      run.readEnvironment = false;
      run.observeStep = &observe;
      auto results = exe.run(*args, run);
      if (!results.ok())
        return fail("calibration sample " + std::to_string(i) + ": " +
                    std::string(results.status().message()));
    }
  }
  codegen::CalibrationTable table;
  table.calibrator = calibrator;
  table.samples = static_cast<int64_t>(samples.count);
  for (const auto &[key, stats] : statistics) {
    // (An output layer's residual entry is never read: the layer is f32.)
    if (stats.count() == 0 || (!quantizeOutputLayers && outputKeys.count(key)))
      continue;
    codegen::CalibrationEntry entry;
    entry.min = stats.min();
    entry.max = stats.max();
    entry.threshold =
        stats.threshold(calibrator, entry.unsignedValues() ? 255 : 127);
    table.entries.emplace(key, entry);
  }
  return table;
}

tgc::Status cpu::calibrateToFile(mlir::func::FuncOp func,
                                 const CalibrationSamples &samples,
                                 codegen::Calibrator calibrator,
                                 const CalibrationOptions &options,
                                 CompileOptions compileOptions,
                                 const std::string &prefix) {
  auto table = calibrate(func, samples, calibrator, std::move(compileOptions),
                         options.quantizeOutputLayers);
  if (!table)
    return absl::InvalidArgumentError(prefix +
                                      llvm::toString(table.takeError()));
  table->asymmetric = !options.symmetricActivations;
  if (tgc::Status excluded = table->exclude(options.excludedNodes);
      !excluded.ok())
    return absl::InvalidArgumentError(prefix + std::string(excluded.message()));
  return table->save(options.tablePath);
}
