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
#include "llvm/Config/llvm-config.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>
#include <dlfcn.h>
#include <mutex>
#include <unistd.h>

using namespace mlir;
using namespace tgc;

namespace {

class LoopFusionKernel final : public runtime::Kernel {
public:
  using Fn = void (*)(void **);
  std::string label;
  /// What holds the code: the engine that compiled it, or the JIT that
  /// loaded it from the object cache.
  std::unique_ptr<ExecutionEngine> engine;
  std::unique_ptr<llvm::orc::LLJIT> loaded;
  /// One chunk: rows [begin, end) along the split dim.
  struct Chunk {
    int64_t begin, end;
    Fn fn;
  };
  std::vector<Chunk> chunks;
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
    size_t numArgs = inputs.size() + outputs.size();
    auto runChunk = [&](const Chunk &chunk) {
      void *pointers[64];
      void *args[64];
      std::vector<void *> heapPointers, heapArgs;
      void **ptrs = pointers, **argv = args;
      if (numArgs > 64) {
        heapPointers.resize(numArgs);
        heapArgs.resize(numArgs);
        ptrs = heapPointers.data();
        argv = heapArgs.data();
      }
      size_t k = 0;
      for (size_t i = 0; i < inputs.size(); ++i, ++k)
        ptrs[k] =
            const_cast<char *>(static_cast<const char *>(inputs[i].data())) +
            chunk.begin * inputRowElements[i] * 4;
      for (size_t i = 0; i < outputs.size(); ++i, ++k)
        ptrs[k] = static_cast<char *>(outputs[i].data()) +
                  chunk.begin * outputRowElements[i] * 4;
      for (size_t i = 0; i < numArgs; ++i)
        argv[i] = &ptrs[i];
      chunk.fn(argv);
    };
    if (chunks.size() == 1) {
      runChunk(chunks[0]);
      return absl::OkStatus();
    }
    runtime::cpu::detail::parallelRange(
        context.numThreads, static_cast<int64_t>(chunks.size()), 1,
        [&](int64_t begin, int64_t end) {
          for (int64_t c = begin; c < end; ++c)
            runChunk(chunks[static_cast<size_t>(c)]);
        });
    return absl::OkStatus();
  }
};

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
/// points the chunks at their packed entry points.
absl::Status loadCachedObject(LoopFusionKernel &kernel,
                              std::unique_ptr<llvm::MemoryBuffer> object,
                              llvm::orc::JITTargetMachineBuilder builder) {
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
  for (LoopFusionKernel::Chunk &chunk : kernel.chunks) {
    auto symbol = (*jit)->lookup("_mlir_chunk_" +
                                 std::to_string(chunk.end - chunk.begin));
    if (!symbol)
      return absl::InternalError(llvm::toString(symbol.takeError()));
    chunk.fn = symbol->toPtr<LoopFusionKernel::Fn>();
  }
  kernel.loaded = std::move(*jit);
  return absl::OkStatus();
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
void recordLoopKernel(LoopFusionKernel &kernel, llvm::StringRef object,
                      const std::string &target) {
  runtime::ByteWriter w;
  w.putString(kernel.label);
  w.putString(target);
  w.put<uint64_t>(kernel.chunks.size());
  for (const LoopFusionKernel::Chunk &chunk : kernel.chunks) {
    w.put(chunk.begin);
    w.put(chunk.end);
  }
  w.putInts(kernel.inputRowElements);
  w.putInts(kernel.outputRowElements);
  w.put(kernel.inPlace);
  w.putString(std::string_view(object.data(), object.size()));
  setLoopRecipe(kernel, w.take());
}

absl::StatusOr<runtime::cpu::KernelPtr>
loadLoopKernel(std::string_view descriptor, runtime::cpu::RemakeContext &) {
  initializeNativeTarget();
  runtime::ByteReader r(descriptor, "a loop kernel's descriptor");
  auto kernel = std::make_shared<LoopFusionKernel>();
  kernel->label = r.getString();
  std::string target = r.getString();
  kernel->chunks.resize(r.getCount(16));
  for (LoopFusionKernel::Chunk &chunk : kernel->chunks) {
    chunk.begin = r.get<int64_t>();
    chunk.end = r.get<int64_t>();
    chunk.fn = nullptr;
  }
  kernel->inputRowElements = r.getInts();
  kernel->outputRowElements = r.getInts();
  kernel->inPlace = r.get<bool>();
  std::string object = r.getString();
  if (r.ok() && !r.atEnd())
    r.fail("unread bytes at the end");
  if (!r.ok())
    return r.status();
  auto builder = jitTarget();
  if (!builder)
    return absl::InternalError(llvm::toString(builder.takeError()));
  if (std::string here = jitTargetName(*builder); here != target)
    return absl::FailedPreconditionError(kernel->label + " was compiled for " +
                                         target + "; this CPU is " + here);
  std::string label = kernel->label;
  if (absl::Status s = loadCachedObject(
          *kernel, llvm::MemoryBuffer::getMemBufferCopy(object, label),
          *builder);
      !s.ok())
    return s;
  setLoopRecipe(*kernel, std::string(descriptor)); // as it was saved
  return std::shared_ptr<const runtime::Kernel>(std::move(kernel));
}

} // namespace

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

  // Chunking along the row dim.
  int64_t resultElements = 0;
  for (Type t : fusion.getResultTypes())
    resultElements += numElements(t);
  std::optional<RowSplit> split;
  int64_t numChunks = 1;
  if (options.numThreads > 1 && resultElements >= options.minParallelElements)
    split = analyzeRowSplit(fusion);
  if (split)
    numChunks = std::min<int64_t>(options.numThreads, split->size);
  if (numChunks <= 1)
    split.reset(), numChunks = 1;

  // Row sizes per operand.
  Block &block = fusion.getBlock();
  auto rowElements = [&](Value v, bool row) -> int64_t {
    if (!row)
      return 0;
    auto type = cast<RankedTensorType>(v.getType());
    int64_t n = 1;
    for (int64_t d = split->dim + 1; d < type.getRank(); ++d)
      n *= type.getDimSize(d);
    return n;
  };
  for (auto [i, arg] : llvm::enumerate(block.getArguments()))
    kernel->inputRowElements.push_back(
        split ? rowElements(arg, split->inputIsRow[i]) : 0);
  for (Value v : block.getTerminator()->getOperands())
    kernel->outputRowElements.push_back(split ? rowElements(v, true) : 0);

  // In place only for regions of elementwise ops over one shape: every
  // element of the result reads the same element of the inputs, and nothing
  // reads an input after writing the result.
  bool elementwiseOnly = fusion.getNumResults() == 1;
  for (Operation &op : block.without_terminator())
    if (!(op.hasTrait<mlir::OpTrait::SameOperandsAndResultType>() ||
          op.getNumOperands() == 2 || isa<ConstantOp, BroadcastToOp>(op)))
      elementwiseOnly = false;
  kernel->inPlace = elementwiseOnly;

  // Generate the chunk functions in a context of our own.
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
  std::vector<int64_t> sizes;
  for (int64_t c = 0; c < numChunks; ++c) {
    int64_t begin = split ? split->size * c / numChunks : 0;
    int64_t end = split ? split->size * (c + 1) / numChunks : 0;
    kernel->chunks.push_back({begin, end, nullptr});
    if (!llvm::is_contained(sizes, end - begin))
      sizes.push_back(end - begin);
  }
  for (int64_t rows : sizes) {
    std::string name = "chunk_" + std::to_string(rows);
    auto func = buildLinalgFunction(
        fusion, *module, name, split ? &*split : nullptr, split ? rows : -1);
    if (failed(func))
      return absl::InternalError("cannot lower " + kernel->label +
                                 " to linalg: " + firstError);
  }
  auto builder = jitTarget();
  if (!builder)
    return absl::InternalError(llvm::toString(builder.takeError()));
  std::string target = jitTargetName(*builder);

  // The object cache: everything that determines the code, hashed.
  std::string cacheKey;
  if (options.objectCache) {
    std::string material;
    llvm::raw_string_ostream os(material);
    module->print(os);
    os << "\nvectorize=" << options.vectorize << " tile=" << options.vectorTile
       << " noalias=" << !elementwiseOnly << "\ncpu=" << builder->getCPU()
       << " features=" << builder->getFeatures().getString()
       << "\nllvm=" << LLVM_VERSION_STRING << " tgc=" << TGC_VERSION << " "
       << KernelObjectCache::buildIdentity();
    cacheKey = KernelObjectCache::keyOf(material);
    KernelObjectCache::Lookup hit = options.objectCache->load(cacheKey);
    if (hit.object) {
      std::string object = hit.object->getBuffer().str();
      if (loadCachedObject(*kernel, std::move(hit.object), *builder).ok()) {
        recordLoopKernel(*kernel, object, target);
        return std::shared_ptr<const runtime::Kernel>(std::move(kernel));
      }
      // Unusable after all: compile it (and store it again).
      kernel->loaded.reset();
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
  bool keepObject = options.objectCache || options.keepObject;
  engineOptions.enableObjectDump = keepObject;
  if (options.dumpJit)
    module->print(llvm::errs());
  auto engine = ExecutionEngine::create(*module, engineOptions,
                                        std::move(*targetMachine));
  if (!engine)
    return absl::InternalError(
        "JIT compilation of " + kernel->label +
        " failed: " + llvm::toString(engine.takeError()));
  kernel->engine = std::move(*engine);
  for (LoopFusionKernel::Chunk &chunk : kernel->chunks) {
    int64_t rows = chunk.end - chunk.begin;
    auto fn = kernel->engine->lookupPacked("chunk_" + std::to_string(rows));
    if (!fn)
      return absl::InternalError(llvm::toString(fn.takeError()));
    chunk.fn = *fn;
  }
  if (keepObject) {
    // The engine keeps the object it compiled; it can only write it to a
    // file: dump it (next to the cache's entries, or as a temporary file),
    // store it and keep it in the kernel's recipe, remove the dump. A cache
    // that cannot be written is not an error (the kernel works).
    std::string dump;
    if (options.objectCache) {
      dump = options.objectCache->pathOf(cacheKey) + ".dump" +
             std::to_string(::getpid()) + "-" +
             std::to_string(reinterpret_cast<uintptr_t>(kernel.get()));
    } else {
      llvm::SmallString<128> temp;
      if (!llvm::sys::fs::createTemporaryFile("tgc-loop", "o", temp))
        dump = std::string(temp);
    }
    if (!dump.empty()) {
      kernel->engine->dumpToObjectFile(dump);
      if (auto object = llvm::MemoryBuffer::getFile(
              dump, /*IsText=*/false, /*RequiresNullTerminator=*/false)) {
        if (options.objectCache)
          (void)options.objectCache->store(cacheKey, (*object)->getBuffer());
        recordLoopKernel(*kernel, (*object)->getBuffer(), target);
      }
      llvm::sys::fs::remove(dump);
    }
  }
  return std::shared_ptr<const runtime::Kernel>(std::move(kernel));
}
