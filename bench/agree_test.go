package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
)

// TestPairsAgree runs each benchmarked SDK call and its baseline once and
// checks that they get the same result, so that every pair measures the
// same work (and go test catches a broken benchmark).
func TestPairsAgree(t *testing.T) {
	e := newPairEnv(t)

	tx, err := e.sdk.Transactions.Get(ctx, txID)
	if err != nil {
		t.Fatal(err)
	}
	btx, err := e.bare.getTransaction(ctx, txID)
	if err != nil || !reflect.DeepEqual(tx, btx) || tx.Payment == nil || tx.Payment.Account == nil {
		t.Fatalf("get: sdk %+v, baseline %+v, %v", tx, btx, err)
	}

	dep, err := e.sdk.Transactions.Deposit(ctx, txID, depositParams)
	if err != nil {
		t.Fatal(err)
	}
	bdep, err := e.bare.deposit(ctx, txID, depositParams.MerchantReference, depositParams.Amount)
	if err != nil || !reflect.DeepEqual(dep, bdep) {
		t.Fatalf("deposit: sdk %+v, baseline %+v, %v", dep, bdep, err)
	}

	sum, err := e.sdk.Accounts.Summary(ctx, txID)
	if err != nil {
		t.Fatal(err)
	}
	bsum, err := e.bare.summary(ctx, txID)
	if err != nil || !reflect.DeepEqual(sum, bsum) || len(sum.Summary) != 4 {
		t.Fatalf("summary: sdk %+v, baseline %+v, %v", sum, bsum, err)
	}

	tok, err := e.sdk.Accounts.Tokenize(ctx, tokenizeParams)
	if err != nil {
		t.Fatal(err)
	}
	btok, err := e.bare.tokenize(ctx, tokenizeParams.AccountNumber, tokenizeParams.RoutingNumber)
	if err != nil || !reflect.DeepEqual(tok, btok) || tok.Account.Token == "" {
		t.Fatalf("tokenize: sdk %+v, baseline %+v, %v", tok, btok, err)
	}
}

func TestWebhookPairAgrees(t *testing.T) {
	var got []string
	sdk := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		got = append(got, "sdk:"+ev.EventID+":"+ev.Transaction.Status.String())
		return nil
	})
	base := bareWebhook(creds.AccessID, creds.AccessKey.Reveal(), func(_ context.Context, ev *bareEvent) error {
		got = append(got, "base:"+ev.EventID+":"+ev.Fields.Get("statusMessage"))
		return nil
	})
	auth := eventAuthorization(t)
	tampered := bytes.Replace(eventBody, []byte("status=2"), []byte("status=4"), 1)
	for _, c := range []struct {
		body []byte
		want int
	}{{eventBody, http.StatusOK}, {tampered, http.StatusUnauthorized}} {
		for name, h := range map[string]http.Handler{"sdk": sdk, "baseline": base} {
			r := httptest.NewRequest(http.MethodPost, "/bankpay/events", bytes.NewReader(c.body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("Authorization", auth)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			if w.Code != c.want {
				t.Errorf("%s: status %d, want %d", name, w.Code, c.want)
			}
		}
	}
	if len(got) != 2 || !strings.Contains(strings.Join(got, " "), "sdk:1002581299999:Authorized") ||
		!strings.Contains(strings.Join(got, " "), "base:1002581299999:Authorized") {
		t.Fatalf("callbacks: %v", got)
	}
}

func TestSignaturePairsAgree(t *testing.T) {
	c, err := bankpay.NewClient(creds)
	if err != nil {
		t.Fatal(err)
	}
	d, bd := establishData(), establishData()
	if err := c.SignEstablishData(d); err != nil {
		t.Fatal(err)
	}
	bareSign(bd, creds.AccessID, creds.MerchantID, creds.AccessKey.Reveal())
	if d.RequestSignature == "" || d.RequestSignature != bd.RequestSignature {
		t.Fatalf("signatures differ: sdk %q, baseline %q", d.RequestSignature, bd.RequestSignature)
	}

	r, err := bankpay.VerifyRedirect(redirectURL, creds.AccessKey.Reveal())
	if err != nil {
		t.Fatal(err)
	}
	br, err := bareVerifyRedirect(redirectURL, creds.AccessKey.Reveal())
	if err != nil || br.TransactionID != r.TransactionID || br.Status != int(r.Status) || br.Panel != r.Panel ||
		br.InstantPayout != r.InstantPayoutAvailable || br.Verified != r.AccountVerified ||
		br.PPTStatus != string(r.ProviderTransactionStatus) || br.Unsigned.Get("instantPayoutAvail") != "true" ||
		!reflect.DeepEqual(br.Unsigned, r.Unsigned) {
		t.Fatalf("redirect: sdk %+v, baseline %+v, %v", r, br, err)
	}
	forged := strings.Replace(redirectURL, "status=2", "status=4", 1)
	if _, err := bankpay.VerifyRedirect(forged, creds.AccessKey.Reveal()); err == nil {
		t.Error("sdk accepted a forged redirect")
	}
	if _, err := bareVerifyRedirect(forged, creds.AccessKey.Reveal()); err == nil {
		t.Error("baseline accepted a forged redirect")
	}
}

func TestSandboxMixRuns(t *testing.T) {
	e := newSandboxEnv(t)
	for i := uint64(0); i < 8; i++ {
		if err := e.mixed(ctx, i); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
	}
}
