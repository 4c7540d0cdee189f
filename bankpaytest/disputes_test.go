package bankpaytest_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// postDispute sends POST /collections/recovery/dispute with key as its
// Idempotency-Key (none when empty) and body as JSON.
func (c *api) postDispute(key string, body any) response {
	c.t.Helper()
	b, err := json.Marshal(body)
	require.NoError(c.t, err)
	req, err := http.NewRequest(http.MethodPost, c.srv.URL+"/collections/recovery/dispute", bytes.NewReader(b))
	require.NoError(c.t, err)
	req.SetBasicAuth(c.creds.AccessID, c.creds.AccessKey.Reveal())
	req.Header.Set("Content-Type", "application/json")
	if key != "" {
		req.Header.Set("Idempotency-Key", key)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(c.t, err)
	defer resp.Body.Close()
	var out bytes.Buffer
	_, err = out.ReadFrom(resp.Body)
	require.NoError(c.t, err)
	return response{status: resp.StatusCode, header: resp.Header, body: out.Bytes()}
}

type disputeReq struct {
	TransactionID string `json:"transactionId"`
	Amount        string `json:"amount"`
}

// bareTransaction is what the tests read of a transaction in the OpenAPI's
// shape, whose codes are strings.
type bareTransaction struct {
	TransactionID         string `json:"transactionId"`
	TransactionType       string `json:"transactionType"`
	Status                string `json:"status"`
	OriginalTransactionID string `json:"originalTransactionId"`
}

// completedCapture authorizes a transfer and captures amount from it, and
// moves the clock until the capture is Completed.
func completedCapture(t *testing.T, srv *bankpaytest.Server, c *api, ref, amount string) (auth, capture string) {
	t.Helper()
	_, a := c.authorize(transferData(ref), bankpaytest.OutcomeAuthorize)
	resp := c.postForm("/transactions/"+a.TransactionID+"/capture", captureForm(ref+"-cap", amount))
	var env wire.TransactionEnvelope
	resp.wantOK(t, &env)
	if env.Transaction == nil { // WithBareResponses: codes are strings
		var bare bareTransaction
		resp.decode(t, &bare)
		env.Transaction = &models.Transaction{TransactionID: bare.TransactionID}
	}
	srv.Advance(time.Millisecond)
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	require.Equal(t, models.StatusCompleted, statusOf(t, srv, env.Transaction.TransactionID))
	return a.TransactionID, env.Transaction.TransactionID
}

// Dispute reverses a Completed capture and emits a Dispute event with the
// documented fields, signed like every notification.
func TestDisputeEvent(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}))
	creds := srv.Credentials()
	c := newAPI(t, srv, creds)
	auth, capture := completedCapture(t, srv, c, "de-1", "200.00")
	returnedAt := srv.Now()

	require.NoError(t, srv.Dispute(capture))
	assert.Equal(t, models.StatusReversed, statusOf(t, srv, capture))
	evs := srv.EventsFor(capture)
	assert.Equal(t, "Process,Complete,Reverse,Dispute", joined(eventTypes(evs)))
	ev := evs[len(evs)-1]

	names := make([]string, 0, len(ev.Raw))
	for k := range ev.Raw {
		names = append(names, k)
	}
	sort.Strings(names)
	assert.Equal(t, []string{"amountReturned", "createdAt", "customerId", "eventId", "eventType", "objectId", "objectType",
		"reference", "returnDatetime", "returnType", "transactionDatetime", "transactionId"}, names,
		"exactly the fields of the OpenAPI's Dispute webhook: no status")
	rec, ok := srv.Transaction(capture)
	require.True(t, ok)
	assert.Equal(t, capture, ev.Raw.Get("transactionId"))
	assert.Equal(t, capture, ev.Raw.Get("objectId"))
	assert.Equal(t, "Transaction", ev.Raw.Get("objectType"))
	assert.Equal(t, "R10", ev.Raw.Get("returnType"))
	assert.Equal(t, "200.00", ev.Raw.Get("amountReturned"))
	assert.Equal(t, "RET-"+capture, ev.Raw.Get("reference"))
	assert.Equal(t, rec.CreatedAt.Time().Format(time.RFC3339), ev.Raw.Get("transactionDatetime"))
	assert.Equal(t, returnedAt.Format(time.RFC3339), ev.Raw.Get("returnDatetime"))
	assert.Equal(t, strconv.FormatInt(returnedAt.UnixMilli(), 10), ev.Raw.Get("createdAt"))
	assert.NotEmpty(t, ev.Raw.Get("customerId"))
	assert.NotEqual(t, auth, ev.Raw.Get("transactionId"))

	// The SDK verifies and reads it.
	require.NoError(t, verifyErr(bankpay.VerifyNotification([]byte(ev.Body), ev.Authorization, creds)))
	parsed, err := bankpay.ParseEvent([]byte(ev.Body), "application/x-www-form-urlencoded")
	require.NoError(t, err)
	assert.Equal(t, models.EventDispute, parsed.EventType)
	assert.Equal(t, capture, parsed.TransactionID)
	assert.Equal(t, "R10", parsed.Raw.Get("returnType"))
	assert.Equal(t, returnedAt, parsed.CreatedAt)

	// A capture is disputed once; only captures are.
	assert.ErrorIs(t, srv.Dispute(capture), bankpaytest.ErrInvalidTransition)
	assert.ErrorIs(t, srv.Dispute(auth), bankpaytest.ErrInvalidTransition)
	assert.ErrorIs(t, srv.Dispute("100000000999999"), bankpaytest.ErrUnknownTransaction)
	dep := c.mustDeposit(auth, "de-dep", "10.00")
	srv.Advance(time.Millisecond)
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	assert.ErrorIs(t, srv.Dispute(dep.TransactionID), bankpaytest.ErrInvalidTransition, "a deposit credits the user")
	_, notDone := completedCapture(t, srv, c, "de-2", "5.00")
	require.NoError(t, srv.Reverse(notDone))
	assert.ErrorIs(t, srv.Dispute(notDone), bankpaytest.ErrInvalidTransition, "a Reversed capture")

	// The control endpoint plays it too, for the merchant's own captures.
	_, viaControl := completedCapture(t, srv, c, "de-3", "7.00")
	var env wire.TransactionEnvelope
	c.control(http.MethodPost, "/transactions/"+viaControl+"/dispute", nil).wantOK(t, &env)
	assert.Equal(t, models.StatusReversed, env.Transaction.Status)
	assert.Equal(t, "Dispute", string(srv.EventsFor(viaControl)[3].EventType))
	c.control(http.MethodPost, "/transactions/"+viaControl+"/dispute", nil).wantError(t, http.StatusBadRequest, 200)
}

