// --requests: throughput and latency percentiles over streams that share the
// compiled plan, every request checked bitwise against the first; --hint
// sizes the streams from the cores (--threads caps them), never more worker
// threads than cores.
// RUN: tgc-run %s --threads=2 --requests=20 --hint=latency | FileCheck %s --check-prefix=LAT
// RUN: tgc-run %s --threads=2 --requests=20 --hint=throughput | FileCheck %s --check-prefix=TPUT
// RUN: tgc-run %s --threads=2 --requests=12 --streams=2 --json | FileCheck %s --check-prefix=JSON
// RUN: not tgc-run %s --threads=2 --requests=4 --streams=3 2>&1 | FileCheck %s --check-prefix=TOO-MANY
// RUN: not tgc-run %s --requests=4 --hint=fast 2>&1 | FileCheck %s --check-prefix=BAD-HINT
// LAT: @mlp on cpu, latency hint: 1 stream(s) x 2 thread(s), 20 requests in
// LAT-NEXT: throughput {{[0-9.]+}} requests/s, {{[0-9.]+}} items/s (batch 8)
// LAT-NEXT: latency ms: min {{[0-9.]+}} p50 {{[0-9.]+}} p90 {{[0-9.]+}} p99 {{[0-9.]+}} max {{[0-9.]+}}
// LAT-NOT: result #0
// TPUT: @mlp on cpu, throughput hint: 2 stream(s) x 1 thread(s), 20 requests in
// TPUT: latency ms: min {{[0-9.]+}} p50
// JSON: {"function": "@mlp", "backend": "cpu", "hint": "latency", "streams": 2, "threads_per_stream": 1, "requests": 12, "seconds": {{[0-9.]+}}, "requests_per_second": {{[0-9.]+}}, "batch": 8, "items_per_second": {{[0-9.]+}}, "latency_ms": {"min": {{[0-9.]+}}, "p50": {{[0-9.]+}}, "p90": {{[0-9.]+}}, "p99": {{[0-9.]+}}, "max": {{[0-9.]+}}}}
// TOO-MANY: tgc-run: error: --streams=3 exceeds the 2 core(s) this run may use (--threads)
// BAD-HINT: tgc-run: error: unknown --hint 'fast' (latency or throughput)
func.func @mlp(%x: tensor<8x64xf32>, %w: tensor<64x32xf32>) -> tensor<8x32xf32> {
  %h = tgc.matmul %x, %w : (tensor<8x64xf32>, tensor<64x32xf32>) -> tensor<8x32xf32>
  %r = tgc.relu %h : tensor<8x32xf32>
  %s = tgc.softmax %r {axis = 1 : i64} : tensor<8x32xf32>
  return %s : tensor<8x32xf32>
}
