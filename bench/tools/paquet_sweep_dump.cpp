// ngvi_paquet_sweep_dump: one sweep of Paquet's Algorithm 1 written out for bench/compare_paquet.py,
// which repeats the sweep in numpy from the same inputs and checks that it gives the same parameters.
//
// Usage: ngvi_paquet_sweep_dump CSV OUTDIR K C OPTION RHO SEED
//   CSV     (user, item, rating) triples (read as `ngvi run paquet-mf --data` reads them, not centred)
//   C       at most C children per node (0 = all); OPTION a or b; RHO the step of the sweep
//   SEED    the initial point (docs/systems.md B.7, stream (SEED, 1000)) and the sample (stream (SEED, 1))
// Writes OUTDIR/{user,item}.i32 and value.f64 (the ratings, users and items numbered from 0 in order
// of first appearance), {u0,v0,u1,v1}.f64 (λ before and after the sweep: column j = (precision,
// precision·mean) of node j, nodes m·K + k), start.i64 and picks.i32 (the sample: node j's children
// are picks[start[j] .. start[j+1]), positions in the node's row of the view by user or by item, users'
// nodes first), and meta.txt (users items ratings K C option rho accesses). Little-endian raw arrays.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "../paquet_common.hpp"

namespace {

template <class T>
void write_raw(const std::string& path, const T* p, std::size_t n) {
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(p), static_cast<std::streamsize>(n * sizeof(T)));
  if (!f) throw std::runtime_error("cannot write " + path);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ngvi;
  if (argc != 8) {
    std::cerr << "usage: ngvi_paquet_sweep_dump CSV OUTDIR K C OPTION RHO SEED\n";
    return 2;
  }
  try {
    const std::string csv = argv[1], out = argv[2], opt = argv[5];
    const long K = std::stol(argv[3]), C = std::stol(argv[4]);
    const double rho = std::stod(argv[6]);
    const auto seed = static_cast<std::uint64_t>(std::stoull(argv[7]));
    if (K < 1) throw std::invalid_argument("K must be >= 1");
    if (C < 0) throw std::invalid_argument("C must be >= 0");
    if (opt != "a" && opt != "b") throw std::invalid_argument("OPTION must be a or b");
    if (!(rho > 0 && rho <= 1)) throw std::invalid_argument("RHO must lie in (0, 1]");
    const RatingMatrix d = data::read_ratings_csv(csv).ratings;
    PaquetOptions o;
    o.children = C;
    o.option = opt == "a" ? PaquetOption::kSequential : PaquetOption::kSimultaneous;
    o.check_elbo = false;
    const MfNatural<double> q0 = bench::b7_init(d, K, seed);
    PaquetStepper<double> s(d, o, q0);
    PaquetSampler sampler(seed, 1);
    PaquetSample dir;
    if (!bench::paquet_sweep(s, sampler, dir, 1, rho).ok) throw std::runtime_error("the sweep diverged");
    write_raw(out + "/user.i32", d.user.data(), d.user.size());
    write_raw(out + "/item.i32", d.item.data(), d.item.size());
    write_raw(out + "/value.f64", d.value.data(), d.value.size());
    write_raw(out + "/u0.f64", q0.u.data(), static_cast<std::size_t>(q0.u.size()));
    write_raw(out + "/v0.f64", q0.v.data(), static_cast<std::size_t>(q0.v.size()));
    write_raw(out + "/u1.f64", s.point().u.data(), static_cast<std::size_t>(s.point().u.size()));
    write_raw(out + "/v1.f64", s.point().v.data(), static_cast<std::size_t>(s.point().v.size()));
    write_raw(out + "/start.i64", dir.start.data(), dir.start.size());
    write_raw(out + "/picks.i32", dir.picks.data(), dir.picks.size());
    std::ofstream m(out + "/meta.txt");
    char rho_s[40];
    std::snprintf(rho_s, sizeof rho_s, "%.17g", rho);
    m << d.users << ' ' << d.items << ' ' << d.size() << ' ' << K << ' ' << C << ' ' << opt << ' ' << rho_s << ' ' << s.accesses() << '\n';
    if (!m) throw std::runtime_error("cannot write " + out + "/meta.txt");
  } catch (const std::exception& e) {
    std::cerr << "ngvi_paquet_sweep_dump: " << e.what() << '\n';
    return 1;
  }
  return 0;
}
