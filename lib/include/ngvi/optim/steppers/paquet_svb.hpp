#pragma once
/// @file
/// Stochastic variational Bayes on a Bayesian network with per-node child sampling (Paquet 2014,
/// Algorithms 1 and 2; docs/systems.md B.2-B.4), for the matrix-factorisation network of
/// models/paquet_mf.hpp. One engine step is one sweep (Algorithm 1: every hidden node once;
/// Algorithm 2: every node with a child in the global sample D).
///
///   PaquetSampler (estimator)  draws the sample of a sweep: for Algorithm 1, at most C children of
///                              each hidden node without replacement (all of them when N_i ≤ C, the
///                              kit's reading of "at most C"); for Algorithm 2, C_global distinct
///                              ratings D.
///   PaquetStepper (stepper)    forms λ_i^temp = η̃_i + (N_i/|C_i|) Σ_{k∈C_i} η̃_ki by eq. (7) and takes
///                              λ_i ← (1 − ρ_t) λ_i + ρ_t λ_i^temp with natural_update, either
///                              (a) in place, node after node (later nodes see the new values), or
///                              (b) every λ_i^temp from the same old Λ, all applied at the end: under
///                              Algorithm 1 (every node updated) the family-generic step of the whole
///                              Λ, NaturalStepper<MfFamily> (optim/steppers/natural.hpp), with ĝ_i =
///                              λ_i^temp − λ_p; under Algorithm 2 node by node, since the nodes
///                              without a child in D keep their value, which one step of the whole Λ
///                              cannot say.
///                              Algorithm 2 uses D_i = D ∩ ch(i) and the factor N_i/|D_i| (the printed
///                              sum over C is a typo); nodes without a child in D keep their value.
///
/// The sweep's parts (PaquetParts): the scale N_i/|C_i|, Algorithm 2's scale N_i/|D_i| on its own,
/// which values a node reads (option (a): the updated ones; (b): the sweep's start), the precision
/// term and the co-parent set of eq. (7), and the step-size schedule of a run of sweeps (read by
/// whoever runs them: paquet_schedule). A caller may replace any of them (a claim's variant does,
/// optim/variant.hpp, kPartSystemPaquet); an empty part is the library's, computed inline.
/// Sweep order: the user nodes (m, k) for m = 0.., k = 0..K−1, then the item nodes (n, k).
/// Accesses: one access is one rating read in the update of one hidden node, so a full sweep reads
/// 2K|Ω| and Algorithm 1 with C reads Σ_i min(C, N_i).
/// Divergence: a sweep after which a parameter is non-finite, a precision is not positive, or (with
/// check_elbo) the ELBO is non-finite, fails: step() restores the Λ of the previous sweep and returns
/// StepStatus::left, which run_trajectory turns into the Trajectory's failure at that step (DIVERGED).
#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include "ngvi/models/paquet_mf.hpp"
#include "ngvi/optim/engine.hpp"
#include "ngvi/optim/natural_update.hpp"
#include "ngvi/optim/schedule.hpp"
#include "ngvi/optim/steppers/natural.hpp"
#include "ngvi/random/stream.hpp"

