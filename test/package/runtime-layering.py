#!/usr/bin/python3
"""The runtime includes no compiler library: no translation unit under
runtime/ is compiled with LLVM's or MLIR's include directory, and none
includes an llvm/ or mlir/ header. Reads the build's compile_commands.json.

  runtime-layering.py BUILD_DIR SOURCE_DIR LLVM_INCLUDE_DIR
"""

import json
import os
import re
import sys


def main():
    build, source, llvm_include = sys.argv[1:4]
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = json.load(f)
    runtime = os.path.join(os.path.realpath(source), "runtime") + os.sep
    checked, problems = 0, []
    for entry in commands:
        path = os.path.realpath(entry["file"])
        if not path.startswith(runtime):
            continue
        command = entry.get("command") or " ".join(entry.get("arguments", []))
        # libtgc.so (the whole library, compiler included) compiles
        # runtime/Version.cpp too, with its dependencies' include dirs.
        if "/tgc.dir/" in command:
            continue
        checked += 1
        if llvm_include in command:
            problems.append(f"{path}: compiled with {llvm_include}")
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if re.match(r'\s*#\s*include\s*[<"](llvm|mlir)/', line):
                    problems.append(f"{path}:{number}: {line.strip()}")
    if checked == 0:
        sys.exit("runtime-layering: no runtime/ sources in "
                 "compile_commands.json")
    for problem in problems:
        print(problem)
    print(f"runtime-layering: {checked} runtime translation units, "
          f"{len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
