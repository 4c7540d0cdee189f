// Command extract writes the facts-only extract of the operator's OpenAPI
// (contract/testdata/operator-openapi.facts.yml) from the operator's file.
// Run it in the contract module's directory:
//
//	go run ./cmd/extract [-in ../../../shared/reference/operator-openapi.yml] [-out testdata/operator-openapi.facts.yml]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/bankpay/bankpay-go/test/contract"
)

func main() {
	in := flag.String("in", contract.SourceOpenAPI("."), "the operator's OpenAPI (YAML)")
	out := flag.String("out", contract.FactsFile, "where the extract is written")
	flag.Parse()
	src, err := os.ReadFile(*in)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	facts, err := contract.Extract(src)
	if err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, facts, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "extract:", err)
		os.Exit(1)
	}
	fmt.Printf("extract: %s (%d bytes) from %s (%d bytes)\n", *out, len(facts), *in, len(src))
}
