package integration

// Integration tests: the public SDK against the bankpaytest sandbox over
// real loopback HTTP, through every use case of the spec end to end. Events
// are delivered by the sandbox to a handler built with NewWebhookHandler,
// redirects are checked with VerifyRedirect, and time moves with the
// sandbox's fake clock (nothing sleeps). Every test that talks to the
// sandbox runs in both of its response shapes (eachShape). This file holds
// the harness; each use case is in <use case>_test.go.

import (
	"bytes"
	"context"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// Service error codes the integration tests expect (APIError.Code).
const (
	codeInvalidParameter = 200
	codeDuplicate        = 210
	codeSecurity         = 300
	codeInvalidAccount   = 330
	codeAccessControl    = 375
)

// itCreds are the default sandbox merchant's credentials in these tests
// (fixed, so that the webhook handler can exist before the sandbox).
var itCreds = bankpay.Credentials{AccessID: "ITEST0000000000000001", AccessKey: bankpay.NewSecret("integration-test-key"), MerchantID: "1100000001"}

// sandboxMerchant is the default merchant: configured for VIP tiers and
// money transfer.
func sandboxMerchant() bankpaytest.Merchant {
	return bankpaytest.Merchant{
		Credentials: itCreds,
	}
}

// thursday is a Thursday, so that 3 banking days cross a weekend.
var thursday = time.Date(2025, time.March, 6, 15, 0, 0, 0, time.UTC)

type sandbox struct {
	*bankpaytest.Server
	client *bankpay.Client
	key    string // the client's access key, to verify redirects with
}

// shape is one of the sandbox's two response shapes: the spec's, single
// objects wrapped ({"transaction":{…}}), or the operator's OpenAPI's, bare
// ({…}, bankpaytest.WithBareResponses). The SDK reads both, so every
// integration test that talks to the sandbox runs in both, through
// eachShape: a shape is only had from eachShape, and startSandbox needs
// one.
type shape struct {
	name string
	bare bool
}

// eachShape runs fn as two parallel subtests, "wrapped" and "bare", each
// with its shape, to start the sandbox in (startSandbox, or shape.options
// for a bankpaytest.NewServer of a test's own). Each shape has a sandbox
// of its own, so the two share nothing; the test returns when both have.
// The test is parallel too (t.Parallel, so t is a top-level test that
// calls eachShape once): after the package's sequential tests, its sandbox
// tests share the -parallel slots with one another, one's waits on the
// loopback filled with another's work.
func eachShape(t *testing.T, fn func(t *testing.T, sh shape)) {
	t.Helper()
	t.Parallel()
	for _, sh := range []shape{{name: "wrapped"}, {name: "bare", bare: true}} {
		t.Run(sh.name, func(t *testing.T) {
			t.Parallel()
			fn(t, sh)
		})
	}
}

// options returns opts preceded by the sandbox options of the shape.
func (sh shape) options(opts ...bankpaytest.Option) []bankpaytest.Option {
	if sh.bare {
		return append([]bankpaytest.Option{bankpaytest.WithBareResponses()}, opts...)
	}
	return append([]bankpaytest.Option(nil), opts...)
}

// startSandbox starts a sandbox answering in shape sh whose default merchant
// is sandboxMerchant (unless opts replace it), and a client for it, both
// closed at cleanup.
func startSandbox(t *testing.T, sh shape, opts ...bankpaytest.Option) *sandbox {
	t.Helper()
	srv := bankpaytest.NewServer(sh.options(append([]bankpaytest.Option{bankpaytest.WithDefaultMerchant(sandboxMerchant())}, opts...)...)...)
	t.Cleanup(srv.Close)
	c := srv.Credentials()
	return &sandbox{Server: srv, key: c.AccessKey.Reveal(), client: clientFor(t, srv, c)}
}

// TestEverySandboxRunsInBothShapes keeps eachShape the one way to start a
// sandbox: in this package's source, every bankpaytest.NewServer takes its
// options from a shape (sh.options(…)...), a shape is made only in
// eachShape, and a function that starts a sandbox otherwise is named in
// oneShape with its reason.
func TestEverySandboxRunsInBothShapes(t *testing.T) {
	t.Parallel() // parsing the package's files (0.1 s under -race) beside the sandbox tests
	// oneShape names the functions that start a sandbox in one response
	// shape only, each with the reason it cannot run in the other. None
	// today.
	oneShape := map[string]string{}
	files, err := filepath.Glob("*_test.go")
	require.NoError(t, err)
	fset := token.NewFileSet()
	servers := 0
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		require.NoError(t, err)
		pkg := "" // bankpaytest's name in f
		for _, im := range f.Imports {
			if im.Path.Value == `"github.com/bankpay/bankpay-go/bankpaytest"` {
				pkg = "bankpaytest"
				if im.Name != nil {
					pkg = im.Name.Name
				}
			}
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CompositeLit:
					if id, ok := n.Type.(*ast.Ident); ok && id.Name == "shape" && fn.Name.Name != "eachShape" {
						assert.Fail(t, "a shape made outside eachShape", "%s: %s makes a shape; take the one eachShape gives", fset.Position(n.Pos()), fn.Name.Name)
					}
				case *ast.CallExpr:
					sel, ok := n.Fun.(*ast.SelectorExpr)
					if !ok || sel.Sel.Name != "NewServer" {
						return true
					}
					if x, ok := sel.X.(*ast.Ident); !ok || pkg == "" || x.Name != pkg {
						return true
					}
					servers++
					if _, ok := oneShape[fn.Name.Name]; ok {
						return true
					}
					var opts *ast.SelectorExpr
					if len(n.Args) == 1 && n.Ellipsis.IsValid() {
						if call, ok := n.Args[0].(*ast.CallExpr); ok {
							opts, _ = call.Fun.(*ast.SelectorExpr)
						}
					}
					assert.True(t, opts != nil && opts.Sel.Name == "options",
						"%s: %s starts a sandbox without a shape's options: run it in eachShape and pass sh.options(…)..., or name it in oneShape with the reason",
						fset.Position(n.Pos()), fn.Name.Name)
				}
				return true
			})
		}
	}
	// Four call sites today: startSandbox, proxiedSandbox, and the
	// concurrency and secrets tests' own sandboxes.
	assert.GreaterOrEqual(t, servers, 4, "the sandboxes were not found in the source")
}

