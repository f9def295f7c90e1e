# ngvikit: the two commands.
#   make verify  install what is missing, build the ngvi command only (Release), run the claim suite,
#                the mutation-kill matrix (quick) and the worst-case searches, write report/
#   make test    install what is missing, build everything (Release), run the whole test suite
#                through ctest
# On a bare Debian 12 without make, first: apt-get install -y make (see README).
# Other targets: python (the Python package into VENV, default ~/.venvs/ngvikit), build, verify-steps (verify's steps only, the ngvi command already built), asan (Debug +
# AddressSanitizer/UBSan suite), fuzz (the libFuzzer targets, briefly; FUZZ_RUNS=N for more), bench, clean.

NPROC  := $(shell nproc 2>/dev/null || echo 2)
PRESET ?= release
BUILD  := build/$(PRESET)
NGVI   := $(BUILD)/experiments/ngvi
REPORT ?= report
# Real data exported once by scripts (InstEval, scripts/export-insteval.sh) are cached here.
DATA_CACHE ?= $(or $(NGVI_DATA_CACHE),$(HOME)/.cache/ngvikit)

.PHONY: all deps deps-verify configure build build-ngvi test verify asan fuzz bench clean python

all: build

deps:
	@bash scripts/install-deps.sh test

deps-verify:
	@bash scripts/install-deps.sh verify

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(NPROC)

# What verify needs: the ngvi command (claims, experiments, report) and the Python package (the
# external implementations' table), not the tests; and the benchmark executable, which no target
# builds by default (EXCLUDE_FROM_ALL, to keep make test short: bench/README.md, "Build time"), so
# that a benchmark that no longer compiles fails the main job.
build-ngvi: configure
	@cmake --build --preset $(PRESET) -j $(NPROC) --target ngvi ngvikit_python ngvi_bench

test: build
	@ctest --preset $(PRESET) -j $(NPROC)

# The steps of verify after the build. They are independent (each writes its own files under
# $(REPORT)), so verify-steps runs them as make targets, $(NPROC) at a time, the longest first
# (the full suite and the kill matrix use all cores themselves; the single-threaded experiments and
# searches fill in around them); --output-sync keeps each step's output together.
VERIFY_STEPS := claims mutants run-fig2 run-lsk-compare run-fig1 run-ngd-gaussian-target \
  run-paquet-mf run-paquet-threshold run-vpng-bivariate run-vpng-logistic run-svi-lda run-svi-gmm \
  search-thm1 search-thm1-reachable search-lemma3 search-lemma10 search-lemma11 search-cor1 search-cor2 \
  external
INSTEVAL := $(DATA_CACHE)/insteval.csv

.PHONY: verify-steps $(addprefix verify-step-,$(VERIFY_STEPS) insteval)

# The report is written even when a step fails; make still fails then (-k runs every step that
# does not depend on the failed one; a failed InstEval export skips the two Paquet runs).
# The build tools first (deps); then the packages only the verify steps use (R and lme4, scikit-learn,
# Fashion-MNIST, ...) are installed while the ngvi command compiles, since the build needs none of them.
# The install runs at the lowest CPU priority: the compilers, the longer job, keep both cores, and the
# install's unpacking and byte-compiling take what they leave (bench/README.md, "Build time").
# (The install is waited for even when the build fails, so that no dpkg run is left half done.)
verify: deps
	@nice -n 19 bash scripts/install-deps.sh verify & deps=$$!; status=0; \
	$(MAKE) --no-print-directory build-ngvi || status=$$?; \
	wait $$deps || status=$$?; \
	if [ $$status -ne 0 ]; then exit $$status; fi
	@$(MAKE) --no-print-directory verify-steps

# verify without the install and build steps (the ngvi command must be built).
verify-steps:
	@mkdir -p $(REPORT)
	@status=0; \
	$(MAKE) --no-print-directory -k -j $(NPROC) --output-sync=target $(addprefix verify-step-,$(VERIFY_STEPS)) || status=$$?; \
	$(NGVI) report $(REPORT) || status=$$?; \
	exit $$status

verify-step-claims:
	@$(NGVI) verify --full --json $(REPORT)/claims.json
