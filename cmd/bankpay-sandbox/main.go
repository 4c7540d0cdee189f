// Command bankpay-sandbox runs the bankpaytest sandbox of the bank
// authorization service on a chosen address, so that it can be used with
// curl or from another language. It prints the API base URL and the
// credentials of its merchant, and serves until SIGINT or SIGTERM.
//
//	go run ./cmd/bankpay-sandbox -addr 127.0.0.1:8089
//
// The API is below /api/v1 and takes HTTP Basic accessId:accessKey; the
// front-end script is at /ui/sdk.js (the banner prints its URL). The
// sandbox's clock follows the real time, so that a webhook handler with
// default options accepts its events; -start T (a fake clock from T) or
// -frozen-clock (from now) make it move only when told to. Either way the
// control endpoints below /sandbox (same credentials) move it ahead, for
// example:
//
//	curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST 'http://127.0.0.1:8089/sandbox/advance?d=72h'
//	curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST 'http://127.0.0.1:8089/sandbox/advance?bankingDays=3'
//	curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST 'http://127.0.0.1:8089/sandbox/authorize?outcome=authorize' \
//	     -H 'Content-Type: application/json' -d @signed-establish-data.json
//
// The other control endpoints (now, deny, reverse, dispute, events, flush,
// customers, feedback, loseResponse, and trigger, events/{id}/resend and
// listeners, which bankpay trigger, events and listen use) are listed in
// the bankpaytest package documentation.
//
// The merchant is configured for VIP tiers and money transfer unless
// -vip=false or -money-transfer=false. It is configured for merchantReference
// idempotency (a repeated merchantReference on establish, deposit or capture
// responds 400 with code 210) unless -no-reference-idempotency plays an
// account without it, where a repeat is processed again: a request retried
// after a lost response then pays twice, as it would on such an account of
// the service (bankpaytest.Merchant.NoReferenceIdempotency). It responds with
// single objects in the spec's wrapped shape ({"transaction":{…}}), or bare
// as the operator's OpenAPI shows them with -bare-responses
// (bankpaytest.WithBareResponses). Run with -h for every flag.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/bankpay/bankpay-go/internal/sandboxcmd"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		var ue *sandboxcmd.UsageError
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "bankpay-sandbox:", err)
		if errors.As(err, &ue) {
			os.Exit(2) // usage: a bad flag or argument
		}
		os.Exit(1)
	}
}

// run serves the sandbox until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return sandboxcmd.Run(ctx, "bankpay-sandbox", args, stdout, stderr)
}
