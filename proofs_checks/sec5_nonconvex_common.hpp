#pragma once
/// @file
/// Shared pieces of sec5.poisson.nonconvex and sec5.logistic.nonconvex: certificate records, the
/// model-versus-enclosure consistency record, and the search on the breast-cancer table.
#include "nonconjugate_common.hpp"
#include "ngvi/certify/curvature_certificate.hpp"
#include "ngvi/data/loaders.hpp"

namespace ngvi::claims {

/// Claim (or control) record of a certificate: lhs = hi, rhs = 0, holds iff hi < 0 was proved.
inline ClaimRecord certificate_record(const char* id, const std::string& inst, Kind kind, const certify::CurvatureCertificate& c,
                                      double seconds, const std::string& extra = {}) {
  ClaimRecord r = inequality_record(id, inst, "mpfi50", kind, c.hi, 0.0, seconds, c.describe() + extra);
  if (!c.negative) {
    r.margin = -std::abs(r.margin);
    report::apply_verdict_rule(r);
  }
  return r;
}

/// The model's vᵀHv (Scalar) must lie in the certified enclosure [lo, hi], widened by the model's own
/// rounding budget and (logistic) quadrature error bound `extra_budget`. Identity form: lhs = |v − mid|
/// (the model's error against the enclosure's midpoint), rhs = (hi − lo)/2 + budget, so it holds iff v
/// lies in the widened enclosure. Tightness is not defined: the right side bounds the model's rounding
/// and quadrature error (and the certificate's width), not a quantity of the theory.
template <class Scalar>
ClaimRecord consistency_record(const char* id, const std::string& inst, const Scalar& value, const certify::CurvatureCertificate& c,
                               double extra_budget, long ops, double seconds) {
  const double v = to_double(value);
  const double mid = c.lo / 2 + c.hi / 2;
  const double budget = extra_budget + to_double(rounding_budget<Scalar>(ops)) * (1.0 + std::abs(v)) + std::numeric_limits<double>::min();
  ClaimRecord r;
  r.claim = id;
  r.instance = inst + "/model-in-enclosure";
  r.precision = scalar_name<Scalar>();
  r.kind = Kind::kClaim;
  r.form = report::Form::kIdentity;
  r.lhs = std::abs(v - mid);
  r.rhs = (c.hi - c.lo) / 2 + budget;
  r.margin = r.rhs - r.lhs;
  r.seconds = seconds;
  r.note = "model v^T H v = " + fmt_double(v) + " vs [" + fmt_double(c.lo) + ", " + fmt_double(c.hi) + "], model budget " +
           fmt_double(budget) + "; identity form (the bound is rounding, quadrature and certificate width)";
  report::apply_verdict_rule(r);
  return r;
}

/// The breast-cancer table (Debian python3-sklearn), standardised, with a bias column; empty when
/// the file is not installed (the search is then skipped and says so).
inline std::optional<Dataset<double>> breast_cancer_with_bias() {
  if (!data::builtin_available("breast_cancer")) return std::nullopt;
  auto d = data::load_builtin("breast_cancer");
  data::standardize(d);
  d.X = with_bias_column(d.X);
  return d;
}

}  // namespace ngvi::claims
