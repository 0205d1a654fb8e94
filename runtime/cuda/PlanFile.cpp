//===- PlanFile.cpp - CUDA plans saved to disk and loaded back ------------===//

#include "runtime/cuda/PlanFile.h"

#include "runtime/AtomicFile.h"
#include "runtime/ByteStream.h"
#include "runtime/Hash.h"
#include "tgc/Version.h"

#include "absl/strings/str_cat.h"

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>

namespace tgc::cuda {
namespace {

using runtime::ByteReader;
using runtime::ByteWriter;
using runtime::DType;

constexpr char kMagic[8] = {'T', 'G', 'C', 'X', 'C', 'U', 'D', 'A'};
constexpr size_t kPreambleBytes = 32;

void putSpec(ByteWriter &w, const TensorSpec &spec) {
  w.put(spec.dtype);
  w.putInts(spec.shape);
}

TensorSpec getSpec(ByteReader &r) {
  TensorSpec spec;
  spec.dtype = r.getEnum(DType::UI64);
  spec.shape = r.getInts();
  for (int64_t dim : spec.shape)
    if (dim < 0)
      r.fail("a negative dim");
  return spec;
}

void putSpecs(ByteWriter &w, const std::vector<TensorSpec> &specs) {
  w.put<uint64_t>(specs.size());
  for (const TensorSpec &spec : specs)
    putSpec(w, spec);
}

std::vector<TensorSpec> getSpecs(ByteReader &r) {
  std::vector<TensorSpec> specs(r.getCount(16));
  for (TensorSpec &spec : specs)
    spec = getSpec(r);
  return specs;
}

void putInts32(ByteWriter &w, const std::vector<int> &values) {
  w.put<uint64_t>(values.size());
  for (int v : values)
    w.put<int32_t>(v);
}

std::vector<int> getInts32(ByteReader &r) {
  std::vector<int> values(r.getCount(4));
  for (int &v : values)
    v = r.get<int32_t>();
  return values;
}

void encodeSpec(ByteWriter &w, const ExecutableSpec &spec) {
  putSpecs(w, spec.inputs);
  w.put<uint64_t>(spec.constants.size());
  for (const runtime::HostTensor &constant : spec.constants) {
    w.put(constant.dtype());
    w.putInts(constant.shape());
    w.putString(std::string_view(static_cast<const char *>(constant.data()),
                                 constant.byteSize()));
  }
  putSpecs(w, spec.intermediates);
  w.put<uint64_t>(spec.kernels.size());
  for (const KernelImage &kernel : spec.kernels) {
    w.putString(kernel.name);
    w.putString(kernel.image);
    w.putString(kernel.fallbackImage);
    w.put<uint64_t>(kernel.checks.size());
    for (const std::string &check : kernel.checks)
      w.putString(check);
  }
  w.put<uint64_t>(spec.launches.size());
  for (const Launch &launch : spec.launches) {
    w.put(launch.kind);
    w.put<int32_t>(launch.kernel);
    w.put<uint32_t>(launch.grid);
    w.put<uint32_t>(launch.block);
    w.put<uint32_t>(launch.sharedBytes);
    putInts32(w, launch.buffers);
  }
  w.put<uint64_t>(spec.matmuls.size());
  for (const MatmulCall &m : spec.matmuls) {
    w.put(m.dtype);
    for (int64_t v :
         {m.batch, m.m, m.n, m.k, m.strideA, m.strideB, m.strideC, m.strideD})
      w.put(v);
    w.put(m.transA);
    w.put(m.transB);
    w.put(m.epilogue);
    w.put(m.alpha);
    w.put(m.beta);
    w.put(m.allowTf32);
    for (int b : {m.a, m.b, m.c, m.bias, m.d})
      w.put<int32_t>(b);
  }
  w.put<uint64_t>(spec.convs.size());
  for (const ConvCall &c : spec.convs) {
    w.put(c.dtype);
    w.put(c.nhwc);
    for (int64_t v :
         {c.n, c.c, c.h, c.w, c.k, c.r, c.s, c.groups, c.padH, c.padW,
          c.strideH, c.strideW, c.dilationH, c.dilationW, c.outH, c.outW})
      w.put(v);
    w.put(c.relu);
    w.put(c.alpha2);
    w.put(c.allowTf32);
    for (int b : {c.x, c.filter, c.bias, c.z, c.y})
      w.put<int32_t>(b);
  }
  putInts32(w, spec.results);
  putSpecs(w, spec.resultSpecs);
}

ExecutableSpec decodeSpec(ByteReader &r) {
  ExecutableSpec spec;
  spec.inputs = getSpecs(r);
  uint64_t constants = r.getCount(24);
  for (uint64_t i = 0; i < constants && r.ok(); ++i) {
    DType dtype = r.getEnum(DType::UI64);
    std::vector<int64_t> shape = r.getInts();
    std::string data = r.getString();
    if (!r.ok())
      break;
    auto tensor = runtime::HostTensor::allocateUninitialized(dtype, shape);
    if (!tensor.ok() || tensor->byteSize() != data.size()) {
      r.fail(absl::StrCat("constant ", i, " does not match its shape"));
      break;
    }
    std::memcpy(tensor->data(), data.data(), data.size());
    spec.constants.push_back(*std::move(tensor));
  }
  spec.intermediates = getSpecs(r);
  spec.kernels.resize(r.getCount(32));
  for (KernelImage &kernel : spec.kernels) {
    kernel.name = r.getString();
    kernel.image = r.getString();
    kernel.fallbackImage = r.getString();
    kernel.checks.resize(r.getCount(8));
    for (std::string &check : kernel.checks)
      check = r.getString();
  }
  spec.launches.resize(r.getCount(28));
  for (Launch &launch : spec.launches) {
    launch.kind = r.getEnum(Launch::Kind::Conv);
    launch.kernel = r.get<int32_t>();
    launch.grid = r.get<uint32_t>();
    launch.block = r.get<uint32_t>();
    launch.sharedBytes = r.get<uint32_t>();
    launch.buffers = getInts32(r);
  }
  spec.matmuls.resize(r.getCount(64));
  for (MatmulCall &m : spec.matmuls) {
    m.dtype = r.getEnum(DType::UI64);
    for (int64_t *v : {&m.batch, &m.m, &m.n, &m.k, &m.strideA, &m.strideB,
                       &m.strideC, &m.strideD})
      *v = r.get<int64_t>();
    m.transA = r.get<bool>();
    m.transB = r.get<bool>();
    m.epilogue = r.getEnum(MatmulCall::Epilogue::BiasGelu);
    m.alpha = r.get<float>();
    m.beta = r.get<float>();
    m.allowTf32 = r.get<bool>();
    for (int *b : {&m.a, &m.b, &m.c, &m.bias, &m.d})
      *b = r.get<int32_t>();
  }
  spec.convs.resize(r.getCount(64));
  for (ConvCall &c : spec.convs) {
    c.dtype = r.getEnum(DType::UI64);
    c.nhwc = r.get<bool>();
    for (int64_t *v :
         {&c.n, &c.c, &c.h, &c.w, &c.k, &c.r, &c.s, &c.groups, &c.padH, &c.padW,
          &c.strideH, &c.strideW, &c.dilationH, &c.dilationW, &c.outH, &c.outW})
      *v = r.get<int64_t>();
    c.relu = r.get<bool>();
    c.alpha2 = r.get<float>();
    c.allowTf32 = r.get<bool>();
    for (int *b : {&c.x, &c.filter, &c.bias, &c.z, &c.y})
      *b = r.get<int32_t>();
  }
  spec.results = getInts32(r);
  spec.resultSpecs = getSpecs(r);
  return spec;
}

} // namespace

std::string DevicePlanInfo::get(std::string_view key) const {
  for (const auto &[k, v] : metadata)
    if (k == key)
      return v;
  return "";
}

std::string encodeDevicePlan(const ExecutableSpec &spec,
                             const std::string &arch,
                             const PlanMetadata &metadata) {
  ByteWriter body;
  body.putString(TGC_VERSION);
  body.putString(arch);
  body.put<uint64_t>(metadata.size());
  for (const auto &[key, value] : metadata) {
    body.putString(key);
    body.putString(value);
  }
  encodeSpec(body, spec);
  std::string bytes(kPreambleBytes, '\0');
  std::memcpy(bytes.data(), kMagic, 8);
  uint32_t version = kDevicePlanFormatVersion;
  std::memcpy(bytes.data() + 8, &version, 4);
  uint64_t size = body.data().size();
  uint64_t hash = runtime::hash64(body.data());
  std::memcpy(bytes.data() + 16, &size, 8);
  std::memcpy(bytes.data() + 24, &hash, 8);
  bytes += body.data();
  return bytes;
}

absl::StatusOr<std::pair<ExecutableSpec, DevicePlanInfo>>
decodeDevicePlan(std::string_view bytes, const std::string &what) {
  if (bytes.size() < 8 || std::memcmp(bytes.data(), kMagic, 8) != 0)
    return absl::InvalidArgumentError(what + ": not a tgc CUDA plan file");
  if (bytes.size() < kPreambleBytes)
    return absl::DataLossError(what + ": truncated (" +
                               std::to_string(bytes.size()) + " bytes)");
  DevicePlanInfo info;
  std::memcpy(&info.formatVersion, bytes.data() + 8, 4);
  uint64_t size = 0, hash = 0;
  std::memcpy(&size, bytes.data() + 16, 8);
  std::memcpy(&hash, bytes.data() + 24, 8);
  if (info.formatVersion != kDevicePlanFormatVersion)
    return absl::FailedPreconditionError(
        absl::StrCat(what, ": CUDA plan format version ", info.formatVersion,
                     "; this tgc reads version ", kDevicePlanFormatVersion));
  std::string_view body = bytes.substr(kPreambleBytes);
  if (body.size() != size)
    return absl::DataLossError(absl::StrCat(what, ": truncated (", body.size(),
                                            " of ", size, " bytes)"));
  if (runtime::hash64(body) != hash)
    return absl::DataLossError(
        what + ": the plan's checksum does not match (the file is damaged)");
  info.bytes = bytes.size();
  ByteReader r(body, what);
  info.tgcVersion = r.getString();
  info.arch = r.getString();
  info.metadata.resize(r.getCount(16));
  for (auto &[key, value] : info.metadata) {
    key = r.getString();
    value = r.getString();
  }
  if (r.ok() && info.tgcVersion != TGC_VERSION)
    return absl::FailedPreconditionError(what + ": made by tgc " +
                                         info.tgcVersion + "; this is tgc " +
                                         TGC_VERSION + " (compile it again)");
  ExecutableSpec spec = decodeSpec(r);
  if (r.ok() && !r.atEnd())
    r.fail("trailing bytes after the plan");
  if (!r.ok())
    return r.status();
  return std::make_pair(std::move(spec), std::move(info));
}

absl::Status saveDevicePlan(const ExecutableSpec &spec, const std::string &arch,
                            const PlanMetadata &metadata,
                            const std::string &path) {
  std::string bytes = encodeDevicePlan(spec, arch, metadata);
  return runtime::writeFileAtomically(path, [&](const runtime::ByteSink &sink) {
    sink(bytes.data(), bytes.size());
  });
}

absl::StatusOr<LoadedDevicePlan> loadDevicePlan(const std::string &path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return absl::NotFoundError(path + ": cannot open: " + std::strerror(errno));
  std::ostringstream contents;
  contents << in.rdbuf();
  std::string bytes = contents.str();
  auto decoded = decodeDevicePlan(bytes, path);
  if (!decoded.ok())
    return decoded.status();
  auto executable = DeviceExecutable::create(std::move(decoded->first));
  if (!executable.ok())
    return absl::Status(executable.status().code(),
                        path + ": " +
                            std::string(executable.status().message()));
  LoadedDevicePlan loaded;
  loaded.executable = *std::move(executable);
  loaded.info = std::move(decoded->second);
  return loaded;
}

bool isDevicePlanFile(const std::string &path) {
  return runtime::fileStartsWith(path, std::string_view(kMagic, 8));
}

} // namespace tgc::cuda
