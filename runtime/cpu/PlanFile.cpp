//===- PlanFile.cpp - CPU plans saved to disk and loaded back -------------===//

#include "runtime/cpu/PlanFile.h"

#include "runtime/AtomicFile.h"
#include "runtime/ByteStream.h"
#include "runtime/Hash.h"
#include "runtime/cpu/Common.h"
#include "runtime/cpu/Recipes.h"

#include "tgc/Version.h"

#include "absl/strings/str_cat.h"

#include <dnnl.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <functional>
#include <map>
#include <sys/mman.h>
#include <sys/stat.h>
#include <thread>
#include <unistd.h>

namespace tgc::runtime::cpu {
namespace {

constexpr char kMagic[8] = {'T', 'G', 'C', 'X', 'P', 'L', 'A', 'N'};
constexpr size_t kPreambleBytes = 8 + 4 + 4 + 8 + 8;
constexpr uint64_t kAlign = 64;

uint64_t alignUp(uint64_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::string oneDnnVersion() {
  const dnnl_version_t *v = dnnl_version();
  return absl::StrCat(v->major, ".", v->minor, ".", v->patch, " (",
                      v->hash ? v->hash : "", ")");
}

/// The body's checksum: XXH64 over the XXH64s of its 16 MiB chunks, so
/// that loading checks the chunks on every thread at once.
constexpr size_t kChecksumChunk = size_t(16) << 20;

class ChunkedHash {
public:
  void update(const void *data, size_t size) {
    const char *p = static_cast<const char *>(data);
    while (size) {
      size_t take = std::min(size, kChecksumChunk - inChunk);
      chunk.update(p, take);
      p += take;
      size -= take;
      inChunk += take;
      if (inChunk == kChecksumChunk)
        finishChunk();
    }
  }
  void update(std::string_view bytes) { update(bytes.data(), bytes.size()); }
  uint64_t digest() {
    if (inChunk)
      finishChunk();
    return hash64(digests.data(), digests.size() * sizeof(uint64_t));
  }

private:
  void finishChunk() {
    digests.push_back(chunk.digest());
    chunk = Hash64();
    inChunk = 0;
  }
  Hash64 chunk;
  size_t inChunk = 0;
  std::vector<uint64_t> digests;
};

/// ChunkedHash of `bytes`, its chunks hashed on every hardware thread (plain
/// threads, not OpenMP: this runs beside the callers' OpenMP teams).
uint64_t chunkedHash(std::string_view bytes) {
  size_t chunks = (bytes.size() + kChecksumChunk - 1) / kChecksumChunk;
  std::vector<uint64_t> digests(chunks);
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < chunks;) {
      size_t begin = i * kChecksumChunk;
      digests[i] = hash64(bytes.data() + begin,
                          std::min(kChecksumChunk, bytes.size() - begin));
    }
  };
  size_t helpers =
      std::min<size_t>(chunks ? chunks - 1 : 0,
                       std::max(1u, std::thread::hardware_concurrency()) - 1);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < helpers; ++t)
    threads.emplace_back(work);
  work();
  for (std::thread &thread : threads)
    thread.join();
  return hash64(digests.data(), digests.size() * sizeof(uint64_t));
}

/// A step's derived blob or a constant, placed in the constants region.
struct Blob {
  const void *data;
  uint64_t bytes;
  uint64_t offset = 0;
};

struct Encoded {
  std::string header;
  std::string plan;
  std::vector<Blob> blobs;
  uint64_t constantsBytes = 0;
};

/// The body of an encoded plan through `sink`, in file order: the plan,
/// padding to 64 bytes, then the constants region (blobs and the gaps that
/// align them). Its checksum and the file take the same bytes.
void emitBody(const Encoded &e,
              const std::function<void(const void *, size_t)> &sink) {
  static const char zeros[kAlign] = {};
  sink(e.plan.data(), e.plan.size());
  sink(zeros, alignUp(e.plan.size()) - e.plan.size());
  uint64_t at = 0;
  for (const Blob &b : e.blobs) {
    sink(zeros, b.offset - at);
    if (b.bytes)
      sink(b.data, b.bytes);
    at = b.offset + b.bytes;
  }
}

