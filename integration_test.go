package bankpay_test

// Integration tests: the public SDK against the bankpaytest sandbox over
// real loopback HTTP, through every use case of the spec end to end. Events
// are delivered by the sandbox to a handler built with NewWebhookHandler,
// redirects are checked with VerifyRedirect, and time moves with the
// sandbox's fake clock (nothing sleeps).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// itCreds are the default sandbox merchant's credentials in these tests
// (fixed, so that the webhook handler can exist before the sandbox).
var itCreds = bankpay.Credentials{AccessID: "ITEST0000000000000001", AccessKey: "integration-test-key", MerchantID: "1100000001"}

// sandboxMerchant is the default merchant: configured for VIP tiers and
// money transfer.
func sandboxMerchant() bankpaytest.Merchant {
	return bankpaytest.Merchant{
		Credentials: bankpaytest.Credentials{AccessID: itCreds.AccessID, AccessKey: itCreds.AccessKey, MerchantID: itCreds.MerchantID},
		VIP:         true, MoneyTransfer: true,
	}
}

// thursday is a Thursday, so that 3 banking days cross a weekend.
var thursday = time.Date(2025, time.March, 6, 15, 0, 0, 0, time.UTC)

type sandbox struct {
	*bankpaytest.Server
	client *bankpay.Client
}

// startSandbox starts a sandbox whose default merchant is sandboxMerchant
// (unless opts replace it) and a client for it, both closed at cleanup.
func startSandbox(t *testing.T, opts ...bankpaytest.Option) *sandbox {
	t.Helper()
	srv := bankpaytest.NewServer(append([]bankpaytest.Option{bankpaytest.WithDefaultMerchant(sandboxMerchant())}, opts...)...)
	t.Cleanup(srv.Close)
	c := srv.Credentials()
	return &sandbox{Server: srv, client: clientFor(t, srv, bankpay.Credentials{AccessID: c.AccessID, AccessKey: c.AccessKey, MerchantID: c.MerchantID})}
}

func clientFor(t *testing.T, srv *bankpaytest.Server, creds bankpay.Credentials) *bankpay.Client {
	t.Helper()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.URL), bankpay.WithRetryBackoff(time.Millisecond, 5*time.Millisecond))
	must(t, err)
	return c
}

// flush waits until the sandbox has delivered what it emitted.
func (s *sandbox) flush(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	must(t, s.Flush(ctx))
}

// authorize signs d with the client, plays the user taking outcome, and
// verifies the redirect with VerifyRedirect.
func (s *sandbox) authorize(t *testing.T, d models.EstablishData, outcome bankpaytest.Outcome) *bankpay.Redirect {
	t.Helper()
	must(t, s.client.SignEstablishData(&d))
	u, txn, err := s.Authorize(d, outcome)
	must(t, err)
	r, err := bankpay.VerifyRedirect(u, s.client.Credentials().AccessKey)
	must(t, err, "redirect %s", u)
	equalNow(t, txn.TransactionID, r.TransactionID)
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
	opts = append([]bankpay.WebhookOption{
		bankpay.WithWebhookClock(in.now),
		bankpay.OnTransactionEvent(func(_ context.Context, ev *bankpay.Event, _ *bankpay.TransactionEvent) error {
			return record(ev, "transaction")
		}),
		bankpay.OnIdentityDataRetrieved(func(_ context.Context, ev *bankpay.Event, _ *bankpay.IdentityDataRetrieved) error {
			return record(ev, "identityData")
		}),
		bankpay.OnIdentityVerified(func(_ context.Context, ev *bankpay.Event, _ *bankpay.IdentityVerified) error {
			return record(ev, "identityVerified")
		}),
	}, opts...)
	h := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error { return record(ev, "other") }, opts...)
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

func disbursementParams(ref, notify, amount, account string) *bankpay.EstablishParams {
	return &bankpay.EstablishParams{EstablishData: models.EstablishData{
		Currency:          models.USD,
		Amount:            models.Amount(amount),
		MerchantReference: ref,
		PaymentType:       models.PaymentTypeDisbursement,
		NotificationURL:   notify,
		Account:           &models.Account{AccountNumber: account, RoutingNumber: "124003116", Type: 1},
	}}
}

func getStatus(t *testing.T, c *bankpay.Client, id string) models.TransactionStatus {
	t.Helper()
	txn, err := c.Transactions.Get(context.Background(), id)
	must(t, err)
	return txn.Status
}

