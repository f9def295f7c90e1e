// ngvi verify: runs the claim registry and prints the claims table.
#include "verify.hpp"

#include <fmt/core.h>
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cerrno>
#include <cstring>
#include <unistd.h>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <iterator>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <tuple>

#include "cli_common.hpp"
#include "diff_cmd.hpp"
#include "mpi_group.hpp"
#include "ngvi/data/file_digest.hpp"
#include "ngvi/report/provenance.hpp"
#include "ngvi/report/compare.hpp"
#include "ngvi/report/junit.hpp"
#include "ngvi/report/kill_matrix.hpp"
#include "ngvi/parallel/replicates.hpp"
#include "ngvi/report/record.hpp"
#include "ngvi/optim/variant.hpp"
#include "ngvi/protocols/conjugate_ngd_exec.hpp"
#include "ngvi/protocols/conjugate_ngd_mutations.hpp"
#include "ngvi/claims/registry.hpp"
#include "search_cmd.hpp"

namespace ngvi::cli {
namespace { namespace NGVI_UNITY_ID {

struct VerifyOptions {
  std::string claims = "*";
  std::string precision = "all";
  bool precision_given = false;  ///< --precision on the command line (--algorithm refuses mp50 and all)
  bool quick = false;
  bool full = false;
  bool summary = false;
  std::string shard;  ///< --shard I/N: run only the I-th of N disjoint parts of the selection
  int ranks = 0;      ///< --ranks N: the kit starts `mpirun -n N` on itself (0: not given)
  std::string json;
  std::string baseline;
  std::vector<std::string> margin_tolerances;  ///< "F" or "UNIT=F", repeatable
  bool allow_meta_mismatch = false;
  std::string junit;
  unsigned long long seed = 20240601ULL;
  int threads = 0;
  bool list = false;
  std::string variant;
  std::string mutant;   ///< --mutant NAME: like --variant, for a registered mutant
  std::string mutants;  ///< --mutants all|NAME,...: the kill matrix
  bool list_variants = false;
  std::string algorithm;       ///< --algorithm exec:CMD: an implementation in a child process (docs/protocol.md)
  double exec_timeout = 60;    ///< --exec-timeout SECONDS: the time the process has to answer one call
  bool exec_timeout_given = false;
  std::string search;     ///< --search CLAIM: the worst-case search
  std::string instance;   ///< --instance FILE: re-run a searched claim on an instance file
  SearchCliOptions search_opts;  ///< --out, --search-budget, --sigma2-source (and the seed)
  std::vector<std::string> search_only_given;  ///< those of --out, --search-budget, --sigma2-source on the command line
};

std::string fmt_num(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return fmt::format("{:.4g}", x);
}

void print_table(const std::vector<report::ClaimRecord>& recs) {
  fmt::print("{:<28} {:<34} {:<7} {:<7} {:>11} {:>11} {:>11} {:<6} {:>10} {:<7} {:>8}\n", "claim", "instance", "prec",
             "kind", "lhs", "rhs", "margin", "unit", "tightness", "verdict", "seconds");
  for (const auto& r : recs) {
    const auto o = report::outcome(r);
    const char* mark = o == report::Outcome::kFail      ? "  <-- FAIL"
                       : o == report::Outcome::kVacuous ? "  <-- vacuous (not evidence)"
                       : o == report::Outcome::kSkipped ? "  <-- skipped"
                                                        : "";
    fmt::print("{:<28} {:<34} {:<7} {:<7} {:>11} {:>11} {:>11} {:<6} {:>10} {:<7} {:>8.3f}{}\n", r.claim, r.instance,
               r.precision, report::to_string(r.kind), fmt_num(r.lhs), fmt_num(r.rhs), fmt_num(r.margin), r.unit,
               !std::isnan(r.tightness)    ? fmt_num(r.tightness)
               : !std::isnan(r.resolution) ? "res " + fmt_num(r.resolution)  // a difference (report::Form)
                                           : std::string("-"),
               report::to_string(r.verdict), r.seconds, mark);
  }
}

// Lists the records that are not evidence (vacuous, skipped), each with its reason.
void print_not_evidence(const std::vector<report::ClaimRecord>& recs) {
  for (const auto& r : recs) {
    const auto o = report::outcome(r);
    if (o == report::Outcome::kVacuous && r.form == report::Form::kDifference)
      fmt::print("vacuous {} {} {}: resolution {} >= {} (holds, but not evidence)\n", r.claim, r.instance, r.precision,
                 fmt_num(r.resolution), fmt_num(report::kCoarsestResolution));
    else if (o == report::Outcome::kVacuous)
      fmt::print("vacuous {} {} {}: tightness {} < {} (holds, but not evidence)\n", r.claim, r.instance, r.precision,
                 fmt_num(r.tightness), fmt_num(report::kVacuousTightness));
    else if (o == report::Outcome::kSkipped)
      fmt::print("skipped {} {} {} {}: {}\n", r.claim, r.instance, r.precision, report::to_string(r.kind), r.note);
  }
}

// `--summary`: the failing records as a table (none: nothing printed), then one line per claim whose
// claim records include some that are not evidence: "no evidence" when none holds, else the counts.
void print_summary(const std::vector<report::ClaimRecord>& recs) {
  std::vector<report::ClaimRecord> failing;
  for (const auto& r : recs)
    if (report::outcome(r) == report::Outcome::kFail) failing.push_back(r);
  if (!failing.empty()) print_table(failing);
  for (const auto& g : report::evidence_gaps(recs))
    fmt::print("{} {}: {} claim record(s) hold, {} vacuous, {} skipped\n", g.none() ? "no evidence" : "partly evidence", g.claim, g.holds,
               g.vacuous, g.skipped);
}

// One run of one claim: the claim, the algorithm it runs against (null: the library's), and what the
// run gave: its records, the data files it read (in order), its wall time.
struct ClaimJob {
  const claims::ClaimInfo* claim = nullptr;
  const Variant* variant = nullptr;
  std::vector<report::ClaimRecord> records;
  std::vector<std::string> files;
  double seconds = 0;
  /// The library's run under ngvi verify --mutants: variant points to `probe`, an empty variant (the
  /// library's algorithm) that notes in `reads` each part the claim read (optim/variant.hpp).
  Variant probe;
  std::atomic<std::uint32_t> reads{0};
};

// How many claims run at once, out of a budget of `threads` threads in all: one per thread, at most
// one per job; one under a process group of several ranks (mpirun), whose collective calls inside
// the Monte Carlo claims must come in the same order on every rank.
int claim_workers(int threads, std::size_t jobs) {
  if (const auto* g = parallel::process_group(); g != nullptr && g->size() > 1) return 1;
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(1, threads)), jobs)));
}

