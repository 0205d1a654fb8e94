//===- LoopKernel.cpp - JIT-compiled loop fusion kernels ------------------===//

#include "codegen/cpu/LoopKernel.h"
#include "runtime/ByteStream.h"
#include "runtime/cpu/Recipes.h"

#include "codegen/cpu/KernelObjectCache.h"
#include "codegen/cpu/LoopCodegen.h"
#include "runtime/cpu/Common.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "tgc/Version.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/bit.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>
#include <mutex>
#include <unistd.h>

using namespace mlir;
using namespace tgc;

namespace {

using LoopFn = void (*)(void **);

std::atomic<uint64_t> compiledCount{0}, sharedCount{0};

/// The compiled code of one loop kernel function: the engine that compiled
/// it, or the JIT that loaded it from object code. Kernels whose generated
/// functions are the same share one (LoopCodeCache), across the plans of
/// the process: the plans of a function for several shapes (the lengths of
/// a bounded dim, the counts a data-dependent op gives a staged function)
/// compile a row-split kernel once per block size, not once per shape.
struct LoopCode {
  std::unique_ptr<ExecutionEngine> engine;
  std::unique_ptr<llvm::orc::LLJIT> loaded;
  LoopFn fn = nullptr;
  /// The object code, where a plan holding the kernel may be saved.
  std::string object;
};

/// The loop code of this process by key (KernelObjectCache::keyOf of what
/// determines the code); weak entries, so code goes with its last kernel.
class LoopCodeCache {
public:
  std::shared_ptr<const LoopCode> find(const std::string &key,
                                       bool needObject) {
    std::lock_guard<std::mutex> lock(mutex);
    auto it = entries.find(key);
    if (it == entries.end())
      return nullptr;
    auto code = it->second.lock();
    if (!code || (needObject && code->object.empty()))
      return nullptr;
    return code;
  }
  void insert(const std::string &key, std::shared_ptr<const LoopCode> code) {
    std::lock_guard<std::mutex> lock(mutex);
    for (auto it = entries.begin(); it != entries.end();)
      it = it->second.expired() ? entries.erase(it) : std::next(it);
    entries[key] = code;
  }

private:
  std::mutex mutex;
  std::map<std::string, std::weak_ptr<const LoopCode>> entries;
};

LoopCodeCache &loopCodeCache() {
  // Never destroyed: kernels may outlive static destruction.
  static LoopCodeCache *cache = new LoopCodeCache;
  return *cache;
}

/// Rows per call of a row-split kernel: a power of two, about
/// kBlockElements elements of its widest row, and no more than the next
/// power of two of the rows. The code depends on the row count only
/// through it: every count of at least the cap, and the counts of one
/// power-of-two bucket below it, share a kernel.
constexpr int64_t kBlockElements = 16384;

int64_t blockRowsFor(int64_t rows, int64_t rowElements) {
  uint64_t cap = static_cast<uint64_t>(
      std::max<int64_t>(1, kBlockElements / std::max<int64_t>(1, rowElements)));
  return static_cast<int64_t>(std::min(
      llvm::bit_floor(cap),
      llvm::bit_ceil(static_cast<uint64_t>(std::max<int64_t>(rows, 1)))));
}

class LoopFusionKernel final : public runtime::Kernel {
public:
  std::string label;
  std::shared_ptr<const LoopCode> code;
  /// Rows along the split dim (0: the region runs whole, in one call) and
  /// rows per call: full blocks run in place, the last partial one through
  /// a scratch copy of its rows.
  int64_t rows = 0, blockRows = 0;
  /// Whether the blocks run on the context's threads.
  bool parallel = false;
  /// Elements per row of each input and result (0: read whole).
  std::vector<int64_t> inputRowElements, outputRowElements;
  bool inPlace = false;

  std::string_view name() const override { return label; }
  bool canRunInPlace(size_t index) const override {
    return inPlace && index < inputRowElements.size();
  }

