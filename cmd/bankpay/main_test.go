package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// cli runs the command against srv's credentials and returns the exit
// code, standard output and standard error.
type cli struct {
	t    *testing.T
	srv  *bankpaytest.Server
	vars map[string]string
	opts []bankpay.Option
}

// cliStart is the sandbox clock's start in newCLI: a Thursday morning, not
// the real time. The tests submit a movement with Advance(time.Minute) and
// then expect it Completed after AdvanceBankingDays(CompletionBankingDays):
// from the real time, that minute crosses into a Saturday or a Sunday in
// the last minute of a Friday or a Saturday (UTC), the banking days then
// count from the weekend day, and the movement is still Processed.
var cliStart = time.Date(2025, 3, 6, 10, 0, 0, 0, time.UTC)

// newCLI is a CLI test environment over a sandbox of its own, whose clock
// starts at cliStart.
func newCLI(t *testing.T) *cli {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(cliStart))
	t.Cleanup(srv.Close)
	c := srv.Credentials()
	return &cli{t: t, srv: srv, vars: map[string]string{"BANKPAY_ACCESS_ID": c.AccessID, "BANKPAY_ACCESS_KEY": c.AccessKey.Reveal(),
		"BANKPAY_MERCHANT_ID": c.MerchantID, "BANKPAY_BASE_URL": srv.URL}}
}

func (c *cli) run(stdin string, args ...string) (int, string, string) {
	var out, errOut bytes.Buffer
	e := &env{getenv: func(k string) string { return c.vars[k] }, stdin: strings.NewReader(stdin), stdout: &out, stderr: &errOut, clientOpts: c.opts}
	code := run(context.Background(), args, e)
	return code, out.String(), errOut.String()
}