// Runs one job on the calling thread.
void run_job(ClaimJob& job, claims::RunContext ctx) {
  ctx.set_variant(job.variant);
  const auto start = std::chrono::steady_clock::now();
  data::ReadScope scope(&job.files);
  // A claim that throws is one error record (a failure of the suite); the others still run.
  job.records = claims::run_claim(*job.claim, ctx);
  job.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Runs the jobs on a pool of claim_workers(ctx.threads) threads, longest first (ClaimInfo::cost), each
// claim with ctx.threads / workers threads of its own for its Monte Carlo replicates, so the total
// stays ctx.threads. The records do not depend on the pool: a claim's records depend on its context
// only (its seed, precisions, mode, variant; the replicates are bitwise the same for any thread count,
// parallel/replicates.hpp), the claims share no mutable state (the registries are filled before main,
// the data-file log is locked, Boost.Multiprecision caches its constants per thread), and every job
// keeps its own records and files, read back in job order by the caller.
void run_jobs(std::vector<ClaimJob>& jobs, const claims::RunContext& ctx, const std::string& label) {
  const int workers = claim_workers(ctx.threads, jobs.size());
  claims::RunContext per_claim = ctx;
  per_claim.threads = std::max(1, ctx.threads / workers);
  std::vector<std::size_t> order(jobs.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto cost = [&](std::size_t i) { return ctx.full ? jobs[i].claim->cost.full : jobs[i].claim->cost.quick; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });

  StatusLine feedback(label, static_cast<long>(jobs.size()), is_output_rank());
  std::mutex mutex;  // guards next, done, running, error and the feedback calls
  std::size_t next = 0;
  long done = 0;
  std::vector<std::string> running;
  std::exception_ptr error;
  auto show = [&] {
    std::string items;
    for (const auto& r : running) items += (items.empty() ? "" : ", ") + r;
    feedback.begin(done + 1, items);
  };
  auto worker = [&] {
    for (;;) {
      ClaimJob* job = nullptr;
      std::string id;
      {
        std::lock_guard<std::mutex> lock(mutex);
        if (next >= order.size() || error) return;
        job = &jobs[order[next++]];
        id = job->variant == nullptr || job->variant->name.empty() ? job->claim->id : job->claim->id + " (" + job->variant->name + ")";
        running.push_back(id);
        show();
      }
      std::exception_ptr failed;
      try {
        run_job(*job, per_claim);
      } catch (...) {  // not a std::exception: stop the pool and rethrow it on the caller's thread
        failed = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      running.erase(std::find(running.begin(), running.end(), id));
      ++done;
      if (failed && !error) error = failed;
      if (!running.empty()) show();
    }
  };
  if (workers == 1) {
    worker();
  } else {
    std::vector<std::thread> pool;
    pool.reserve(static_cast<std::size_t>(workers));
    for (int i = 0; i < workers; ++i) pool.push_back(parallel::worker_thread([&worker] { worker(); }));
    for (auto& t : pool) t.join();
  }
  feedback.finish();
  if (error) std::rethrow_exception(error);
}

// Runs the selected claims against ctx (its variant, if any); collects the data files each claim
// read (read_by: the claim that read each), both in the registry's order.
std::vector<report::ClaimRecord> run_suite(const std::vector<const claims::ClaimInfo*>& selected, const claims::RunContext& ctx,
                                           const std::string& label, std::vector<std::string>* read_paths,
                                           std::vector<std::string>* read_by) {
  std::vector<ClaimJob> jobs(selected.size());
  for (std::size_t i = 0; i < selected.size(); ++i) {
    jobs[i].claim = selected[i];
    jobs[i].variant = ctx.variant();
  }
  run_jobs(jobs, ctx, label);
  std::vector<report::ClaimRecord> all;
  for (auto& job : jobs) {
    for (const auto& f : job.files)
      if (read_paths != nullptr) {
        read_paths->push_back(f);
        read_by->push_back(job.claim->id);
      }
    all.insert(all.end(), std::make_move_iterator(job.records.begin()), std::make_move_iterator(job.records.end()));
  }
  return all;
}

// The names of a comma-separated list ("a,b,c"; an empty entry is an empty name).
std::vector<std::string> comma_separated(const std::string& list) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = list.find(',', start);
    out.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return out;
    start = comma + 1;
  }
}

// The mutants --mutants names: "all" (every registered mutant) or a comma-separated list of names.
std::vector<const Variant*> mutants_named(const std::string& list) {
  std::vector<const Variant*> out;
  if (list == "all") {
    for (const auto* v : VariantRegistry::instance().all())
      if (v->mutant) out.push_back(v);
    return out;
  }
  for (const auto& name : comma_separated(list)) {
    const Variant* v = VariantRegistry::instance().find(name);
    if (v == nullptr || !v->mutant)
      throw UsageError("--mutants '" + name + "' is not a registered mutant (see ngvi verify --list-variants)");
    out.push_back(v);
  }
  return out;
}

