# Sourced by the install tests: installs ngvikit from the build tree $1 into a temporary prefix and
# configures and builds the separate project $2 against it (find_package(ngvikit CONFIG)). Sets
# $tmp (removed on exit); the consumer's build tree is $tmp/build.
set -euo pipefail
build_dir=$1
consumer_src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
cmake -S "$consumer_src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
