#!/usr/bin/env bash
# Installs ngvikit from the build tree into a temporary prefix, then configures, builds and runs a
# separate project that uses find_package(ngvikit CONFIG) and links ngvi::ngvi.
source "$(dirname "$0")/build_consumer.sh" "$1" "$2"
"$tmp/build/consumer"