func requireAPIError(t *testing.T, err error, status, code int, sentinel error) *bankpay.APIError {
	t.Helper()
	var apiErr *bankpay.APIError
	errAsNow(t, err, &apiErr)
	equal(t, status, apiErr.StatusCode, "HTTP status of %v", err)
	equal(t, code, apiErr.Code, "code of %v", err)
	if sentinel != nil {
		errIs(t, err, sentinel)
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
	check(t, r.Authorized())
	length(t, r.TransactionID, 15)
	equal(t, models.TypeAuthorize, r.TransactionType)
	equal(t, "payout-auth-1", r.MerchantReference)
	equal(t, models.StatusAuthorized, r.Status)
	equal(t, models.PaymentTypeDeferred, r.PaymentType)
	equal(t, 1, r.ProviderType)
	check(t, r.InstantPayoutAvailable)
	equal(t, 10, r.ProviderTransactionStatus)
	equal(t, "42", r.Params.Get("order"))

	auth, err := s.client.Transactions.Get(ctx, r.TransactionID)
	must(t, err)
	equal(t, models.TypeAuthorize, auth.TransactionType)
	equal(t, models.StatusAuthorized, auth.Status)
	equal(t, "Authorized", auth.StatusMessage)
	equal(t, models.Amount("100.00"), auth.Amount)
	notNilNow(t, auth.Payment)
	equal(t, models.PaymentTypeDeferred, auth.Payment.PaymentType)
	notNilNow(t, auth.Payment.Account)
	length(t, auth.Payment.Account.AccountNumber, 4, "get-transaction shows the last 4 digits only")
	notNilNow(t, auth.Payment.PaymentProvider)
	check(t, auth.Payment.PaymentProvider.InstantPayoutAvailable)
	notEmpty(t, auth.Payment.PaymentProvider.PaymentProviderID)
	notNilNow(t, auth.PaymentProviderTransaction)
	equal(t, 10, auth.PaymentProviderTransaction.Status)
	equal(t, "Established", auth.PaymentProviderTransaction.StatusMessage)

	dep, err := s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{
		MerchantReference: "payout-1", Amount: "60.00", InstantPayoutRequest: true,
	})
	must(t, err)
	equal(t, models.TypeDeposit, dep.TransactionType)
	equal(t, models.StatusAuthorized, dep.Status)
	equal(t, r.TransactionID, dep.OriginalTransactionID)
	equal(t, models.Amount("60.00"), dep.Amount)
	equal(t, "payout-1", dep.MerchantReference)
	notEmpty(t, dep.PaymentProcessorType, "an instant payout deposit names its processor")
	length(t, dep.TransactionID, 15)

	// Never pay twice: the same merchantReference answers 210.
	_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-1", Amount: "60.00"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeDuplicate, bankpay.ErrDuplicate)

	// The authorization amount is the maximum: 60.00 + 50.00 > 100.00.
	_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-2", Amount: "50.00"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	// The SDK can check it before sending when told the authorization amount.
	_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-2", Amount: "150.00", AuthorizationAmount: "100.00"})
	var ve *bankpay.ValidationError
	errAsNow(t, err, &ve)
	equal(t, "amount", ve.Field)

	// Events: the authorization's, then the deposit's as time passes. An
	// instant payout settles in real time: Completed when the network picks
	// it up, at the first clock move, not CompletionBankingDays later.
	s.Advance(time.Minute)
	equal(t, models.StatusCompleted, getStatus(t, s.client, dep.TransactionID))
	s.AdvanceBankingDays(bankpaytest.CompletionBankingDays)
	s.flush(t)
	equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(r.TransactionID))
	equal(t, []models.EventType{models.EventProcess, models.EventComplete}, in.typesFor(dep.TransactionID))
	equal(t, models.StatusCompleted, getStatus(t, s.client, dep.TransactionID))

	ev := in.last(dep.TransactionID)
	notNilNow(t, ev)
	equal(t, itCreds.MerchantID, ev.MerchantID)
	equal(t, itCreds.AccessID, ev.AccessID)
	equal(t, "payout-1", ev.MerchantReference)
	equal(t, models.ObjectTypeTransaction, ev.ObjectType)
	equal(t, r.TransactionID, ev.ParentObjectID)
	equal(t, models.TypeDeposit, ev.TransactionType)
	equal(t, models.PaymentTypeDeferred, ev.PaymentType)
	// Processed and completed on Thursday, when the clock first moved.
	equal(t, thursday, ev.CreatedAt, "created when the deposit completed, on the sandbox clock")
	notNilNow(t, ev.Transaction)
	equal(t, models.StatusCompleted, ev.Transaction.Status)
	for _, e := range s.Events() {
		check(t, e.Delivered, "event %s %s delivered", e.ID, e.Type)
		equal(t, http.StatusOK, e.LastStatus())
	}
}

