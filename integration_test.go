package bankpay_test

// Integration tests: the public SDK against the bankpaytest sandbox over
// real loopback HTTP, through every use case of the spec end to end. Events
// are delivered by the sandbox to a handler built with NewWebhookHandler,
// redirects are checked with VerifyRedirect, and time moves with the
// sandbox's fake clock (nothing sleeps).

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// Service error codes the integration tests expect (APIError.Code).
const (
	codeInvalidParameter = 200
	codeDuplicate        = 210
	codeSecurity         = 300
	codeInvalidAccount   = 330
	codeAccessControl    = 375
)

// itCreds are the default sandbox merchant's credentials in these tests
// (fixed, so that the webhook handler can exist before the sandbox).
var itCreds = bankpay.Credentials{AccessID: "ITEST0000000000000001", AccessKey: bankpay.NewSecret("integration-test-key"), MerchantID: "1100000001"}

// sandboxMerchant is the default merchant: configured for VIP tiers and
// money transfer.
func sandboxMerchant() bankpaytest.Merchant {
	return bankpaytest.Merchant{
		Credentials: itCreds,
	}
}

// thursday is a Thursday, so that 3 banking days cross a weekend.
var thursday = time.Date(2025, time.March, 6, 15, 0, 0, 0, time.UTC)

type sandbox struct {
	*bankpaytest.Server
	client *bankpay.Client
	key    string // the client's access key, to verify redirects with
}

// bareRun is the test that runs every integration use case again against a
// sandbox responding with bare single objects (the operator's OpenAPI shapes).
const bareRun = "TestIntegrationBareResponses/"

// modeOptions returns the sandbox options of t's mode: WithBareResponses
// under TestIntegrationBareResponses, none otherwise (the spec's wrapped
// shapes).
func modeOptions(t *testing.T) []bankpaytest.Option {
	if strings.HasPrefix(t.Name(), bareRun) {
		return []bankpaytest.Option{bankpaytest.WithBareResponses()}
	}
	return nil
}

// startSandbox starts a sandbox whose default merchant is sandboxMerchant
// (unless opts replace it), in t's response mode (modeOptions), and a
// client for it, both closed at cleanup.
func startSandbox(t *testing.T, opts ...bankpaytest.Option) *sandbox {
	t.Helper()
	all := append([]bankpaytest.Option{bankpaytest.WithDefaultMerchant(sandboxMerchant())}, modeOptions(t)...)
	srv := bankpaytest.NewServer(append(all, opts...)...)
	t.Cleanup(srv.Close)
	c := srv.Credentials()
	return &sandbox{Server: srv, key: c.AccessKey.Reveal(), client: clientFor(t, srv, c)}
}

func clientFor(t *testing.T, srv *bankpaytest.Server, creds bankpay.Credentials) *bankpay.Client {
	t.Helper()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.URL), bankpay.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	require.NoError(t, err)
	return c
}

// flush waits until the sandbox has delivered what it emitted.
func (s *sandbox) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Flush(ctx))
}

// authorize signs d with the client, plays the user taking outcome, and
// verifies the redirect with VerifyRedirect.
func (s *sandbox) authorize(t *testing.T, d models.EstablishData, outcome bankpaytest.Outcome) *bankpay.Redirect {
	t.Helper()
	require.NoError(t, s.client.SignEstablishData(&d))
	u, txn, err := s.Authorize(d, outcome)
	require.NoError(t, err)
	r, err := bankpay.VerifyRedirect(u, s.key)
	require.NoError(t, err, "redirect %s", u)
	require.Equal(t, txn.TransactionID, r.TransactionID)
	return r
}

// inbox is the merchant's notification endpoint: NewWebhookHandler on a
// loopback server, recording the verified events.
type inbox struct {
	URL string

	mu     sync.Mutex
	events []*bankpay.Event
	typed  []string // which typed callback took each event
	failN  int      // fail the next failN events with an error (500)
	clock  func() time.Time
}

// useClock makes the inbox judge an event's age by clock (the sandbox's
// fake clock), as a merchant testing against bankpaytest does with
// bankpay.WithWebhookClock.
func (in *inbox) useClock(clock func() time.Time) {
	in.mu.Lock()
	in.clock = clock
	in.mu.Unlock()
}

func (in *inbox) now() time.Time {
	in.mu.Lock()
	clock := in.clock
	in.mu.Unlock()
	if clock == nil {
		return time.Now()
	}
	return clock()
}

func startInbox(t *testing.T, creds bankpay.Credentials, opts ...bankpay.WebhookOption) *inbox {
	t.Helper()
	in := &inbox{}
	record := func(ev *bankpay.Event, via string) error {
		in.mu.Lock()
		defer in.mu.Unlock()
		if in.failN > 0 {
			in.failN--
			return errors.New("storage unavailable")
		}
		in.events = append(in.events, ev)
		in.typed = append(in.typed, via)
		return nil
	}
	opts = append([]bankpay.WebhookOption{bankpay.WithWebhookClock(in.now)}, opts...)
	h := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		switch {
		case ev.IdentityVerified != nil:
			return record(ev, "identityVerified")
		case ev.IdentityDataRetrieved != nil:
			return record(ev, "identityData")
		case ev.Transaction != nil:
			return record(ev, "transaction")
		}
		return record(ev, "other")
	}, opts...)
	mux := http.NewServeMux()
	mux.Handle("POST /events", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	in.URL = srv.URL + "/events"
	return in
}

func (in *inbox) failNext(n int) {
	in.mu.Lock()
	in.failN = n
	in.mu.Unlock()
}

func (in *inbox) all() []*bankpay.Event {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]*bankpay.Event(nil), in.events...)
}

// typesFor lists the types of the events received for transaction id.
func (in *inbox) typesFor(id string) []models.EventType {
	var out []models.EventType
	for _, ev := range in.all() {
		if ev.TransactionID() == id {
			out = append(out, ev.EventType)
		}
	}
	return out
}