// Prints the kill matrix: one line per mutant, then claims x mutants (killed records per cell).
void print_kill_matrix(const report::KillMatrix& m) {
  fmt::print("{:<4} {:<24} {:<18} {:>6} {:>6} {:>8}  {}\n", "col", "mutant", "status", "kills", "flips", "seconds", "description");
  for (std::size_t i = 0; i < m.mutants.size(); ++i) {
    const auto& mu = m.mutants[i];
    fmt::print("M{:<3} {:<24} {:<18} {:>6} {:>6} {:>8.1f}  {}{}\n", i + 1, mu.name, mu.status(), mu.kills(), mu.flips.size(),
               mu.seconds, mu.description, mu.equivalent.empty() ? "" : " [equivalent: " + mu.equivalent + "]");
  }
  fmt::print("\nkilled records per claim (rows) and mutant (columns; '.' none, '~' flipped without a failure):\n{:<28}", "claim");
  for (std::size_t i = 0; i < m.mutants.size(); ++i) fmt::print(" {:>4}", "M" + std::to_string(i + 1));
  fmt::print("\n");
  for (const auto& c : m.claims) {
    fmt::print("{:<28}", c);
    for (const auto& mu : m.mutants) fmt::print(" {:>4}", mu.cell(c));
    fmt::print("\n");
  }
}

// The mutations of an implementation (--algorithm exec:CMD --mutants): "all" or a comma-separated
// list of the names of protocols/conjugate_ngd_mutations.hpp, each as a variant that is the
// implementation under that mutation.
std::vector<const protocols::ConjugateNgdMutation*> mutation_names(const std::string& list) {
  const auto& all = protocols::conjugate_ngd_mutations();
  std::vector<const protocols::ConjugateNgdMutation*> out;
  if (list == "all") {
    for (const auto& m : all) out.push_back(&m);
    return out;
  }
  std::string known;
  for (const auto& m : all) known += (known.empty() ? "" : ", ") + m.name;
  for (const auto& name : comma_separated(list)) {
    const auto it = std::find_if(all.begin(), all.end(), [&](const auto& m) { return m.name == name; });
    if (it == all.end())
      throw UsageError("--mutants '" + name + "' is not a mutation of the " + std::string(protocols::kConjugateNgd) +
                       " protocol (with --algorithm, --mutants takes all or some of: " + known + ")");
    out.push_back(&*it);
  }
  return out;
}
std::vector<Variant> implementation_mutations(const std::string& list, const Variant& impl) {
  std::vector<Variant> out;
  for (const auto* it : mutation_names(list)) {
    const std::string& name = it->name;
    Variant v = Variant::conjugate_ngd(protocols::mutate_conjugate_ngd(*impl.parts<double>()->conjugate_ngd, name),
                                       it->description + " (" + it->part + ")");
    v.name = name;  // the matrix's column; the implementation's own name stays in its records
    v.mutant = true;
    out.push_back(std::move(v));
  }
  return out;
}

