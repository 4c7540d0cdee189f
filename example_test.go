package bankpay_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// The examples run against a bankpaytest sandbox started inside each one, so
// that they run anywhere; a merchant's code passes its own credentials and
// bankpay.SandboxBaseURL or bankpay.ProductionBaseURL instead.

// exampleStart is the sandbox clock's start in the examples: a Thursday.
var exampleStart = time.Date(2025, time.March, 6, 15, 0, 0, 0, time.UTC)

func ExampleNewClient() {
	srv := bankpaytest.NewServer()
	defer srv.Close()

	c, err := bankpay.NewClient(
		srv.Credentials(),
		bankpay.WithBaseURL(srv.URL), // bankpay.SandboxBaseURL by default
		bankpay.WithMaxRetries(2),
	)
	if err != nil {
		fmt.Println(err)
		return
	}

	// Every call returns typed errors; options apply to the client or to
	// one call.
	_, err = c.Transactions.Get(context.Background(), "100000000000000", bankpay.WithMaxRetries(0))
	fmt.Println("unknown transaction:", errors.Is(err, bankpay.ErrNotFound))

	// Bad input is refused before anything is sent.
	_, err = bankpay.NewClient(bankpay.Credentials{AccessID: "A48B73F694C4C8EE6306", MerchantID: "110005514"})
	fmt.Println(err)
	_, err = bankpay.NewClient(bankpay.Credentials{AccessID: "a", AccessKey: bankpay.NewSecret("b"), MerchantID: "c"},
		bankpay.WithBaseURL("http://bankpay.example/api/v1"))
	var ve *bankpay.ValidationError
	fmt.Println(errors.As(err, &ve))
	// Output:
	// unknown transaction: true
	// bankpay: invalid accessKey: must not be empty
	// true
}

func ExampleTransactionsService_Establish() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(),
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}

	// A Disbursement authorization by account and routing number: no user
	// interface. The client signs the data with the access key.
	auth, err := c.Transactions.Establish(context.Background(), &models.EstablishData{
		Currency:          models.USD,
		Amount:            "0.00", // no fixed amount: each deposit passes one
		MerchantReference: "refund-2025-0042",
		PaymentType:       models.PaymentTypeDisbursement,
		ReturnURL:         "https://shop.example/payouts/return", CancelURL: "https://shop.example/payouts/cancel",
		Account: &models.Account{AccountNumber: "1000000010", RoutingNumber: "124003116"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	// The establish response is abbreviated: status 0 with the message
	// Authorized. Transactions.Get shows the authorization's status.
	fmt.Println(auth.TransactionID, auth.TransactionType, auth.StatusMessage)
	fmt.Println(auth.Payment.PaymentType, "to account ending", auth.Payment.Account.AccountNumber)
	got, err := c.Transactions.Get(context.Background(), auth.TransactionID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("status:", got.Status)
	// Output:
	// 100000000001001 Authorize Authorized
	// Disbursement to account ending 0010
	// status: Authorized
}

func ExampleTransactionsService_Deposit() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(),
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		Currency: models.USD, Amount: "100.00", MerchantReference: "payout-auth-7",
		PaymentType: models.PaymentTypeDisbursement,
		ReturnURL:   "https://shop.example/payouts/return", CancelURL: "https://shop.example/payouts/cancel",
		Account: &models.Account{AccountNumber: "1000000010", RoutingNumber: "124003116"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	p := &bankpay.DepositParams{
		MerchantReference:   "payout-7",
		Amount:              models.AmountFromCents(2550),
		AuthorizationAmount: auth.Amount, // lets the SDK check the maximum before sending
	}
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(dep.TransactionID, dep.TransactionType, dep.Status, dep.Amount, "from", dep.OriginalTransactionID)

	// Sent again (a retry after a timeout, say), the same merchantReference
	// is refused: nothing is paid twice.
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, p)
	fmt.Println("duplicate:", errors.Is(err, bankpay.ErrDuplicate))

	// More than the authorization allows is refused before sending.
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{
		MerchantReference: "payout-8", Amount: "250.00", AuthorizationAmount: auth.Amount,
	})
	var ve *bankpay.ValidationError
	fmt.Println("validation error on", errors.As(err, &ve) && ve.Field == "amount")
	// Output:
	// 100000000001002 Deposit Authorized 25.50 from 100000000001001
	// duplicate: true
	// validation error on true
}

func ExampleTransactionsService_Get() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(),
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: "auth-9",
		PaymentType: models.PaymentTypeDisbursement,
		ReturnURL:   "https://shop.example/payouts/return", CancelURL: "https://shop.example/payouts/cancel",
		Account: &models.Account{AccountNumber: "1000000010", RoutingNumber: "124003116"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	dep, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "dep-9", Amount: "10.00"})
	if err != nil {
		fmt.Println(err)
		return
	}

	show := func() {
		t, err := c.Transactions.Get(ctx, dep.TransactionID)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s\n", srv.Now().Format("Mon 15:04"), t.Status)
	}
	show()
	srv.Advance(time.Minute) // the sandbox submits the deposit to the network
	show()
	srv.AdvanceBankingDays(3) // Thursday + 3 banking days: Tuesday
	show()
	// Output:
	// Thu 15:00: Authorized
	// Thu 15:01: Processed
	// Tue 15:01: Completed
}

