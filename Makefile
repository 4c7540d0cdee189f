# make test | make bench | make lint
STATICCHECK ?= $(shell command -v staticcheck || echo $(HOME)/go/bin/staticcheck)

.PHONY: test bench lint

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
