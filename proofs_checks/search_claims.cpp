// The worst-case search of `ngvi verify --search CLAIM` (see search_claims.hpp): not a claim (it
// registers none); the evaluations call the claims' own computations.
#include "search_claims.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>

#include "blr_trajectory.hpp"
#include "ngvi/claims/path_enumeration.hpp"
#include "ngvi/claims/rounding_floor.hpp"
#include "ngvi/stats/normal.hpp"

namespace ngvi::claims::search {
namespace { namespace NGVI_UNITY_ID {

[[noreturn]] void bad(const std::string& field, const std::string& what) {
  throw std::invalid_argument("instance field '" + field + "' " + what);
}

struct NamedSource {
  Sigma2Source fn;
  std::string description;
};
std::map<std::string, NamedSource>& sources() {
  static std::map<std::string, NamedSource> s = [] {
    std::map<std::string, NamedSource> m;
    m["lemma3"] = {[](const BlrInstance& b, double) {
                     return lemma3_sigma2(blr_constants<double>(b.data, b.prior_cov, b.noise_var, b.batch));
                   },
                   "Lemma 3's sigma^2 (data-moment form) " + std::string(kDerived)};
    m["reachable-max"] = {[](const BlrInstance&, double reachable) { return reachable; },
                          "the exact max of sigma_t^2 over every state of the enumerated tree (t < T)"};
    return m;
  }();
  return s;
}

/// The pathwise claims: the max over the recorded trajectory's steps of lhs/rhs (trajectory_stats).
Evaluation trajectory_claim(const SearchInstance& inst, double TrajectoryStats::*field, const std::string& what) {
  RunContext ctx;
  ctx.seed = inst.seed;
  ctx.precisions = {"double"};
  const auto st = trajectory_stats(inst.blr, ctx, inst.steps, Setup{});
  Evaluation e;
  e.allowance = ratio_allowance(inst.blr);
  e.rhs = 1;
  if (st.left_domain_at >= 0) {
    e.lhs = e.tightness = std::numeric_limits<double>::quiet_NaN();
    e.at = st.left_domain_at;
    e.note = "an iterate left Omega at t = " + std::to_string(st.left_domain_at);
    return e;
  }
  e.lhs = e.tightness = st.*field;
  e.note = "max_t " + what + " over " + std::to_string(st.steps) +
           " steps of the recorded trajectory (first batches M copies of the extreme datum, then of the most "
           "orthogonal one; later batches random from the instance's seed); pathwise, no Monte Carlo error";
  if (field == &TrajectoryStats::lemma10 || field == &TrajectoryStats::lemma11) {
    // The lhs net of its derived rounding floor F (rounding_floor.hpp): max_t max(0, lhs − F)/rhs.
    const GapFloorStats& f = field == &TrajectoryStats::lemma10 ? st.lemma10_floor : st.lemma11_floor;
    e.note += "; lhs net of its derived rounding floor, max(0, lhs - F)/rhs (raw max ratio " + fmt(f.raw) + ", max F/rhs " +
              fmt(f.floor) + ")";
    if (f.below > 0) e.note += "; " + std::to_string(f.below) + " of " + std::to_string(st.steps) + " steps below rounding floor";
  }
  return e;
}

Evaluation lemma3_claim(const SearchInstance& inst) {
  const auto model = make_model<double>(inst.blr);
  const auto c = blr_constants<double>(inst.blr.data, inst.blr.prior_cov, inst.blr.noise_var, inst.blr.batch);
  StepVarianceOptions opt;
  opt.enumeration_limit = kEnumerationLimit;
  opt.samples = kVarianceSamples;
  opt.confidence = 0.99;
  const auto prof = step_variance_along_trajectory(model, inst.blr.batch, standard_natural<double>(model.d()),
                                                   StepSchedule<double>::theorem1(), variance_grid(inst.steps),
                                                   random::Stream(inst.seed, 9100), random::Stream(inst.seed, 9101), opt);
  Evaluation e;
  e.rhs = lemma3_sigma2(c);
  e.exact = prof.exact;
  // Exact: max_t σ_t². Monte Carlo: max_t of the one-sided 99% LOWER bound mean − z_{0.99}·se, so a
  // lucky draw cannot make the tightness look larger than it is (conservative for a search that
  // maximises it).
  // Both net of the derived rounding floor F_t of a computed σ_t² (rounding_floor.hpp, docs/math.md
  // §5.4): max(0, v − F_t), so rounding cannot make the tightness look larger either.
  const double z = stats::normal_quantile<double>(0.99);
  const auto reach = reachable_bounds(inst.blr);
  e.lhs = -std::numeric_limits<double>::infinity();
  double raw = -std::numeric_limits<double>::infinity(), raw_floor = 0;
  long below = 0, raw_at = -1;
  for (const auto& p : prof.points) {
    const double v = prof.exact ? p.mean : p.mean - z * p.std_error;
    const double f = sigma2_floor(reach, p.gamma);
    if (v <= f) ++below;
    if (!(v <= raw)) raw = v, raw_at = p.t, raw_floor = f;
    const double net = std::max(0.0, v - f);
    if (!(net <= e.lhs)) {
      e.lhs = net;
      e.at = p.t;
    }
  }
  e.tightness = e.lhs / e.rhs;
  e.allowance = ratio_allowance(inst.blr);
  e.note = std::string(prof.exact ? "exact max_t sigma_t^2 (enumeration of all n^M batches)"
                                  : "max_t of the one-sided 99% Monte Carlo lower bound on sigma_t^2 (" +
                                        std::to_string(kVarianceSamples) + " batches per step; conservative)") +
           " over " + std::to_string(prof.points.size()) + " steps of one trajectory, at t = " + std::to_string(e.at) +
           "; sigma^2 = " + fmt(e.rhs) + " " + kDerived + "; lhs net of its derived rounding floor F_t, max(0, v - F_t) (raw max " +
           fmt(raw) + " at t = " + std::to_string(raw_at) + ", where F_t = " + fmt(raw_floor) + ")";
  if (below > 0)
    e.note += "; " + std::to_string(below) + " of " + std::to_string(prof.points.size()) + " steps below rounding floor";
  return e;
}

Evaluation thm1_claim(const SearchInstance& inst) {
  const auto* source = find_sigma2_source(inst.sigma2_source);
  if (source == nullptr) bad("sigma2_source", "is none of " + sigma2_source_names() + " (got '" + inst.sigma2_source + "')");
  PathSpec<double> spec;
  spec.depth = inst.steps;
  const auto en = enumerate_instance<double>(ExactInstance{inst.blr, {}, 1.0}, spec);
  Evaluation e;
  if (en.failed) {
    e.lhs = e.tightness = std::numeric_limits<double>::quiet_NaN();
    e.note = "an iterate left Omega";
    return e;
  }
  const double s2 = (*source)(inst.blr, to_double(en.max_sigma2));
  e.tightness = -std::numeric_limits<double>::infinity();
  for (std::size_t T = 1; T < en.depth.size(); ++T) {
    const double lhs = to_double(en.depth[T].kl_avg), rhs = thm1_kl_bound(s2, static_cast<long>(T));
    const double ratio = lhs / rhs;
    if (!(ratio <= e.tightness)) {
      e.tightness = ratio;
      e.lhs = lhs;
      e.rhs = rhs;
      e.at = static_cast<long>(T);
    }
  }
  e.allowance = kl_combination_budget<double>(inst.blr.data.d(), to_double(en.max_cov_condition));
  e.note = "exact E KL(q_mubar_T || p) over all n^(MT) = " + std::to_string(en.nodes) +
           " nodes' paths vs 4 sigma^2/(T+1) at every T <= " + std::to_string(inst.steps) + ", worst at T = " + std::to_string(e.at) +
           "; sigma^2 = " + fmt(s2) + " (source '" + inst.sigma2_source + "': " + sources().at(inst.sigma2_source).description + ")";
  return e;
}

std::vector<SearchedClaim> make_claims() {
  std::vector<SearchedClaim> v;
  v.push_back({"lemma3", "lemma3.variance", "sigma^2 of Lemma 3 (data-moment form) " + std::string(kDerived), "plain", lemma3_claim});
  v.push_back({"lemma10", "lemma10.mu1_gap", "(gamma/lambda)|D1| + (2B gamma/lambda^2)|D2|_F " + std::string(kDerived), "ratio",
               [](const SearchInstance& i) { return trajectory_claim(i, &TrajectoryStats::lemma10, "|mu1 - mu1~|/rhs"); }});
  v.push_back({"lemma11", "lemma11.mu2_gap",
               "(2B gamma/lambda^2)|D1| + (2 gamma/lambda^2)(1 + 2B^2/lambda)|D2|_F " + std::string(kDerived), "ratio",
               [](const SearchInstance& i) { return trajectory_claim(i, &TrajectoryStats::lemma11, "|mu2 - mu2~|_F/rhs"); }});
  v.push_back({"cor1", "cor1.eta1_bound", "B " + std::string(kDerived), "ratio",
               [](const SearchInstance& i) { return trajectory_claim(i, &TrajectoryStats::cor1, "|eta1|/B"); }});
  v.push_back({"cor2", "cor2.mu1_bound", "B/lambda " + std::string(kDerived), "ratio",
               [](const SearchInstance& i) { return trajectory_claim(i, &TrajectoryStats::cor2, "|mu1|/(B/lambda)"); }});
  v.push_back({"thm1", "thm1.rate", "4 sigma^2/(T+1), sigma^2 from the instance's sigma2_source", "plain", thm1_claim});
  return v;
}

// ---- the search -------------------------------------------------------------------------------

/// A draw in [0, 1) from the top 53 bits (boost's mt19937_64 is fully specified, so the search is
/// the same on every platform).
double unit(data::Rng& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }
long integer(data::Rng& rng, long lo, long hi) { return lo + static_cast<long>(unit(rng) * static_cast<double>(hi - lo + 1)); }

/// The continuous parameters, each in [0, 1] mapped log-uniformly onto its range.
enum Param { kKappa, kNoiseSd, kXScale, kYScale, kNoiseVar, kPriorKappa, kPriorScale, kSteps, kParams };

struct Point {
  long n = 2, d = 1, m = 1;
  std::uint64_t data_seed = 0, traj_seed = 1;
  double p[kParams] = {};
};

double log_map(double u, double lo, double hi) { return lo * std::pow(hi / lo, std::clamp(u, 0.0, 1.0)); }

/// n^k, or limit + 1 once it exceeds limit.
long power_capped(long n, long k, long limit) {
  long v = 1;
  for (long j = 0; j < k; ++j) {
    if (v > limit / n) return limit + 1;
    v *= n;
  }
  return v;
}

long steps_cap(const SearchedClaim& claim, const Point& x, const SearchRanges& r) {
  if (claim.name == "thm1") {
    const long nb = power_capped(x.n, x.m, kThm1PathLimit);
    long T = 0;
    long leaves = 1;
    while (T < 8 && leaves <= kThm1PathLimit / nb) leaves *= nb, ++T;
    return std::max(1L, T);
  }
  if (claim.name == "lemma3") return std::min(r.steps_max, 60L);  // σ_t² enumeration at every grid step
  return r.steps_max;
}

SearchInstance build(const SearchedClaim& claim, const Point& x, const SearchOptions& o) {
  const auto& r = o.ranges;
  Generator g;
  g.n = x.n;
  g.d = x.d;
  g.seed = x.data_seed;
  g.kappa = log_map(x.p[kKappa], 1.0, r.kappa_max);
  g.noise_sd = log_map(x.p[kNoiseSd], r.noise_sd_min, r.noise_sd_max);
  g.x_scale = log_map(x.p[kXScale], r.x_scale_min, r.x_scale_max);
  g.y_scale = log_map(x.p[kYScale], r.y_scale_min, r.y_scale_max);
  g.prior_kappa = log_map(x.p[kPriorKappa], 1.0, r.prior_kappa_max);
  g.prior_scale = log_map(x.p[kPriorScale], r.prior_scale_min, r.prior_scale_max);
  SearchInstance s;
  s.claim = claim.name;
  s.blr = instance_from(g, log_map(x.p[kNoiseVar], r.noise_var_min, r.noise_var_max), x.m, "search-" + claim.name);
  s.prior_mean = Vec<double>::Zero(x.d);
  const long cap = steps_cap(claim, x, r);
  const long lo = std::min(claim.name == "thm1" ? 1L : r.steps_min, cap);
  s.steps = std::clamp(static_cast<long>(std::lround(log_map(x.p[kSteps], static_cast<double>(lo), static_cast<double>(cap)))), lo, cap);
  s.seed = x.traj_seed;
  s.sigma2_source = o.sigma2_source;
  s.generator = g;
  return s;
}

Point random_point(const SearchedClaim& claim, data::Rng& rng, const SearchRanges& r) {
  Point x;
  x.n = integer(rng, r.n_min, r.n_max);
  x.d = integer(rng, r.d_min, claim.name == "thm1" ? std::min(r.d_max, 3L) : r.d_max);
  x.m = integer(rng, r.m_min, r.m_max);
  // lemma3 is evaluated exactly: keep n^M within the enumeration limit.
  if (claim.name == "lemma3")
    while (x.m > 1 && power_capped(x.n, x.m, kEnumerationLimit) > kEnumerationLimit) --x.m;
  if (claim.name == "thm1")
    while (x.m > 1 && power_capped(x.n, x.m, 64) > 64) --x.m;  // at least two enumerated steps
  x.data_seed = rng();
  x.traj_seed = rng() >> 1;
  for (double& u : x.p) u = unit(rng);
  return x;
}

}}  // namespace
// The definitions below use this file's helpers; the namespace search is this file's alone.
using namespace NGVI_UNITY_ID;

BlrInstance instance_from(const Generator& g, double noise_var, long batch, const std::string& name) {
  if (g.n < 1) bad("generator.n", "must be >= 1");
  if (g.d < 1) bad("generator.d", "must be >= 1");
  if (!(g.x_scale > 0) || !std::isfinite(g.x_scale)) bad("generator.x_scale", "must be finite and > 0");
  if (!(g.y_scale > 0) || !std::isfinite(g.y_scale)) bad("generator.y_scale", "must be finite and > 0");
  if (!(g.prior_kappa >= 1) || !std::isfinite(g.prior_kappa)) bad("generator.prior_kappa", "must be finite and >= 1");
  if (!(g.prior_scale > 0) || !std::isfinite(g.prior_scale)) bad("generator.prior_scale", "must be finite and > 0");
  if (!(g.kappa >= 1) || !std::isfinite(g.kappa)) bad("generator.kappa", "must be finite and >= 1");
  if (!(g.noise_sd >= 0) || !std::isfinite(g.noise_sd)) bad("generator.noise_sd", "must be finite and >= 0");
  BlrInstance b;
  b.name = name;
  b.data = data::synthetic_regression(g.n, g.d, g.kappa, g.noise_sd, g.seed);
  b.data.X *= g.x_scale;
  b.data.y *= g.y_scale;
  data::Rng rng(g.seed + 1);
  b.prior_cov = data::random_spd(g.d, g.prior_kappa, rng, g.prior_scale);
  b.noise_var = noise_var;
  b.batch = batch;
  return b;
}

void register_sigma2_source(const std::string& name, Sigma2Source fn, const std::string& description) {
  sources()[name] = {std::move(fn), description};
}

const Sigma2Source* find_sigma2_source(const std::string& name) {
  const auto it = sources().find(name);
  return it == sources().end() ? nullptr : &it->second.fn;
}

std::string sigma2_source_names() {
  std::string s;
  for (const auto& [k, v] : sources()) s += (s.empty() ? "" : ", ") + k;
  return s;
}

const std::vector<SearchedClaim>& searched_claims() {
  static const std::vector<SearchedClaim> v = make_claims();
  return v;
}

const SearchedClaim* find_searched_claim(const std::string& name) {
  for (const auto& c : searched_claims())
    if (c.name == name || c.id == name) return &c;
  return nullptr;
}

std::string searched_claim_names() {
  std::string s;
  for (const auto& c : searched_claims()) s += (s.empty() ? "" : ", ") + c.name;
  return s;
}

void check_instance(const SearchedClaim& claim, const SearchInstance& inst) {
  const auto& b = inst.blr;
  if (b.data.n() < 2) bad("X", "must have n >= 2 rows (the recorded trajectory's second batch needs a second datum)");
  if (b.data.y.size() != b.data.n()) bad("y", "must have one entry per row of X");
  if (b.prior_cov.rows() != b.data.d() || b.prior_cov.cols() != b.data.d()) bad("prior_cov", "must be d x d (d = columns of X)");
  if (inst.prior_mean.size() != b.data.d()) bad("prior_mean", "must have d entries");
  if (!inst.prior_mean.isZero(0.0))
    bad("prior_mean", "must be zero: m_p = 0 is the hypothesis of Lemma 9, on which every searched claim rests");
  if (inst.schedule != "theorem1") bad("schedule", "must be \"theorem1\" (gamma_t = 2/(t+2), the searched claims' schedule)");
  if (b.batch < 1) bad("M", "must be >= 1");
  if (inst.steps < 1) bad("T", "must be >= 1");
  if (claim.name == "thm1") {
    long leaves = 1;
    const long nb = power_capped(b.data.n(), b.batch, kThm1PathLimit);
    for (long t = 0; t < inst.steps; ++t) {
      if (nb > kThm1PathLimit || leaves > kThm1PathLimit / nb)
        bad("T", "gives n^(M T) above the enumeration limit " + std::to_string(kThm1PathLimit) + " of thm1");
      leaves *= nb;
    }
    if (find_sigma2_source(inst.sigma2_source) == nullptr)
      bad("sigma2_source", "is none of " + sigma2_source_names() + " (got '" + inst.sigma2_source + "')");
  }
  // The library's own validation (blr_constants: finite data, s_e² > 0, S_p positive definite),
  // re-thrown naming the file's field.
  try {
    (void)blr_constants<double>(b.data, b.prior_cov, b.noise_var, b.batch);
  } catch (const std::exception& e) {
    const std::string w = e.what();
    const std::string field = w.find("noise_var") != std::string::npos   ? "noise_var"
                              : w.find("prior_cov") != std::string::npos ? "prior_cov"
                                                                         : "X";
    bad(field, std::string("is invalid: ") + w);
  }
}

long search_restarts(const SearchOptions& o) {
  if (o.budget < 2) throw std::invalid_argument("search budget must be >= 2 evaluations");
  const long r = o.restarts > 0 ? o.restarts : std::max(1L, o.budget / 2);
  if (o.restarts < 0 || r > o.budget)
    throw std::invalid_argument("search restarts must be in [1, budget = " + std::to_string(o.budget) + "] (got " +
                                std::to_string(o.restarts) + ")");
  return r;
}

namespace { namespace NGVI_UNITY_ID {
/// Every restart's point, drawn in order from the search's seed.
std::vector<Point> restart_points(const SearchedClaim& claim, const SearchOptions& o) {
  data::Rng rng(o.seed);
  std::vector<Point> x(static_cast<std::size_t>(search_restarts(o)));
  for (auto& p : x) p = random_point(claim, rng, o.ranges);
  return x;
}

/// Scores a point: its tightness, or -inf (counted in *unevaluable) when it cannot be evaluated (NaN:
/// an iterate left Ω; an exception: the claim refuses the instance). Keeps the best in *best.
double score_point(const SearchedClaim& claim, const Point& x, const SearchOptions& o, const std::string& where, long* unevaluable,
                   SearchResult* best) {
  SearchInstance s = build(claim, x, o);
  double t = -std::numeric_limits<double>::infinity();
  try {
    check_instance(claim, s);
    const Evaluation e = claim.evaluate(s);
    if (std::isnan(e.tightness)) ++*unevaluable;
    else t = e.tightness;
    if (best != nullptr && t > best->eval.tightness) {
      best->eval = e;
      best->worst = std::move(s);
      best->where = where;
    }
  } catch (const std::exception&) {
    ++*unevaluable;
  }
  return t;
}
}}  // namespace

RestartScores run_restarts(const SearchedClaim& claim, const SearchOptions& o, int index, int count,
                           const std::function<void(long)>& progress) {
  if (count < 1 || index < 1 || index > count)
    throw std::invalid_argument("shard " + std::to_string(index) + "/" + std::to_string(count) + " is not of the form I/N with 1 <= I <= N");
  const auto points = NGVI_UNITY_ID::restart_points(claim, o);
  RestartScores out;
  out.score.assign(points.size(), std::numeric_limits<double>::quiet_NaN());
  long done = 0;
  for (std::size_t k = static_cast<std::size_t>(index - 1); k < points.size(); k += static_cast<std::size_t>(count)) {
    out.score[k] = NGVI_UNITY_ID::score_point(claim, points[k], o, "", &out.unevaluable, nullptr);
    if (progress) progress(++done);
  }
  return out;
}

SearchResult refine_search(const SearchedClaim& claim, const SearchOptions& o, const RestartScores& scores,
                           const std::function<void(long)>& progress) {
  const auto points = NGVI_UNITY_ID::restart_points(claim, o);
  if (scores.score.size() != points.size())
    throw std::invalid_argument("the scores are of " + std::to_string(scores.score.size()) + " restarts, the search has " +
                                std::to_string(points.size()));
  for (std::size_t k = 0; k < points.size(); ++k)
    if (std::isnan(scores.score[k])) throw std::invalid_argument("restart " + std::to_string(k + 1) + " has no score");
  SearchResult best;
  best.eval.tightness = -std::numeric_limits<double>::infinity();
  best.unevaluable = scores.unevaluable;
  best.restarts = static_cast<long>(points.size());
  long used = best.restarts;
  // The best restart (the first of equal ones), evaluated again for its instance and evaluation.
  std::size_t top = 0;
  for (std::size_t k = 1; k < points.size(); ++k)
    if (scores.score[k] > scores.score[top]) top = k;
  if (scores.score[top] > -std::numeric_limits<double>::infinity()) {
    long ignored = 0;
    const double t = NGVI_UNITY_ID::score_point(claim, points[top], o, "restart " + std::to_string(top + 1), &ignored, &best);
    if (!(t == scores.score[top]))
      throw std::runtime_error("restart " + std::to_string(top + 1) + " evaluated again gives tightness " + fmt(t) + ", not its score " +
                               fmt(scores.score[top]) + " (a score edited, or an evaluation that is not deterministic)");
  }
  auto score = [&](const Point& x, const std::string& where) {
    ++used;
    const double t = NGVI_UNITY_ID::score_point(claim, x, o, where, &best.unevaluable, &best);
    if (progress) progress(used);
    return t;
  };
  // Compass search from the three best restarts in turn (the rest of the budget split evenly): each
  // coordinate of the normalised log-parameters is moved by ±h (clamped to [0, 1]), an improvement is
  // kept at once; after a sweep without one, h halves, down to 1/64.
  std::vector<std::pair<double, Point>> starts;
  for (std::size_t k = 0; k < points.size(); ++k) starts.emplace_back(scores.score[k], points[k]);
  std::stable_sort(starts.begin(), starts.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  const long seeds = std::min<long>(3, static_cast<long>(starts.size()));
  for (long s = 0; s < seeds && used < o.budget; ++s) {
    const long stop = used + (o.budget - used) / (seeds - s);
    Point x = starts[static_cast<std::size_t>(s)].second;
    double fx = starts[static_cast<std::size_t>(s)].first;
    if (!std::isfinite(fx)) continue;
    const std::string where = "refinement of restart " + std::to_string(s + 1) + " of the best";
    for (double h = 0.25; h >= 1.0 / 64 && used < stop; ) {
      bool improved = false;
      for (int k = 0; k < kParams && used < stop; ++k)
        for (double sign : {1.0, -1.0}) {
          if (used >= stop) break;
          Point y = x;
          y.p[k] = std::clamp(x.p[k] + sign * h, 0.0, 1.0);
          if (y.p[k] == x.p[k]) continue;
          const double fy = score(y, where);
          if (fy > fx) {
            x = y;
            fx = fy;
            improved = true;
            break;
          }
        }
      if (!improved) h /= 2;
    }
  }
  best.evaluations = used;
  return best;
}

SearchResult run_search(const SearchedClaim& claim, const SearchOptions& o, const std::function<void(long)>& progress) {
  return refine_search(claim, o, run_restarts(claim, o, 1, 1, progress), progress);
}

ClaimRecord search_record(const SearchedClaim& claim, const SearchInstance& inst, const Evaluation& e, const std::string& instance_name,
                          double seconds) {
  const bool ratio = claim.unit == "ratio";
  // Ratio claims compare max lhs/rhs with 1 + the rounding allowance (as their claim files do); the
  // plain ones compare lhs with rhs·(1 + allowance).
  const double rhs = ratio ? 1 + e.allowance : e.rhs * (1 + e.allowance);
  std::string note = e.note + "; bound " + claim.bound + "; tightness lhs/bound = " + fmt(e.tightness) + ", rounding allowance " +
                     fmt(e.allowance) + "; instance n=" + std::to_string(inst.blr.data.n()) + " d=" +
                     std::to_string(inst.blr.data.d()) + " M=" + std::to_string(inst.blr.batch) + " T=" + std::to_string(inst.steps) +
                     " s2=" + fmt(inst.blr.noise_var) + " seed=" + std::to_string(inst.seed);
  if (!e.exact) note += "; lhs is a Monte Carlo lower confidence bound (one-sided 99%)";
  ClaimRecord r = inequality_record(claim.id, instance_name, "double", Kind::kClaim, ratio ? e.tightness : e.lhs, rhs, seconds, note,
                                    ratio ? "ratio" : "");
  return r;
}

}  // namespace ngvi::claims::search