func TestIntegrationDepositAmountRules(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()

	// An authorization with an amount: a deposit without one pays it all.
	r := s.authorize(t, deferredData("rules-auth-1", ""), bankpaytest.OutcomeAuthorize)
	dep, err := s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-1"})
	must(t, err)
	equal(t, models.Amount("100.00"), dep.Amount)
	_, err = s.client.Transactions.Deposit(ctx, r.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-2", Amount: "0.01"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)

	// 0.00: no upper bound, but each deposit must pass an amount. Without
	// AuthorizationAmount the SDK sends it, and the service refuses.
	auth, err := s.client.Transactions.Establish(ctx, disbursementParams("rules-auth-2", "", "0.00", bankpaytest.AccountVerified))
	must(t, err)
	_, err = s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-3"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	_, err = s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-3", AuthorizationAmount: "0.00"})
	var ve *bankpay.ValidationError
	errAsNow(t, err, &ve, "the SDK checks it when told the authorization amount")
	for i, amount := range []models.Amount{"5000.00", "125000.00"} {
		dep, err := s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-big-" + string(rune('a'+i)), Amount: amount})
		must(t, err)
		equal(t, amount, dep.Amount)
	}

	// A deposit needs a Deferred or Disbursement authorization in Authorized.
	ret := s.authorize(t, models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: "rules-auth-3", PaymentType: models.PaymentTypeRetrieval,
		ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
	}, bankpaytest.OutcomeAuthorize)
	_, err = s.client.Transactions.Deposit(ctx, ret.TransactionID, &bankpay.DepositParams{MerchantReference: "rules-4", Amount: "1.00"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	_, err = s.client.Transactions.Deposit(ctx, "100000000999999", &bankpay.DepositParams{MerchantReference: "rules-5", Amount: "1.00"})
	requireAPIError(t, err, http.StatusNotFound, bankpay.CodeInvalidParameter, bankpay.ErrNotFound)
}

func TestIntegrationCancelledAuthorization(t *testing.T) {
	in := startInbox(t, itCreds)
	s := startSandbox(t)
	in.useClock(s.Now)
	d := deferredData("cancel-1", in.URL)
	must(t, s.client.SignEstablishData(&d))
	u, _, err := s.Authorize(d, bankpaytest.OutcomeCancel)
	must(t, err)
	check(t, strings.HasPrefix(u, d.CancelURL+"?"), "redirected to the cancelUrl: %s", u)
	r, err := bankpay.VerifyRedirect(u, itCreds.AccessKey)
	must(t, err)
	check(t, r.Canceled())
	equal(t, models.StatusCanceled, r.Status)
	equal(t, models.StatusCanceled, getStatus(t, s.client, r.TransactionID))

	_, err = s.client.Transactions.Deposit(context.Background(), r.TransactionID, &bankpay.DepositParams{MerchantReference: "cancel-dep", Amount: "1.00"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	s.flush(t)
	equal(t, []models.EventType{models.EventCancel}, in.typesFor(r.TransactionID))
}

func TestIntegrationRedirectSignature(t *testing.T) {
	s := startSandbox(t)
	d := deferredData("redirect-1", "")
	must(t, s.client.SignEstablishData(&d))
	u, _, err := s.Authorize(d, bankpaytest.OutcomeAuthorize)
	must(t, err)
	check(t, strings.HasPrefix(u, "https://shop.example/return?order=42&transactionId="), u)

	_, err = bankpay.VerifyRedirect(u, "another-key")
	errIs(t, err, bankpay.ErrInvalidSignature)
	_, err = bankpay.VerifyRedirect(strings.Replace(u, "status=2", "status=7", 1), s.client.Credentials().AccessKey)
	errIs(t, err, bankpay.ErrInvalidSignature)
	_, err = bankpay.VerifyRedirect(u+"&status=7", s.client.Credentials().AccessKey)
	check(t, err != nil, "a parameter appended after the signature")
	i := strings.Index(u, "&requestSignature=")
	_, err = bankpay.VerifyRedirect(u[:i], s.client.Credentials().AccessKey)
	errIs(t, err, bankpay.ErrMissingSignature)

	// Establish data the user interface refuses: a bad signature, a repeated
	// reference.
	bad := deferredData("redirect-2", "")
	must(t, s.client.SignEstablishData(&bad))
	bad.Amount = "99.00"
	_, _, err = s.Authorize(bad, bankpaytest.OutcomeAuthorize)
	var se *bankpaytest.Error
	errAsNow(t, err, &se)
	equal(t, http.StatusUnauthorized, se.Status)
	equal(t, bankpay.CodeAccessControl, se.Code)
	_, _, err = s.Authorize(d, bankpaytest.OutcomeAuthorize)
	errAsNow(t, err, &se)
	equal(t, bankpay.CodeDuplicate, se.Code)
}

func TestIntegrationRedirectSHA512(t *testing.T) {
	s := startSandbox(t)
	c, err := bankpay.NewClient(itCreds, bankpay.WithBaseURL(s.URL), bankpay.WithSignatureAlgorithm(bankpay.HMACSHA512))
	must(t, err)
	d := deferredData("sha512-1", "")
	must(t, c.SignEstablishData(&d))
	checkNow(t, strings.HasPrefix(d.RequestSignature, "HmacSHA512:"))
	u, _, err := s.Authorize(d, bankpaytest.OutcomeAuthorize)
	must(t, err)
	r, err := bankpay.VerifyRedirect(u, itCreds.AccessKey, bankpay.RedirectRequireAlgorithm(bankpay.HMACSHA512))
	must(t, err)
	equal(t, bankpay.HMACSHA512, r.Algorithm)
	_, err = bankpay.VerifyRedirect(u, itCreds.AccessKey, bankpay.RedirectRequireAlgorithm(bankpay.HMACSHA1))
	errIs(t, err, bankpay.ErrUnsupportedAlgorithm)
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
	equal(t, models.PaymentTypeRetrieval, r.PaymentType)

	bal, err := s.client.Accounts.Balance(ctx, r.TransactionID)
	must(t, err)
	a := bal.Account
	notNilNow(t, a)
	notEmpty(t, a.AccountNumber)
	equal(t, "124003116", a.RoutingNumber)
	notEmpty(t, a.NameOnAccount)
	notEmpty(t, a.ProviderID)
	equal(t, models.USD, bal.Currency)
	balCents, err := bal.Amount.Cents()
	must(t, err)

	u, err := s.client.Accounts.User(ctx, r.TransactionID)
	must(t, err)
	notEmptyNow(t, u.Name)
	equal(t, a.NameOnAccount, u.Name[0], "the bank holds one person")
	notEmpty(t, u.Address)
	notEmpty(t, u.Phone)
	notEmpty(t, u.Email)

	sum, err := s.client.Accounts.Summary(ctx, r.TransactionID)
	must(t, err)
	lengthNow(t, sum.Summary, 1)
	e := sum.Summary[0]
	check(t, e.SelectedAccount)
	equal(t, a.RoutingNumber, e.RoutingNumber)
	equal(t, a.AccountNumber, e.AccountNumber)
	notEmpty(t, sum.CustomerID)
	check(t, !sum.LastUpdated.IsZero())
	var prev *models.Aggregation
	for _, days := range []int{7, 30, 90} {
		ag := e.Aggregation(days)
		notNilNow(t, ag, "%d-day aggregation", days)
		cents := func(a models.Amount) int64 {
			c, err := a.Cents()
			if err != nil && strings.HasPrefix(string(a), "-") { // a negative balance
				c, err = models.Amount(strings.TrimPrefix(string(a), "-")).Cents()
				c = -c
			}
			must(t, err, "amount %q", a)
			return c
		}
		bMin, bAvg, bMax := cents(ag.BalanceMin), cents(ag.BalanceAvg), cents(ag.BalanceMax)
		le(t, bMin, bAvg, "%d days", days)
		le(t, bAvg, bMax, "%d days", days)
		le(t, bMin, balCents, "the current balance is within the %d-day range", days)
		le(t, balCents, bMax, "the current balance is within the %d-day range", days)
		le(t, cents(ag.DepositAmountMax), cents(ag.DepositAmountTotal))
		le(t, cents(ag.WithdrawalAmountMax), cents(ag.WithdrawalAmountTotal))
		le(t, ag.ActivityEarliestDate, ag.ActivityLatestDate)
		le(t, ag.ActivityLatestDate, sum.LastUpdated)
		if prev != nil {
			// A longer period contains the shorter one.
			le(t, prev.DepositCount, ag.DepositCount)
			le(t, prev.WithdrawalCount, ag.WithdrawalCount)
			le(t, prev.OverdraftCount, ag.OverdraftCount)
			le(t, prev.NSFCount, ag.NSFCount)
			le(t, cents(prev.DepositAmountTotal), cents(ag.DepositAmountTotal))
			le(t, cents(prev.WithdrawalAmountTotal), cents(ag.WithdrawalAmountTotal))
			le(t, bMin, cents(prev.BalanceMin))
			le(t, cents(prev.BalanceMax), bMax)
		}
		prev = ag
	}
	// The same authorization answers the same figures.
	again, err := s.client.Accounts.Summary(ctx, r.TransactionID)
	must(t, err)
	equal(t, sum, again)

	// Account data needs a Retrieval authorization.
	p := s.authorize(t, deferredData("not-retrieval", ""), bankpaytest.OutcomeAuthorize)
	_, err = s.client.Accounts.Balance(ctx, p.TransactionID)
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	_, err = s.client.Accounts.Summary(ctx, "100000000999999")
	errIs(t, err, bankpay.ErrNotFound)
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
	plain := bankpaytest.Merchant{Credentials: bankpaytest.Credentials{AccessID: "ITEST0000000000000002", AccessKey: "plain-key", MerchantID: "1100000002"}}
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
	must(t, err)
	equal(t, models.TypeCapture, c.TransactionType)
	equal(t, models.StatusAuthorized, c.Status)
	equal(t, r.TransactionID, c.OriginalTransactionID)
	equal(t, models.Amount("40.00"), c.Amount)
	got, err := s.client.Transactions.Get(ctx, c.TransactionID)
	must(t, err)
	equal(t, c.TransactionID, got.TransactionID)

	_, err = s.client.Transactions.Capture(ctx, r.TransactionID, transferCapture("imt-1"))
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeDuplicate, bankpay.ErrDuplicate)
	over := transferCapture("imt-2")
	over.Amount = "60.01"
	_, err = s.client.Transactions.Capture(ctx, r.TransactionID, over)
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)

	// Checked by the SDK before sending: the beneficiary's name and country.
	noCountry := transferCapture("imt-3")
	noCountry.Beneficiary.Address.Country = ""
	_, err = s.client.Transactions.Capture(ctx, r.TransactionID, noCountry)
	var ve *bankpay.ValidationError
	errAsNow(t, err, &ve)
	equal(t, "beneficiary.address.country", ve.Field)

	// The originator's address is required: establish data without it.
	d2 := deferredData("imt-auth-2", "")
	d2.Customer = &models.Customer{Name: "No Address"}
	r2 := s.authorize(t, d2, bankpaytest.OutcomeAuthorize)
	_, err = s.client.Transactions.Capture(ctx, r2.TransactionID, transferCapture("imt-4"))
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)

	// A merchant not configured for money transfer cannot capture.
	pc := clientFor(t, s.Server, bankpay.Credentials{AccessID: plain.AccessID, AccessKey: plain.AccessKey, MerchantID: plain.MerchantID})
	d3 := deferredData("imt-auth-3", "")
	d3.Customer = originator
	must(t, pc.SignEstablishData(&d3))
	u, _, err := s.Authorize(d3, bankpaytest.OutcomeAuthorize)
	must(t, err)
	r3, err := bankpay.VerifyRedirect(u, plain.AccessKey)
	must(t, err)
	_, err = pc.Transactions.Capture(ctx, r3.TransactionID, transferCapture("imt-5"))
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	// Nor see another merchant's transaction.
	_, err = pc.Transactions.Get(ctx, r.TransactionID)
	errIs(t, err, bankpay.ErrNotFound)
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
			requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrIdentityNotReady)
			errIs(t, err, bankpay.ErrBadRequest)
			_, err = s.client.Identity.Detail(ctx, id)
			errIs(t, err, bankpay.ErrIdentityNotReady)
			// Feedback waits for the end of the verification.
			err = s.client.Identity.Register(ctx, id, "too early")
			errIs(t, err, bankpay.ErrBadRequest)

			// One data-retrieved event per provider, then the verified one.
			for i := 1; i <= providers; i++ {
				s.Advance(bankpaytest.IdentityStep)
				s.flush(t)
				u, err := s.client.Identity.User(ctx, id)
				must(t, err, "after provider %d", i)
				check(t, !u.Eligible, "not eligible before the verification completes")
				det, err := s.client.Identity.Detail(ctx, id)
				must(t, err)
				length(t, det.Verification, i)
			}
			s.Advance(bankpaytest.IdentityStep)
			s.flush(t)
			types := in.typesFor(id)
			want := []models.EventType{models.EventAuthorize}
			for i := 0; i < providers; i++ {
				want = append(want, models.EventIdentityVerificationDataRetrieved)
			}
			want = append(want, models.EventCustomerIdentityVerified)
			equal(t, want, types)
			in.mu.Lock()
			typed := append([]string(nil), in.typed...)
			in.mu.Unlock()
			equal(t, []string{"transaction", "identityData", "identityData", "identityData", "identityVerified"}, typed)
			seen := map[string]bool{}
			for _, ev := range in.all() {
				if ev.IdentityDataRetrieved != nil {
					equal(t, "SUCCESS", ev.IdentityDataRetrieved.ProviderReportStatus)
					seen[ev.IdentityDataRetrieved.ProviderUsedForValidation] = true
				}
				if ev.EventType.IsIdentity() {
					equal(t, "performKycVerification", ev.Message)
					equal(t, models.PaymentTypeDeferred, ev.PaymentType)
					equal(t, models.TypeAuthorize, ev.TransactionType)
				}
				if ev.IdentityVerified != nil {
					equal(t, "FINISHED", ev.IdentityVerified.IdentityVerified)
					equal(t, "FINISHED", ev.IdentityVerified.KYCResult)
				}
			}
			length(t, seen, providers, "one event per provider")

			u, err := s.client.Identity.User(ctx, id)
			must(t, err)
			equal(t, tc.eligible, u.Eligible)
			notEmpty(t, u.Name)
			matches(t, `^\d{4}-\d{2}-\d{2}$`, u.DateOfBirth)
			notEmpty(t, u.TaxID)
			notNilNow(t, u.DriverLicense)
			det, err := s.client.Identity.Detail(ctx, id)
			must(t, err)
			lengthNow(t, det.Verification, providers)
			for _, v := range det.Verification {
				equal(t, tc.resultsOfAll, v.Result, v.VerificationName)
			}
			var sourced, unverified []string
			for _, a := range det.Attribute {
				length(t, a.Verification, providers, a.Name)
				if a.Source == "user" {
					sourced = append(sourced, a.Name)
				}
				if !a.Verified {
					unverified = append(unverified, a.Name)
				}
			}
			sort.Strings(sourced)
			sort.Strings(unverified)
			equal(t, tc.userSourced, sourced)
			equal(t, tc.unverified, unverified)

			// The merchant's feedback.
			if tc.eligible {
				must(t, s.client.Identity.Register(ctx, id, "registered"))
				equal(t, []models.Feedback{{Status: 4, SubStatus: 559, Description: "registered"}}, s.Feedback(id))
				equal(t, models.StatusAuthorized, getStatus(t, s.client, id), "Registered keeps the transaction valid")
			} else {
				must(t, s.client.Identity.Void(ctx, id, "registration failed"))
				equal(t, []models.Feedback{{Status: 13, SubStatus: 558, Description: "registration failed"}}, s.Feedback(id))
				equal(t, models.StatusVoided, getStatus(t, s.client, id))
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
	must(t, err)
	equal(t, models.TypeAuthorize, auth.TransactionType)
	// The spec's abbreviated establish answer: status 0 with message
	// Authorized; the authorization itself is Authorized (2).
	equal(t, models.StatusNew, auth.Status)
	equal(t, "Authorized", auth.StatusMessage)
	equal(t, models.StatusAuthorized, getStatus(t, s.client, auth.TransactionID))
	notNilNow(t, auth.Payment)
	equal(t, models.PaymentTypeDisbursement, auth.Payment.PaymentType)
	length(t, auth.TransactionID, 15)

	deposit := func(ref, amount string) string {
		t.Helper()
		d, err := s.client.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: ref, Amount: models.Amount(amount)})
		must(t, err)
		equalNow(t, models.StatusAuthorized, d.Status)
		equalNow(t, auth.TransactionID, d.OriginalTransactionID)
		return d.TransactionID
	}
	a := deposit("disb-a", "10.00") // Processed -> Completed -> Reversed
	b := deposit("disb-b", "20.00") // Denied while Authorized
	c := deposit("disb-c", "30.00") // Denied while Processed
	must(t, s.Deny(b))
	equal(t, models.StatusDenied, getStatus(t, s.client, b))

	// Submitted to the network when time moves: Processed.
	s.Advance(time.Second)
	for _, id := range []string{a, c} {
		txn, err := s.client.Transactions.Get(ctx, id)
		must(t, err)
		equal(t, models.StatusProcessed, txn.Status)
		equal(t, thursday, txn.ProcessedAt.Time())
	}
	must(t, s.Deny(c))

	// Thursday + 3 banking days = Tuesday (Saturday and Sunday skipped).
	due := time.Date(2025, time.March, 11, 15, 0, 0, 0, time.UTC)
	s.AdvanceBankingDays(2) // Monday
	equal(t, time.Monday, s.Now().Weekday())
	equal(t, models.StatusProcessed, getStatus(t, s.client, a))
	s.AdvanceTo(due.Add(-time.Millisecond))
	equal(t, models.StatusProcessed, getStatus(t, s.client, a), "not before 3 banking days")
	s.AdvanceTo(due)
	txn, err := s.client.Transactions.Get(ctx, a)
	must(t, err)
	equal(t, models.StatusCompleted, txn.Status, "exactly 3 banking days after it was processed")
	equal(t, due, txn.CompletedAt.Time())

	// Denied never completes, whatever the time.
	s.AdvanceBankingDays(10)
	equal(t, models.StatusDenied, getStatus(t, s.client, b))
	equal(t, models.StatusDenied, getStatus(t, s.client, c))
	errIs(t, s.Deny(a), bankpaytest.ErrInvalidTransition, "a Completed deposit cannot be Denied")

	// Reversed only from Completed.
	errIs(t, s.Reverse(c), bankpaytest.ErrInvalidTransition)
	errIs(t, s.Reverse(auth.TransactionID), bankpaytest.ErrInvalidTransition)
	must(t, s.Reverse(a))
	equal(t, models.StatusReversed, getStatus(t, s.client, a))
	errIs(t, s.Reverse(a), bankpaytest.ErrInvalidTransition)

	// Each change reached the handler as an event.
	s.flush(t)
	equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(auth.TransactionID))
	equal(t, []models.EventType{models.EventProcess, models.EventComplete, models.EventReverse}, in.typesFor(a))
	equal(t, []models.EventType{models.EventDeny}, in.typesFor(b))
	equal(t, []models.EventType{models.EventProcess, models.EventDeny}, in.typesFor(c))
	for id, want := range map[string]models.TransactionStatus{a: models.StatusReversed, b: models.StatusDenied, c: models.StatusDenied} {
		ev := in.last(id)
		notNilNow(t, ev)
		notNilNow(t, ev.Transaction)
		equal(t, want, ev.Transaction.Status, "last event of %s", id)
		equal(t, models.PaymentTypeDisbursement, ev.PaymentType)
	}
}

