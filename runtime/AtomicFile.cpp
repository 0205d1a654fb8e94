//===- AtomicFile.cpp - files written whole or not at all -----------------===//

#include "runtime/AtomicFile.h"

#include "absl/strings/str_cat.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace tgc::runtime {

absl::Status
writeFileAtomically(const std::string &path,
                    const std::function<void(const ByteSink &)> &produce) {
  static std::atomic<uint64_t> counter{0};
  std::string temp =
      absl::StrCat(path, ".tmp.", ::getpid(), ".", counter.fetch_add(1));
  FILE *file = std::fopen(temp.c_str(), "wb");
  if (!file)
    return absl::PermissionDeniedError(
        absl::StrCat(temp, ": cannot create: ", std::strerror(errno)));
  bool ok = true;
  produce([&](const void *data, size_t size) {
    if (ok && size && std::fwrite(data, 1, size, file) != size)
      ok = false;
  });
  if (std::fclose(file) != 0)
    ok = false;
  if (!ok) {
    int error = errno;
    std::remove(temp.c_str());
    return absl::ResourceExhaustedError(
        absl::StrCat(temp, ": cannot write: ", std::strerror(error)));
  }
  if (std::rename(temp.c_str(), path.c_str()) != 0) {
    int error = errno;
    std::remove(temp.c_str());
    return absl::PermissionDeniedError(absl::StrCat(
        path,
        ": cannot rename the written plan into place: ", std::strerror(error)));
  }
  return absl::OkStatus();
}

bool fileStartsWith(const std::string &path, std::string_view prefix) {
  FILE *file = std::fopen(path.c_str(), "rb");
  if (!file)
    return false;
  std::string head(prefix.size(), '\0');
  bool starts = std::fread(head.data(), 1, head.size(), file) == head.size() &&
                head == prefix;
  std::fclose(file);
  return starts;
}

void touchFile(const std::string &path) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND);
  if (fd < 0)
    return;
  (void)::futimens(fd, nullptr);
  ::close(fd);
}

} // namespace tgc::runtime