absl::StatusOr<Encoded> encode(const Executable &exe,
                               const PlanMetadata &metadata) {
  if (absl::Status s = checkSavable(exe); !s.ok())
    return s;
  Encoded out;
  uint64_t region = 0;
  auto place = [&](const void *data, uint64_t bytes) {
    region = alignUp(region);
    out.blobs.push_back({data, bytes, region});
    region += bytes;
    return out.blobs.back().offset;
  };

  ByteWriter w;
  w.put<uint64_t>(exe.values.size());
  for (const ValueInfo &v : exe.values) {
    w.put<int64_t>(static_cast<int64_t>(v.dtype));
    w.putInts(v.shape);
    w.put(v.storage.kind);
    w.put(v.storage.index);
    w.put(v.storage.offset);
    w.putString(v.producer);
    w.putString(v.layout);
    w.put(v.layoutBytes);
  }
  std::vector<bool> read = constantsRead(exe);
  std::map<const void *, int64_t> constantIds;
  w.put<uint64_t>(exe.constants.size());
  for (size_t i = 0; i < exe.constants.size(); ++i) {
    const HostTensor &c = exe.constants[i];
    w.put<int64_t>(static_cast<int64_t>(c.dtype()));
    w.putInts(c.shape());
    w.put<uint64_t>(c.byteSize());
    // A constant no kernel reads (weights every reader prepacked) is left
    // out: loading gives it zeros that nothing reads.
    w.put<bool>(!read[i]);
    w.put(read[i] ? place(c.data(), c.byteSize()) : uint64_t(0));
    // Whether it holds no NaN or infinity: loading skips the kernels'
    // scans of their constant weights (detail::constantHasSpecialValues).
    bool released =
        i < exe.releasedFinite.size() && exe.releasedFinite[i].has_value();
    w.put(released
              ? *exe.releasedFinite[i]
              : !detail::hasSpecialValues(c, detail::NaNGuardScan::NonFinite));
    if (c.data())
      constantIds.emplace(c.data(), static_cast<int64_t>(i));
  }
  w.put<uint64_t>(exe.steps.size());
  for (size_t i = 0; i < exe.steps.size(); ++i) {
    const Step &step = exe.steps[i];
    const KernelRecipe &recipe = *step.kernel->recipe;
    w.putString(recipe.factory);
    w.putString(recipe.descriptor);
    std::vector<int64_t> ids;
    for (const void *data : recipe.constants) {
      // The step's own constant inputs first (constants left out of a
      // loaded plan share one address).
      int64_t id = -1;
      for (int64_t input : step.inputs) {
        int64_t c = constantOf(exe, input);
        if (c >= 0 && exe.constants[static_cast<size_t>(c)].data() == data) {
          id = c;
          break;
        }
      }
      if (auto it = constantIds.find(data); id < 0 && it != constantIds.end())
        id = it->second;
      if (id < 0)
        return absl::FailedPreconditionError(absl::StrCat(
            "step ", i, " (", step.op,
            "): its kernel refers to data that is no constant of the plan"));
      ids.push_back(id);
    }
    w.putInts(ids);
    std::vector<DerivedConstant> derived = step.kernel->derivedConstants();
    w.put<uint64_t>(derived.size());
    for (const DerivedConstant &d : derived) {
      w.putString(d.layout);
      w.put<uint64_t>(d.bytes);
      w.put(place(d.data, d.bytes));
    }
    w.putInts(step.inputs);
    w.putInts(step.outputs);
    w.putString(step.op);
    w.putString(step.path);
  }
  w.putInts(exe.inputs);
  w.putInts(exe.outputs);
  w.put(exe.arenaBytes);
  w.putString(exe.target);
  w.putInts(exe.stepLevels);
  out.plan = w.take();
  out.constantsBytes = region;

  ChunkedHash body;
  emitBody(out,
           [&](const void *data, size_t size) { body.update(data, size); });

  ByteWriter h;
  h.putString(TGC_VERSION);
  h.putString(oneDnnVersion());
  h.putString(cpuIsa().name);
  h.putString(exe.target);
  // The determinism the plan was made for rides in the metadata.
  PlanMetadata entries = metadata;
  if (exe.determinism != Determinism::Default)
    entries.push_back({"determinism", toString(exe.determinism)});
  h.put<uint64_t>(entries.size());
  for (const auto &[key, value] : entries) {
    h.putString(key);
    h.putString(value);
  }
  h.put<uint64_t>(out.plan.size());
  h.put<uint64_t>(out.constantsBytes);
  h.put<uint64_t>(body.digest());
  out.header = h.take();
  return out;
}

