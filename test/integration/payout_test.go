package integration

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

func TestInstantPayout(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()

		d := deferredData("payout-auth-1", in.URL)
		d.Customer = &models.Customer{ExternalID: "player-1", Name: "Jane Doe"}
		r := s.authorize(t, d, bankpaytest.OutcomeAuthorize)

		// The redirect: returnUrl (with its own query kept), the documented
		// parameters, signed.
		assert.Equal(t, models.StatusAuthorized, r.Status)
		assert.Len(t, r.TransactionID, 15)
		assert.Equal(t, models.TypeAuthorize, r.TransactionType)
		assert.Equal(t, "payout-auth-1", r.MerchantReference)
		assert.Equal(t, models.StatusAuthorized, r.Status)
		assert.Equal(t, models.PaymentTypeDeferred, r.PaymentType)
		assert.Equal(t, 1, r.ProviderType)
		assert.True(t, r.InstantPayoutAvailable)
		assert.Equal(t, models.ProviderStatus("SW020"), r.ProviderTransactionStatus)
		assert.Equal(t, "true", r.Unsigned.Get("instantPayoutAvailable"), "the unsigned trailer of an instant-payout bank")
		assert.Equal(t, "42", r.Params.Get("order"))

		auth, err := s.client.Transactions.Get(ctx, r.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, models.TypeAuthorize, auth.TransactionType)
		assert.Equal(t, models.StatusAuthorized, auth.Status)
		assert.Equal(t, "Authorized", auth.StatusMessage)
		assert.Equal(t, models.Amount("100.00"), auth.Amount)
		require.NotNil(t, auth.Payment)
		assert.Equal(t, models.PaymentTypeDeferred, auth.Payment.PaymentType)
		require.NotNil(t, auth.Payment.Account)
		assert.Len(t, auth.Payment.Account.AccountNumber, 4, "get-transaction shows the last 4 digits only")
		require.NotNil(t, auth.Payment.PaymentProvider)
		assert.True(t, auth.Payment.PaymentProvider.InstantPayoutAvailable)
		assert.NotEmpty(t, auth.Payment.PaymentProvider.PaymentProviderID)
		require.NotNil(t, auth.PaymentProviderTransaction)
		assert.Equal(t, models.ProviderStatus("SW020"), auth.PaymentProviderTransaction.Status)
		assert.Equal(t, models.ProviderStatus("SW020").Meaning(), auth.PaymentProviderTransaction.StatusMessage)

		dep, err := s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{
			MerchantReference: "payout-1", Amount: "60.00", InstantPayoutRequest: true,
		})
		require.NoError(t, err)
		assert.Equal(t, models.TypeDeposit, dep.TransactionType)
		assert.Equal(t, models.StatusAuthorized, dep.Status)
		assert.Equal(t, r.TransactionID, dep.OriginalTransactionID)
		assert.Equal(t, models.Amount("60.00"), dep.Amount)
		assert.Equal(t, "payout-1", dep.MerchantReference)
		assert.NotEmpty(t, dep.PaymentProcessorType, "an instant payout deposit names its processor")
		assert.Len(t, dep.TransactionID, 15)

		// Never pay twice: the same merchantReference responds 210.
		_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-1", Amount: "60.00"})
		requireAPIError(t, err, http.StatusBadRequest, codeDuplicate, bankpay.ErrDuplicate)

		// The authorization amount is the maximum: 60.00 + 50.00 > 100.00.
		_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-2", Amount: "50.00"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		// The SDK can check it before sending when told the authorization amount.
		_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-2", Amount: "150.00", AuthorizationAmount: "100.00"})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "amount", ve.Field)

		// Events: the authorization's, then the deposit's as time passes. An
		// instant payout settles in real time: Completed when the network picks
		// it up, at the first clock move, not CompletionBankingDays later.
		s.Advance(time.Minute)
		assert.Equal(t, models.StatusCompleted, getStatus(t, s.client, dep.TransactionID))
		s.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
		s.flush(t)
		assert.Equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(r.TransactionID))
		assert.Equal(t, []models.EventType{models.EventProcess, models.EventComplete}, in.typesFor(dep.TransactionID))
		assert.Equal(t, models.StatusCompleted, getStatus(t, s.client, dep.TransactionID))

		ev := in.last(dep.TransactionID)
		require.NotNil(t, ev)
		assert.Equal(t, itCreds.MerchantID, ev.MerchantID)
		assert.Equal(t, itCreds.AccessID, ev.AccessID)
		assert.Equal(t, "payout-1", ev.MerchantReference)
		assert.Equal(t, wire.ObjectTypeTransaction, ev.ObjectType)
		assert.Equal(t, r.TransactionID, ev.ParentObjectID)
		assert.Equal(t, models.TypeDeposit, ev.TransactionType)
		assert.Equal(t, models.PaymentTypeDeferred, ev.PaymentType)
		// Processed and completed on Thursday, when the clock first moved.
		assert.Equal(t, thursday, ev.CreatedAt, "created when the deposit completed, on the sandbox clock")
		require.NotNil(t, ev.Transaction)
		assert.Equal(t, models.StatusCompleted, ev.Transaction.Status)
		for _, e := range s.Events() {
			assert.True(t, e.Delivered, "event %s %s delivered", e.EventID, e.EventType)
			assert.Equal(t, http.StatusOK, e.LastStatus())
		}
	})
}