func ExampleAccountsService_Tokenize() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(),
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	tk, err := c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{
		AccountNumber: "1000001700", // a sandbox account: FCRA third-party score 700
		RoutingNumber: "124003116",
		VerifyAccount: true,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	v := tk.Account.Verification
	fmt.Println("token issued:", tk.Account.Token != "")
	fmt.Println("verified:", v.Verified, "score:", *v.Score, "third-party score:", *v.ThirdPartyScore)

	// A sandbox error trigger: 401 with code 375.
	_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1003750000", RoutingNumber: "124003116"})
	var apiErr *bankpay.APIError
	if errors.As(err, &apiErr) {
		fmt.Println(apiErr.StatusCode, apiErr.Code, errors.Is(err, bankpay.ErrUnauthorized))
	}
	// Output:
	// token issued: true
	// verified: true score: 7 third-party score: 700
	// 401 375 true
}

func ExampleAccountsService_Summary() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(),
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}

	// The user authorizes a Retrieval in the bank-selection interface (played
	// by the sandbox); the merchant gets its transactionId from the redirect.
	d := models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: "cashflow-1",
		PaymentType: models.PaymentTypeRetrieval,
		ReturnURL:   "https://lender.example/return", CancelURL: "https://lender.example/cancel",
	}
	if err := c.SignEstablishData(&d); err != nil {
		fmt.Println(err)
		return
	}
	_, auth, err := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		fmt.Println(err)
		return
	}

	sum, err := c.Accounts.Summary(context.Background(), auth.TransactionID)
	if err != nil {
		fmt.Println(err)
		return
	}
	acct := sum.Summary[0]
	fmt.Println("routing", acct.RoutingNumber, "selected", acct.SelectedAccount, acct.Currency)
	for _, days := range []int{7, 30, 90} {
		a := acct.Aggregation(days)
		fmt.Printf("%d days: deposits, withdrawals, overdrafts and NSF counted: %t\n",
			a.Days, a.DepositCount >= 0 && a.WithdrawalCount > 0 && a.OverdraftCount >= 0 && a.NSFCount >= 0)
	}
	fmt.Println("last aggregated:", sum.LastUpdated.Time().Format(time.RFC3339))
	// Output:
	// routing 124003116 selected true USD
	// 7 days: deposits, withdrawals, overdrafts and NSF counted: true
	// 30 days: deposits, withdrawals, overdrafts and NSF counted: true
	// 90 days: deposits, withdrawals, overdrafts and NSF counted: true
	// last aggregated: 2025-03-06T15:00:00Z
}

