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
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

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
		if err := <-done; err != nil {
			t.Fatalf("run: %v", err)
		}
	}
	t.Cleanup(stop)
	return fields, b.String(), stop
}

func TestRun(t *testing.T) {
	fields, _, stop := start(t, "-access-id", "ID1", "-access-key", "KEY1", "-merchant-id", "77", "-start", "2024-03-01T10:00:00Z")
	base, control := fields["API base URL"], fields["control URL"]
	if !strings.HasSuffix(base, "/api/v1") || !strings.HasSuffix(control, "/sandbox") ||
		fields["accessId"] != "ID1" || fields["accessKey"] != "KEY1" || fields["merchantId"] != "77" {
		t.Fatalf("banner fields %v", fields)
	}

	req, _ := http.NewRequest(http.MethodPost, control+"/advance?d=72h", nil)
	req.SetBasicAuth("ID1", "KEY1")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var now struct {
		Time string `json:"time"`
	}
	err = json.NewDecoder(resp.Body).Decode(&now)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || now.Time != "2024-03-04T10:00:00Z" {
		t.Fatalf("advance: %d %+v %v", resp.StatusCode, now, err)
	}
	req, _ = http.NewRequest(http.MethodGet, base+"/transactions/1", nil)
	req.SetBasicAuth("ID1", "wrong")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 401 {
		t.Fatalf("bad credentials: %d", resp.StatusCode)
	}
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
	if err != nil {
		t.Fatal(err)
	}
	req, _ := http.NewRequest(http.MethodPost, base+"/establish?createTransaction=true", bytes.NewReader(b))
	req.SetBasicAuth("ID1", "KEY1")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var eb struct {
		Errors []struct {
			Code int `json:"code"`
		} `json:"errors"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&eb); err != nil {
		t.Fatal(err)
	}
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
			if want := fmt.Sprintf("merchantReference idempotency: %t", tc.idempotent); !strings.Contains(banner, want) {
				t.Fatalf("banner does not say %q:\n%s", want, banner)
			}
			base := fields["API base URL"]
			if st, code := establish(t, base, "same-ref"); st != 200 || code != 0 {
				t.Fatalf("first establish: %d/%d", st, code)
			}
			st, code := establish(t, base, "same-ref")
			if tc.idempotent && (st != 400 || code != 210) {
				t.Fatalf("repeat on an idempotent account: %d/%d, want 400/210", st, code)
			}
			if !tc.idempotent && (st != 200 || code != 0) {
				t.Fatalf("repeat on an account without idempotency: %d/%d, want 200 (processed again)", st, code)
			}
		})
	}
}

// The usage (-h) documents the flag.
func TestUsageDocumentsNoReferenceIdempotency(t *testing.T) {
	var stderr bytes.Buffer
	err := run(context.Background(), []string{"-h"}, io.Discard, &stderr)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("-h: %v", err)
	}
	usage := stderr.String()
	for _, want := range []string{"-no-reference-idempotency", "merchantReference idempotency", "pays twice"} {
		if !strings.Contains(usage, want) {
			t.Errorf("usage does not mention %q:\n%s", want, usage)
		}
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
		if err := run(ctx, args, io.Discard, io.Discard); err == nil {
			t.Errorf("%v: no error", args)
		}
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
			if got := strings.Contains(banner, "-bare-responses"); got != bare {
				t.Fatalf("banner mentions -bare-responses: %t, want %t:\n%s", got, bare, banner)
			}
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
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var top map[string]json.RawMessage
			if err := json.NewDecoder(resp.Body).Decode(&top); err != nil || resp.StatusCode != 200 {
				t.Fatalf("establish: %d %v", resp.StatusCode, err)
			}
			_, wrapped := top["transaction"]
			_, hasID := top["transactionId"]
			if wrapped == bare || hasID != bare {
				t.Fatalf("bare=%t: top-level keys %v", bare, top)
			}
		})
	}
}
