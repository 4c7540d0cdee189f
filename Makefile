# make test | make bench | make lint | make api-check | make api-snapshot
STATICCHECK ?= $(shell command -v staticcheck || echo $(HOME)/go/bin/staticcheck)

.PHONY: test bench lint api-check api-snapshot

test:
	go test -race -count=1 ./...

# Benchmarks (SDK vs hand-written baseline, webhook, sandbox): see README,
# Performance. COUNT=10 BENCHTIME=1s make bench for steadier figures.
bench:
	scripts/bench.sh

lint:
	@test -z "$$(gofmt -l .)" || { gofmt -l .; exit 1; }
	go vet ./...
	$(STATICCHECK) ./...

# The API-compatibility check of bankpay, models and bankpaytest against the
# snapshot in internal/apicheck (CONTRIBUTING.md, Releases). api-snapshot
# regenerates it: only in the commit of a breaking change's CHANGELOG entry,
# or of a release.
api-check:
	scripts/apicheck.sh

api-snapshot:
	scripts/apicheck.sh -w
