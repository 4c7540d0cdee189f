package readme

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippet is one ```go block of README.md or docs/guide.md.
type snippet struct {
	line int    // of its first line of code
	file string // "README" or "docs/guide.md"
	code string
}

// where names the snippet's first line of code, as "README line N".
func (sn snippet) where() string { return fmt.Sprintf("%s line %d", sn.file, sn.line) }

// snippetFiles hold the Go blocks the test runs: the README and the guide
// its service sections moved to.
var snippetFiles = []struct{ name, path string }{{"README", "../../README.md"}, {"docs/guide.md", "../../docs/guide.md"}}

// readmeSnippets extracts the Go blocks of the README and the guide.
func readmeSnippets(t *testing.T) []snippet {
	var out []snippet
	for _, f := range snippetFiles {
		raw, err := os.ReadFile(f.path)
		require.NoError(t, err)
		var cur *snippet
		n := len(out)
		for i, l := range strings.Split(string(raw), "\n") {
			switch {
			case cur == nil && l == "```go":
				cur = &snippet{line: i + 2, file: f.name}
			case cur != nil && l == "```":
				out = append(out, *cur)
				cur = nil
			case cur != nil:
				cur.code += l + "\n"
			}
		}
		require.Greater(t, len(out), n, "no Go block in %s", f.name)
	}
	return out
}

// setups are what the README's fragments assume exists, by a line that
// identifies the fragment: the test fails on a fragment it does not know,
// so a new snippet gets its set-up here.
var setups = map[string]string{
	"t, err := c.Transactions.Get(ctx, transactionID)":           "transactionID := s.deferred(t); splitToken := s.splitToken(t, transactionID)",
	"rf, err := c.Transactions.Refund(ctx, captureID":            "captureID, depositID := s.completed(t); pendingID := s.pending(t)",
	"d := &models.EstablishData{":                                "",
	"bal, err := c.Accounts.Balance(ctx, retrievalID)":           "retrievalID := s.retrieval(t)",
	"u, err := c.Identity.User(ctx, id)":                         "id := s.identityReady(t)",
	"tier := 2":                                                  "",
	"cust, err := c.Customers.Create(ctx":                        "",
	"h := bankpay.NewWebhookHandler(creds":                       "creds, mux := s.creds, http.NewServeMux()",
	"dev := bankpay.NewWebhookHandler(creds, handle":             "creds, base, handle := s.creds, s.srv.URL, func(context.Context, *bankpay.Event) error { return nil }",
	"dep, err := c.Transactions.Deposit(ctx, id, p)\nvar apiErr": "id, p := s.disbursement(t), s.deposit()",
	"c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(base), bankpay.WithRetryNonIdempotent())": "creds, base, id, p := s.creds, s.srv.URL, s.disbursement(t), s.deposit()",
	"c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(base), bankpay.WithTransport(":            "creds, base, id, p, reqID := s.creds, s.srv.URL, s.disbursement(t), s.deposit(), \"req-1\"",
	"for txn, err := range c.Transactions.List(ctx":                                                   "id, p := s.disbursement(t), s.deposit(); if _, err := c.Transactions.Deposit(ctx, id, p); err != nil { return err }; ref := p.MerchantReference",
	"// the authorization Deposit was called with":                                                    "id, p := s.disbursement(t), s.deposit()",
}

var (
	topFunc  = regexp.MustCompile(`(?m)^func [\s\S]*?\n}\n`)
	declared = regexp.MustCompile(`(?m)^\s*([A-Za-z_][\w]*(?:\s*,\s*[A-Za-z_][\w]*)*)\s*:=`)
)

