// Package sandboxcmd is the command line of the local sandbox, shared by
// cmd/bankpay-sandbox and "bankpay sandbox": flags to a bankpaytest server
// on a chosen address, delivering events to any URL.
package sandboxcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"strings"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

// UsageError is a bad command line: a flag, an argument or a value.
type UsageError struct{ Err error }

// Error returns the flag package's message.
func (u *UsageError) Error() string { return u.Err.Error() }

// Unwrap returns the flag package's error (flag.ErrHelp for -h).
func (u *UsageError) Unwrap() error { return u.Err }

// Run parses the command line of the sandbox command (name is the
// command's, for its messages) and serves the sandbox until ctx is done.
// A bad command line is a *UsageError (wrapping flag.ErrHelp for -h).
func Run(ctx context.Context, name string, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
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
	start := fs.String("start", "",
		"start time of a fake clock, RFC 3339, that moves only when advanced (default: the clock follows the real time);\n"+
			"a webhook handler with default options refuses events more than 24 h older than its own clock")
	frozen := fs.Bool("frozen-clock", false, "a fake clock that starts now and moves only when advanced (default: the clock follows the real time)")
	bare := fs.Bool("bare-responses", false,
		"respond with single objects bare, as the operator's OpenAPI shows them (a Transaction, not {\"transaction\":…});\n"+
			"default: the spec's wrapped shape")
	providers := fs.Int("identity-providers", 2, "number of identity providers (one data-retrieved event each)")
	resendAny := fs.Bool("resend-any-address", false,
		"let POST /sandbox/events/{id}/resend?to=URL send signed events to any host (default: loopback addresses only,\n"+
			"anything else answers 400)")
	if err := fs.Parse(args); err != nil {
		return &UsageError{err}
	}
	if fs.NArg() > 0 {
		return &UsageError{fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))}
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
	clock := "fake, moves only when advanced" // -start, or -frozen-clock
	switch {
	case *start != "":
		t, err := time.Parse(time.RFC3339, *start)
		if err != nil {
			return &UsageError{fmt.Errorf("-start: %w", err)}
		}
		opts = append(opts, bankpaytest.WithStartTime(t))
	case !*frozen:
		opts = append(opts, bankpaytest.WithWallClock())
		clock = "follows the real time"
	}
	if *bare {
		opts = append(opts, bankpaytest.WithBareResponses())
	}
	if *resendAny {
		opts = append(opts, bankpaytest.WithResendToAnyAddress())
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	srv := bankpaytest.NewServer(append(opts, bankpaytest.WithAnyEventAddress(), bankpaytest.WithListener(ln))...)
	defer srv.Close()

	printBanner(stdout, srv, clock, *bare)
	<-ctx.Done()
	return nil
}

// printBanner writes what the sandbox listens on, its merchant's
// credentials and configuration, and how to use it.
func printBanner(stdout io.Writer, srv *bankpaytest.Server, clock string, bare bool) {
	c := srv.Credentials()
	m := srv.Merchants()[0]
	fmt.Fprintf(stdout, `bankpay sandbox (not the real service)
  clock:         %s, now %s
  API base URL:  %s
  control URL:   %s
  script URL:    %s
  accessId:      %s
  accessKey:     %s
  merchantId:    %s
  VIP tiers: %t, money transfer: %t, merchantReference idempotency: %t
  responses: %s
  sandbox routing number: %s

export BANKPAY_BASE_URL=%s BANKPAY_ACCESS_ID=%s BANKPAY_ACCESS_KEY=%s BANKPAY_MERCHANT_ID=%s
curl -u "$BANKPAY_ACCESS_ID:$BANKPAY_ACCESS_KEY" -X POST '%s/advance?bankingDays=3'

The front end: load %s?accessId=%s on your checkout page and call
BankPay.establish(signedEstablishData, {closeButton: true}) or
BankPay.selectBankWidget(signedEstablishData, {widgetContainerId: "bank-widget"});
the sandbox bank's password is demo.

Press Ctrl+C to stop.
`, clock, srv.Now().Format(time.RFC3339), srv.URL, srv.ControlURL, srv.ScriptURL(), c.AccessID, c.AccessKey.Reveal(), c.MerchantID,
		!m.NoVIP, !m.NoMoneyTransfer, !m.NoReferenceIdempotency, responseShape(bare), bankpaytest.SandboxRoutingNumber,
		srv.URL, c.AccessID, c.AccessKey.Reveal(), c.MerchantID, srv.ControlURL, srv.ScriptURL(), c.AccessID)
}

// responseShape names the response shape the banner shows.
func responseShape(bare bool) string {
	if bare {
		return "bare single objects (the operator's OpenAPI; -bare-responses)"
	}
	return "wrapped single objects (the spec's)"
}
