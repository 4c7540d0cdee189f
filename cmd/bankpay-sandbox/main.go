// Command bankpay-sandbox runs the bankpaytest sandbox of the bank
// authorization service on a chosen address, so that it can be used with
// curl or from another language. It prints the API base URL and the
// credentials of its merchant, and serves until SIGINT or SIGTERM.
//
//	go run ./cmd/bankpay-sandbox -addr 127.0.0.1:8089
//
// The API is below /api/v1 and takes HTTP Basic accessId:accessKey. The
// sandbox's clock is fake and moves only when told to, through the control
// endpoints below /sandbox (same credentials), for example:
//
//	curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST 'http://127.0.0.1:8089/sandbox/advance?d=72h'
//	curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST 'http://127.0.0.1:8089/sandbox/advance?bankingDays=3'
//	curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST 'http://127.0.0.1:8089/sandbox/authorize?outcome=authorize' \
//	     -H 'Content-Type: application/json' -d @signed-establish-data.json
//
// The other control endpoints (now, deny, reverse, events, flush, customers,
// feedback, loseResponse) are listed in the bankpaytest package
// documentation.
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
	"net"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "bankpay-sandbox:", err)
		os.Exit(1)
	}
}

// run serves the sandbox until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("bankpay-sandbox", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8089", "address to listen on")
	accessID := fs.String("access-id", "", "accessId of the merchant (generated when empty)")
	accessKey := fs.String("access-key", "", "accessKey of the merchant (generated when empty)")
	merchantID := fs.String("merchant-id", "", "merchantId of the merchant (generated when empty)")
	vip := fs.Bool("vip", true, "configure the merchant for VIP customer tiers")
	transfer := fs.Bool("money-transfer", true, "configure the merchant for international money transfer (capture)")
	noIdem := fs.Bool("no-reference-idempotency", false,
		"play an account not configured for merchantReference idempotency: a repeated merchantReference on establish,\n"+
			"deposit or capture is processed again (no code 210), so a retried request pays twice")
	notify := fs.String("notification-url", "", "the merchant's default notification URL")
	start := fs.String("start", "", "start time of the sandbox clock, RFC 3339 (default: now)")
	bare := fs.Bool("bare-responses", false,
		"respond with single objects bare, as the operator's OpenAPI shows them (a Transaction, not {\"transaction\":…});\n"+
			"default: the spec's wrapped shape")
	providers := fs.Int("identity-providers", 2, "number of identity providers (one data-retrieved event each)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	opts := []bankpaytest.Option{
		bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{
			Credentials:            bankpay.Credentials{AccessID: *accessID, AccessKey: bankpay.NewSecret(*accessKey), MerchantID: *merchantID},
			NoVIP:                  !*vip,
			NoMoneyTransfer:        !*transfer,
			NoReferenceIdempotency: *noIdem,
			NotificationURL:        *notify,
		}),
		bankpaytest.WithIdentityProviders(*providers),
	}
	if *start != "" {
		t, err := time.Parse(time.RFC3339, *start)
		if err != nil {
			return fmt.Errorf("-start: %w", err)
		}
		opts = append(opts, bankpaytest.WithStartTime(t))
	}
	if *bare {
		opts = append(opts, bankpaytest.WithBareResponses())
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := bankpaytest.NewServer(append(opts, bankpaytest.WithAnyEventAddress(), bankpaytest.WithListener(ln))...)
	defer srv.Close()

	c := srv.Credentials()
	m := srv.Merchants()[0]
	fmt.Fprintf(stdout, `bankpay sandbox (not the real service; the clock is fake and starts at %s)
  API base URL:  %s
  control URL:   %s
  accessId:      %s
  accessKey:     %s
  merchantId:    %s
  VIP tiers: %t, money transfer: %t, merchantReference idempotency: %t
  responses: %s
  sandbox routing number: %s

export BANKPAY_BASE_URL=%s BANKPAY_ACCESS_ID=%s BANKPAY_ACCESS_KEY=%s BANKPAY_MERCHANT_ID=%s
curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST '%s/advance?d=72h'

Press Ctrl+C to stop.
`, srv.Now().Format(time.RFC3339), srv.URL, srv.ControlURL, c.AccessID, c.AccessKey.Reveal(), c.MerchantID,
		!m.NoVIP, !m.NoMoneyTransfer, !m.NoReferenceIdempotency, responseShape(*bare), bankpaytest.SandboxRoutingNumber,
		srv.URL, c.AccessID, c.AccessKey.Reveal(), c.MerchantID, srv.ControlURL)

	<-ctx.Done()
	return nil
}

// responseShape names the response shape the banner shows.
func responseShape(bare bool) string {
	if bare {
		return "bare single objects (the operator's OpenAPI; -bare-responses)"
	}
	return "wrapped single objects (the spec's)"
}
