//===- RNN.cpp - RNN, GRU and LSTM ----------------------------------------===//
//
// Converters of RNN, GRU and LSTM, unrolled over a static sequence length.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

#include <cstdint>

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

namespace recurrent {

/// One activation function of an RNN/GRU/LSTM node, with its parameters.
struct Activation {
  std::string kind; // Lower-cased name.
  double alpha = 0, beta = 0;
};

/// The activations ONNX allows in recurrent ops (names are matched without
/// case, as onnxruntime does): how many of activation_alpha and
/// activation_beta each takes, and their defaults.
struct ActivationInfo {
  const char *kind;
  int numAlpha, numBeta;
  double alpha, beta;
};
constexpr ActivationInfo kActivations[] = {
    {"relu", 0, 0, 0, 0},           {"tanh", 0, 0, 0, 0},
    {"sigmoid", 0, 0, 0, 0},        {"affine", 1, 1, 1.0, 0.0},
    {"leakyrelu", 1, 0, 0.01, 0},   {"thresholdedrelu", 1, 0, 1.0, 0},
    {"scaledtanh", 1, 1, 1.0, 1.0}, {"hardsigmoid", 1, 1, 0.2, 0.5},
    {"elu", 1, 0, 1.0, 0},          {"softsign", 0, 0, 0, 0},
    {"softplus", 0, 0, 0, 0},
};

/// `a` applied to `x` (invalid when an op fails to build).
Tensor apply(const Activation &a, const Tensor &x) {
  const std::string &k = a.kind;
  if (k == "relu")
    return tgc::relu(x);
  if (k == "tanh")
    return tgc::tanh(x);
  if (k == "sigmoid")
    return tgc::sigmoid(x);
  if (k == "affine")
    return tgc::add(tgc::mul(x, Scalar(a.alpha)), Scalar(a.beta));
  if (k == "leakyrelu")
    return tgc::leakyRelu(x, a.alpha);
  if (k == "thresholdedrelu")
    return tgc::select(tgc::greater(x, Scalar(a.alpha)), x, Scalar(0.0));
  if (k == "scaledtanh")
    return tgc::mul(tgc::tanh(tgc::mul(x, Scalar(a.beta))), Scalar(a.alpha));
  if (k == "hardsigmoid")
    return tgc::clamp(tgc::add(tgc::mul(x, Scalar(a.alpha)), Scalar(a.beta)),
                      0.0, 1.0);
  if (k == "elu")
    return tgc::elu(x, a.alpha);
  if (k == "softsign")
    return tgc::div(x, tgc::add(tgc::abs(x), Scalar(1.0)));
  // softplus: log(1 + exp(x)) = relu(x) + log(1 + exp(-|x|)), which does not
  // overflow.
  return tgc::add(
      tgc::relu(x),
      tgc::log(tgc::add(tgc::exp(tgc::neg(tgc::abs(x))), Scalar(1.0))));
}

/// x[lo:hi] along `axis` (other dims whole).
Tensor sliceAxis(const Tensor &x, int64_t axis, int64_t lo, int64_t hi) {
  std::vector<int64_t> starts(x.rank(), 0), ends(x.rank(), INT64_MAX);
  starts[axis] = lo;
  ends[axis] = hi;
  return tgc::slice(x, starts, ends);
}

/// x[i] along dim 0 (the dim removed).
Tensor pick(const Tensor &x, int64_t i) {
  return tgc::squeeze(sliceAxis(x, 0, i, i + 1), {0});
}

} // namespace recurrent

