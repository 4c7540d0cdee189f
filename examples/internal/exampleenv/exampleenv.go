// Package exampleenv is the set-up shared by the runnable examples: a bankpay
// client, the event receiver, and the user's side of the flows.
//
// When none of BANKPAY_ACCESS_ID, BANKPAY_ACCESS_KEY, BANKPAY_MERCHANT_ID and
// BANKPAY_BASE_URL is set, the examples run against an embedded bankpaytest
// sandbox (a real HTTP server on a loopback port, with a fake clock), so they
// need no account. When any is set, the three credentials are required and
// the examples call the configured service (BANKPAY_BASE_URL, the operator's
// sandbox by default). Steps that need the user's browser (the bank-selection
// interface) or the sandbox's clock then stop cleanly with an explanation.
//
// BANKPAY_SANDBOX_BARE=1 makes the embedded sandbox respond with single
// objects bare, as the operator's OpenAPI shows them (bankpaytest.WithBareResponses),
// instead of the spec's wrapped shape.
package exampleenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strings"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// Environment variables that select a real service.
const (
	EnvAccessID   = "BANKPAY_ACCESS_ID"
	EnvAccessKey  = "BANKPAY_ACCESS_KEY"
	EnvMerchantID = "BANKPAY_MERCHANT_ID"
	EnvBaseURL    = "BANKPAY_BASE_URL"
)

// EnvSandboxBare, set to 1, makes the embedded sandbox respond with single
// objects bare (bankpaytest.WithBareResponses).
const EnvSandboxBare = "BANKPAY_SANDBOX_BARE"

// Timeout bounds a whole example run.
const Timeout = 60 * time.Second

// Errors of the steps an example cannot take against a real service. Main
// treats them as a clean stop.
var (
	// ErrNeedsBrowser: only the end user can take this step, in the
	// bank-selection interface.
	ErrNeedsBrowser = errors.New("this step needs the end user's browser")
	// ErrNeedsSandboxClock: this step moves the embedded sandbox's clock;
	// on a real service only time moves transactions forward.
	ErrNeedsSandboxClock = errors.New("this step needs the embedded sandbox's clock")
)

// Env is the environment of one example run.
type Env struct {
	// Client calls the service (or the embedded sandbox).
	Client *bankpay.Client
	// Creds are the merchant's credentials.
	Creds bankpay.Credentials
	// Sandbox is the embedded sandbox, nil against a real service.
	Sandbox *bankpaytest.Server
	// Out receives what the example prints (os.Stdout by default).
	Out io.Writer

	base      string // the API base URL
	receivers []*Receiver
}

// Option configures Start.
type Option func(*config)

type config struct {
	sandbox []bankpaytest.Option
	client  []bankpay.Option
	out     io.Writer
	getenv  func(string) string
}

// WithSandboxOptions passes options to the embedded sandbox (a start time,
// more merchants). They are ignored against a real service.
func WithSandboxOptions(opts ...bankpaytest.Option) Option {
	return func(c *config) { c.sandbox = append(c.sandbox, opts...) }
}

// WithClientOptions passes options to bankpay.NewClient.
func WithClientOptions(opts ...bankpay.Option) Option {
	return func(c *config) { c.client = append(c.client, opts...) }
}

// WithOutput sets where the example prints (os.Stdout by default).
func WithOutput(w io.Writer) Option {
	return func(c *config) { c.out = w }
}

// WithGetenv replaces os.Getenv (for tests of this package).
func WithGetenv(fn func(string) string) Option {
	return func(c *config) { c.getenv = fn }
}

// SandboxMerchant is how the embedded sandbox's default merchant is
// configured: for VIP tiers and for international money transfer, so that
// every example runs with it.
func SandboxMerchant() bankpaytest.Merchant {
	return bankpaytest.Merchant{}
}