func TestDepositAmountRules(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()

		// An authorization with an amount: a deposit without one pays it all.
		r := s.authorize(t, deferredData("rules-auth-1", ""), bankpaytest.OutcomeAuthorize)
		dep, err := s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-1"})
		require.NoError(t, err)
		assert.Equal(t, models.Amount("100.00"), dep.Amount)
		_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-2", Amount: "0.01"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

		// 0.00: no upper bound, but each deposit must pass an amount. Without
		// AuthorizationAmount the SDK sends it, and the service refuses.
		auth, err := s.client.Transactions.Establish(ctx, disbursementParams("rules-auth-2", "", "0.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		_, err = s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-3"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		_, err = s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-3", AuthorizationAmount: "0.00"})
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve, "the SDK checks it when told the authorization amount")
		for i, amount := range []models.Amount{"5000.00", "125000.00"} {
			dep, err := s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-big-" + string(rune('a'+i)), Amount: amount})
			require.NoError(t, err)
			assert.Equal(t, amount, dep.Amount)
		}

		// A deposit needs a Deferred or Disbursement authorization in Authorized.
		ret := s.authorize(t, models.EstablishData{
			Currency: models.USD, Amount: "0.00", MerchantReference: "rules-auth-3", PaymentType: models.PaymentTypeRetrieval,
			ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
		}, bankpaytest.OutcomeAuthorize)
		_, err = s.client.Transactions.Deposit(ctx, ret.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-4", Amount: "1.00"})
		requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
		_, err = s.client.Transactions.Deposit(ctx, "100000000999999", &bankpay.DepositParams{MerchantReference: "rules-5", Amount: "1.00"})
		requireAPIError(t, err, http.StatusNotFound, codeInvalidParameter, bankpay.ErrNotFound)
	})
}

func TestDisbursementStateMachine(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s, in := startWithInbox(t, sh, bankpaytest.WithStartTime(thursday))
		ctx := context.Background()

		auth, err := s.client.Transactions.Establish(ctx, disbursementParams("disb-auth-1", in.URL, "0.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		assert.Len(t, auth.TransactionID, 15)
		assert.Equal(t, models.StatusAuthorized, getStatus(t, s.client, auth.TransactionID))
		if sh.bare {
			// The OpenAPI's establish answer (EstablishData): the data sent,
			// the authorization's id and its url; no type, status or payment:
			// unknown, never External or New.
			assert.Equal(t, &models.Transaction{TransactionID: auth.TransactionID, Currency: models.USD, Amount: "0.00",
				TransactionType: models.TypeUnknown, Status: models.StatusUnknown,
				MerchantReference: "disb-auth-1", URL: s.ControlURL + "/authorize?transactionId=" + auth.TransactionID}, auth)
		} else {
			// The spec's abbreviated establish response: status 0 with message
			// Authorized; the authorization itself is Authorized (2).
			assert.Equal(t, models.TypeAuthorize, auth.TransactionType)
			assert.Equal(t, models.StatusNew, auth.Status)
			assert.Equal(t, "Authorized", auth.StatusMessage)
			require.NotNil(t, auth.Payment)
			assert.Equal(t, models.PaymentTypeDisbursement, auth.Payment.PaymentType)
		}

		deposit := func(ref, amount string) string {
			t.Helper()
			d, err := s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: ref, Amount: models.Amount(amount)})
			require.NoError(t, err)
			require.Equal(t, models.StatusAuthorized, d.Status)
			require.Equal(t, auth.TransactionID, d.OriginalTransactionID)
			return d.TransactionID
		}
		a := deposit("disb-a", "10.00") // Processed -> Completed -> Reversed
		b := deposit("disb-b", "20.00") // Denied while Authorized
		c := deposit("disb-c", "30.00") // Denied while Processed
		require.NoError(t, s.Deny(b))
		assert.Equal(t, models.StatusDenied, getStatus(t, s.client, b))

		// Submitted to the network when time moves: Processed.
		s.Advance(time.Second)
		for _, id := range []string{a, c} {
			txn, err := s.client.Transactions.Get(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, models.StatusProcessed, txn.Status)
			assert.Equal(t, thursday, txn.ProcessedAt.Time())
		}
		require.NoError(t, s.Deny(c))

		// Thursday + 3 banking days = Tuesday (Saturday and Sunday skipped).
		due := time.Date(2025, time.March, 11, 15, 0, 0, 0, time.UTC)
		s.AdvanceBankingDays(2) // Monday
		assert.Equal(t, time.Monday, s.Now().Weekday())
		assert.Equal(t, models.StatusProcessed, getStatus(t, s.client, a))
		s.AdvanceTo(due.Add(-time.Millisecond))
		assert.Equal(t, models.StatusProcessed, getStatus(t, s.client, a), "not before 3 banking days")
		s.AdvanceTo(due)
		txn, err := s.client.Transactions.Get(ctx, a)
		require.NoError(t, err)
		assert.Equal(t, models.StatusCompleted, txn.Status, "exactly 3 banking days after it was processed")
		assert.Equal(t, due, txn.CompletedAt.Time())

		// Denied never completes, whatever the time.
		s.AdvanceBankingDays(10)
		assert.Equal(t, models.StatusDenied, getStatus(t, s.client, b))
		assert.Equal(t, models.StatusDenied, getStatus(t, s.client, c))
		assert.ErrorIs(t, s.Deny(a), bankpaytest.ErrInvalidTransition, "a Completed deposit cannot be Denied")

		// Reversed only from Completed.
		assert.ErrorIs(t, s.Reverse(c), bankpaytest.ErrInvalidTransition)
		assert.ErrorIs(t, s.Reverse(auth.TransactionID), bankpaytest.ErrInvalidTransition)
		require.NoError(t, s.Reverse(a))
		assert.Equal(t, models.StatusReversed, getStatus(t, s.client, a))
		assert.ErrorIs(t, s.Reverse(a), bankpaytest.ErrInvalidTransition)

		// Each change reached the handler as an event.
		s.flush(t)
		assert.Equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(auth.TransactionID))
		assert.Equal(t, []models.EventType{models.EventProcess, models.EventComplete, models.EventReverse}, in.typesFor(a))
		assert.Equal(t, []models.EventType{models.EventDeny}, in.typesFor(b))
		assert.Equal(t, []models.EventType{models.EventProcess, models.EventDeny}, in.typesFor(c))
		for id, want := range map[string]models.TransactionStatus{a: models.StatusReversed, b: models.StatusDenied, c: models.StatusDenied} {
			ev := in.last(id)
			require.NotNil(t, ev)
			require.NotNil(t, ev.Transaction)
			assert.Equal(t, want, ev.Transaction.Status, "last event of %s", id)
			assert.Equal(t, models.PaymentTypeDisbursement, ev.PaymentType)
		}
	})
}

