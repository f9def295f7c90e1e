#!/usr/bin/env bash
# Installs ngvikit from the build tree into a temporary prefix, then configures, builds and runs a
# separate project that uses find_package(ngvikit CONFIG), links ngvi::ngvi and ngvi::io, calls a
# loader and writes a claims.json and an HTML report.
set -euo pipefail
build_dir=$1
consumer_src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build_dir" --prefix "$tmp/prefix" >/dev/null
cmake -S "$consumer_src" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
mkdir -p "$tmp/work"
"$tmp/build/consumer" "$tmp/work"
test -s "$tmp/work/index.html"
