//===- Conformance.cpp - tgc against the ONNX backend test suite ----------===//
//
// tgc-onnx-conformance runs the ONNX backend tests shipped by Debian's
// libonnx-testdata (node, simple, pytorch-converted, pytorch-operator: one
// directory per test holding model.onnx and
// test_data_set_N/{input,output}_M.pb) on tgc's backends, compares with the
// expected outputs using ONNX's own tolerances (rtol 1e-3, atol 1e-7, as
// numpy.testing.assert_allclose) and reports, per test and backend, pass / fail
// / unsupported with the reason, with totals per directory and per op.
//
// - "unsupported": the importer refused a valid model because it uses
//   something tgc does not support (errors with unsupportedErrorCode()), or a
//   test input has an element type tgc lacks.
// - "fail": anything else: a wrong result, an importer error on a valid model,
//   a compile or run-time error.
// - A test passes when every data set matches. Models are imported as they
//   are first; when that is refused, they are imported again specialized on
//   each data set's input values (ImportOptions::argumentValues: ONNX node
//   tests feed Reshape's shape, Slice's starts, ... as graph inputs), and a
//   pass that needed this is counted separately as "specialized".
//
// --expected-pass=FILE checks a list of "<backend> <dir>/<test>" lines: every
// listed test must pass (the regression gate in `make test`).
//
//===----------------------------------------------------------------------===//

#include "codegen/Backend.h"
#include "codegen/Backends.h"
#include "codegen/reference/Interpreter.h"
#include "frontend/onnx/OnnxImporter.h"
#include "tgc/AbslStatus.h"
#include "tgc/HostTensor.h"
#include "tools/lib/Registration.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

using namespace llvm;
using tgc::runtime::HostTensor;

