// `ngvi run svi-lda` and `ngvi run svi-gmm`: stochastic variational inference (Hoffman et al. 2013;
// docs/systems.md A) through the trajectory engine. svi-lda fits online LDA to a bag-of-words corpus
// (UCI docword or Matrix Market, with a vocabulary) or, without --data, to the synthetic benchmark of
// docs/systems.md A.4, and records the held-out perplexity against documents seen; svi-gmm fits the
// Bayesian Gaussian mixture of docs/systems.md A.3 to separated 2-D clusters and records the ELBO.
#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <cmath>
#include <fstream>
#include <memory>
#include <numeric>

#include "cli_common.hpp"
#include "experiment.hpp"
#include "ngvi/data/bow_loaders.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/data/lda_synthetic.hpp"
#include "ngvi/models/gmm.hpp"
#include "ngvi/models/lda.hpp"
#include "ngvi/optim/steppers/svi.hpp"
#include "ngvi/kernels/execution.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct LdaParams {
  std::string data, vocab;
  std::string test;                       // --test FILE: the held-out documents (all of --data trains)
  const CLI::Option* holdout = nullptr;   // --holdout-every, to tell a given value from the default
  long topics = 10;
  double alpha = 0, eta = 0;  // 0: 1/topics (scikit-learn's None)
  double tau0 = 10, kappa = 0.7, rho0 = 1;
  long batch = 128, passes = 10;
  bool shuffle = false;
  long holdout_every = 10;
  long top_words = 10;
  bool save_lambda = false;
  std::string init_lambda;  // --init-lambda FILE: the first λ (K rows, V columns), in place of the Gamma(100, 1/100) draws
};
// SVI's schedule guard (docs/systems.md A): κ ∈ (0.5, 1] (κ = 0.5 breaks Robbins–Monro's Σρ_t² < ∞,
// κ > 1 its Σρ_t = ∞) and ρ₀ ∈ (0, 1], checked where the option is parsed so that the error names it.
// A number x with lo < x <= hi; `why` follows the range in the error.
CLI::Validator half_open(double lo, double hi, const std::string& why) {
  const std::string range = "(" + fmt::format("{}", lo) + ", " + fmt::format("{}", hi) + "]";
  return CLI::Validator(
      [lo, hi, why, range](std::string& s) {
        double x = 0;
        try {
          std::size_t used = 0;
          x = std::stod(s, &used);
          if (used != s.size()) return std::string("'" + s + "' is not a number");
        } catch (const std::exception&) {
          return std::string("'" + s + "' is not a number");
        }
        return x > lo && x <= hi ? std::string() : "must lie in " + range + why + ", got " + s;
      },
      range);
}
CLI::Validator forgetting_rate() { return half_open(0.5, 1, " (Robbins-Monro: kappa = 0.5 makes sum rho_t^2 diverge)"); }
CLI::Validator step_scale() { return half_open(0, 1, ""); }

LdaParams& lda_params() {
  static LdaParams p;
  return p;
}

