// DESCRIPTION
// Claim paquet.unbiased (Paquet 2014, eq. 6 and Algorithm 1; docs/systems.md B.1-B.2): with the
// children of node i drawn uniformly among the C-subsets of ch(i), E[λ_i^temp] = λ*_i, so one sweep
// of option (b) from Λ gives E[λ_i'] = (1 − ρ)λ_i + ρ λ*_i(Λ) for every node i, and so does option (a)
// for the first node of the sweep (whose neighbours are not yet updated).
// Instance: small_data (10 users, 12 items, density 1/2, K = 2); users are relabelled so that user 0,
// the first node of option (a)'s sweep, has at least three children (C = 2 then subsamples), since the
// generator's user 0 has fewer on some seeds (seed 350142950); cases no node can host are skipped
// records.
// Reference: the expectation is an exact average over all C(N_i, C) subsets of node i, each run
// through the real stepper (the other nodes take all their children); λ*_i is read off the closed-form
// ELBO in mp50 (mf_coordinate_optimum: slopes of an affine function), not from eq. (7)'s code.
// Error relative to max(1, |reference|), budget: recursive summation of N_i·K terms per λ^temp and
// an average over the subsets, 8·(N_i K + subsets)·eps (Higham 2002, Thm 3.5, with slack for the
// products).
// Negative controls: (1) the subsets weighted non-uniformly (the first subset's weight raised by
// δ = 2⁻³⁶, about 10× the smallest δ that breaks the budget, budget/σ with σ the relative sensitivity):
// the average is no longer λ*; (2) option (a) for an item node, whose co-parents (the users) were
// already moved in the same sweep: the hypothesis "from the same old Λ" is broken (discrete).
// Algorithm 2 (docs/systems.md B.3): D drawn uniformly among the C_global-subsets of the ratings Ω.
// Given |D_i| = j ≥ 1, D_i = D ∩ ch(i) is uniform among the j-subsets of ch(i) (every C_global-subset
// of Ω with j ratings in ch(i) is equally likely, and each j-subset of ch(i) extends to the same number
// of them), so the factor N_i/|D_i| makes E[λ_i^temp | D_i ≠ ∅] = λ*_i, and one option (b) sweep gives
// E[λ_i' | D_i ≠ ∅] = (1 − ρ)λ_i + ρλ*_i (derived). Reference: the mean of λ_i' over every
// C_global-subset D of Ω with D_i ≠ ∅, each run through the real stepper (Algorithm 2, the sample
// handed as D), C_global = 1, 2, for the same nodes as above; the same λ* and budget (the subsets
// counted being those with D_i ≠ ∅). Its control is (2) under Algorithm 2: option (a) at the item
// node, whose users in D moved earlier in the same sweep (discrete). This is the record that sees
// Algorithm 2's factor on its own (PaquetParts::global_scale; the mutant paquet-alg2-scale-over-sample).
#include <algorithm>
#include <cstdio>
#include <numeric>

#include "paquet_common.hpp"

