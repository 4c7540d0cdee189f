// Command cmd writes internal/decode/zz_generated.go (go generate in
// internal/decode).
package main

import (
	"fmt"
	"os"

	"github.com/bankpay/bankpay-go/internal/decode/gen"
)

func main() {
	src, err := gen.Source()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := os.WriteFile("zz_generated.go", src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
