// Uses the installed headers and libraries as a downstream project would, compiled with the
// consumer's own flags (no -march of its own):
//  1. ngvi::ngvi (header-only): KL between two Gaussians against the d = 1 closed form;
//  2. ngvi::io (compiled): a CSV loader call (the table's Eigen storage is allocated inside the
//     library and freed here, which crashed when the library and the consumer disagreed on
//     Eigen's alignment), then a claims.json and an HTML report written through the library.
// Usage: consumer WORKDIR
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>

#include "ngvi/data/file_digest.hpp"
#include "ngvi/data/loaders.hpp"
#include "ngvi/expfam.hpp"
#include "ngvi/report/html_report.hpp"
#include "ngvi/report/record.hpp"

namespace {
int fail(const char* what) {
  std::fprintf(stderr, "consumer: %s\n", what);
  return 1;
}
}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return fail("usage: consumer WORKDIR");
  const std::string dir = argv[1];
  constexpr double eps = std::numeric_limits<double>::epsilon();

  // 1. Header-only core.
  ngvi::GaussianMoments<double> q{ngvi::Vec<double>::Constant(1, 1.0), ngvi::Mat<double>::Constant(1, 1, 2.0)};
  ngvi::GaussianMoments<double> p{ngvi::Vec<double>::Constant(1, 0.0), ngvi::Mat<double>::Constant(1, 1, 1.0)};
  const double kl = ngvi::kl_gaussian(q, p);
  const double kl_ref = 0.5 * (2.0 + 1.0 - 1.0 - std::log(2.0));
  std::printf("KL = %.17g (closed form %.17g)\n", kl, kl_ref);
  // A handful of rounded operations on O(1) values: 8 eps relative.
  if (!(std::abs(kl - kl_ref) <= 8 * eps * kl_ref)) return fail("KL differs from the closed form");

  // 2. Loader: y = 2 a - b + 3 on integer rows, so every value is exact in double.
  const std::string csv = dir + "/data.csv";
  {
    std::ofstream out(csv);
    out << "a,b,y\n";
    for (int i = 0; i < 50; ++i) out << i << "," << (i * 7) % 11 << "," << 2 * i - (i * 7) % 11 + 3 << "\n";
  }
  const ngvi::data::Table table = ngvi::data::read_csv(csv);
  ngvi::Dataset<double> data = ngvi::data::table_to_dataset(table, "y");
  if (data.n() != 50 || data.d() != 2) return fail("the loaded table does not have 50 rows and 2 features");
  double worst = 0;
  for (ngvi::Index i = 0; i < data.n(); ++i) worst = std::max(worst, std::abs(data.y(i) - (2 * data.X(i, 0) - data.X(i, 1) + 3)));
  if (!(worst == 0)) return fail("the loaded values differ from the ones written");
  if (ngvi::data::file_sha256(csv).size() != 64) return fail("file_sha256 did not give 64 hex digits");

  // 3. Records and report.
  ngvi::report::ClaimRecord r;
  r.claim = "consumer.loader_exact";
  r.instance = "n50-d2";
  r.precision = "double";
  r.kind = ngvi::report::Kind::kClaim;
  r.lhs = worst;
  r.rhs = eps;
  r.margin = r.rhs - r.lhs;
  r.verdict = ngvi::report::verdict_from_margin(r.margin);
  r.unit = "";
  ngvi::report::RunMeta meta;
  meta.commit = "consumer";
  meta.compiler = ngvi::report::compiler_id();
  meta.mode = "quick";
  meta.precisions = {"double"};
  ngvi::report::write_claims_json(dir + "/claims.json", meta, {r});
  ngvi::report::ReportOptions opt;
  opt.dir = dir;
  const auto res = ngvi::report::write_report(opt);
  std::ifstream html(res.index_path);
  std::stringstream ss;
  ss << html.rdbuf();
  if (ss.str().find("consumer.loader_exact") == std::string::npos) return fail("the report does not show the record");
  std::printf("loader, claims.json and report OK: %s\n", res.index_path.c_str());
  return 0;
}