void run_lda(ExperimentContext& ctx) {
  const auto& o = ctx.options();
  const LdaParams p = lda_params();
  data::BagOfWords bow;
  std::string name = "synthetic-lda";
  if (!p.data.empty()) {
    bow = data::read_bag_of_words(p.data, p.vocab);
    name = p.data.substr(p.data.find_last_of('/') + 1);
  } else {
    if (!p.vocab.empty()) throw UsageError("--vocab needs --data FILE");
    const auto syn = lda::synthetic_lda(5, 200, 2000, 500, 80, 0.05, 0.1, o.seed);
    bow.corpus = syn.train;
    for (long d = 0; d < syn.test.n_docs(); ++d) {  // appended, so that every --holdout-every-th document is held out below
      std::vector<std::pair<std::int32_t, std::int64_t>> bag;
      for (long j = syn.test.doc_ptr[d]; j < syn.test.doc_ptr[d + 1]; ++j) bag.emplace_back(syn.test.word[j], syn.test.count[j]);
      bow.corpus.add_document(bag);
    }
  }
  lda::Corpus train, test;
  if (!p.test.empty()) {
    // A given split: every document of --data trains, every one of --test is held out, over one
    // vocabulary (word ids 1..V in both files; --vocab names them).
    if (p.data.empty()) throw UsageError("--test needs --data FILE (the training documents)");
    if (p.holdout != nullptr && p.holdout->count() > 0) throw UsageError("--holdout-every does not apply with --test (the split is given)");
    const auto held = [&] {
      try {
        return data::read_bag_of_words(p.test);
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("--test: ") + e.what());
      }
    }();
    if (held.corpus.n_words != bow.corpus.n_words)
      throw UsageError(fmt::format("--test '{}' has V = {} words, --data '{}' has V = {}: the two files must share one vocabulary", p.test,
                                   held.corpus.n_words, p.data, bow.corpus.n_words));
    train = std::move(bow.corpus);
    test = held.corpus;
  } else {
    if (p.holdout_every < 2) throw UsageError("--holdout-every must be >= 2");
    std::vector<long> train_ids, test_ids;
    for (long d = 0; d < bow.corpus.n_docs(); ++d) ((d % p.holdout_every == p.holdout_every - 1) ? test_ids : train_ids).push_back(d);
    train = lda::subset(bow.corpus, train_ids);
    test = lda::subset(bow.corpus, test_ids);
  }
  if (p.batch > train.n_docs()) throw UsageError(fmt::format("--batch-size {} exceeds the {} training documents", p.batch, train.n_docs()));
  lda::LdaOptions<double> opt;
  opt.topics = p.topics;
  opt.alpha = p.alpha > 0 ? p.alpha : 1.0 / double(p.topics);
  opt.eta = p.eta > 0 ? p.eta : 1.0 / double(p.topics);
  parallel::TilePool pool(ctx.threads());
  const kernels::ExecutionContext exec{&pool};
  const lda::LdaModel<double> model(train, opt, exec);
  // The first λ: --init-lambda's K × V table (lambda.csv's layout), read before the fit's clock starts.
  lda::Topics<double> lambda0;
  const bool given_start = !p.init_lambda.empty();
  if (given_start) {
    data::CsvOptions co;
    co.header = 0;
    co.delimiter = ',';
    const auto table = [&] {
      try {
        return data::read_csv(p.init_lambda, co);
      } catch (const std::runtime_error& e) {
        throw std::runtime_error(std::string("--init-lambda: ") + e.what());
      }
    }();
    if (table.values.rows() != p.topics || table.values.cols() != train.n_words)
      throw UsageError(fmt::format("--init-lambda '{}' is {} x {}: it must be K x V = {} x {} (a row per topic, lambda.csv's layout)",
                                   p.init_lambda, table.values.rows(), table.values.cols(), p.topics, train.n_words));
    if (!(table.values.array() > 0.0).all())
      throw UsageError(fmt::format("--init-lambda '{}' has an entry <= 0: every entry must be positive (a Dirichlet parameter)", p.init_lambda));
    lambda0 = table.values.transpose();
  }
  const svi::SviSchedule<double> schedule(p.kappa, p.tau0, p.rho0);
  svi::SviOptions<double> so;
  so.batch_size = p.batch;
  so.passes = p.passes;
  so.order = p.shuffle ? svi::BatchOrder::kShuffled : svi::BatchOrder::kDataOrder;
  so.seed = o.seed;
  const long blocks = (train.n_docs() + p.batch - 1) / p.batch;
  const long T = blocks * p.passes;
  const auto record = record_iterations(T, 8);
  auto out = ctx.open_run("svi-lda", {"method", "step", "docs_seen", "rho", "perplexity", "completion_perplexity"});
  std::size_t next = 0;
  long docs_seen = 0;
  double eval_seconds = 0, eval_cpu = 0;  // time spent in the held-out evaluations, excluded from documents/second
  const auto fit_start = std::chrono::steady_clock::now();
  const std::clock_t fit_cpu_start = std::clock();
  auto progress = ctx.progress("", T);
  auto observe = OnStep{[&](const auto& e) {
    docs_seen += std::min(p.batch, train.n_docs() - (e.t % blocks) * p.batch);
    progress->advance(1);
    if (next < record.size() && record[next] == e.t + 1) {
      ++next;
      const auto t0 = std::chrono::steady_clock::now();
      const std::clock_t c0 = std::clock();
      const double log_perp = lda::log_perplexity(test, e.stepper.point(), opt, exec);
      const double perp = std::exp(log_perp);  // inf when the finite log-perplexity exceeds 709
      const double comp = lda::completion_perplexity(test, e.stepper.point(), opt, exec);
      eval_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      eval_cpu += double(std::clock() - c0) / CLOCKS_PER_SEC;
      if (!std::isfinite(log_perp)) throw std::domain_error("svi-lda: the held-out bound is not finite at step " + std::to_string(e.t));
      out.trace().add("svi").add(e.t + 1).add(docs_seen).add(double(e.gamma)).add(perp).add(comp).end_row();
    }
  }};
  const auto tr = run_svi(model, given_start ? lambda0 : model.initial_lambda(o.seed), schedule, so, observe);
  progress->finish();
  tr.value_or_throw("svi-lda");
  const double fit_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - fit_start).count() - eval_seconds;
  // Process CPU time (all threads) of the fit: on a shared machine it is steadier than wall time.
  const double fit_cpu = double(std::clock() - fit_cpu_start) / CLOCKS_PER_SEC - eval_cpu;
  const double final_perplexity = lda::perplexity(test, tr.last, opt, exec);
  report::PlotSpec plot;
  plot.id = "perplexity";
  plot.title = fmt::format("Online LDA on {}: held-out perplexity (K = {}, |S| = {}, tau0 = {:g}, kappa = {:g})", name, p.topics, p.batch, p.tau0, p.kappa);
  plot.x = "docs_seen";
  plot.y = "perplexity";
  plot.xlabel = "documents seen";
  plot.ylabel = "held-out perplexity (nats, scikit-learn formula)";
  out.add_plot(plot);
  out.note(std::string("held-out protocol: ") + (p.test.empty() ? "every --holdout-every-th document" : "the documents of --test " + p.test) + "; fresh E-step with gamma = 1 at the current lambda, bound without "
           "subsampling factor, perplexity exp(-bound / held-out tokens) in nats (scikit-learn's perplexity(X)); completion_perplexity: "
           "even tokens of each held-out document observed, odd tokens scored");
  out.note("top words per topic: the table above (topics_table.csv; share = (sum_w lambda_kw - V eta) / sum_j (sum_w lambda_jw - V eta), "
           "the topic's share of the fitted word counts); every word's weight in topics.csv");
  const std::string dir = out.finish();
  std::ofstream tw(dir + "/topics.csv");
  std::ofstream tt(dir + "/topics_table.csv");
  tt << "topic,share,top_words\n";
  const Mat<double> topics = tr.last.transpose();  // K x V, a row per topic (lambda is V x K)
  const double eta_mass = double(topics.cols()) * opt.eta;
  double total_mass = 0;
  for (Index k = 0; k < topics.rows(); ++k) total_mass += topics.row(k).sum() - eta_mass;
  tw << "topic,rank,word,weight\n";
  for (Index k = 0; k < topics.rows(); ++k) {
    std::vector<Index> idx(static_cast<std::size_t>(topics.cols()));
    std::iota(idx.begin(), idx.end(), Index(0));
    std::partial_sort(idx.begin(), idx.begin() + std::min<Index>(p.top_words, topics.cols()), idx.end(),
                      [&](Index a, Index b) { return topics(k, a) > topics(k, b); });
    const double sum = topics.row(k).sum();
    std::string line;
    for (long r = 0; r < std::min<long>(p.top_words, topics.cols()); ++r) {
      const Index w = idx[static_cast<std::size_t>(r)];
      const std::string word = bow.vocab.empty() ? "w" + std::to_string(w + 1) : bow.vocab[static_cast<std::size_t>(w)];
      tw << k << "," << r + 1 << "," << word << "," << topics(k, w) / sum << "\n";
      line += (r ? " " : "") + word;
    }
    ctx.say(fmt::format("topic {:2d}: {}", k, line));
    tt << k << "," << fmt::format("{:.4f}", (sum - eta_mass) / total_mass) << "," << line << "\n";
  }
  if (p.save_lambda) {
    std::ofstream lf(dir + "/lambda.csv");
    lf.precision(17);
    for (Index k = 0; k < topics.rows(); ++k) {
      for (Index w = 0; w < topics.cols(); ++w) lf << (w ? "," : "") << topics(k, w);
      lf << "\n";
    }
  }
  ctx.say(fmt::format("svi-lda: documents/second {:.1f}, documents/CPU-second {:.1f} (fit only, {} threads), held-out perplexity {:.6f}",
                      double(docs_seen) / fit_seconds, double(docs_seen) / fit_cpu, ctx.threads(), final_perplexity));
  ctx.say(fmt::format("svi-lda: {} ({} training, {} held-out documents, V = {}), K = {}, {} steps -> {}", name, train.n_docs(), test.n_docs(),
                      train.n_words, p.topics, T, dir));
}