func TestDisbursementEstablish(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		s := startSandbox(t, sh)
		ctx := context.Background()

		// Account type is optional, deviceType defaults to web.
		p := disbursementParams("est-1", "", "25.00", bankpaytest.AccountUnverified)
		p.Account.Type = 0
		auth, err := s.client.Transactions.Establish(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, models.Amount("25.00"), auth.Amount)
		assert.Equal(t, models.USD, auth.Currency)
		got, err := s.client.Transactions.Get(ctx, auth.TransactionID)
		require.NoError(t, err)
		assert.Equal(t, "0000", got.Payment.Account.AccountNumber, "last 4 digits of 1000000000")

		_, err = s.client.Transactions.Establish(ctx, p)
		requireAPIError(t, err, http.StatusBadRequest, codeDuplicate, bankpay.ErrDuplicate)

		// Not the sandbox routing number; not a sandbox account.
		wrong := disbursementParams("est-2", "", "25.00", bankpaytest.AccountVerified)
		wrong.Account.RoutingNumber = "011000015"
		_, err = s.client.Transactions.Establish(ctx, wrong)
		assert.ErrorIs(t, err, bankpay.ErrBadRequest)
		_, err = s.client.Transactions.Establish(ctx, disbursementParams("est-3", "", "25.00", "1234567890"))
		assert.ErrorIs(t, err, bankpay.ErrBadRequest)

		// Checked by the SDK: nothing sent.
		bad := disbursementParams("est-4", "", "25.00", bankpaytest.AccountVerified)
		bad.Currency = "EUR"
		_, err = s.client.Transactions.Establish(ctx, bad)
		var ve *bankpay.ValidationError
		require.ErrorAs(t, err, &ve)
		assert.Equal(t, "currency", ve.Field)

		// Wrong credentials: 401 / 375.
		wc := clientFor(t, s.Server, bankpay.Credentials{AccessID: itCreds.AccessID, AccessKey: bankpay.NewSecret("wrong"), MerchantID: itCreds.MerchantID})
		_, err = wc.Transactions.Establish(ctx, disbursementParams("est-5", "", "25.00", bankpaytest.AccountVerified))
		requireAPIError(t, err, http.StatusUnauthorized, codeAccessControl, bankpay.ErrUnauthorized)
		_, err = wc.Transactions.Get(ctx, auth.TransactionID)
		requireAPIError(t, err, http.StatusUnauthorized, codeAccessControl, bankpay.ErrUnauthorized)
		// A merchantId that is not the credentials': 401 / 300.
		mc := clientFor(t, s.Server, bankpay.Credentials{AccessID: itCreds.AccessID, AccessKey: bankpay.NewSecret(itCreds.AccessKey.Reveal()), MerchantID: "1199999999"})
		_, err = mc.Transactions.Establish(ctx, disbursementParams("est-6", "", "25.00", bankpaytest.AccountVerified))
		requireAPIError(t, err, http.StatusUnauthorized, codeSecurity, bankpay.ErrUnauthorized)

		_, err = s.client.Transactions.Get(ctx, "100000000999999")
		requireAPIError(t, err, http.StatusNotFound, codeInvalidParameter, bankpay.ErrNotFound)
	})
}