func ExampleIdentityService_Register() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c, err := bankpay.NewClient(srv.Credentials(),
		bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()

	// An authorization with kycType 1, authorized by the user with the demo
	// bank's documented password (an eligible user).
	d := models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: "onboarding-1",
		PaymentType: models.PaymentTypeDeferred, KYCType: models.KYCTypeIdentity,
		ReturnURL: "https://bank.example/return", CancelURL: "https://bank.example/cancel",
	}
	if err := c.SignEstablishData(&d); err != nil {
		fmt.Println(err)
		return
	}
	_, auth, err := srv.Authorize(d, bankpaytest.OutcomeEligible)
	if err != nil {
		fmt.Println(err)
		return
	}
	id := auth.TransactionID

	_, err = c.Identity.User(ctx, id)
	fmt.Println("before the identity events:", errors.Is(err, bankpay.ErrIdentityNotReady))

	srv.Advance(3 * bankpaytest.IdentityStep) // two providers' data, then the verification
	u, err := c.Identity.User(ctx, id)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("eligible:", u.Eligible)

	if err := c.Identity.Register(ctx, id, "customer account opened"); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("feedback recorded: %+v\n", srv.Feedback(id))
	// Output:
	// before the identity events: true
	// eligible: true
	// feedback recorded: [{Status:4 SubStatus:559 Description:customer account opened}]
}

func ExampleClient_SignEstablishData() {
	// The credentials of the documented example (see SignEstablishData).
	creds := bankpay.Credentials{AccessID: "A48B73F694C4C8EE6306", AccessKey: bankpay.NewSecret("my-access-key"), MerchantID: "110005514"}
	srv := bankpaytest.NewServer(bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{Credentials: creds}))
	defer srv.Close()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}

	// On the server: sign, then hand the JSON to the front-end SDK.
	d := &models.EstablishData{
		Description: "Order 42", Currency: models.USD, Amount: "10.00",
		MerchantReference: "ref-42", PaymentType: models.PaymentTypeDeferred,
		ReturnURL: "https://shop.example/return", CancelURL: "https://shop.example/cancel",
		Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{City: "Austin", Country: "US"}},
	}
	if err := c.SignEstablishData(d); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(d.AccessID, d.MerchantID, d.RequestSignature)

	// The bank-selection interface (played by the sandbox) accepts it...
	_, auth, err := srv.Authorize(*d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("authorized:", auth.Status)
	// ...and refuses data changed after signing.
	d.Amount, d.MerchantReference = "1000.00", "ref-43"
	_, _, err = srv.Authorize(*d, bankpaytest.OutcomeAuthorize)
	var refused *bankpaytest.Error
	if errors.As(err, &refused) {
		fmt.Println("refused:", refused.Status, refused.Code)
	}
	// Output:
	// A48B73F694C4C8EE6306 110005514 bKKk8jN+SU93sX+ckaBV2kjzKZU=
	// authorized: Authorized
	// refused: 401 375
}

func ExampleVerifyRedirect() {
	creds := bankpay.Credentials{AccessID: "A48B73F694C4C8EE6306", AccessKey: bankpay.NewSecret("my-access-key"), MerchantID: "110005514"}
	srv := bankpaytest.NewServer(bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{Credentials: creds}))
	defer srv.Close()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	d := models.EstablishData{
		Currency: models.USD, Amount: "50.00", MerchantReference: "order-7",
		PaymentType: models.PaymentTypeDeferred,
		ReturnURL:   "https://shop.example/bankpay/return", CancelURL: "https://shop.example/bankpay/cancel",
	}
	if err := c.SignEstablishData(&d); err != nil {
		fmt.Println(err)
		return
	}
	// The user authorizes; the browser comes back to the returnUrl with the
	// signed parameters.
	redirectURL, _, err := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		fmt.Println(err)
		return
	}

	// In the returnUrl handler (VerifyRedirectRequest takes the *http.Request).
	r, err := bankpay.VerifyRedirect(redirectURL, creds)
	if err != nil {
		fmt.Println("reject:", err)
		return
	}
	fmt.Println(r.TransactionID, r.MerchantReference, r.Status, (r.Status == models.StatusAuthorized))
	fmt.Println("instant payout available:", r.InstantPayoutAvailable)

	// A changed parameter breaks the signature.
	_, err = bankpay.VerifyRedirect(strings.Replace(redirectURL, "merchantReference=order-7", "merchantReference=order-8", 1), creds)
	fmt.Println(errors.Is(err, bankpay.ErrInvalidSignature))
	// Output:
	// 100000000001001 order-7 Authorized true
	// instant payout available: true
	// true
}