struct GmmParams {
  long n = 10000, components = 3, batch = 100, passes = 20;
  double tau = 1, kappa = 0.7, rho0 = 1, sigma = 1, s0_2 = 100, alpha0 = 1;
};
GmmParams& gmm_params() {
  static GmmParams p;
  return p;
}

void run_gmm(ExperimentContext& ctx) {
  const auto& o = ctx.options();
  const GmmParams p = gmm_params();
  Mat<double> mu(3, 2);
  mu << -5, 0, 0, 5, 5, 0;
  const Mat<double> X = gmm::gmm_clusters(mu, p.sigma, p.n, false, o.seed);
  gmm::GmmOptions<double> opt;
  opt.components = p.components;
  opt.sigma2 = p.sigma * p.sigma;
  opt.s0_2 = p.s0_2;
  opt.alpha0 = p.alpha0;
  const gmm::GmmModel<double> model(X, opt);
  if (p.batch > p.n) throw UsageError("--batch-size exceeds --n");
  const svi::SviSchedule<double> schedule(p.kappa, p.tau, p.rho0);
  svi::SviOptions<double> so;
  so.batch_size = p.batch;
  so.passes = p.passes;
  so.order = svi::BatchOrder::kShuffled;
  so.seed = o.seed;
  const long T = p.passes * ((p.n + p.batch - 1) / p.batch);
  const auto record = record_iterations(T, 8);
  auto out = ctx.open_run("svi-gmm", {"method", "step", "rho", "elbo"});
  std::size_t next = 0;
  auto observe = OnStep{[&](const auto& e) {
    if (next < record.size() && record[next] == e.t + 1) {
      ++next;
      const double elbo = model.elbo(e.stepper.point());
      if (!std::isfinite(elbo)) throw std::domain_error("svi-gmm: the ELBO is not finite at step " + std::to_string(e.t));
      out.trace().add("svi").add(e.t + 1).add(double(e.gamma)).add(elbo).end_row();
    }
  }};
  const auto tr = run_svi(model, model.initial_lambda(o.seed), schedule, so, observe);
  tr.value_or_throw("svi-gmm");
  report::PlotSpec plot;
  plot.id = "elbo";
  plot.title = "SVI on a Gaussian mixture: ELBO";
  plot.x = "step";
  plot.y = "elbo";
  plot.xlabel = "step t";
  plot.ylabel = "ELBO (nats)";
  plot.logy = false;
  out.add_plot(plot);
  const std::string dir = out.finish();
  const auto q = model.moments(tr.last);
  // The fit as a scatter plot (a second run, so that the report draws it beside the ELBO): a subsample
  // of the points, the true and fitted means, and each fitted component's 2-sd circle of its predictive
  // N(m_k, (sigma^2 + s_k^2) I). Circle angles 2 pi (i + 1/4) / 72 give no two points of a circle the
  // same x (the report averages rows of one series with equal x).
  auto fit = ctx.open_run("svi-gmm-fit", {"series", "x", "y"});
  const Index stride = std::max<Index>(1, X.rows() / 2000);
  for (Index i = 0; i < X.rows(); i += stride) fit.trace().add("data").add(X(i, 0)).add(X(i, 1)).end_row();
  constexpr double kTwoPi = 6.283185307179586;
  for (Index k = 0; k < q.means.rows(); ++k) {
    const double r = 2 * std::sqrt(p.sigma * p.sigma + q.var(k));
    for (int i = 0; i < 72; ++i) {
      const double a = kTwoPi * (i + 0.25) / 72;
      fit.trace().add("fitted 2-sd circle").add(q.means(k, 0) + r * std::cos(a)).add(q.means(k, 1) + r * std::sin(a)).end_row();
    }
  }
  for (Index k = 0; k < mu.rows(); ++k) fit.trace().add("true mean").add(mu(k, 0)).add(mu(k, 1)).end_row();
  for (Index k = 0; k < q.means.rows(); ++k) fit.trace().add("fitted mean").add(q.means(k, 0)).add(q.means(k, 1)).end_row();
  report::PlotSpec scatter;
  scatter.id = "fit";
  scatter.title = fmt::format("SVI on a Gaussian mixture: the points and the fitted components (K = {})", p.components);
  scatter.x = "x";
  scatter.y = "y";
  scatter.series = "series";
  scatter.xlabel = "x_1";
  scatter.ylabel = "x_2";
  scatter.logx = scatter.logy = false;
  scatter.points = true;
  scatter.reference_series = "true mean";
  fit.add_plot(scatter);
  fit.note(fmt::format("every {}-th point of N = {}; true means in black; circles: the fitted components' 2-sd predictive contours", stride, p.n));
  fit.finish();
  std::ofstream fc(dir + "/components.csv");
  fc << "component,mean_x,mean_y,var,weight\n";
  for (Index k = 0; k < q.means.rows(); ++k)
    fc << k << "," << q.means(k, 0) << "," << q.means(k, 1) << "," << q.var(k) << "," << q.gamma(k) / q.gamma.sum() << "\n";
  std::ofstream pts(dir + "/points.csv");
  pts << "x,y\n";
  for (Index i = 0; i < X.rows(); i += std::max<Index>(1, X.rows() / 2000)) pts << X(i, 0) << "," << X(i, 1) << "\n";
  for (Index k = 0; k < q.means.rows(); ++k) ctx.say(fmt::format("component {}: mean ({:.4f}, {:.4f}), weight {:.4f}", k, q.means(k, 0), q.means(k, 1), q.gamma(k) / q.gamma.sum()));
  ctx.say(fmt::format("svi-gmm: N = {}, K = {}, {} steps -> {}", p.n, p.components, T, dir));
}