// Start sets up the environment: the embedded sandbox when no BANKPAY_*
// variable is set, the configured service otherwise.
func Start(opts ...Option) (*Env, error) {
	cfg := config{out: os.Stdout, getenv: os.Getenv}
	for _, o := range opts {
		o(&cfg)
	}
	env := &Env{Out: cfg.out}
	id, key, mid, base := cfg.getenv(EnvAccessID), cfg.getenv(EnvAccessKey), cfg.getenv(EnvMerchantID), cfg.getenv(EnvBaseURL)
	if id == "" && key == "" && mid == "" && base == "" {
		sopts := append([]bankpaytest.Option{bankpaytest.WithDefaultMerchant(SandboxMerchant())}, cfg.sandbox...)
		shape := "wrapped"
		if cfg.getenv(EnvSandboxBare) == "1" {
			sopts, shape = append(sopts, bankpaytest.WithBareResponses()), "bare"
		}
		env.Sandbox = bankpaytest.NewServer(sopts...)
		env.Creds = env.Sandbox.Credentials()
		base = env.Sandbox.URL
		env.Printf("Using the embedded bankpaytest sandbox at %s (merchant %s, %s responses).\n", base, env.Creds.MerchantID, shape)
		env.Printf("Set %s, %s and %s (and %s) to call a real service instead.\n\n", EnvAccessID, EnvAccessKey, EnvMerchantID, EnvBaseURL)
	} else {
		var missing []string
		for _, v := range []struct{ name, val string }{{EnvAccessID, id}, {EnvAccessKey, key}, {EnvMerchantID, mid}} {
			if v.val == "" {
				missing = append(missing, v.name)
			}
		}
		if len(missing) > 0 {
			return nil, fmt.Errorf("%s not set: set all three credentials to use a real service, or none of the BANKPAY_* variables to use the embedded sandbox", strings.Join(missing, ", "))
		}
		if base == "" {
			base = bankpay.SandboxBaseURL
		}
		env.Creds = bankpay.Credentials{AccessID: id, AccessKey: bankpay.NewSecret(key), MerchantID: mid}
		env.Printf("Using the service at %s (merchant %s).\n\n", base, mid)
	}
	c, err := bankpay.NewClient(env.Creds, append([]bankpay.Option{bankpay.WithBaseURL(base)}, cfg.client...)...)
	if err != nil {
		env.Close()
		return nil, fmt.Errorf("NewClient: %w", err)
	}
	env.Client = c
	env.base = base
	return env, nil
}

// WebhookClock is the clock a webhook handler judges event age by: the
// embedded sandbox's; a standalone sandbox's (bankpay sandbox, on a
// loopback base URL), read from its /sandbox/now by
// bankpaytest.RemoteClock, so that its events are accepted after it was
// advanced; the real time against the service.
func (e *Env) WebhookClock() func() time.Time {
	if e.Sandbox != nil {
		return e.Sandbox.Now
	}
	if u, err := url.Parse(e.base); err == nil && isLoopback(u.Hostname()) {
		return bankpaytest.RemoteClock(e.base, e.Creds)
	}
	return time.Now
}

// isLoopback reports whether host is "localhost" or a loopback IP.
func isLoopback(host string) bool {
	ip := net.ParseIP(host)
	return host == "localhost" || ip != nil && ip.IsLoopback()
}

// Embedded reports whether the example runs against the embedded sandbox.
func (e *Env) Embedded() bool { return e.Sandbox != nil }

// Close stops the receivers and the embedded sandbox.
func (e *Env) Close() {
	for _, r := range e.receivers {
		r.close()
	}
	e.receivers = nil
	if e.Sandbox != nil {
		e.Sandbox.Close()
	}
}

// Printf prints to the example's output.
func (e *Env) Printf(format string, args ...any) {
	fmt.Fprintf(e.Out, format, args...)
}

// Section prints a heading.
func (e *Env) Section(title string) {
	e.Printf("\n== %s ==\n", title)
}

// Call prints the call about to be made.
func (e *Env) Call(format string, args ...any) {
	e.Printf("-> "+format+"\n", args...)
}

// Result prints a result line of the last call.
func (e *Env) Result(format string, args ...any) {
	e.Printf("   <- "+format+"\n", args...)
}

// Note prints an explanation.
func (e *Env) Note(format string, args ...any) {
	e.Printf("   .. "+format+"\n", args...)
}

// JSON prints v as indented JSON under a label (establish data for the
// front end, say).
func (e *Env) JSON(label string, v any) {
	b, err := json.MarshalIndent(v, "      ", "  ")
	if err != nil {
		e.Printf("   %s: (cannot encode: %v)\n", label, err)
		return
	}
	e.Printf("   %s:\n      %s\n", label, b)
}

// Ref returns a merchantReference unique across runs: prefix, the date and
// random hex. A real service treats a repeated reference as a duplicate.
func Ref(prefix string) string {
	return fmt.Sprintf("%s-%s-%s", prefix, time.Now().UTC().Format("20060102"), randomHex(4))
}

// Authorize plays the end user in the bank-selection interface with signed
// establish data d: with the embedded sandbox the user takes outcome and the
// browser is redirected to the returned URL (returnUrl or cancelUrl, signed).
// Against a real service it prints d for the front-end SDK and returns
// ErrNeedsBrowser.
func (e *Env) Authorize(d *models.EstablishData, outcome bankpaytest.Outcome) (string, error) {
	if e.Sandbox == nil {
		e.JSON("establish data for selectBankWidget / establish in the browser", d)
		return "", fmt.Errorf("the user authorizes in the bank-selection interface: %w", ErrNeedsBrowser)
	}
	e.Printf("[user] opens the bank-selection interface with the establish data and chooses %q at %s\n", outcome, bankpaytest.SandboxBankName)
	u, _, err := e.Sandbox.Authorize(*d, outcome)
	if err != nil {
		return "", fmt.Errorf("sandbox Authorize: %w", err)
	}
	e.Printf("[user] browser redirected to %s\n", u)
	return u, nil
}

