//===- Runner.h - run a function on a backend, for the tools ----*- C++ -*-===//
//
// What tgc-run (and its --differential mode) does with one function on one
// backend, selected by name from the registry (codegen/Backend.h): compile
// for the shapes of the first call's arguments (a backend that serves any
// shapes compiles once), run, time, profile. Device backends open their
// device when the runner is created; without one, a runner that may only
// compile (--print-plan, --compile-only) is still made and running it is
// the "no CUDA device: <reason>" error.
//
//===----------------------------------------------------------------------===//

#ifndef TGC_TOOLS_LIB_RUNNER_H
#define TGC_TOOLS_LIB_RUNNER_H

#include "codegen/Backend.h"
#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <string>
#include <vector>

namespace tgc::tooling {

struct RunnerOptions {
  /// Intra-op threads (0: the default) and inter-op kernels at once.
  int threads = 0;
  int interOp = 1;
  /// The backend's fusing pipeline (tgc-cpu) or its unfused variant.
  bool fuse = true;
  /// CUDA: the device ordinal, the arch to compile for (empty: the
  /// device's, or the backend's default without one), TF32.
  int cudaOrdinal = 0;
  std::string cudaArch;
  bool allowTf32 = false;
  /// Print the plan / the lowered module to `out` after compiling.
  bool printPlan = false;
  bool printLowered = false;
  /// Log each kernel (the CPU runtime's TGC_VERBOSE).
  bool verbose = false;
  /// Record kernel events of every run (backends with a host executable).
  bool profile = false;
  /// A device backend without a device still compiles (its runs fail).
  bool compileWithoutDevice = false;
  /// The persistent compilation cache (empty: TGC_CACHE_DIR, else none).
  std::string cacheDir;
  /// codegen::BackendOptions::planAlias.
  std::string planAlias;
  /// The determinism contract (Default: TGC_DETERMINISTIC).
  Determinism determinism = Determinism::Default;
  /// The precision policy (Default: TGC_PRECISION).
  Precision precision = Precision::Default;
  /// With precision int8: the calibration table.
  std::shared_ptr<const codegen::CalibrationTable> calibration;
};

class Runner {
public:
  /// A runner of `func` on the backend called `backend`.
  static llvm::Expected<std::unique_ptr<Runner>>
  create(llvm::StringRef backend, mlir::func::FuncOp func,
         const RunnerOptions &options, llvm::raw_ostream &out);

  /// A runner of a function compiled already (a loaded plan: a .tgcx
  /// artifact or a cache entry) on the cpu backend; compile() checks
  /// nothing and run() checks the arguments against the plan.
  static llvm::Expected<std::unique_ptr<Runner>>
  fromCompiled(std::unique_ptr<codegen::CompiledFunction> compiled,
               const RunnerOptions &options, llvm::raw_ostream &out);

  const codegen::Backend &backend() const { return *selected; }
  /// Compiles for these arguments' shapes (once; later calls reuse it).
  /// Arguments that do not fit the signature are the interpreter's located
  /// error.
  llvm::Error compile(const std::vector<runtime::HostTensor> &args);
  /// Compiles if needed and runs.
  llvm::Expected<std::vector<runtime::HostTensor>>
  run(const std::vector<runtime::HostTensor> &args);
  /// `iterations` timed runs after a warm-up one, in milliseconds. A device
  /// backend times runs on device-resident arguments (one synchronization
  /// per call, no host transfers), as GPU frameworks are timed.
  llvm::Expected<std::vector<double>>
  benchmark(const std::vector<runtime::HostTensor> &args, unsigned iterations);
  /// The kernel events of the runs so far (RunnerOptions::profile), or null
  /// where the backend has no host executable.
  const runtime::Profile *profile() const;

  /// What benchmarkStreams measured: one latency per request (ms, in the
  /// order they finished) and the wall time of all of them.
  struct StreamsResult {
    std::vector<double> latencies;
    double seconds = 0;
  };
  /// Runs `requests` requests on `streams` threads at once, each request
  /// with `threadsPerStream` intra-op threads, sharing the compiled plan
  /// (each run takes its own arena), after one untimed request per stream.
  /// Every request's results must be bitwise those of the first (an error
  /// otherwise). Host backends only.
  llvm::Expected<StreamsResult>
  benchmarkStreams(const std::vector<runtime::HostTensor> &args,
                   unsigned streams, unsigned requests, int threadsPerStream);

private:
  Runner(const codegen::Backend &backend, mlir::func::FuncOp func,
         const RunnerOptions &options, llvm::raw_ostream &out);
  /// A device backend's device (options.cudaOrdinal); without one, an
  /// error unless options.compileWithoutDevice (noDevice says why).
  llvm::Error openDevice();

  const codegen::Backend *selected;
  mlir::func::FuncOp func;
  RunnerOptions options;
  llvm::raw_ostream &out;
  std::shared_ptr<cuda::Device> device;
  /// Why there is no device (a device backend that may only compile).
  std::string noDevice;
  std::unique_ptr<codegen::CompiledFunction> compiled;
  runtime::Profile events;
};

/// "no CUDA device: <reason>" for a device that did not open.
std::string noDeviceMessage(llvm::StringRef reason);

} // namespace tgc::tooling

#endif // TGC_TOOLS_LIB_RUNNER_H
