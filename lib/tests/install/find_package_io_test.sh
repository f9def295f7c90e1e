#!/usr/bin/env bash
# Installs ngvikit from the build tree into a temporary prefix, then configures, builds and runs a
# separate project that uses find_package(ngvikit CONFIG), links ngvi::ngvi and ngvi::io, calls a
# loader and writes a claims.json and an HTML report.
source "$(dirname "$0")/build_consumer.sh" "$1" "$2"
mkdir -p "$tmp/work"
"$tmp/build/consumer" "$tmp/work"
test -s "$tmp/work/index.html"
