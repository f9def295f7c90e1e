// Explicit instantiation definitions of online LDA's model and evaluation for Scalar = double
// (models/lda.hpp), compiled once, with the library's flags, for every in-tree target; the headers
// declare them extern under NGVI_EXTERN_TEMPLATES (see hot_loop_instantiations_double.cpp).
#include "ngvi/models/lda.hpp"

namespace ngvi::lda {

// With the model's own ψ, so that a variant's piece computing the library's map (the library's own
// expected_log_topics) gives the model's E-step the same table to the bit.
template Topics<double> expected_log_topics<double>(const Mat<double>&);
template class LdaModel<double>;
template double lda_bound<double>(const Corpus&, std::span<const long>, const Mat<double>&, const Mat<double>&, const double&, const double&,
                                  const double&);
template double log_perplexity<double>(const Corpus&, const Mat<double>&, LdaOptions<double>, const kernels::ExecutionContext&, bool);
template double completion_perplexity<double>(const Corpus&, const Mat<double>&, LdaOptions<double>, const kernels::ExecutionContext&);

}  // namespace ngvi::lda
