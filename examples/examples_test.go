package examples_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// examples are the runnable programs below examples/, each with the lines
// its output must contain when it runs against the embedded sandbox.
var examples = map[string][]string{
	"payout":        {"VerifyRedirect", "processor RTP", "settles in real time", "event Complete", "status Completed (4)", "payout: OK"},
	"accountdata":   {"Accounts.Balance", "routing number 124003116", "Accounts.User", "accountdata: OK"},
	"cashflow":      {"Accounts.Summary", "7 days", "30 days", "90 days", "cashflow: OK"},
	"moneytransfer": {"Transactions.Capture", ": Capture, status Authorized (2)", "code 200", "moneytransfer: OK"},
	"identity":      {"ErrIdentityNotReady", "IdentityVerificationDataRetrieved", "CustomerIdentityVerified", "eligible true", "eligible false", "Registered", "Void", "identity: OK"},
	"disbursement":  {"Transactions.Establish(Disbursement", "status Authorized (2), 0.00 USD", "status Processed (3)", "Tue 2025-01-14", "status Completed (4)", "status Denied (8)", "status Reversed (10)", "disbursement: OK"},
	"tokenize":      {"the same, unique per merchant", "third-party score 700", "HTTP 401, code 375", "tokenize: OK"},
	"vip":           {"vip 1", "vip 3", "vip 0 (not VIP)", "vip 2", "HTTP 400, code 200", "vip: OK"},
	"webhooks":      {"401 Unauthorized", `msg="bankpay: webhook: request rejected" status=401`, "already processed", "attempts responded 500, 200", "webhooks: OK"},
	"checkout":      {"checkout: charged 25.00 USD with capture", "Completed after events Process, Complete", "checkout: refunded 25.00 USD", "checkout: OK"},
	"quickstart":    {"Accounts.Tokenize", "status Completed (4)", "VerifyRedirect", "90 days", "quickstart: OK"},
	"reconcile":     {"*bankpay.NetworkError, Sent true, after 1 attempt(s)", "found: transaction", ": Deposit, status Authorized (2), 75.00 USD", "ErrNotFound", "*bankpay.ValidationError: bankpay: invalid originalTransactionId", "1 deposit", "pending 75.00", "reconcile: OK"},
	"refund":        {"Transactions.Refund", "paid 75.00, refunded 30.00, balance 45.00", "status PartiallyRefunded (11)", "code 331", "status Refunded (12)", "event Refund", "refund: OK"},
	"disputes":      {"3 countries: US", "6 providers", "event Dispute", "returnType R10, amountReturned 120.00", "Representment, status Authorized (2)", "recovered once", "HTTP 400, code 200", "Representment, status Completed (4)", "disputes: OK"},
	"customers":     {"Customers.Create", "1 customer(s)", "known: false", "known: true", "customer.name: no match", "customer.email: match", "customers: OK"},
	"verifyaccount": {"verified true, score 8/10", "verified true, score 9/10", "verified false, score 2/10", "fails the IBAN checksum", "verifyaccount: OK"},
}

// shapeWants are further lines of an example's output in one response
// shape: Establish's answer is the spec's abbreviated transaction (status 0,
// message Authorized) wrapped, the OpenAPI's EstablishData (id, url, no
// status) bare.
var shapeWants = map[string]map[string][]string{
	"wrapped": {"disbursement": {"status New (0), message Authorized"}},
	"bare":    {"disbursement": {"established, 0.00 USD", "/authorize?transactionId=", "(its type and status: Transactions.Get)"}},
}

// stopsAgainstService are the examples that reach a step needing the user's
// browser or the sandbox clock when run against a configured service.
var stopsAgainstService = map[string]bool{
	"payout": true, "accountdata": true, "cashflow": true, "moneytransfer": true,
	"identity": true, "disbursement": true, "quickstart": true, "checkout": true, "refund": true,
	"disputes": true, "customers": true,
}

// exampleArgs are the command-line arguments of an example run: checkout is
// a web server and runs one checkout over HTTP with -selftest.
var exampleArgs = map[string][]string{"checkout": {"-selftest"}}

// runTimeout bounds one example run; each takes milliseconds.
const runTimeout = 30 * time.Second

var (
	buildOnce sync.Once
	binDir    string
	buildErr  error
	buildOut  []byte
)

