#!/usr/bin/python3
"""libtgc loads its compiler only when it needs it (cmake/Install.cmake,
frontend/CompilerLoader.cpp):

1. libtgc.so needs no LLVM, MLIR, ONNX or protobuf library;
2. libtgc_compiler.so defines none of libtgc's own symbols again (one
   runtime in a process) except the functions libtgc stubs;
3. a program linking libtgc (test/package/LazyCompiler.cpp) that loads an
   ONNX model whose plan the cache holds runs it, bitwise as the process
   that compiled it, without mapping the compiler; its first traced
   function then loads the compiler and runs;
4. an ahead-of-time artifact with loop kernels loads through tgc::Artifact
   in such a program (libtgc loads the compiler for their loader);
5. a libtgc without its compiler beside it says so when a program first
   needs the compiler.

  lazy-compiler.py BUILD_DIR PROGRAM MODEL.onnx LOOPS.mlir
"""

import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile


def strong_symbols(library):
    out = subprocess.run(["nm", "-D", "--defined-only", library], check=True,
                         capture_output=True, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 3 and fields[1] in "TDBR":
            symbols.add(fields[2])
    return symbols


def main():
    build, program, model, loops = sys.argv[1:5]
    libtgc = os.path.join(build, "lib", "libtgc.so")
    compiler = os.path.join(build, "lib", "libtgc_compiler.so")
    problems = []

    needed = subprocess.run(["readelf", "-d", libtgc], check=True,
                            capture_output=True, text=True).stdout
    for line in needed.splitlines():
        if "NEEDED" in line and re.search(r"llvm|mlir|onnx|protobuf", line,
                                          re.I):
            problems.append(f"libtgc.so needs {line.split()[-1]}")

    with open(os.path.join(build, "CompilerStubs.S")) as f:
        stubs = set(re.findall(r'^"([^"]+)":$', f.read(), re.M))
    twice = (strong_symbols(libtgc) & strong_symbols(compiler)) - stubs
    for symbol in sorted(twice)[:20]:
        problems.append(f"defined in both libraries: {symbol}")
    print(f"lazy-compiler: {len(stubs)} stubs; {len(twice)} symbols defined "
          f"in both libraries besides them")

    work = tempfile.mkdtemp(prefix="tgc-lazy-")
    try:
        # An artifact with loop kernels, made by tgc-compile, loads through
        # tgc::Artifact (the compiler loaded for their loader).
        artifact = os.path.join(work, "loops.tgcx")
        subprocess.run([os.path.join(build, "bin", "tgc-compile"), loops,
                        "--function=loops", "--input=16x256xf32=0.5",
                        "--input=256xf32=0.25", "-o", artifact],
                       check=True, capture_output=True)
        run = subprocess.run([program, "artifact", artifact],
                             capture_output=True, text=True)
        print(f"--- artifact\n{run.stdout}{run.stderr}", end="")
        if run.returncode != 0:
            problems.append("the artifact process failed")
        # A libtgc whose compiler is missing (a partial install): the first
        # trace or import says which library it could not load.
        alone = os.path.join(work, "alone")
        os.makedirs(alone)
        shutil.copy(os.path.realpath(libtgc),
                    os.path.join(alone, os.path.basename(
                        os.readlink(libtgc))))
        run = subprocess.run(
            [program, "cold", model, os.path.join(work, "c0"),
             os.path.join(work, "r0")],
            capture_output=True, text=True,
            env=dict(os.environ, LD_LIBRARY_PATH=alone),
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_CORE,
                                                  (0, 0)))
        expected = ("tgc: cannot load the compiler library " + alone +
                    "/libtgc_compiler.so")
        print(f"--- without libtgc_compiler\n{run.stderr}", end="")
        if run.returncode == 0 or expected not in run.stderr:
            problems.append("a libtgc without its compiler did not say so")

        result = os.path.join(work, "result.bin")
        cache = os.path.join(work, "cache")
        for mode in ("cold", "warm"):
            run = subprocess.run([program, mode, model, cache, result],
                                 capture_output=True, text=True)
            print(f"--- {mode}\n{run.stdout}{run.stderr}", end="")
            if run.returncode != 0:
                problems.append(f"the {mode} process failed")
    finally:
        shutil.rmtree(work, ignore_errors=True)

    for problem in problems:
        print("FAIL:", problem)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
