package main

import (
	"context"
	"errors"
	"flag"

	"github.com/bankpay/bankpay-go/internal/sandboxcmd"
)

// runSandbox runs the local sandbox, as cmd/bankpay-sandbox does, until
// interrupted.
func runSandbox(ctx context.Context, e *env, args []string) error {
	err := sandboxcmd.Run(ctx, "bankpay sandbox", args, e.stdout, e.stderr)
	var ue *sandboxcmd.UsageError
	if errors.As(err, &ue) && !errors.Is(err, flag.ErrHelp) {
		return &usageError{ue.Error()}
	}
	return err
}