func TestDisputeRecovery(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}), bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	c, other := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	_, capture := completedCapture(t, srv, c, "dr-1", "200.00")
	_, undisputed := completedCapture(t, srv, c, "dr-2", "50.00")

	c.postDispute("k0", disputeReq{capture, "10.00"}).wantError(t, http.StatusBadRequest, 200) // no dispute yet
	require.NoError(t, srv.Dispute(capture))

	var first wire.TransactionEnvelope
	a := c.postDispute("k1", disputeReq{capture, "120.00"})
	a.wantOK(t, &first)
	rec := first.Transaction
	assert.Equal(t, models.TypeRepresentment, rec.TransactionType)
	assert.Equal(t, models.StatusAuthorized, rec.Status)
	assert.Equal(t, capture, rec.OriginalTransactionID)
	assert.Equal(t, models.Amount("120.00"), rec.Amount)
	assert.Equal(t, models.Amount("120.00"), rec.Payment.Amount)
	assert.Equal(t, "dr-1-cap", rec.MerchantReference)
	assert.Equal(t, models.ProviderStatus("AC100"), rec.PaymentProviderTransaction.Status)

	// The same key and body: the first response again, nothing created.
	again := c.postDispute("k1", disputeReq{capture, "120.00"})
	again.wantOK(t, nil)
	assert.Equal(t, string(a.body), string(again.body))
	// The same key with another body: 422.
	c.postDispute("k1", disputeReq{capture, "80.00"}).wantError(t, http.StatusUnprocessableEntity, 200)
	c.postDispute("k1", disputeReq{undisputed, "120.00"}).wantError(t, http.StatusUnprocessableEntity, 200)

	// A failed request is not remembered: its key serves again.
	c.postDispute("k2", disputeReq{capture, "80.01"}).wantError(t, http.StatusBadRequest, 200) // over what remains
	var second wire.TransactionEnvelope
	c.postDispute("k2", disputeReq{capture, "80.00"}).wantOK(t, &second)
	n1, err := strconv.ParseInt(rec.TransactionID, 10, 64)
	require.NoError(t, err)
	n2, err := strconv.ParseInt(second.Transaction.TransactionID, 10, 64)
	require.NoError(t, err)
	assert.Equal(t, n1+1, n2, "the repeated k1 created no transaction in between")
	c.postDispute("k3", disputeReq{capture, "0.01"}).wantError(t, http.StatusBadRequest, 200) // all recovered

	// Keys are per merchant, and so are transactions.
	other.postDispute("k1", disputeReq{capture, "120.00"}).wantError(t, http.StatusNotFound, 200)

	// Recoveries follow the movement lifecycle; a Denied one frees its amount.
	srv.Advance(time.Millisecond)
	assert.Equal(t, models.StatusProcessed, statusOf(t, srv, rec.TransactionID))
	assert.Equal(t, "Process", joined(eventTypes(srv.EventsFor(rec.TransactionID))))
	require.NoError(t, srv.Deny(rec.TransactionID))
	c.postDispute("k4", disputeReq{capture, "120.00"}).wantOK(t, nil)
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays + 1)
	assert.Equal(t, models.StatusCompleted, statusOf(t, srv, second.Transaction.TransactionID))
	assert.Equal(t, "Process,Complete", joined(eventTypes(srv.EventsFor(second.Transaction.TransactionID))))
}