namespace ngvi {

enum class PaquetAlgorithm { kPerNode = 1, kGlobal = 2 };  ///< Algorithm 1 / Algorithm 2
enum class PaquetOption { kSequential, kSimultaneous };    ///< option (a) / option (b)

/// Which values a node's update reads from the nodes updated before it in the same sweep.
enum class PaquetReads {
  kUpdated,     ///< their new values (option (a): in place, node after node)
  kSweepStart,  ///< the values of the sweep's start (option (b): every λ_i^temp from the same old Λ)
};

/// The picked children of one hidden node (u_{row,k} on the user side, v_{row,k} on the item side)
/// as eq. (7) reads them, at the current moments: child p is the rating at slot base + picks[p] of
/// the node's row of the rating views, whose other parent (the co-parent row) is other_row(p).
template <class Scalar>
struct PaquetNode {
  bool user_side = true;
  Index row = 0, k = 0, K = 0;
  const std::int32_t* picks = nullptr;  ///< positions within the node's row
  Index npicks = 0;
  std::int64_t base = 0;                ///< the first slot of the node's row
  const std::int32_t* other = nullptr;  ///< per slot: the other side's row
  const double* value = nullptr;        ///< per slot: the rating r
  const Scalar* mu_self = nullptr;      ///< E[node's row], K entries
  const Scalar* mu_other = nullptr;     ///< E[other side], (rows × K)
  const Scalar* var_other = nullptr;    ///< Var[other side], (rows × K)
  Index other_row(Index p) const { return other[base + picks[p]]; }
  double rating(Index p) const { return value[base + picks[p]]; }
};

/// The parts of Paquet's sweep (eq. 7 and options (a)/(b)) a caller may replace, for one scalar; an
/// empty part is the library's (the comment of each gives it). Each is called once per node or once
/// per sweep, never per child, so the library's inner loop over the children stays inline.
template <class Scalar>
struct PaquetParts {
  /// The scale of a node's subsampled child sum from (N_i, |C_i|) (|D_i| under Algorithm 2), for
  /// |C_i| ≥ 1; library: N_i/|C_i|. Per node.
  std::function<Scalar(Index degree, Index picked)> scale;
  /// Algorithm 2's scale of a node's sum over D_i = D ∩ ch(i) from (N_i, |D_i|, |D|), for |D_i| ≥ 1,
  /// in place of `scale`'s under Algorithm 2 only; library: `scale`'s (N_i/|D_i|, docs/systems.md
  /// B.3). Per node.
  std::function<Scalar(Index degree, Index in_sample, Index sample)> global_scale;
  /// Which values the nodes of a sweep under `option` read (PaquetReads); library: option (a) the
  /// updated ones, option (b) those of the sweep's start. Per sweep.
  std::function<PaquetReads(PaquetOption option)> reads;
  /// The precision term of eq. (7) summed over the node's picked children,
  /// Σ_p (Var_q[v_{o(p),k}] + E[v_{o(p),k}]²) (library). Per node.
  std::function<Scalar(const PaquetNode<Scalar>& node)> precision;
  /// The co-parent set of eq. (7) of coordinate k of K: the k' whose E[u_k'] E[v_k'] the mean term
  /// subtracts; library: every k' ≠ k. Per node (written into `out`, cleared by the caller).
  std::function<void(Index k, Index K, std::vector<Index>& out)> coparents;
  /// The schedule ρ_t of a run of sweeps, given the caller's (docs/systems.md B.2: ρ_t = (t + τ)^(−κ));
  /// library: the caller's. Per run: the stepper is handed each ρ_t and never reads this part; whoever
  /// runs the sweeps does, through paquet_schedule.
  std::function<StepSchedule<Scalar>(const StepSchedule<Scalar>& library)> schedule;

  bool empty() const { return !scale && !global_scale && !reads && !precision && !coparents && !schedule; }
};

/// The schedule a run of Paquet's sweeps takes: `library`, or the parts' replacement of it.
template <class Scalar>
StepSchedule<Scalar> paquet_schedule(const PaquetParts<Scalar>& parts, const StepSchedule<Scalar>& library) {
  return parts.schedule ? parts.schedule(library) : library;
}

struct PaquetOptions {
  PaquetAlgorithm algorithm = PaquetAlgorithm::kPerNode;
  PaquetOption option = PaquetOption::kSequential;
  long children = 0;        ///< C of Algorithm 1: at most C children per node; 0 = all (full VB)
  long global_batch = 100;  ///< C_global of Algorithm 2
  bool check_elbo = true;   ///< compute the ELBO after every sweep (and fail on a non-finite one)
};

inline const char* to_string(PaquetOption o) { return o == PaquetOption::kSequential ? "a" : "b"; }

/// The sample of one sweep. Algorithm 1: node j's picks are picks[start[j] .. start[j+1]), positions
/// within its row of the rating views (users' nodes first). Algorithm 2: `batch` holds D (rating indices).
struct PaquetSample {
  std::vector<std::int32_t> picks;
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> batch;
};

template <class Scalar_>
class PaquetStepper {
 public:
  using Scalar = Scalar_;
  using Point = MfNatural<Scalar>;
  using Direction = PaquetSample;
  using Lambda = Eigen::Array<Scalar, 2, 1>;
  /// Called after each node's update under option (a): (user side?, row, k).
  using NodeHook = std::function<void(bool, Index, Index)>;

