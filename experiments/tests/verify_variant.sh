#!/usr/bin/env bash
# ngvi verify --variant / --list-variants: a registered variant of the algorithm reaches the claims
# (its records differ from the library's and the meta names it), an unknown one is one error line.
set -u
NGVI="$1"
. "$(dirname "$0")/test_lib.sh"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$NGVI" verify --list-variants >"$tmp/list.txt"
check "list names the schedule mutant" grep -q '^step-harmonic ' "$tmp/list.txt"
check "list names the averaging mutant" grep -q '^uniform-averaging ' "$tmp/list.txt"
expect_one_line_error "unknown variant" "$NGVI" verify --claims 'lemma2.*' --variant no-such-variant

# lemma2's one exact step with gamma = 1 reaches the posterior; a 1% bias in g2 must break it.
"$NGVI" verify --claims 'lemma2.*' --precision double --json "$tmp/lib.json" >"$tmp/lib.txt" 2>&1
lib_status=$?
"$NGVI" verify --claims 'lemma2.*' --precision double --variant g2-bias --json "$tmp/var.json" >"$tmp/var.txt" 2>&1
var_status=$?
check "library's algorithm passes lemma2" test "$lib_status" -eq 0
check "the g2-bias variant fails lemma2" test "$var_status" -ne 0
check "meta records the variant" grep -q '"variant": *"g2-bias"' "$tmp/var.json"
check "meta of the library's run names none" grep -q '"variant": *""' "$tmp/lib.json"
finish
