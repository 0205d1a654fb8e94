# -*- Python -*-
import os
import shutil

import lit.formats
from lit.llvm import llvm_config

config.name = "TGC"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.tgc_obj_root, "test")
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