func ExampleNewWebhookHandler() {
	creds := bankpay.Credentials{AccessID: "A48B73F694C4C8EE6306", AccessKey: bankpay.NewSecret("my-access-key"), MerchantID: "110005514"}

	// The sandbox sends signed notifications to the notificationUrl.
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart), bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{Credentials: creds}))
	defer srv.Close()

	// The merchant's notification endpoint. Under test it follows the
	// sandbox's clock, which Advance moves days ahead of the real one (the
	// handler refuses events dated over 5 minutes ahead of its clock).
	var mu sync.Mutex
	var got []string
	h := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		if tx := ev.Transaction; tx != nil {
			mu.Lock()
			defer mu.Unlock()
			got = append(got, fmt.Sprintf("%s %s: %s is %s", ev.EventID, ev.EventType, ev.TransactionID, tx.Status))
		}
		return nil // store and respond 200 quickly; an error responds 500 and the event is re-sent
	}, bankpay.WithWebhookClock(srv.Now)) // de-duplicates in memory; replicas: WithDeduplicator
	mux := http.NewServeMux()
	mux.Handle("POST /bankpay/events", h)
	merchant := httptest.NewServer(mux)
	defer merchant.Close()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.URL))
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	auth, err := c.Transactions.Establish(ctx, &models.EstablishData{
		Currency: models.USD, Amount: "20.00", MerchantReference: "wh-1",
		PaymentType: models.PaymentTypeDisbursement,
		ReturnURL:   "https://shop.example/payouts/return", CancelURL: "https://shop.example/payouts/cancel",
		NotificationURL: merchant.URL + "/bankpay/events",
		Account:         &models.Account{AccountNumber: "1000000010", RoutingNumber: "124003116"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "wh-dep-1"}); err != nil {
		fmt.Println(err)
		return
	}
	srv.Advance(time.Minute)
	srv.AdvanceBankingDays(3)
	if err := srv.Flush(ctx); err != nil { // wait for the deliveries
		fmt.Println(err)
		return
	}
	mu.Lock()
	defer mu.Unlock()
	fmt.Println(strings.Join(got, "\n"))
	// Output:
	// 500000000000001 Authorize: 100000000001001 is Authorized
	// 500000000000002 Process: 100000000001002 is Processed
	// 500000000000003 Complete: 100000000001002 is Completed
}

func ExampleCustomersService_Lookup() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// Early in the funnel: offer bank payment first to known users.
	known, err := c.Customers.Lookup(ctx, "new.shopper@example.net", "+15125550123")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("known:", known)

	_, err = c.Customers.Lookup(ctx, "not an email", "")
	fmt.Println(err)
	// Output:
	// known: false
	// bankpay: invalid email: must be an email address (local@domain)
}

func ExampleAccountsService_Verify() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	a, err := c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{
		AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber,
	}, bankpay.WithExpand("account.paymentProvider"))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("...%s verified %t, score %d, bank %s\n", a.AccountNumber, a.Verified, *a.Verification.Score, a.PaymentProvider.Name)

	// After paying it by ACH, report the outcome.
	err = c.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{
		Token: a.Token, Status: models.StatusCompleted, SubStatus: "R00", Amount: "25.00", Currency: models.USD,
	})
	fmt.Println("feedback:", err)
	// Output:
	// ...0010 verified true, score 10, bank Demo Bank
	// feedback: <nil>
}

