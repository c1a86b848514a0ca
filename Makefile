# ledgerbench — common tasks. `make run` is the offline main job; `make test` runs the tests.
GO        ?= go
BIN       ?= bin/ledgerbench
# Where `data pull` reads upstream files. The default is the shared copy beside
# this checkout when there is one (offline), else GitHub at the pinned commits.
DATA_FROM ?= $(shell [ -d ../shared/upstream/tau2-bench ] && echo ../shared/upstream)
# The data directory: empty leaves it to the binary (--data, else
# $LEDGERBENCH_DATA, else the user cache dir), so `make run` and the README's
# commands use the same directory without extra flags.
DATA      ?=
DATAFLAG   = $(if $(DATA),--data $(DATA))
DOMAIN    ?= retail
# banking_knowledge's retrieval variant for `make run`: bm25 (offline) rather
# than upstream's default alltools, whose dense search needs an embeddings key.
RETRIEVAL ?= $(if $(filter banking_knowledge,$(DOMAIN)),bm25)
RETRIEVALFLAG = $(if $(RETRIEVAL),--retrieval-config $(RETRIEVAL))
PKGS      ?= ./...

.PHONY: build test test-short bench bench-all run data verify vet fmt clean

build:
	$(GO) build -o $(BIN) ./cmd/ledgerbench

data: build
	$(BIN) data pull $(DATAFLAG) $(if $(DATA_FROM),--from $(DATA_FROM))

RUNS      ?= runs
TRIALS    ?= 4

# The main job, offline: pull the pinned data, verify the gold trajectories of
# the chosen domain, run the baseline and LedgerAgent on the simulated (sim)
# backbone (scripted agent and user with injected faults; no model, no key),
# and print the paper's Table 2 and the gate table for them. Rerunning resumes.
run: data
	$(BIN) verify $(DATAFLAG) --domain $(DOMAIN)
	$(BIN) run $(DATAFLAG) --domain $(DOMAIN) $(RETRIEVALFLAG) --agent baseline --backbone sim --user-backbone sim --no-judge --trials $(TRIALS) --out $(RUNS)/sim-$(DOMAIN)-baseline --quiet
	$(BIN) run $(DATAFLAG) --domain $(DOMAIN) $(RETRIEVALFLAG) --agent ledger --backbone sim --user-backbone sim --no-judge --trials $(TRIALS) --out $(RUNS)/sim-$(DOMAIN)-ledger --quiet
	$(BIN) report $(DATAFLAG) --table table2 --table gate $(RUNS)/sim-$(DOMAIN)-baseline $(RUNS)/sim-$(DOMAIN)-ledger

verify: data
	$(BIN) verify $(DATAFLAG)

vet:
	$(GO) vet $(PKGS)

# The race detector instruments every package of a test binary, so a race
# in code that runs concurrently is found by the tests of the packages that
# run it concurrently. `make test` therefore runs under -race the packages
# whose own code is concurrent (imports sync, sync/atomic, errgroup, os/exec
# or net/http: RACE_PKGS), and the others (parsers, scoring, figures, whose
# tests only gain the detector's 5-10x slowdown) without it. A concurrent
# package whose tests import internal/core/racetest runs in both: under
# -race its tests marked racetest.PlainOnly skip and its racetest.Sample
# sweeps are cut, and the plain run runs them all in full. Four tests of
# a package run at once: many wait on Chromium, subprocesses or fake servers.
CONCURRENT = "sync" "sync/atomic" "golang.org/x/sync/errgroup" "os/exec" "net/http"
RACETEST   = "github.com/ledgerbench/ledgerbench/internal/core/racetest"
LISTCONC   = {{$$c := false}}{{range .Imports}}{{if or $(foreach i,$(CONCURRENT),(eq . $(i)))}}{{$$c = true}}{{end}}{{end}}
LISTSPLIT  = {{$$s := false}}{{range .TestImports}}{{if eq . $(RACETEST)}}{{$$s = true}}{{end}}{{end}}{{range .XTestImports}}{{if eq . $(RACETEST)}}{{$$s = true}}{{end}}{{end}}
RACE_PKGS  = $(shell $(GO) list -f '$(LISTCONC){{if $$c}}{{.ImportPath}}{{end}}' $(PKGS))
PLAIN_PKGS = $(shell $(GO) list -f '$(LISTCONC)$(LISTSPLIT){{if or (not $$c) $$s}}{{.ImportPath}}{{end}}' $(PKGS))

test: vet
	$(if $(PLAIN_PKGS),$(GO) test -parallel 4 -timeout 25m $(PLAIN_PKGS))
	$(if $(RACE_PKGS),$(GO) test -race -parallel 4 -timeout 25m $(RACE_PKGS))

test-short:
	$(GO) test -short $(PKGS)

# `make bench` prints start-up per domain (load to the first tool call) and
# the short jobs (verify --limit 5, and the whole airline and telecom base
# splits, in process), as milliseconds per run, on a data directory pulled
# into a temporary folder; then loading each τ² domain's base split.
# `make bench-all` runs every benchmark of $(PKGS).
BENCH     ?= ^Benchmark(Startup|VerifyShort)$$
BENCHTIME ?= 20x

bench:
	$(GO) test -run '^$$' -bench '$(BENCH)' -benchmem -benchtime $(BENCHTIME) ./internal/cli
	$(GO) test -run '^$$' -bench '^BenchmarkLoadTau2$$' -benchmem -benchtime $(BENCHTIME) ./internal/source/tasks

bench-all:
	$(GO) test -run '^$$' -bench . -benchmem $(PKGS)

fmt:
	gofmt -w .

clean:
	rm -rf bin