  /// `parts`: the parts of the sweep that replace the library's (PaquetParts; empty: the library's).
  /// @throws std::domain_error naming 'options.children' (< 0), 'options.global_batch' (< 1 for
  ///         Algorithm 2), 'init' (shapes, non-finite entries, non-positive precisions).
  PaquetStepper(const RatingMatrix& data, PaquetOptions options, Point init, PaquetParts<Scalar> parts = {})
      : data_(&data), opt_(options), q_(std::move(init)), parts_(std::move(parts)) {
    constexpr const char* f = "ngvi::PaquetStepper";
    if (opt_.children < 0) throw_domain(f, "options.children", "must be >= 0 (0 = all children)");
    if (opt_.algorithm == PaquetAlgorithm::kGlobal && (opt_.global_batch < 1 || opt_.global_batch > data.size()))
      throw_domain(f, "options.global_batch", "must lie in [1, number of ratings]");
    if (q_.K < 1 || q_.u.cols() != data.users * q_.K || q_.v.cols() != data.items * q_.K)
      throw_size(f, "init", "must have users*K and items*K columns for the data");
    if (!valid(q_)) throw_domain(f, "init", "must be finite with positive precisions");
    mo_.assign_from(q_);
    prior_ << Scalar(1), Scalar(0);
    whole_.emplace(MfFamily<Scalar>{}, q_, Point::prior_like(q_));
    sample_ = static_cast<Index>(opt_.global_batch);
    if (opt_.check_elbo) elbo_ = mf_elbo(data, q_);
  }

  const Point& point() const { return q_; }
  Direction make_direction() const { return {}; }
  const RatingMatrix& data() const { return *data_; }
  const PaquetOptions& options() const { return opt_; }
  const PaquetParts<Scalar>& parts() const { return parts_; }
  Index K() const { return q_.K; }
  /// Ratings read so far (file comment).
  std::int64_t accesses() const { return accesses_; }
  /// The ELBO after the last sweep (check_elbo), or at the initial point.
  const Scalar& elbo() const { return elbo_; }
  void set_node_hook(NodeHook h) { hook_ = std::move(h); }
  /// Replaces the iterate (e.g. a warm start); the same checks as the constructor.
  void reset(Point q) {
    if (q.K != q_.K || q.u.cols() != q_.u.cols() || q.v.cols() != q_.v.cols() || !valid(q))
      throw_domain("ngvi::PaquetStepper::reset", "q", "must match the shapes and be finite with positive precisions");
    q_ = std::move(q);
    mo_.assign_from(q_);
    if (opt_.check_elbo) elbo_ = mf_elbo(*data_, q_);
  }

  /// λ^temp of one node from the current moments (eq. 7) with the children at `picks` (positions
  /// within the node's row); scale N_i/|picks| (or the parts' scale; under Algorithm 2 the parts'
  /// global_scale first, with |D| the last sweep's sample size, C_global before the first). Public for the claims' exact
  /// enumeration.
  Lambda lambda_temp(bool user_side, Index row, Index k, const std::int32_t* picks, Index npicks) const {
    Lambda g = child_sum(user_side, row, k, picks, npicks);
    const Index deg = user_side ? data_->user_degree(row) : data_->item_degree(row);
    if (npicks > 0) {
      if (opt_.algorithm == PaquetAlgorithm::kGlobal && parts_.global_scale) g *= parts_.global_scale(deg, npicks, sample_);
      else g *= parts_.scale ? parts_.scale(deg, npicks) : Scalar(Scalar(deg) / Scalar(npicks));
    }
    return prior_ + g;
  }