// exampleAuthorization establishes a Disbursement authorization in srv.
func exampleAuthorization(c *bankpay.Client, ref string) (*models.Transaction, error) {
	return c.Transactions.Establish(context.Background(), &models.EstablishData{
		Currency: models.USD, Amount: "0.00", MerchantReference: ref,
		PaymentType: models.PaymentTypeDisbursement,
		ReturnURL:   "https://shop.example/payouts/return", CancelURL: "https://shop.example/payouts/cancel",
		Account: &models.Account{AccountNumber: "1000000010", RoutingNumber: "124003116"},
	})
}

func ExampleTransactionsService_List() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	auth, err := exampleAuthorization(c, "payouts-week-10")
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, amount := range []models.Amount{"25.00", "10.00", "40.00"} {
		_, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{
			MerchantReference: fmt.Sprintf("payout-%d", i+1), Amount: amount})
		if err != nil {
			fmt.Println(err)
			return
		}
	}

	// The authorization's deposits, largest first, read a page of 2 at a
	// time as the loop goes.
	for t, err := range c.Transactions.List(ctx, &bankpay.TransactionListParams{
		OriginalTransactionID: auth.TransactionID,
		TransactionTypes:      []models.TransactionType{models.TypeDeposit},
		ListRange:             bankpay.ListRange{OrderBy: "amount", SortOrder: "desc", Count: 2},
	}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(t.MerchantReference, t.Amount, t.Status)
	}
	// Output:
	// payout-3 40.00 Authorized
	// payout-1 25.00 Authorized
	// payout-2 10.00 Authorized
}

func ExampleTransactionsService_FindByMerchantReference() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	auth, err := exampleAuthorization(c, "payouts-week-11")
	if err != nil {
		fmt.Println(err)
		return
	}

	// The sandbox makes the deposit, then loses its response.
	srv.LoseResponse(http.MethodPost, "/transactions/"+auth.TransactionID+"/deposit")
	p := &bankpay.DepositParams{MerchantReference: "payout-77", Amount: "25.00"}
	_, err = c.Transactions.Deposit(ctx, auth.TransactionID, p)
	if bankpay.OutcomeUnknown(err) {
		// The deposit may have been made: find it, a deposit made from
		// the authorization, instead of paying again.
		dep, err := c.Transactions.FindByMerchantReference(ctx, &bankpay.FindParams{
			OriginalTransactionID: auth.TransactionID, Type: models.TypeDeposit, MerchantReference: p.MerchantReference})
		switch {
		case errors.Is(err, bankpay.ErrNotFound):
			fmt.Println("not made: pay again with the same merchantReference")
		case err != nil: // ErrIncomplete, ErrAmbiguous
			fmt.Println("cannot tell yet, do not pay again:", err)
		default:
			fmt.Println("made:", dep.TransactionType, dep.Amount, dep.MerchantReference)
		}
	}
	// Output:
	// made: Deposit 25.00 payout-77
}

func ExamplePaymentsService_Get() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()
	auth, err := exampleAuthorization(c, "payouts-week-12")
	if err != nil {
		fmt.Println(err)
		return
	}
	if _, err := c.Transactions.Deposit(ctx, auth.TransactionID, &bankpay.DepositParams{MerchantReference: "payout-9", Amount: "30.00"}); err != nil {
		fmt.Println(err)
		return
	}
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays + 1) // the deposit completes

	pay, err := c.Payments.Get(ctx, auth.Payment.PaymentID)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(pay.MerchantReference, "paid", pay.Paid, "pending", pay.Pending, "balance", pay.Balance)
	// Output:
	// payouts-week-12 paid 30.00 pending 0.00 balance 30.00
}

func ExamplePaymentProvidersService_List() {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// Pages are read as the loop asks for more; break stops reading.
	for pp, err := range c.PaymentProviders.List(ctx, &bankpay.PaymentProviderListParams{Countries: []string{"CA"}}) {
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Println(pp.PaymentProviderID, pp.Name, pp.SubType)
	}
	// Output:
	// 200010001 Maple Demo Bank 1000
	// 200010002 Northern Credit Union 2000
}

