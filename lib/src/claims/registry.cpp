#include "registry.hpp"

#include <fnmatch.h>

#include <algorithm>
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

Registrar::Registrar(ClaimInfo info) { Registry::instance().add(std::move(info)); }

}  // namespace ngvi::claims
