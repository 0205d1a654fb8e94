//===- TracedControlFlow.cpp - cond, whileLoop and scan in traced code ----===//
//
// Control flow that depends on tensor values, traced once and compiled
// (include/tgc/ControlFlow.h): a piecewise function with tgc::cond, a
// beam-search-like loop that exits early with tgc::whileLoop, an RNN with
// tgc::scan, and a 10,000-iteration loop over a small state. Each runs on
// the CPU backend and on the reference interpreter; the example exits
// non-zero when they disagree.
//
//===----------------------------------------------------------------------===//

#include <tgc/tgc.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <tuple>
#include <vector>

using namespace tgc;
using runtime::DType;
using runtime::HostTensor;

namespace {

int failures = 0;

HostTensor filled(std::vector<int64_t> shape, double (*fn)(int64_t)) {
  HostTensor t = *HostTensor::allocate(DType::F32, std::move(shape));
  for (int64_t i = 0; i < t.numElements(); ++i)
    t.setDouble(i, fn(i));
  return t;
}

std::string values(const HostTensor &t) {
  std::string text = "[";
  for (int64_t i = 0; i < t.numElements(); ++i) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%s%g", i ? ", " : "", t.getDouble(i));
    text += buffer;
  }
  return text + "]";
}

/// Compares the CPU backend's results with the interpreter's.
void check(const char *what, const std::vector<HostTensor> &cpu,
           const std::vector<HostTensor> &reference) {
  double worst = 0;
  bool same = cpu.size() == reference.size();
  for (size_t i = 0; same && i < cpu.size(); ++i) {
    same = cpu[i].describe() == reference[i].describe();
    for (int64_t e = 0; same && e < cpu[i].numElements(); ++e)
      worst = std::max(
          worst, std::fabs(cpu[i].getDouble(e) - reference[i].getDouble(e)));
  }
  bool ok = same && worst <= 1e-5;
  std::printf("  %-44s cpu vs interpreter: %s (max abs diff %.2g)\n", what,
              ok ? "agree" : "DIFFER", worst);
  failures += !ok;
}

template <typename Fn, typename... Args>
std::vector<HostTensor> runOn(FunctionOptions::Backend backend, Fn fn,
                              const Args &...args) {
  FunctionOptions options;
  options.backend = backend;
  auto f = tgc::function(fn, options);
  if (!f.ok()) {
    std::printf("  error: %s\n", std::string(f.status().message()).c_str());
    ++failures;
    return {};
  }
  auto r = (*f)(args...);
  if (!r.ok()) {
    std::printf("  error: %s\n", std::string(r.status().message()).c_str());
    ++failures;
    return {};
  }
  std::vector<HostTensor> flat;
  if constexpr (std::is_same_v<std::remove_cvref_t<decltype(*r)>, HostTensor>)
    flat.push_back(*r);
  else
    std::apply([&](const auto &...t) { (flat.push_back(t), ...); }, *r);
  return flat;
}

template <typename Fn, typename... Args>
std::vector<HostTensor> differential(const char *what, Fn fn,
                                     const Args &...args) {
  auto cpu = runOn(FunctionOptions::Backend::Cpu, fn, args...);
  auto reference = runOn(FunctionOptions::Backend::Reference, fn, args...);
  check(what, cpu, reference);
  return cpu;
}

} // namespace

int main() {
  std::printf("A piecewise function (tgc::cond): 2x where sum(x) > 0, "
              "min(x, 0) elsewhere\n");
  auto piecewise = [](Tensor x) {
    return tgc::cond(
        greater(reduceSum(x, {0}), 0.0), [](Tensor v) { return mul(v, 2.0); },
        [](Tensor v) { return minimum(v, 0.0); }, x);
  };
  HostTensor up = filled({4}, [](int64_t i) { return double(i) - 1; });
  HostTensor down = filled({4}, [](int64_t i) { return -double(i) - 1; });
  auto a = differential("piecewise, sum > 0", piecewise, up);
  auto b = differential("piecewise, sum <= 0", piecewise, down);
  if (!a.empty() && !b.empty())
    std::printf("  f(%s) = %s\n  f(%s) = %s\n", "[-1, 0, 1, 2]",
                values(a[0]).c_str(), "[-1, -2, -3, -4]", values(b[0]).c_str());

  std::printf("A beam-search-like loop (tgc::whileLoop): rescore until the "
              "best beam passes 3.0, at most 50 steps\n");
  auto search = [](Tensor scores, Tensor gains) {
    using State = std::tuple<Tensor, Tensor, Tensor>; // step, scores, done
    State last = tgc::whileLoop(
        [](const State &s) {
          return logicalAnd(less(std::get<0>(s), int64_t(50)),
                            logicalNot(std::get<2>(s)));
        },
        [&](const State &s) {
          Tensor next = add(mul(std::get<1>(s), 0.9), gains);
          return State{add(std::get<0>(s), int64_t(1)), next,
                       greater(reduceMax(next, {0}), 3.0)};
        },
        State{scalar(0, DType::I64), scores, scalar(false, DType::I1)});
    return std::tuple{std::get<0>(last), std::get<1>(last)};
  };
  auto s = differential(
      "beam search", search,
      filled({4}, [](int64_t i) { return 0.1 * double(i); }),
      filled({4}, [](int64_t i) { return 0.1 + 0.15 * double(i); }));
  if (s.size() == 2)
    std::printf("  stopped after %lld steps\n",
                static_cast<long long>(s[0].getInt(0)));

  std::printf("An RNN (tgc::scan): h_t = tanh(x_t W + h_(t-1) U) over 8 "
              "steps\n");
  auto rnn = [](Tensor xs, Tensor w, Tensor u) {
    auto [last, all] = tgc::scan(
        [&](Tensor h, Tensor x) {
          Tensor next =
              tgc::tanh(add(matmul(reshape(x, {1, 3}), w), matmul(h, u)));
          return std::pair{next, reshape(next, {5})};
        },
        full({1, 5}, 0, DType::F32), xs);
    return std::tuple{last, all};
  };
  differential(
      "rnn", rnn,
      filled({8, 3}, [](int64_t i) { return std::sin(0.7 * double(i)); }),
      filled({3, 5}, [](int64_t i) { return 0.3 * std::cos(1.3 * double(i)); }),
      filled({5, 5},
             [](int64_t i) { return 0.2 * std::sin(0.9 * double(i)); }));

  std::printf("A loop of 10,000 iterations over a small state "
              "(tgc::forLoop)\n");
  auto f = tgc::function([](Tensor x) {
    return tgc::forLoop(
        int64_t(0), int64_t(10000),
        [](Tensor, Tensor v) { return add(mul(v, 0.5), 1.0); }, x);
  });
  HostTensor x = filled({16}, [](int64_t i) { return double(i); });
  if (!f.ok() || !(*f)(x).ok()) {
    std::printf("  error\n");
    return 1;
  }
  auto start = std::chrono::steady_clock::now();
  auto r = (*f)(x);
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  bool converged = r.ok() && std::fabs(r->getDouble(15) - 2.0) < 1e-6;
  failures += !converged;
  std::printf("  %.2f us per iteration (one run of the condition's plan and "
              "one of the body's); converged to 2: %s\n",
              seconds * 1e6 / 10000, converged ? "yes" : "NO");
  return failures ? 1 : 0;
}