func (in *inbox) last(id string) *bankpay.Event {
	var out *bankpay.Event
	for _, ev := range in.all() {
		if ev.TransactionID() == id {
			out = ev
		}
	}
	return out
}

func deferredData(ref, notify string) models.EstablishData {
	return models.EstablishData{
		Description:       "integration",
		Currency:          models.USD,
		Amount:            "100.00",
		MerchantReference: ref,
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://shop.example/return?order=42",
		CancelURL:         "https://shop.example/cancel",
		NotificationURL:   notify,
	}
}

func disbursementParams(ref, notify, amount, account string) *models.EstablishData {
	return &models.EstablishData{
		Currency:          models.USD,
		Amount:            models.Amount(amount),
		MerchantReference: ref,
		PaymentType:       models.PaymentTypeDisbursement,
		NotificationURL:   notify,
		Account:           &models.Account{AccountNumber: account, RoutingNumber: "124003116", Type: 1},
	}
}

func getStatus(t *testing.T, c *bankpay.Client, id string) models.TransactionStatus {
	t.Helper()
	txn, err := c.Transactions.Get(context.Background(), id)
	require.NoError(t, err)
	return txn.Status
}

func requireAPIError(t *testing.T, err error, status, code int, sentinel error) *bankpay.APIError {
	t.Helper()
	var apiErr *bankpay.APIError
	require.ErrorAs(t, err, &apiErr)
	assert.Equal(t, status, apiErr.StatusCode, "HTTP status of %v", err)
	assert.Equal(t, code, apiErr.Code, "code of %v", err)
	if sentinel != nil {
		assert.ErrorIs(t, err, sentinel)
	}
	return apiErr
}

// --- Instant payout -------------------------------------------------------

func TestIntegrationInstantPayout(t *testing.T) {
	in := startInbox(t, itCreds)
	s := startSandbox(t, bankpaytest.WithStartTime(thursday))
	in.useClock(s.Now)
	ctx := context.Background()

	d := deferredData("payout-auth-1", in.URL)
	d.Customer = &models.Customer{ExternalID: "player-1", Name: "Jane Doe"}
	r := s.authorize(t, d, bankpaytest.OutcomeAuthorize)

	// The redirect: returnUrl (with its own query kept), the documented
	// parameters, signed.
	assert.True(t, r.Authorized())
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
		assert.True(t, e.Delivered, "event %s %s delivered", e.ID, e.Type)
		assert.Equal(t, http.StatusOK, e.LastStatus())
	}
}

func TestIntegrationDepositAmountRules(t *testing.T) {
	s := startSandbox(t)
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
}

func TestIntegrationCancelledAuthorization(t *testing.T) {
	in := startInbox(t, itCreds)
	s := startSandbox(t)
	in.useClock(s.Now)
	d := deferredData("cancel-1", in.URL)
	require.NoError(t, s.client.SignEstablishData(&d))
	u, _, err := s.Authorize(d, bankpaytest.OutcomeCancel)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(u, d.CancelURL+"?"), "redirected to the cancelUrl: %s", u)
	r, err := bankpay.VerifyRedirect(u, itCreds.AccessKey.Reveal())
	require.NoError(t, err)
	assert.True(t, r.Canceled())
	assert.Equal(t, models.StatusCanceled, r.Status)
	assert.Equal(t, models.StatusCanceled, getStatus(t, s.client, r.TransactionID))

	_, err = s.client.Transactions.Deposit(context.Background(), r.TransactionID, &bankpay.DepositParams{MerchantReference: "cancel-dep", Amount: "1.00"})
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
	s.flush(t)
	assert.Equal(t, []models.EventType{models.EventCancel}, in.typesFor(r.TransactionID))
}

func TestIntegrationRedirectSignature(t *testing.T) {
	s := startSandbox(t)
	d := deferredData("redirect-1", "")
	require.NoError(t, s.client.SignEstablishData(&d))
	u, _, err := s.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(u, "https://shop.example/return?order=42&transactionId="), u)

	_, err = bankpay.VerifyRedirect(u, "another-key")
	assert.ErrorIs(t, err, bankpay.ErrInvalidSignature)
	_, err = bankpay.VerifyRedirect(strings.Replace(u, "status=2", "status=7", 1), s.key)
	assert.ErrorIs(t, err, bankpay.ErrInvalidSignature)
	_, err = bankpay.VerifyRedirect(u+"&status=7", s.key)
	assert.True(t, err != nil, "a parameter appended after the signature")
	i := strings.Index(u, "&requestSignature=")
	_, err = bankpay.VerifyRedirect(u[:i], s.key)
	assert.ErrorIs(t, err, bankpay.ErrInvalidSignature)

	// Establish data the user interface refuses: a bad signature, a repeated
	// reference.
	bad := deferredData("redirect-2", "")
	require.NoError(t, s.client.SignEstablishData(&bad))
	bad.Amount = "99.00"
	_, _, err = s.Authorize(bad, bankpaytest.OutcomeAuthorize)
	var se *bankpaytest.Error
	require.ErrorAs(t, err, &se)
	assert.Equal(t, http.StatusUnauthorized, se.Status)
	assert.Equal(t, codeAccessControl, se.Code)
	_, _, err = s.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.ErrorAs(t, err, &se)
	assert.Equal(t, codeDuplicate, se.Code)
}