// ngvi verify --mutants: the library's run, then one run per mutant, compared record by record. With
// --algorithm (base: the implementation) the runs are the implementation's and the mutants are its
// mutations; every claim that accepts its protocol runs again against each.
int run_kill_matrix(const VerifyOptions& o, const std::vector<const claims::ClaimInfo*>& selected, claims::RunContext ctx,
                    const report::RunMeta& meta, const Variant* base = nullptr) {
  std::vector<Variant> mutations;
  std::vector<const Variant*> mutants;
  if (base != nullptr) {
    mutations = implementation_mutations(o.mutants, *base);
    for (const auto& v : mutations) mutants.push_back(&v);
  } else {
    mutants = mutants_named(o.mutants);
  }
  if (mutants.empty()) throw UsageError("--mutants '" + o.mutants + "' names no mutant");
  report::KillMatrix m;
  m.meta = meta;
  for (const auto* c : selected) m.claims.push_back(c->id);
  // The library's runs first, each against an empty variant that notes the parts the claim read
  // (optim/variant.hpp). A claim runs the same code against any mutant that replaces none of the parts
  // it read, so its records against that mutant are the library's: only the (mutant, claim) pairs
  // where the mutant replaces a part the claim read run again, in one pool, read back in mutant order,
  // so the matrix is the same as from one run after another.
  const std::size_t n = selected.size();
  std::vector<ClaimJob> library_jobs(n);
  for (std::size_t i = 0; i < n; ++i) {
    library_jobs[i].claim = selected[i];
    library_jobs[i].probe.reads = &library_jobs[i].reads;
    library_jobs[i].variant = base != nullptr ? base : &library_jobs[i].probe;
  }
  ctx.set_variant(nullptr);
  run_jobs(library_jobs, ctx, base != nullptr ? "ngvi verify --mutants (the implementation)" : "ngvi verify --mutants (library)");
  std::vector<std::uint32_t> reads(n);
  for (std::size_t i = 0; i < n; ++i) {
    // An implementation is read whole by the claims that accept its protocol.
    reads[i] = base == nullptr ? library_jobs[i].reads.load() : selected[i]->accepts(base->protocol) ? base->replaced() : 0u;
    m.reads.push_back(variant_part_names(reads[i]));
  }
  // rerun_job[k][i]: the job of mutant k's run of claim i, or none (its records are the library's).
  constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  std::vector<std::vector<std::size_t>> rerun_job(mutants.size(), std::vector<std::size_t>(n, kNone));
  std::size_t pairs = 0;
  for (std::size_t k = 0; k < mutants.size(); ++k)
    for (std::size_t i = 0; i < n; ++i)
      if ((reads[i] & mutants[k]->replaced()) != 0) rerun_job[k][i] = pairs++;
  for (std::size_t i = 0; i < n; ++i) {
    bool rerun_for_some = false;
    for (std::size_t k = 0; k < mutants.size(); ++k) rerun_for_some = rerun_for_some || rerun_job[k][i] != kNone;
    if (!rerun_for_some) m.not_rerun.push_back(selected[i]->id);
  }
  std::vector<ClaimJob> jobs(pairs);
  for (std::size_t k = 0; k < mutants.size(); ++k)
    for (std::size_t i = 0; i < n; ++i)
      if (rerun_job[k][i] != kNone) {
        jobs[rerun_job[k][i]].claim = selected[i];
        jobs[rerun_job[k][i]].variant = mutants[k];
      }
  run_jobs(jobs, ctx, "ngvi verify --mutants");
  // k = 0: the library; k ≥ 1: mutant k − 1, with the library's records for the claims not re-run.
  auto records_of = [&](std::size_t k, double* seconds, std::vector<std::string>* not_rerun) {
    std::vector<report::ClaimRecord> recs;
    for (std::size_t i = 0; i < n; ++i) {
      const bool rerun = k > 0 && rerun_job[k - 1][i] != kNone;
      const auto& job = rerun ? jobs[rerun_job[k - 1][i]] : library_jobs[i];
      recs.insert(recs.end(), job.records.begin(), job.records.end());
      if (k == 0 || rerun) *seconds += job.seconds;
      if (k > 0 && !rerun) not_rerun->push_back(selected[i]->id);
    }
    return recs;
  };
  double library_seconds = 0;
  const auto library = records_of(0, &library_seconds, nullptr);
  m.library = report::count_records(library);
  if (m.library.failures > 0) {
    print_table(library);
    fmt::print(stderr, "ngvi verify: {} own run fails ({} failure(s)): a kill matrix against it means nothing\n",
               base != nullptr ? "the implementation's" : "the library's", m.library.failures);
  }
  for (std::size_t k = 1; k <= mutants.size(); ++k) {
    const auto* v = mutants[k - 1];
    report::MutantOutcome mu;
    const auto recs = records_of(k, &mu.seconds, &mu.not_rerun);
    mu.name = v->name;
    mu.replaces = variant_part_names(v->replaced());
    mu.description = v->description;
    mu.equivalent = v->equivalent;
    mu.records = static_cast<long>(recs.size());
    mu.flips = report::record_flips(library, recs);
    m.mutants.push_back(std::move(mu));
  }
  print_kill_matrix(m);
  if (!o.json.empty()) {
    if (is_output_rank()) report::write_kill_matrix_json(o.json, m);
    fmt::print("wrote {}\n", o.json);
  }
  fmt::print("{} of {} (mutant, claim) run(s) done: each claim ran again only against the mutants that replace a part it "
             "read in the library's run (its records against the others are the library's; mutants.json lists them, "
             "per mutant, under not_rerun)\n",
             pairs, mutants.size() * n);
  if (!m.not_rerun.empty())
    fmt::print("{} of {} claim(s) read no part any of these mutants replaces, so were not run again against any: {}\n",
               m.not_rerun.size(), n, fmt::join(m.not_rerun, ", "));
  if (!m.meta.shard.empty()) {
    // A shard's matrix covers its claims only: a mutant no record of this shard kills may be killed in
    // another, so whether it survived is the merge's to say. Here only the library's run can fail.
    fmt::print("summary (shard {} of the selection '{}', {} claim(s)): {} of {} mutant(s) killed by this shard's records; library "
               "run: {} record(s), {} failure(s) -> {} (ngvi merge joins the shards' matrices and says which mutants survived)\n",
               m.meta.shard, m.meta.claims, n, m.killed(), m.mutants.size(), m.library.records, m.library.failures,
               m.library.failures == 0 ? "PASS" : "FAIL");
    return m.library.failures == 0 ? 0 : 1;
  }
  fmt::print("summary: {} mutant(s): {} killed, {} equivalent, {} survived or falsely marked equivalent; library run: "
             "{} record(s), {} failure(s) -> {}\n",
             m.mutants.size(), m.killed(), m.equivalent(), m.gaps(), m.library.records, m.library.failures,
             m.pass() ? "PASS" : "FAIL");
  return m.pass() ? 0 : 1;
}

// ngvi verify --search CLAIM (the worst-case search) or --instance FILE (its re-run): neither runs the
// claim suite, so the suite's selection, variant and comparison options do not combine with them.
int run_search_or_instance(const VerifyOptions& o) {
  if (!o.search.empty() && !o.instance.empty()) throw UsageError("--search and --instance are exclusive");
  const char* self = o.search.empty() ? "--instance" : "--search";
  if (!o.mutants.empty() || !o.variant.empty() || !o.mutant.empty() || !o.algorithm.empty() || !o.baseline.empty() ||
      !o.junit.empty() || o.full || o.claims != "*" || o.precision != "all")
    throw UsageError(std::string(self) + " does not combine with --claims, --precision, --full, --variant, --mutant(s), "
                     "--algorithm, --baseline or --junit (it evaluates one claim in double on its own instances)");
  if (!o.search.empty()) {
    if (!o.json.empty()) throw UsageError("--search writes its JSON into --out DIR; --json applies to --instance");
    SearchCliOptions so = o.search_opts;
    so.claim = o.search;
    so.shard = o.shard;
    so.seed = o.seed;
    return run_search_command(so);
  }
  if (!o.search_only_given.empty()) throw UsageError(o.search_only_given.front() + " applies only to --search");
  if (!o.json.empty()) check_writable(o.json, "--json");
  std::string summary;
  const auto recs = run_instance_command(o.instance, &summary);
  print_table(recs);
  print_not_evidence(recs);
  if (!o.json.empty()) {
    report::RunMeta meta;
    meta.commit = git_commit();
    meta.compiler = report::compiler_id();
    meta.seed = o.seed;
    meta.precisions = {"double"};
    meta.started = utc_now();
    meta.mode = "instance";
    meta.command = command_line();
    meta.claims = recs.front().claim;
    report::write_claims_json(o.json, meta, recs);
    fmt::print("wrote {}\n", o.json);
  }
  const auto n = report::count_records(recs);
  fmt::print("{}; {}/{} claim records hold -> {}\n", summary, n.claims_hold, n.claims, n.failures > 0 ? "FAIL" : "PASS");
  return n.failures > 0 ? 1 : 0;
}