// Advance moves the embedded sandbox's clock forward by d, then waits for the
// event deliveries that it caused. Against a real service it returns
// ErrNeedsSandboxClock.
func (e *Env) Advance(ctx context.Context, d time.Duration) error {
	if e.Sandbox == nil {
		return fmt.Errorf("waiting %s: %w", d, ErrNeedsSandboxClock)
	}
	e.Sandbox.Advance(d)
	e.Printf("~~ sandbox clock +%s, now %s\n", d, e.Sandbox.Now().Format("Mon 2006-01-02 15:04:05 MST"))
	return e.Flush(ctx)
}

// AdvanceBankingDays moves the embedded sandbox's clock n banking days
// forward (weekends skipped), then waits for the event deliveries.
func (e *Env) AdvanceBankingDays(ctx context.Context, n int) error {
	if e.Sandbox == nil {
		return fmt.Errorf("waiting %d banking days: %w", n, ErrNeedsSandboxClock)
	}
	e.Sandbox.AdvanceBankingDays(n)
	e.Printf("~~ sandbox clock +%d banking days, now %s\n", n, e.Sandbox.Now().Format("Mon 2006-01-02 15:04:05 MST"))
	return e.Flush(ctx)
}

// Flush waits until the embedded sandbox has delivered the events emitted so
// far (no-op against a real service) and prints the events the receivers got.
func (e *Env) Flush(ctx context.Context) error {
	if e.Sandbox != nil {
		if err := e.Sandbox.Flush(ctx); err != nil {
			return fmt.Errorf("waiting for event deliveries: %w", err)
		}
	}
	for _, r := range e.receivers {
		r.printNew()
	}
	return nil
}

// Main runs an example: it starts the environment, runs fn with a bounded
// context, closes everything, and exits 1 on an error. ErrNeedsBrowser and
// ErrNeedsSandboxClock are a clean stop (exit 0) with an explanation.
func Main(name string, fn func(ctx context.Context, env *Env) error, opts ...Option) {
	if err := Run(name, fn, opts...); err != nil {
		fmt.Fprintf(os.Stderr, "%s: FAILED: %v\n", name, err)
		os.Exit(1)
	}
}

// Run is Main without the exit: it returns fn's error, nil for
// ErrNeedsBrowser and ErrNeedsSandboxClock.
func Run(name string, fn func(ctx context.Context, env *Env) error, opts ...Option) error {
	env, err := Start(opts...)
	if err != nil {
		return err
	}
	defer env.Close()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	start := time.Now()
	err = fn(ctx, env)
	switch {
	case errors.Is(err, ErrNeedsBrowser), errors.Is(err, ErrNeedsSandboxClock):
		env.Printf("\nStopping here: %v.\n", err)
		if errors.Is(err, ErrNeedsBrowser) {
			env.Printf("In production, pass the signed establish data to the front-end SDK (selectBankWidget or establish);\n")
			env.Printf("the user authorizes at their bank and your returnUrl handler calls bankpay.VerifyRedirect.\n")
		}
		env.Printf("Run without the BANKPAY_* variables to play this step in the embedded sandbox.\n")
		return nil
	case err != nil:
		return err
	}
	env.Printf("\n%s: OK (%s)\n", name, time.Since(start).Round(time.Millisecond))
	return nil
}

// Authorization signs establish data d with the client, has the user take
// outcome in the bank-selection interface (see Authorize) and verifies the
// signed redirect with bankpay.VerifyRedirect, printing each step. It
// returns the verified redirect.
func (e *Env) Authorization(ctx context.Context, d *models.EstablishData, outcome bankpaytest.Outcome) (*bankpay.Redirect, error) {
	e.Call("Client.SignEstablishData(%s, ref %s)", d.PaymentType, d.MerchantReference)
	if err := e.Client.SignEstablishData(d); err != nil {
		return nil, fmt.Errorf("SignEstablishData: %w", err)
	}
	e.Result("requestSignature %s", d.RequestSignature)
	u, err := e.Authorize(d, outcome)
	if err != nil {
		return nil, err
	}
	e.Call("bankpay.VerifyRedirect(redirect URL, creds)")
	r, err := bankpay.VerifyRedirect(u, e.Creds)
	if err != nil {
		return nil, fmt.Errorf("VerifyRedirect: %w", err)
	}
	e.Result("signature valid: transaction %s, status %s", r.TransactionID, r.Status)
	if r.MerchantReference != d.MerchantReference {
		return nil, fmt.Errorf("redirect carries merchantReference %q, want %q", r.MerchantReference, d.MerchantReference)
	}
	return r, e.Flush(ctx)
}