  absl::Status run(const runtime::KernelContext &context,
                   const std::vector<runtime::HostTensor> &inputs,
                   std::vector<runtime::HostTensor> &outputs) const override {
    const size_t numInputs = inputs.size(),
                 numArgs = numInputs + outputs.size();
    // The whole region is one block of no rows (every row size is 0).
    const int64_t full = blockRows ? rows / blockRows : 1;
    const int64_t tail = blockRows ? rows % blockRows : 0;
    std::atomic<bool> outOfMemory{false};
    auto runBlock = [&](int64_t b) {
      // Every argument at row `first` (those read whole at their start).
      const int64_t first = b * blockRows;
      llvm::SmallVector<void *, 16> p(numArgs), args(numArgs);
      for (size_t i = 0; i < numInputs; ++i)
        p[i] = const_cast<char *>(static_cast<const char *>(inputs[i].data())) +
               first * inputRowElements[i] * 4;
      for (size_t i = 0; i < outputs.size(); ++i)
        p[numInputs + i] = static_cast<char *>(outputs[i].data()) +
                           first * outputRowElements[i] * 4;
      auto rowElements = [&](size_t a) {
        return a < numInputs ? inputRowElements[a]
                             : outputRowElements[a - numInputs];
      };
      // The last `tail` rows: computed in a block of this thread's staging
      // buffer (the inputs' rows copied in, the rest zeros), their results
      // copied out.
      llvm::SmallVector<void *, 16> dest;
      if (b == full) {
        int64_t floats = 0;
        for (size_t a = 0; a < numArgs; ++a)
          floats += blockRows * rowElements(a);
        auto *scratch = static_cast<float *>(runtime::cpu::detail::threadBuffer(
            runtime::cpu::detail::ThreadBuffer::Staging,
            static_cast<size_t>(floats) * 4));
        if (!scratch) {
          outOfMemory = true;
          return;
        }
        dest.assign(p.begin() + numInputs, p.end());
        for (size_t a = 0; a < numArgs; ++a) {
          const int64_t n = rowElements(a);
          if (n == 0)
            continue;
          if (a < numInputs) {
            std::memcpy(scratch, p[a], static_cast<size_t>(tail * n) * 4);
            std::fill(scratch + tail * n, scratch + blockRows * n, 0.0f);
          }
          p[a] = scratch;
          scratch += blockRows * n;
        }
      }
      for (size_t i = 0; i < numArgs; ++i)
        args[i] = &p[i];
      code->fn(args.data());
      for (size_t i = 0; i < dest.size(); ++i)
        std::memcpy(dest[i], p[numInputs + i],
                    static_cast<size_t>(tail * outputRowElements[i]) * 4);
    };
    runtime::cpu::detail::parallelRange(parallel ? context.numThreads : 1,
                                        full + (tail ? 1 : 0), 1,
                                        [&](int64_t begin, int64_t end) {
                                          for (int64_t b = begin; b < end; ++b)
                                            runBlock(b);
                                        });
    if (outOfMemory)
      return absl::ResourceExhaustedError(label +
                                          ": no memory for a block of " +
                                          std::to_string(blockRows) + " rows");
    return absl::OkStatus();
  }
};

/// The name of the function computing `blockRows` rows (0: the whole
/// region).
std::string blockFunctionName(int64_t blockRows) {
  return "chunk_" + std::to_string(blockRows);
}

int64_t numElements(Type type) {
  return cast<RankedTensorType>(type).getNumElements();
}

void initializeNativeTarget() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
  });
}

