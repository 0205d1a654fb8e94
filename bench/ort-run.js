// ONNX Runtime side of bench/models.py: one round in a fresh process.
//
//   node bench/ort-run.js MODEL.onnx INPUT.npy EXPECTED.npy THREADS RUNS
//       [RTOL ATOL]
//
// Creates a session (intra-op THREADS, inter-op 1, sequential, all graph
// optimizations), runs once and checks the output against EXPECTED.npy,
// then prints "max-abs-error E of M" (against EXPECTED.npy, whose largest
// magnitude is M), "first-result-ms T" (process start to the first checked
// result: the cold start), "median M" (ms of RUNS timed calls after a
// warm-up) and "peak-rss-kib K". ORT comes from the npm package
// onnxruntime-node (TGC_ORT_NODE_MODULES names its node_modules directory;
// see docs/cpu-backend.md). Exits 1 on a mismatch, 2 on bad usage or a
// missing package.
'use strict';

const fs = require('fs');
const path = require('path');
const startNs = process.hrtime.bigint() -
    BigInt(Math.round(process.uptime() * 1e9));

function loadOrt() {
  const dirs = [];
  if (process.env.TGC_ORT_NODE_MODULES)
    dirs.push(process.env.TGC_ORT_NODE_MODULES);
  dirs.push(path.join(process.env.HOME || '', '.cache', 'tgc-ort',
                      'node_modules'));
  for (const dir of dirs) {
    try {
      return require(path.join(dir, 'onnxruntime-node'));
    } catch (e) {
    }
  }
  console.error('ort-run: onnxruntime-node not found (looked in ' +
                dirs.join(', ') + '); install it with `npm install ' +
                '--ignore-scripts onnxruntime-node@1.30.0` in ' +
                '~/.cache/tgc-ort');
  process.exit(2);
}

// A little-endian float32 .npy file: {shape, data}.
function readNpy(file) {
  const bytes = fs.readFileSync(file);
  if (bytes.toString('latin1', 1, 6) !== 'NUMPY')
    throw new Error(file + ': not a .npy file');
  const major = bytes[6];
  const headerLen = major >= 2 ? bytes.readUInt32LE(8) : bytes.readUInt16LE(8);
  const start = major >= 2 ? 12 : 10;
  const header = bytes.toString('latin1', start, start + headerLen);
  if (!/'descr':\s*'<f4'/.test(header) || /'fortran_order':\s*True/.test(header))
    throw new Error(file + ': expected a C-order float32 array: ' + header);
  const shapeText = /'shape':\s*\(([^)]*)\)/.exec(header)[1];
  const shape = shapeText.split(',').map(s => s.trim()).filter(s => s.length)
                    .map(Number);
  const offset = start + headerLen;
  const count = shape.reduce((a, b) => a * b, 1);
  const data = new Float32Array(count);
  for (let i = 0; i < count; ++i)
    data[i] = bytes.readFloatLE(offset + 4 * i);
  return {shape, data};
}

function peakRssKib() {
  try {
    const status = fs.readFileSync('/proc/self/status', 'utf8');
    const m = /VmHWM:\s*(\d+) kB/.exec(status);
    if (m)
      return Number(m[1]);
  } catch (e) {
  }
  return -1;
}

async function main() {
  const argv = process.argv.slice(2);
  if (argv.length < 5) {
    console.error('usage: ort-run.js MODEL INPUT EXPECTED THREADS RUNS ' +
                  '[RTOL ATOL]');
    process.exit(2);
  }
  const [model, inputPath, expectedPath] = argv;
  const threads = Number(argv[3]), runs = Number(argv[4]);
  const rtol = argv.length > 5 ? Number(argv[5]) : 1e-3;
  const atol = argv.length > 6 ? Number(argv[6]) : 1e-5;
  const ort = loadOrt();
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });
  const input = readNpy(inputPath);
  const feeds = {};
  feeds[session.inputNames[0]] =
      new ort.Tensor('float32', input.data, input.shape);
  let out = await session.run(feeds);
  const got = out[session.outputNames[0]].data;
  const firstMs = Number(process.hrtime.bigint() - startNs) / 1e6;
  const expected = readNpy(expectedPath);
  if (got.length !== expected.data.length) {
    console.error(`ort-run: ${got.length} output elements, expected ` +
                  expected.data.length);
    process.exit(1);
  }
  let maxError = 0, maxExpected = 0;
  for (let i = 0; i < got.length; ++i) {
    maxError = Math.max(maxError, Math.abs(got[i] - expected.data[i]));
    maxExpected = Math.max(maxExpected, Math.abs(expected.data[i]));
  }
  console.log(`max-abs-error ${maxError} of ${maxExpected}`);
  for (let i = 0; i < got.length; ++i) {
    const e = expected.data[i];
    if (!(Math.abs(got[i] - e) <= atol + rtol * Math.abs(e))) {
      console.error(`ort-run: output[${i}] = ${got[i]}, expected ${e}`);
      process.exit(1);
    }
  }
  console.log(`first-result-ms ${firstMs.toFixed(1)}`);
  if (runs <= 0) {
    console.log(`peak-rss-kib ${peakRssKib()}`);
    return;
  }
  await session.run(feeds);
  const times = [];
  for (let i = 0; i < runs; ++i) {
    const t0 = process.hrtime.bigint();
    out = await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  const mid = times.length >> 1;
  const median = times.length % 2 ? times[mid]
                                   : (times[mid - 1] + times[mid]) / 2;
  console.log(`median ${median.toFixed(4)}`);
  console.log(`peak-rss-kib ${peakRssKib()}`);
}

main().catch(e => {
  console.error('ort-run: ' + (e && e.message ? e.message : e));
  process.exit(1);
});