func TestIntegrationRedirectSHA512(t *testing.T) {
	s := startSandbox(t)
	c, err := bankpay.NewClient(itCreds, bankpay.WithBaseURL(s.URL), bankpay.WithSignatureAlgorithm(bankpay.HMACSHA512))
	require.NoError(t, err)
	d := deferredData("sha512-1", "")
	require.NoError(t, c.SignEstablishData(&d))
	require.True(t, strings.HasPrefix(d.RequestSignature, "HmacSHA512:"))
	u, _, err := s.Authorize(d, bankpaytest.OutcomeAuthorize)
	require.NoError(t, err)
	r, err := bankpay.VerifyRedirect(u, itCreds.AccessKey.Reveal())
	require.NoError(t, err)
	assert.Equal(t, bankpay.HMACSHA512, r.Algorithm, "the sandbox signs the redirect with the merchant's algorithm")
}

// --- Account, user and cash-flow data --------------------------------------

func TestIntegrationAccountData(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()
	r := s.authorize(t, models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: "retrieval-1", PaymentType: models.PaymentTypeRetrieval,
		ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
		Customer: &models.Customer{ExternalID: "cust-9", Name: "Sam Doe"},
	}, bankpaytest.OutcomeAuthorize)
	assert.Equal(t, models.PaymentTypeRetrieval, r.PaymentType)

	bal, err := s.client.Accounts.Balance(ctx, r.TransactionID)
	require.NoError(t, err)
	a := bal.Account
	require.NotNil(t, a)
	assert.NotEmpty(t, a.AccountNumber)
	assert.Equal(t, "124003116", a.RoutingNumber)
	assert.NotEmpty(t, a.NameOnAccount)
	assert.NotEmpty(t, a.ProviderID)
	assert.Equal(t, models.USD, bal.Currency)
	balCents, err := bal.Amount.Cents()
	require.NoError(t, err)

	u, err := s.client.Accounts.User(ctx, r.TransactionID)
	require.NoError(t, err)
	require.NotEmpty(t, u.Name)
	assert.Equal(t, a.NameOnAccount, u.Name[0], "the bank holds one person")
	assert.NotEmpty(t, u.Address)
	assert.NotEmpty(t, u.Phone)
	assert.NotEmpty(t, u.Email)

	sum, err := s.client.Accounts.Summary(ctx, r.TransactionID)
	require.NoError(t, err)
	require.Len(t, sum.Summary, 1)
	e := sum.Summary[0]
	assert.True(t, e.SelectedAccount)
	assert.Equal(t, a.RoutingNumber, e.RoutingNumber)
	assert.Equal(t, a.AccountNumber, e.AccountNumber)
	assert.NotEmpty(t, sum.CustomerID)
	assert.True(t, !sum.LastUpdated.IsZero())
	var prev *models.Aggregation
	for _, days := range []int{7, 30, 90} {
		ag := e.Aggregation(days)
		require.NotNil(t, ag, "%d-day aggregation", days)
		cents := func(a models.Amount) int64 {
			c, err := a.Cents()
			if err != nil && strings.HasPrefix(string(a), "-") { // a negative balance
				c, err = models.Amount(strings.TrimPrefix(string(a), "-")).Cents()
				c = -c
			}
			require.NoError(t, err, "amount %q", a)
			return c
		}
		bMin, bAvg, bMax := cents(ag.BalanceMin), cents(ag.BalanceAvg), cents(ag.BalanceMax)
		assert.LessOrEqual(t, bMin, bAvg, "%d days", days)
		assert.LessOrEqual(t, bAvg, bMax, "%d days", days)
		assert.LessOrEqual(t, bMin, balCents, "the current balance is within the %d-day range", days)
		assert.LessOrEqual(t, balCents, bMax, "the current balance is within the %d-day range", days)
		assert.LessOrEqual(t, cents(ag.DepositAmountMax), cents(ag.DepositAmountTotal))
		assert.LessOrEqual(t, cents(ag.WithdrawalAmountMax), cents(ag.WithdrawalAmountTotal))
		assert.LessOrEqual(t, ag.ActivityEarliestDate, ag.ActivityLatestDate)
		assert.LessOrEqual(t, ag.ActivityLatestDate, sum.LastUpdated)
		if prev != nil {
			// A longer period contains the shorter one.
			assert.LessOrEqual(t, prev.DepositCount, ag.DepositCount)
			assert.LessOrEqual(t, prev.WithdrawalCount, ag.WithdrawalCount)
			assert.LessOrEqual(t, prev.OverdraftCount, ag.OverdraftCount)
			assert.LessOrEqual(t, prev.NSFCount, ag.NSFCount)
			assert.LessOrEqual(t, cents(prev.DepositAmountTotal), cents(ag.DepositAmountTotal))
			assert.LessOrEqual(t, cents(prev.WithdrawalAmountTotal), cents(ag.WithdrawalAmountTotal))
			assert.LessOrEqual(t, bMin, cents(prev.BalanceMin))
			assert.LessOrEqual(t, cents(prev.BalanceMax), bMax)
		}
		prev = ag
	}
	// The same authorization responds the same figures.
	again, err := s.client.Accounts.Summary(ctx, r.TransactionID)
	require.NoError(t, err)
	assert.Equal(t, sum, again)

	// Account data needs a Retrieval authorization.
	p := s.authorize(t, deferredData("not-retrieval", ""), bankpaytest.OutcomeAuthorize)
	_, err = s.client.Accounts.Balance(ctx, p.TransactionID)
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
	_, err = s.client.Accounts.Summary(ctx, "100000000999999")
	assert.ErrorIs(t, err, bankpay.ErrNotFound)
}

// --- International money transfer ------------------------------------------