// --ranks N: replaces this process by `mpirun -n N --oversubscribe <this binary> <the same arguments
// without --ranks>`, so that N ranks split the claims' replicates (the MPI back end). As root, Open
// MPI refuses to start unless told otherwise: the kit sets its documented variables
// OMPI_ALLOW_RUN_AS_ROOT=1 and OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 (unless already set) for the ranks it
// starts, so no flag is needed. Returns only by throwing.
[[noreturn]] void exec_under_mpirun(int ranks) {
  if (!distributed_enabled()) throw UsageError("--ranks: this ngvi was built without MPI (install libopenmpi-dev and rebuild)");
  std::vector<std::string> args{"mpirun", "-n", std::to_string(ranks), "--oversubscribe"};
  std::error_code ec;
  const auto self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) throw std::runtime_error("--ranks: cannot find this program's path (/proc/self/exe): " + ec.message());
  args.push_back(self.string());
  const auto& given = command_arguments();
  for (std::size_t i = 0; i < given.size(); ++i) {
    if (given[i] == "--ranks") {
      ++i;  // and its value
      continue;
    }
    if (given[i].rfind("--ranks=", 0) == 0) continue;
    args.push_back(given[i]);
  }
  if (geteuid() == 0) {
    setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", /*overwrite=*/0);
    setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", /*overwrite=*/0);
  }
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  execvp("mpirun", argv.data());
  throw UsageError(std::string("--ranks: cannot start mpirun (") + std::strerror(errno) + "; Debian: openmpi-bin)");
}