verify-step-mutants:
	@$(NGVI) verify --mutants all --json $(REPORT)/mutants.json
verify-step-run-ngd-gaussian-target:
	@$(NGVI) run ngd-gaussian-target --out $(REPORT) --quiet
verify-step-run-fig1:
	@$(NGVI) run fig1 --out $(REPORT)
verify-step-run-fig2:
	@$(NGVI) run fig2 --out $(REPORT)
verify-step-run-lsk-compare:
	@$(NGVI) run lsk-compare --out $(REPORT)
verify-step-insteval:
	@bash scripts/export-insteval.sh $(INSTEVAL) >/dev/null
verify-step-run-paquet-mf: verify-step-insteval
	@$(NGVI) run paquet-mf --data $(INSTEVAL) --K 5 --children 1,5 --iters 2000 --out $(REPORT)
verify-step-run-paquet-threshold: verify-step-insteval
	@$(NGVI) run paquet-threshold --data $(INSTEVAL) --K 5 --children 1,5 --out $(REPORT)
verify-step-run-vpng-bivariate:
	@$(NGVI) run vpng-bivariate --out $(REPORT) --quiet
verify-step-run-vpng-logistic:
	@$(NGVI) run vpng-logistic --out $(REPORT) --quiet
verify-step-run-svi-lda:
	@$(NGVI) run svi-lda --out $(REPORT) --quiet
verify-step-run-svi-gmm:
	@$(NGVI) run svi-gmm --out $(REPORT) --quiet
# The field's implementations put to the claims of their protocol (scikit-learn's and gensim's online
# LDA against the svi-lda claims), through the Python package in a venv of its own under the build
# directory: report/external.json, a section of the report.
VERIFY_VENV := $(BUILD)/python/venv-verify
verify-step-external:
	@bash scripts/install-python.sh --no-build --package $(BUILD)/python/package $(VERIFY_VENV) >/dev/null
	@$(VERIFY_VENV)/bin/python -m ngvikit.external $(REPORT)/external.json
verify-step-search-lemma3:
	@$(NGVI) verify --search lemma3 --out $(REPORT)
verify-step-search-lemma10:
	@$(NGVI) verify --search lemma10 --out $(REPORT)
verify-step-search-lemma11:
	@$(NGVI) verify --search lemma11 --out $(REPORT)
verify-step-search-cor1:
	@$(NGVI) verify --search cor1 --out $(REPORT)
verify-step-search-cor2:
	@$(NGVI) verify --search cor2 --out $(REPORT)
verify-step-search-thm1:
	@$(NGVI) verify --search thm1 --out $(REPORT)
verify-step-search-thm1-reachable:
	@$(NGVI) verify --search thm1 --sigma2-source reachable-max --out $(REPORT)

# The Python package into a venv (made with --system-site-packages when missing):
#   make python VENV=~/venvs/ngvi
VENV ?= $(HOME)/.venvs/ngvikit
python: deps
	@bash scripts/install-python.sh $(VENV)

asan:
	@$(MAKE) --no-print-directory test PRESET=debug-asan

# The libFuzzer targets of fuzz/ (Clang, ASan/UBSan; docs/fuzzing.md), each run FUZZ_RUNS executions
# from its seed corpus: make fuzz FUZZ_RUNS=1000000 is the long run.
FUZZ_RUNS ?= 20000
FUZZ_TARGETS := csv bag_of_words ratings idx claims_json instance
fuzz:
	@bash scripts/install-deps.sh fuzz
	@cmake --preset fuzz >/dev/null && cmake --build --preset fuzz -j $(NPROC) --target $(addprefix ngvi_fuzz_,$(FUZZ_TARGETS))
	@bash scripts/run-fuzz.sh build/fuzz $(FUZZ_RUNS) $(FUZZ_TARGETS)

bench: deps
	@cmake --preset release >/dev/null && cmake --build --preset release -j $(NPROC) --target ngvi_bench
	@build/release/bench/ngvi_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true \
	  --benchmark_out=build/release/bench/bench.json --benchmark_out_format=json

clean:
	rm -rf build