  StepStatus step(long t, const Scalar& rho, const Direction& dir) {
    backup_ = q_;
    const PaquetReads reads = parts_.reads ? parts_.reads(opt_.option)
                              : opt_.option == PaquetOption::kSimultaneous ? PaquetReads::kSweepStart
                                                                           : PaquetReads::kUpdated;
    const bool simultaneous = reads == PaquetReads::kSweepStart;
    // Reads from the sweep's start under Algorithm 1: every node's ĝ first, then one step of Λ.
    const bool whole = simultaneous && opt_.algorithm == PaquetAlgorithm::kPerNode;
    if (whole) {
      ghat_.K = q_.K;
      ghat_.u.resize(2, q_.u.cols());
      ghat_.v.resize(2, q_.v.cols());
    } else if (simultaneous) {
      next_ = q_;
    }
    Point& target = simultaneous ? next_ : q_;
    auto update = [&](bool user_side, Index row, Index k, const std::int32_t* picks, Index npicks) {
      accesses_ += npicks;
      const Lambda temp = lambda_temp(user_side, row, k, picks, npicks);
      const Lambda ghat = temp - prior_;
      const Index col = row * q_.K + k;
      if (whole) {
        (user_side ? ghat_.u : ghat_.v).col(col) = ghat;
        return;
      }
      auto& block = user_side ? target.u : target.v;
      Lambda lam = block.col(col);
      natural_update(lam, prior_, ghat, rho);
      block.col(col) = lam;
      if (!simultaneous) {
        auto& mu = user_side ? mo_.mu_u : mo_.mu_v;
        auto& s = user_side ? mo_.s_u : mo_.s_v;
        s[static_cast<std::size_t>(col)] = Scalar(1) / lam(0);
        mu[static_cast<std::size_t>(col)] = lam(1) / lam(0);
        if (hook_) hook_(user_side, row, k);
      }
    };
    const Index K = q_.K;
    if (opt_.algorithm == PaquetAlgorithm::kPerNode) {
      const Index nu = data_->users * K, nodes = nu + data_->items * K;
      if (static_cast<Index>(dir.start.size()) != nodes + 1) throw_size("ngvi::PaquetStepper::step", "dir", "must hold one pick list per node");
      for (Index j = 0; j < nodes; ++j) {
        const bool us = j < nu;
        const Index jj = us ? j : j - nu;
        update(us, jj / K, jj % K, dir.picks.data() + dir.start[j], static_cast<Index>(dir.start[j + 1] - dir.start[j]));
      }
    } else {
      sample_ = static_cast<Index>(dir.batch.size());
      group(dir.batch);
      for (int side = 0; side < 2; ++side) {
        const bool us = side == 0;
        const auto& rows = us ? rows_u_ : rows_v_;
        const auto& ptr = us ? ptr_u_ : ptr_v_;
        const auto& pos = us ? pos_u_ : pos_v_;
        for (std::size_t g = 0; g < rows.size(); ++g)
          for (Index k = 0; k < K; ++k) update(us, rows[g], k, pos.data() + ptr[g], static_cast<Index>(ptr[g + 1] - ptr[g]));
      }
    }
    if (whole) {  // the generic step checks its result's domain
      whole_->reset(q_);
      if (!whole_->step(t, rho, ghat_)) return fail("Lambda", "has a non-finite entry or a non-positive precision (diverged)");
      q_ = whole_->point();
      mo_.assign_from(q_);
    } else if (simultaneous) {
      std::swap(q_, next_);
      mo_.assign_from(q_);
    }
    if (!whole && !valid(q_)) return fail("Lambda", "has a non-finite entry or a non-positive precision (diverged)");
    if (opt_.check_elbo) {
      const Scalar e = mf_elbo(*data_, q_);
      if (!is_finite_scalar(e)) return fail("elbo", "is not finite (diverged)");
      elbo_ = e;
    }
    return StepStatus::fine();
  }

 private:
  StepStatus fail(std::string arg, std::string cond) {
    q_ = backup_;
    mo_.assign_from(q_);
    return StepStatus::left(std::move(arg), std::move(cond));
  }

  static bool valid(const Point& q) { return MfFamily<Scalar>{}.in_domain(q); }