// regexpField is the value of a field of printTransaction's table.
func regexpField(t *testing.T, out, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s+(\S+)`).FindStringSubmatch(out)
	require.NotNil(t, m, "no %s in:\n%s", name, out)
	return m[1]
}

// disbursement establishes a Disbursement authorization in the sandbox.
func (c *cli) disbursement(ref string) *models.Transaction {
	auth, err := c.srv.Client().Transactions.Establish(context.Background(), &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: ref, Description: "payout",
		Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe", Type: 1},
	})
	require.NoError(c.t, err)
	return auth
}

func TestTransactionsGet(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-auth-1")

	code, out, errOut := c.run("", "transactions", "get", auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `transactionId\s+`+auth.TransactionID, out)
	assert.Regexp(t, `status\s+Authorized \(2\)`, out)
	assert.Regexp(t, `merchantReference\s+cli-auth-1`, out)

	code, out, _ = c.run("", "-json", "transactions", "get", auth.TransactionID)
	require.Equal(t, exitOK, code)
	var got models.Transaction
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Equal(t, auth.TransactionID, got.TransactionID)
	assert.Equal(t, models.StatusAuthorized, got.Status)

	code, _, errOut = c.run("", "transactions", "get", "100000000000404")
	assert.Equal(t, exitNotFound, code, errOut)
	assert.Contains(t, errOut, "not found")
}

func TestDeposit(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-auth-2")

	code, out, errOut := c.run("", "deposit", "-ref", "cli-dep-1", "-amount", "12.50", auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `type\s+Deposit \(6\)`, out)
	assert.Regexp(t, `amount\s+12.50 USD`, out)
	assert.Regexp(t, `originalTransactionId\s+`+auth.TransactionID, out)

	first := regexpField(t, out, "transactionId")

	// The same reference again is refused by the service, not paid twice:
	// already done, and the deposit the first call made is printed.
	code, out, errOut = c.run("", "deposit", "-ref", "cli-dep-1", "-amount", "12.50", auth.TransactionID)
	assert.Equal(t, exitDone, code, errOut)
	assert.Contains(t, errOut, "210")
	assert.Contains(t, errOut, "already done")
	assert.Equal(t, first, regexpField(t, out, "transactionId"))
	assert.Regexp(t, `merchantReference\s+cli-dep-1`, out)
	// The reference used from another authorization: refused, nothing
	// moved by this call, nothing to show.
	other := c.disbursement("cli-auth-2b")
	code, out, errOut = c.run("", "deposit", "-ref", "cli-dep-1", "-amount", "12.50", other.TransactionID)
	assert.Equal(t, exitFailed, code, errOut)
	assert.Contains(t, errOut, "used for another one")
	assert.Empty(t, out)

	// Bad input is a usage error and nothing is sent.
	before := len(c.srv.EventsFor(auth.TransactionID))
	code, _, errOut = c.run("", "deposit", "-ref", "cli-dep-2", "-amount", "12.5", auth.TransactionID)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "amount")
	code, _, _ = c.run("", "deposit", "-ref", "cli-dep-2")
	assert.Equal(t, exitUsage, code)
	assert.Len(t, c.srv.EventsFor(auth.TransactionID), before)
}

// lostResponse lets requests reach the sandbox and then loses the response
// of a deposit, as a connection reset would.
type lostResponse struct {
	base     http.RoundTripper
	deposits *atomic.Int32
}

func (l lostResponse) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := l.base.RoundTrip(r)
	if err == nil && strings.HasSuffix(r.URL.Path, "/deposit") {
		l.deposits.Add(1)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, io.ErrUnexpectedEOF
	}
	return resp, err
}

func TestDepositOutcomeUnknown(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-auth-3")
	var deposits atomic.Int32
	c.opts = []bankpay.Option{bankpay.WithTransport(func(rt http.RoundTripper) http.RoundTripper { return lostResponse{rt, &deposits} })}

	code, _, errOut := c.run("", "deposit", "-ref", "cli-dep-lost", "-amount", "5.00", auth.TransactionID)
	assert.Equal(t, exitUncertain, code, errOut)
	assert.Contains(t, errOut, "do not pay again: look it up with bankpay transactions find -original "+auth.TransactionID+" -ref cli-dep-lost -type deposit",
		"the lookup, with this call's values")
	// The deposit reached the service once and was not retried: the exit
	// code tells the script to look it up, not to pay again.
	assert.EqualValues(t, 1, deposits.Load())

	// Looked up from its authorization by its reference: it was made.
	code, out, errOut := c.run("", "transactions", "find", "-original", auth.TransactionID, "-ref", "cli-dep-lost", "-type", "deposit")
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `type\s+Deposit \(6\)`, out)
	assert.Regexp(t, `merchantReference\s+cli-dep-lost`, out)
	assert.Regexp(t, `originalTransactionId\s+`+auth.TransactionID, out)
	// A reference never used: not found, the whole list read (pay with it).
	code, _, _ = c.run("", "transactions", "find", "-original", auth.TransactionID, "-ref", "cli-dep-never", "-type", "deposit")
	assert.Equal(t, exitNotFound, code)
	code, _, _ = c.run("", "transactions", "find")
	assert.Equal(t, exitUsage, code, "-ref is required")
	// Running the deposit again: already done, the deposit printed, and
	// still one on the wire.
	c.opts = nil
	code, out, errOut = c.run("", "deposit", "-ref", "cli-dep-lost", "-amount", "5.00", auth.TransactionID)
	assert.Equal(t, exitDone, code, errOut)
	assert.Regexp(t, `merchantReference\s+cli-dep-lost`, out)
}

func TestUsage(t *testing.T) {
	c := newCLI(t)
	code, _, errOut := c.run("")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "usage: bankpay")
	code, _, errOut = c.run("", "-h")
	assert.Equal(t, exitUsage, code)
	for _, s := range []string{"4 not found", "5 outcome unknown", "6 already done", "7 lookup incomplete", "8 no authorization", "-timeout",
		"find -original ID -ref REF", "authorization -ref REF", "need a reference"} {
		assert.Contains(t, errOut, s)
	}
	code, _, errOut = c.run("", "refund-everything")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, `unknown command "refund-everything"`)
	code, _, _ = c.run("", "transactions")
	assert.Equal(t, exitUsage, code)

	// Every flag a command's usage line names is one the command takes.
	flagRE := regexp.MustCompile(`(?:^|[ \[])(-[a-z][a-z0-9-]*)`)
	for name, cmd := range commands {
		if name == "transactions" || name == "payments" || name == "sandbox" || name == "events" {
			continue // subcommands, or bankpay-sandbox's own flags
		}
		code, _, errOut := c.run("", name, "-h")
		assert.Equal(t, exitUsage, code, name)
		for _, m := range flagRE.FindAllStringSubmatch(cmd.usage, -1) {
			assert.Regexp(t, `(?m)^  `+regexp.QuoteMeta(m[1])+`( |$)`, errOut, "%s -h lists %s, which its usage line names", name, m[1])
		}
	}

	delete(c.vars, "BANKPAY_ACCESS_KEY")
	code, _, errOut = c.run("", "transactions", "get", "1")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "BANKPAY_ACCESS_KEY not set")
}

func TestSignEstablish(t *testing.T) {
	c := newCLI(t)
	data := `{"description":"Order 42","currency":"USD","amount":"10.00","merchantReference":"ref-42","paymentType":"Deferred",
		"returnUrl":"https://shop.example/return","cancelUrl":"https://shop.example/cancel","customer":{"name":"Jane Doe","address":{"city":"Austin","country":"US"}}}`
	file := filepath.Join(t.TempDir(), "establish.json")
	require.NoError(t, os.WriteFile(file, []byte(data), 0o600))
	creds := c.srv.Credentials()
	wantCanonical := "accessId=" + creds.AccessID + "&merchantId=" + creds.MerchantID +
		"&description=Order 42&currency=USD&amount=10.00&merchantReference=ref-42&paymentType=Deferred" +
		"&customer.name=Jane Doe&customer.address.city=Austin&customer.address.country=US"

	code, out, errOut := c.run("", "sign-establish", file)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, wantCanonical)
	assert.Contains(t, out, sign.Sign(sign.SHA1, creds.AccessKey.Reveal(), wantCanonical))
	assert.NotContains(t, out, creds.AccessKey.Reveal())

	code, out, _ = c.run(data, "-json", "sign-establish", "-sha512", "-")
	require.Equal(t, exitOK, code)
	var got struct {
		Canonical, RequestSignature string
		EstablishData               models.EstablishData
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, wantCanonical, got.Canonical)
	assert.True(t, strings.HasPrefix(got.RequestSignature, sign.SHA512Prefix))
	assert.True(t, sign.Verify(creds.AccessKey.Reveal(), wantCanonical, got.RequestSignature))
	assert.Equal(t, got.RequestSignature, got.EstablishData.RequestSignature)

	code, _, _ = c.run("{", "sign-establish", "-")
	assert.Equal(t, exitUsage, code)
}

func TestVerifyRedirect(t *testing.T) {
	c := newCLI(t)
	d := models.EstablishData{Description: "Order", Currency: models.USD, Amount: "10.00", MerchantReference: "cli-redir-1",
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel"}
	require.NoError(t, c.srv.Client().SignEstablishData(&d))
	redirect, _, err := c.srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(t, err)

	code, out, errOut := c.run("", "verify-redirect", "-expect-ref", "cli-redir-1", redirect)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "signature valid (HMAC-SHA1)")
	assert.Regexp(t, `status\s+Authorized \(2\)`, out)

	code, _, errOut = c.run("", "verify-redirect", strings.Replace(redirect, "cli-redir-1", "cli-redir-2", 1))
	assert.Equal(t, exitBadSig, code, errOut)
	code, _, _ = c.run("", "verify-redirect", "-expect-ref", "other", redirect)
	assert.Equal(t, exitBadSig, code)
}

func TestVerifyNotification(t *testing.T) {
	c := newCLI(t)
	body := "eventId=ev-1&eventType=Authorize&objectId=T-1&objectType=Transaction&merchantReference=r-1&createdAt=1700000000000&status=2"
	auth, err := bankpaytest.SignNotification([]byte(body), c.srv.Credentials())
	require.NoError(t, err)
	file := filepath.Join(t.TempDir(), "body")
	require.NoError(t, os.WriteFile(file, []byte(body), 0o600))

	code, out, errOut := c.run("", "verify-notification", "-body", file, "-authorization", auth)
	require.Equal(t, exitOK, code, errOut)
	assert.Contains(t, out, "signature valid")
	assert.Regexp(t, `eventType\s+Authorize`, out)
	assert.Regexp(t, `transactionId\s+T-1`, out)

	code, _, _ = c.run(strings.Replace(body, "status=2", "status=4", 1), "verify-notification", "-body", "-", "-authorization", auth)
	assert.Equal(t, exitBadSig, code, "a changed body does not verify")
	code, _, _ = c.run(body, "verify-notification", "-body", "-")
	assert.Equal(t, exitUsage, code)
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader goroutine.
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

func TestSandbox(t *testing.T) {
	var out, errOut syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int)
	go func() {
		done <- run(ctx, []string{"sandbox", "-addr", "127.0.0.1:0"}, &env{getenv: func(string) string { return "" }, stdout: &out, stderr: &errOut})
	}()
	require.Eventually(t, func() bool { return strings.Contains(out.String(), "Press Ctrl+C") }, 10*time.Second, 10*time.Millisecond)
	cancel()
	assert.Equal(t, exitOK, <-done, errOut.String())
	assert.Contains(t, out.String(), "API base URL:  http://127.0.0.1:")
}

func TestTransactionsList(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-auth-list")
	for i := 1; i <= 3; i++ {
		code, _, errOut := c.run("", "deposit", "-ref", fmt.Sprintf("cli-list-%d", i), "-amount", "1.00", auth.TransactionID)
		require.Equal(t, exitOK, code, errOut)
	}

	code, out, errOut := c.run("", "transactions", "list", "-original", auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, out)
	assert.Regexp(t, `^TRANSACTION\s+TYPE\s+STATUS\s+AMOUNT\s+REFERENCE\s+ORIGINAL\s+CREATED`, lines[0])
	for _, l := range lines[1:] {
		assert.Regexp(t, `\sDeposit\s+Authorized\s+1.00 USD\s+cli-list-\d`, l)
	}

	code, out, _ = c.run("", "-json", "transactions", "list", "-original", auth.TransactionID, "-limit", "2")
	require.Equal(t, exitOK, code)
	var got []models.Transaction
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Len(t, got, 2)

	// -ref is the payment's (the authorization's) reference: the
	// authorization and its deposits; a deposit's own reference lists none.
	code, out, _ = c.run("", "-json", "transactions", "list", "-ref", "cli-auth-list")
	require.Equal(t, exitOK, code)
	got = nil
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	assert.Len(t, got, 4)
	code, out, _ = c.run("", "-json", "transactions", "list", "-ref", "cli-list-2")
	require.Equal(t, exitOK, code)
	assert.Equal(t, "[]\n", out)

	code, out, _ = c.run("", "transactions", "find", "-original", auth.TransactionID, "-ref", "cli-list-3", "-type", "6")
	require.Equal(t, exitOK, code)
	assert.Regexp(t, `merchantReference\s+cli-list-3`, out)
	code, out, _ = c.run("", "transactions", "authorization", "-ref", "cli-auth-list")
	require.Equal(t, exitOK, code, "the authorization, by its reference")
	assert.Regexp(t, `transactionId\s+`+auth.TransactionID, out)
	// A deposit's reference is no authorization's: exit 8, never 4 (not
	// made: pay again).
	code, _, errOut = c.run("", "transactions", "authorization", "-ref", "cli-list-3")
	assert.Equal(t, exitNoAuth, code, errOut)
	assert.Contains(t, errOut, "no authorization has this merchantReference")
	// find needs the transaction the call was made against: nothing is sent.
	sent := c.countRequests()
	code, _, errOut = c.run("", "transactions", "find", "-ref", "cli-list-3", "-type", "deposit")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "transactions authorization -ref REF")
	assert.Zero(t, sent.Load())

	code, _, errOut = c.run("", "transactions", "list", "-since", "yesterday")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, errOut, "RFC 3339")
}

func TestRefund(t *testing.T) {
	c := newCLI(t)
	d := models.EstablishData{Description: "Order", Currency: models.USD, Amount: "80.00", MerchantReference: "cli-pay-1",
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel"}
	require.NoError(t, c.srv.Client().SignEstablishData(&d))
	_, auth, err := c.srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(t, err)
	require.NoError(t, c.srv.Flush(context.Background()))
	var token string
	for _, ev := range c.srv.EventsFor(auth.TransactionID) {
		if ev.EventType == models.EventAuthorize {
			token = ev.Raw.Get("splitToken")
		}
	}
	require.NotEmpty(t, token, "the Authorize event carries the split token")
	capture, err := c.srv.Client().Transactions.Capture(context.Background(), auth.TransactionID,
		&bankpay.CaptureParams{MerchantReference: "cli-pay-1-cap", Amount: "80.00", SplitToken: token})
	require.NoError(t, err)
	c.srv.Advance(time.Minute)
	c.srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)

	code, out, errOut := c.run("", "refund", "-ref", "cli-rf-1", "-amount", "30.00", capture.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	assert.Regexp(t, `type\s+Refund \(4\)`, out)
	assert.Regexp(t, `amount\s+30.00 USD`, out)
	assert.Regexp(t, `originalTransactionId\s+`+capture.TransactionID, out)

	code, _, errOut = c.run("", "refund", "-amount", "60.00", capture.TransactionID)
	assert.Equal(t, exitFailed, code, "over the balance is refused")
	assert.Contains(t, errOut, "331")

	code, out, errOut = c.run("", "-json", "refund", capture.TransactionID)
	require.Equal(t, exitOK, code, errOut)
	var rest models.Transaction
	require.NoError(t, json.Unmarshal([]byte(out), &rest))
	assert.Equal(t, models.Amount("50.00"), rest.Amount, "the rest of the payment")

	code, _, _ = c.run("", "refund", "-amount", "0.10", capture.TransactionID)
	assert.Equal(t, exitUsage, code, "below the minimum: refused before sending")
}

// With nothing configured, every command that calls the service says which
// variables are missing, points at "bankpay sandbox", and dials nothing.
func TestNothingConfigured(t *testing.T) {
	c := newCLI(t)
	sent := c.countRequests()
	c.vars = map[string]string{}
	for _, args := range [][]string{
		{"transactions", "get", "100000000001001"},
		{"capture", "-ref", "r", "-amount", "1.00", "-split-token", "t", "100000000001001"},
		{"deposit", "-ref", "r", "-amount", "1.00", "100000000001001"},
		{"refund", "100000000001001"},
		{"reclaim", "-amount", "1.00", "100000000001001"},
		{"cancel", "100000000001001"},
		{"payments", "get", "100000000001001"},
	} {
		code, out, errOut := c.run("", args...)
		assert.Equal(t, exitUsage, code, "%v", args)
		assert.Empty(t, out)
		assert.Contains(t, errOut, "BANKPAY_ACCESS_ID, BANKPAY_ACCESS_KEY, BANKPAY_MERCHANT_ID not set", "%v", args)
		assert.Contains(t, errOut, "bankpay sandbox", "%v", args)
	}
	assert.Zero(t, sent.Load(), "nothing was dialled")
}

// TestMoneyCommandsFaultTable is the fault table's CLI column: every
// money-moving command against every fault reaches the server at most once,
// and a fault after the request may have arrived exits 5 (outcome unknown:
// look it up before paying again), never 0 or 1 ("refused").
func TestMoneyCommandsFaultTable(t *testing.T) {
	const id = "1002581234567"
	commands := map[string][]string{
		"deposit": {"deposit", "-ref", "payout-9", "-amount", "10.00", id},
		"capture": {"capture", "-ref", "order-9", "-amount", "25.00", "-split-token", "tok", id},
		"refund":  {"refund", "-ref", "refund-9", "-amount", "5.00", id},
		"reclaim": {"reclaim", "-ref", "reclaim-9", "-amount", "5.00", id},
		"cancel":  {"cancel", id},
	}
	errorJSON := `{"errors":[{"domain":"x","code":100,"message":"internal"}]}`
	faults := []struct {
		name   string
		action faultinject.Action
		exit   int
		// timeout is the -timeout flag: the one row that can only end by
		// it (no response) waits 200 ms, not the 2 s the others are given
		// to answer under -race.
		timeout string
	}{
		{"503", faultinject.Respond(503, errorJSON), exitUncertain, ""},
		{"500", faultinject.Respond(500, errorJSON), exitUncertain, ""},
		{"reset after the request", faultinject.ResetAfterRequest(), exitUncertain, ""},
		{"reset mid-response", faultinject.ResetMidResponse(200, `{"transaction":{"transactionId":"T9","status":2}}`, 10), exitUncertain, ""},
		{"truncated body", faultinject.Truncate(200, `{"transaction":{"transactionId":"T9","status":2}}`, 12), exitUncertain, ""},
		{"not HTTP", faultinject.Garbage("acct 1000001700\r\n\r\n"), exitUncertain, ""},
		{"no response", faultinject.Hang(), exitUncertain, "200ms"},
	}
	for name, args := range commands {
		for _, f := range faults {
			t.Run(name+"/"+f.name, func(t *testing.T) {
				t.Parallel()
				srv := faultinject.NewServer(nil, f.action)
				defer srv.Close()
				c := &cli{t: t, vars: map[string]string{"BANKPAY_ACCESS_ID": "cli-id", "BANKPAY_ACCESS_KEY": "cli-key",
					"BANKPAY_MERCHANT_ID": "1002463580", "BANKPAY_BASE_URL": srv.URL + "/api/v1"}}
				timeout := f.timeout
				if timeout == "" {
					timeout = "2s"
				}
				code, stdout, stderr := c.run("", append([]string{"-timeout", timeout}, args...)...)
				posts := 0
				for _, r := range srv.Received() {
					if r.Method == http.MethodPost {
						posts++
					}
				}
				assert.LessOrEqual(t, posts, 1, "a money-moving command reached the server more than once")
				assert.Equal(t, f.exit, code, "stderr: %s", stderr)
				assert.NotContains(t, stderr, "1000001700")
				assert.NotContains(t, stdout+stderr, "cli-key", "the access key")
				assert.NotContains(t, stdout+stderr, "Basic ", "an Authorization header")
			})
		}
	}
}

// readmeCLI is the README's Operations CLI section followed by
// docs/cli.md, the page it links for each flag and -json field.
func readmeCLI(t *testing.T) string {
	raw, err := os.ReadFile("../../README.md")
	require.NoError(t, err)
	s := string(raw)
	start := strings.Index(s, "\n## Operations CLI\n")
	require.GreaterOrEqual(t, start, 0)
	end := strings.Index(s[start+1:], "\n## ")
	require.Greater(t, end, 0)
	section := s[start : start+1+end]
	require.Contains(t, section, "(docs/cli.md)", "the README's CLI section links docs/cli.md")
	detail, err := os.ReadFile("../../docs/cli.md")
	require.NoError(t, err)
	return section + "\n" + string(detail)
}

// jsonTags are the JSON names of struct v's fields.
func jsonTags(v any) []string {
	var out []string
	rt := reflect.TypeOf(v)
	for i := range rt.NumField() {
		out = append(out, strings.Split(rt.Field(i).Tag.Get("json"), ",")[0])
	}
	return out
}

// TestReadmeCLIJSONFields: the README names every field -json prints, for
// transactions, events and deliveries.
func TestReadmeCLIJSONFields(t *testing.T) {
	section := readmeCLI(t)
	for _, f := range append(append(jsonTags(eventView{}), jsonTags(deliveryLine{})...), transactionJSONOptional...) {
		assert.Contains(t, section, "`"+f+"`", "the README's Operations CLI section does not name the -json field %s", f)
	}
}

// TestReadmeLocalLoop runs the README's local-loop lines against a
// sandbox: each is a command line the CLI takes (no usage error), and
// listen runs until its context ends.
func TestReadmeLocalLoop(t *testing.T) {
	t.Parallel() // runs each line for 300 ms: beside the other waiting tests
	section := readmeCLI(t)
	block := regexp.MustCompile("(?s)```sh\n([^`]*listen -forward-to[^`]*)```").FindStringSubmatch(section)
	require.NotNil(t, block, "no local-loop block")
	c := newCLI(t)
	lines := strings.Split(strings.TrimSpace(block[1]), "\n")
	require.GreaterOrEqual(t, len(lines), 4)
	for _, line := range lines {
		line = strings.TrimSpace(strings.SplitN(line, "#", 2)[0])
		args := strings.Fields(strings.TrimPrefix(line, "go run ./cmd/bankpay"))
		require.NotEmpty(t, args, line)
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		var out, errOut syncBuffer
		code := run(ctx, args, &env{getenv: func(k string) string { return c.vars[k] }, stdin: strings.NewReader(""), stdout: &out, stderr: &errOut})
		cancel()
		assert.NotEqual(t, exitUsage, code, "%s: %s", line, errOut.String())
		if args[0] == "trigger" && len(args) == 2 {
			assert.Equal(t, exitOK, code, "%s: %s", line, errOut.String())
		}
	}
}

// TestFlagErrorsExit2: a flag a command does not know, a flag without its
// value and a bad value are usage errors (exit 2, nothing sent), in every
// command and subcommand.
func TestFlagErrorsExit2(t *testing.T) {
	c := newCLI(t)
	lines := [][]string{
		{"transactions", "get", "-bogus", "1"}, {"transactions", "find", "-bogus"}, {"transactions", "list", "-bogus"},
		{"transactions", "list", "-limit", "many"}, {"transactions", "list", "-status", "Shipped"}, {"transactions", "list", "-type", "-3"},
		{"refund", "-bogus", "1"}, {"deposit", "-amount"}, {"capture", "-bogus", "1"}, {"reclaim", "-bogus", "1"},
		{"cancel", "-bogus", "1"}, {"payments", "get", "-bogus", "1"}, {"sign-establish", "-bogus", "x"},
		{"verify-redirect", "-bogus", "x"}, {"verify-notification", "-bogus"}, {"sandbox", "-bogus"}, {"sandbox", "extra"},
		{"listen", "-bogus"}, {"listen", "-retries", "x", "-forward-to", "http://localhost/"}, {"trigger", "-bogus", "Complete"},
		{"events", "list", "-bogus"}, {"events", "resend", "1", "-bogus"}, {"events", "resend"}, {"trigger"},
	}
	for _, args := range lines {
		code, out, errOut := c.run("", args...)
		assert.Equal(t, exitUsage, code, "%v: %s", args, errOut)
		assert.Empty(t, out, "%v", args)
	}
	assert.Empty(t, c.srv.Events(), "nothing sent")
}

// TestTransactionsListFilters: -status and -type take names or codes,
// comma-separated; the table shows each transaction's original; -json
// prints the transactions with the fields the README documents.
func TestTransactionsListFilters(t *testing.T) {
	c := newCLI(t)
	auth := c.disbursement("cli-filter-auth")
	code, _, errOut := c.run("", "deposit", "-ref", "cli-filter-dep", "-amount", "2.00", auth.TransactionID)
	require.Equal(t, exitOK, code, errOut)

	for _, status := range []string{"authorized", "2", "Completed,Authorized"} {
		for _, typ := range []string{"Deposit", "6", "deposit,capture"} {
			code, out, errOut := c.run("", "transactions", "list", "-original", auth.TransactionID, "-status", status, "-type", typ)
			require.Equal(t, exitOK, code, errOut)
			lines := strings.Split(strings.TrimSpace(out), "\n")
			require.Len(t, lines, 2, "-status %s -type %s: %s", status, typ, out)
			assert.Regexp(t, `\sDeposit\s+Authorized\s+2.00 USD\s+cli-filter-dep\s+`+auth.TransactionID+`\s`, lines[1])
		}
	}
	code, out, _ := c.run("", "transactions", "list", "-ref", "cli-filter-auth", "-type", "Authorize")
	require.Equal(t, exitOK, code)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 2, out)
	assert.Regexp(t, `^`+auth.TransactionID+`\s+Authorize\s+Authorized\s.*\s-\s`, lines[1], "no original: -")
	code, out, _ = c.run("", "transactions", "list", "-original", auth.TransactionID, "-status", "Completed")
	require.Equal(t, exitOK, code)
	assert.Equal(t, 1, strings.Count(out, "\n"), "the header only: %s", out)

	code, out, _ = c.run("", "-json", "transactions", "list", "-original", auth.TransactionID)
	require.Equal(t, exitOK, code)
	var got []map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &got), out)
	require.Len(t, got, 1)
	var keys []string
	for k := range got[0] {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	assert.Subset(t, keys, transactionJSONFields, "the fields a transaction always has in -json (README, Operations CLI)")
	for _, k := range keys {
		assert.Contains(t, transactionJSONOptional, k, "a field -json prints that the README does not document")
	}
	assert.EqualValues(t, 6, got[0]["transactionType"], "codes as numbers, as the API sends them")
	assert.EqualValues(t, 2, got[0]["status"])
}

// transactionJSONFields are the fields every transaction has in -json
// output, and transactionJSONOptional every field it may have, as the
// README's Operations CLI section lists them.
var (
	transactionJSONFields   = []string{"amount", "createdAt", "currency", "merchantReference", "status", "transactionId", "transactionType"}
	transactionJSONOptional = append([]string{"originalTransactionId", "payment", "paymentProviderTransaction", "statusMessage",
		"statusCode", "processedAt", "completedAt", "updatedAt", "ppTrxId", "paymentProcessorType", "recordVersion", "paid",
		"refunded", "balance", "expiredAt", "preAuthorized", "url"}, transactionJSONFields...)
)