/// Loads object code an ExecutionEngine produced into a JIT of its own and
/// finds the block function of `blockRows` in it.
absl::StatusOr<std::shared_ptr<LoopCode>>
loadCachedObject(std::unique_ptr<llvm::MemoryBuffer> object, int64_t blockRows,
                 llvm::orc::JITTargetMachineBuilder builder) {
  auto code = std::make_shared<LoopCode>();
  code->object = object->getBuffer().str();
  auto jit = llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(std::move(builder))
                 .create();
  if (!jit)
    return absl::InternalError(llvm::toString(jit.takeError()));
  auto generator =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
          (*jit)->getDataLayout().getGlobalPrefix());
  if (!generator)
    return absl::InternalError(llvm::toString(generator.takeError()));
  (*jit)->getMainJITDylib().addGenerator(std::move(*generator));
  if (llvm::Error error = (*jit)->addObjectFile(std::move(object)))
    return absl::InternalError(llvm::toString(std::move(error)));
  auto symbol = (*jit)->lookup("_mlir_" + blockFunctionName(blockRows));
  if (!symbol)
    return absl::InternalError(llvm::toString(symbol.takeError()));
  code->fn = symbol->toPtr<LoopFn>();
  code->loaded = std::move(*jit);
  return code;
}

/// The JIT target of this process: the host CPU within the ISA oneDNN
/// plans for.
llvm::Expected<llvm::orc::JITTargetMachineBuilder> jitTarget() {
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  // Stay within the ISA oneDNN plans for (DNNL_MAX_CPU_ISA caps both).
  for (const std::string &feature : runtime::cpu::cpuIsa().disabledJitFeatures)
    builder->getFeatures().AddFeature(feature, /*Enable=*/false);
  return builder;
}

std::string jitTargetName(llvm::orc::JITTargetMachineBuilder &builder) {
  return builder.getCPU() + " " + builder.getFeatures().getString();
}

/// Sets the recipe of a loop kernel: "jit.loop" and `descriptor`.
void setLoopRecipe(LoopFusionKernel &kernel, std::string descriptor) {
  auto recipe = std::make_shared<runtime::KernelRecipe>();
  recipe->factory = "jit.loop";
  recipe->descriptor = std::move(descriptor);
  kernel.recipe = std::move(recipe);
}

/// Records how to load `kernel` again: its layout and its object code
/// (runtime/cpu/Recipes.h; loaded by loadLoopKernel).
void recordLoopKernel(LoopFusionKernel &kernel, const std::string &target) {
  runtime::ByteWriter w;
  w.putString(kernel.label);
  w.putString(target);
  w.put(kernel.rows);
  w.put(kernel.blockRows);
  w.put(kernel.parallel);
  w.putInts(kernel.inputRowElements);
  w.putInts(kernel.outputRowElements);
  w.put(kernel.inPlace);
  w.putString(kernel.code->object);
  setLoopRecipe(kernel, w.take());
}

absl::StatusOr<runtime::cpu::KernelPtr>
loadLoopKernel(std::string_view descriptor, runtime::cpu::RemakeContext &) {
  initializeNativeTarget();
  runtime::ByteReader r(descriptor, "a loop kernel's descriptor");
  auto kernel = std::make_shared<LoopFusionKernel>();
  kernel->label = r.getString();
  std::string target = r.getString();
  kernel->rows = r.get<int64_t>();
  kernel->blockRows = r.get<int64_t>();
  kernel->parallel = r.get<bool>();
  kernel->inputRowElements = r.getInts();
  kernel->outputRowElements = r.getInts();
  kernel->inPlace = r.get<bool>();
  std::string object = r.getString();
  if (r.ok() && !r.atEnd())
    r.fail("unread bytes at the end");
  if (r.ok() && (kernel->rows < 0 || kernel->blockRows < 0 ||
                 (kernel->blockRows == 0) != (kernel->rows == 0)))
    r.fail("a row split of " + std::to_string(kernel->rows) + " rows in " +
           std::to_string(kernel->blockRows) + "-row blocks");
  if (!r.ok())
    return r.status();
  auto builder = jitTarget();
  if (!builder)
    return absl::InternalError(llvm::toString(builder.takeError()));
  if (std::string here = jitTargetName(*builder); here != target)
    return absl::FailedPreconditionError(kernel->label + " was compiled for " +
                                         target + "; this CPU is " + here);
  auto code = loadCachedObject(
      llvm::MemoryBuffer::getMemBufferCopy(object, kernel->label),
      kernel->blockRows, *builder);
  if (!code.ok())
    return code.status();
  kernel->code = *std::move(code);
  setLoopRecipe(*kernel, std::string(descriptor)); // as it was saved
  return std::shared_ptr<const runtime::Kernel>(std::move(kernel));
}

} // namespace

