// ngvi verify --search CLAIM / --instance FILE (docs/cli.md "Worst-case search").
#include "search_cmd.hpp"

#include <fmt/core.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <tuple>

#include "cli_common.hpp"
#include "ngvi/claims/registry.hpp"
#include "ngvi/report/record.hpp"

namespace ngvi::cli {
using claims::search::Evaluation;
using claims::search::Generator;
using claims::search::SearchInstance;
using nlohmann::json;

namespace { namespace NGVI_UNITY_ID {
std::string num(double x) { return std::isnan(x) ? "nan" : fmt::format("{:.6g}", x); }

json matrix_json(const Mat<double>& a) {
  json j = json::array();
  for (Index i = 0; i < a.rows(); ++i) {
    json row = json::array();
    for (Index k = 0; k < a.cols(); ++k) row.push_back(a(i, k));
    j.push_back(row);
  }
  return j;
}

json vector_json(const Vec<double>& v) {
  json j = json::array();
  for (Index i = 0; i < v.size(); ++i) j.push_back(v(i));
  return j;
}

json instance_json(const SearchInstance& s, const Evaluation& e) {
  json j;
  j["schema_version"] = claims::search::kInstanceSchema;
  j["claim"] = s.claim;
  j["n"] = s.blr.data.n();
  j["d"] = s.blr.data.d();
  j["M"] = s.blr.batch;
  j["T"] = s.steps;
  j["noise_var"] = s.blr.noise_var;
  j["schedule"] = s.schedule;
  j["seed"] = s.seed;
  j["sigma2_source"] = s.sigma2_source;
  j["X"] = matrix_json(s.blr.data.X);
  j["y"] = vector_json(s.blr.data.y);
  j["prior_cov"] = matrix_json(s.blr.prior_cov);
  j["prior_mean"] = vector_json(s.prior_mean);
  if (s.generator) {
    const Generator& g = *s.generator;
    j["generator"] = {{"n", g.n},         {"d", g.d},           {"seed", g.seed},
                      {"kappa", g.kappa}, {"noise_sd", g.noise_sd}, {"x_scale", g.x_scale},
                      {"y_scale", g.y_scale}, {"prior_kappa", g.prior_kappa}, {"prior_scale", g.prior_scale}};
  }
  j["expected"] = {{"tightness", e.tightness}, {"lhs", e.lhs}, {"rhs", e.rhs}, {"at", e.at}};
  return j;
}

// Path of a search output inside DIR: DIR/search/<stem><suffix>; the stem is one of the fixed short
// claim names (and for thm1 a registered σ² source name, letters, digits and '-' only), so nothing is
// written outside DIR.
std::string output_path(const std::string& dir, const std::string& claim, const std::string& suffix) {
  return (std::filesystem::path(dir) / "search" / (claim + suffix)).string();
}

void write_json(const std::string& path, const json& j) {
  std::ofstream out(path);
  if (!out) throw std::runtime_error("cannot write '" + path + "'");
  out << j.dump(2) << '\n';
  if (!out) throw std::runtime_error("error while writing '" + path + "'");
}

}}  // namespace

SearchInstance read_instance_file(const std::string& path, double* expected_tightness) {
  try {
    return claims::search::read_instance_file(path, expected_tightness);
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
}

std::vector<report::ClaimRecord> run_instance_command(const std::string& path, std::string* summary) {
  double expected = std::nan("");
  const SearchInstance s = read_instance_file(path, &expected);
  const auto& claim = *claims::search::find_searched_claim(s.claim);
  const auto start = std::chrono::steady_clock::now();
  const Evaluation e = claim.evaluate(s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<report::ClaimRecord> out{claims::search::search_record(claim, s, e, s.blr.name, secs)};
  if (summary != nullptr)
    *summary = fmt::format("instance {}: claim {} ({}): tightness {} (lhs {}, bound {}){}", path, claim.name, claim.id, NGVI_UNITY_ID::num(e.tightness),
                           NGVI_UNITY_ID::num(e.lhs), NGVI_UNITY_ID::num(e.rhs),
                           std::isnan(expected) ? std::string()
                                                : fmt::format("; the file's expected tightness {} ({})", NGVI_UNITY_ID::num(expected),
                                                              e.tightness == expected ? "reproduced exactly" : "DIFFERS"));
  return out;
}

namespace { namespace NGVI_UNITY_ID {
const claims::search::SearchedClaim& searched_claim(const SearchCliOptions& o) {
  const auto* claim = claims::search::find_searched_claim(o.claim);
  if (claim == nullptr)
    throw UsageError("--search '" + o.claim + "' is not a searched claim (one of " + claims::search::searched_claim_names() + ")");
  if (o.out.empty()) throw UsageError("--out needs a directory name (got an empty path)");
  if (claims::search::find_sigma2_source(o.sigma2) == nullptr)
    throw UsageError("--sigma2-source '" + o.sigma2 + "' is none of " + claims::search::sigma2_source_names());
  return *claim;
}

claims::search::SearchOptions search_options(const SearchCliOptions& o) {
  claims::search::SearchOptions so;
  so.budget = o.budget;
  so.restarts = o.restarts;
  so.seed = o.seed;
  so.sigma2_source = o.sigma2;
  try {
    (void)claims::search::search_restarts(so);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--search-restarts: ") + e.what());
  }
  return so;
}

std::string make_search_dir(const std::string& out) {
  const std::string dir = (std::filesystem::path(out) / "search").string();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw std::runtime_error("cannot create the directory '" + dir + "': " + ec.message());
  return dir;
}

// thm1 with another σ² than Lemma 3's gets its own files, thm1-SOURCE.*.
std::string stem_of(const claims::search::SearchedClaim& claim, const std::string& sigma2) {
  return claim.name == "thm1" && sigma2 != "lemma3" ? claim.name + "-" + sigma2 : claim.name;
}

// Writes the summary and the worst instance of a finished search, prints its line; the exit status.
int write_search_result(const claims::search::SearchedClaim& claim, const SearchCliOptions& o, const claims::search::SearchResult& res,
                        double secs) {
  const std::string stem = stem_of(claim, o.sigma2);
  const std::string inst_path = output_path(o.out, stem, ".instance.json");
  const std::string sum_path = output_path(o.out, stem, ".json");
  const bool found = res.evaluations > res.unevaluable && res.worst.blr.data.n() > 0;
  if (found) write_json(inst_path, instance_json(res.worst, res.eval));
  const bool holds = found && res.eval.holds();
  json s;
  s["schema_version"] = claims::search::kInstanceSchema;
  s["claim"] = claim.name;
  s["id"] = claim.id;
  s["bound"] = claim.bound;
  s["worst_tightness"] = found ? json(res.eval.tightness) : json("nan");
  s["lhs"] = found ? json(res.eval.lhs) : json("nan");
  s["rhs"] = found ? json(res.eval.rhs) : json("nan");
  s["allowance"] = res.eval.allowance;
  s["holds"] = holds;
  s["exact"] = res.eval.exact;
  s["at"] = res.eval.at;
  s["where"] = res.where;
  s["evaluations"] = res.evaluations;
  s["restarts"] = res.restarts;
  s["unevaluable"] = res.unevaluable;
  s["budget"] = o.budget;
  s["seed"] = o.seed;
  s["sigma2_source"] = claim.name == "thm1" ? o.sigma2 : "";
  s["instance_file"] = found ? stem + ".instance.json" : "";
  s["note"] = res.eval.note;
  s["seconds"] = secs;
  s["commit"] = git_commit();
  s["command"] = command_line();
  write_json(sum_path, s);
  fmt::print("search {}: worst tightness {} (lhs {}, bound {}; holds iff <= 1 + {}) -> {}; found at {}; {} evaluations ({} restarts, "
             "{} unevaluable), {:.1f} s; wrote {} and {}\n",
             claim.name, num(res.eval.tightness), num(res.eval.lhs), num(res.eval.rhs), num(res.eval.allowance),
             !found ? "NOTHING EVALUATED" : holds ? "holds" : "BROKEN (a finding)", res.where, res.evaluations, res.restarts,
             res.unevaluable, secs, found ? inst_path : std::string("(no instance)"), sum_path);
  if (!found) return 3;
  return holds ? 0 : 1;
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// A shard of a search: its restarts' scores, in DIR/search/<stem>.part-I-of-N.json.
int run_search_shard(const claims::search::SearchedClaim& claim, const SearchCliOptions& o, const claims::search::SearchOptions& so) {
  int index = 0, count = 0;
  try {
    std::tie(index, count) = claims::Registry::parse_shard(o.shard);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--shard ") + e.what());
  }
  const long restarts = claims::search::search_restarts(so);
  if (count > restarts)
    throw UsageError(fmt::format("--shard {}: {} shards exceed the search's {} restart(s): a shard would be empty", o.shard, count, restarts));
  make_search_dir(o.out);
  const auto start = std::chrono::steady_clock::now();
  StatusLine feedback("ngvi verify --search " + claim.name + " --shard " + o.shard, (restarts - index + count) / count);
  const auto sc = claims::search::run_restarts(claim, so, index, count, [&](long k) { feedback.begin(k, "restart"); });
  feedback.finish();
  json p;
  p["schema_version"] = claims::search::kInstanceSchema;
  p["kind"] = kSearchPartKind;
  p["claim"] = claim.name;
  p["sigma2_source"] = claim.name == "thm1" ? o.sigma2 : "";
  p["budget"] = o.budget;
  p["restarts"] = restarts;
  p["seed"] = o.seed;
  p["shard"] = fmt::format("{}/{}", index, count);
  p["commit"] = git_commit();
  p["compiler"] = report::compiler_id();
  json scores = json::array();
  long done = 0;
  double worst = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < sc.score.size(); ++k) {
    if (std::isnan(sc.score[k])) continue;
    ++done;
    worst = std::max(worst, sc.score[k]);
    // -inf (unevaluable) as null: JSON has no infinities.
    scores.push_back({{"restart", k + 1}, {"tightness", std::isinf(sc.score[k]) ? json(nullptr) : json(sc.score[k])}});
  }
  p["scores"] = scores;
  p["unevaluable"] = sc.unevaluable;
  const double secs = seconds_since(start);
  p["seconds"] = secs;
  p["command"] = command_line();
  const std::string path = output_path(o.out, stem_of(claim, o.sigma2), fmt::format(".part-{}-of-{}.json", index, count));
  write_json(path, p);
  fmt::print("search {} shard {}: {} of {} restart(s) ({} unevaluable), worst tightness among them {}, {:.1f} s; wrote {} (ngvi merge "
             "joins the {} parts and refines)\n",
             claim.name, o.shard, done, restarts, sc.unevaluable, num(worst), secs, path, count);
  return 0;
}
}}  // namespace

int run_search_command(const SearchCliOptions& o) {
  const auto& claim = NGVI_UNITY_ID::searched_claim(o);
  const auto so = NGVI_UNITY_ID::search_options(o);
  if (!o.shard.empty()) return NGVI_UNITY_ID::run_search_shard(claim, o, so);
  NGVI_UNITY_ID::make_search_dir(o.out);
  const auto start = std::chrono::steady_clock::now();
  StatusLine feedback("ngvi verify --search " + claim.name, o.budget);
  const auto res = claims::search::run_search(claim, so, [&](long k) { feedback.begin(k, "evaluation"); });
  feedback.finish();
  return NGVI_UNITY_ID::write_search_result(claim, o, res, NGVI_UNITY_ID::seconds_since(start));
}

namespace { namespace NGVI_UNITY_ID {
// A part's integer field: a JSON integer in [lo, hi] (get<long>() of a float or of a number beyond
// long's range is a plain cast, undefined behaviour), else a usage error naming the file and field.
long part_integer(const json& v, const std::string& path, const std::string& field, long lo, long hi) {
  if (!v.is_number_integer() || (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)) ||
      v.get<std::int64_t>() < lo || v.get<std::int64_t>() > hi)
    throw UsageError(fmt::format("'{}': field '{}' must be an integer in [{}, {}] (got {})", path, field, lo, hi, v.dump()));
  return static_cast<long>(v.get<std::int64_t>());
}
}}  // namespace

int run_search_merge(const std::vector<std::string>& paths, const std::string& out) {
  if (out.empty()) throw UsageError("--out DIR is required to merge the parts of a search (it writes DIR/search/...)");
  struct Part {
    std::string path;
    json j;
    int index = 0, count = 0;
  };
  std::vector<Part> parts;
  for (const auto& path : paths) {
    Part p{path, {}, 0, 0};
    std::ifstream in(path);
    if (!in) throw UsageError("'" + path + "' cannot be opened");
    p.j = json::parse(in, nullptr, false);
    if (p.j.is_discarded() || !p.j.is_object()) throw UsageError("'" + path + "' is not a JSON object");
    if (!(p.j.contains("kind") && p.j["kind"] == kSearchPartKind))
      throw UsageError("'" + path + "' is not a part of a sharded search (write the parts with ngvi verify --search CLAIM --shard I/N)");
    for (const char* f : {"claim", "sigma2_source", "budget", "restarts", "seed", "shard", "commit", "compiler", "scores", "unevaluable", "seconds"})
      if (!p.j.contains(f)) throw UsageError("'" + path + "': field '" + f + "' is missing");
    try {
      std::tie(p.index, p.count) = claims::Registry::parse_shard(p.j["shard"].get<std::string>());
    } catch (const std::exception& e) {
      throw UsageError("'" + path + "' has a malformed shard: " + e.what());
    }
    parts.push_back(std::move(p));
  }
  const Part& first = parts.front();
  std::map<int, const Part*> by_index;
  for (const auto& p : parts) {
    std::string diff;
    for (const char* f : {"claim", "sigma2_source", "budget", "restarts", "seed", "commit", "compiler"})
      if (p.j[f] != first.j[f]) diff += fmt::format("{}{} {} vs {}", diff.empty() ? "" : "; ", f, first.j[f].dump(), p.j[f].dump());
    if (p.count != first.count) diff += fmt::format("{}shard count N = {} vs {}", diff.empty() ? "" : "; ", first.count, p.count);
    if (!diff.empty()) throw UsageError("'" + p.path + "' is not a part of the search of '" + first.path + "': " + diff);
    if (const auto it = by_index.find(p.index); it != by_index.end())
      throw UsageError("shard " + p.j["shard"].get<std::string>() + " given twice ('" + it->second->path + "' and '" + p.path + "')");
    by_index[p.index] = &p;
  }
  std::string missing;
  for (int i = 1; i <= first.count; ++i)
    if (!by_index.count(i)) missing += (missing.empty() ? "" : ", ") + std::to_string(i) + "/" + std::to_string(first.count);
  if (!missing.empty()) throw UsageError("shard(s) " + missing + " missing");

  SearchCliOptions o;
  try {
    o.claim = first.j["claim"].get<std::string>();
    o.sigma2 = first.j["sigma2_source"].get<std::string>();
    if (o.sigma2.empty()) o.sigma2 = "lemma3";
    o.budget = NGVI_UNITY_ID::part_integer(first.j["budget"], first.path, "budget", 2, 1000000);
    o.restarts = NGVI_UNITY_ID::part_integer(first.j["restarts"], first.path, "restarts", 1, 1000000);
    if (!first.j["seed"].is_number_unsigned() && !(first.j["seed"].is_number_integer() && first.j["seed"].get<std::int64_t>() >= 0))
      throw UsageError("'" + first.path + "': field 'seed' must be an integer in [0, 2^64 - 1]");
    o.seed = first.j["seed"].get<std::uint64_t>();
  } catch (const std::exception& e) {
    throw UsageError("'" + first.path + "': " + e.what());
  }
  o.out = out;
  const auto& claim = NGVI_UNITY_ID::searched_claim(o);
  const auto so = NGVI_UNITY_ID::search_options(o);
  // Every restart scored by exactly its shard (restart k in shard k mod N + 1), as the part says.
  claims::search::RestartScores sc;
  sc.score.assign(static_cast<std::size_t>(claims::search::search_restarts(so)), std::numeric_limits<double>::quiet_NaN());
  double secs = 0;
  for (const auto& [i, p] : by_index) {
    try {
      sc.unevaluable += NGVI_UNITY_ID::part_integer(p->j["unevaluable"], p->path, "unevaluable", 0, 1000000);
      secs += p->j["seconds"].get<double>();
      for (const auto& e : p->j["scores"]) {
        const long k = NGVI_UNITY_ID::part_integer(e.at("restart"), p->path, "scores[].restart", 1, 1000000);
        if (k < 1 || k > static_cast<long>(sc.score.size()) || (k - 1) % p->count + 1 != i)
          throw UsageError(fmt::format("'{}': restart {} is not in its shard {}/{}", p->path, k, i, p->count));
        if (!std::isnan(sc.score[static_cast<std::size_t>(k - 1)]))
          throw UsageError(fmt::format("'{}': restart {} is given twice", p->path, k));
        const json& t = e.at("tightness");
        if (!t.is_null() && !t.is_number()) throw UsageError(fmt::format("'{}': restart {}'s tightness is not a number or null", p->path, k));
        const double v = t.is_null() ? -std::numeric_limits<double>::infinity() : t.get<double>();
        if (std::isnan(v) || v == std::numeric_limits<double>::infinity())
          throw UsageError(fmt::format("'{}': restart {}'s tightness is not finite", p->path, k));
        sc.score[static_cast<std::size_t>(k - 1)] = v;
      }
    } catch (const nlohmann::json::exception& e) {
      throw UsageError("'" + p->path + "' is malformed: " + e.what());
    }
  }
  for (std::size_t k = 0; k < sc.score.size(); ++k)
    if (std::isnan(sc.score[k]))
      throw UsageError(fmt::format("restart {} is in none of the parts (shard {}/{} lacks it)", k + 1, k % first.count + 1, first.count));
  NGVI_UNITY_ID::make_search_dir(out);
  const auto start = std::chrono::steady_clock::now();
  StatusLine feedback("ngvi merge (refining the search of " + claim.name + ")", o.budget);
  const auto res = claims::search::refine_search(claim, so, sc, [&](long k) { feedback.begin(k, "evaluation"); });
  feedback.finish();
  return NGVI_UNITY_ID::write_search_result(claim, o, res, secs + NGVI_UNITY_ID::seconds_since(start));
}

}  // namespace ngvi::cli