func ExampleDisputesService_Create() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// A collected capture the user's bank returned: the Dispute event
	// names it (transactionId) and the amount returned (amountReturned).
	d := models.EstablishData{Currency: models.USD, Amount: "50.00", MerchantReference: "order-77",
		PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
		Customer: &models.Customer{Name: "Maria Garcia", Address: &models.Address{Address1: "200 Oak Ave", City: "Austin",
			State: "TX", Zip: "73301", Country: "US"}}}
	_ = c.SignEstablishData(&d)
	_, auth, _ := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	capture, err := c.Transactions.Capture(ctx, auth.TransactionID, &bankpay.CaptureParams{MerchantReference: "order-77-cap",
		Amount: "50.00", Beneficiary: &models.Beneficiary{Name: "Luis Garcia", Address: &models.Address{Country: "MX"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.AdvanceBankingDays(4)
	_ = srv.Dispute(capture.TransactionID)

	// A key of the merchant's own makes a repeated request the same one:
	// it recovers once, and gets the same transaction.
	p := &bankpay.DisputeParams{TransactionID: capture.TransactionID, Amount: "50.00", IdempotencyKey: "recover-order-77"}
	rec, err := c.Disputes.Create(ctx, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	again, _ := c.Disputes.Create(ctx, p)
	fmt.Println(models.TypeRepresentment == rec.TransactionType, rec.Amount, again.TransactionID == rec.TransactionID)

	// The same key with another body is refused.
	p.Amount = "10.00"
	_, err = c.Disputes.Create(ctx, p)
	var apiErr *bankpay.APIError
	fmt.Println(errors.As(err, &apiErr), apiErr.StatusCode)
	// Output:
	// true 50.00 true
	// true 422
}

// A payment collected from a Pay authorization is refunded in two parts.
func ExampleTransactionsService_Refund() {
	srv := bankpaytest.NewServer(bankpaytest.WithStartTime(exampleStart))
	defer srv.Close()
	c := srv.Client()
	ctx := context.Background()

	// The user authorizes at their bank (played by the sandbox); the
	// Authorize event carries the split token the capture needs.
	d := models.EstablishData{Currency: models.USD, Amount: "60.00", MerchantReference: "order-77",
		PaymentType: models.PaymentTypeDeferred,
		ReturnURL:   "https://shop.example/return", CancelURL: "https://shop.example/cancel"}
	if err := c.SignEstablishData(&d); err != nil {
		fmt.Println(err)
		return
	}
	_, auth, err := srv.Authorize(d, bankpaytest.OutcomeAuthorize)
	if err != nil {
		fmt.Println(err)
		return
	}
	token := srv.EventsFor(auth.TransactionID)[0].Raw.Get("splitToken") // ev.Transaction.SplitToken in a webhook handler

	pay, err := c.Transactions.Capture(ctx, auth.TransactionID, &bankpay.CaptureParams{
		MerchantReference: "order-77-pay", Amount: "60.00", SplitToken: token})
	if err != nil {
		fmt.Println(err)
		return
	}
	srv.Advance(time.Minute) // the capture completes 3 banking days after it is processed
	srv.AdvanceBankingDays(bankpaytest.CompletionBankingDays)

	r, err := c.Transactions.Refund(ctx, pay.TransactionID, &bankpay.RefundParams{MerchantReference: "order-77-rf1", Amount: "20.00"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.TransactionType, r.Amount, "of", r.OriginalTransactionID == pay.TransactionID)
	got, _ := c.Transactions.Get(ctx, pay.TransactionID)
	fmt.Println(got.Status, "balance", got.Balance)

	// No amount: the rest.
	if _, err := c.Transactions.Refund(ctx, pay.TransactionID, nil); err != nil {
		fmt.Println(err)
		return
	}
	got, _ = c.Transactions.Get(ctx, pay.TransactionID)
	fmt.Println(got.Status, "refunded", got.Refunded)
	// Output:
	// Refund 20.00 of true
	// PartiallyRefunded balance 40.00
	// Refunded refunded 60.00
}
