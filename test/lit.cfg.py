# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "TGC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
# `--param tgc_variant=NAME` (ctest's lit-cpu-avx2) runs in its own tree:
# ctest runs it beside the plain `lit`, and two runs of one test sharing an
# Output/ directory delete each other's files.
_variant = lit_config.params.get("tgc_variant", "")
config.test_exec_root = os.path.join(
    config.tgc_obj_root, "test" + ("-" + _variant if _variant else ""))
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "unit", "Inputs"]

config.substitutions.append(("%PATH%", config.environment["PATH"]))
config.substitutions.append(("%tgc_src_root", config.tgc_src_root))

llvm_config.with_system_environment(["HOME", "TMP", "TEMP", "PATH"])
llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.tgc_tools_dir, append_path=True)

tool_dirs = [config.tgc_tools_dir, config.llvm_tools_dir]
llvm_config.add_tool_substitutions(["tgc-opt", "tgc-run", "tgc-import-onnx", "tgc-onnx-conformance"], tool_dirs)

# ONNX: Debian's libonnx-testdata models and protoc (to encode the hand-written
# text-format models under test/frontend/onnx/Inputs).
onnx_testdata = "/usr/share/libonnx-testdata/data"
config.substitutions.append(("%onnx_testdata", onnx_testdata))
config.substitutions.append(
    ("%onnx_encode", "protoc --encode=onnx.ModelProto -I/usr/include onnx/onnx.proto"))
if os.path.isdir(onnx_testdata):
    config.available_features.add("onnx-testdata")
if shutil.which("protoc") and os.path.exists("/usr/include/onnx/onnx.proto"):
    config.available_features.add("protoc")

# CUDA: compile-only tests (generated CUDA C++ and NVRTC's PTX) need the
# toolkit (TGC_ENABLE_CUDA), not a GPU.
if config.tgc_enable_cuda.upper() in ("ON", "1", "TRUE", "YES"):
    config.available_features.add("cuda-toolkit")
    llvm_config.add_tool_substitutions(["tgc-cuda-codegen"], tool_dirs)

# Whether the machine has a CUDA driver at all (most CI machines do not).
# (dlopen("libcuda.so.1") as runtime/cuda does; the toolkit's stub is not
# on the loader path).
import ctypes
try:
    ctypes.CDLL("libcuda.so.1")
except OSError:
    config.available_features.add("no-cuda-driver")

# The x86 ISA the CPU backend plans for (oneDNN's, capped by
# DNNL_MAX_CPU_ISA, which the JIT follows too): plan checks differ per ISA
# (blocked layouts nChw16c with AVX-512, nChw8c with AVX2; Winograd only with
# AVX-512), results never do. Tests use `--check-prefixes=X,X-%cpu_isa`
# (AVX512, AVX2 or SSE) and `-DBLOCK=%cpu_block` for the blocked layout.
llvm_config.with_system_environment(["DNNL_MAX_CPU_ISA", "ONEDNN_MAX_CPU_ISA"])
import re
import subprocess
_target = ""
try:
    _target = subprocess.run(
        [os.path.join(config.tgc_tools_dir, "tgc-run"), "--print-target"],
        capture_output=True, text=True, timeout=60).stdout
except (OSError, subprocess.SubprocessError):
    pass
_isa = re.match(
    r"x86 (\S+) \((?:channel block (\d+)|no channel block), (no )?Winograd\)",
    _target)
if _isa:
    name, block, no_winograd = _isa.groups()
    block = "nChw%sc" % block if block else "nhwc"
    family = ("AVX512" if name.startswith("avx512") else
              "AVX2" if name.startswith("avx2") else "SSE")
    config.substitutions.append(("%cpu_isa", family))
    config.substitutions.append(("%cpu_block", block))
    config.available_features.add("cpu-" + family.lower())
    if not no_winograd:
        config.available_features.add("cpu-winograd")
    # Native bf16 (AVX512_BF16 or AMX): the bf16 precision policy.
    if "bf16" in name or "amx" in name:
        config.available_features.add("cpu-bf16")
    lit_config.note("cpu backend target: " + _target.strip())
else:
    lit_config.warning("tgc-run --print-target gave no target: " + repr(_target))