namespace ngvi::claims::paquet {
namespace { namespace NGVI_UNITY_ID {

constexpr const char* kId = "paquet.unbiased";

/// The skewed-subsets control's violation: one subset's weight 1 + δ instead of 1. The average moves
/// by δ/(n + δ)·(λ_j − mean), n the number of subsets, so with j the subset farthest from the mean
/// (relative deviation D) the relative error is δσ, σ = D/n, and the control breaks from
/// δ_min = budget/σ; it runs at δ = kSkewMultiple·δ_min, computed per instance (a fixed δ missed
/// at seed 79, where the first subset sat near the mean).
constexpr double kSkewMultiple = 4.0;

/// All c-subsets of {0..n−1} in lexicographic order.
std::vector<std::vector<std::int32_t>> subsets(Index n, Index c) {
  std::vector<std::vector<std::int32_t>> out;
  std::vector<std::int32_t> cur(static_cast<std::size_t>(c));
  std::iota(cur.begin(), cur.end(), 0);
  for (;;) {
    out.push_back(cur);
    Index i = c - 1;
    while (i >= 0 && cur[static_cast<std::size_t>(i)] == n - c + i) --i;
    if (i < 0) break;
    ++cur[static_cast<std::size_t>(i)];
    for (Index j = i + 1; j < c; ++j) cur[static_cast<std::size_t>(j)] = cur[static_cast<std::size_t>(j - 1)] + 1;
  }
  return out;
}

/// The data with users relabelled so that user 0, the first node of option (a)'s sweep, has at least
/// `min_children` children: user 0 swaps labels with the first user that has (the generator's user 0
/// has fewer on some seeds, and the option (a) records must not then disappear). Unchanged when user 0
/// already has them or when no user does (the caller then reports the option (a) records skipped).
RatingMatrix first_user_with_children(const RatingMatrix& d, Index min_children) {
  if (d.users == 0 || d.user_degree(0) >= min_children) return d;
  Index u = 1;
  while (u < d.users && d.user_degree(u) < min_children) ++u;
  if (u == d.users) return d;
  const auto swapped = static_cast<std::int32_t>(u);
  std::vector<std::int32_t> user = d.user;
  for (auto& m : user) m = m == 0 ? swapped : (m == swapped ? 0 : m);
  return RatingMatrix::build(d.users, d.items, std::move(user), d.item, d.value);
}

struct NodeCase {
  std::string name;
  PaquetOption option;
  bool user_side;
  Index row, k;
  Kind kind;
  bool skew = false;
};

}}  // namespace

std::vector<ClaimRecord> unbiased_records(const RunContext& ctx, const PaquetParts<double>& parts) {
  std::vector<ClaimRecord> out;
  if (!ctx.wants("double")) return out;
  const Index K = 2;
  const double rho = 0.5;
  // C = 2 subsamples only at a node with at least three children.
  constexpr Index kMinChildren = 3;
  const auto d = NGVI_UNITY_ID::first_user_with_children(small_data(ctx.seed + 28), kMinChildren);
  const auto q0 = spread_init(d, K, ctx.seed + 29);
  MfNatural<mp50> qm;
  qm.K = K;
  qm.u = q0.u.cast<mp50>();
  qm.v = q0.v.cast<mp50>();
  // Rows with at least three children (so that C = 2 subsamples); the first user row is first in the sweep.
  auto rows_with = [&](bool us) {
    std::vector<Index> r;
    for (Index i = 0; i < (us ? d.users : d.items); ++i)
      if ((us ? d.user_degree(i) : d.item_degree(i)) >= kMinChildren) r.push_back(i);
    return r;
  };
  const auto ur = rows_with(true), ir = rows_with(false);
  // The relative error of node c's mean λ' against (1 − ρ)λ_c + ρλ*_c, λ* read off the ELBO in mp50.
  auto error_to_reference = [&](const NGVI_UNITY_ID::NodeCase& c, const Eigen::Array<double, 2, 1>& mean) {
    const auto star = mf_coordinate_optimum(d, qm, c.user_side, c.row, c.k);
    const auto& b0 = c.user_side ? q0.u : q0.v;
    double err = 0;
    for (int i = 0; i < 2; ++i) {
      const double ref = static_cast<double>((1 - rho) * mp50(b0(i, c.row * K + c.k)) + rho * star(i));
      const double e = std::abs(mean(i) - ref) / std::max(1.0, std::abs(ref));
      err = std::isfinite(e) ? std::max(err, e) : e;
    }
    return err;
  };
  std::vector<NGVI_UNITY_ID::NodeCase> cases;
  // A case the data cannot host is reported skipped, never left out (no user, or no item, with three
  // children: not met on any seed seen, at 10 users, 12 items and density 1/2).
  // (`size` names the sample size the records run over: "/C=" for Algorithm 1, "/Cglobal=" for 2.)
  auto skip = [&](const std::string& name, Kind kind, const char* side, const char* size = "/C=") {
    for (const char* C : {"1", "2"})
      out.push_back(skipped_record(NGVI_UNITY_ID::kId, name + size + C, "double", kind,
                                   std::string("no ") + side + " node of the seed's data has at least 3 children"));
  };
  if (!ur.empty() && ur.front() == 0)
    cases.push_back({"a/first-user-node", PaquetOption::kSequential, true, 0, 0, Kind::kClaim});
  else
    skip("a/first-user-node", Kind::kClaim, "user");
  if (ur.empty()) skip("b/user", Kind::kClaim, "user");
  if (ir.empty()) skip("b/item", Kind::kClaim, "item");
  for (std::size_t j = 0; j < std::min<std::size_t>(3, ur.size()); ++j)
    cases.push_back({"b/user" + std::to_string(ur[j]) + "k1", PaquetOption::kSimultaneous, true, ur[j], 1, Kind::kClaim});
  for (std::size_t j = 0; j < std::min<std::size_t>(3, ir.size()); ++j)
    cases.push_back({"b/item" + std::to_string(ir[j]) + "k0", PaquetOption::kSimultaneous, false, ir[j], 0, Kind::kClaim});
  if (!ir.empty()) {
    cases.push_back({"control/a-item-node", PaquetOption::kSequential, false, ir[0], 0, Kind::kControl});
    cases.push_back({"control/skewed-subsets", PaquetOption::kSimultaneous, false, ir[0], 0, Kind::kControl, true});
  } else {
    skip("control/a-item-node", Kind::kControl, "item");
    skip("control/skewed-subsets", Kind::kControl, "item");
  }
  for (const auto& c : cases) {
    for (Index C : {Index(1), Index(2)}) {
      Stopwatch sw;
      PaquetOptions o;
      o.option = c.option;
      o.children = C;
      o.check_elbo = false;
      const Index deg = c.user_side ? d.user_degree(c.row) : d.item_degree(c.row);
      const auto subs = NGVI_UNITY_ID::subsets(deg, C);
      // The direction: all children everywhere, node c's picks replaced by each subset in turn.
      const Index node = (c.user_side ? 0 : d.users * K) + c.row * K + c.k;
      std::vector<Eigen::Array<double, 2, 1>> vals;
      for (std::size_t si = 0; si < subs.size(); ++si) {
        PaquetSample dir;
        dir.start.push_back(0);
        for (int side = 0; side < 2; ++side)
          for (Index r = 0; r < (side == 0 ? d.users : d.items); ++r)
            for (Index k = 0; k < K; ++k) {
              const Index j = static_cast<Index>(dir.start.size()) - 1;
              if (j == node) {
                dir.picks.insert(dir.picks.end(), subs[si].begin(), subs[si].end());
              } else {
                const Index dg = side == 0 ? d.user_degree(r) : d.item_degree(r);
                for (Index p = 0; p < dg; ++p) dir.picks.push_back(static_cast<std::int32_t>(p));
              }
              dir.start.push_back(static_cast<std::int64_t>(dir.picks.size()));
            }
        PaquetStepper<double> s(d, o, q0, parts);
        s.step(0, rho, dir);
        const auto& b = c.user_side ? s.point().u : s.point().v;
        vals.push_back(b.col(c.row * K + c.k));
      }
      const double budget = 8.0 * static_cast<double>(deg * K + static_cast<Index>(subs.size())) * eps<double>();
      // The skewed control: the subset farthest from the plain mean gets weight 1 + δ.
      Eigen::Array<double, 2, 1> plain = Eigen::Array<double, 2, 1>::Zero();
      for (const auto& v : vals) plain += v;
      plain /= static_cast<double>(vals.size());
      std::size_t far = 0;
      double dev = 0;
      for (std::size_t si = 0; si < vals.size(); ++si) {
        const double dv = ((vals[si] - plain).abs() / plain.abs().max(1.0)).maxCoeff();
        if (dv > dev) {
          dev = dv;
          far = si;
        }
      }
      const double sigma = dev / static_cast<double>(vals.size());
      const double skew_min = sigma > 0 ? budget / sigma : std::numeric_limits<double>::infinity();
      const double skew = NGVI_UNITY_ID::kSkewMultiple * skew_min;
      Eigen::Array<double, 2, 1> mean = Eigen::Array<double, 2, 1>::Zero();
      double wsum = 0;
      for (std::size_t si = 0; si < vals.size(); ++si) {
        const double w = (c.skew && si == far) ? 1.0 + skew : 1.0;
        mean += w * vals[si];
        wsum += w;
      }
      mean /= wsum;
      const double err = error_to_reference(c, mean);
      std::string viol;
      if (c.kind == Kind::kControl) {
        char v[240];
        if (c.skew)
          std::snprintf(v, sizeof v, "violation: the farthest subset's weight 1 + delta, delta = %.3g; breaks from budget/sigma = %.3g (derived, sigma = %.3g); ",
                        skew, skew_min, sigma);
        else
          std::snprintf(v, sizeof v, "violation: option (a) at an item node, whose co-parents moved earlier in the sweep (discrete); "
                                     "breaks with error/budget = %.3g (measured); ", err / budget);
        viol = v;
      }
      ClaimRecord rec = identity_record<double>(NGVI_UNITY_ID::kId, c.name + "/C=" + std::to_string(C), c.kind, err, budget, sw.seconds(),
                                                viol + "mean over all " + std::to_string(subs.size()) + " C-subsets of " + std::to_string(deg) +
                                                    " children vs (1-rho) lambda + rho lambda*(ELBO, mp50), rho = 1/2");
      rec.injected = c.skew;  // the skewed weights are the checker's average, not the library's
      out.push_back(std::move(rec));
    }
  }
  // Algorithm 2: every C_global-subset D of the ratings, one sweep each; the mean of node c's λ' over
  // the subsets that touch its row (D_i ≠ ∅).
  std::vector<NGVI_UNITY_ID::NodeCase> global_cases;
  for (const auto& c : cases)
    if (!c.skew && (c.option == PaquetOption::kSimultaneous || c.kind == Kind::kControl)) global_cases.push_back(c);
  if (ur.empty()) skip("alg2/b/user", Kind::kClaim, "user", "/Cglobal=");
  if (ir.empty()) skip("alg2/b/item", Kind::kClaim, "item", "/Cglobal=");
  if (ir.empty()) skip("alg2/control/a-item-node", Kind::kControl, "item", "/Cglobal=");
  const auto n = static_cast<Index>(d.size());
  for (Index Cg : {Index(1), Index(2)}) {
    for (PaquetOption option : {PaquetOption::kSimultaneous, PaquetOption::kSequential}) {
      std::vector<const NGVI_UNITY_ID::NodeCase*> mine;
      for (const auto& c : global_cases)
        if (c.option == option) mine.push_back(&c);
      if (mine.empty()) continue;
      Stopwatch sw;
      PaquetOptions o;
      o.algorithm = PaquetAlgorithm::kGlobal;
      o.option = option;
      o.global_batch = Cg;
      o.check_elbo = false;
      std::vector<Eigen::Array<double, 2, 1>> sum(mine.size(), Eigen::Array<double, 2, 1>::Zero());
      std::vector<Index> touched(mine.size(), 0);
      PaquetStepper<double> s(d, o, q0, parts);
      PaquetSample dir;
      for (const auto& sub : NGVI_UNITY_ID::subsets(n, Cg)) {
        s.reset(q0);
        dir.batch.assign(sub.begin(), sub.end());
        s.step(0, rho, dir);
        for (std::size_t j = 0; j < mine.size(); ++j) {
          const auto& c = *mine[j];
          const bool hit = std::any_of(sub.begin(), sub.end(), [&](std::int32_t e) {
            return (c.user_side ? d.user[static_cast<std::size_t>(e)] : d.item[static_cast<std::size_t>(e)]) == c.row;
          });
          if (!hit) continue;
          const auto& b = c.user_side ? s.point().u : s.point().v;
          sum[j] += b.col(c.row * K + c.k);
          ++touched[j];
        }
      }
      const double secs = sw.seconds() / static_cast<double>(mine.size());
      for (std::size_t j = 0; j < mine.size(); ++j) {
        const auto& c = *mine[j];
        const Index deg = c.user_side ? d.user_degree(c.row) : d.item_degree(c.row);
        const Eigen::Array<double, 2, 1> mean = sum[j] / static_cast<double>(touched[j]);
        const double err = error_to_reference(c, mean);
        const double budget = 8.0 * static_cast<double>(deg * K + touched[j]) * eps<double>();
        const std::string name = "alg2/" + (c.kind == Kind::kControl ? std::string("control/a-item-node") : c.name) + "/Cglobal=" + std::to_string(Cg);
        std::string viol;
        if (c.kind == Kind::kControl) {
          char v[200];
          std::snprintf(v, sizeof v, "violation: option (a) at an item node, whose users in D moved earlier in the sweep (discrete); "
                                     "breaks with error/budget = %.3g (measured); ", err / budget);
          viol = v;
        }
        out.push_back(identity_record<double>(NGVI_UNITY_ID::kId, name, c.kind, err, budget, secs,
                                              viol + "Algorithm 2: mean over the " + std::to_string(touched[j]) + " of the " + std::to_string(n) +
                                                  "-choose-" + std::to_string(Cg) + " samples D with D_i nonempty vs (1-rho) lambda + rho lambda*(ELBO, mp50), rho = 1/2"));
      }
    }
  }
  return out;
}

namespace { namespace NGVI_UNITY_ID {
const Registrar kReg({kId, "E[lambda_temp] = lambda* exactly (enumeration of the child subsets; Algorithm 2: of the global samples, given D_i nonempty); option (b) sweeps from the old Lambda",
                      "Paquet 2014, eq. (6), Algs. 1-2; docs/systems.md B.1-B.3", "[R]",
                      [](const RunContext& ctx) { return unbiased_records(ctx, parts_for(ctx)); }});
}}  // namespace

}  // namespace ngvi::claims::paquet
