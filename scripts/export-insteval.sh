#!/usr/bin/env bash
# Exports the InstEval table of the Debian package r-cran-lme4 (73,421 lecture ratings 1-5 by 2,972
# students of 1,128 lecturers) once to a CSV of (user, item, rating) triples and caches it.
# Usage: scripts/export-insteval.sh [OUT.csv]
#   OUT.csv defaults to ${NGVI_DATA_CACHE:-$HOME/.cache/ngvikit}/insteval.csv; an existing file is kept.
# Columns: user = student s, item = lecturer d (the factor levels' labels), rating = y.
# Needs Rscript and r-cran-lme4 (scripts/install-deps.sh verify).
set -euo pipefail
out=${1:-${NGVI_DATA_CACHE:-$HOME/.cache/ngvikit}/insteval.csv}
if [[ -s "$out" ]]; then echo "$out"; exit 0; fi
command -v Rscript >/dev/null 2>&1 || { echo "export-insteval.sh: Rscript not found (install r-cran-lme4)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
tmp="$out.tmp.$$"
trap 'rm -f "$tmp"' EXIT
Rscript --vanilla -e '
  suppressPackageStartupMessages(library(lme4))
  args <- commandArgs(trailingOnly = TRUE)
  d <- data.frame(user = as.character(InstEval$s), item = as.character(InstEval$d), rating = InstEval$y)
  write.csv(d, args[1], row.names = FALSE, quote = FALSE)
' "$tmp"
rows=$(($(wc -l < "$tmp") - 1))
[[ "$rows" -eq 73421 ]] || { echo "export-insteval.sh: expected 73421 ratings, got $rows" >&2; exit 1; }
mv "$tmp" "$out"
trap - EXIT
echo "$out"
