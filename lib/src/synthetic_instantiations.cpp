// The synthetic generators that instantiate Eigen's QR (data/synthetic.hpp: random_orthogonal,
// random_spd), compiled once for the in-tree targets, which see only their declarations
// (NGVI_EXTERN_TEMPLATES). The code is the header's, compiled with the same flags.
#define NGVI_DEFINE_SYNTHETIC
#include "ngvi/data/synthetic.hpp"
