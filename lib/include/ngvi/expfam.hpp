#pragma once
/// @file
/// Convenience header: the whole Gaussian exponential-family core.
#include "ngvi/expfam/bregman.hpp"
#include "ngvi/expfam/entropy.hpp"
#include "ngvi/expfam/fisher.hpp"
#include "ngvi/expfam/gaussian_maps.hpp"
#include "ngvi/expfam/gaussian_params.hpp"
#include "ngvi/expfam/kl.hpp"
#include "ngvi/expfam/log_partition.hpp"
