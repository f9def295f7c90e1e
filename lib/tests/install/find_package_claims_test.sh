#!/usr/bin/env bash
# Installs ngvikit from the build tree into a temporary prefix, then configures and builds a separate
# project (consumer_claims) that implements the conjugate-NGD protocol itself and links ngvi::claims,
# and runs it twice: its correct implementation must pass thm1.rate and x.unbiased_iterate (exit 0),
# and the same implementation with its schedule indexed from t = 1 must fail them (exit 1). The
# consumer also includes an installed fixture of the claims (ngvi/claims/blr_common.hpp): its full-batch
# step at γ₀ = 1 must land on each quick instance's posterior within the derived rounding budget.
source "$(dirname "$0")/build_consumer.sh" "$1" "$2"
echo "== the correct implementation"
"$tmp/build/claims_consumer" 0
echo "== the schedule indexed from t = 1 (must fail)"
status=0
"$tmp/build/claims_consumer" 1 || status=$?
if [ "$status" -ne 1 ]; then
  echo "the implementation with gamma_t = 2/(t+3) was not failed by the claims (exit $status, expected 1)" >&2
  exit 1
fi
