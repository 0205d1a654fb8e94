//===- Training.cpp - ai.onnx.preview.training optimizers -----------------===//
//
// Converters of the optimizer update rules of the ai.onnx.preview.training
// domain: Adagrad, Momentum (standard and Nesterov) and Adam, each over any
// number of tensors at once (inputs R, T, then the X's, the G's and the
// optimizer's state per tensor). They are elementwise formulas of the
// learning rate R and the update count T, written with tgc's ops as the
// ONNX specification gives them.
//
//===----------------------------------------------------------------------===//

#include "frontend/onnx/ImporterInternal.h"

using namespace tgc;
using namespace tgc::onnximpl;

namespace {

/// R and T (a float scalar and an int64 scalar) and the groups of `groups`
/// tensors each that follow them; checks their count.
struct Optimizer {
  Tensor r, t;
  std::vector<std::vector<Tensor>> groups; // [group][tensor]
};

llvm::Expected<Optimizer> readOptimizer(Importer &im, int groups) {
  int n = im.numInputs() - 2;
  if (n <= 0 || n % groups != 0)
    return im.fail("takes R, T and " + llvm::Twine(groups) +
                   " inputs per optimized tensor; it has " +
                   llvm::Twine(im.numInputs()) + " inputs");
  Optimizer o;
  TRY(r, im.in(0));
  TRY(t, im.in(1));
  if (t.dtype() != DType::I64 || r.numElements() != std::optional<int64_t>(1))
    return im.fail("R must be a float scalar and T an int64 scalar, not " +
                   r.describe() + " and " + t.describe());
  int count = n / groups;
  o.groups.resize(static_cast<size_t>(groups));
  for (int g = 0; g < groups; ++g)
    for (int i = 0; i < count; ++i) {
      TRY(x, im.in(2 + g * count + i));
      o.groups[static_cast<size_t>(g)].push_back(x);
    }
  for (const Tensor &x : o.groups[0])
    if (x.dtype() != r.dtype())
      return im.fail("the optimized tensors must have R's dtype (" +
                     std::string(runtime::dtypeName(r.dtype())) + "), not " +
                     x.describe());
  TRYT(rs, tgc::reshape(r, {}));
  TRYT(ts, tgc::reshape(t, {}));
  TRYT(tf, tgc::cast(ts, r.dtype()));
  o.r = rs;
  o.t = tf;
  return o;
}

/// norm_coefficient * X + G.
llvm::Expected<Tensor> regularized(Importer &im, const Tensor &x,
                                   const Tensor &g, double norm) {
  TRYT(scaled, tgc::mul(x, Scalar(norm)));
  TRYT(sum, tgc::add(scaled, g));
  return sum;
}

llvm::Error convAdagrad(Importer &im) {
  TRY(o, readOptimizer(im, 3));
  TRY(decay, im.attrFloat("decay_factor", 0.0));
  TRY(epsilon, im.attrFloat("epsilon", 0.0));
  TRY(norm, im.attrFloat("norm_coefficient", 0.0));
  // r = R / (1 + T * decay_factor)
  TRYT(decayed, tgc::mul(o.t, Scalar(decay)));
  TRYT(denominator, tgc::add(decayed, Scalar(1.0)));
  TRYT(rate, tgc::div(o.r, denominator));
  size_t count = o.groups[0].size();
  for (size_t i = 0; i < count; ++i) {
    const Tensor &x = o.groups[0][i], &g = o.groups[1][i], &h = o.groups[2][i];
    TRY(gr, regularized(im, x, g, norm));
    TRYT(squared, tgc::mul(gr, gr));
    TRYT(hNew, tgc::add(h, squared));
    TRYT(root, tgc::sqrt(hNew));
    TRYT(adaptive, tgc::add(root, Scalar(epsilon)));
    TRYT(step, tgc::div(gr, adaptive));
    TRYT(scaled, tgc::mul(rate, step));
    TRYT(xNew, tgc::sub(x, scaled));
    im.out(static_cast<int>(i), xNew);
    im.out(static_cast<int>(count + i), hNew);
  }
  return llvm::Error::success();
}

llvm::Error convMomentum(Importer &im) {
  TRY(o, readOptimizer(im, 3));
  TRY(alpha, im.attrFloat("alpha"));
  TRY(beta, im.attrFloat("beta"));
  TRY(norm, im.attrFloat("norm_coefficient"));
  TRY(mode, im.attrString("mode", ""));
  if (!alpha || !beta || !norm || (mode != "standard" && mode != "nesterov"))
    return im.fail("needs alpha, beta, norm_coefficient and mode (standard "
                   "or nesterov)");
  // beta_adjusted = T > 0 ? beta : 1
  TRYT(started, tgc::greater(o.t, Scalar(0.0)));
  TRYT(betaT, tgc::full({}, Scalar(*beta), o.r.dtype()));
  TRYT(betaAdjusted, tgc::select(started, betaT, Scalar(1.0)));
  size_t count = o.groups[0].size();
  for (size_t i = 0; i < count; ++i) {
    const Tensor &x = o.groups[0][i], &g = o.groups[1][i], &v = o.groups[2][i];
    TRY(gr, regularized(im, x, g, *norm));
    TRYT(kept, tgc::mul(v, Scalar(*alpha)));
    TRYT(added, tgc::mul(gr, betaAdjusted));
    TRYT(vNew, tgc::add(kept, added));
    Tensor direction = vNew;
    if (mode == "nesterov") {
      TRYT(ahead, tgc::mul(vNew, Scalar(*alpha)));
      TRYT(sum, tgc::add(gr, ahead));
      direction = sum;
    }
    TRYT(scaled, tgc::mul(o.r, direction));
    TRYT(xNew, tgc::sub(x, scaled));
    im.out(static_cast<int>(i), xNew);
    im.out(static_cast<int>(count + i), vNew);
  }
  return llvm::Error::success();
}

llvm::Error convAdam(Importer &im) {
  TRY(o, readOptimizer(im, 4));
  TRY(alpha, im.attrFloat("alpha", 0.9));
  TRY(beta, im.attrFloat("beta", 0.999));
  TRY(epsilon, im.attrFloat("epsilon", 1e-6));
  TRY(norm, im.attrFloat("norm_coefficient", 0.0));
  TRY(normPost, im.attrFloat("norm_coefficient_post", 0.0));
  // R_adjusted = T > 0 ? R * sqrt(1 - beta^T) / (1 - alpha^T) : R
  TRYT(started, tgc::greater(o.t, Scalar(0.0)));
  TRYT(betaT, tgc::pow(Scalar(beta), o.t));
  TRYT(alphaT, tgc::pow(Scalar(alpha), o.t));
  TRYT(betaRest, tgc::sub(Scalar(1.0), betaT));
  TRYT(alphaRest, tgc::sub(Scalar(1.0), alphaT));
  TRYT(root, tgc::sqrt(betaRest));
  TRYT(scaledR, tgc::mul(o.r, root));
  TRYT(corrected, tgc::div(scaledR, alphaRest));
  TRYT(rate, tgc::select(started, corrected, o.r));
  size_t count = o.groups[0].size();
  for (size_t i = 0; i < count; ++i) {
    const Tensor &x = o.groups[0][i], &g = o.groups[1][i], &v = o.groups[2][i],
                 &h = o.groups[3][i];
    TRY(gr, regularized(im, x, g, norm));
    TRYT(vKept, tgc::mul(v, Scalar(alpha)));
    TRYT(vAdded, tgc::mul(gr, Scalar(1.0 - alpha)));
    TRYT(vNew, tgc::add(vKept, vAdded));
    TRYT(squared, tgc::mul(gr, gr));
    TRYT(hKept, tgc::mul(h, Scalar(beta)));
    TRYT(hAdded, tgc::mul(squared, Scalar(1.0 - beta)));
    TRYT(hNew, tgc::add(hKept, hAdded));
    TRYT(hRoot, tgc::sqrt(hNew));
    TRYT(hSqrt, tgc::add(hRoot, Scalar(epsilon)));
    TRYT(ratio, tgc::div(vNew, hSqrt));
    TRYT(step, tgc::mul(rate, ratio));
    TRYT(xNew, tgc::sub(x, step));
    TRYT(xFinal, tgc::mul(xNew, Scalar(1.0 - normPost)));
    im.out(static_cast<int>(i), xFinal);
    im.out(static_cast<int>(count + i), vNew);
    im.out(static_cast<int>(2 * count + i), hNew);
  }
  return llvm::Error::success();
}

} // namespace

void onnximpl::registerTrainingConverters(ConverterTable &table) {
  table.add(kTrainingDomainPrefix + std::string("Adagrad"), 1, convAdagrad);
  table.add(kTrainingDomainPrefix + std::string("Momentum"), 1, convMomentum);
  table.add(kTrainingDomainPrefix + std::string("Adam"), 1, convAdam);
}
