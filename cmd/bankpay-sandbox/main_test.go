package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sandboxcmd"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// start runs the sandbox with args on a free loopback port and returns the
// "key: value" fields of its banner (whole lines split at the first colon)
// and the whole banner; stop ends it and checks that run returned nil.
func start(t *testing.T, args ...string) (fields map[string]string, banner string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, append([]string{"-addr", "127.0.0.1:0"}, args...), pw, io.Discard)
		pw.Close()
	}()

	fields = map[string]string{}
	var b strings.Builder
	sc := bufio.NewScanner(pr)
	for sc.Scan() {
		line := sc.Text()
		b.WriteString(line + "\n")
		if k, v, ok := strings.Cut(strings.TrimSpace(line), ":"); ok && !strings.Contains(k, " -") {
			fields[k] = strings.TrimSpace(v)
		}
		if strings.HasPrefix(line, "Press Ctrl+C") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, pr) }()
	stopped := false
	stop = func() {
		t.Helper()
		if stopped {
			return
		}
		stopped = true
		cancel()
		err := <-done
		require.NoError(t, err, "run: %v", err)
	}
	t.Cleanup(stop)
	return fields, b.String(), stop
}

func TestRun(t *testing.T) {
	fields, _, stop := start(t, "-access-id", "ID1", "-access-key", "KEY1", "-merchant-id", "77", "-start", "2024-03-01T10:00:00Z")
	base, control := fields["API base URL"], fields["control URL"]
	require.True(t, strings.HasSuffix(base, "/api/v1"), "banner fields %v", fields)
	require.True(t, strings.HasSuffix(control, "/sandbox"), "banner fields %v", fields)
	require.Equal(t, "ID1", fields["accessId"], "banner fields %v", fields)
	require.Equal(t, "KEY1", fields["accessKey"], "banner fields %v", fields)
	require.Equal(t, "77", fields["merchantId"], "banner fields %v", fields)

	req, _ := http.NewRequest(http.MethodPost, control+"/advance?d=72h", nil)
	req.SetBasicAuth("ID1", "KEY1")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	var now struct {
		Time string `json:"time"`
	}
	err = json.NewDecoder(resp.Body).Decode(&now)
	resp.Body.Close()
	require.NoError(t, err, "advance: %d %+v %v", resp.StatusCode, now, err)
	require.Equal(t, 200, resp.StatusCode, "advance: %d %+v %v", resp.StatusCode, now, err)
	require.Equal(t, "2024-03-04T10:00:00Z", now.Time, "advance: %d %+v %v", resp.StatusCode, now, err)
	req, _ = http.NewRequest(http.MethodGet, base+"/transactions/1", nil)
	req.SetBasicAuth("ID1", "wrong")
	resp, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, 401, resp.StatusCode, "bad credentials: %d", resp.StatusCode)
	stop()
}