/// RNN, GRU and LSTM: the recurrence unrolled over the (static) sequence
/// length, the input projection of every step computed by one matmul per
/// direction. Steps at or past a batch entry's sequence_lens keep its state
/// and emit zeros in Y.
llvm::Error convRecurrent(Importer &im) {
  using recurrent::Activation;
  using recurrent::pick;
  using recurrent::sliceAxis;
// Builds `expr` into the existing tensor `var`.
#define RNN_SET(var, expr)                                                     \
  do {                                                                         \
    Tensor rnnTmp = (expr);                                                    \
    if (!rnnTmp.valid())                                                       \
      return im.traceFailure();                                                \
    var = rnnTmp;                                                              \
  } while (false)

  const std::string &op = im.node().op_type();
  bool lstm = op == "LSTM", gru = op == "GRU";
  int64_t gates = lstm ? 4 : gru ? 3 : 1;
  std::vector<std::string> defaults =
      lstm  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : gru ? std::vector<std::string>{"Sigmoid", "Tanh"}
            : std::vector<std::string>{"Tanh"};
  size_t perDir = defaults.size();

  // Attributes.
  TRY(direction, im.attrString("direction", "forward"));
  int64_t numDirs;
  if (direction == "forward" || direction == "reverse")
    numDirs = 1;
  else if (direction == "bidirectional")
    numDirs = 2;
  else
    return im.fail("attribute 'direction' must be forward, reverse or "
                   "bidirectional, not '" +
                   direction + "'");
  TRY(layout, im.attrInt("layout", 0));
  if (layout != 0 && layout != 1)
    return im.fail("attribute 'layout' must be 0 or 1, not " +
                   llvm::Twine(layout));
  TRY(hiddenAttr, im.attrInt("hidden_size"));
  if (hiddenAttr && *hiddenAttr <= 0)
    return im.fail("attribute 'hidden_size' must be positive, not " +
                   llvm::Twine(*hiddenAttr));
  TRY(clip, im.attrFloat("clip"));
  if (clip && !(*clip > 0))
    return im.fail("attribute 'clip' must be positive, not " +
                   std::to_string(*clip));
  int64_t linearBeforeReset = 0, inputForget = 0;
  if (gru) {
    TRY(v, im.attrInt("linear_before_reset", 0));
    linearBeforeReset = v;
  }
  if (lstm) {
    TRY(v, im.attrInt("input_forget", 0));
    inputForget = v;
  }
  std::vector<std::string> names;
  if (const AP *a = im.attr("activations")) {
    if (a->type() != AP::STRINGS && a->type() != AP::UNDEFINED)
      return im.attrTypeError(*a, "STRINGS");
    names.assign(a->strings().begin(), a->strings().end());
    if (names.size() != perDir * numDirs)
      return im.fail("attribute 'activations' has " +
                     llvm::Twine(names.size()) + " entries; " + op + " takes " +
                     llvm::Twine(perDir) + " per direction, " +
                     llvm::Twine(perDir * numDirs) + " for direction '" +
                     direction + "'");
  } else {
    for (int64_t d = 0; d < numDirs; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  }
  TRY(alphas, im.attrFloats("activation_alpha"));
  TRY(betas, im.attrFloats("activation_beta"));
  std::vector<Activation> acts;
  size_t nextAlpha = 0, nextBeta = 0;
  for (const std::string &name : names) {
    std::string kind = llvm::StringRef(name).lower();
    const recurrent::ActivationInfo *info = nullptr;
    for (const auto &candidate : recurrent::kActivations)
      if (kind == candidate.kind)
        info = &candidate;
    if (!info)
      return im.fail("unknown activation '" + name +
                     "' in attribute 'activations' (allowed: Relu, Tanh, "
                     "Sigmoid, Affine, LeakyRelu, ThresholdedRelu, ScaledTanh, "
                     "HardSigmoid, Elu, Softsign, Softplus)");
    Activation act{kind, info->alpha, info->beta};
    // activation_alpha / activation_beta are consumed in order by the
    // activations that take them.
    if (info->numAlpha && alphas && nextAlpha < alphas->size())
      act.alpha = (*alphas)[nextAlpha++];
    if (info->numBeta && betas && nextBeta < betas->size())
      act.beta = (*betas)[nextBeta++];
    acts.push_back(act);
  }

  // Inputs and their shapes.
  TRY(x0, im.in(0));
  TRY(w, im.in(1));
  TRY(r, im.in(2));
  if (!runtime::isFloatDType(x0.dtype()))
    return im.fail("X " + x0.describe() + " must be a float tensor");
  for (auto [t, what] :
       {std::pair<const Tensor &, const char *>{x0, "X"}, {w, "W"}, {r, "R"}})
    if (t.rank() != 3)
      return im.fail(llvm::Twine(what) + " " + t.describe() + " must be 3-D");
  int64_t hidden;
  if (hiddenAttr)
    hidden = *hiddenAttr;
  else if (r.dim(2))
    hidden = *r.dim(2);
  else
    return im.unsupported("attribute 'hidden_size' is not given and R " +
                          r.describe() + " has a dynamic hidden size");
  // Checks that `t` has shape `expected` (kDynamic: any); dynamic dims of `t`
  // match anything.
  auto expectShape = [&](const Tensor &t, llvm::StringRef what,
                         std::vector<int64_t> expected) -> llvm::Error {
    std::vector<int64_t> shape = t.shape();
    bool ok = shape.size() == expected.size();
    for (size_t i = 0; ok && i < shape.size(); ++i)
      ok = shape[i] == kDynamic || expected[i] == kDynamic ||
           shape[i] == expected[i];
    if (ok && t.dtype() != x0.dtype())
      return im.fail(what + " " + t.describe() +
                     " must have the element type "
                     "of X " +
                     x0.describe());
    if (ok)
      return llvm::Error::success();
    std::string text = "[";
    for (auto [i, v] : llvm::enumerate(expected))
      text += (i ? ", " : "") +
              (v == kDynamic ? std::string("*") : std::to_string(v));
    return im.fail(what + " " + t.describe() + " does not match hidden_size " +
                   llvm::Twine(hidden) + " and direction '" + direction +
                   "': expected shape " + text + "]");
  };
  int64_t gh = gates * hidden;
  int64_t inputSize = w.dim(2).value_or(kDynamic);
  if (auto e = expectShape(w, "W", {numDirs, gh, kDynamic}))
    return e;
  if (auto e = expectShape(r, "R", {numDirs, gh, hidden}))
    return e;
  Tensor x = x0;
  if (layout == 1)
    RNN_SET(x, tgc::transpose(x0, {1, 0, 2}));
  if (auto e = expectShape(x, layout ? "X (transposed to layout 0)" : "X",
                           {kDynamic, kDynamic, inputSize}))
    return e;
  std::optional<int64_t> steps = x.dim(0);
  if (!steps)
    return im.unsupported(
        "a dynamic sequence length (X " + x0.describe() +
        ") is not supported: the recurrence is unrolled over a static number "
        "of steps; give the input's shape (ModelOptions::inputShapes, "
        "EngineOptions::inputShapes; tgc-run imports for its --input shapes)");
  if (*steps == 0)
    return im.unsupported("an empty sequence (X " + x0.describe() +
                          ") is not supported");
  int64_t seq = *steps;
  int64_t batch = x.dim(1).value_or(kDynamic);

  std::optional<Tensor> bias, initialH, initialC, peep;
  if (im.has(3)) {
    TRY(b, im.in(3));
    if (auto e = expectShape(b, "B", {numDirs, 2 * gh}))
      return e;
    bias = b;
  }
  auto initialState = [&](int i,
                          llvm::StringRef what) -> llvm::Expected<Tensor> {
    TRY(s, im.in(i));
    if (layout == 0) {
      if (auto e = expectShape(s, what, {numDirs, batch, hidden}))
        return std::move(e);
      return s;
    }
    if (auto e = expectShape(s, what, {batch, numDirs, hidden}))
      return std::move(e);
    TRYT(t, tgc::transpose(s, {1, 0, 2}));
    return t;
  };
  if (im.has(5)) {
    TRY(s, initialState(5, "initial_h"));
    initialH = s;
  }
  if (lstm && im.has(6)) {
    TRY(s, initialState(6, "initial_c"));
    initialC = s;
  }
  if (lstm && im.has(7)) {
    TRY(p, im.in(7));
    if (auto e = expectShape(p, "P", {numDirs, 3 * hidden}))
      return e;
    peep = p;
  }

  // Per-step masks [batch, 1] (true: the step is inside the sequence), from
  // sequence_lens; none when every sequence is full length.
  std::vector<Tensor> masks;
  if (im.has(4)) {
    TRY(lensIn, im.in(4));
    if (runtime::isFloatDType(lensIn.dtype()) || lensIn.dtype() == DType::I1 ||
        lensIn.rank() != 1 ||
        (batch != kDynamic && lensIn.dim(0) && *lensIn.dim(0) != batch))
      return im.fail("sequence_lens " + lensIn.describe() +
                     " must be a 1-D integer tensor of the batch size");
    TRY(known, im.constIn(4));
    Tensor lens = lensIn;
    bool needed = true;
    if (known) {
      needed = false;
      for (int64_t k = 0; k < known->numElements(); ++k) {
        int64_t len = known->getInt(k);
        if (len < 0 || len > seq)
          return im.fail("sequence_lens[" + llvm::Twine(k) +
                         "] = " + llvm::Twine(len) + " is outside [0, " +
                         llvm::Twine(seq) + "]");
        needed = needed || len < seq;
      }
      if (needed)
        lens = im.constantTensor(*known);
    }
    for (int64_t t = 0; needed && t < seq; ++t) {
      TRYT(m, tgc::less(Scalar(t), lens));
      TRYT(m2, tgc::unsqueeze(m, {1}));
      masks.push_back(m2);
    }
  }

  auto clipped = [&](const Tensor &t) {
    return clip ? tgc::clamp(t, -*clip, *clip) : t;
  };

  std::vector<Tensor> yDirs, hDirs, cDirs;
  for (int64_t d = 0; d < numDirs; ++d) {
    bool reverse = direction == "reverse" || d == 1;
    const Activation *f = &acts[d * perDir];
    TRYT(wd, pick(w, d));
    TRYT(rd, pick(r, d));
    // The input projection of every step: [seq, batch, gates * hidden].
    TRYT(xw0, tgc::matmul(x, wd, {false, true}));
    Tensor xw = xw0;
    std::optional<Tensor> recurrentBiasH; // GRU with linear_before_reset.
    if (bias) {
      TRYT(bd, pick(*bias, d));
      TRYT(wb, sliceAxis(bd, 0, 0, gh));
      TRYT(rb, sliceAxis(bd, 0, gh, 2 * gh));
      Tensor rbIn = rb;
      if (gru && linearBeforeReset) {
        TRYT(rbh, sliceAxis(rb, 0, 2 * hidden, gh));
        recurrentBiasH = rbh;
        TRYT(rzr, sliceAxis(rb, 0, 0, 2 * hidden));
        RNN_SET(rbIn, tgc::pad(rzr, {0}, {hidden}));
      }
      TRYT(sum, tgc::add(wb, rbIn));
      RNN_SET(xw, tgc::add(xw, sum));
    }
    std::optional<Tensor> rzr, rh, pi, po, pf;
    if (gru) {
      TRYT(a, sliceAxis(rd, 0, 0, 2 * hidden));
      TRYT(b, sliceAxis(rd, 0, 2 * hidden, gh));
      rzr = a;
      rh = b;
    }
    if (peep) {
      TRYT(pd, pick(*peep, d));
      TRYT(a, sliceAxis(pd, 0, 0, hidden));
      TRYT(b, sliceAxis(pd, 0, hidden, 2 * hidden));
      TRYT(c, sliceAxis(pd, 0, 2 * hidden, 3 * hidden));
      pi = a, po = b, pf = c;
    }
    std::optional<Tensor> h, c; // nullopt: zeros.
    if (initialH) {
      TRYT(s, pick(*initialH, d));
      h = s;
    }
    if (initialC) {
      TRYT(s, pick(*initialC, d));
      c = s;
    }
    std::vector<Tensor> ys(seq);
    for (int64_t k = 0; k < seq; ++k) {
      int64_t t = reverse ? seq - 1 - k : k;
      TRYT(xt, pick(xw, t)); // [batch, gates * hidden]
      Tensor hNew, cNew;
      if (lstm) {
        Tensor pre = xt;
        if (h)
          RNN_SET(pre, tgc::add(xt, tgc::matmul(*h, rd, {false, true})));
        TRYT(gi0, sliceAxis(pre, 1, 0, hidden));
        TRYT(go0, sliceAxis(pre, 1, hidden, 2 * hidden));
        TRYT(gf0, sliceAxis(pre, 1, 2 * hidden, 3 * hidden));
        TRYT(gc0, sliceAxis(pre, 1, 3 * hidden, 4 * hidden));
        Tensor gi = gi0, go = go0, gf = gf0;
        if (peep && c) {
          RNN_SET(gi, tgc::add(gi, tgc::mul(*pi, *c)));
          RNN_SET(gf, tgc::add(gf, tgc::mul(*pf, *c)));
        }
        TRYT(iGate, recurrent::apply(f[0], clipped(gi)));
        Tensor fGate;
        if (inputForget)
          RNN_SET(fGate, tgc::sub(Scalar(1.0), iGate));
        else
          RNN_SET(fGate, recurrent::apply(f[0], clipped(gf)));
        TRYT(cand, recurrent::apply(f[1], clipped(gc0)));
        RNN_SET(cNew, tgc::mul(iGate, cand));
        if (c)
          RNN_SET(cNew, tgc::add(tgc::mul(fGate, *c), cNew));
        if (peep)
          RNN_SET(go, tgc::add(go, tgc::mul(*po, cNew)));
        TRYT(oGate, recurrent::apply(f[0], clipped(go)));
        RNN_SET(hNew, tgc::mul(oGate, recurrent::apply(f[2], cNew)));
      } else if (gru) {
        TRYT(xzr, sliceAxis(xt, 1, 0, 2 * hidden));
        TRYT(xh, sliceAxis(xt, 1, 2 * hidden, gh));
        Tensor zr = xzr;
        if (h)
          RNN_SET(zr, tgc::add(xzr, tgc::matmul(*h, *rzr, {false, true})));
        TRYT(gz, sliceAxis(zr, 1, 0, hidden));
        TRYT(gr, sliceAxis(zr, 1, hidden, 2 * hidden));
        TRYT(z, recurrent::apply(f[0], clipped(gz)));
        TRYT(rg, recurrent::apply(f[0], clipped(gr)));
        Tensor pre = xh;
        if (linearBeforeReset) {
          std::optional<Tensor> hr;
          if (h) {
            TRYT(m, tgc::matmul(*h, *rh, {false, true}));
            hr = m;
            if (recurrentBiasH)
              RNN_SET(*hr, tgc::add(*hr, *recurrentBiasH));
          } else if (recurrentBiasH) {
            hr = *recurrentBiasH;
          }
          if (hr)
            RNN_SET(pre, tgc::add(xh, tgc::mul(rg, *hr)));
        } else if (h) {
          RNN_SET(pre, tgc::add(xh, tgc::matmul(tgc::mul(rg, *h), *rh,
                                                {false, true})));
        }
        TRYT(cand, recurrent::apply(f[1], clipped(pre)));
        // (1 - z) * cand + z * h = cand + z * (h - cand)
        if (h)
          RNN_SET(hNew, tgc::add(cand, tgc::mul(z, tgc::sub(*h, cand))));
        else
          RNN_SET(hNew, tgc::mul(tgc::sub(Scalar(1.0), z), cand));
      } else {
        Tensor pre = xt;
        if (h)
          RNN_SET(pre, tgc::add(xt, tgc::matmul(*h, rd, {false, true})));
        RNN_SET(hNew, recurrent::apply(f[0], clipped(pre)));
      }
      if (!masks.empty()) {
        const Tensor &m = masks[t];
        TRYT(y, tgc::select(m, hNew, Scalar(0.0)));
        ys[t] = y;
        if (h)
          RNN_SET(hNew, tgc::select(m, hNew, *h));
        else
          hNew = y;
        if (lstm) {
          if (c)
            RNN_SET(cNew, tgc::select(m, cNew, *c));
          else
            RNN_SET(cNew, tgc::select(m, cNew, Scalar(0.0)));
        }
      } else {
        ys[t] = hNew;
      }
      h = hNew;
      if (lstm)
        c = cNew;
    }
    if (im.wantsOutput(0)) {
      std::vector<Tensor> parts;
      for (const Tensor &y : ys) {
        TRYT(u, tgc::unsqueeze(y, {0, 1}));
        parts.push_back(u);
      }
      TRYT(yd, tgc::concat(parts, 0)); // [seq, 1, batch, hidden]
      yDirs.push_back(yd);
    }
    TRYT(hd, tgc::unsqueeze(*h, {0}));
    hDirs.push_back(hd);
    if (lstm) {
      TRYT(cd, tgc::unsqueeze(*c, {0}));
      cDirs.push_back(cd);
    }
  }
  // Outputs: Y [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs,
  // hidden]), Y_h and Y_c [dirs, batch, hidden] (layout 1: [batch, dirs,
  // hidden]).
  if (im.wantsOutput(0)) {
    TRYT(y, tgc::concat(yDirs, 1));
    Tensor result = y;
    if (layout == 1)
      RNN_SET(result, tgc::transpose(y, {2, 0, 1, 3}));
    im.out(0, result);
  }
  for (auto [index, states] :
       {std::pair<int, std::vector<Tensor> *>{1, &hDirs}, {2, &cDirs}}) {
    if (!im.wantsOutput(index) || states->empty())
      continue;
    TRYT(s, tgc::concat(*states, 0));
    Tensor result = s;
    if (layout == 1)
      RNN_SET(result, tgc::transpose(s, {1, 0, 2}));
    im.out(index, result);
  }
  return llvm::Error::success();
#undef RNN_SET
}

} // namespace

void onnximpl::registerRNNConverters(ConverterTable &table) {
  table.add("RNN", 1, convRecurrent);
  table.add("GRU", 1, convRecurrent);
  table.add("LSTM", 1, convRecurrent);
}