cpu::LoopKernelStats cpu::loopKernelStats() {
  return {compiledCount.load(), sharedCount.load()};
}

void cpu::registerLoopKernelLoader() {
  runtime::cpu::registerKernelLoader("jit.loop", loadLoopKernel);
}

absl::StatusOr<std::shared_ptr<const runtime::Kernel>>
cpu::createLoopFusionKernel(FusionOp fusion, const LoopKernelOptions &options) {
  if (!isLoopFusionSupported(fusion))
    return absl::UnimplementedError("loop fusion not supported");
  initializeNativeTarget();

  auto kernel = std::make_shared<LoopFusionKernel>();
  kernel->label = "jit.loop[" + loopFusionOpList(fusion) + "]";

  // Blocks of rows along the row dim, when the region has one.
  int64_t resultElements = 0;
  for (Type t : fusion.getResultTypes())
    resultElements += numElements(t);
  std::optional<RowSplit> split = analyzeRowSplit(fusion);
  Block &block = fusion.getBlock();
  auto rowElements = [&](Value v, bool row) -> int64_t {
    if (!split || !row)
      return 0;
    auto type = cast<RankedTensorType>(v.getType());
    int64_t n = 1;
    for (int64_t d = split->dim + 1; d < type.getRank(); ++d)
      n *= type.getDimSize(d);
    return n;
  };
  int64_t widestRow = 1;
  for (auto [i, arg] : llvm::enumerate(block.getArguments())) {
    kernel->inputRowElements.push_back(
        rowElements(arg, split && split->inputIsRow[i]));
    widestRow = std::max(widestRow, kernel->inputRowElements.back());
  }
  for (Value v : block.getTerminator()->getOperands()) {
    kernel->outputRowElements.push_back(rowElements(v, true));
    widestRow = std::max(widestRow, kernel->outputRowElements.back());
  }
  if (split) {
    kernel->rows = split->size;
    kernel->blockRows = blockRowsFor(split->size, widestRow);
    kernel->parallel = options.numThreads > 1 &&
                       resultElements >= options.minParallelElements &&
                       kernel->blockRows < kernel->rows;
  }

  // In place only for regions of elementwise ops over one shape: every
  // element of the result reads the same element of the inputs, and nothing
  // reads an input after writing the result.
  bool elementwiseOnly = fusion.getNumResults() == 1;
  for (Operation &op : block.without_terminator())
    if (!(op.hasTrait<mlir::OpTrait::SameOperandsAndResultType>() ||
          op.getNumOperands() == 2 || isa<ConstantOp, BroadcastToOp>(op)))
      elementwiseOnly = false;
  kernel->inPlace = elementwiseOnly;

  // Generate the block function in a context of our own.
  DialectRegistry registry;
  registerLoopCodegenDialects(registry);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  std::string firstError;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    if (firstError.empty())
      firstError = diag.str();
    return success();
  });
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  const std::string name = blockFunctionName(kernel->blockRows);
  auto func =
      buildLinalgFunction(fusion, *module, name, split ? &*split : nullptr,
                          split ? kernel->blockRows : -1);
  if (failed(func))
    return absl::InternalError("cannot lower " + kernel->label +
                               " to linalg: " + firstError);
  auto builder = jitTarget();
  if (!builder)
    return absl::InternalError(llvm::toString(builder.takeError()));
  std::string target = jitTargetName(*builder);
  bool keepObject = options.objectCache || options.keepObject;

  // Everything that determines the code, hashed: the key of this process's
  // loop code and of the object cache.
  std::string cacheKey;
  {
    std::string material;
    llvm::raw_string_ostream os(material);
    module->print(os);
    os << "\nvectorize=" << options.vectorize << " tile=" << options.vectorTile
       << " noalias=" << !elementwiseOnly << "\ncpu=" << builder->getCPU()
       << " features=" << builder->getFeatures().getString()
       << "\nllvm=" << LLVM_VERSION_STRING << " tgc=" << TGC_VERSION << " "
       << KernelObjectCache::buildIdentity();
    cacheKey = KernelObjectCache::keyOf(material);
  }
  auto done = [&]() -> std::shared_ptr<const runtime::Kernel> {
    if (keepObject && !kernel->code->object.empty())
      recordLoopKernel(*kernel, target);
    return kernel;
  };
  if (auto shared = loopCodeCache().find(cacheKey, keepObject)) {
    sharedCount.fetch_add(1, std::memory_order_relaxed);
    kernel->code = std::move(shared);
    return done();
  }
  if (options.objectCache) {
    KernelObjectCache::Lookup hit = options.objectCache->load(cacheKey);
    if (hit.object) {
      auto code =
          loadCachedObject(std::move(hit.object), kernel->blockRows, *builder);
      // Unusable after all: compile it (and store it again).
      if (code.ok()) {
        kernel->code = *code;
        loopCodeCache().insert(cacheKey, kernel->code);
        return done();
      }
    }
  }

  if (failed(fuseLinalgOps(*module)) ||
      (options.vectorize &&
       failed(vectorizeLinalgOps(*module, options.vectorTile))) ||
      failed(lowerToLLVMDialect(*module, /*noAlias=*/!elementwiseOnly)))
    return absl::InternalError("cannot lower " + kernel->label +
                               " to LLVM: " + firstError);

  auto targetMachine = builder->createTargetMachine();
  if (!targetMachine)
    return absl::InternalError(llvm::toString(targetMachine.takeError()));
  auto transformer = makeOptimizingTransformer(3, 0, targetMachine->get());
  ExecutionEngineOptions engineOptions;
  engineOptions.transformer = transformer;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;
  engineOptions.enableObjectDump = keepObject;
  if (options.dumpJit)
    module->print(llvm::errs());
  auto engine = ExecutionEngine::create(*module, engineOptions,
                                        std::move(*targetMachine));
  if (!engine)
    return absl::InternalError(
        "JIT compilation of " + kernel->label +
        " failed: " + llvm::toString(engine.takeError()));
  compiledCount.fetch_add(1, std::memory_order_relaxed);
  auto code = std::make_shared<LoopCode>();
  code->engine = std::move(*engine);
  auto fn = code->engine->lookupPacked(name);
  if (!fn)
    return absl::InternalError(llvm::toString(fn.takeError()));
  code->fn = *fn;
  if (keepObject) {
    // The engine keeps the object it compiled; it can only write it to a
    // file: dump it (next to the cache's entries, or as a temporary file),
    // store it and keep it with the code, remove the dump. A cache that
    // cannot be written is not an error (the kernel works).
    std::string dump;
    if (options.objectCache) {
      dump = options.objectCache->pathOf(cacheKey) + ".dump" +
             std::to_string(::getpid()) + "-" +
             std::to_string(reinterpret_cast<uintptr_t>(code.get()));
    } else {
      llvm::SmallString<128> temp;
      if (!llvm::sys::fs::createTemporaryFile("tgc-loop", "o", temp))
        dump = std::string(temp);
    }
    if (!dump.empty()) {
      code->engine->dumpToObjectFile(dump);
      if (auto object = llvm::MemoryBuffer::getFile(
              dump, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
        if (options.objectCache)
          (void)options.objectCache->store(cacheKey, (*object)->getBuffer());
        code->object = (*object)->getBuffer().str();
      }
      llvm::sys::fs::remove(dump);
    }
  }
  kernel->code = code;
  loopCodeCache().insert(cacheKey, kernel->code);
  return done();
}