// build compiles every example once, in one go build, into a temporary
// directory (race-enabled when the tests are). Only with BANKPAY_EXAMPLES=1
// (.ci/run sets it): from an empty build cache, linking sixteen race-enabled
// programs and running them fifty times holds one of the two test slots for
// about 9 s and takes about 10 s of CPU; the default run still compiles and
// vets every example.
func build(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs the example programs")
	}
	if os.Getenv("BANKPAY_EXAMPLES") != "1" {
		t.Skip("builds and runs the example programs: BANKPAY_EXAMPLES=1 (.ci/run sets it)")
	}
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		binDir, buildErr = os.MkdirTemp("", "bankpay-examples-")
		if buildErr != nil {
			return
		}
		// -s -w: no symbol table or DWARF, which makes linking ten programs
		// about 40% cheaper.
		args := []string{"build", "-ldflags=-s -w", "-o", binDir + string(os.PathSeparator)}
		if raceEnabled {
			args = append(args, "-race")
		}
		for name := range examples {
			args = append(args, "./"+name)
		}
		cmd := exec.Command(goTool, args...)
		cmd.Env = cleanEnv()
		buildOut, buildErr = cmd.CombinedOutput()
	})
	require.NoError(t, buildErr, "go build of the examples: %v\n%s", buildErr, buildOut)
	return binDir
}

func TestMain(m *testing.M) {
	testmain.NoExitPause()
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// TestEveryExampleHasATest keeps the table in step with the directories.
func TestEveryExampleHasATest(t *testing.T) {
	entries, err := os.ReadDir(".")
	require.NoError(t, err)
	found := map[string]bool{}
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "internal" || e.Name() == "testdata" {
			continue
		}
		if _, err := os.Stat(filepath.Join(e.Name(), "main.go")); err != nil {
			continue
		}
		if _, err := os.Stat(filepath.Join(e.Name(), "go.mod")); err == nil {
			continue // a module of its own (otel), tested by .ci/run
		}
		found[e.Name()] = true
		assert.Contains(t, examples, e.Name(), "example %s is not run by TestExamples: add it to the examples table", e.Name())
	}
	for name := range examples {
		assert.True(t, found[name], "example %s in the table has no %s/main.go", name, name)
	}
}

// cleanEnv is the environment without the BANKPAY_* variables, so that the
// examples pick the embedded sandbox. A race-enabled program sleeps 1s at
// exit by default: GORACE's atexit_sleep_ms=0 saves that for each run.
func cleanEnv() []string {
	var env []string
	gorace := "atexit_sleep_ms=0"
	for _, kv := range os.Environ() {
		switch {
		case strings.HasPrefix(kv, "BANKPAY_"):
		case strings.HasPrefix(kv, "GORACE="):
			gorace = strings.TrimPrefix(kv, "GORACE=") + " " + gorace
		default:
			env = append(env, kv)
		}
	}
	return append(env, "GORACE="+gorace)
}

type result struct {
	code           int
	stdout, stderr string
}