// TestReadmeSnippets writes every README snippet into a program of its own
// module (the SDK replaced by this checkout) and runs it with go test: the
// full program's main against the sandbox, each fragment as a function with
// the variables it assumes, and each test function as a test. A snippet
// that does not compile, or fails against the sandbox, fails this test.
func TestReadmeSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program: not in -short")
	}
	root, err := filepath.Abs("../..")
	require.NoError(t, err)
	dir := t.TempDir()
	var mainFile string
	var top, calls, funcs strings.Builder
	for i, sn := range readmeSnippets(t) {
		switch {
		case strings.HasPrefix(sn.code, "package main"):
			require.Empty(t, mainFile, "one full program")
			mainFile = sn.code
			calls.WriteString(fmt.Sprintf("\tt.Run(\"%s (main)\", func(t *testing.T) { s.env(t); main() })\n", sn.where()))
		case strings.HasPrefix(sn.code, "func Test"):
			top.WriteString(fmt.Sprintf("// %s\n%s\n", sn.where(), sn.code))
		default:
			setup, ok := "", false
			for key, s := range setups {
				if strings.Contains(sn.code, key) {
					setup, ok = s, true
				}
			}
			require.True(t, ok, "%s: a fragment without a set-up in setups:\n%s", sn.where(), sn.code)
			body := topFunc.ReplaceAllStringFunc(sn.code, func(f string) string {
				top.WriteString(fmt.Sprintf("// %s\n%s\n", sn.where(), f))
				return ""
			})
			var uses []string
			for _, m := range declared.FindAllStringSubmatch(body, -1) {
				for _, name := range strings.Split(m[1], ",") {
					if name = strings.TrimSpace(name); name != "_" && name != "err" {
						uses = append(uses, name)
					}
				}
			}
			name := fmt.Sprintf("snippet%d", i)
			funcs.WriteString(fmt.Sprintf("// %s\nfunc %s(t *testing.T, s *setup) error {\n\tctx, c := context.Background(), s.c\n\t_, _ = ctx, c\n", sn.where(), name))
			if setup != "" {
				funcs.WriteString("\t" + setup + "\n")
			}
			funcs.WriteString("\tvar err error\n\t_ = err\n\t{\n" + body + "\n")
			for _, u := range uses {
				funcs.WriteString("\t_ = " + u + "\n")
			}
			if declared.MatchString(body) || strings.Contains(body, "err =") {
				funcs.WriteString("\tif err != nil {\n\t\treturn err\n\t}\n")
			}
			funcs.WriteString("\t}\n\treturn nil\n}\n\n")
			calls.WriteString(fmt.Sprintf("\tt.Run(\"%s\", func(t *testing.T) {\n\t\tif err := %s(t, s); err != nil {\n\t\t\tt.Fatal(err)\n\t\t}\n\t})\n", sn.where(), name))
		}
	}
	require.NotEmpty(t, mainFile)
	test := strings.Replace(harness, "//TOP", top.String(), 1)
	test = strings.Replace(test, "//FUNCS", funcs.String(), 1)
	test = strings.Replace(test, "//CALLS", calls.String(), 1)
	goSum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	require.NoError(t, err)
	for name, content := range map[string]string{
		"go.mod": "module readmesnippets\n\ngo 1.23\n\nrequire github.com/bankpay/bankpay-go v0.0.0\n\nreplace github.com/bankpay/bankpay-go => " + root + "\n",
		"go.sum": string(goSum), "main.go": mainFile, "snippets_test.go": test,
	} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600))
	}
	cmd := exec.Command("go", "mod", "tidy")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "go mod tidy: %s", out)
	args := []string{"test", "-count=1", "-v"}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd = exec.Command("go", append(args, ".")...)
	cmd.Dir = dir
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	if err != nil {
		t.Logf("generated test:\n%s", numbered(test))
	}
	require.NoError(t, err, "the README snippets:\n%s", buf.String())
	t.Log(buf.String())
}

func numbered(s string) string {
	var b strings.Builder
	for i, l := range strings.Split(s, "\n") {
		fmt.Fprintf(&b, "%4d  %s\n", i+1, l)
	}
	return b.String()
}

