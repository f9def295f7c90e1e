#include "ngvi/claims/registry.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

namespace ngvi::claims {

bool RunContext::wants(const std::string& precision) const {
  return std::find(precisions.begin(), precisions.end(), precision) != precisions.end();
}

Registry& Registry::instance() {
  static Registry r;
  return r;
}

void Registry::add(ClaimInfo info) {
  if (find(info.id) != nullptr) throw std::logic_error("ngvi::claims::Registry::add: claim id '" + info.id + "' registered twice");
  claims_.push_back(std::move(info));
  std::sort(claims_.begin(), claims_.end(), [](const ClaimInfo& a, const ClaimInfo& b) { return a.id < b.id; });
}

const ClaimInfo* Registry::find(const std::string& id) const {
  for (const auto& c : claims_)
    if (c.id == id) return &c;
  return nullptr;
}

std::vector<const ClaimInfo*> Registry::match(const std::string& patterns) const {
  std::vector<std::string> globs;
  std::stringstream ss(patterns);
  for (std::string g; std::getline(ss, g, ',');)
    if (!g.empty()) globs.push_back(g);
  std::vector<const ClaimInfo*> out;
  for (const auto& c : claims_)
    for (const auto& g : globs)
      if (fnmatch(g.c_str(), c.id.c_str(), 0) == 0) {
        out.push_back(&c);
        break;
      }
  return out;
}

std::vector<const ClaimInfo*> Registry::select(const std::string& selection) const {
  std::size_t start = 0;
  while (start <= selection.size()) {
    const std::size_t comma = selection.find(',', start);
    const std::string item = selection.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty()) throw std::invalid_argument("'" + selection + "' has an empty item (expected comma-separated ids or globs)");
    if (match(item).empty()) throw std::invalid_argument("'" + item + "' matches no claim");
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return match(selection);
}

std::pair<int, int> Registry::parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  const auto digits = [](const std::string& t) { return !t.empty() && t.size() < 7 && t.find_first_not_of("0123456789") == std::string::npos; };
  if (slash == std::string::npos || !digits(text.substr(0, slash)) || !digits(text.substr(slash + 1)))
    throw std::invalid_argument("'" + text + "' is not of the form I/N (e.g. 2/7)");
  const int i = std::stoi(text.substr(0, slash)), n = std::stoi(text.substr(slash + 1));
  if (i < 1 || i > n) throw std::invalid_argument("'" + text + "' is outside 1 <= I <= N");
  return {i, n};
}

std::vector<const ClaimInfo*> Registry::shard(const std::vector<const ClaimInfo*>& selected, int index, int count, bool full) {
  if (count < 1 || index < 1 || index > count)
    throw std::invalid_argument("shard " + std::to_string(index) + "/" + std::to_string(count) + " is not of the form I/N with 1 <= I <= N");
  if (static_cast<std::size_t>(count) > selected.size())
    throw std::invalid_argument(std::to_string(count) + " shards exceed the " + std::to_string(selected.size()) +
                                " selected claim(s): a shard would be empty");
  const auto cost = [&](std::size_t i) { return std::max(0.01, full ? selected[i]->cost.full : selected[i]->cost.quick); };
  std::vector<std::size_t> order(selected.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return cost(a) > cost(b); });
  std::vector<double> load(static_cast<std::size_t>(count), 0.0);
  std::vector<int> owner(selected.size(), 0);
  for (const std::size_t i : order) {
    const auto least = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
    load[least] += cost(i);
    owner[i] = static_cast<int>(least) + 1;
  }
  std::vector<const ClaimInfo*> out;
  for (std::size_t i = 0; i < selected.size(); ++i)
    if (owner[i] == index) out.push_back(selected[i]);
  return out;
}

bool ClaimInfo::accepts(const std::string& protocol) const {
  return std::find(protocols.begin(), protocols.end(), protocol) != protocols.end();
}

namespace {

ClaimRecord whole_claim_record(const ClaimInfo& claim, const std::string& instance, report::Verdict verdict, std::string note) {
  ClaimRecord r;
  r.claim = claim.id;
  r.instance = instance;
  r.precision = "-";
  r.kind = Kind::kClaim;
  r.verdict = verdict;
  r.lhs = r.rhs = r.margin = std::nan("");
  r.note = std::move(note);
  return r;
}

}  // namespace

std::vector<ClaimRecord> run_claim(const ClaimInfo& claim, const RunContext& ctx) {
  const Variant* v = ctx.variant();
  if (v != nullptr && !v->protocol.empty() && !claim.accepts(v->protocol)) {
    std::string takes;
    for (const auto& p : claim.protocols) takes += (takes.empty() ? "" : ", ") + p;
    return {whole_claim_record(claim, "(not applicable)", report::Verdict::kSkipped,
                               "not applicable: '" + v->name + "' implements the protocol " + v->protocol + "; this claim runs against " +
                                   (takes.empty() ? std::string("the library's algorithm and its variants of parts only") : "the protocols " + takes))};
  }
  try {
    // An implementation that asks for it (a Python object, a child process) gets one trajectory at
    // a time: the claim's replicates run on one thread (their values do not depend on the count).
    // (Read directly, not through conjugate_ngd_for: this is not a claim reading the part.)
    if (const auto* impl = v != nullptr ? v->parts<double>()->conjugate_ngd.get() : nullptr; impl != nullptr && impl->serial && ctx.threads > 1) {
      RunContext one = ctx;
      one.threads = 1;
      return claim.run(one);
    }
    return claim.run(ctx);
  } catch (const std::exception& e) {
    return {whole_claim_record(claim, "(the claim threw)", report::Verdict::kError, e.what())};
  }
}

Registrar::Registrar(ClaimInfo info) { Registry::instance().add(std::move(info)); }

}  // namespace ngvi::claims