func TestIntegrationDisbursementEstablish(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()

	// Account type is optional, deviceType defaults to web.
	p := disbursementParams("est-1", "", "25.00", bankpaytest.AccountUnverified)
	p.Account.Type = 0
	auth, err := s.client.Transactions.Establish(ctx, p)
	must(t, err)
	equal(t, models.Amount("25.00"), auth.Amount)
	equal(t, models.USD, auth.Currency)
	got, err := s.client.Transactions.Get(ctx, auth.TransactionID)
	must(t, err)
	equal(t, "0000", got.Payment.Account.AccountNumber, "last 4 digits of 1000000000")

	_, err = s.client.Transactions.Establish(ctx, p)
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeDuplicate, bankpay.ErrDuplicate)

	// Not the sandbox routing number; not a sandbox account.
	wrong := disbursementParams("est-2", "", "25.00", bankpaytest.AccountVerified)
	wrong.Account.RoutingNumber = "011000015"
	_, err = s.client.Transactions.Establish(ctx, wrong)
	errIs(t, err, bankpay.ErrBadRequest)
	_, err = s.client.Transactions.Establish(ctx, disbursementParams("est-3", "", "25.00", "1234567890"))
	errIs(t, err, bankpay.ErrBadRequest)

	// Checked by the SDK: nothing sent.
	bad := disbursementParams("est-4", "", "25.00", bankpaytest.AccountVerified)
	bad.Currency = "EUR"
	_, err = s.client.Transactions.Establish(ctx, bad)
	var ve *bankpay.ValidationError
	errAsNow(t, err, &ve)
	equal(t, "currency", ve.Field)

	// Wrong credentials: 401 / 375.
	wc := clientFor(t, s.Server, bankpay.Credentials{AccessID: itCreds.AccessID, AccessKey: "wrong", MerchantID: itCreds.MerchantID})
	_, err = wc.Transactions.Establish(ctx, disbursementParams("est-5", "", "25.00", bankpaytest.AccountVerified))
	requireAPIError(t, err, http.StatusUnauthorized, bankpay.CodeAccessControl, bankpay.ErrUnauthorized)
	_, err = wc.Transactions.Get(ctx, auth.TransactionID)
	requireAPIError(t, err, http.StatusUnauthorized, bankpay.CodeAccessControl, bankpay.ErrUnauthorized)
	// A merchantId that is not the credentials': 401 / 300.
	mc := clientFor(t, s.Server, bankpay.Credentials{AccessID: itCreds.AccessID, AccessKey: itCreds.AccessKey, MerchantID: "1199999999"})
	_, err = mc.Transactions.Establish(ctx, disbursementParams("est-6", "", "25.00", bankpaytest.AccountVerified))
	requireAPIError(t, err, http.StatusUnauthorized, bankpay.CodeSecurity, bankpay.ErrUnauthorized)

	_, err = s.client.Transactions.Get(ctx, "100000000999999")
	requireAPIError(t, err, http.StatusNotFound, bankpay.CodeInvalidParameter, bankpay.ErrNotFound)
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
		check(t, !dup, "account %s twice in the sandbox table", a.AccountNumber)
		got[a.AccountNumber] = a
	}
	length(t, got, len(specAccounts))
	for _, want := range specAccounts {
		a, ok := got[want.number]
		if !check(t, ok, "sandbox table lacks %s", want.number) {
			continue
		}
		equal(t, want.score, a.Score, want.number)
		equal(t, want.verified, a.Verified, want.number)
		equal(t, want.kind, a.ScoreType, want.number)
		if want.third < 0 {
			isNil(t, a.ThirdPartyScore, want.number)
		} else if notNil(t, a.ThirdPartyScore, want.number) {
			equal(t, want.third, *a.ThirdPartyScore, want.number)
		}
	}
	triggers := bankpaytest.ErrorTriggers()
	lengthNow(t, triggers, len(specTriggers))
	for i, want := range specTriggers {
		equal(t, bankpaytest.ErrorTrigger{AccountNumber: want.number, Status: want.status, Code: want.code}, triggers[i])
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
			must(t, err)
			equal(t, itCreds.MerchantID, tk.MerchantID)
			a := tk.Account
			notNilNow(t, a)
			equal(t, row.number, a.AccountNumber, "the submitted data is echoed")
			equal(t, "124003116", a.RoutingNumber)
			equal(t, 1, a.Type)
			notEmpty(t, a.Token)
			v := a.Verification
			notNilNow(t, v)
			equal(t, row.verified, v.Verified)
			equal(t, 3, v.Type, "verification type 3 (Database)")
			notNilNow(t, v.Score)
			equal(t, row.score, *v.Score)
			check(t, *v.Score >= 0 && *v.Score <= 10)
			if row.third < 0 {
				isNil(t, v.ThirdPartyScore)
			} else if notNil(t, v.ThirdPartyScore) {
				equal(t, row.third, *v.ThirdPartyScore)
			}
			equal(t, start, v.VerificationDate.Time())
		})
	}
}

