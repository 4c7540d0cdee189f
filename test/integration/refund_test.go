package integration

// Integration tests of the state-changing transaction calls: a Pay capture
// refunded in two parts, a deposit reclaimed, cancels before and after
// payment, a preauthorization and a refresh, against the sandbox in both
// response shapes, with the events received by a NewWebhookHandler.

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// payAuthorization has the user authorize a Deferred payment of amount and
// returns its id and the split token its Authorize event carried.
func payAuthorization(t *testing.T, s *sandbox, in *inbox, ref string, amount models.Amount) (string, string) {
	t.Helper()
	d := deferredData(ref, in.URL)
	d.Amount = amount
	r := s.authorize(t, d, bankpaytest.OutcomeAuthorize)
	s.flush(t)
	ev := in.last(r.TransactionID)
	require.NotNil(t, ev, "no Authorize event received")
	require.Equal(t, models.EventAuthorize, ev.EventType)
	require.NotEmpty(t, ev.Transaction.SplitToken)
	return r.TransactionID, ev.Transaction.SplitToken
}

// settle moves the sandbox clock until what was created is Completed.
func settle(t *testing.T, s *sandbox) {
	t.Helper()
	s.Advance(time.Minute)
	s.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	s.flush(t)
}

func TestRefund(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()
		tx := s.client.Transactions

		authID, token := payAuthorization(t, s, in, "it-rf", "80.00")
		capture, err := tx.Capture(ctx, authID, &bankpay.CaptureParams{MerchantReference: "it-rf-pay", Amount: "80.00", SplitToken: token})
		require.NoError(t, err)
		require.Equal(t, models.TypeCapture, capture.TransactionType)
		id := capture.TransactionID

		// Not paid yet: the service refuses, and Cancel is what applies.
		_, err = tx.Refund(ctx, id, &bankpay.RefundParams{Amount: "10.00"})
		requireAPIError(t, err, 400, codeInvalidParameter, bankpay.ErrBadRequest)
		settle(t, s)
		paid, err := tx.Get(ctx, id)
		require.NoError(t, err)
		require.Equal(t, models.StatusCompleted, paid.Status)
		assert.Equal(t, models.Amount("80.00"), paid.Balance)

		// Part of it.
		r1, err := tx.Refund(ctx, id, &bankpay.RefundParams{MerchantReference: "it-rf-1", Amount: "30.00"})
		require.NoError(t, err)
		assert.Equal(t, models.TypeRefund, r1.TransactionType)
		assert.Equal(t, id, r1.OriginalTransactionID)
		assert.Equal(t, models.Amount("30.00"), r1.Amount)
		got, err := tx.Get(ctx, id)
		require.NoError(t, err)
		assert.Equal(t, models.StatusPartiallyRefunded, got.Status)
		assert.Equal(t, models.Amount("30.00"), got.Refunded)
		assert.Equal(t, models.Amount("50.00"), got.Balance)

		// A retry with the same reference pays nothing twice; more than
		// the balance is refused with code 331.
		_, err = tx.Refund(ctx, id, &bankpay.RefundParams{MerchantReference: "it-rf-1", Amount: "30.00"})
		requireAPIError(t, err, 400, codeDuplicate, bankpay.ErrDuplicate)
		_, err = tx.Refund(ctx, id, &bankpay.RefundParams{Amount: "50.01"})
		requireAPIError(t, err, 400, 331, bankpay.ErrBadRequest)

		// The rest.
		r2, err := tx.Refund(ctx, id, nil)
		require.NoError(t, err)
		assert.Equal(t, models.Amount("50.00"), r2.Amount)
		assert.Equal(t, models.StatusRefunded, getStatus(t, s.client, id))
		_, err = tx.Refund(ctx, id, nil)
		requireAPIError(t, err, 400, codeInvalidParameter, bankpay.ErrBadRequest)

		// The events: a Refund per refund on the capture, then each
		// refund's own Process and Complete.
		settle(t, s)
		assert.Equal(t, []models.EventType{models.EventProcess, models.EventComplete, models.EventRefund, models.EventRefund}, in.typesFor(id))
		var refunds []*bankpay.Event
		for _, ev := range in.all() {
			if ev.TransactionID == id && ev.EventType == models.EventRefund {
				refunds = append(refunds, ev)
			}
		}
		require.Len(t, refunds, 2)
		assert.Equal(t, models.StatusPartiallyRefunded, refunds[0].Transaction.Status)
		assert.Equal(t, models.StatusRefunded, refunds[1].Transaction.Status)
		assert.Equal(t, authID, refunds[1].ParentObjectID)
		for _, r := range []*models.Transaction{r1, r2} {
			assert.Equal(t, []models.EventType{models.EventProcess, models.EventComplete}, in.typesFor(r.TransactionID))
			ev := in.last(r.TransactionID)
			assert.Equal(t, id, ev.ParentObjectID)
			assert.Equal(t, models.TypeRefund, ev.TransactionType)
			assert.Equal(t, models.StatusCompleted, getStatus(t, s.client, r.TransactionID))
		}
	})
}