/// Writes an encoded plan through `sink`; the preamble and header come
/// first, then the body in the order its checksum was taken.
void emit(const Encoded &e,
          const std::function<void(const void *, size_t)> &sink) {
  char preamble[kPreambleBytes] = {};
  std::memcpy(preamble, kMagic, 8);
  uint32_t version = kPlanFormatVersion;
  std::memcpy(preamble + 8, &version, 4);
  uint64_t headerBytes = e.header.size();
  uint64_t headerHash = hash64(e.header);
  std::memcpy(preamble + 16, &headerBytes, 8);
  std::memcpy(preamble + 24, &headerHash, 8);
  sink(preamble, sizeof preamble);
  sink(e.header.data(), e.header.size());
  static const char zeros[kAlign] = {};
  // The body starts 64-aligned in the file, so that constants are too.
  uint64_t start = kPreambleBytes + e.header.size();
  sink(zeros, alignUp(start) - start);
  emitBody(e, sink);
}

/// A whole file in memory, read-only.
struct Mapping {
  void *address = MAP_FAILED;
  size_t size = 0; ///< mapped
  size_t used = 0; ///< the file's bytes
  ~Mapping() {
    if (address != MAP_FAILED)
      munmap(address, size);
  }
  std::string_view bytes() const {
    return {static_cast<const char *>(address), used};
  }
};

/// The file at `path`, mapped read-only with its pages mapped up front: the
/// plan's bytes are the page cache's (shared by every process that loads
/// the plan), and one populate costs less than a fault per page.
absl::StatusOr<std::shared_ptr<Mapping>> mapFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    int error = errno;
    std::string message = absl::StrCat(path, ": ", std::strerror(error));
    return error == ENOENT ? absl::NotFoundError(message)
                           : absl::PermissionDeniedError(message);
  }
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return absl::InvalidArgumentError(path + ": not a regular file");
  }
  auto mapping = std::make_shared<Mapping>();
  mapping->size = mapping->used = static_cast<size_t>(st.st_size);
  if (mapping->size < kPreambleBytes) {
    ::close(fd);
    return absl::DataLossError(absl::StrCat(
        path, ": truncated (", mapping->size, " bytes) - not a tgc plan file"));
  }
  // Kernels only read the plan's bytes (oneDNN reads the prepacked weights
  // it is given and writes nothing there). Not MAP_POPULATE: the checksum's
  // threads read every page of the body anyway, and their faults map them
  // in parallel (ResNet-50's 141 MB plan loaded 3-4 ms sooner on a 2-vCPU
  // Zen 5 than with the populating mmap, which maps them on one thread
  // before anything else starts).
  mapping->address =
      mmap(nullptr, mapping->size, PROT_READ, MAP_PRIVATE, fd, 0);
  int error = errno;
  ::close(fd);
  if (mapping->address == MAP_FAILED)
    return absl::ResourceExhaustedError(
        absl::StrCat(path, ": cannot map: ", std::strerror(error)));
  return mapping;
}

struct Parsed {
  PlanFileInfo info;
  std::string_view plan;
  std::string_view constants;
  uint64_t bodyHash = 0;
  uint64_t bodyStart = 0;
};