func TestIntegrationTokenizeTokens(t *testing.T) {
	other := bankpaytest.Merchant{Credentials: bankpaytest.Credentials{AccessID: "ITEST0000000000000003", AccessKey: "other-key", MerchantID: "1100000003"}}
	s := startSandbox(t, bankpaytest.WithMerchant(other))
	ctx := context.Background()
	p := &bankpay.TokenizeParams{AccountNumber: "1000000007", RoutingNumber: "124003116",
		Customer: &models.Customer{ExternalID: "cust-7", Name: "Amara Okafor"}}
	first, err := s.client.Accounts.Tokenize(ctx, p)
	must(t, err)
	isNil(t, first.Account.Verification, "no verification unless asked")
	notNilNow(t, first.Customer)
	equal(t, "Amara Okafor", first.Customer.Name)
	second, err := s.client.Accounts.Tokenize(ctx, p)
	must(t, err)
	equal(t, first.Account.Token, second.Account.Token, "unique per merchant per account")
	p2 := *p
	p2.AccountNumber = "1000000008"
	third, err := s.client.Accounts.Tokenize(ctx, &p2)
	must(t, err)
	notEqual(t, first.Account.Token, third.Account.Token)
	oc := clientFor(t, s.Server, bankpay.Credentials{AccessID: other.AccessID, AccessKey: other.AccessKey, MerchantID: other.MerchantID})
	theirs, err := oc.Accounts.Tokenize(ctx, p)
	must(t, err)
	notEqual(t, first.Account.Token, theirs.Account.Token, "another merchant gets another token")

	// Not a sandbox account: 400 with code 330 (invalid account).
	_, err = s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1234567", RoutingNumber: "124003116"})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidAccount, bankpay.ErrBadRequest)
	// Refused by the SDK, nothing sent.
	_, err = s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000007"})
	var ve *bankpay.ValidationError
	errAsNow(t, err, &ve)
	equal(t, "account.routingNumber", ve.Field)
}

