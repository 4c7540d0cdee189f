package integration

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// --- Dispute recovery -------------------------------------------------------

// loseFirstResponse is a transport that sends every request but drops the
// response of the first dispute recovery, as a connection reset after the
// service processed it would.
type loseFirstResponse struct {
	base http.RoundTripper
	lost atomic.Int32
	keys []string // Idempotency-Key of each dispute attempt
}

func (l *loseFirstResponse) RoundTrip(req *http.Request) (*http.Response, error) {
	isDispute := strings.HasSuffix(req.URL.Path, "/collections/recovery/dispute")
	if isDispute {
		l.keys = append(l.keys, req.Header.Get("Idempotency-Key"))
	}
	resp, err := l.base.RoundTrip(req)
	if err == nil && isDispute && l.lost.Add(1) == 1 {
		resp.Body.Close()
		return nil, errors.New("connection reset by peer")
	}
	return resp, err
}

// TestDisputeRecovery: a collected capture is returned by the
// user's bank; the Dispute event names it and the amount returned; the
// merchant recovers it with Disputes.Create, whose retry after a lost
// response reuses its key and so recovers once.
func TestDisputeRecovery(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()

		// A money transfer captured from a Deferred authorization, collected.
		d := deferredData("dsp-auth-1", in.URL)
		d.Customer = &models.Customer{ExternalID: "dsp-cust-1", Name: "Maria Garcia",
			Address: &models.Address{Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US"}}
		r := s.authorize(t, d, bankpaytest.OutcomeAuthorize)
		capture, err := s.client.Transactions.Capture(ctx, r.TransactionID, &bankpay.CaptureParams{
			MerchantReference: "dsp-cap-1", Amount: "80.00",
			Beneficiary: &models.Beneficiary{Name: "Luis Garcia", Address: &models.Address{Country: "MX"}},
		})
		require.NoError(t, err)
		s.Advance(time.Second)
		s.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
		assert.Equal(t, models.StatusCompleted, getStatus(t, s.client, capture.TransactionID))

		// Not disputed yet: nothing to recover.
		_, err = s.client.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: capture.TransactionID, Amount: "1.00"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

		// The user's bank returns it: the Dispute event says what and how much.
		require.NoError(t, s.Dispute(capture.TransactionID))
		s.flush(t)
		assert.Equal(t, []models.EventType{"Process", "Complete", "Reverse", "Dispute"}, in.typesFor(capture.TransactionID))
		var dispute *bankpay.Event
		for _, ev := range in.all() {
			if ev.EventType == models.EventDispute {
				dispute = ev
			}
		}
		require.NotNil(t, dispute)
		txnID, returned := dispute.Raw.Get("transactionId"), models.Amount(dispute.Raw.Get("amountReturned"))
		assert.Equal(t, capture.TransactionID, txnID)
		assert.Equal(t, capture.TransactionID, dispute.TransactionID)
		assert.Equal(t, models.Amount("80.00"), returned)
		assert.Equal(t, "R10", dispute.Raw.Get("returnType"))
		assert.Equal(t, s.Now(), dispute.CreatedAt)
		require.NotNil(t, dispute.Transaction)
		assert.False(t, dispute.Transaction.HasStatus, "a Dispute carries no status")

		// Recover 50.00; the first response is lost, and the SDK's retry with
		// the same key gets the recovery the sandbox made, not a second one.
		lossy := &loseFirstResponse{}
		c, err := bankpay.NewClient(s.Credentials(), bankpay.WithBaseURL(s.URL), bankpay.WithRetryBackoff(time.Millisecond, 5*time.Millisecond),
			bankpay.WithTransport(func(next http.RoundTripper) http.RoundTripper { lossy.base = next; return lossy }))
		require.NoError(t, err)
		rec, err := c.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: txnID, Amount: "50.00"})
		require.NoError(t, err)
		require.Len(t, lossy.keys, 2)
		assert.Equal(t, lossy.keys[0], lossy.keys[1], "the retry reuses the key")
		assert.Equal(t, models.TypeRepresentment, rec.TransactionType)
		assert.Equal(t, models.StatusAuthorized, rec.Status)
		assert.Equal(t, capture.TransactionID, rec.OriginalTransactionID)
		assert.Equal(t, models.Amount("50.00"), rec.Amount)
		got, err := s.client.Transactions.Get(ctx, rec.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, models.TypeRepresentment, got.TransactionType)

		// So 30.00 remain: recovered with a key of the merchant's own, which a
		// repeat of the same request may reuse, and another request may not.
		_, err = s.client.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: txnID, Amount: "30.01"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		p := &bankpay.DisputeParams{TransactionID: txnID, Amount: "30.00", IdempotencyKey: "order-42-recovery-2"}
		rest, err := s.client.Disputes.Create(ctx, p)
		require.NoError(t, err)
		again, err := s.client.Disputes.Create(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, rest, again, "the same key and body: the first response")
		assert.NotEqual(t, rec.TransactionID, rest.TransactionID)
		p.Amount = "29.00"
		_, err = s.client.Disputes.Create(ctx, p)
		requireAPIError(t, err, http.StatusUnprocessableEntity, codeInvalidParameter, bankpay.ErrBadRequest)
		_, err = s.client.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: txnID, Amount: "0.01"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

		// The recoveries are collected like captures, with their events.
		s.Advance(time.Second)
		s.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
		s.flush(t)
		for _, id := range []string{rec.TransactionID, rest.TransactionID} {
			assert.Equal(t, models.StatusCompleted, getStatus(t, s.client, id))
			assert.Equal(t, []models.EventType{"Process", "Complete"}, in.typesFor(id))
		}

		// Checked before sending: the key and the params.
		_, err = s.client.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: txnID, Amount: "1.00", IdempotencyKey: " "})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "Idempotency-Key", ve.Field)
	})
}
