# pgrest: build, test, benchmark and demo.
#
#   make build       bin/caddy: Caddy with its standard modules and pgrest
#   make test        gofmt check, go vet, Go tests (with -race), client tests,
#                    and a last line of counts: N passed, N failed, N skipped
#   make bench       the benchmarks in tests/bench, tests/benchscale, tests/bench/realtime
#                    and tests/benchsockets
#   make fuzz        every fuzz target for FUZZTIME (default 1m) each
#   make demo        PostgreSQL + demo schema + Caddy on http://localhost:3000
#   make demo-stop   stop the demo's PostgreSQL
#   make clean       delete bin/ and the demo's cluster and secrets
#
# Integration tests start their own throwaway PostgreSQL (tests/pgtest); set
# PGREST_TEST_DSN to a superuser URL to use a running server instead.

GO ?= go
# -mod=readonly: a build never edits go.mod or go.sum, so CI fails on a
# missing requirement instead of fetching it. Modules come only from GOPROXY.
export GOFLAGS ?= -mod=readonly

TEST_TIMEOUT ?= 30m
# -p 1: one test binary at a time. The fault, security and load tests
# count connections and hold pools under load on a 2-core machine; two
# such packages at once (each with its own PostgreSQL) only slow each
# other. No test asserts a duration or a rate: make bench measures those.
GO_TEST_FLAGS ?= -race -count=1 -p 1 -timeout $(TEST_TIMEOUT)
PKGS ?= ./...

# The JavaScript client suites, run by the launcher in tests/client/server:
# postgrest-js 1.x (tests/client), then the current postgrest-js and
# supabase-js 2.x on Node 22 with pgrest under /rest/v1 (tests/supabasejs);
# then postgrest-js's own jest suite on its own fixtures, pgrest set up as
# its docker-compose sets up PostgREST (tests/postgrestjs, launched by
# tests/postgrestjs/server).
# CLIENT_TEST_ARGS go to node --test of the first, e.g.
# make test-client CLIENT_TEST_ARGS=tests/client/rpc.test.mjs
CLIENT_DIR ?= tests/client
SUPABASEJS_DIR ?= tests/supabasejs
POSTGRESTJS_DIR ?= tests/postgrestjs
CLIENT_TEST_ARGS ?=

.PHONY: all build test fmt-check vet test-go test-client bench fuzz demo demo-stop clean

all: build

build:
	$(GO) build -o bin/caddy ./cmd/caddy

# make test runs the Go tests, the HTTP suites again through PgBouncer, and
# then the client suites, even when the Go tests fail, and ends with one line of counts over all of them ("make
# test: N passed, N failed, N skipped"), written by tests/testsummary.
TEST_SUMMARY_DIR ?= bin/test-summary
# The read, write and RPC suites run a second time through PgBouncer in
# transaction pooling mode (db_prepared_statements false, db_channel_uri
# around it), as a deployment behind PgBouncer runs; without -race, which
# the first run already had.
PGBOUNCER_PKGS ?= ./tests/read ./tests/write ./tests/rpc
PGBOUNCER_TEST_FLAGS ?= -count=1 -p 1 -timeout $(TEST_TIMEOUT)
SUMMARY = $(TEST_SUMMARY_DIR)/testsummary