func TestIntegrationErrorTriggers(t *testing.T) {
	s := startSandbox(t)
	ctx := context.Background()
	for _, tr := range specTriggers {
		t.Run(tr.number, func(t *testing.T) {
			for _, verify := range []bool{false, true} {
				_, err := s.client.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: tr.number, RoutingNumber: "124003116", VerifyAccount: verify})
				apiErr := requireAPIError(t, err, tr.status, tr.code, tr.sentinel)
				equal(t, 1, apiErr.Attempts, "tokenize is not retried")
				notContains(t, err.Error(), tr.number, "errors never carry the account number")
			}
			// The Disbursement establish answers the same.
			_, err := s.client.Transactions.Establish(ctx, disbursementParams("trigger-"+tr.number, "", "10.00", tr.number))
			requireAPIError(t, err, tr.status, tr.code, tr.sentinel)
		})
	}
}

// --- VIP customer tiers ---------------------------------------------------------

func TestIntegrationVIP(t *testing.T) {
	plain := bankpaytest.Merchant{Credentials: bankpaytest.Credentials{AccessID: "ITEST0000000000000004", AccessKey: "plain-key", MerchantID: "1100000004"}}
	s := startSandbox(t, bankpaytest.WithMerchant(plain))
	ctx := context.Background()
	tier := func(n int) *int { return &n }

	c, err := s.client.Customers.UpdateByExternalID(ctx, "player-9", &bankpay.CustomerUpdateParams{Name: "Olivia Nguyen", VIP: tier(1)})
	must(t, err)
	notNilNow(t, c.VIP)
	equal(t, 1, *c.VIP)
	equal(t, "player-9", c.ExternalID)
	notEmptyNow(t, c.CustomerID)

	c, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerUpdateParams{VIP: tier(4)})
	must(t, err)
	equal(t, 4, *c.VIP)
	// vip 0 is sent and removes the tier.
	c, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerUpdateParams{Name: "Olivia Nguyen", VIP: tier(0)})
	must(t, err)
	notNilNow(t, c.VIP, "vip 0 is a value")
	equal(t, 0, *c.VIP)
	rec, ok := s.Customer("player-9")
	checkNow(t, ok)
	notNilNow(t, rec.VIP)
	equal(t, 0, *rec.VIP)
	// Without vip the tier is left alone.
	c, err = s.client.Customers.UpdateByExternalID(ctx, "player-9", &bankpay.CustomerUpdateParams{Email: "olivia@example.com"})
	must(t, err)
	equal(t, 0, *c.VIP)
	equal(t, "olivia@example.com", c.Email)

	_, err = s.client.Customers.Update(ctx, c.CustomerID, &bankpay.CustomerUpdateParams{VIP: tier(-1)})
	var ve *bankpay.ValidationError
	errAsNow(t, err, &ve)
	_, err = s.client.Customers.Update(ctx, "3999999999", &bankpay.CustomerUpdateParams{VIP: tier(1)})
	errIs(t, err, bankpay.ErrNotFound)

	// A new customer's tier from establish data with customer.name and vip:
	// through the user interface, and through the Disbursement establish.
	d := deferredData("vip-auth-1", "")
	d.Customer = &models.Customer{ExternalID: "player-10", Name: "Diego Kowalski", VIP: tier(2)}
	s.authorize(t, d, bankpaytest.OutcomeAuthorize)
	rec, ok = s.Customer("player-10")
	checkNow(t, ok)
	notNilNow(t, rec.VIP)
	equal(t, 2, *rec.VIP)
	p := disbursementParams("vip-auth-2", "", "5.00", bankpaytest.AccountVerified)
	p.Customer = &models.Customer{ExternalID: "player-11", Name: "Chen Brown", VIP: tier(3)}
	auth, err := s.client.Transactions.Establish(ctx, p)
	must(t, err)
	rec, ok = s.CustomerOf(auth.TransactionID)
	checkNow(t, ok)
	equal(t, "player-11", rec.ExternalID)
	notNilNow(t, rec.VIP)
	equal(t, 3, *rec.VIP)

	// A merchant not configured for VIP tiers: refused, and establish data
	// does not set a tier.
	pc := clientFor(t, s.Server, bankpay.Credentials{AccessID: plain.AccessID, AccessKey: plain.AccessKey, MerchantID: plain.MerchantID})
	_, err = pc.Customers.UpdateByExternalID(ctx, "player-12", &bankpay.CustomerUpdateParams{Name: "Priya Smith", VIP: tier(1)})
	requireAPIError(t, err, http.StatusBadRequest, bankpay.CodeInvalidParameter, bankpay.ErrBadRequest)
	pp := disbursementParams("vip-auth-3", "", "5.00", bankpaytest.AccountVerified)
	pp.Customer = &models.Customer{ExternalID: "player-13", Name: "Sam Garcia", VIP: tier(2)}
	pauth, err := pc.Transactions.Establish(ctx, pp)
	must(t, err)
	rec, ok = s.CustomerOf(pauth.TransactionID)
	checkNow(t, ok)
	isNil(t, rec.VIP, "no tier for a merchant not configured for VIP")
}