namespace {

cl::opt<std::string> rootDir("root", cl::desc("ONNX backend test data root"),
                             cl::init("/usr/share/libonnx-testdata/data"));
cl::list<std::string>
    dirNames("dir",
             cl::desc("test directories under --root (default: node, simple, "
                      "pytorch-converted, pytorch-operator)"));
cl::list<std::string> backendNames("backend",
                                   cl::desc("backends: reference, cpu "
                                            "(default: both)"));
cl::list<std::string> filters("filter",
                              cl::desc("run only tests whose name contains "
                                       "this (repeatable)"));
cl::opt<std::string>
    expectedPass("expected-pass",
                 cl::desc("file of '<backend> <dir>/<test>' lines that must "
                          "pass; only the listed tests run unless --all"));
cl::opt<bool> runAll("all", cl::desc("with --expected-pass: run every test"));
cl::opt<std::string> reportPath("report",
                                cl::desc("write the full report (markdown)"));
cl::opt<std::string>
    writeExpected("write-expected-pass",
                  cl::desc("write the passing tests as an expected-pass list"));
cl::opt<double> rtol("rtol", cl::init(1e-3), cl::desc("relative tolerance"));
cl::opt<double> atol("atol", cl::init(1e-7), cl::desc("absolute tolerance"));
cl::opt<bool> verbose("v", cl::desc("print every test's outcome"));

enum class Outcome { Pass, Fail, Unsupported };

const char *outcomeName(Outcome o) {
  switch (o) {
  case Outcome::Pass:
    return "pass";
  case Outcome::Fail:
    return "fail";
  case Outcome::Unsupported:
    return "unsupported";
  }
  return "?";
}

struct Result {
  Outcome outcome = Outcome::Fail;
  bool specialized = false;
  std::string reason;
  double seconds = 0;
};

struct TestCase {
  std::string dir;  // "node"
  std::string name; // "test_abs"
  std::string path; // root/node/test_abs
  std::vector<std::string> ops;
  std::string id() const { return dir + "/" + name; }
};

/// A data set's values, flattened (a sequence is its tensors), with the
/// structure of each input and output.
struct DataSet {
  std::vector<HostTensor> inputs, outputs;
  std::vector<tgc::ValueStructure> inputStructures, outputStructures;
};

/// The first line of an error message, with the data root shortened.
std::string shorten(std::string message) {
  size_t newline = message.find('\n');
  if (newline != std::string::npos)
    message.resize(newline);
  std::string root = rootDir + "/";
  for (size_t at; (at = message.find(root)) != std::string::npos;)
    message.erase(at, root.size());
  if (message.size() > 300)
    message = message.substr(0, 297) + "...";
  return message;
}

/// Consumes `error`: its message and whether it means "unsupported".
std::pair<std::string, bool> explain(Error error) {
  std::string message;
  bool unsupported = false;
  handleAllErrors(std::move(error), [&](const ErrorInfoBase &info) {
    if (!message.empty())
      message += "; ";
    message += info.message();
    unsupported |= info.convertToErrorCode() == tgc::unsupportedErrorCode();
  });
  return {shorten(message), unsupported};
}

/// The files `prefix_N.pb` of a data set, ordered by N.
std::vector<std::string> numberedFiles(StringRef dir, StringRef prefix) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (sys::fs::directory_iterator it(dir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef file = sys::path::filename(it->path());
    if (!file.consume_front(prefix) || !file.consume_back(".pb"))
      continue;
    int index;
    if (!file.getAsInteger(10, index))
      found.emplace_back(index, it->path());
  }
  llvm::sort(found);
  std::vector<std::string> paths;
  for (auto &[index, path] : found)
    paths.push_back(path);
  return paths;
}

std::vector<std::string> dataSetDirs(StringRef testDir) {
  std::vector<std::pair<int, std::string>> found;
  std::error_code ec;
  for (sys::fs::directory_iterator it(testDir, ec), end; it != end && !ec;
       it.increment(ec)) {
    StringRef file = sys::path::filename(it->path());
    int index;
    if (file.consume_front("test_data_set_") && !file.getAsInteger(10, index))
      found.emplace_back(index, it->path());
  }
  llvm::sort(found);
  std::vector<std::string> dirs;
  for (auto &[index, path] : found)
    dirs.push_back(path);
  return dirs;
}

/// Loads every data set; an unsupported input is reported as such.
std::optional<Result> loadDataSets(const TestCase &test,
                                   std::vector<DataSet> &sets) {
  std::vector<std::string> dirs = dataSetDirs(test.path);
  if (dirs.empty())
    return Result{Outcome::Fail, false, "the test has no test_data_set_*"};
  // The files hold TensorProto, SequenceProto or OptionalProto messages, as
  // the model declares its inputs and outputs.
  auto types = tgc::onnxModelValueTypes(test.path + "/model.onnx");
  if (!types) {
    auto [message, unsupported] = explain(types.takeError());
    return Result{Outcome::Fail, false, message};
  }
  for (const std::string &dir : dirs) {
    DataSet set;
    for (const char *prefix : {"input_", "output_"}) {
      bool input = StringRef(prefix) == "input_";
      const std::vector<std::string> &declared =
          input ? types->inputs : types->outputs;
      for (auto [i, file] : enumerate(numberedFiles(dir, prefix))) {
        std::string type = i < declared.size() ? declared[i] : "tensor";
        auto value = tgc::readValueProto(file, type);
        if (!value) {
          auto [message, unsupported] = explain(value.takeError());
          return Result{unsupported ? Outcome::Unsupported : Outcome::Fail,
                        false, message};
        }
        auto &tensors = input ? set.inputs : set.outputs;
        for (HostTensor &t : value->tensors)
          tensors.push_back(std::move(t));
        (input ? set.inputStructures : set.outputStructures)
            .push_back(std::move(value->structure));
      }
    }
    sets.push_back(std::move(set));
  }
  return std::nullopt;
}

/// ONNX 1.12's test data stores bfloat16 tensors as UINT16 (numpy has no
/// bfloat16): a ui16 tensor where the model has a bf16 value stands for its
/// bits, and is viewed as bf16 (the view borrows `t`'s storage).
HostTensor asModelType(const HostTensor &t, mlir::Type modelType) {
  auto ranked = dyn_cast<mlir::RankedTensorType>(modelType);
  if (t.dtype() != tgc::runtime::DType::UI16 || !ranked ||
      !ranked.getElementType().isBF16())
    return t;
  auto view = HostTensor::borrow(tgc::runtime::DType::BF16, t.shape(),
                                 const_cast<void *>(t.data()));
  return view.ok() ? *view : t;
}

/// Runs `func` on `backend` for one data set and compares the results.
/// `unsupported` is set when the backend cannot compile the function (shapes
/// that depend on input values).
std::optional<std::string> runDataSet(mlir::func::FuncOp func,
                                      StringRef backend, const DataSet &set,
                                      bool *unsupported = nullptr) {
  std::vector<HostTensor> inputs;
  for (auto [i, t] : enumerate(set.inputs))
    inputs.push_back(i < func.getNumArguments()
                         ? asModelType(t, func.getArgumentTypes()[i])
                         : t);
  auto selected = tgc::codegen::getBackend(backend);
  if (!selected)
    return "backend: " + explain(selected.takeError()).first;
  std::vector<std::vector<int64_t>> shapes;
  if (!(*selected)->servesAnyShapes())
    for (const HostTensor &t : inputs)
      shapes.push_back(t.shape());
  auto compiled = (*selected)->compile(
      func, shapes, tgc::codegen::BackendOptions::fromEnvironment());
  if (!compiled) {
    auto [message, notSupported] = explain(compiled.takeError());
    if (unsupported)
      *unsupported = notSupported;
    return "compile: " + message;
  }
  auto ran = (*compiled)->run(inputs, {});
  if (!ran.ok())
    return "run: " + shorten(std::string(ran.status().message()));
  std::vector<HostTensor> results = std::move(*ran);
  // Sequences and optionals: the function's results flatten them in the
  // structure it records.
  if (auto recorded = func->getAttrOfType<mlir::ArrayAttr>(
          tgc::kOnnxOutputStructuresAttr)) {
    for (auto [i, attr] : enumerate(recorded)) {
      std::string got = cast<mlir::StringAttr>(attr).str();
      std::string expected = i < set.outputStructures.size()
                                 ? set.outputStructures[i].str()
                                 : "nothing";
      if (got != expected)
        return formatv("output #{0} is {1} where the test expects {2}", i, got,
                       expected)
            .str();
    }
  } else if (llvm::any_of(set.outputStructures,
                          [](const tgc::ValueStructure &s) {
                            return s.kind != tgc::ValueStructure::Kind::Tensor;
                          })) {
    return std::string("the test expects a sequence or optional output, the "
                       "function gives tensors");
  }
  if (results.size() != set.outputs.size())
    return formatv("{0} results, but the test expects {1}", results.size(),
                   set.outputs.size())
        .str();
  for (auto [i, got] : enumerate(results)) {
    HostTensor expected =
        i < func.getNumResults()
            ? asModelType(set.outputs[i], func.getResultTypes()[i])
            : set.outputs[i];
    absl::Status status = tgc::runtime::allClose(got, expected, rtol, atol);
    if (!status.ok())
      return formatv("output #{0}: {1}", i, std::string(status.message()))
          .str();
  }
  return std::nullopt;
}

class Runner {
public:
  Runner() { tgc::registerAllDialects(registry); }