func transferCapture(ref string) *bankpay.CaptureParams {
	return &bankpay.CaptureParams{
		MerchantReference: ref,
		Amount:            "40.00",
		Beneficiary: &models.Beneficiary{
			Name: "Luis Garcia", DateOfBirth: "1990-07-21", TaxID: "GAXL900721",
			Address: &models.Address{Address1: "Calle 5", City: "Guadalajara", State: "JAL", Zip: "44100", Country: "MX"},
		},
		BeneficiaryAccount: &models.BeneficiaryAccount{
			AccountNumber: "012320001234567891",
			IBAN:          "MX00000000000000000",
			PaymentProvider: &models.PaymentProvider{
				Name: "Banco Ejemplo", Country: "MX", Swift: "BEJEMXMM", RoutingNumber: "012320001",
			},
		},
		Metadata: &bankpay.CaptureMetadata{Remittance: &models.Remittance{
			WithdrawalMethod: models.WithdrawalBankDeposit, CountryCorridor: "MX", AccountLastFour: "7891",
		}},
	}
}

func TestIntegrationMoneyTransfer(t *testing.T) {
	plain := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000002", AccessKey: bankpay.NewSecret("plain-key"), MerchantID: "1100000002"}, NoMoneyTransfer: true}
	s := startSandbox(t, bankpaytest.WithMerchant(plain))
	ctx := context.Background()
	originator := &models.Customer{
		ExternalID: "sender-1", Name: "Maria Garcia",
		Address: &models.Address{Address1: "200 Oak Ave", City: "Austin", State: "TX", Zip: "73301", Country: "US"},
	}
	d := deferredData("imt-auth-1", "")
	d.Customer = originator
	r := s.authorize(t, d, bankpaytest.OutcomeAuthorize)

	c, err := s.client.Transactions.Capture(ctx, r.TransactionID, transferCapture("imt-1"))
	require.NoError(t, err)
	assert.Equal(t, models.TypeCapture, c.TransactionType)
	assert.Equal(t, models.StatusAuthorized, c.Status)
	assert.Equal(t, r.TransactionID, c.OriginalTransactionID)
	assert.Equal(t, models.Amount("40.00"), c.Amount)
	got, err := s.client.Transactions.Get(ctx, c.TransactionID)
	require.NoError(t, err)
	assert.Equal(t, c.TransactionID, got.TransactionID)

	_, err = s.client.Transactions.Capture(ctx, r.TransactionID, transferCapture("imt-1"))
	requireAPIError(t, err, http.StatusBadRequest, codeDuplicate, bankpay.ErrDuplicate)
	over := transferCapture("imt-2")
	over.Amount = "60.01"
	_, err = s.client.Transactions.Capture(ctx, r.TransactionID, over)
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

	// Checked by the SDK before sending: the beneficiary's name and country.
	noCountry := transferCapture("imt-3")
	noCountry.Beneficiary.Address.Country = ""
	_, err = s.client.Transactions.Capture(ctx, r.TransactionID, noCountry)
	var ve *bankpay.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "beneficiary.address.country", ve.Field)

	// The originator's address is required: establish data without it.
	d2 := deferredData("imt-auth-2", "")
	d2.Customer = &models.Customer{Name: "No Address"}
	r2 := s.authorize(t, d2, bankpaytest.OutcomeAuthorize)
	_, err = s.client.Transactions.Capture(ctx, r2.TransactionID, transferCapture("imt-4"))
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)

	// A merchant not configured for money transfer cannot capture.
	pc := clientFor(t, s.Server, plain.Credentials)
	d3 := deferredData("imt-auth-3", "")
	d3.Customer = originator
	require.NoError(t, pc.SignEstablishData(&d3))
	u, _, err := s.Authorize(d3, bankpaytest.OutcomeAuthorize)
	require.NoError(t, err)
	r3, err := bankpay.VerifyRedirect(u, plain.AccessKey.Reveal())
	require.NoError(t, err)
	_, err = pc.Transactions.Capture(ctx, r3.TransactionID, transferCapture("imt-5"))
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
	// Nor see another merchant's transaction.
	_, err = pc.Transactions.Get(ctx, r.TransactionID)
	assert.ErrorIs(t, err, bankpay.ErrNotFound)
}

// --- Identity verification --------------------------------------------------