test: fmt-check vet
	@rm -rf $(TEST_SUMMARY_DIR) && mkdir -p $(TEST_SUMMARY_DIR)
	$(GO) build -o $(SUMMARY) ./tests/testsummary
	@status=0; \
	GO=$(GO) $(SUMMARY) go -out $(TEST_SUMMARY_DIR)/go.count $(GO_TEST_FLAGS) $(PKGS) || status=1; \
	PGREST_TEST_PGBOUNCER=1 GO=$(GO) $(SUMMARY) go -out $(TEST_SUMMARY_DIR)/pgbouncer.count $(PGBOUNCER_TEST_FLAGS) $(PGBOUNCER_PKGS) || status=1; \
	(cd $(CLIENT_DIR) && npm ci --no-audit --no-fund) && \
	$(SUMMARY) cmd -out $(TEST_SUMMARY_DIR)/client.count $(GO) run ./$(CLIENT_DIR)/server $(CLIENT_TEST_ARGS) || status=1; \
	(cd $(SUPABASEJS_DIR) && npm ci --no-audit --no-fund) && \
	PGREST_CLIENT_SUITE=supabasejs $(SUMMARY) cmd -out $(TEST_SUMMARY_DIR)/supabasejs.count $(GO) run ./$(CLIENT_DIR)/server || status=1; \
	(cd $(POSTGRESTJS_DIR) && npm ci --no-audit --no-fund) && \
	$(SUMMARY) cmd -out $(TEST_SUMMARY_DIR)/postgrestjs.count $(GO) run ./$(POSTGRESTJS_DIR)/server || status=1; \
	$(SUMMARY) total $(TEST_SUMMARY_DIR)/go.count $(TEST_SUMMARY_DIR)/pgbouncer.count $(TEST_SUMMARY_DIR)/client.count $(TEST_SUMMARY_DIR)/supabasejs.count $(TEST_SUMMARY_DIR)/postgrestjs.count || status=1; \
	exit $$status

# Tracked and new files, not those in node_modules or other ignored folders.
fmt-check:
	@files=$$(git ls-files --cached --others --exclude-standard '*.go' 2>/dev/null || find . -name '*.go' -not -path '*/node_modules/*'); \
	bad=$$([ -z "$$files" ] || gofmt -l $$files); \
	if [ -n "$$bad" ]; then echo "gofmt needed on:"; echo "$$bad"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

test-go:
	$(GO) test $(GO_TEST_FLAGS) $(PKGS)

test-client:
	cd $(CLIENT_DIR) && npm ci --no-audit --no-fund
	$(GO) run ./$(CLIENT_DIR)/server $(CLIENT_TEST_ARGS)
	cd $(SUPABASEJS_DIR) && npm ci --no-audit --no-fund
	PGREST_CLIENT_SUITE=supabasejs $(GO) run ./$(CLIENT_DIR)/server
	cd $(POSTGRESTJS_DIR) && npm ci --no-audit --no-fund
	$(GO) run ./$(POSTGRESTJS_DIR)/server

# tests/bench, then tests/benchscale: what replica routing and PgBouncer
# cost a read, how long reads take to leave a replica that died and to
# come back to it, and how soon a NOTIFY reload shows and the API is back
# after an outage (BENCHSCALE_FLAGS, e.g. '-d 2s -c 8'). Timings are
# measured here, never asserted by make test.
BENCHSCALE_FLAGS ?=
# Then tests/bench/realtime: the realtime change feed's changes per second
# from commit to delivery for 1, 100 and 1,000 subscribers, with latency,
# beside the replication stream decoded alone (BENCHREALTIME_FLAGS, e.g.
# '-n 2000 -subs 1,100'); and tests/benchsockets: the memory of an idle
# realtime socket (VmRSS of Caddy+pgrest before and after 1,000 of them),
# then postgres_changes through the socket to 1 and 100 clients, changes
# per second and latency from commit to receipt (BENCHSOCKETS_FLAGS, e.g.
# '-n 5000 -delivery 1,100,1000 -changes 5000').
BENCHREALTIME_FLAGS ?=
BENCHSOCKETS_FLAGS ?=
bench:
	$(GO) run ./tests/bench $(BENCH_FLAGS)
	$(GO) run ./tests/benchscale $(BENCHSCALE_FLAGS)
	$(GO) run ./tests/bench/realtime $(BENCHREALTIME_FLAGS)
	$(GO) run ./tests/benchsockets $(BENCHSOCKETS_FLAGS)

# Every func FuzzXxx in the module, found anew each run, one after the
# other (go test fuzzes one target per run). make test already runs their
# seed corpora as ordinary tests. Fails if any target finds a crash, whose
# input is then kept in the package's testdata/fuzz for make test to replay.
FUZZTIME ?= 1m
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) bash scripts/fuzz.sh

demo:
	bash scripts/demo.sh run

demo-stop:
	bash scripts/demo.sh stop

clean:
	bash scripts/demo.sh clean
	rm -rf bin
