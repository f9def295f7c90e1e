#!/usr/bin/env bash
# Installs the Python package ngvikit into a venv (made with --system-site-packages when missing, so
# that Debian's numpy, pandas and pytest are seen); no network beyond Debian's packages.
#
# Usage: scripts/install-python.sh [options] VENV
#   VENV              the venv to install into (created when it does not exist)
#   --python PY       the interpreter the venv is made from (default: /usr/bin/python3 when present,
#                     else python3); it must be the one the package is built for
#   --no-build        do not build (the package directory must hold the compiled module)
#   --package DIR     the built package directory (default: build/release/python/package)
#   --test DIR        afterwards, run pytest on DIR inside the venv
#
# `make python VENV=path` runs this after installing the build packages; `make test` runs it with
# --test (ctest's Python.pytest) in a fresh venv under the build directory.
set -euo pipefail

usage() { sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; }
die() { echo "install-python.sh: $*" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
python=
build=1
package=
tests=
venv=
while [[ $# -gt 0 ]]; do
  case "$1" in
    --python) [[ $# -ge 2 ]] || die "--python needs an interpreter"; python=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --package) [[ $# -ge 2 ]] || die "--package needs a directory"; package=$2; shift 2 ;;
    --test) [[ $# -ge 2 ]] || die "--test needs a directory"; tests=$2; shift 2 ;;
    -h|--help) usage; exit 0 ;;
    -*) die "unknown option '$1' (see --help)" ;;
    *) [[ -z "$venv" ]] || die "one VENV expected, got '$venv' and '$1'"; venv=$1; shift ;;
  esac
done
[[ -n "$venv" ]] || { usage; die "missing argument VENV (the venv to install into)"; }
if [[ -z "$python" ]]; then
  if [[ -x /usr/bin/python3 ]]; then python=/usr/bin/python3; else python=python3; fi
fi
command -v "$python" >/dev/null 2>&1 || die "--python '$python' is not an executable"
package=${package:-$root/build/release/python/package}
# Absolute paths: the import check and the tests run from / (so that no source tree shadows the
# installed package).
venv=$(realpath -m -- "$venv")
package=$(realpath -m -- "$package")

if [[ $build -eq 1 ]]; then
  cmake --preset release -S "$root" -DNGVI_PYTHON="$(command -v "$python")" >/dev/null
  cmake --build --preset release -j "$(nproc 2>/dev/null || echo 2)" --target ngvikit_python
fi
compgen -G "$package/ngvikit/_core*.so" >/dev/null ||
  die "--package '$package' holds no compiled module ngvikit/_core*.so (build the target ngvikit_python)"

if [[ ! -x "$venv/bin/python" ]]; then
  "$python" -m venv --system-site-packages "$venv" || die "cannot create the venv '$venv' with $python (Debian: apt-get install python3-venv)"
fi
# pip's own build of the package (setuptools from the venv, no index, no isolation: nothing is
# downloaded); the package directory is copied first, so the build tree is not written to.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cp -r "$package/." "$stage/"
"$venv/bin/python" -m pip install --quiet --no-index --no-build-isolation --no-deps --disable-pip-version-check "$stage" ||
  die "pip could not install the package from '$package' into '$venv'"
(cd / && "$venv/bin/python" -c 'import ngvikit; print("ngvikit", ngvikit.__version__, "installed in", ngvikit.__file__.rsplit("/", 2)[0])')

if [[ -n "$tests" ]]; then
  [[ -d "$tests" ]] || die "--test '$tests' is not a directory"
  tests=$(cd "$tests" && pwd)
  # -p no:cacheprovider: pytest writes no .pytest_cache into the source tree; --durations: the ten
  # longest tests in the log (the suite is the longest test of make test).
  # One BLAS thread: the tests time nothing, and ctest runs other tests beside them.
  cd / && OPENBLAS_NUM_THREADS=1 NGVIKIT_ROOT="$root" "$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=10 "$tests"
fi