absl::StatusOr<Parsed> parseHeader(std::string_view file,
                                   const std::string &path) {
  if (file.size() < kPreambleBytes || std::memcmp(file.data(), kMagic, 8) != 0)
    return absl::InvalidArgumentError(path + ": not a tgc plan file");
  uint32_t version;
  uint64_t headerBytes, headerHash;
  std::memcpy(&version, file.data() + 8, 4);
  std::memcpy(&headerBytes, file.data() + 16, 8);
  std::memcpy(&headerHash, file.data() + 24, 8);
  if (version != kPlanFormatVersion)
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": plan format version ", version,
                     "; this tgc reads version ", kPlanFormatVersion));
  if (headerBytes > file.size() - kPreambleBytes)
    return absl::DataLossError(path + ": truncated header");
  std::string_view header = file.substr(kPreambleBytes, headerBytes);
  if (hash64(header) != headerHash)
    return absl::DataLossError(path + ": the header's checksum does not match");
  Parsed parsed;
  ByteReader r(header, path + ": header");
  PlanFileInfo &info = parsed.info;
  info.formatVersion = version;
  info.tgcVersion = r.getString();
  info.oneDnnVersion = r.getString();
  info.isa = r.getString();
  info.target = r.getString();
  info.metadata.resize(r.getCount(16));
  for (auto &[key, value] : info.metadata) {
    key = r.getString();
    value = r.getString();
  }
  uint64_t planBytes = r.get<uint64_t>();
  uint64_t constantsBytes = r.get<uint64_t>();
  parsed.bodyHash = r.get<uint64_t>();
  if (!r.ok())
    return r.status();
  info.bytes = file.size();
  uint64_t start = alignUp(kPreambleBytes + headerBytes);
  uint64_t constantsStart = start + alignUp(planBytes);
  if (planBytes > file.size() || constantsBytes > file.size() ||
      constantsStart > file.size() ||
      constantsBytes != file.size() - constantsStart)
    return absl::DataLossError(absl::StrCat(
        path, ": truncated or padded (", file.size(),
        " bytes; the header says ", constantsStart + constantsBytes, ")"));
  parsed.bodyStart = start;
  parsed.plan = file.substr(start, planBytes);
  parsed.constants = file.substr(constantsStart, constantsBytes);
  return parsed;
}

absl::Status checkCompatible(const PlanFileInfo &info,
                             const std::string &path) {
  if (info.tgcVersion != TGC_VERSION)
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": made by tgc ", info.tgcVersion, "; this is tgc ",
                     TGC_VERSION, " (compile it again)"));
  if (info.oneDnnVersion != oneDnnVersion())
    return absl::FailedPreconditionError(
        absl::StrCat(path, ": made with oneDNN ", info.oneDnnVersion,
                     "; this process has oneDNN ", oneDnnVersion()));
  const CpuIsa &isa = cpuIsa();
  if (info.isa != isa.name)
    return absl::FailedPreconditionError(absl::StrCat(
        path, ": made for x86 ", info.isa, " (", info.target,
        "); this CPU plans for ", isa.name,
        ". Compile it again here, or run with DNNL_MAX_CPU_ISA=",
        isaEnvironmentName(info.isa), " where the CPU has ", info.isa));
  return absl::OkStatus();
}

} // namespace

std::string PlanFileInfo::get(std::string_view key) const {
  for (const auto &[k, v] : metadata)
    if (k == key)
      return v;
  return "";
}

std::vector<std::string> PlanFileInfo::list(std::string_view key) const {
  std::vector<std::string> lines;
  std::string text = get(key);
  for (size_t start = 0; !text.empty();) {
    size_t end = text.find('\n', start);
    lines.push_back(text.substr(start, end - start));
    if (end == std::string::npos)
      break;
    start = end + 1;
  }
  return lines;
}

int PlanFileInfo::threads() const {
  int count = std::atoi(get("threads").c_str());
  return count > 0 && count <= 4096 ? count : 0;
}

std::vector<TensorInfo> planTensors(const Executable &executable,
                                    const std::vector<int64_t> &ids,
                                    const std::vector<std::string> &names,
                                    std::string_view prefix) {
  std::vector<TensorInfo> infos;
  for (size_t i = 0; i < ids.size(); ++i) {
    const ValueInfo &value = executable.values[static_cast<size_t>(ids[i])];
    std::string name = names.size() == ids.size() ? names[i]
                       : prefix.empty()
                           ? std::string()
                           : std::string(prefix) + std::to_string(i);
    infos.push_back({std::move(name), value.dtype, value.shape});
  }
  return infos;
}

std::string isaEnvironmentName(std::string_view isa) {
  std::string name(isa);
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return std::toupper(c); });
  return name;
}