  /// Σ over the picked children of (Var v + E[v]², E[v](r − Σ_{k'≠k} E[u_k'] E[v_k'])) (eq. 7), with
  /// the parts' precision term and co-parent set where given.
  Lambda child_sum(bool user_side, Index row, Index k, const std::int32_t* picks, Index npicks) const {
    const RatingMatrix& d = *data_;
    PaquetNode<Scalar> n;
    n.user_side = user_side;
    n.row = row;
    n.k = k;
    n.K = q_.K;
    n.picks = picks;
    n.npicks = npicks;
    n.base = user_side ? d.user_ptr[row] : d.item_ptr[row];
    n.other = user_side ? d.user_item.data() : d.item_user.data();
    n.value = user_side ? d.user_value.data() : d.item_value.data();
    n.mu_self = (user_side ? mo_.mu_u : mo_.mu_v).data() + row * q_.K;
    n.mu_other = (user_side ? mo_.mu_v : mo_.mu_u).data();
    n.var_other = (user_side ? mo_.s_v : mo_.s_u).data();
    Lambda g;
    if (parts_.coparents) {
      coparents_.clear();
      parts_.coparents(k, q_.K, coparents_);
      for (Index kk : coparents_)
        if (kk < 0 || kk >= q_.K) throw_domain("ngvi::PaquetStepper", "parts.coparents", "must give coordinates in [0, K)");
      g = parts_.precision ? child_sum_impl<true, false>(n) : child_sum_impl<true, true>(n);
    } else {
      g = parts_.precision ? child_sum_impl<false, false>(n) : child_sum_impl<false, true>(n);
    }
    if (parts_.precision) g(0) = parts_.precision(n);
    return g;
  }

  /// The loop of child_sum: kListed reads the co-parent set from coparents_ (else every k' ≠ k);
  /// kPrecision sums the library's precision term (else leaves it 0 for the part).
  template <bool kListed, bool kPrecision>
  Lambda child_sum_impl(const PaquetNode<Scalar>& n) const {
    const Index K = n.K, k = n.k;
    const Scalar* mu_self = n.mu_self;
    const Scalar* mu_o = n.mu_other;
    const Scalar* s_o = n.var_other;
    Scalar sp(0), sm(0);
    for (Index p = 0; p < n.npicks; ++p) {
      const std::int64_t slot = n.base + n.picks[p];
      const Index o = n.other[slot] * K;
      Scalar co(0);
      if constexpr (kListed) {
        for (Index kk : coparents_) co += mu_self[kk] * mu_o[o + kk];
      } else {
        for (Index kk = 0; kk < K; ++kk)
          if (kk != k) co += mu_self[kk] * mu_o[o + kk];
      }
      const Scalar& mv = mu_o[o + k];
      if constexpr (kPrecision) sp += Scalar(s_o[o + k] + mv * mv);
      sm += mv * (Scalar(n.value[slot]) - co);
    }
    Lambda g;
    g << sp, sm;
    return g;
  }

  /// Groups D by user and by item: rows touched (ascending) and the positions of their ratings in D.
  void group(const std::vector<std::int64_t>& batch) {
    const RatingMatrix& d = *data_;
    auto one = [&](bool us, std::vector<Index>& rows, std::vector<std::int64_t>& ptr, std::vector<std::int32_t>& pos) {
      pairs_.clear();
      for (std::int64_t e : batch) {
        const Index r = us ? d.user[e] : d.item[e];
        const std::int64_t slot = us ? d.user_slot[e] : d.item_slot[e];
        const std::int64_t base = us ? d.user_ptr[r] : d.item_ptr[r];
        pairs_.emplace_back(r, static_cast<std::int32_t>(slot - base));
      }
      std::sort(pairs_.begin(), pairs_.end());
      rows.clear();
      ptr.clear();
      pos.clear();
      for (std::size_t i = 0; i < pairs_.size(); ++i) {
        if (i == 0 || pairs_[i].first != pairs_[i - 1].first) {
          rows.push_back(pairs_[i].first);
          ptr.push_back(static_cast<std::int64_t>(i));
        }
        pos.push_back(pairs_[i].second);
      }
      ptr.push_back(static_cast<std::int64_t>(pairs_.size()));
    };
    one(true, rows_u_, ptr_u_, pos_u_);
    one(false, rows_v_, ptr_v_, pos_v_);
  }