// --- Event delivery --------------------------------------------------------------

func TestIntegrationEventResends(t *testing.T) {
	in := startInbox(t, itCreds, bankpay.WithDeduplicator(bankpay.NewMemoryDeduplicator(0)))
	s := startSandbox(t, bankpaytest.WithStartTime(thursday))
	in.useClock(s.Now)
	ctx := context.Background()

	in.failNext(2) // the handler fails twice: 500, and the sandbox re-sends
	auth, err := s.client.Transactions.Establish(ctx, disbursementParams("resend-1", in.URL, "5.00", bankpaytest.AccountVerified))
	must(t, err)
	s.flush(t)
	empty(t, in.typesFor(auth.TransactionID))
	s.Advance(bankpaytest.ResendInterval - time.Second)
	empty(t, in.typesFor(auth.TransactionID), "not re-sent before %s", bankpaytest.ResendInterval)
	s.Advance(time.Second)
	s.Advance(bankpaytest.ResendInterval)
	s.flush(t)
	equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(auth.TransactionID), "processed once, on the third attempt")
	evs := s.EventsFor(auth.TransactionID)
	lengthNow(t, evs, 1)
	var codes []int
	for _, a := range evs[0].Attempts {
		codes = append(codes, a.StatusCode)
	}
	equal(t, []int{500, 500, 200}, codes)
	equal(t, thursday.Add(2*bankpaytest.ResendInterval), evs[0].Attempts[2].At)
	check(t, evs[0].Delivered)

	// Once delivered, no more re-sends.
	s.Advance(time.Hour)
	s.flush(t)
	length(t, s.EventsFor(auth.TransactionID)[0].Attempts, 3)
}