  Result run(const TestCase &test, StringRef backend) {
    auto start = std::chrono::steady_clock::now();
    Result result = runImpl(test, backend);
    result.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    return result;
  }

private:
  Result runImpl(const TestCase &test, StringRef backend) {
    std::string model = test.path + "/model.onnx";
    mlir::MLIRContext context(registry, mlir::MLIRContext::Threading::DISABLED);
    // Errors come back as llvm::Error; keep diagnostics off stderr.
    mlir::ScopedDiagnosticHandler quiet(
        &context, [](mlir::Diagnostic &) { return mlir::success(); });
    tgc::ImportOptions options;
    std::vector<DataSet> sets;
    std::optional<Result> badData = loadDataSets(test, sets);
    // Sequence and optional inputs: the import needs their structure (data
    // sets of other structures are imported again, below).
    auto structuresOf = [](const DataSet &set) {
      std::vector<std::optional<tgc::ValueStructure>> structures;
      for (const tgc::ValueStructure &s : set.inputStructures)
        structures.push_back(s);
      return structures;
    };
    if (!badData && !sets.empty())
      options.inputStructures = structuresOf(sets.front());
    auto generic = tgc::importOnnxModel(context, model, options);
    std::string genericMessage;
    bool genericUnsupported = false;
    if (generic) {
      if (badData)
        return *badData;
      auto func = findMain(**generic);
      bool passed = true;
      for (const DataSet &set : sets) {
        if (set.inputStructures != sets.front().inputStructures) {
          genericMessage = "data sets of different input structures";
          genericUnsupported = true;
          passed = false;
          break;
        }
        bool notSupported = false;
        if (auto mismatch = runDataSet(func, backend, set, &notSupported)) {
          // Shapes that depend on input values: try specializing on them.
          if (!notSupported)
            return {Outcome::Fail, false, *mismatch};
          genericMessage = *mismatch;
          genericUnsupported = true;
          passed = false;
          break;
        }
      }
      if (passed)
        return {Outcome::Pass, false, ""};
    } else {
      // The import error says more than unreadable data (sequences and
      // optionals do not parse as tensors).
      std::tie(genericMessage, genericUnsupported) =
          explain(generic.takeError());
    }
    Result importFailure{genericUnsupported ? Outcome::Unsupported
                                            : Outcome::Fail,
                         false, genericMessage};
    if (badData)
      return importFailure;
    // Specialize on each data set's input values.
    for (const DataSet &set : sets) {
      options.argumentValues.assign(set.inputs.begin(), set.inputs.end());
      options.inputStructures = structuresOf(set);
      auto specialized = tgc::importOnnxModel(context, model, options);
      if (!specialized) {
        consumeError(specialized.takeError());
        return importFailure;
      }
      if (auto mismatch = runDataSet(findMain(**specialized), backend, set))
        return {Outcome::Fail, true, *mismatch};
    }
    return {Outcome::Pass, true,
            "specialized on input values: " + genericMessage};
  }