int run_verify(const VerifyOptions& o) {
  auto& reg = claims::Registry::instance();
  if (o.ranks > 0) {
    if (std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMI_SIZE") != nullptr)
      throw UsageError("--ranks: this process already runs under mpirun (give --ranks or mpirun -n, not both)");
    if (o.ranks > 1) exec_under_mpirun(o.ranks);
  }
  if (o.list) {
    for (const auto& c : reg.claims()) fmt::print("{:<28} {:<4} {}  ({})\n", c.id, c.tag, c.statement, c.source);
    return 0;
  }
  if (o.list_variants) {
    for (const auto* v : VariantRegistry::instance().all())
      fmt::print("{:<28} {:<7} {}{}\n", v->name, v->mutant ? "mutant" : "variant", v->description,
                 v->equivalent.empty() ? "" : " [equivalent: " + v->equivalent + "]");
    return 0;
  }
  if (!o.shard.empty() && !o.instance.empty()) throw UsageError("--shard does not apply to --instance (one claim on one instance)");
  if (!o.search.empty() || !o.instance.empty()) return run_search_or_instance(o);
  if (!o.search_only_given.empty()) throw UsageError(o.search_only_given.front() + " applies only to --search");
  if (o.quick && o.full) throw UsageError("--quick and --full are exclusive");
  const auto whole = [&] {
    try {
      return reg.select(o.claims);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--claims: ") + e.what() + " (see ngvi verify --list)");
    }
  }();
  // --shard I/N: the I-th of N disjoint parts of the selection, balanced by the claims' cost hints
  // (claims::Registry::shard); `ngvi merge` joins the N claims.json files.
  int shard_index = 0, shard_count = 0;
  if (!o.shard.empty()) {
    try {
      std::tie(shard_index, shard_count) = claims::Registry::parse_shard(o.shard);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--shard ") + e.what());
    }
    if (!o.baseline.empty()) throw UsageError("--baseline does not apply to --shard (compare the merged run: ngvi merge, then ngvi diff)");
  }
  const auto selected = [&] {
    if (shard_count == 0) return whole;
    try {
      return claims::Registry::shard(whole, shard_index, shard_count, o.full);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--shard: ") + e.what());
    }
  }();

  // --mutants with --algorithm: the kill matrix of the implementation, under the protocol's mutations.
  if (static_cast<int>(!o.variant.empty()) + static_cast<int>(!o.mutant.empty()) +
          static_cast<int>(!o.mutants.empty() && o.algorithm.empty()) + static_cast<int>(!o.algorithm.empty()) > 1)
    throw UsageError("--variant, --mutant and --algorithm are exclusive, and --mutants goes with --algorithm or alone");
  if (!o.algorithm.empty() && !o.mutants.empty()) (void)mutation_names(o.mutants);  // a misspelt name fails before the program starts
  if (o.exec_timeout_given && o.algorithm.empty()) throw UsageError("--exec-timeout applies only to --algorithm exec:CMD");
  if (!o.algorithm.empty()) {
    if (o.algorithm.rfind(protocols::kExecPrefix, 0) != 0)
      throw UsageError("--algorithm '" + o.algorithm + "' is not of the form exec:CMD (a program speaking the line protocol "
                       "of docs/protocol.md)");
    if (o.precision_given && o.precision != "double")
      throw UsageError("--precision " + o.precision + " does not apply to --algorithm: the line protocol carries doubles, so only "
                       "the claims' double records run against the program (give --precision double or leave it out)");
  }
  if (!o.mutants.empty() && (!o.baseline.empty() || !o.junit.empty()))
    throw UsageError(std::string(o.baseline.empty() ? "--junit" : "--baseline") + " does not apply to --mutants (the kill matrix)");
  // Inputs and outputs are checked before the (possibly long) claim run, so bad input fails fast.
  report::MarginTolerance tol;
  for (const auto& t : o.margin_tolerances) {
    try {
      report::parse_margin_tolerance(t, &tol);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
  }
  if (o.baseline.empty() && (!o.margin_tolerances.empty() || o.allow_meta_mismatch))
    throw UsageError(std::string(o.allow_meta_mismatch ? "--allow-meta-mismatch" : "--margin-tolerance") +
                     " needs --baseline FILE");
  std::vector<report::ClaimRecord> baseline;
  report::RunMeta baseline_meta;
  if (!o.baseline.empty()) baseline = report::read_claims_json(o.baseline, &baseline_meta);
  if (!o.junit.empty()) check_writable(o.junit, "--junit");
  if (!o.json.empty()) check_writable(o.json, "--json");

  claims::RunContext ctx;
  ctx.full = o.full;
  ctx.seed = o.seed;
  ctx.threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  if (!o.algorithm.empty()) ctx.precisions = {"double"};
  else if (o.precision == "all") ctx.precisions = {"double", "mp50"};
  else if (o.precision == "double" || o.precision == "mp50") ctx.precisions = {o.precision};
  else throw UsageError("--precision must be double, mp50 or all (got '" + o.precision + "')");
  const std::string variant_name = !o.mutant.empty() ? o.mutant : o.variant;
  if (!variant_name.empty()) {
    const Variant* v = VariantRegistry::instance().find(variant_name);
    ctx.set_variant(v);
    const char* option = o.mutant.empty() ? "--variant" : "--mutant";
    if (v == nullptr || (!o.mutant.empty() && !v->mutant))
      throw UsageError(std::string(option) + " '" + variant_name + "' is not a registered " + (o.mutant.empty() ? "variant" : "mutant") +
                       " (see ngvi verify --list-variants)");
  }

  // --algorithm exec:CMD: the process starts and says hello now (a program that cannot be started or
  // does not speak conjugate-ngd v1 is a usage error, before anything runs); its implementation runs
  // as a variant. It is serial (one process answers one call at a time), so the claims run one after
  // another, in the same order every run (here: one claim worker); within a claim, claims::run_claim
  // runs the replicates of any serial implementation on one thread (for every caller, not only this one).
  std::optional<Variant> exec_variant;
  if (!o.algorithm.empty()) {
    const std::string command = o.algorithm.substr(std::string(protocols::kExecPrefix).size());
    protocols::ConjugateNgd<double> impl;
    try {
      impl = protocols::exec_conjugate_ngd(command, std::chrono::milliseconds(std::llround(o.exec_timeout * 1000)));
    } catch (const std::exception& e) {
      throw UsageError("--algorithm: " + std::string(e.what()));
    }
    exec_variant = Variant::conjugate_ngd(std::move(impl), "the program '" + command + "' over the line protocol (docs/protocol.md)");
    ctx.set_variant(&*exec_variant);
  }
  if (const auto* impl = conjugate_ngd_for<double>(ctx.variant()); impl != nullptr && impl->serial) ctx.threads = 1;

  report::RunMeta meta;
  meta.commit = git_commit();
  meta.compiler = report::compiler_id();
  meta.seed = o.seed;
  meta.precisions = ctx.precisions;
  meta.started = utc_now();
  meta.mode = o.full ? "full" : "quick";
  meta.command = command_line();
  meta.threads = ctx.threads;
  meta.variant = variant_name;
  meta.claims = o.claims;
  if (shard_count > 0) {
    meta.shard = std::to_string(shard_index) + "/" + std::to_string(shard_count);
    for (const auto* c : selected) meta.shard_claims.push_back(c->id);
  }
  if (const Variant* v = ctx.variant()) {
    meta.implementation = v->name;
    meta.implementation_version = v->version;
    meta.protocol = v->protocol;
    meta.protocol_version = v->protocol == protocols::kConjugateNgd ? protocols::kConjugateNgdVersion : 0;
  }
  if (exec_variant) fmt::print("algorithm under test: {} (exec: {})\n", report::describe_implementation(meta), o.algorithm.substr(5));

  // The baseline must be comparable before anything runs: some of its records in this claim
  // selection (else nothing would be compared, exit 3), and the same seed, mode, precisions and selection
  // (else refuse, exit 2, unless --allow-meta-mismatch).
  std::vector<std::string> meta_diffs;
  if (!o.baseline.empty()) {
    long in_scope = 0;
    for (const auto& r : baseline) in_scope += report::selection_matches(meta.claims, r.claim);
    if (in_scope == 0) {
      fmt::print(stderr, "ngvi verify: nothing compared: none of the {} record(s) of baseline '{}' is in this run's "
                 "claim selection '{}'\n", baseline.size(), o.baseline, o.claims);
      return 3;
    }
    meta_diffs = report::meta_differences(baseline_meta, meta);
    std::string joined;
    for (const auto& d : meta_diffs) joined += (joined.empty() ? "" : "; ") + d;
    if (!meta_diffs.empty() && !o.allow_meta_mismatch)
      throw UsageError("baseline '" + o.baseline + "' is not comparable: " + joined +
                       " (rerun with the baseline's settings, or pass --allow-meta-mismatch to compare anyway)");
    if (!meta_diffs.empty()) fmt::print(stderr, "ngvi verify: warning: comparing despite {}\n", joined);
  }

  if (!o.mutants.empty()) return run_kill_matrix(o, selected, ctx, meta, exec_variant ? &*exec_variant : nullptr);

  report::Provenance provenance = build_provenance();
  provenance.started = meta.started;
  std::vector<std::string> read_paths, read_by;  // data files each claim read, for their SHA-256
  parallel::reset_replicate_tally();
  std::vector<report::ClaimRecord> all = run_suite(selected, ctx, "ngvi verify", &read_paths, &read_by);
  provenance.finished = utc_now();
  provenance.data_files = report::digest_files(read_paths, read_by);
  meta.replicates_per_rank = parallel::replicates_per_rank();  // collective under MPI: every rank calls it
  meta.ranks = static_cast<int>(meta.replicates_per_rank.size());
  if (o.summary) {
    print_summary(all);
  } else {
    print_table(all);
    print_not_evidence(all);
  }
  if (!o.json.empty()) {
    if (is_output_rank()) report::write_claims_json(o.json, meta, all, provenance);
    fmt::print("wrote {}\n", o.json);
  }
  if (!o.junit.empty()) {
    if (is_output_rank()) report::write_junit_records(o.junit, "ngvi verify", all);
    fmt::print("wrote {}\n", o.junit);
  }
  const auto n = report::count_records(all);
  std::string line = fmt::format(
      "summary: {} claim(s), {} record(s): {}/{} claim records hold, {}/{} negative controls broken ({} injected by the "
      "checker, {:.0f}%; the rest re-run the library under a violated hypothesis), {} vacuous (not evidence), {} skipped, "
      "{} error(s)",
      selected.size(), n.records, n.claims_hold, n.claims, n.controls_broken, n.controls, n.controls_injected,
      n.controls > 0 ? 100.0 * static_cast<double>(n.controls_injected) / static_cast<double>(n.controls) : 0.0, n.vacuous,
      n.skipped, n.errors);
  if (!meta.shard.empty()) line += fmt::format(" (shard {} of the selection '{}': ngvi merge joins the shards)", meta.shard, meta.claims);
  {
    // The claims whose every control is injected: no record of theirs shows the library's behaviour
    // change under a violated hypothesis (docs/math.md §8.1).
    std::map<std::string, std::pair<long, long>> by_claim;  // controls, injected
    for (const auto& r : all)
      if (r.kind == report::Kind::kControl && r.verdict != report::Verdict::kSkipped) {
        ++by_claim[r.claim].first;
        by_claim[r.claim].second += r.injected;
      }
    std::string only;
    long count = 0;
    for (const auto& [claim, c] : by_claim)
      if (c.first > 0 && c.first == c.second) {
        only += (count++ ? ", " : "") + claim;
      }
    if (count > 0) fmt::print("claims whose controls are all injected by the checker ({}): {}\n", count, only);
  }
  int status = n.failures > 0 ? 1 : 0;
  // The family-wise false-alarm rate: each stochastic claim record carries its level; the union
  // bound over them bounds the probability that a run fails although every claim is true.
  const double fw = report::suite_level(all);
  long stochastic = 0;
  for (const auto& r : all) stochastic += r.kind == report::Kind::kClaim && std::isfinite(r.level);
  line += fmt::format("; family-wise false-alarm rate <= {:.3g}% (Bonferroni over {} stochastic claim record(s))", 100 * fw,
                      stochastic);
  if (!(fw <= report::kSuiteLevel)) {
    fmt::print(stderr, "ngvi verify: the levels of the stochastic claim records sum to {:.3g}%, above the suite's {:.3g}%\n",
               100 * fw, 100 * report::kSuiteLevel);
    status = 1;
  }
  bool nothing = n.claims_hold + n.controls_broken == 0 && n.failures == 0;
  if (nothing) line += "; nothing checked (no record of evidence)";
  if (!o.baseline.empty()) {
    const auto cmp = report::compare_runs(baseline, all, meta, tol);
    print_changes(cmp);
    line += fmt::format("; baseline {}: {} compared, {} regression(s) ({} missing), {} improvement(s), {} new", o.baseline,
                        cmp.compared, cmp.regressions, cmp.missing, cmp.improvements, cmp.added);
    if (cmp.regressed()) status = 1;
    if (cmp.nothing_compared()) {
      line += "; nothing compared";
      nothing = true;
    }
  }
  if (status == 0 && nothing) status = 3;
  line += status == 0 ? " -> PASS" : status == 3 ? " -> NOTHING CHECKED" : " -> FAIL";
  fmt::print("{}\n", line);
  std::fflush(stdout);
  if (status == 3) fmt::print(stderr, "ngvi verify: {}\n", n.records == 0 ? "the selection produced no record: nothing checked"
                                                         : "nothing compared or checked (see the summary line)");
  return status;
}

}}  // namespace