func TestIntegrationEventsRejectedAndDefaultURL(t *testing.T) {
	// The merchant's registered notification URL receives the events of
	// transactions without a notificationUrl; a handler with the wrong key
	// answers 401, and the sandbox re-sends for 12 hours, then stops.
	wrong := itCreds
	wrong.AccessKey = "not-the-key"
	bad := startInbox(t, wrong)
	good := startInbox(t, itCreds)
	m := sandboxMerchant()
	m.NotificationURL = good.URL
	s := startSandbox(t, bankpaytest.WithDefaultMerchant(m))
	bad.useClock(s.Now)
	good.useClock(s.Now)
	ctx := context.Background()

	viaDefault, err := s.client.Transactions.Establish(ctx, disbursementParams("default-url", "", "5.00", bankpaytest.AccountVerified))
	must(t, err)
	rejected, err := s.client.Transactions.Establish(ctx, disbursementParams("rejected", bad.URL, "5.00", bankpaytest.AccountVerified))
	must(t, err)
	s.flush(t)
	equal(t, []models.EventType{models.EventAuthorize}, good.typesFor(viaDefault.TransactionID))
	empty(t, bad.all(), "the handler rejects a signature made with another key")

	s.Advance(bankpaytest.ResendWindow + time.Hour)
	s.flush(t)
	evs := s.EventsFor(rejected.TransactionID)
	lengthNow(t, evs, 1)
	check(t, !evs[0].Delivered)
	length(t, evs[0].Attempts, 1+int(bankpaytest.ResendWindow/bankpaytest.ResendInterval), "the first attempt and a re-send every 5 minutes for 12 hours")
	for _, a := range evs[0].Attempts {
		equal(t, http.StatusUnauthorized, a.StatusCode)
	}
	empty(t, bad.all())
	// The notifications verify with the right credentials.
	must(t, bankpay.VerifyNotification([]byte(evs[0].Body), evs[0].Authorization, itCreds))
	errIs(t, bankpay.VerifyNotification([]byte(evs[0].Body), evs[0].Authorization, wrong), bankpay.ErrInvalidSignature)
	ev, err := bankpay.ParseEvent([]byte(evs[0].Body), "application/x-www-form-urlencoded")
	must(t, err)
	equal(t, rejected.TransactionID, ev.TransactionID())
	equal(t, evs[0].ID, ev.EventID)
}

// --- assertion helpers (the module has no assertion library) ---------------

// msgOf formats the optional message of a check: a format and its
// arguments.
func msgOf(msg []any) string {
	if len(msg) == 0 {
		return ""
	}
	if f, ok := msg[0].(string); ok {
		return ": " + fmt.Sprintf(f, msg[1:]...)
	}
	return ": " + fmt.Sprint(msg...)
}

func must(t *testing.T, err error, msg ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error %v%s", err, msgOf(msg))
	}
}

func equal(t *testing.T, want, got any, msg ...any) bool {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Errorf("got %#v, want %#v%s", got, want, msgOf(msg))
		return false
	}
	return true
}

func equalNow(t *testing.T, want, got any, msg ...any) {
	t.Helper()
	if !equal(t, want, got, msg...) {
		t.FailNow()
	}
}

func notEqual(t *testing.T, a, b any, msg ...any) {
	t.Helper()
	if reflect.DeepEqual(a, b) {
		t.Errorf("both are %#v%s", a, msgOf(msg))
	}
}

func check(t *testing.T, cond bool, msg ...any) bool {
	t.Helper()
	if !cond {
		t.Errorf("check failed%s", msgOf(msg))
	}
	return cond
}

func checkNow(t *testing.T, cond bool, msg ...any) {
	t.Helper()
	if !check(t, cond, msg...) {
		t.FailNow()
	}
}

func le[T cmp.Ordered](t *testing.T, a, b T, msg ...any) {
	t.Helper()
	if a > b {
		t.Errorf("%v > %v%s", a, b, msgOf(msg))
	}
}

func lenOf(x any) int {
	v := reflect.ValueOf(x)
	switch v.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array, reflect.Chan:
		return v.Len()
	}
	return -1
}

func length(t *testing.T, x any, n int, msg ...any) bool {
	t.Helper()
	if got := lenOf(x); got != n {
		t.Errorf("length %d, want %d%s", got, n, msgOf(msg))
		return false
	}
	return true
}

func lengthNow(t *testing.T, x any, n int, msg ...any) {
	t.Helper()
	if !length(t, x, n, msg...) {
		t.FailNow()
	}
}

func isNil(t *testing.T, x any, msg ...any) {
	t.Helper()
	if x != nil && !reflect.ValueOf(x).IsNil() {
		t.Errorf("got %#v, want nil%s", x, msgOf(msg))
	}
}

func notNil(t *testing.T, x any, msg ...any) bool {
	t.Helper()
	if x == nil || reflect.ValueOf(x).IsNil() {
		t.Errorf("got nil%s", msgOf(msg))
		return false
	}
	return true
}

func notNilNow(t *testing.T, x any, msg ...any) {
	t.Helper()
	if !notNil(t, x, msg...) {
		t.FailNow()
	}
}

func empty(t *testing.T, x any, msg ...any) {
	t.Helper()
	if n := lenOf(x); n != 0 {
		t.Errorf("length %d, want empty%s", n, msgOf(msg))
	}
}

func notEmpty(t *testing.T, x any, msg ...any) bool {
	t.Helper()
	if lenOf(x) <= 0 {
		t.Errorf("empty%s", msgOf(msg))
		return false
	}
	return true
}

func notEmptyNow(t *testing.T, x any, msg ...any) {
	t.Helper()
	if !notEmpty(t, x, msg...) {
		t.FailNow()
	}
}

func errIs(t *testing.T, err, target error, msg ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Errorf("error %v does not match %v%s", err, target, msgOf(msg))
	}
}

func errAsNow(t *testing.T, err error, target any, msg ...any) {
	t.Helper()
	if !errors.As(err, target) {
		t.Fatalf("error %v (%T) is not a %T%s", err, err, target, msgOf(msg))
	}
}

func notContains(t *testing.T, s, sub string, msg ...any) {
	t.Helper()
	if strings.Contains(s, sub) {
		t.Errorf("%q contains %q%s", s, sub, msgOf(msg))
	}
}

func matches(t *testing.T, pattern, s string, msg ...any) {
	t.Helper()
	if !regexp.MustCompile(pattern).MatchString(s) {
		t.Errorf("%q does not match %s%s", s, pattern, msgOf(msg))
	}
}
