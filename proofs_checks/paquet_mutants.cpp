// DESCRIPTION
// The mutants of Paquet's sweep, each a variant that replaces exactly one of the sweep's parts
// (optim/steppers/paquet_svb.hpp, PaquetParts) by a plausible bug, filed under kPartSystemPaquet
// for double and mp50 and registered in the kit's variant registry, so that `ngvi verify --mutants`
// puts them in the kill matrix beside the NGD and SVI mutants:
//   paquet-drop-scale         scale: 1 in place of N_i/|C_i| (N_i/|D_i|);
//   paquet-alg2-scale-over-sample  global_scale: Algorithm 2's N_i/|D| in place of N_i/|D_i| (the
//                             printed algorithm's "C" read as the global sample's size, C_global);
//   paquet-rho-delay-dropped  schedule: ρ_t = (t + 1)^(−κ) in place of (t + 1 + τ)^(−κ) (the delay τ
//                             that makes the first step ρ₁ left out: every run starts at ρ = 1);
//   paquet-b-reads-updated    reads: the updated values under option (b) too (secretly option (a));
//   paquet-no-variance        precision: Σ_p E[v]², Var_q[v] left out of eq. (7)'s precision term;
//   paquet-self-in-coparents  coparents: every k', k' = k included, in eq. (7)'s co-parent sum.
// Their NGD parts are empty (the NGD claims run the library's algorithm under them); the paquet.*
// claims read the parts through paquet_common.hpp's parts_for and run the update under test with them.
#include "paquet_common.hpp"

namespace ngvi::claims::paquet {
namespace { namespace NGVI_UNITY_ID {

template <class Scalar>
PaquetParts<Scalar> drop_scale() {
  PaquetParts<Scalar> p;
  p.scale = [](Index, Index) { return Scalar(1); };
  return p;
}

template <class Scalar>
PaquetParts<Scalar> alg2_scale_over_sample() {
  PaquetParts<Scalar> p;
  p.global_scale = [](Index degree, Index, Index sample) { return Scalar(Scalar(degree) / Scalar(sample)); };
  return p;
}

template <class Scalar>
PaquetParts<Scalar> rho_delay_dropped() {
  PaquetParts<Scalar> p;
  p.schedule = [](const StepSchedule<Scalar>& lib) {
    if (lib.kind() != StepSchedule<Scalar>::Kind::kPolynomial) return lib;
    return StepSchedule<Scalar>::polynomial(lib.kappa(), Scalar(0), lib.scale());
  };
  return p;
}

template <class Scalar>
PaquetParts<Scalar> b_reads_updated() {
  PaquetParts<Scalar> p;
  p.reads = [](PaquetOption) { return PaquetReads::kUpdated; };
  return p;
}

template <class Scalar>
PaquetParts<Scalar> no_variance() {
  PaquetParts<Scalar> p;
  p.precision = [](const PaquetNode<Scalar>& n) {
    Scalar sp(0);
    for (Index q = 0; q < n.npicks; ++q) {
      const Scalar& mv = n.mu_other[n.other_row(q) * n.K + n.k];
      sp += Scalar(mv * mv);
    }
    return sp;
  };
  return p;
}

template <class Scalar>
PaquetParts<Scalar> self_in_coparents() {
  PaquetParts<Scalar> p;
  p.coparents = [](Index, Index K, std::vector<Index>& out) {
    for (Index kk = 0; kk < K; ++kk) out.push_back(kk);
  };
  return p;
}

/// Registers the mutant variant `name` whose Paquet parts are make_d() (double) and make_m() (mp50).
template <class MakeD, class MakeM>
void add_mutant(const char* name, const char* description, MakeD make_d, MakeM make_m) {
  VariantRegistry::instance().add(Variant::of_system(name, description, /*mutant=*/true, kPartSystemPaquet, make_d(), make_m()));
}

bool register_all() {
  add_mutant("paquet-drop-scale", "the factor N_i/C dropped from lambda_temp", drop_scale<double>, drop_scale<mp50>);
  add_mutant("paquet-alg2-scale-over-sample", "Algorithm 2's factor N_i/|D| (the global sample's size) in place of N_i/|D_i|",
             alg2_scale_over_sample<double>, alg2_scale_over_sample<mp50>);
  add_mutant("paquet-rho-delay-dropped", "the schedule's delay tau left out: rho_t = (t+1)^-kappa, every run starts at rho = 1",
             rho_delay_dropped<double>, rho_delay_dropped<mp50>);
  add_mutant("paquet-b-reads-updated", "option (b) reads values updated earlier in the sweep (secretly option (a))",
             b_reads_updated<double>, b_reads_updated<mp50>);
  add_mutant("paquet-no-variance", "Var_q[v] left out of the precision term of eq. (7)", no_variance<double>,
             no_variance<mp50>);
  add_mutant("paquet-self-in-coparents", "co-parent sum of eq. (7) includes k' = k", self_in_coparents<double>,
             self_in_coparents<mp50>);
  return true;
}

[[maybe_unused]] const bool kRegistered = register_all();

}}  // namespace
}  // namespace ngvi::claims::paquet