void add_verify(CLI::App& app, int* status) {
  auto opts = std::make_shared<NGVI_UNITY_ID::VerifyOptions>();
  auto* sub = app.add_subcommand("verify", "Run the claim suite: every claim must hold, every negative control must be broken");
  sub->add_option("--claims", opts->claims, "Comma-separated globs of claim ids to run")->capture_default_str();
  auto* precision = sub->add_option("--precision", opts->precision, "double, mp50 or all (with --algorithm: double)")->capture_default_str();
  sub->add_flag("--quick", opts->quick, "Fast instances only (the default mode)");
  sub->add_flag("--full", opts->full, "The full instance set (default: off, i.e. quick)");
  sub->add_option("--ranks", opts->ranks,
                  "N: split the claims' Monte Carlo replicates across N MPI ranks on this machine; the kit starts mpirun "
                  "itself (as root too) and the records are those of one process (default: one process)")
      ->check(integer_in(1, 4096));
  sub->add_option("--shard", opts->shard,
                  "I/N: run only the I-th of N disjoint parts of the selected claims, balanced by their cost hints (with "
                  "--mutants: their library and mutant runs; with --search: of the search's restarts); the output records the "
                  "shard, and 'ngvi merge' joins the N files (default: the whole selection)");
  sub->add_flag("--summary", opts->summary,
                "Print only the failing records, one line per claim with vacuous or skipped records ('no evidence' when none "
                "holds) and the summary line, instead of every record (default: off)");
  sub->add_option("--json", opts->json, "Write the records to this claims.json file, creating its directory (default: none)")
      ->check(non_empty_path());
  sub->add_option("--junit", opts->junit, "Write JUnit XML, one test case per record (default: none)")->check(non_empty_path());
  sub->add_option("--baseline", opts->baseline,
                  "Compare with an earlier claims.json: exit 1 on a regression (changed verdict, missing record, "
                  "shrunk margin), 3 if nothing is compared (default: none)")
      ->check(non_empty_path());
  sub->add_option("--margin-tolerance", opts->margin_tolerances,
                  "With --baseline: a claim margin may shrink by this fraction of its baseline magnitude; F for every "
                  "unit or UNIT=F for one (eps=F, plain=F), repeatable (default: 0.5)")
      ->allow_extra_args(false);
  sub->add_flag("--allow-meta-mismatch", opts->allow_meta_mismatch,
                "With --baseline: compare even if seed, mode, precisions, claim selection or the implementation "
                "under test differ, naming the differences (default: refuse, exit 2)");
  sub->add_option("--seed", opts->seed, "Base random seed (also NGVI_SEED)")->envname("NGVI_SEED")->capture_default_str()->check(seed_value());
  sub->add_option("--threads", opts->threads, "Threads of the whole run (0 = all cores): the claims run concurrently, and each claim's Monte Carlo "
                  "replicates share its part; the records do not depend on it")
      ->capture_default_str()->check(integer_in(0, 4096));
  sub->add_flag("--list", opts->list, "List the registered claims and exit (default: off)");
  sub->add_option("--variant", opts->variant,
                  "Run the claims against a registered variant of the algorithm (parts swapped: schedule, estimator, "
                  "averager; see --list-variants) instead of the library's (default: the library's)");
  sub->add_option("--mutant", opts->mutant,
                  "Run the claims against one registered mutant (a plausible bug; see --list-variants): the suite must "
                  "FAIL (default: none)");
  sub->add_option("--mutants", opts->mutants,
                  "The kill matrix: run the claims against the library's algorithm and against each mutant named "
                  "('all' or NAME,NAME...); print which records each one flips; with --json write the matrix there; "
                  "exit 1 if a mutant not marked equivalent survives; with --algorithm exec:CMD, the program's kill "
                  "matrix under the protocol's mutations (schedule-off-by-one, batch-scale-m-plus-one, average-uniform, "
                  "average-last; docs/protocol.md) (default: none)");
  sub->add_option("--algorithm", opts->algorithm,
                  "Run the claims against a program: exec:CMD ARGS starts CMD (words split as a shell does, no shell) "
                  "and speaks the line protocol of docs/protocol.md (conjugate-ngd v1) over its stdin/stdout; the claims "
                  "that accept conjugate-ngd run against it, in double (default: the library's algorithm)");
  auto* exec_timeout = sub->add_option("--exec-timeout", opts->exec_timeout,
                                       "With --algorithm: seconds the program has to answer one call before it is killed "
                                       "and the claim writes an error record")
                           ->capture_default_str()
                           ->check(CLI::Range(0.001, 86400.0));
  sub->add_flag("--list-variants", opts->list_variants, "List the registered variants and mutants and exit (default: off)");
  sub->add_option("--search", opts->search,
                  "Worst-case search for one claim (lemma3, lemma10, lemma11, cor1, cor2, thm1): random restarts over "
                  "Bayesian-linear-regression instances, then local refinement, maximising lhs/rhs; writes DIR/search/"
                  "CLAIM.instance.json and CLAIM.json (see docs/cli.md; default: none)");
  sub->add_option("--instance", opts->instance,
                  "Re-run the claim of an instance file written by --search (or by hand, docs/cli.md) on it (default: none)")
      ->check(non_empty_path());
  auto* out = sub->add_option("--out", opts->search_opts.out, "With --search: the directory of its outputs (DIR/search/...)")
                  ->capture_default_str()
                  ->check(non_empty_path());
  auto* budget = sub->add_option("--search-budget", opts->search_opts.budget,
                                 "With --search: evaluations in all (random restarts, then refinement)")
                     ->capture_default_str()
                     ->check(integer_in(2, 1000000));
  auto* restarts = sub->add_option("--search-restarts", opts->search_opts.restarts,
                                   "With --search: random restarts among the evaluations, the rest refine the three best; "
                                   "--shard I/N splits the restarts (default: half the budget)")
                       ->check(integer_in(1, 1000000));
  auto* sigma2 = sub->add_option("--sigma2-source", opts->search_opts.sigma2,
                                 "With --search thm1: the sigma^2 of Theorem 1's bound (lemma3: Lemma 3's derived constant; "
                                 "reachable-max: the exact max of sigma_t^2 over the enumerated tree)")
                     ->capture_default_str();
  sub->callback([opts, status, out, budget, restarts, sigma2, precision, exec_timeout] {
    for (const auto* opt : {out, budget, restarts, sigma2})
      if (opt->count() > 0) opts->search_only_given.push_back(opt->get_name());
    opts->precision_given = precision->count() > 0;
    opts->exec_timeout_given = exec_timeout->count() > 0;
    *status = NGVI_UNITY_ID::run_verify(*opts);
  });
}

}  // namespace ngvi::cli