// harness is the generated test file: the set-up the fragments assume, and
// stand-ins for the merchant's own functions they call.
const harness = `package main

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

var (
	_ = errors.Is
	_ = fmt.Sprint
	_ = log.Println
	_ = time.Second
)

// The merchant's own code the snippets call.
var creds bankpay.Credentials // set by TestReadme

func orderOfThisSession(*http.Request) string              { return "order-42" }
func readIdentityLater(context.Context, string) error       { return nil }
func store(context.Context, string, models.TransactionStatus) error { return nil }

// otelhttp stands in for go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp
// (examples/otel uses the real one, in a module of its own).
var otelhttp = struct {
	NewTransport func(http.RoundTripper) http.RoundTripper
}{func(rt http.RoundTripper) http.RoundTripper { return rt }}

type setup struct {
	srv   *bankpaytest.Server
	c     *bankpay.Client
	creds bankpay.Credentials
	n     int
}

func (s *setup) ref(p string) string { s.n++; return fmt.Sprintf("%s-%d", p, s.n) }

func (s *setup) env(t *testing.T) {
	t.Setenv("BANKPAY_ACCESS_ID", s.creds.AccessID)
	t.Setenv("BANKPAY_ACCESS_KEY", s.creds.AccessKey.Reveal())
	t.Setenv("BANKPAY_MERCHANT_ID", s.creds.MerchantID)
	t.Setenv("BANKPAY_BASE_URL", s.srv.URL)
}

func (s *setup) authorize(t *testing.T, d models.EstablishData) string {
	d.ReturnURL, d.CancelURL = "https://shop.example/return", "https://shop.example/cancel"
	if err := s.c.SignEstablishData(&d); err != nil {
		t.Fatal(err)
	}
	_, txn, err := s.srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.srv.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return txn.TransactionID
}

func (s *setup) deferred(t *testing.T) string {
	return s.authorize(t, models.EstablishData{Currency: models.USD, Amount: "500.00", MerchantReference: s.ref("deferred"),
		PaymentType: models.PaymentTypeDeferred, Description: "order",
		Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{Address1: "1 Main St", City: "Austin",
			State: "TX", Zip: "73301", Country: "US"}}})
}

func (s *setup) retrieval(t *testing.T) string {
	return s.authorize(t, models.EstablishData{Currency: models.USD, MerchantReference: s.ref("retrieval"),
		PaymentType: models.PaymentTypeRetrieval, Description: "data"})
}

func (s *setup) identity(t *testing.T) string {
	return s.authorize(t, models.EstablishData{Currency: models.USD, Amount: "10.00", MerchantReference: s.ref("kyc"),
		PaymentType: models.PaymentTypeDeferred, Description: "kyc", KYCType: models.KYCTypeIdentity,
		Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{Country: "US"}}})
}

// identityReady is identity with the identity data delivered (the sandbox's
// clock moved past the providers' checks).
func (s *setup) identityReady(t *testing.T) string {
	id := s.identity(t)
	s.srv.Advance(time.Minute)
	if err := s.srv.Flush(context.Background()); err != nil {
		t.Fatal(err)
	}
	return id
}

func (s *setup) disbursement(t *testing.T) string {
	auth, err := s.c.Transactions.Establish(context.Background(), &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: s.ref("disb"),
		Description: "payout", Account: &models.Account{AccountNumber: bankpaytest.AccountVerified,
			RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe", Type: 1}})
	if err != nil {
		t.Fatal(err)
	}
	return auth.TransactionID
}

// splitToken is the split token of authorization id's Authorize event.
func (s *setup) splitToken(t *testing.T, id string) string {
	for _, e := range s.srv.EventsFor(id) {
		if e.EventType == models.EventAuthorize && e.Raw.Get("splitToken") != "" {
			return e.Raw.Get("splitToken")
		}
	}
	t.Fatalf("no split token for %s", id)
	return ""
}

// completed returns a capture and a deposit, both Completed.
func (s *setup) completed(t *testing.T) (captureID, depositID string) {
	ctx := context.Background()
	auth := s.deferred(t)
	cp, err := s.c.Transactions.Capture(ctx, auth, &bankpay.CaptureParams{MerchantReference: s.ref("cap"), Amount: "30.00", SplitToken: s.splitToken(t, auth)})
	if err != nil {
		t.Fatal(err)
	}
	dep, err := s.c.Transactions.Deposit(ctx, s.disbursement(t), s.deposit())
	if err != nil {
		t.Fatal(err)
	}
	s.srv.Advance(time.Minute)
	s.srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	return cp.TransactionID, dep.TransactionID
}

// pending returns a deposit the network has not picked up yet.
func (s *setup) pending(t *testing.T) string {
	dep, err := s.c.Transactions.Deposit(context.Background(), s.disbursement(t), s.deposit())
	if err != nil {
		t.Fatal(err)
	}
	return dep.TransactionID
}

func (s *setup) deposit() *bankpay.DepositParams {
	return &bankpay.DepositParams{MerchantReference: s.ref("dep"), Amount: "10.00"}
}

//TOP

//FUNCS

func TestReadme(t *testing.T) {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	s := &setup{srv: srv, c: srv.Client(), creds: srv.Credentials()}
	creds = s.creds
//CALLS
}
`
