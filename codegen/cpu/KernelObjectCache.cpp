//===- KernelObjectCache.cpp - loop kernels' object code on disk ----------===//

#include "codegen/cpu/KernelObjectCache.h"
#include "runtime/AtomicFile.h"
#include "runtime/cpu/SourceKey.h"

#include "absl/strings/str_cat.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/Chrono.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <algorithm>
#include <atomic>
#include <cstring>
#include <dlfcn.h>
#include <vector>

using namespace tgc::cpu;

namespace {
constexpr char kMagic[8] = {'T', 'G', 'C', 'K', 'O', 'B', 'J', '\0'};
constexpr uint64_t kFormatVersion = 1;
constexpr size_t kHeaderBytes = 8 + 3 * sizeof(uint64_t);
constexpr llvm::StringLiteral kSuffix = ".tgcobj";

// Process-wide counters (constant-initialized: no static constructor).
std::atomic<uint64_t> hits{0}, misses{0}, stores{0}, corrupt{0}, evicted{0};
std::atomic<uint64_t> planHits{0}, planMisses{0}, planStores{0};
constexpr llvm::StringLiteral kPlanSuffix = ".tgcx";

/// Marks `path` recently used: trimming goes by modification time.
void touch(const std::string &path) { tgc::runtime::touchFile(path); }

void putWord(std::string &out, uint64_t word) {
  char bytes[sizeof word];
  std::memcpy(bytes, &word, sizeof word);
  out.append(bytes, sizeof word);
}
uint64_t getWord(const char *at) {
  uint64_t word;
  std::memcpy(&word, at, sizeof word);
  return word;
}
} // namespace

absl::StatusOr<std::shared_ptr<KernelObjectCache>>
KernelObjectCache::open(const std::string &directory, int64_t maxBytes) {
  if (directory.empty())
    return absl::InvalidArgumentError("tgc: the cache directory is empty");
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return absl::UnavailableError(
        absl::StrCat("tgc: cannot create the cache directory '", directory,
                     "': ", error.message()));
  if (!llvm::sys::fs::is_directory(directory))
    return absl::InvalidArgumentError(absl::StrCat(
        "tgc: cache directory '", directory, "' is not a directory"));
  return std::shared_ptr<KernelObjectCache>(
      new KernelObjectCache(directory, std::max<int64_t>(maxBytes, 1)));
}

std::string KernelObjectCache::keyOf(llvm::StringRef material) {
  llvm::XXH128_hash_t hash = llvm::xxh3_128bits(
      llvm::ArrayRef(material.bytes_begin(), material.size()));
  std::string key;
  llvm::raw_string_ostream os(key);
  os << llvm::format_hex_no_prefix(hash.high64, 16)
     << llvm::format_hex_no_prefix(hash.low64, 16);
  return key;
}

std::string KernelObjectCache::pathOf(const std::string &key) const {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + kSuffix.str());
  return std::string(path);
}

KernelObjectCache::Lookup
KernelObjectCache::load(const std::string &key) const {
  Lookup result;
  std::string path = pathOf(key);
  auto miss = [&](std::string reason, bool remove) {
    misses.fetch_add(1, std::memory_order_relaxed);
    if (remove) {
      corrupt.fetch_add(1, std::memory_order_relaxed);
      llvm::sys::fs::remove(path);
    }
    result.missReason = std::move(reason);
    return std::move(result);
  };
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return miss(file.getError() == std::errc::no_such_file_or_directory
                    ? "absent"
                    : "unreadable (" + file.getError().message() + ")",
                false);
  llvm::StringRef bytes = (*file)->getBuffer();
  if (bytes.size() < kHeaderBytes)
    return miss(absl::StrCat("truncated (", bytes.size(),
                             " bytes, shorter than the header)"),
                true);
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    return miss("corrupt (not a tgc kernel object)", true);
  uint64_t version = getWord(bytes.data() + 8);
  uint64_t size = getWord(bytes.data() + 16);
  uint64_t checksum = getWord(bytes.data() + 24);
  if (version != kFormatVersion)
    return miss(absl::StrCat("stale (format ", version, ", this tgc reads ",
                             kFormatVersion, ")"),
                true);
  llvm::StringRef payload = bytes.drop_front(kHeaderBytes);
  if (payload.size() != size)
    return miss(
        absl::StrCat("truncated (", payload.size(), " of ", size, " bytes)"),
        true);
  if (llvm::xxh3_64bits(payload) != checksum)
    return miss("corrupt (checksum mismatch)", true);
  hits.fetch_add(1, std::memory_order_relaxed);
  touch(path);
  result.object = llvm::MemoryBuffer::getMemBufferCopy(payload, key);
  return result;
}