absl::Status checkSavable(const Executable &exe) {
  for (size_t i = 0; i < exe.steps.size(); ++i) {
    const Step &step = exe.steps[i];
    if (!step.kernel || !step.kernel->recipe)
      return absl::FailedPreconditionError(absl::StrCat(
          "step ", i, " (", step.op, ") runs ",
          step.kernel ? std::string(step.kernel->name()) : "no kernel",
          " on the ", step.path, " path, which a saved plan cannot hold"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::string> serializePlan(const Executable &executable,
                                          const PlanMetadata &metadata) {
  auto encoded = encode(executable, metadata);
  if (!encoded.ok())
    return encoded.status();
  std::string bytes;
  emit(*encoded, [&](const void *data, size_t size) {
    bytes.append(static_cast<const char *>(data), size);
  });
  return bytes;
}

absl::Status savePlan(const Executable &executable,
                      const PlanMetadata &metadata, const std::string &path) {
  auto encoded = encode(executable, metadata);
  if (!encoded.ok())
    return encoded.status();
  return writeFileAtomically(
      path, [&](const ByteSink &sink) { emit(*encoded, sink); });
}

bool isPlanFile(const std::string &path) {
  return fileStartsWith(path, std::string_view(kMagic, 8));
}

namespace {

/// The body's checksum, taken on other threads while the plan is decoded
/// and its kernels are made (they read only the plan, validating what they
/// read, and the mapping). verified() waits for it.
class BodyCheck {
public:
  BodyCheck(std::string_view body, uint64_t expected)
      : expected(expected),
        hasher([this, body] { digest = chunkedHash(body); }) {}
  ~BodyCheck() {
    if (hasher.joinable())
      hasher.join();
  }
  bool verified() {
    if (hasher.joinable())
      hasher.join();
    return digest == expected;
  }

private:
  uint64_t expected;
  uint64_t digest = 0;
  std::thread hasher; // last: starts once the fields above are set
};

absl::StatusOr<LoadedPlan> decodePlan(const std::string &path,
                                      const std::shared_ptr<Mapping> &mapping,
                                      Parsed *parsed, BodyCheck &check);

} // namespace

namespace {
absl::StatusOr<LoadedPlan> loadMapped(std::shared_ptr<Mapping> mapping,
                                      const std::string &path);
} // namespace

absl::StatusOr<LoadedPlan> loadPlan(const std::string &path) {
  auto mapped = mapFile(path);
  if (!mapped.ok())
    return mapped.status();
  return loadMapped(*std::move(mapped), path);
}

absl::StatusOr<LoadedPlan> loadPlanFromBytes(std::string_view bytes,
                                             const std::string &what) {
  if (bytes.size() < kPreambleBytes)
    return absl::DataLossError(absl::StrCat(what, ": truncated (", bytes.size(),
                                            " bytes) - not a tgc plan"));
  // A private copy at a page boundary, as a file's mapping is: the
  // constants' 64-byte alignment holds, and nothing writes it.
  auto mapping = std::make_shared<Mapping>();
  mapping->size = mapping->used = bytes.size();
  mapping->address = mmap(nullptr, mapping->size, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping->address == MAP_FAILED)
    return absl::ResourceExhaustedError(
        absl::StrCat(what, ": cannot map ", bytes.size(), " bytes"));
  std::memcpy(mapping->address, bytes.data(), bytes.size());
  mprotect(mapping->address, mapping->size, PROT_READ);
  return loadMapped(std::move(mapping), what);
}

namespace {
absl::StatusOr<LoadedPlan> loadMapped(std::shared_ptr<Mapping> mapping,
                                      const std::string &path) {
  auto parsed = parseHeader(mapping->bytes(), path);
  if (!parsed.ok())
    return parsed.status();
  // `mapping` outlives `check`, whose threads read it.
  BodyCheck check(mapping->bytes().substr(parsed->bodyStart), parsed->bodyHash);
  absl::StatusOr<LoadedPlan> loaded;
  if (absl::Status s = checkCompatible(parsed->info, path); !s.ok())
    loaded = s;
  else
    loaded = decodePlan(path, mapping, &*parsed, check);
  // A damaged file says so, whatever decoding it made of it.
  if (!check.verified())
    return absl::DataLossError(path +
                               ": the plan's checksum does not match (the "
                               "file is damaged)");
  return loaded;
}
} // namespace

namespace {

absl::StatusOr<LoadedPlan> decodePlan(const std::string &path,
                                      const std::shared_ptr<Mapping> &mapping,
                                      Parsed *parsed, BodyCheck &check) {

  // oneDNN sizes some primitives for the thread count current when they
  // are made: make them for the count the plan was made for (metadata
  // "threads"), as the compiler did.
  if (int threads = parsed->info.threads())
    setNumThreads(threads);
  auto exe = std::make_shared<Executable>();
  // A strict plan's kernels are remade thread-invariant, as they were made.
  exe->determinism = parseDeterminism(parsed->info.get("determinism"))
                         .value_or(Determinism::Default);
  ThreadInvariantKernels threadInvariant(exe->determinism ==
                                         Determinism::Strict);
  ByteReader r(parsed->plan, path + ": plan");
  std::string_view region = parsed->constants;
  // A region slice at `offset`, checked against the region.
  auto slice = [&](uint64_t offset, uint64_t bytes) -> char * {
    if (offset > region.size() || bytes > region.size() - offset) {
      r.fail(absl::StrCat("a constant at ", offset, " (", bytes,
                          " bytes) lies outside the file"));
      return nullptr;
    }
    return const_cast<char *>(region.data()) + offset;
  };

  exe->values.resize(r.getCount(16));
  for (ValueInfo &v : exe->values) {
    v.dtype = r.getEnum(DType::UI64);
    v.shape = r.getInts();
    v.storage.kind = r.getEnum(ValueStorage::Kind::View);
    v.storage.index = r.get<int64_t>();
    v.storage.offset = r.get<int64_t>();
    v.producer = r.getString();
    v.layout = r.getString();
    v.layoutBytes = r.get<int64_t>();
  }
  uint64_t numConstants = r.getCount(16);
  std::vector<bool> finite, elided;
  struct Pending {
    DType dtype;
    std::vector<int64_t> shape;
    uint64_t bytes;
    char *data;
  };
  std::vector<Pending> pending;
  uint64_t zeroBytes = 0;
  for (uint64_t i = 0; i < numConstants && r.ok(); ++i) {
    Pending c;
    c.dtype = r.getEnum(DType::UI64);
    c.shape = r.getInts();
    c.bytes = r.get<uint64_t>();
    elided.push_back(r.get<bool>());
    uint64_t offset = r.get<uint64_t>();
    finite.push_back(r.get<bool>());
    c.data = elided.back() ? nullptr : slice(offset, c.bytes);
    if (elided.back())
      zeroBytes = std::max(zeroBytes, c.bytes);
    pending.push_back(std::move(c));
  }
  // Constants left out of the file read as zeros (nothing reads them): one
  // region of zero pages, mapped but never touched.
  std::shared_ptr<Mapping> zeros;
  if (r.ok() && zeroBytes) {
    zeros = std::make_shared<Mapping>();
    zeros->address = mmap(nullptr, zeroBytes, PROT_READ,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (zeros->address == MAP_FAILED)
      return absl::ResourceExhaustedError(
          absl::StrCat(path, ": cannot map ", zeroBytes, " bytes"));
    zeros->size = zeros->used = zeroBytes;
  }
  exe->constants.reserve(pending.size());
  for (size_t i = 0; i < pending.size() && r.ok(); ++i) {
    DType dtype = pending[i].dtype;
    const std::vector<int64_t> &shape = pending[i].shape;
    uint64_t bytes = pending[i].bytes;
    char *data =
        elided[i] ? static_cast<char *>(zeros->address) : pending[i].data;
    auto tensor = HostTensor::borrow(dtype, shape, bytes ? data : nullptr);
    if (!tensor.ok() || tensor->byteSize() != bytes) {
      r.fail(absl::StrCat("constant ", i, " has ", bytes, " bytes for ",
                          tensor.ok() ? tensor->describe() : "a bad shape"));
      break;
    }
    exe->constants.push_back(*std::move(tensor));
  }
  LoadedPlan loaded;
  // Every step's record first, then the kernels made from them on several
  // threads (oneDNN primitive creation dominates a load), loop kernels
  // last, once the file is verified.
  struct StepRecord {
    std::string factory, descriptor;
    RemakeContext context;
    bool usesElided = false;
    absl::StatusOr<KernelPtr> kernel = absl::UnknownError("not made");
  };
  uint64_t numSteps = r.getCount(16);
  std::vector<StepRecord> records;
  records.reserve(numSteps);
  exe->steps.reserve(numSteps);
  for (uint64_t i = 0; i < numSteps && r.ok(); ++i) {
    Step step;
    StepRecord &record = records.emplace_back();
    record.factory = r.getString();
    record.descriptor = r.getString();
    for (int64_t id : r.getInts()) {
      if (id < 0 || static_cast<uint64_t>(id) >= exe->constants.size()) {
        r.fail(absl::StrCat("step ", i, " names constant ", id));
        break;
      }
      record.usesElided |= elided[static_cast<size_t>(id)];
      record.context.constants.push_back(
          &exe->constants[static_cast<size_t>(id)]);
      if (finite[static_cast<size_t>(id)])
        record.context.finite.push_back(record.context.constants.back());
    }
    record.context.derived.resize(r.getCount(24));
    for (RemakeContext::Derived &d : record.context.derived) {
      d.layout = r.getString();
      d.bytes = r.get<uint64_t>();
      d.data = slice(r.get<uint64_t>(), d.bytes);
    }
    record.context.owner = mapping;
    step.inputs = r.getInts();
    step.outputs = r.getInts();
    step.op = r.getString();
    step.path = r.getString();
    exe->steps.push_back(std::move(step));
  }
  if (!r.ok())
    return r.status();
  int threads = parsed->info.threads();
  bool strict = exe->determinism == Determinism::Strict;
  auto make = [&](StepRecord &record) {
    record.kernel =
        remakeKernel(record.factory, record.descriptor, record.context);
  };
  {
    std::atomic<size_t> next{0};
    auto worker = [&](bool helper) {
      if (helper) {
        // This thread's OpenMP count and kernel mode, as the caller's.
        if (threads)
          setNumThreads(threads);
      }
      ThreadInvariantKernels threadInvariant(strict);
      for (size_t i; (i = next.fetch_add(1)) < records.size();)
        if (records[i].factory != "jit.loop")
          make(records[i]);
    };
    size_t helpers = std::min<size_t>(
        records.size() > 1 ? records.size() - 1 : 0,
        std::min(3u, std::max(1u, std::thread::hardware_concurrency()) - 1));
    std::vector<std::thread> pool;
    for (size_t t = 0; t < helpers; ++t)
      pool.emplace_back(worker, true);
    worker(false);
    for (std::thread &thread : pool)
      thread.join();
  }
  for (size_t i = 0; i < records.size(); ++i) {
    StepRecord &record = records[i];
    const Step &step = exe->steps[i];
    if (record.factory == "jit.loop") {
      // Loop kernels' machine code is trusted content the JIT linker does
      // not validate: only a verified file gives it any.
      if (!check.verified())
        return absl::DataLossError(path +
                                   ": the plan's checksum does not match (the "
                                   "file is damaged)");
      make(record);
    }
    if (!record.kernel.ok())
      return absl::Status(record.kernel.status().code(),
                          absl::StrCat(path, ": step ", i, " (", step.op, "): ",
                                       record.kernel.status().message()));
    bool reused = !record.context.derived.empty() &&
                  record.context.derivedUsed == record.context.derived.size();
    if (reused)
      ++loaded.prepackedReused;
    // Its weights are only in their prepacked form: a primitive that wants
    // another layout here cannot be served.
    if (record.usesElided && !reused)
      return absl::FailedPreconditionError(absl::StrCat(
          path, ": step ", i, " (", step.op,
          "): its saved prepacked weights do not fit this machine's "
          "primitive (compile it again here)"));
    exe->steps[i].kernel = *std::move(record.kernel);
  }
  exe->inputs = r.getInts();
  exe->outputs = r.getInts();
  exe->arenaBytes = r.get<int64_t>();
  exe->target = r.getString();
  exe->stepLevels = r.getInts();
  if (r.ok() && !r.atEnd())
    r.fail(absl::StrCat(r.remaining(), " unread bytes after the plan"));
  if (!r.ok())
    return r.status();
  exe->backing = std::make_shared<
      std::pair<std::shared_ptr<Mapping>, std::shared_ptr<Mapping>>>(mapping,
                                                                     zeros);
  if (absl::Status s = exe->verify(); !s.ok())
    return absl::DataLossError(
        absl::StrCat(path, ": the saved plan is inconsistent: ", s.message()));
  loaded.executable = std::move(exe);
  loaded.info = std::move(parsed->info);
  return loaded;
}

} // namespace

} // namespace tgc::runtime::cpu
