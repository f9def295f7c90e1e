# ngvikit: the two commands.
#   make verify  install what is missing, build the ngvi command only (Release), run the claim suite,
#                the mutation-kill matrix (quick) and the worst-case searches, write report/
#   make test    install what is missing, build everything (Release), run the whole test suite
#                through ctest
# On a bare Debian 12 without make, first: apt-get install -y make (see README).
# Other targets: build, asan (Debug + AddressSanitizer/UBSan suite), bench, clean.

NPROC  := $(shell nproc 2>/dev/null || echo 2)
PRESET ?= release
BUILD  := build/$(PRESET)
NGVI   := $(BUILD)/experiments/ngvi
REPORT ?= report
# Real data exported once by scripts (InstEval, scripts/export-insteval.sh) are cached here.
DATA_CACHE ?= $(or $(NGVI_DATA_CACHE),$(HOME)/.cache/ngvikit)

.PHONY: all deps deps-verify configure build build-ngvi test verify asan bench clean

all: build

deps:
	@bash scripts/install-deps.sh test

deps-verify:
	@bash scripts/install-deps.sh verify

configure: deps
	@cmake --preset $(PRESET) >/dev/null

build: configure
	@cmake --build --preset $(PRESET) -j $(NPROC)

# What verify needs: the ngvi command (claims, experiments, report), not the tests or the benchmark.
build-ngvi: configure
	@cmake --build --preset $(PRESET) -j $(NPROC) --target ngvi

test: build
	@ctest --preset $(PRESET) -j $(NPROC)

# The report is written even when a claim fails; make still fails then.
verify: deps-verify build-ngvi
	@mkdir -p $(REPORT)
	@status=0; \
	$(NGVI) verify --full --json $(REPORT)/claims.json || status=$$?; \
	$(NGVI) verify --mutants all --json $(REPORT)/mutants.json || status=$$?; \
	$(NGVI) run ngd-gaussian-target --out $(REPORT) --quiet || status=$$?; \
	$(NGVI) run fig1 --out $(REPORT) || status=$$?; \
	$(NGVI) run fig2 --out $(REPORT) || status=$$?; \
	$(NGVI) run lsk-compare --out $(REPORT) || status=$$?; \
	insteval=$$(bash scripts/export-insteval.sh $(DATA_CACHE)/insteval.csv) && { \
	  $(NGVI) run paquet-mf --data $$insteval --K 5 --children 1,5 --iters 2000 --out $(REPORT) || status=$$?; \
	  $(NGVI) run paquet-threshold --data $$insteval --K 5 --children 1,5 --out $(REPORT) || status=$$?; \
	} || status=$$?; \
	$(NGVI) run vpng-bivariate --out $(REPORT) --quiet || status=$$?; \
	$(NGVI) run vpng-logistic --out $(REPORT) --quiet || status=$$?; \
	$(NGVI) verify --search lemma3 --out $(REPORT) || status=$$?; \
	$(NGVI) verify --search lemma10 --out $(REPORT) || status=$$?; \
	$(NGVI) verify --search lemma11 --out $(REPORT) || status=$$?; \
	$(NGVI) verify --search cor1 --out $(REPORT) || status=$$?; \
	$(NGVI) verify --search cor2 --out $(REPORT) || status=$$?; \
	$(NGVI) verify --search thm1 --out $(REPORT) || status=$$?; \
	$(NGVI) verify --search thm1 --sigma2-source reachable-max --out $(REPORT) || status=$$?; \
	$(NGVI) report $(REPORT) || status=$$?; \
	exit $$status

asan:
	@$(MAKE) --no-print-directory test PRESET=debug-asan

bench: deps
	@cmake --preset release >/dev/null && cmake --build --preset release -j $(NPROC) --target ngvi_bench
	@build/release/bench/ngvi_bench --benchmark_repetitions=10 --benchmark_report_aggregates_only=true \
	  --benchmark_out=build/release/bench/bench.json --benchmark_out_format=json

clean:
	rm -rf build
