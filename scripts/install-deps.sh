#!/usr/bin/env bash
# Installs the Debian packages ngvikit needs, and only those that are missing.
# Usage: scripts/install-deps.sh [test|verify|bench|fuzz]
#   test    build tools and libraries (what `make test` needs)
#   verify  the above, plus what `make verify` needs: the real data sets (Fashion-MNIST, the
#           scikit-learn and statsmodels tables, the manual pages of manpages-dev, R's lme4 (InstEval))
#           and the libraries of its external-implementations table (scikit-learn, gensim, PyTorch,
#           BayesPy)
#   bench   the build packages, plus the Python peers of the comparison scripts in bench/ (numpy and
#           scipy for compare_paquet.py, scikit-learn and gensim for compare_lda.py)
#   fuzz    the build packages, plus clang and its libFuzzer/sanitizer runtimes (make fuzz)
# Quiet and fast when everything is present; runs `apt-get update` only when something is missing.
set -euo pipefail

profile=${1:-test}

# make and git: the Makefile's commands, and the commit recorded in every binary's provenance.
# pybind11, the Python headers, numpy, venv and pytest: the Python package ngvikit, built and tested
# by make test in a venv (scripts/install-python.sh); scipy for its tests' own reference online LDA
# (python/tests/test_svi_lda.py: digamma), written independently of the kit; mpmath for the values a
# Python implementation is handed in mp50 (python/tests/test_lsk_mp50.py).
build_pkgs=(
  g++ cmake make git pkg-config
  libeigen3-dev libboost-dev libmpfr-dev libmpfi-dev libgmp-dev libdivide-dev
  libgtest-dev libgmock-dev googletest librapidcheck-dev libbenchmark-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev zlib1g-dev libssl-dev
  gnuplot-nox python3 libxml2-utils
  libopenmpi-dev openmpi-bin
  pybind11-dev python3-dev python3-numpy python3-scipy python3-mpmath python3-venv python3-pytest python3-wheel
)
verify_pkgs=(
  dataset-fashion-mnist python3-sklearn python3-gensim python3-torch python3-bayespy python3-statsmodels manpages-dev
  r-base-core r-cran-lme4
)
bench_pkgs=(
  python3-numpy python3-scipy python3-sklearn python3-gensim
)
# clang (with libFuzzer and the sanitizers' runtimes: libclang-rt-14-dev) for make fuzz.
fuzz_pkgs=(
  clang libclang-rt-14-dev
)

case "$profile" in
  test) wanted=("${build_pkgs[@]}") ;;
  verify) wanted=("${build_pkgs[@]}" "${verify_pkgs[@]}") ;;
  bench) wanted=("${build_pkgs[@]}" "${bench_pkgs[@]}") ;;
  fuzz) wanted=("${build_pkgs[@]}" "${fuzz_pkgs[@]}") ;;
  *) echo "install-deps.sh: unknown profile '$profile' (expected 'test', 'verify', 'bench' or 'fuzz')" >&2; exit 2 ;;
esac

missing=()
for p in "${wanted[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
    echo "install-deps.sh: missing packages (${missing[*]}) and not root; install them and retry" >&2
    exit 1
  fi
else
  SUDO=
fi
echo "install-deps.sh: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq >/dev/null
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