const ExperimentRegistrar lda_registrar({
    .id = "svi-lda",
    .description = "Online LDA by stochastic variational inference (Hoffman et al. 2013): held-out perplexity (scikit-learn's "
                   "formula, nats; fresh gamma = 1, no subsampling factor) and document-completion perplexity against documents seen",
    .default_iters = 0,
    .default_seeds = 1,
    .uses_data = false,
    .data_help = "",
    .add_options =
        [](CLI::App& app) {
          auto& p = lda_params();
          app.add_option("--data", p.data, "Bag-of-words file, UCI docword or Matrix Market (default: the synthetic benchmark K=5, V=200)");
          app.add_option("--vocab", p.vocab, "Vocabulary file, one word per line (default: none)");
          app.add_option("--topics", p.topics, "Number of topics K")->capture_default_str()->check(CLI::Range(1L, 100000L));
          app.add_option("--alpha", p.alpha, "Document-topic prior alpha (default 0: 1/K, as scikit-learn)")->capture_default_str()->check(CLI::Range(0.0, 1e6));
          app.add_option("--eta", p.eta, "Topic-word prior eta (default 0: 1/K, as scikit-learn)")->capture_default_str()->check(CLI::Range(0.0, 1e6));
          app.add_option("--tau0", p.tau0, "Delay tau0 (scikit-learn learning_offset)")->capture_default_str()->check(CLI::Range(0.0, 1e12));
          app.add_option("--kappa", p.kappa, "Forgetting rate kappa in (0.5, 1] (scikit-learn learning_decay)")->capture_default_str()->check(forgetting_rate());
          app.add_option("--rho0", p.rho0, "Step scale rho0 in (0, 1]: rho_t = rho0 (t + tau0)^-kappa, t = 1, 2, ...")->capture_default_str()->check(step_scale());
          app.add_option("--batch-size", p.batch, "Minibatch size |S|")->capture_default_str()->check(CLI::Range(1L, 1000000000L));
          app.add_option("--passes", p.passes, "Passes over the training documents (scikit-learn max_iter)")->capture_default_str()->check(CLI::Range(1L, 100000L));
          app.add_flag("--shuffle", p.shuffle, "Shuffle the documents every pass (default: data order, as scikit-learn's fit)");
          p.holdout = app.add_option("--holdout-every", p.holdout_every, "Hold out every n-th document (index % n == n - 1) for perplexity")
                          ->capture_default_str();
          app.add_option("--test", p.test,
                         "Held-out documents from their own bag-of-words file (same format and vocabulary as --data, which then "
                         "trains on all its documents; default: --holdout-every's split of --data)");
          app.add_flag("--save-lambda", p.save_lambda, "Write the fitted lambda (K rows, V columns) to lambda.csv in the run folder");
          app.add_option("--init-lambda", p.init_lambda,
                         "The first lambda from a CSV file, K rows of V positive numbers (lambda.csv's layout), in place of the "
                         "Gamma(100, 1/100) draws: two codes compared from one start (default: the draws of --seed)")
              ->check(CLI::ExistingFile);
          app.add_option("--top-words", p.top_words, "Words listed per topic")->capture_default_str()->check(CLI::Range(1L, 1000L));
        },
    .numeric_options = {"--alpha", "--eta", "--tau0", "--kappa", "--rho0"},
    .run = run_lda,
});