  const RatingMatrix* data_;
  PaquetOptions opt_;
  Point q_, next_, backup_;
  Point ghat_;  ///< option (b) under Algorithm 1: every node's ĝ of the sweep
  std::optional<NaturalStepper<MfFamily<Scalar>>> whole_;  ///< its step of the whole Λ (after the checks of init)
  PaquetParts<Scalar> parts_;
  Index sample_ = 0;  ///< |D| of the last Algorithm 2 sweep, C_global before one (PaquetParts::global_scale)
  mutable std::vector<Index> coparents_;  ///< the parts' co-parent set of the node in hand
  MfMoments<Scalar> mo_;
  Lambda prior_;
  Scalar elbo_ = std::numeric_limits<Scalar>::quiet_NaN();
  std::int64_t accesses_ = 0;
  NodeHook hook_;
  std::vector<std::pair<Index, std::int32_t>> pairs_;
  std::vector<Index> rows_u_, rows_v_;
  std::vector<std::int64_t> ptr_u_, ptr_v_;
  std::vector<std::int32_t> pos_u_, pos_v_;
};

/// RunOptions for `sweeps` engine steps (no checkpoints).
inline RunOptions sweep_options(long sweeps) {
  RunOptions o;
  o.steps = sweeps;
  return o;
}

/// Draws the sample of each sweep from a counter-based stream (seed, stream id).
class PaquetSampler {
 public:
  PaquetSampler(std::uint64_t seed, std::uint64_t stream_id) : rng_(seed, stream_id) {}

  template <class Scalar>
  void estimate(long /*t*/, const PaquetStepper<Scalar>& s, PaquetSample& dir) {
    const RatingMatrix& d = s.data();
    const PaquetOptions& o = s.options();
    if (o.algorithm == PaquetAlgorithm::kGlobal) {
      draw_distinct(static_cast<std::int64_t>(d.size()), o.global_batch, dir.batch);
      return;
    }
    const Index K = s.K();
    dir.picks.clear();
    dir.start.clear();
    dir.start.push_back(0);
    for (int side = 0; side < 2; ++side) {
      const Index rows = side == 0 ? d.users : d.items;
      for (Index r = 0; r < rows; ++r) {
        const Index deg = side == 0 ? d.user_degree(r) : d.item_degree(r);
        for (Index k = 0; k < K; ++k) {
          if (o.children == 0 || deg <= o.children) {
            const std::size_t at = dir.picks.size();
            dir.picks.resize(at + static_cast<std::size_t>(deg));
            std::iota(dir.picks.begin() + static_cast<std::ptrdiff_t>(at), dir.picks.end(), std::int32_t{0});
          } else {
            draw_distinct(deg, o.children, tmp_);
            for (auto p : tmp_) dir.picks.push_back(static_cast<std::int32_t>(p));
          }
          dir.start.push_back(static_cast<std::int64_t>(dir.picks.size()));
        }
      }
    }
  }

 private:
  /// c distinct values of {0, …, n−1}, uniformly over the c-subsets (Floyd's algorithm; the
  /// membership test is a linear scan for small c and a mark vector otherwise).
  void draw_distinct(std::int64_t n, std::int64_t c, std::vector<std::int64_t>& out) {
    out.clear();
    if (c <= 32) {
      for (std::int64_t j = n - c; j < n; ++j) {
        const auto t = static_cast<std::int64_t>(rng_.index(static_cast<std::uint64_t>(j + 1)));
        const bool seen = std::find(out.begin(), out.end(), t) != out.end();
        out.push_back(seen ? j : t);
      }
      return;
    }
    if (static_cast<std::int64_t>(mark_.size()) < n) mark_.assign(static_cast<std::size_t>(n), 0);
    for (std::int64_t j = n - c; j < n; ++j) {
      const auto t = static_cast<std::int64_t>(rng_.index(static_cast<std::uint64_t>(j + 1)));
      const std::int64_t x = mark_[static_cast<std::size_t>(t)] ? j : t;
      mark_[static_cast<std::size_t>(x)] = 1;
      out.push_back(x);
    }
    for (auto x : out) mark_[static_cast<std::size_t>(x)] = 0;
  }

  random::Stream rng_;
  std::vector<std::int64_t> tmp_;
  std::vector<char> mark_;
};

}  // namespace ngvi
