//===- FastMain.cpp - tgc-run: the front end ------------------------------===//
//
// Runs ahead-of-time artifacts and ONNX models whose plan the persistent
// cache holds without the compiler in the process (tools/lib/FastRun.h);
// everything else is tgc-run-full's, which this execs with the same
// arguments.
//
//===----------------------------------------------------------------------===//

#include "tools/lib/FastRun.h"

#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

int main(int argc, char **argv) {
  char self[PATH_MAX];
  ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string directory =
      n > 0 ? std::string(self, static_cast<size_t>(n)) : std::string(argv[0]);
  directory = directory.substr(0, directory.rfind('/') + 1);
  std::string full = directory + "tgc-run-full";
  if (auto outcome = tgc::tooling::tryFastRun(argc, argv, full)) {
    // Done: the kernel frees the plan faster than its destructors would.
    std::fflush(nullptr);
    ::_exit(outcome->status);
  }
  std::vector<char *> args(argv, argv + argc);
  args.push_back(nullptr);
  ::execv(full.c_str(), args.data());
  std::fprintf(stderr, "tgc-run: error: cannot run %s: %s\n", full.c_str(),
               std::strerror(errno));
  return 1;
}