  static mlir::func::FuncOp findMain(mlir::ModuleOp module) {
    return module.lookupSymbol<mlir::func::FuncOp>("main");
  }

  mlir::DialectRegistry registry;
};

std::vector<TestCase> collectTests(ArrayRef<std::string> dirs) {
  std::vector<TestCase> tests;
  for (const std::string &dir : dirs) {
    std::string path = rootDir + "/" + dir;
    std::vector<std::string> names;
    std::error_code ec;
    for (sys::fs::directory_iterator it(path, ec), end; it != end && !ec;
         it.increment(ec))
      if (sys::fs::exists(it->path() + "/model.onnx"))
        names.push_back(sys::path::filename(it->path()).str());
    llvm::sort(names);
    for (std::string &name : names) {
      TestCase test{dir, name, path + "/" + name, {}};
      if (auto ops = tgc::onnxModelOpTypes(test.path + "/model.onnx"))
        test.ops = std::move(*ops);
      else
        consumeError(ops.takeError());
      tests.push_back(std::move(test));
    }
  }
  return tests;
}

struct Tally {
  int tests = 0, pass = 0, specialized = 0, fail = 0, unsupported = 0;
  void add(const Result &r) {
    ++tests;
    switch (r.outcome) {
    case Outcome::Pass:
      ++pass;
      specialized += r.specialized;
      break;
    case Outcome::Fail:
      ++fail;
      break;
    case Outcome::Unsupported:
      ++unsupported;
      break;
    }
  }
  double percent() const { return tests ? 100.0 * pass / tests : 0; }
};

int realMain() {
  std::vector<std::string> dirs(dirNames.begin(), dirNames.end());
  if (dirs.empty())
    dirs = {"node", "simple", "pytorch-converted", "pytorch-operator"};
  std::vector<std::string> backends(backendNames.begin(), backendNames.end());
  if (backends.empty())
    backends = {"reference", "cpu"};
  tgc::codegen::registerAllBackends();
  for (const std::string &b : backends)
    if (auto backend = tgc::codegen::getBackend(b); !backend) {
      errs() << "tgc-onnx-conformance: " << toString(backend.takeError())
             << "\n";
      return 2;
    }
  if (!sys::fs::is_directory(rootDir)) {
    errs() << "tgc-onnx-conformance: no ONNX test data at '" << rootDir
           << "' (Debian package libonnx-testdata)\n";
    return 2;
  }

  // The expected-pass list: backend -> test ids.
  std::map<std::string, std::set<std::string>> expected;
  if (!expectedPass.empty()) {
    auto buffer = MemoryBuffer::getFile(expectedPass);
    if (!buffer) {
      errs() << "tgc-onnx-conformance: cannot read '" << expectedPass
             << "': " << buffer.getError().message() << "\n";
      return 2;
    }
    SmallVector<StringRef> lines;
    (*buffer)->getBuffer().split(lines, '\n');
    for (auto [n, line] : enumerate(lines)) {
      line = line.split('#').first.trim();
      if (line.empty())
        continue;
      auto [backend, id] = line.split(' ');
      id = id.trim();
      if (id.empty() || !is_contained(backends, backend.str())) {
        errs() << expectedPass << ":" << n + 1
               << ": expected '<backend> <dir>/<test>' with a backend of "
                  "this run, not '"
               << line << "'\n";
        return 2;
      }
      expected[backend.str()].insert(id.str());
    }
  }

  std::vector<TestCase> tests = collectTests(dirs);
  auto selected = [&](const TestCase &test) {
    if (!filters.empty() && none_of(filters, [&](const std::string &f) {
          return StringRef(test.name).contains(f);
        }))
      return false;
    if (expectedPass.empty() || runAll)
      return true;
    return any_of(backends, [&](const std::string &b) {
      return expected[b].contains(test.id());
    });
  };

  Runner runner;
  // results[test index][backend index]
  std::vector<std::vector<std::optional<Result>>> results(tests.size());
  int ran = 0;
  for (auto [i, test] : enumerate(tests)) {
    results[i].resize(backends.size());
    if (!selected(test))
      continue;
    ++ran;
    for (auto [b, backend] : enumerate(backends)) {
      if (!expectedPass.empty() && !runAll &&
          !expected[backend].contains(test.id()))
        continue;
      Result r = runner.run(test, backend);
      if (verbose)
        outs() << formatv("{0,-11} {1,-9} {2}{3}{4}\n", outcomeName(r.outcome),
                          backend, test.id(), r.reason.empty() ? "" : ": ",
                          r.reason);
      results[i][b] = std::move(r);
    }
  }

  // Totals per directory and backend, and per op.
  std::map<std::pair<std::string, std::string>, Tally> perDir;
  std::map<std::string, std::vector<Tally>> perOp;
  for (auto [i, test] : enumerate(tests))
    for (auto [b, backend] : enumerate(backends)) {
      if (!results[i][b])
        continue;
      perDir[{test.dir, backend}].add(*results[i][b]);
      for (const std::string &op : test.ops) {
        auto &tallies = perOp[op];
        tallies.resize(backends.size());
        tallies[b].add(*results[i][b]);
      }
    }

  outs() << formatv(
      "ONNX backend tests under {0} (rtol {1:e}, atol {2:e}): {3} "
      "tests run\n",
      rootDir, rtol.getValue(), atol.getValue(), ran);
  for (const std::string &dir : dirs)
    for (const std::string &backend : backends) {
      auto it = perDir.find({dir, backend});
      if (it == perDir.end())
        continue;
      const Tally &t = it->second;
      outs() << formatv("  {0,-18} {1,-9} {2,4} / {3,4} pass ({4:F1}%, {5} "
                        "specialized on input values), {6} fail, {7} "
                        "unsupported\n",
                        dir, backend, t.pass, t.tests, t.percent(),
                        t.specialized, t.fail, t.unsupported);
    }

  if (!reportPath.empty()) {
    std::error_code ec;
    raw_fd_ostream os(reportPath, ec);
    if (ec) {
      errs() << "tgc-onnx-conformance: cannot write '" << reportPath
             << "': " << ec.message() << "\n";
      return 2;
    }
    os << "# tgc ONNX conformance report\n\n"
       << formatv(
              "ONNX backend test data: `{0}` (Debian libonnx-testdata, "
              "ONNX 1.12). Tolerance: rtol {1:e}, atol {2:e}. A test passes "
              "when every data set matches; \"specialized\" passes needed "
              "the model imported for the data set's input values.\n\n",
              rootDir, rtol.getValue(), atol.getValue());
    os << "## Totals per directory\n\n| directory | backend | tests | pass | "
          "of which specialized | fail | unsupported | pass % |\n"
          "|---|---|---:|---:|---:|---:|---:|---:|\n";
    for (const std::string &dir : dirs)
      for (const std::string &backend : backends) {
        auto it = perDir.find({dir, backend});
        if (it == perDir.end())
          continue;
        const Tally &t = it->second;
        os << formatv("| {0} | {1} | {2} | {3} | {4} | {5} | {6} | {7:F1} |\n",
                      dir, backend, t.tests, t.pass, t.specialized, t.fail,
                      t.unsupported, t.percent());
      }
    os << "\n## Per op (tests whose main graph uses the op)\n\n| op |";
    for (const std::string &backend : backends)
      os << " " << backend << " pass / fail / unsupported |";
    os << "\n|---|";
    for (size_t b = 0; b < backends.size(); ++b)
      os << "---|";
    os << "\n";
    for (auto &[op, tallies] : perOp) {
      os << "| " << op << " |";
      for (const Tally &t : tallies)
        os << formatv(" {0} / {1} / {2} |", t.pass, t.fail, t.unsupported);
      os << "\n";
    }
    os << "\n## Per test\n\n| test |";
    for (const std::string &backend : backends)
      os << " " << backend << " |";
    os << " reason |\n|---|";
    for (size_t b = 0; b < backends.size(); ++b)
      os << "---|";
    os << "---|\n";
    for (auto [i, test] : enumerate(tests)) {
      if (llvm::none_of(results[i], [](auto &r) { return r.has_value(); }))
        continue;
      os << "| " << test.id() << " |";
      std::string reason;
      for (auto &r : results[i]) {
        if (!r) {
          os << " - |";
          continue;
        }
        os << " " << outcomeName(r->outcome)
           << (r->specialized && r->outcome == Outcome::Pass ? " (s)" : "")
           << " |";
        if (reason.empty() && r->outcome != Outcome::Pass)
          reason = r->reason;
      }
      // Markdown tables cannot hold '|'.
      std::replace(reason.begin(), reason.end(), '|', '/');
      os << " " << reason << " |\n";
    }
    outs() << "report written to " << reportPath << "\n";
  }

  if (!writeExpected.empty()) {
    std::error_code ec;
    raw_fd_ostream os(writeExpected, ec);
    if (ec) {
      errs() << "tgc-onnx-conformance: cannot write '" << writeExpected
             << "': " << ec.message() << "\n";
      return 2;
    }
    os << "# ONNX backend tests that must pass: '<backend> <dir>/<test>'.\n"
          "# Regenerate with `make conformance-update` after making more "
          "pass.\n";
    for (auto [b, backend] : enumerate(backends))
      for (auto [i, test] : enumerate(tests))
        if (results[i][b] && results[i][b]->outcome == Outcome::Pass)
          os << backend << " " << test.id() << "\n";
  }

  // The regression gate.
  int regressions = 0, missing = 0;
  for (auto [b, backend] : enumerate(backends)) {
    for (const std::string &id : expected[backend]) {
      // Only the directories and filters of this run are checked.
      auto [dir, name] = StringRef(id).split('/');
      if (!is_contained(dirs, dir.str()) ||
          (!filters.empty() && none_of(filters, [&](const std::string &f) {
            return name.contains(f);
          })))
        continue;
      auto it =
          llvm::find_if(tests, [&](const TestCase &t) { return t.id() == id; });
      if (it == tests.end()) {
        errs() << "MISSING   " << backend << " " << id
               << ": no such test under " << rootDir << "\n";
        ++missing;
        continue;
      }
      const auto &r = results[it - tests.begin()][b];
      if (!r || r->outcome == Outcome::Pass)
        continue;
      errs() << "REGRESSED " << backend << " " << id << ": "
             << outcomeName(r->outcome) << ": " << r->reason << "\n";
      ++regressions;
    }
    if (!expectedPass.empty() && runAll)
      for (auto [i, test] : enumerate(tests))
        if (results[i][b] && results[i][b]->outcome == Outcome::Pass &&
            !expected[backend].contains(test.id()))
          outs() << "newly passing (add it to the list): " << backend << " "
                 << test.id() << "\n";
  }
  if (regressions || missing) {
    errs() << regressions << " expected-pass tests failed, " << missing
           << " missing\n";
    return 1;
  }
  if (!expectedPass.empty())
    outs() << "all expected-pass tests pass\n";
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(
      argc, argv,
      "tgc-onnx-conformance: runs the ONNX backend tests on tgc's backends\n");
  return realMain();
}
