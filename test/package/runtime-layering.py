#!/usr/bin/python3
"""The runtime includes no compiler library: no translation unit under
runtime/ is compiled with LLVM's or MLIR's include directory, and none
includes an llvm/ or mlir/ header. The same holds for the rest of what
libtgc holds outside its compiler (LIBTGC_SOURCES: cmake/Install.cmake).
Reads the build's compile_commands.json.

  runtime-layering.py BUILD_DIR SOURCE_DIR LLVM_INCLUDE_DIR
"""

import json
import os
import re
import sys


# libtgc's code outside runtime/: it runs without libtgc_compiler loaded.
LIBTGC_SOURCES = [
    "codegen/Calibration.cpp",
    "frontend/CompilerLoader.cpp",
    "frontend/onnx/LazyModel.cpp",
    "frontend/onnx/ModelCache.cpp",
]


def main():
    build, source, llvm_include = sys.argv[1:4]
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    source = os.path.realpath(source)
    runtime = os.path.join(source, "runtime") + os.sep
    libtgc = {os.path.join(source, path) for path in LIBTGC_SOURCES}
    checked, seen, problems = 0, set(), []
    for entry in commands:
        path = os.path.realpath(entry["file"])
        if not path.startswith(runtime) and path not in libtgc:
            continue
        command = entry.get("command") or " ".join(entry.get("arguments", []))
        checked += 1
        seen.add(path)
        if llvm_include in command:
            problems.append(f"{path}: compiled with {llvm_include}")
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if re.match(r'\s*#\s*include\s*[<"](llvm|mlir)/', line):
                    problems.append(f"{path}:{number}: {line.strip()}")
    if checked == 0:
        sys.exit("runtime-layering: no runtime/ sources in "
                 "compile_commands.json")
    for path in sorted(libtgc - seen):
        problems.append(f"{path}: not in compile_commands.json")
    for problem in problems:
        print(problem)
    print(f"runtime-layering: {checked} runtime and libtgc translation units, "
          f"{len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