absl::Status KernelObjectCache::store(const std::string &key,
                                      llvm::StringRef object) const {
  std::string entry(kMagic, sizeof kMagic);
  putWord(entry, kFormatVersion);
  putWord(entry, object.size());
  putWord(entry, llvm::xxh3_64bits(object));
  entry.append(object.data(), object.size());
  llvm::SmallString<256> model(dir);
  llvm::sys::path::append(model, key + ".%%%%%%%%.tmp");
  int fd = -1;
  llvm::SmallString<256> temp;
  if (std::error_code error = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return absl::UnavailableError(
        absl::StrCat("tgc: cannot write to the cache directory '", dir,
                     "': ", error.message()));
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << entry;
    os.close();
    if (os.has_error()) {
      std::string message = os.error().message();
      os.clear_error();
      llvm::sys::fs::remove(temp);
      return absl::UnavailableError(absl::StrCat(
          "tgc: cannot write '", std::string(temp.str()), "': ", message));
    }
  }
  if (std::error_code error = llvm::sys::fs::rename(temp, pathOf(key))) {
    llvm::sys::fs::remove(temp);
    return absl::UnavailableError(absl::StrCat(
        "tgc: cannot store a cache entry in '", dir, "': ", error.message()));
  }
  stores.fetch_add(1, std::memory_order_relaxed);
  trim();
  return absl::OkStatus();
}

void KernelObjectCache::trim() const {
  struct File {
    std::string path;
    int64_t bytes;
    llvm::sys::TimePoint<> modified;
  };
  std::vector<File> files;
  int64_t total = 0;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(dir, error), end;
       !error && it != end; it.increment(error)) {
    if (!llvm::StringRef(it->path()).ends_with(kSuffix) &&
        !llvm::StringRef(it->path()).ends_with(kPlanSuffix))
      continue;
    llvm::sys::fs::file_status status;
    if (llvm::sys::fs::status(it->path(), status))
      continue;
    files.push_back({it->path(), static_cast<int64_t>(status.getSize()),
                     status.getLastModificationTime()});
    total += files.back().bytes;
  }
  if (total <= maxBytes)
    return;
  std::sort(files.begin(), files.end(), [](const File &a, const File &b) {
    return a.modified < b.modified;
  });
  for (const File &file : files) {
    if (total <= maxBytes)
      break;
    // Another process may have removed it already.
    if (!llvm::sys::fs::remove(file.path, /*IgnoreNonExisting=*/true)) {
      total -= file.bytes;
      evicted.fetch_add(1, std::memory_order_relaxed);
    }
  }
}

KernelObjectCache::Stats KernelObjectCache::processStats() {
  Stats stats{hits.load(), misses.load(), stores.load(), corrupt.load(),
              evicted.load()};
  stats.planHits = planHits.load();
  stats.planMisses = planMisses.load();
  stats.planStores = planStores.load();
  return stats;
}

std::string KernelObjectCache::planPathOf(const std::string &key) const {
  llvm::SmallString<256> path(dir);
  llvm::sys::path::append(path, key + kPlanSuffix.str());
  return std::string(path);
}

KernelObjectCache::PlanLookup
KernelObjectCache::loadPlan(const std::string &key) const {
  PlanLookup result;
  std::string path = planPathOf(key);
  auto loaded = runtime::cpu::loadPlan(path);
  if (!loaded.ok()) {
    planMisses.fetch_add(1, std::memory_order_relaxed);
    absl::Status status = loaded.status();
    if (absl::IsNotFound(status)) {
      result.missReason = "absent";
    } else {
      result.missReason = std::string(status.message());
      // Damaged or made by another build: the compile writes it again. A
      // kernel this process cannot load leaves the entry to those that can.
      if (absl::IsDataLoss(status) || absl::IsFailedPrecondition(status) ||
          absl::IsInvalidArgument(status)) {
        corrupt.fetch_add(1, std::memory_order_relaxed);
        llvm::sys::fs::remove(path);
      }
    }
    return result;
  }
  planHits.fetch_add(1, std::memory_order_relaxed);
  touch(path);
  result.executable = std::move(loaded->executable);
  result.info = std::move(loaded->info);
  return result;
}

absl::Status
KernelObjectCache::storePlan(const std::string &key,
                             const runtime::Executable &executable,
                             const runtime::cpu::PlanMetadata &metadata) const {
  if (absl::Status s =
          runtime::cpu::savePlan(executable, metadata, planPathOf(key));
      !s.ok())
    return s;
  planStores.fetch_add(1, std::memory_order_relaxed);
  trim();
  return absl::OkStatus();
}

const std::string &KernelObjectCache::buildIdentity() {
  static const std::string *identity = [] {
    std::string path;
    Dl_info info;
    if (dladdr(reinterpret_cast<void *>(&KernelObjectCache::buildIdentity),
               &info) &&
        info.dli_fname)
      path = info.dli_fname;
    // In a program (not a shared library) dladdr names the program by its
    // argv[0], which need not be the file that holds this code (tgc-run
    // execs tgc-run-full under its own name): the executable itself then.
    bool library = path.find(".so") != std::string::npos;
    if (!library || !llvm::sys::fs::exists(path))
      path = llvm::sys::fs::getMainExecutable(nullptr, nullptr);
    // The real path, size and time (runtime/cpu/SourceKey.h: tgc-run's
    // front end computes the same for the tool it hands runs to).
    return new std::string(runtime::cpu::fileIdentity(path));
  }();
  return *identity;
}