func TestIntegrationIdentity(t *testing.T) {
	for _, tc := range []struct {
		outcome      bankpaytest.Outcome
		eligible     bool
		userSourced  []string // attributes the user confirmed or entered
		unverified   []string
		resultsOfAll int
	}{
		{bankpaytest.OutcomeEligible, true, nil, nil, bankpaytest.ResultVerified},
		{bankpaytest.OutcomeAuthorize, true, nil, nil, bankpaytest.ResultVerified}, // kycType 1: the demo password
		{bankpaytest.OutcomeExcessData, true, []string{"address", "phone"}, nil, bankpaytest.ResultVerified},
		{bankpaytest.OutcomeNotEligible, false, nil, []string{"address", "name"}, bankpaytest.ResultNotVerified},
	} {
		t.Run(tc.outcome.String(), func(t *testing.T) {
			in := startInbox(t, itCreds)
			const providers = 3
			s := startSandbox(t, bankpaytest.WithIdentityProviders(providers))
			in.useClock(s.Now)
			ctx := context.Background()
			d := deferredData("kyc-"+tc.outcome.String(), in.URL)
			d.Amount = "0.00"
			d.KYCType = models.KYCTypeIdentity
			r := s.authorize(t, d, tc.outcome)
			id := r.TransactionID

			// Before the data-retrieved event: 400, ErrIdentityNotReady.
			_, err := s.client.Identity.User(ctx, id)
			requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrIdentityNotReady)
			assert.ErrorIs(t, err, bankpay.ErrBadRequest)
			_, err = s.client.Identity.Detail(ctx, id)
			assert.ErrorIs(t, err, bankpay.ErrIdentityNotReady)
			// Feedback waits for the end of the verification.
			err = s.client.Identity.Register(ctx, id, "too early")
			assert.ErrorIs(t, err, bankpay.ErrBadRequest)

			// One data-retrieved event per provider, then the verified one.
			for i := 1; i <= providers; i++ {
				s.Advance(bankpaytest.IdentityStep)
				s.flush(t)
				u, err := s.client.Identity.User(ctx, id)
				require.NoError(t, err, "after provider %d", i)
				assert.True(t, !u.Eligible, "not eligible before the verification completes")
				det, err := s.client.Identity.Detail(ctx, id)
				require.NoError(t, err)
				assert.Len(t, det.Verification, i)
			}
			s.Advance(bankpaytest.IdentityStep)
			s.flush(t)
			types := in.typesFor(id)
			want := []models.EventType{models.EventAuthorize}
			for i := 0; i < providers; i++ {
				want = append(want, models.EventIdentityVerificationDataRetrieved)
			}
			want = append(want, models.EventCustomerIdentityVerified)
			assert.Equal(t, want, types)
			in.mu.Lock()
			typed := append([]string(nil), in.typed...)
			in.mu.Unlock()
			assert.Equal(t, []string{"transaction", "identityData", "identityData", "identityData", "identityVerified"}, typed)
			seen := map[string]bool{}
			for _, ev := range in.all() {
				if ev.IdentityDataRetrieved != nil {
					assert.Equal(t, "SUCCESS", ev.IdentityDataRetrieved.ProviderReportStatus)
					seen[ev.IdentityDataRetrieved.ProviderUsedForValidation] = true
				}
				if ev.IdentityDataRetrieved != nil || ev.IdentityVerified != nil {
					assert.Equal(t, "performKycVerification", ev.Message)
					assert.Equal(t, models.PaymentTypeDeferred, ev.PaymentType)
					assert.Equal(t, models.TypeAuthorize, ev.TransactionType)
				}
				if ev.IdentityVerified != nil {
					assert.Equal(t, "FINISHED", ev.IdentityVerified.IdentityVerified)
					assert.Equal(t, "FINISHED", ev.IdentityVerified.KYCResult)
				}
			}
			assert.Len(t, seen, providers, "one event per provider")

			u, err := s.client.Identity.User(ctx, id)
			require.NoError(t, err)
			assert.Equal(t, tc.eligible, u.Eligible)
			assert.NotEmpty(t, u.Name)
			assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, u.DateOfBirth)
			assert.NotEmpty(t, u.TaxID)
			require.NotNil(t, u.DriverLicense)
			det, err := s.client.Identity.Detail(ctx, id)
			require.NoError(t, err)
			require.Len(t, det.Verification, providers)
			for _, v := range det.Verification {
				assert.Equal(t, tc.resultsOfAll, v.Result, v.VerificationName)
			}
			var sourced, unverified []string
			for _, a := range det.Attribute {
				assert.Len(t, a.Verification, providers, a.Name)
				if a.Source == "user" {
					sourced = append(sourced, a.Name)
				}
				if !a.Verified {
					unverified = append(unverified, a.Name)
				}
			}
			sort.Strings(sourced)
			sort.Strings(unverified)
			assert.Equal(t, tc.userSourced, sourced)
			assert.Equal(t, tc.unverified, unverified)

			// The merchant's feedback.
			if tc.eligible {
				require.NoError(t, s.client.Identity.Register(ctx, id, "registered"))
				assert.Equal(t, []wire.Feedback{{Status: 4, SubStatus: 559, Description: "registered"}}, s.Feedback(id))
				assert.Equal(t, models.StatusAuthorized, getStatus(t, s.client, id), "Registered keeps the transaction valid")
			} else {
				require.NoError(t, s.client.Identity.Void(ctx, id, "registration failed"))
				assert.Equal(t, []wire.Feedback{{Status: 13, SubStatus: 558, Description: "registration failed"}}, s.Feedback(id))
				assert.Equal(t, models.StatusVoided, getStatus(t, s.client, id))
			}
		})
	}
}

// --- Disbursement with account and routing numbers ---------------------------

func TestIntegrationDisbursementStateMachine(t *testing.T) {
	in := startInbox(t, itCreds)
	s := startSandbox(t, bankpaytest.WithStartTime(thursday))
	in.useClock(s.Now)
	ctx := context.Background()

	auth, err := s.client.Transactions.Establish(ctx, disbursementParams("disb-auth-1", in.URL, "0.00", bankpaytest.AccountVerified))
	require.NoError(t, err)
	assert.Equal(t, models.TypeAuthorize, auth.TransactionType)
	// The spec's abbreviated establish response: status 0 with message
	// Authorized; the authorization itself is Authorized (2).
	assert.Equal(t, models.StatusNew, auth.Status)
	assert.Equal(t, "Authorized", auth.StatusMessage)
	assert.Equal(t, models.StatusAuthorized, getStatus(t, s.client, auth.TransactionID))
	require.NotNil(t, auth.Payment)
	assert.Equal(t, models.PaymentTypeDisbursement, auth.Payment.PaymentType)
	assert.Len(t, auth.TransactionID, 15)

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
}

func TestIntegrationDisbursementEstablish(t *testing.T) {
	s := startSandbox(t)
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
}

// --- Tokenization: the sandbox table and its error triggers -------------------

// specAccount is a row of the spec's sandbox account table, written here from
// the spec, independently of bankpaytest's table.
type specAccount struct {
	number   string
	score    int
	third    int // -1: none
	verified bool
	kind     string
}