func TestReclaim(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()
		tx := s.client.Transactions

		auth, err := tx.Establish(ctx, disbursementParams("it-rc", in.URL, "0.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		dep, err := tx.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "it-rc-1", Amount: "40.00"})
		require.NoError(t, err)
		settle(t, s)

		rc, err := tx.Reclaim(ctx, dep.TransactionID, &bankpay.ReclaimParams{MerchantReference: "it-rc-r", Amount: "15.00"})
		require.NoError(t, err)
		assert.Equal(t, models.TypeReclaim, rc.TransactionType)
		assert.Equal(t, dep.TransactionID, rc.OriginalTransactionID)
		got, err := tx.Get(ctx, dep.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, models.StatusCompleted, got.Status)
		assert.Equal(t, models.Amount("25.00"), got.Balance)
		_, err = tx.Reclaim(ctx, dep.TransactionID, &bankpay.ReclaimParams{Amount: "25.01"})
		requireAPIError(t, err, 400, 331, bankpay.ErrBadRequest)
		// A deposit is reclaimed, not refunded.
		_, err = tx.Refund(ctx, dep.TransactionID, nil)
		requireAPIError(t, err, 400, codeInvalidParameter, bankpay.ErrBadRequest)

		settle(t, s)
		assert.Equal(t, []models.EventType{models.EventProcess, models.EventComplete}, in.typesFor(rc.TransactionID))
		assert.Equal(t, dep.TransactionID, in.last(rc.TransactionID).ParentObjectID)
	})
}

func TestCancel(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()
		tx := s.client.Transactions

		// A capture not yet picked up by the network is canceled, and its
		// amount is free again.
		authID, token := payAuthorization(t, s, in, "it-cn", "20.00")
		c1, err := tx.Capture(ctx, authID, &bankpay.CaptureParams{MerchantReference: "it-cn-1", Amount: "20.00", SplitToken: token})
		require.NoError(t, err)
		canceled, err := tx.Cancel(ctx, c1.TransactionID, &bankpay.CancelParams{Message: "order canceled"})
		require.NoError(t, err)
		assert.Equal(t, models.StatusCanceled, canceled.Status)
		c2, err := tx.Capture(ctx, authID, &bankpay.CaptureParams{MerchantReference: "it-cn-2", Amount: "20.00", SplitToken: token})
		require.NoError(t, err)

		// Once paid: Cancel is refused, for the capture and its
		// authorization; Refund is the way back.
		settle(t, s)
		_, err = tx.Cancel(ctx, c2.TransactionID, nil)
		requireAPIError(t, err, 400, codeInvalidParameter, bankpay.ErrBadRequest)
		_, err = tx.Cancel(ctx, authID, nil)
		requireAPIError(t, err, 400, codeInvalidParameter, bankpay.ErrBadRequest)
		assert.Equal(t, []models.EventType{models.EventCancel}, in.typesFor(c1.TransactionID))

		// An authorization nothing was paid from: Canceled, a Cancel
		// event, and no capture from it any more.
		other, token2 := payAuthorization(t, s, in, "it-cn-a", "10.00")
		got, err := tx.Cancel(ctx, other, &bankpay.CancelParams{MerchantReference: "it-cn-a", Reason: 2})
		require.NoError(t, err)
		assert.Equal(t, models.StatusCanceled, got.Status)
		s.flush(t)
		assert.Equal(t, []models.EventType{models.EventAuthorize, models.EventCancel}, in.typesFor(other))
		_, err = tx.Capture(ctx, other, &bankpay.CaptureParams{MerchantReference: "it-cn-a-1", Amount: "1.00", SplitToken: token2})
		requireAPIError(t, err, 400, codeInvalidParameter, bankpay.ErrBadRequest)
	})
}

func TestPreauthorizeAndRefresh(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()
		tx := s.client.Transactions

		authID, token := payAuthorization(t, s, in, "it-pa", "100.00")
		pa, err := tx.Preauthorize(ctx, authID, &bankpay.PreauthorizeParams{MerchantReference: "it-pa-1", Amount: "60.00",
			Period: 1, SplitToken: token, InteractionID: "consumerNotPresent"})
		require.NoError(t, err)
		assert.Equal(t, models.TypePreauthorization, pa.TransactionType)
		assert.True(t, pa.PreAuthorized)
		assert.Equal(t, s.Now().Add(time.Hour), pa.ExpiredAt.Time())
		_, err = tx.Preauthorize(ctx, authID, &bankpay.PreauthorizeParams{MerchantReference: "it-pa-2", Amount: "60.00", Period: 1, SplitToken: token + "x"})
		requireAPIError(t, err, 400, 380, bankpay.ErrBadRequest)

		// Refresh: a processId now, the Refresh event later.
		pid, err := tx.Refresh(ctx, authID, token)
		require.NoError(t, err)
		assert.NotEmpty(t, pid)
		_, err = tx.Refresh(ctx, authID, "not-the-token")
		requireAPIError(t, err, 400, 380, bankpay.ErrBadRequest)
		s.Advance(bankpaytest.RefreshDelay)
		s.flush(t)
		ev := in.last(authID)
		require.NotNil(t, ev)
		require.Equal(t, models.EventRefresh, ev.EventType)
		require.NotNil(t, ev.Transaction.Refresh)
		require.NotNil(t, ev.Transaction.Refresh.Success)
		assert.True(t, *ev.Transaction.Refresh.Success)
		assert.True(t, ev.Transaction.Refresh.HardRefresh)

		// The preauthorization lapses after its hour.
		s.Advance(time.Hour)
		s.flush(t)
		got, err := tx.Get(ctx, pa.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, models.StatusExpired, got.Status)
		assert.False(t, got.PreAuthorized)
		assert.Equal(t, []models.EventType{models.EventExpire}, in.typesFor(pa.TransactionID))
	})
}
