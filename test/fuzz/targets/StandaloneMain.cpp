//===- StandaloneMain.cpp - replay fuzz inputs without libFuzzer
//-----------===//
//
// The fuzz targets' LLVMFuzzerTestOneInput run over files and directories
// of inputs (the seed corpora, minimized crashers) in the regular build, so
// `make test` checks them with any compiler; the `fuzz` preset links the
// same targets with libFuzzer (clang) for coverage-guided campaigns
// (`make fuzz`). Each input also runs with a few deterministic mutations
// (truncations, bit flips, byte insertions), a cheap stand-in for the
// campaign that keeps the targets' error paths exercised.
//
//===----------------------------------------------------------------------===//

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
extern "C" int LLVMFuzzerInitialize(int *argc, char ***argv)
    __attribute__((weak));

namespace {
void runOne(const std::string &bytes) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t *>(bytes.data()),
                         bytes.size());
}
} // namespace

int main(int argc, char **argv) {
  if (LLVMFuzzerInitialize)
    LLVMFuzzerInitialize(&argc, &argv);
  int mutations = 8;
  std::vector<std::filesystem::path> files;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--mutations=", 0) == 0) {
      mutations = std::atoi(arg.c_str() + 12);
      continue;
    }
    std::filesystem::path path(arg);
    if (std::filesystem::is_directory(path)) {
      for (const auto &entry :
           std::filesystem::recursive_directory_iterator(path))
        if (entry.is_regular_file())
          files.push_back(entry.path());
    } else {
      files.push_back(path);
    }
  }
  std::mt19937_64 rng(1);
  size_t runs = 0;
  for (const auto &path : files) {
    std::ifstream in(path, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)),
                      std::istreambuf_iterator<char>());
    runOne(bytes);
    ++runs;
    for (int m = 0; m < mutations && !bytes.empty(); ++m) {
      std::string mutated = bytes;
      size_t at = rng() % mutated.size();
      switch (m % 4) {
      case 0:
        mutated.resize(at);
        break;
      case 1:
        mutated[at] = static_cast<char>(mutated[at] ^ (1u << (rng() % 8)));
        break;
      case 2:
        mutated.insert(at, 1, static_cast<char>(rng()));
        break;
      default:
        mutated[at] = static_cast<char>(rng());
        break;
      }
      runOne(mutated);
      ++runs;
    }
  }
  std::printf("%s: %zu inputs from %zu files ran without a crash\n", argv[0],
              runs, files.size());
  return files.empty() ? 1 : 0;
}