var specAccounts = []specAccount{
	// 1000000000 to 1000000010: the last two digits are the score, no
	// third-party score, verified from 6.
	{"1000000000", 0, -1, false, "non third-party"},
	{"1000000001", 1, -1, false, "non third-party"},
	{"1000000002", 2, -1, false, "non third-party"},
	{"1000000003", 3, -1, false, "non third-party"},
	{"1000000004", 4, -1, false, "non third-party"},
	{"1000000005", 5, -1, false, "non third-party"},
	{"1000000006", 6, -1, true, "non third-party"},
	{"1000000007", 7, -1, true, "non third-party"},
	{"1000000008", 8, -1, true, "non third-party"},
	{"1000000009", 9, -1, true, "non third-party"},
	{"1000000010", 10, -1, true, "non third-party"},
	// FCRA: 1000001000 to 1000001900 in steps of 100, and 1000001999;
	// scores 0 to 10, third-party 0 to 900 and 999, verified from 600.
	{"1000001000", 0, 0, false, "FCRA"},
	{"1000001100", 1, 100, false, "FCRA"},
	{"1000001200", 2, 200, false, "FCRA"},
	{"1000001300", 3, 300, false, "FCRA"},
	{"1000001400", 4, 400, false, "FCRA"},
	{"1000001500", 5, 500, false, "FCRA"},
	{"1000001600", 6, 600, true, "FCRA"},
	{"1000001700", 7, 700, true, "FCRA"},
	{"1000001800", 8, 800, true, "FCRA"},
	{"1000001900", 9, 900, true, "FCRA"},
	{"1000001999", 10, 999, true, "FCRA"},
	// Non-FCRA: score 1, third-party 15 to 45, verified from 35.
	{"1000001015", 1, 15, false, "Non-FCRA"},
	{"1000001020", 1, 20, false, "Non-FCRA"},
	{"1000001025", 1, 25, false, "Non-FCRA"},
	{"1000001035", 1, 35, true, "Non-FCRA"},
	{"1000001045", 1, 45, true, "Non-FCRA"},
}

// specTriggers are the spec's tokenize error triggers.
var specTriggers = []struct {
	number       string
	status, code int
	sentinel     error
}{
	{"1002000000", 400, 200, bankpay.ErrBadRequest},
	{"1003000000", 401, 300, bankpay.ErrUnauthorized},
	{"1003250000", 401, 325, bankpay.ErrUnauthorized},
	{"1003750000", 401, 375, bankpay.ErrUnauthorized},
	{"1001000000", 500, 100, bankpay.ErrServer},
}

func TestIntegrationSandboxTablesMatchSpec(t *testing.T) {
	got := map[string]bankpaytest.SandboxAccount{}
	for _, a := range bankpaytest.SandboxAccounts() {
		_, dup := got[a.AccountNumber]
		assert.True(t, !dup, "account %s twice in the sandbox table", a.AccountNumber)
		got[a.AccountNumber] = a
	}
	assert.Len(t, got, len(specAccounts))
	for _, want := range specAccounts {
		a, ok := got[want.number]
		if !assert.True(t, ok, "sandbox table lacks %s", want.number) {
			continue
		}
		assert.Equal(t, want.score, a.Score, want.number)
		assert.Equal(t, want.verified, a.Verified, want.number)
		assert.Equal(t, want.kind, a.ScoreType, want.number)
		if want.third < 0 {
			assert.Nil(t, a.ThirdPartyScore, want.number)
		} else if assert.NotNil(t, a.ThirdPartyScore, want.number) {
			assert.Equal(t, want.third, *a.ThirdPartyScore, want.number)
		}
	}
	triggers := bankpaytest.ErrorTriggers()
	require.Len(t, triggers, len(specTriggers))
	for i, want := range specTriggers {
		assert.Equal(t, bankpaytest.ErrorTrigger{AccountNumber: want.number, Status: want.status, Code: want.code}, triggers[i])
	}
}

func TestIntegrationTokenizeTable(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()
	start := s.Now()
	for _, row := range specAccounts {
		t.Run(row.number, func(t *testing.T) {
			tk, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{
				AccountNumber: row.number, RoutingNumber: "124003116", AccountType: 1, VerifyAccount: true,
			})
			require.NoError(t, err)
			assert.Equal(t, itCreds.MerchantID, tk.MerchantID)
			a := tk.Account
			require.NotNil(t, a)
			assert.Equal(t, row.number, a.AccountNumber, "the submitted data is echoed")
			assert.Equal(t, "124003116", a.RoutingNumber)
			assert.Equal(t, 1, a.Type)
			assert.NotEmpty(t, a.Token)
			v := a.Verification
			require.NotNil(t, v)
			assert.Equal(t, row.verified, v.Verified)
			assert.Equal(t, 3, v.Type, "verification type 3 (Database)")
			require.NotNil(t, v.Score)
			assert.Equal(t, row.score, *v.Score)
			assert.True(t, *v.Score >= 0 && *v.Score <= 10)
			if row.third < 0 {
				assert.Nil(t, v.ThirdPartyScore)
			} else if assert.NotNil(t, v.ThirdPartyScore) {
				assert.Equal(t, row.third, *v.ThirdPartyScore)
			}
			assert.Equal(t, start, v.VerificationDate.Time())
		})
	}
}

func TestIntegrationTokenizeTokens(t *testing.T) {
	other := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000003", AccessKey: bankpay.NewSecret("other-key"), MerchantID: "1100000003"}}
	s := startSandbox(t, bankpaytest.WithMerchant(other))
	ctx := context.Background()
	p := &bankpay.TokenizeParams{AccountNumber: "1000000007", RoutingNumber: "124003116",
		Customer: &models.Customer{ExternalID: "cust-7", Name: "Amara Okafor"}}
	first, err := s.client.Accounts.Tokenize(ctx, p)
	require.NoError(t, err)
	assert.Nil(t, first.Account.Verification, "no verification unless asked")
	require.NotNil(t, first.Customer)
	assert.Equal(t, "Amara Okafor", first.Customer.Name)
	second, err := s.client.Accounts.Tokenize(ctx, p)
	require.NoError(t, err)
	assert.Equal(t, first.Account.Token, second.Account.Token, "unique per merchant per account")
	p2 := *p
	p2.AccountNumber = "1000000008"
	third, err := s.client.Accounts.Tokenize(ctx, &p2)
	require.NoError(t, err)
	assert.NotEqual(t, first.Account.Token, third.Account.Token)
	oc := clientFor(t, s.Server, other.Credentials)
	theirs, err := oc.Accounts.Tokenize(ctx, p)
	require.NoError(t, err)
	assert.NotEqual(t, first.Account.Token, theirs.Account.Token, "another merchant gets another token")

	// Not a sandbox account: 400 with code 330 (invalid account).
	_, err = s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1234567", RoutingNumber: "124003116"})
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidAccount, bankpay.ErrBadRequest)
	// Refused by the SDK, nothing sent.
	_, err = s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000007"})
	var ve *bankpay.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "account.routingNumber", ve.Field)
}