func TestDisputeRecoveryRejects(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}))
	c := newAPI(t, srv, srv.Credentials())
	_, capture := completedCapture(t, srv, c, "rj-1", "20.00")
	require.NoError(t, srv.Dispute(capture))

	c.postDispute("", disputeReq{capture, "1.00"}).wantError(t, http.StatusBadRequest, 200)
	c.postDispute(strings.Repeat("k", 256), disputeReq{capture, "1.00"}).wantError(t, http.StatusBadRequest, 200)
	for name, b := range map[string]disputeReq{
		"no transactionId":         {"", "1.00"},
		"no amount":                {capture, ""},
		"amount without places":    {capture, "1"},
		"amount zero":              {capture, "0.00"},
		"amount negative":          {capture, "-1.00"},
		"amount over 10 chars":     {capture, "0000001.00"},
		"amount over what remains": {capture, "20.01"},
	} {
		t.Run(name, func(t *testing.T) {
			c.postDispute("rj-"+name, b).wantError(t, http.StatusBadRequest, 200)
		})
	}
	c.postDispute("rj-unknown", disputeReq{"100000000999999", "1.00"}).wantError(t, http.StatusNotFound, 200)
	notJSON := send(t, &c.creds, http.MethodPost, srv.URL+"/collections/recovery/dispute", "application/json", []byte("{"))
	assert.Equal(t, http.StatusBadRequest, notJSON.status)
	form := send(t, &c.creds, http.MethodPost, srv.URL+"/collections/recovery/dispute", "application/x-www-form-urlencoded", []byte("transactionId=1"))
	assert.Equal(t, http.StatusUnsupportedMediaType, form.status)
	c.postDispute("rj-ok", disputeReq{capture, "20.00"}).wantOK(t, nil)
}

// With WithBareResponses the recovery is a bare transaction, and so is its
// replay.
func TestDisputeRecoveryBare(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}), bankpaytest.WithBareResponses())
	c := newAPI(t, srv, srv.Credentials())
	_, capture := completedCapture(t, srv, c, "bare-1", "20.00")
	require.NoError(t, srv.Dispute(capture))
	var txn bareTransaction
	a := c.postDispute("kb", disputeReq{capture, "5.00"})
	a.wantOK(t, &txn)
	assert.Equal(t, strconv.Itoa(int(models.TypeRepresentment)), txn.TransactionType, "the OpenAPI's code is a string")
	assert.Equal(t, capture, txn.OriginalTransactionID)
	assert.Equal(t, string(a.body), string(c.postDispute("kb", disputeReq{capture, "5.00"}).body))
}

// verifyErr is the error of bankpay.VerifyNotification, for assertions.
func verifyErr(_ *bankpay.Event, err error) error { return err }
