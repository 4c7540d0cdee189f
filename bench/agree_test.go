package bench

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPairsAgree runs each benchmarked SDK call and its baseline once and
// checks that they get the same result, so that every pair measures the
// same work (and go test catches a broken benchmark).
func TestPairsAgree(t *testing.T) {
	e := newPairEnv(t)

	tx, err := e.sdk.Transactions.Get(ctx, txID)
	require.NoError(t, err)
	btx, err := e.bare.getTransaction(ctx, txID)
	require.NoError(t, err, "get: sdk %+v, baseline %+v, %v", tx, btx, err)
	require.Equal(t, tx, btx, "get: sdk %+v, baseline %+v, %v", tx, btx, err)
	require.NotNil(t, tx.Payment, "get: sdk %+v, baseline %+v, %v", tx, btx, err)
	require.NotNil(t, tx.Payment.Account, "get: sdk %+v, baseline %+v, %v", tx, btx, err)

	dep, err := e.sdk.Transactions.Deposit(ctx, txID, depositParams)
	require.NoError(t, err)
	bdep, err := e.bare.deposit(ctx, txID, depositParams.MerchantReference, depositParams.Amount)
	require.NoError(t, err, "deposit: sdk %+v, baseline %+v, %v", dep, bdep, err)
	require.Equal(t, dep, bdep, "deposit: sdk %+v, baseline %+v, %v", dep, bdep, err)

	sum, err := e.sdk.Accounts.Summary(ctx, txID)
	require.NoError(t, err)
	bsum, err := e.bare.summary(ctx, txID)
	require.NoError(t, err, "summary: sdk %+v, baseline %+v, %v", sum, bsum, err)
	require.Equal(t, sum, bsum, "summary: sdk %+v, baseline %+v, %v", sum, bsum, err)
	require.Len(t, sum.Summary, 4, "summary: sdk %+v, baseline %+v, %v", sum, bsum, err)

	tok, err := e.sdk.Accounts.Tokenize(ctx, tokenizeParams)
	require.NoError(t, err)
	btok, err := e.bare.tokenize(ctx, tokenizeParams.AccountNumber, tokenizeParams.RoutingNumber)
	require.NoError(t, err, "tokenize: sdk %+v, baseline %+v, %v", tok, btok, err)
	require.Equal(t, tok, btok, "tokenize: sdk %+v, baseline %+v, %v", tok, btok, err)
	require.NotEmpty(t, tok.Account.Token, "tokenize: sdk %+v, baseline %+v, %v", tok, btok, err)
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
			assert.Equal(t, c.want, w.Code, "%s: status %d, want %d", name, w.Code, c.want)
		}
	}
	require.Len(t, got, 2, "callbacks: %v", got)
	require.Contains(t, strings.Join(got, " "), "sdk:1002581299999:Authorized", "callbacks: %v", got)
	require.Contains(t, strings.Join(got, " "), "base:1002581299999:Authorized", "callbacks: %v", got)
}

func TestSignaturePairsAgree(t *testing.T) {
	c, err := bankpay.NewClient(creds)
	require.NoError(t, err)
	d, bd := establishData(), establishData()
	require.NoError(t, c.SignEstablishData(d))
	bareSign(bd, creds.AccessID, creds.MerchantID, creds.AccessKey.Reveal())
	require.NotEmpty(t, d.RequestSignature, "signatures differ: sdk %q, baseline %q", d.RequestSignature, bd.RequestSignature)
	require.Equal(t, bd.RequestSignature, d.RequestSignature, "signatures differ: sdk %q, baseline %q", d.RequestSignature, bd.RequestSignature)

	r, err := bankpay.VerifyRedirect(redirectURL, creds)
	require.NoError(t, err)
	br, err := bareVerifyRedirect(redirectURL, creds.AccessKey.Reveal())
	require.NoError(t, err, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.TransactionID, br.TransactionID, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, int(r.Status), br.Status, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.Panel, br.Panel, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.InstantPayoutAvailable, br.InstantPayout, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.AccountVerified, br.Verified, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, string(r.ProviderTransactionStatus), br.PPTStatus, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, "true", br.Unsigned.Get("instantPayoutAvail"), "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.Unsigned, br.Unsigned, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	forged := strings.Replace(redirectURL, "status=2", "status=4", 1)
	_, err = bankpay.VerifyRedirect(forged, creds)
	assert.Error(t, err, "sdk accepted a forged redirect")
	_, err = bareVerifyRedirect(forged, creds.AccessKey.Reveal())
	assert.Error(t, err, "baseline accepted a forged redirect")
}

func TestSandboxMixRuns(t *testing.T) {
	e := newSandboxEnv(t)
	for i := uint64(0); i < 8; i++ {
		err := e.mixed(ctx, i)
		require.NoError(t, err, "call %d: %v", i, err)
	}
}
