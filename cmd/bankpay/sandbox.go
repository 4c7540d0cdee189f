package main

import (
	"context"

	"github.com/bankpay/bankpay-go/internal/sandboxcmd"
)

// runSandbox runs the local sandbox, as cmd/bankpay-sandbox does, until
// interrupted.
func runSandbox(ctx context.Context, e *env, args []string) error {
	return sandboxcmd.Run(ctx, "bankpay sandbox", args, e.stdout, e.stderr)
}