func runExample(t *testing.T, bin string, env []string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, exampleArgs[filepath.Base(bin)]...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := result{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	require.NoError(t, ctx.Err(), "%s did not finish within %s\nstdout:\n%s\nstderr:\n%s", filepath.Base(bin), runTimeout, r.stdout, r.stderr)
	if r.code == -1 {
		require.NoError(t, err, "running %s: %v", filepath.Base(bin), err)
	}
	t.Logf("%s ran in %s", filepath.Base(bin), time.Since(start).Round(time.Millisecond))
	return r
}

// TestExamples builds every example and runs it against the embedded
// sandbox, responding wrapped (the spec) and bare (the OpenAPI,
// BANKPAY_SANDBOX_BARE=1): exit code 0, the expected output, nothing on
// stderr.
func TestExamples(t *testing.T) {
	dir := build(t)
	for _, mode := range []struct{ shape, env string }{{"wrapped", ""}, {"bare", "BANKPAY_SANDBOX_BARE=1"}} {
		env := cleanEnv()
		if mode.env != "" {
			env = append(env, mode.env)
		}
		t.Run(mode.shape, func(t *testing.T) { runExamples(t, dir, env, mode.shape) })
	}
}

func runExamples(t *testing.T, dir string, env []string, shape string) {
	for name, want := range examples {
		t.Run(name, func(t *testing.T) {
			t.Parallel() // bounded by -parallel (GOMAXPROCS by default)
			r := runExample(t, filepath.Join(dir, name), env)
			require.Equal(t, 0, r.code, "exit code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			assert.Contains(t, r.stdout, "Using the embedded bankpaytest sandbox", "the example did not use the embedded sandbox with %s responses:\n%s", shape, r.stdout)
			assert.Contains(t, r.stdout, shape+" responses", "the example did not use the embedded sandbox with %s responses:\n%s", shape, r.stdout)
			for _, w := range append(append([]string(nil), want...), shapeWants[shape][name]...) {
				assert.Contains(t, r.stdout, w, "output lacks %q:\n%s", w, r.stdout)
			}
			assert.Empty(t, r.stderr, "stderr is not empty:\n%s", r.stderr)
		})
	}
}

// TestExamplesAgainstConfiguredService runs every example with BANKPAY_*
// pointing at a sandbox server started here, standing in for a real
// service: the examples use it, and those that need the user's browser or
// the sandbox clock stop cleanly with exit code 0.
func TestExamplesAgainstConfiguredService(t *testing.T) {
	dir := build(t)
	srv := bankpaytest.NewServer(bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}))
	t.Cleanup(srv.Close)
	c := srv.Credentials()
	env := append(cleanEnv(),
		"BANKPAY_ACCESS_ID="+c.AccessID,
		"BANKPAY_ACCESS_KEY="+c.AccessKey.Reveal(),
		"BANKPAY_MERCHANT_ID="+c.MerchantID,
		"BANKPAY_BASE_URL="+srv.URL,
	)
	// The subtests share srv: wait for them before Cleanup closes it.
	t.Run("group", func(t *testing.T) {
		for name := range examples {
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				r := runExample(t, filepath.Join(dir, name), env)
				require.Equal(t, 0, r.code, "exit code %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
				assert.Contains(t, r.stdout, "Using the service at "+srv.URL, "the example did not use the configured service:\n%s", r.stdout)
				stopped := strings.Contains(r.stdout, "Stopping here: ")
				assert.Equal(t, stopsAgainstService[name], stopped, "stopped early: %t, want %t\n%s", stopped, stopsAgainstService[name], r.stdout)
				if !stopped {
					assert.Contains(t, r.stdout, name+": OK", "output lacks %q:\n%s", name+": OK", r.stdout)
				}
			})
		}
	})
	// The server saw the examples' calls: the tokenize example made some.
	assert.NotEmpty(t, srv.Events(), "no transaction was created on the configured service")
}

// TestExamplesFail checks that an example exits non-zero, with the reason
// on stderr, when the set-up or a call fails.
func TestExamplesFail(t *testing.T) {
	dir := build(t)
	srv := bankpaytest.NewServer()
	t.Cleanup(srv.Close)
	c := srv.Credentials()
	for _, tc := range []struct {
		name string
		env  []string
		want string
	}{
		{"partial configuration", []string{"BANKPAY_ACCESS_ID=x"}, "BANKPAY_ACCESS_KEY, BANKPAY_MERCHANT_ID not set"},
		{"wrong access key", []string{
			"BANKPAY_ACCESS_ID=" + c.AccessID, "BANKPAY_ACCESS_KEY=wrong-key",
			"BANKPAY_MERCHANT_ID=" + c.MerchantID, "BANKPAY_BASE_URL=" + srv.URL,
		}, "401"},
		{"plain http to a remote host", []string{
			"BANKPAY_ACCESS_ID=a", "BANKPAY_ACCESS_KEY=b", "BANKPAY_MERCHANT_ID=c", "BANKPAY_BASE_URL=http://bankpay.example/api/v1",
		}, "NewClient"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := runExample(t, filepath.Join(dir, "tokenize"), append(cleanEnv(), tc.env...))
			require.NotEqual(t, 0, r.code, "exit code 0, want non-zero\nstdout:\n%s", r.stdout)
			assert.Contains(t, r.stderr, "tokenize: ", "stderr %q does not explain the failure (want %q)", r.stderr, tc.want)
			assert.Contains(t, r.stderr, tc.want, "stderr %q does not explain the failure (want %q)", r.stderr, tc.want)
			assert.NotContains(t, r.stdout+r.stderr, "wrong-key", "the output shows the access key")
		})
	}
}