func TestIntegrationErrorTriggers(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()
	for _, tr := range specTriggers {
		t.Run(tr.number, func(t *testing.T) {
			for _, verify := range []bool{false, true} {
				_, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: tr.number, RoutingNumber: "124003116", VerifyAccount: verify})
				apiErr := requireAPIError(t, err, tr.status, tr.code, tr.sentinel)
				assert.Equal(t, 1, apiErr.Attempts, "tokenize is not retried")
				assert.NotContains(t, err.Error(), tr.number, "errors never carry the account number")
			}
			// The Disbursement establish responds the same.
			_, err := s.client.Transactions.Establish(ctx, disbursementParams("trigger-"+tr.number, "", "10.00", tr.number))
			requireAPIError(t, err, tr.status, tr.code, tr.sentinel)
		})
	}
}

// --- VIP customer tiers ---------------------------------------------------------

func TestIntegrationVIP(t *testing.T) {
	plain := bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ITEST0000000000000004", AccessKey: bankpay.NewSecret("plain-key"), MerchantID: "1100000004"}, NoVIP: true}
	s := startSandbox(t, bankpaytest.WithMerchant(plain))
	ctx := context.Background()
	tier := func(n int) *int { return &n }

	c, err := s.client.Customers.UpdateByExternalID(ctx, "player-9", &bankpay.CustomerUpdateParams{Name: "Olivia Nguyen", VIP: tier(1)})
	require.NoError(t, err)
	require.NotNil(t, c.VIP)
	assert.Equal(t, 1, *c.VIP)
	assert.Equal(t, "player-9", c.ExternalID)
	require.NotEmpty(t, c.CustomerID)

	c, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerUpdateParams{VIP: tier(4)})
	require.NoError(t, err)
	assert.Equal(t, 4, *c.VIP)
	// vip 0 is sent and removes the tier.
	c, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerUpdateParams{Name: "Olivia Nguyen", VIP: tier(0)})
	require.NoError(t, err)
	require.NotNil(t, c.VIP, "vip 0 is a value")
	assert.Equal(t, 0, *c.VIP)
	rec, ok := s.Customer("player-9")
	require.True(t, ok)
	require.NotNil(t, rec.VIP)
	assert.Equal(t, 0, *rec.VIP)
	// Without vip the tier is left alone.
	c, err = s.client.Customers.UpdateByExternalID(ctx, "player-9", &bankpay.CustomerUpdateParams{Email: "olivia@example.com"})
	require.NoError(t, err)
	assert.Equal(t, 0, *c.VIP)
	assert.Equal(t, "olivia@example.com", c.Email)

	_, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerUpdateParams{VIP: tier(-1)})
	var ve *bankpay.ValidationError
	require.ErrorAs(t, err, &ve)
	_, err = s.client.Customers.Update(ctx, "3999999999", &bankpay.CustomerUpdateParams{VIP: tier(1)})
	assert.ErrorIs(t, err, bankpay.ErrNotFound)

	// A new customer's tier from establish data with customer.name and vip:
	// through the user interface, and through the Disbursement establish.
	d := deferredData("vip-auth-1", "")
	d.Customer = &models.Customer{ExternalID: "player-10", Name: "Diego Kowalski", VIP: tier(2)}
	s.authorize(t, d, bankpaytest.OutcomeAuthorize)
	rec, ok = s.Customer("player-10")
	require.True(t, ok)
	require.NotNil(t, rec.VIP)
	assert.Equal(t, 2, *rec.VIP)
	p := disbursementParams("vip-auth-2", "", "5.00", bankpaytest.AccountVerified)
	p.Customer = &models.Customer{ExternalID: "player-11", Name: "Chen Brown", VIP: tier(3)}
	auth, err := s.client.Transactions.Establish(ctx, p)
	require.NoError(t, err)
	rec, ok = s.CustomerOf(auth.TransactionID)
	require.True(t, ok)
	assert.Equal(t, "player-11", rec.ExternalID)
	require.NotNil(t, rec.VIP)
	assert.Equal(t, 3, *rec.VIP)

	// A merchant not configured for VIP tiers: refused, and establish data
	// does not set a tier.
	pc := clientFor(t, s.Server, plain.Credentials)
	_, err = pc.Customers.UpdateByExternalID(ctx, "player-12", &bankpay.CustomerUpdateParams{Name: "Priya Smith", VIP: tier(1)})
	requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrBadRequest)
	pp := disbursementParams("vip-auth-3", "", "5.00", bankpaytest.AccountVerified)
	pp.Customer = &models.Customer{ExternalID: "player-13", Name: "Sam Garcia", VIP: tier(2)}
	pauth, err := pc.Transactions.Establish(ctx, pp)
	require.NoError(t, err)
	rec, ok = s.CustomerOf(pauth.TransactionID)
	require.True(t, ok)
	assert.Nil(t, rec.VIP, "no tier for a merchant not configured for VIP")
}

// --- Event delivery --------------------------------------------------------------