const ExperimentRegistrar gmm_registrar({
    .id = "svi-gmm",
    .description = "SVI for a Bayesian Gaussian mixture with known isotropic variance on three separated 2-D clusters: ELBO against "
                   "steps, fitted components (components.csv) and the points (points.csv) for a scatter plot",
    .default_iters = 0,
    .default_seeds = 1,
    .uses_data = false,
    .data_help = "",
    .add_options =
        [](CLI::App& app) {
          auto& p = gmm_params();
          app.add_option("--n", p.n, "Points N (clusters at (-5,0), (0,5), (5,0))")->capture_default_str()->check(CLI::Range(3L, 100000000L));
          app.add_option("--components", p.components, "Mixture components K")->capture_default_str()->check(CLI::Range(1L, 1000L));
          app.add_option("--batch-size", p.batch, "Minibatch size |S|")->capture_default_str()->check(CLI::Range(1L, 100000000L));
          app.add_option("--passes", p.passes, "Passes over the data (shuffled each pass)")->capture_default_str()->check(CLI::Range(1L, 100000L));
          app.add_option("--tau", p.tau, "Delay tau")->capture_default_str()->check(CLI::Range(0.0, 1e12));
          app.add_option("--kappa", p.kappa, "Forgetting rate kappa in (0.5, 1]")->capture_default_str()->check(forgetting_rate());
          app.add_option("--rho0", p.rho0, "Step scale rho0 in (0, 1]")->capture_default_str()->check(step_scale());
          app.add_option("--sigma", p.sigma, "Known standard deviation sigma of the clusters")->capture_default_str()->check(CLI::Range(1e-6, 1e6));
          app.add_option("--s0-2", p.s0_2, "Prior variance s0^2 of the component means")->capture_default_str()->check(CLI::Range(1e-12, 1e12));
          app.add_option("--alpha0", p.alpha0, "Dirichlet prior alpha0 of the weights")->capture_default_str()->check(CLI::Range(1e-12, 1e12));
        },
    .numeric_options = {"--sigma", "--s0-2", "--rho0"},
    .run = run_gmm,
});

}}  // namespace
}  // namespace ngvi::cli