func clientFor(t *testing.T, srv *bankpaytest.Server, creds bankpay.Credentials) *bankpay.Client {
	t.Helper()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.URL), bankpay.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	return c
}

// flush waits until the sandbox has delivered what it emitted.
func (s *sandbox) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Flush(ctx))
}

// authorize signs d with the client, plays the user taking outcome, and
// verifies the redirect with VerifyRedirect.
func (s *sandbox) authorize(t *testing.T, d models.EstablishData, outcome bankpaytest.Outcome) *bankpay.Redirect {
	t.Helper()
	require.NoError(t, s.client.SignEstablishData(&d))
	u, txn, err := s.Authorize(d, outcome)
	require.NoError(t, err)
	r, err := bankpay.VerifyRedirect(u, bankpay.Credentials{AccessKey: bankpay.NewSecret(s.key)})
	require.NoError(t, err, "redirect %s", u)
	require.Equal(t, txn.TransactionID, r.TransactionID)
	return r
}

// inbox is the merchant's notification endpoint: NewWebhookHandler on a
// loopback server, recording the verified events.
type inbox struct {
	URL string

	mu     sync.Mutex
	events []*bankpay.Event
	typed  []string // which typed callback took each event
	failN  int      // fail the next failN events with an error (500)
	clock  func() time.Time
}

// useClock makes the inbox judge an event's age by clock (the sandbox's
// fake clock), as a merchant testing against bankpaytest does with
// bankpay.WithWebhookClock.
func (in *inbox) useClock(clock func() time.Time) {
	in.mu.Lock()
	in.clock = clock
	in.mu.Unlock()
}

func (in *inbox) now() time.Time {
	in.mu.Lock()
	clock := in.clock
	in.mu.Unlock()
	if clock == nil {
		return time.Now()
	}
	return clock()
}

