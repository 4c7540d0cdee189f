// Package contract checks the SDK against the operator's OpenAPI: every
// operation's answers generated from its schemas and decoded by the SDK,
// every request the SDK sends validated against its operation, every
// documented webhook parsed, and the sandbox's answers validated in strict
// mode. It is a module of its own so that libopenapi and its validator stay
// out of the SDK's go.mod.
//
// The OpenAPI itself is not committed: testdata/operator-openapi.facts.yml
// is a facts-only extract of it (paths, methods, parameters, schemas, types,
// enums, required fields and defaults, no prose). Regenerate it from the
// operator's file with
//
//	go generate ./...   (or: go run ./cmd/extract)
//
// run in this directory; the source defaults to ../../../shared/reference/operator-openapi.yml
// (the shared directory beside the repository), or $BANKPAY_OPENAPI.
package contract

//go:generate go run ./cmd/extract
