package bankpay_test

// The fault tests that run against the bankpaytest sandbox (an external
// test package: bankpaytest imports bankpay).

import (
	"bytes"
	"context"
	"errors"
	bankpay "github.com/bankpay/bankpay-go"
	"io"
	"log"
	"net/http"
	"net/http/httputil"
	"net/url"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/models"
)

// TestOptInRetryAgainstTheSandbox: the response to a deposit is lost after
// the sandbox made it; the opted-in retry, with the same merchantReference,
// gets the sandbox's own duplicate response (code 210) as ErrDuplicate, and
// the caller reads the state back. Without the opt-in the deposit is sent
// once and the caller learns it may have been made.
func TestOptInRetryAgainstTheSandbox(t *testing.T) {
	sb := bankpaytest.NewServer()
	defer sb.Close()
	target, err := url.Parse(sb.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: target.Scheme, Host: target.Host})
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	proxyTransport := http.DefaultTransport.(*http.Transport).Clone()
	defer proxyTransport.CloseIdleConnections()
	proxy.Transport = proxyTransport
	s := faultinject.NewServer(proxy)
	defer s.Close()
	tr := s.Transport()
	defer tr.CloseIdleConnections()
	c, err := bankpay.NewClient(sb.Credentials(),
		bankpay.WithBaseURL(s.URL+"/api/v1"), bankpay.WithHTTPClient(&http.Client{Transport: tr}), bankpay.WithRetryBackoff(time.Millisecond, 2*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: "sb-est-1",
		Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, NameOnAccount: "Jane Doe"},
	})
	if err != nil {
		t.Fatal(err)
	}
	// Default: sent once, the response lost: the caller is told it may have
	// been made, and nothing is sent again.
	before := s.Requests()
	s.Script(faultinject.PassAndReset())
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-dep-1", Amount: "10.00"})
	var ne *bankpay.NetworkError
	if !errors.As(err, &ne) || !ne.Sent || s.Requests()-before != 1 {
		t.Fatalf("default: err %v after %d requests", err, s.Requests()-before)
	}
	// Opted in: the retry carries the same merchantReference and the sandbox
	// responds 210.
	before = s.Requests()
	s.Script(faultinject.PassAndReset())
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-dep-2", Amount: "10.00"}, bankpay.WithRetryNonIdempotent())
	got := s.Received()[before:]
	if !errors.Is(err, bankpay.ErrDuplicate) || len(got) != 2 {
		t.Fatalf("opt-in: err %v after %d requests, want ErrDuplicate after 2", err, len(got))
	}
	if !bytes.Equal(got[0].Body, got[1].Body) || formValue(got[1].Body, "merchantReference") != "sb-dep-2" {
		t.Errorf("the retry sent %s, the first attempt %s", got[1].Body, got[0].Body)
	}
	// The caller reads the authorization back; the sandbox made each
	// deposit once.
	if txn, err := c.Transactions.Get(ctx, auth.TransactionID); err != nil || txn.TransactionID != auth.TransactionID {
		t.Fatalf("read back: %v", err)
	}
	sb.AdvanceBankingDays(4) // deposits are submitted and complete: one event each
	for _, ref := range []string{"sb-dep-1", "sb-dep-2"} {
		ids := map[string]bool{}
		for _, e := range sb.Events() {
			if e.Fields.Get("merchantReference") == ref {
				ids[e.TransactionID] = true
			}
		}
		if len(ids) != 1 {
			t.Errorf("%s: %d deposits made, want 1", ref, len(ids))
		}
		for id := range ids {
			if d, ok := sb.Transaction(id); !ok || d.TransactionType != models.TypeDeposit || d.OriginalTransactionID != auth.TransactionID {
				t.Errorf("%s: %+v", ref, d)
			}
		}
	}
}

// formValue reads key from a form-encoded body.
func formValue(body []byte, key string) string {
	v, _ := url.ParseQuery(string(body))
	return v.Get(key)
}