// startWithInbox starts an inbox on itCreds and a sandbox of shape sh (with
// opts) whose clock the inbox's handler follows: the set-up of every test
// that watches a transaction's events.
func startWithInbox(t *testing.T, sh shape, opts ...bankpaytest.Option) (*sandbox, *inbox) {
	t.Helper()
	in := startInbox(t, itCreds)
	s := startSandbox(t, sh, opts...)
	in.useClock(s.Now)
	return s, in
}

func startInbox(t *testing.T, creds bankpay.Credentials, opts ...bankpay.WebhookOption) *inbox {
	t.Helper()
	in := &inbox{}
	record := func(ev *bankpay.Event, via string) error {
		in.mu.Lock()
		defer in.mu.Unlock()
		if in.failN > 0 {
			in.failN--
			return errors.New("storage unavailable")
		}
		in.events = append(in.events, ev)
		in.typed = append(in.typed, via)
		return nil
	}
	opts = append([]bankpay.WebhookOption{bankpay.WithWebhookClock(in.now)}, opts...)
	h := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		switch {
		case ev.EventType == models.EventCustomerIdentityVerified:
			return record(ev, "identityVerified")
		case ev.EventType == models.EventIdentityVerificationDataRetrieved:
			return record(ev, "identityData")
		case ev.Transaction != nil:
			return record(ev, "transaction")
		}
		return record(ev, "other")
	}, opts...)
	mux := http.NewServeMux()
	mux.Handle("POST /events", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	in.URL = srv.URL + "/events"
	return in
}

func (in *inbox) failNext(n int) {
	in.mu.Lock()
	in.failN = n
	in.mu.Unlock()
}

func (in *inbox) all() []*bankpay.Event {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]*bankpay.Event(nil), in.events...)
}

// typesFor lists the types of the events received for transaction id.
func (in *inbox) typesFor(id string) []models.EventType {
	var out []models.EventType
	for _, ev := range in.all() {
		if ev.TransactionID == id {
			out = append(out, ev.EventType)
		}
	}
	return out
}

func (in *inbox) last(id string) *bankpay.Event {
	var out *bankpay.Event
	for _, ev := range in.all() {
		if ev.TransactionID == id {
			out = ev
		}
	}
	return out
}

func deferredData(ref, notify string) models.EstablishData {
	return models.EstablishData{
		Description:       "integration",
		Currency:          models.USD,
		Amount:            "100.00",
		MerchantReference: ref,
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://shop.example/return?order=42",
		CancelURL:         "https://shop.example/cancel",
		NotificationURL:   notify,
	}
}

func disbursementParams(ref, notify, amount, account string) *models.EstablishData {
	return &models.EstablishData{
		Currency:          models.USD,
		Amount:            models.Amount(amount),
		MerchantReference: ref,
		PaymentType:       models.PaymentTypeDisbursement,
		NotificationURL:   notify,
		Account:           &models.Account{AccountNumber: account, RoutingNumber: "124003116", Type: 1},
	}
}

func getStatus(t *testing.T, c *bankpay.Client, id string) models.TransactionStatus {
	t.Helper()
	txn, err := c.Transactions.Get(context.Background(), id)
	require.NoError(t, err)
	return txn.Status
}

func requireAPIError(t *testing.T, err error, status, code int, sentinel error) *bankpay.APIError {
	t.Helper()
	var apiErr *bankpay.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode, "HTTP status of %v", err)
	assert.Equal(t, code, apiErr.Code, "code of %v", err)
	if sentinel != nil {
		assert.ErrorIs(t, err, sentinel)
	}
	return apiErr
}

// testCreds are the unit tests' credentials (the root package's helpers):
// the secrets tests check that their key never shows.
var testCreds = bankpay.Credentials{AccessID: "test-access-id", AccessKey: bankpay.NewSecret("s3cret-access-key"), MerchantID: "1002463580"}

func intPtr(n int) *int { return &n }

// syncBuffer is a bytes.Buffer safe for a logger and a reader at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// repoRoot is the module's root, for the tests that read its docs.
const repoRoot = "../.."