// establish sends signed Disbursement establish data with merchantReference
// ref and returns the HTTP status and the error code (0 for none).
func establish(t *testing.T, base, ref string) (status, code int) {
	t.Helper()
	d := models.EstablishData{
		AccessID: "ID1", MerchantID: "77", MerchantReference: ref,
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "10.00", DeviceType: "web",
		Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber},
	}
	d.RequestSignature = sign.Sign(sign.SHA1, "KEY1", sign.EstablishMessage(&d))
	b, err := json.Marshal(d)
	require.NoError(t, err)
	req, _ := http.NewRequest(http.MethodPost, base+"/establish?createTransaction=true", bytes.NewReader(b))
	req.SetBasicAuth("ID1", "KEY1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	var eb struct {
		Errors []struct {
			Code int `json:"code"`
		} `json:"errors"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&eb))
	if len(eb.Errors) > 0 {
		code = eb.Errors[0].Code
	}
	return resp.StatusCode, code
}

// -no-reference-idempotency plays an account not configured for
// merchantReference idempotency: a repeated reference is processed again.
// By default a repeat responds 400/210.
func TestNoReferenceIdempotencyFlag(t *testing.T) {
	creds := []string{"-access-id", "ID1", "-access-key", "KEY1", "-merchant-id", "77"}
	for _, tc := range []struct {
		flags      []string
		idempotent bool
	}{
		{nil, true},
		{[]string{"-no-reference-idempotency"}, false},
		{[]string{"-no-reference-idempotency=false"}, true},
	} {
		t.Run(strings.Join(append([]string{"flags"}, tc.flags...), " "), func(t *testing.T) {
			fields, banner, _ := start(t, append(creds, tc.flags...)...)
			want := fmt.Sprintf("merchantReference idempotency: %t", tc.idempotent)
			require.Contains(t, banner, want, "banner does not say %q:\n%s", want, banner)
			base := fields["API base URL"]
			st, code := establish(t, base, "same-ref")
			require.Equal(t, 200, st, "first establish: %d/%d", st, code)
			require.Equal(t, 0, code, "first establish: %d/%d", st, code)
			st, code = establish(t, base, "same-ref")
			if tc.idempotent {
				require.Equal(t, 400, st, "repeat on an idempotent account: %d/%d, want 400/210", st, code)
				require.Equal(t, 210, code, "repeat on an idempotent account: %d/%d, want 400/210", st, code)
			} else {
				require.Equal(t, 200, st, "repeat on an account without idempotency: %d/%d, want 200 (processed again)", st, code)
				require.Equal(t, 0, code, "repeat on an account without idempotency: %d/%d, want 200 (processed again)", st, code)
			}
		})
	}
}

// The usage (-h) documents the flag.
func TestUsageDocumentsNoReferenceIdempotency(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, io.Discard, &stderr)
	require.ErrorIs(t, err, flag.ErrHelp, "-h: %v", err)
	usage := stderr.String()
	for _, want := range []string{"-no-reference-idempotency", "merchantReference idempotency", "pays twice"} {
		assert.Contains(t, usage, want, "usage does not mention %q:\n%s", want, usage)
	}
}

func TestRunBadFlags(t *testing.T) {
	ctx := context.Background()
	for _, args := range [][]string{
		{"-start", "yesterday"},
		{"-addr", "not an address"},
		{"extra"},
		{"-nope"},
	} {
		err := run(ctx, args, io.Discard, io.Discard)
		assert.Error(t, err, "%v: no error", args)
		var ue *sandboxcmd.UsageError
		// A bad command line is a usage error (exit 2); an address it
		// cannot listen on is not.
		assert.Equal(t, args[0] != "-addr", errors.As(err, &ue), "%v: %v", args, err)
	}
}

// TestBareResponsesFlag: -bare-responses returns a transaction bare and says
// so in the banner; without it the response is wrapped.
func TestBareResponsesFlag(t *testing.T) {
	for _, bare := range []bool{false, true} {
		t.Run(fmt.Sprint("bare=", bare), func(t *testing.T) {
			flags := []string{"-access-id", "ID1", "-access-key", "KEY1", "-merchant-id", "77"}
			if bare {
				flags = append(flags, "-bare-responses")
			}
			fields, banner, _ := start(t, flags...)
			got := strings.Contains(banner, "-bare-responses")
			require.Equal(t, bare, got, "banner mentions -bare-responses: %t, want %t:\n%s", got, bare, banner)
			d := models.EstablishData{
				AccessID: "ID1", MerchantID: "77", MerchantReference: "bare-ref",
				PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "10.00", DeviceType: "web",
				Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber},
			}
			d.RequestSignature = sign.Sign(sign.SHA1, "KEY1", sign.EstablishMessage(&d))
			b, _ := json.Marshal(d)
			req, _ := http.NewRequest(http.MethodPost, fields["API base URL"]+"/establish?createTransaction=true", bytes.NewReader(b))
			req.SetBasicAuth("ID1", "KEY1")
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			var top map[string]json.RawMessage
			err = json.NewDecoder(resp.Body).Decode(&top)
			require.NoError(t, err, "establish: %d %v", resp.StatusCode, err)
			require.Equal(t, 200, resp.StatusCode, "establish: %d %v", resp.StatusCode, err)
			_, wrapped := top["transaction"]
			_, hasID := top["transactionId"]
			require.NotEqual(t, bare, wrapped, "bare=%t: top-level keys %v", bare, top)
			require.Equal(t, bare, hasID, "bare=%t: top-level keys %v", bare, top)
		})
	}
}

// TestDefaultFlagsEventsAccepted: started with default flags, the sandbox's
// clock follows the real time, so a webhook handler with default options
// (24 h maximum age, judged by its own clock) accepts the events it sends;
// its banner names the front-end script, which it serves.
func TestDefaultFlagsEventsAccepted(t *testing.T) {
	fields, banner, stop := start(t)
	script := fields["script URL"]
	require.True(t, strings.HasSuffix(script, "/ui/sdk.js"), "banner:\n%s", banner)
	assert.Contains(t, banner, "clock:         follows the real time")
	resp, err := http.Get(script)
	require.NoError(t, err)
	resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)

	creds := bankpay.Credentials{AccessID: fields["accessId"], AccessKey: bankpay.NewSecret(fields["accessKey"]), MerchantID: fields["merchantId"]}
	got := make(chan *bankpay.Event, 10)
	h := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		got <- ev
		return nil
	})
	var answers []int
	var mu sync.Mutex
	hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		mu.Lock()
		answers = append(answers, rec.Code)
		mu.Unlock()
		w.WriteHeader(rec.Code)
	}))
	defer hook.Close()

	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(fields["API base URL"]))
	require.NoError(t, err)
	auth, err := c.Transactions.Establish(context.Background(), &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: "wall-1",
		NotificationURL: hook.URL + "/events",
		Account:         &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber},
	})
	require.NoError(t, err)
	select {
	case ev := <-got:
		assert.Equal(t, auth.TransactionID, ev.TransactionID)
		assert.WithinDuration(t, time.Now(), ev.CreatedAt, 5*time.Second, "the event carries the real time")
	case <-time.After(10 * time.Second):
		mu.Lock()
		defer mu.Unlock()
		require.Fail(t, "no event accepted", "the handler answered %v", answers)
	}
	// The handler answers after the callback returns (and the default
	// de-duplicator marks the event done): wait for that answer.
	answered := func() []int { mu.Lock(); defer mu.Unlock(); return slices.Clone(answers) }
	assert.Eventually(t, func() bool { return len(answered()) > 0 }, 5*time.Second, 5*time.Millisecond)
	assert.Equal(t, []int{http.StatusOK}, answered())

	// The clock moves by itself: a deposit made later carries a later time
	// (the real time is what this test is about, so it waits for it).
	time.Sleep(bankpaytest.WallClockTick + 100*time.Millisecond)
	dep, err := c.Transactions.Deposit(context.Background(), auth.TransactionID, &bankpay.DepositParams{
		MerchantReference: "wall-1-dep", Amount: "1.00"})
	require.NoError(t, err)
	assert.True(t, dep.CreatedAt.Time().After(auth.CreatedAt.Time()), "deposit at %v, authorization at %v", dep.CreatedAt.Time(), auth.CreatedAt.Time())
	stop()
}

// -start and -frozen-clock give a fake clock: it does not move by itself.
func TestFakeClockFlags(t *testing.T) {
	for _, args := range [][]string{{"-start", "2024-03-01T10:00:00Z"}, {"-frozen-clock"}} {
		t.Run(args[0], func(t *testing.T) {
			_, banner, _ := start(t, args...)
			assert.Contains(t, banner, "clock:         fake, moves only when advanced")
		})
	}
}
