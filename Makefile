# tgc entry points. On a fresh Debian 12 machine:
#   make demo   set up (if needed), build, and run the demo
#   make test   set up (if needed), build, and run every test suite
.PHONY: demo test test-isa setup build docs bench bench-models bench-qdq bench-gpu gpu-bundle conformance conformance-update real-models fuzz-graphs fuzz fuzz-short fuzz-build clean

BUILD_DIR := build

setup:
	@./scripts/setup.sh

$(BUILD_DIR)/build.ninja: | setup
	cmake --preset default

build: setup $(BUILD_DIR)/build.ninja
	cmake --build --preset default

demo: build
	@./scripts/demo.sh

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j2
	$(MAKE) fuzz-short

# The CPU suites as on an AVX2-only machine (DNNL_MAX_CPU_ISA=AVX2; `make
# test` runs them too).
test-isa: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j2 -L isa

# Regenerate the dialect and pass references into docs/.
docs: build
	cmake --build --preset default --target tgc-doc

# Benchmarks (not part of `make test`: performance lives here, not in tests).
bench: build
	$(BUILD_DIR)/bin/bench-function-overhead
	$(BUILD_DIR)/bin/bench-cpu-backend
	$(BUILD_DIR)/bin/bench-loop-fusion

# tgc (fused and unfused pipelines) vs ONNX Runtime 1.30 vs PyTorch
# TorchScript on ResNet-50 (b1, b8, 1 thread), the MLP and the transformer
# encoder (b1, b8): latency, throughput, cold start, peak RSS (installs
# Debian's PyTorch and onnxruntime-node first).
bench-models: build
	@./scripts/setup.sh --real-models
	/usr/bin/python3 bench/models.py

# int8 on the same QDQ model: tgc against ONNX Runtime 1.30 (bench/qdq.py:
# tgc calibrates, bench-qdq-export writes the QDQ model, both engines run it;
# needs the bench-models exports).
bench-qdq: build
	@./scripts/setup.sh --real-models
	/usr/bin/python3 bench/models.py --configs resnet50:1,mlp:64 --rounds 1 --runs 2 > /dev/null
	/usr/bin/python3 bench/qdq.py

# The archive a lent GPU machine runs (scripts/gpu-session.sh there; see
# docs/cuda-backend.md): tgc-run, the CUDA test binaries and their libraries.
gpu-bundle: build
	./scripts/gpu-bundle.sh $(BUILD_DIR) .gpu

# On a machine with a GPU and PyTorch with CUDA: ResNet-50 / MLP / transformer
# on the cuda backend against PyTorch (docs/cuda-backend.md).
bench-gpu: build
	python3 bench/gpu-models.py --batches 1,32 --precision all

# The full ONNX backend test suite report (per test, per directory, per op) on
# the reference and CPU backends; `make test` only checks expected-pass.txt.
conformance: build
	$(BUILD_DIR)/bin/tgc-onnx-conformance --all \
	  --expected-pass=test/onnx/expected-pass.txt \
	  --report=$(BUILD_DIR)/onnx-conformance.md

# Rewrite test/onnx/expected-pass.txt from what passes now.
conformance-update: build
	$(BUILD_DIR)/bin/tgc-onnx-conformance \
	  --write-expected-pass=test/onnx/expected-pass.txt

# PyTorch vs tgc on ResNet-50, an MLP and a transformer encoder exported to
# ONNX (installs python3-torch and friends first; not part of `make test`).
real-models: build
	@./scripts/setup.sh --real-models
	/usr/bin/python3 scripts/real-models.py

# A long differential campaign of random tgc functions (test/fuzz/tgc_smith.py)
# under every CPU configuration; minimized reproducers and report.txt go to
# build/fuzz-graphs/. `make fuzz-graphs N=500 SEED=7`.
fuzz-graphs: N ?= 10000
fuzz-graphs: SEED ?= 1
fuzz-graphs: build
	python3 test/fuzz/tgc_smith.py campaign --count $(N) --seed $(SEED) --jobs 2 \
	  --out $(BUILD_DIR)/fuzz-graphs \
	  --tgc-run $(BUILD_DIR)/bin/tgc-run --tgc-opt $(BUILD_DIR)/bin/tgc-opt

# Coverage-guided fuzzing (libFuzzer, clang-22, ASan + UBSan; build-fuzz/):
# RUNS executions of each target over its seed corpus (default 200000),
# crashers in build-fuzz/findings/. `make test` replays the corpora through
# the regular build (ctest fuzz-replay-*) and ends with `make fuzz-short`.
RUNS ?= 200000
fuzz: fuzz-build
	./scripts/fuzz.sh build-fuzz $(RUNS)

# The short run `make test` ends with: FUZZ_SHORT_RUNS executions of each
# target (about 2 minutes with the fuzz build's ~4).
FUZZ_SHORT_RUNS ?= 3000
fuzz-short: fuzz-build
	./scripts/fuzz.sh build-fuzz $(FUZZ_SHORT_RUNS)

fuzz-build:
	@./scripts/setup.sh --fuzz
	test -f build-fuzz/build.ninja || cmake --preset fuzz
	cmake --build --preset fuzz --target fuzz-npy fuzz-tensor-literal fuzz-onnx-import fuzz-mlir-pipeline

clean:
	rm -rf $(BUILD_DIR)