func TestIntegrationEventResends(t *testing.T) {
	in := startInbox(t, itCreds, bankpay.WithDeduplicator(bankpay.NewMemoryDeduplicator(0)))
	s := startSandbox(t, bankpaytest.WithStartTime(thursday))
	in.useClock(s.Now)
	ctx := context.Background()

	in.failNext(2) // the handler fails twice: 500, and the sandbox re-sends
	auth, err := s.client.Transactions.Establish(ctx, disbursementParams("resend-1", in.URL, "5.00", bankpaytest.AccountVerified))
	require.NoError(t, err)
	s.flush(t)
	assert.Empty(t, in.typesFor(auth.TransactionID))
	s.Advance(bankpaytest.ResendInterval - time.Second)
	assert.Empty(t, in.typesFor(auth.TransactionID), "not re-sent before %s", bankpaytest.ResendInterval)
	s.Advance(time.Second)
	s.Advance(bankpaytest.ResendInterval)
	s.flush(t)
	assert.Equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(auth.TransactionID), "processed once, on the third attempt")
	evs := s.EventsFor(auth.TransactionID)
	require.Len(t, evs, 1)
	var codes []int
	for _, a := range evs[0].Attempts {
		codes = append(codes, a.StatusCode)
	}
	assert.Equal(t, []int{500, 500, 200}, codes)
	assert.Equal(t, thursday.Add(2*bankpaytest.ResendInterval), evs[0].Attempts[2].At)
	assert.True(t, evs[0].Delivered)

	// Once delivered, no more re-sends.
	s.Advance(time.Hour)
	s.flush(t)
	assert.Len(t, s.EventsFor(auth.TransactionID)[0].Attempts, 3)
}

func TestIntegrationEventsRejectedAndDefaultURL(t *testing.T) {
	// The merchant's registered notification URL receives the events of
	// transactions without a notificationUrl; a handler with the wrong key
	// responds 401, and the sandbox re-sends for 12 hours, then stops.
	wrong := itCreds
	wrong.AccessKey = bankpay.NewSecret("not-the-key")
	bad := startInbox(t, wrong)
	good := startInbox(t, itCreds)
	m := sandboxMerchant()
	m.NotificationURL = good.URL
	s := startSandbox(t, bankpaytest.WithDefaultMerchant(m))
	bad.useClock(s.Now)
	good.useClock(s.Now)
	ctx := context.Background()

	viaDefault, err := s.client.Transactions.Establish(ctx, disbursementParams("default-url", "", "5.00", bankpaytest.AccountVerified))
	require.NoError(t, err)
	rejected, err := s.client.Transactions.Establish(ctx, disbursementParams("rejected", bad.URL, "5.00", bankpaytest.AccountVerified))
	require.NoError(t, err)
	s.flush(t)
	assert.Equal(t, []models.EventType{models.EventAuthorize}, good.typesFor(viaDefault.TransactionID))
	assert.Empty(t, bad.all(), "the handler rejects a signature made with another key")

	s.Advance(bankpaytest.ResendWindow + time.Hour)
	s.flush(t)
	evs := s.EventsFor(rejected.TransactionID)
	require.Len(t, evs, 1)
	assert.True(t, !evs[0].Delivered)
	assert.Len(t, evs[0].Attempts, 1+int(bankpaytest.ResendWindow/bankpaytest.ResendInterval), "the first attempt and a re-send every 5 minutes for 12 hours")
	for _, a := range evs[0].Attempts {
		assert.Equal(t, http.StatusUnauthorized, a.StatusCode)
	}
	assert.Empty(t, bad.all())
	// The notifications verify with the right credentials.
	require.NoError(t, bankpay.VerifyNotification([]byte(evs[0].Body), evs[0].Authorization, itCreds))
	assert.ErrorIs(t, bankpay.VerifyNotification([]byte(evs[0].Body), evs[0].Authorization, wrong), bankpay.ErrInvalidSignature)
	ev, err := bankpay.ParseEvent([]byte(evs[0].Body), "application/x-www-form-urlencoded")
	require.NoError(t, err)
	assert.Equal(t, rejected.TransactionID, ev.TransactionID())
	assert.Equal(t, evs[0].ID, ev.EventID)
}

// TestIntegrationBareResponses runs every integration use case again
// against a sandbox that responds with single objects bare, as the operator's
// OpenAPI shows them: the SDK reads both shapes.
func TestIntegrationBareResponses(t *testing.T) {
	for name, fn := range map[string]func(*testing.T){
		"InstantPayout":               TestIntegrationInstantPayout,
		"DepositAmountRules":          TestIntegrationDepositAmountRules,
		"CancelledAuthorization":      TestIntegrationCancelledAuthorization,
		"RedirectSignature":           TestIntegrationRedirectSignature,
		"RedirectSHA512":              TestIntegrationRedirectSHA512,
		"AccountData":                 TestIntegrationAccountData,
		"MoneyTransfer":               TestIntegrationMoneyTransfer,
		"Identity":                    TestIntegrationIdentity,
		"DisbursementStateMachine":    TestIntegrationDisbursementStateMachine,
		"DisbursementEstablish":       TestIntegrationDisbursementEstablish,
		"SandboxTablesMatchSpec":      TestIntegrationSandboxTablesMatchSpec,
		"TokenizeTable":               TestIntegrationTokenizeTable,
		"TokenizeTokens":              TestIntegrationTokenizeTokens,
		"ErrorTriggers":               TestIntegrationErrorTriggers,
		"VIP":                         TestIntegrationVIP,
		"EventResends":                TestIntegrationEventResends,
		"EventsRejectedAndDefaultURL": TestIntegrationEventsRejectedAndDefaultURL,
		"Customers":                   TestIntegrationCustomers,
		"AccountVerify":               TestIntegrationAccountVerify,
		"CustomerVerification":        TestIntegrationCustomerVerification,
	} {
		t.Run(name, func(t *testing.T) {
			require.NotEmpty(t, modeOptions(t), "the use case runs in bare mode")
			fn(t)
		})
	}
}
