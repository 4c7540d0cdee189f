package contract

import (
	"context"
	"time"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

// Call is one SDK call of an operation; it returns what the SDK decoded
// (nil for the calls whose answer the SDK does not read).
type Call func(ctx context.Context, c *bankpay.Client) (any, error)

// Operation binds an operationId of the contract to the SDK's rows that
// call it (internal/ops: TestOperationRows checks their method and path
// against the OpenAPI's) and to the SDK calls that use it; each answer
// generated for the operation is served to one of the calls in turn (the
// i-th answer to Calls[i%len(Calls)]), so every variant of a request is
// validated too.
type Operation struct {
	ID    string
	Rows  []*ops.Op
	Calls []Call
}

// The ids the calls use.
const (
	TxnID      = "1002463580"
	AuthID     = "1002463581"
	PaymentID  = "P1002463582"
	CustomerID = "C1002463583"
	ExternalID = "ext-2463584"
)

func ip(n int) *int   { return &n }
func bp(b bool) *bool { return &b }

func one[T any](v T, err error) (any, error) { return v, err }

// tokenized is the account of a tokenization.
func tokenized(t *models.Tokenization, err error) (any, error) {
	if err != nil || t == nil {
		return nil, err
	}
	return t.Account, nil
}

// Operations is every operation of the contract and the SDK's calls of it.
func Operations() []Operation { return append([]Operation(nil), operations...) }

// t0 is where the calls' date ranges start.
var t0 = time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)

// operations is every operation of the contract, its rows and calls.
var operations = []Operation{
	{"transactions_get-transaction", []*ops.Op{ops.TransactionsGet}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Transactions.Get(ctx, TxnID))
	}}},
	{"transactions_list-transactions", []*ops.Op{ops.TransactionsList}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: 50}}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{
				TransactionTypes:      []models.TransactionType{models.TypeDeposit},
				Statuses:              []models.TransactionStatus{models.StatusAuthorized, models.StatusCompleted},
				OriginalTransactionID: AuthID, ListRange: bankpay.ListRange{StartIndex: 10, Count: 5}}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) { // every filter the SDK offers
			return one(c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{
				TransactionTypes:  []models.TransactionType{models.TypeCapture, models.TypeRefund},
				Statuses:          []models.TransactionStatus{models.StatusCompleted},
				PaymentTypes:      []models.PaymentType{models.PaymentTypeDeferred, models.PaymentTypeDisbursement},
				MerchantReference: "ord-1", PaymentID: PaymentID, CustomerExternalID: ExternalID,
				ListRange: bankpay.ListRange{AmountMin: "1.00", AmountMax: "500.00", CreatedAtStart: t0, CreatedAtEnd: t0.Add(24 * time.Hour),
					UpdatedAtStart: t0, UpdatedAtEnd: t0.Add(48 * time.Hour), OrderBy: "createdAt", SortOrder: "desc", Count: 100}}))
		},
	}},
	{"transactions_post-establish", []*ops.Op{ops.TransactionsEstablish}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Establish(ctx, &models.EstablishData{
				Currency: models.USD, Amount: "0.00", MerchantReference: "est-1", Description: "payout",
				PaymentType: models.PaymentTypeDisbursement, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
				Account: &models.Account{AccountNumber: "1000000009", RoutingNumber: "124003116"},
			}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Establish(ctx, &models.EstablishData{
				Currency: models.USD, Amount: "25.00", MerchantReference: "est-2", Description: "payout to a VIP",
				PaymentType: models.PaymentTypeDisbursement, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
				NotificationURL: "https://shop.example/hook", KYCType: 1,
				Customer: &models.Customer{ExternalID: ExternalID, Name: "Ada Lovelace", VIP: ip(2), Email: "ada@example.com", Phone: "+12025550143",
					Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}},
				Account: &models.Account{AccountNumber: "1000000009", RoutingNumber: "124003116", Type: 1},
			}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) { // a Deferred payment with the spec's metadata.flowType
			return one(c.Transactions.Establish(ctx, &models.EstablishData{
				Currency: models.USD, Amount: "49.90", MerchantReference: "est-3", Description: "order 3",
				PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
				Metadata: &models.Metadata{FlowType: "standard"},
				Customer: &models.Customer{ExternalID: ExternalID, Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+12025550143",
					Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}},
			}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) { // an Instant payment with a display amount
			return one(c.Transactions.Establish(ctx, &models.EstablishData{
				Currency: models.CAD, Amount: "12.00", DisplayAmount: "12.00", MerchantReference: "est-4", Description: "order 4",
				PaymentType: models.PaymentTypeInstant, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
				NotificationURL: "https://shop.example/hook",
			}))
		},
	}},
	{"transactions_post-transactions-deposit", []*ops.Op{ops.TransactionsDeposit}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Deposit(ctx, AuthID, &bankpay.DepositParams{MerchantReference: "dep-1", Amount: "10.00"}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Deposit(ctx, AuthID, &bankpay.DepositParams{MerchantReference: "dep-2", Amount: "99.99",
				InstantPayoutRequest: true, ExternalTier: "gold"}))
		},
	}},
	{"transactions_post-transactions-transactionId-capture", []*ops.Op{ops.TransactionsCapture}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Capture(ctx, AuthID, &bankpay.CaptureParams{MerchantReference: "cap-1", Amount: "5.00",
				SplitToken: "Ab+cD/eF+gH="}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Capture(ctx, AuthID, &bankpay.CaptureParams{MerchantReference: "cap-2", Amount: "310.45",
				Beneficiary: &models.Beneficiary{Name: "Bea Neff", Address: &models.Address{Country: "US"}}}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) { // a money transfer with every field
			return one(c.Transactions.Capture(ctx, AuthID, &bankpay.CaptureParams{MerchantReference: "cap-3", Amount: "1250.00", InteractionID: "int-9",
				Beneficiary: &models.Beneficiary{Name: "Bea Neff", DateOfBirth: "1990-04-01", TaxID: "123456789",
					Address: &models.Address{Address1: "9 Rue X", City: "Lyon", Zip: "69001", Country: "FR"}},
				BeneficiaryAccount: &models.BeneficiaryAccount{IBAN: "FR1420041010050500013M02606",
					PaymentProvider: &models.PaymentProvider{Name: "Banque", Country: "FR", Swift: "BNPAFRPP"}},
				Remittance: &models.Remittance{WithdrawalMethod: "BankDeposit", CountryCorridor: "FR", AccountLastFour: "2606"}}))
		},
	}},
	{"transactions_post-transactions-transactionId-capture-preauth", []*ops.Op{ops.TransactionsPreauthorize}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Preauthorize(ctx, AuthID, &bankpay.PreauthorizeParams{MerchantReference: "pa-1", Amount: "10.00", Period: 2,
				SplitToken: "Ab+cD/eF+gH="}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Preauthorize(ctx, AuthID, &bankpay.PreauthorizeParams{MerchantReference: "pa-2", Amount: "99.00", Period: 6,
				ExternalTier: "gold", WithdrawalMethod: "BankDeposit", InteractionID: "int-1"}))
		},
	}},
	{"transactions_post-transactions-refund", []*ops.Op{ops.TransactionsRefund}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Refund(ctx, TxnID, &bankpay.RefundParams{MerchantReference: "rf-1", Amount: "40.00"}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Refund(ctx, TxnID, &bankpay.RefundParams{}))
		},
	}},
	{"transactions_post-transactions-cancel", []*ops.Op{ops.TransactionsCancel}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Cancel(ctx, TxnID, &bankpay.CancelParams{MerchantReference: "ord-9", Message: "customer revoked access", Reason: 3}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Transactions.Cancel(ctx, TxnID, nil))
		},
	}},
	{"transactions_post-transactions-transactionId-reclaim", []*ops.Op{ops.TransactionsReclaim}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Transactions.Reclaim(ctx, TxnID, &bankpay.ReclaimParams{MerchantReference: "rc-1", Amount: "12.50"}))
	}}},
	{"transactions_post-transactions-refresh", []*ops.Op{ops.TransactionsRefresh}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		id, err := c.Transactions.Refresh(ctx, AuthID, "Ab+cD/eF+gH=")
		return map[string]any{"refresh": map[string]any{"processId": id}}, err
	}}},
	{"disputeManagement_post-dispute-recovery", []*ops.Op{ops.DisputesCreate}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: TxnID, Amount: "20.00"}))
	}}},
	{"payments_list-payments", []*ops.Op{ops.PaymentsList}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Payments.ListPage(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{Count: 20}}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Payments.ListPage(ctx, &bankpay.PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDeferred},
				AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized}, MerchantReference: "ord-1", ListRange: bankpay.ListRange{StartIndex: 20, Count: 10}}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) { // every filter the SDK offers
			return one(c.Payments.ListPage(ctx, &bankpay.PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeInstant},
				AuthorizationStatuses: []models.TransactionStatus{models.StatusAuthorized, models.StatusCompleted},
				MerchantReference:     "ord-2", CustomerID: CustomerID, ListRange: bankpay.ListRange{AmountMin: "0.99", AmountMax: "10.00",
					CreatedAtStart: t0, CreatedAtEnd: t0.Add(time.Hour), UpdatedAtStart: t0, UpdatedAtEnd: t0.Add(time.Hour),
					OrderBy: "amount", SortOrder: "asc", Count: 1000}}))
		},
	}},
	{"payments_get-payments", []*ops.Op{ops.PaymentsGet}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Payments.Get(ctx, PaymentID))
	}}},
	{"accountData_get-transactions-account-balance", []*ops.Op{ops.AccountsBalance}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Accounts.Balance(ctx, AuthID))
	}}},
	{"accountData_get-user", []*ops.Op{ops.AccountsUser}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) { return one(c.Accounts.User(ctx, AuthID)) },
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Accounts.User(ctx, AuthID, bankpay.WithExpand("customer.segmentedName", "names", "contact")))
		},
	}},
	{"accountData_list-selected-accounts", []*ops.Op{ops.AccountsListSelected}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Accounts.ListSelected(ctx, AuthID))
	}}},
	{"accountData_get-transaction-account-summary", []*ops.Op{ops.AccountsSummary}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Accounts.Summary(ctx, AuthID))
	}}},
	// The OpenAPI's answer is the bare account, which the SDK reads into
	// Tokenization.Account: that is what is compared.
	{"accounts_post-accounts-tokenize?-verifyAccount", []*ops.Op{ops.AccountsTokenize}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return tokenized(c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000009", RoutingNumber: "124003116"}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return tokenized(c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000001700", RoutingNumber: "124003116", AccountType: 1,
				Customer: &models.Customer{ExternalID: ExternalID, Name: "John Smith", VIP: ip(0)}, VerifyAccount: true}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) { // an IBAN instead of a number and routing number
			return tokenized(c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{IBAN: "GB82WEST12345698765432", NameOnAccount: "Ada Lovelace"}))
		},
	}},
	{"accounts_get-accounts-verify", []*ops.Op{ops.AccountsVerify}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: "1000000009", RoutingNumber: "124003116"}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{IBAN: "GB82WEST12345698765432", NameOnAccount: "Ada Lovelace"},
				bankpay.WithExpand("account.paymentProvider")))
		},
	}},
	{"accounts_post-account-feedback", []*ops.Op{ops.AccountsFeedback}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return nil, c.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{AccountNumber: "1000000009", RoutingNumber: "124003116",
			ExternalID: "ach-1", Status: models.StatusReversed, SubStatus: "R01", Description: "insufficient funds",
			SubmissionDate: t0, ReturnDate: t0.Add(48 * time.Hour), Amount: "10.00", Currency: models.USD})
	}}},
	{"identity_get-trustly-id-user-data", []*ops.Op{ops.IdentityUser}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) { return one(c.Identity.User(ctx, TxnID)) },
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Identity.User(ctx, TxnID, bankpay.WithExpand("segmentedName")))
		},
	}},
	{"identity_get-trustly-id-user-details", []*ops.Op{ops.IdentityDetail}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) { return one(c.Identity.Detail(ctx, TxnID)) },
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Identity.Detail(ctx, TxnID, bankpay.WithExpand("verification")))
		},
	}},
	{"identity_post-transaction-feedback", []*ops.Op{ops.IdentityFeedback}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return nil, c.Identity.Register(ctx, TxnID, "registered as member 42")
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return nil, c.Identity.Void(ctx, TxnID, "user asked to stop")
		},
	}},
	{"verifyCustomer_get-verify-customer", []*ops.Op{ops.IdentityCustomerVerification}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Identity.CustomerVerification(ctx, TxnID))
	}}},
	{"customers_post-customers", []*ops.Op{ops.CustomersCreate, ops.CustomersUpdateByExternalID}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Customers.Create(ctx, &bankpay.CustomerParams{Name: "Ada Lovelace", Email: "ada@example.com",
				Phone: "+12025550143", Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Customers.UpdateByExternalID(ctx, ExternalID, &bankpay.CustomerParams{VIP: ip(3)}))
		},
	}},
	{"customers_get-customers", []*ops.Op{ops.CustomersList}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Customers.List(ctx, &bankpay.CustomerListParams{ExternalID: ExternalID}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Customers.List(ctx, &bankpay.CustomerListParams{CustomerID: CustomerID}))
		},
	}},
	{"customers_get-customers-customerId", []*ops.Op{ops.CustomersGet}, []Call{func(ctx context.Context, c *bankpay.Client) (any, error) {
		return one(c.Customers.Get(ctx, CustomerID))
	}}},
	{"customers_post-customers-customerId", []*ops.Op{ops.CustomersUpdate}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Customers.Update(ctx, CustomerID, &bankpay.CustomerParams{VIP: ip(2)}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Customers.Update(ctx, CustomerID, &bankpay.CustomerParams{Name: "Ada Lovelace", Email: "ada@example.com",
				Phone: "+12025550143", Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}}))
		},
	}},
	{"networkCheckApi_get-customer-lookup", []*ops.Op{ops.CustomersLookup}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			ok, err := c.Customers.Lookup(ctx, "ada@example.com", "")
			return map[string]any{"isInTrustlyNetwork": ok}, err
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			ok, err := c.Customers.Lookup(ctx, "ada@example.com", "+12025550143")
			return map[string]any{"isInTrustlyNetwork": ok}, err
		},
	}},
	{"countries_get-countries", []*ops.Op{ops.CountriesList}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) { return one(c.Countries.List(ctx, nil)) },
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Countries.List(ctx, &bankpay.CountryListParams{Country: "US", PaymentType: "instant", Enabled: bp(true)}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.Countries.List(ctx, &bankpay.CountryListParams{Country: "CA", PaymentType: "deferred", PaymentProviderSubType: "1000", Enabled: bp(false)}))
		},
	}},
	{"paymentProviders_get-paymentProviders", []*ops.Op{ops.PaymentProvidersList}, []Call{
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.PaymentProviders.ListPage(ctx, &bankpay.PaymentProviderListParams{Count: 20}))
		},
		func(ctx context.Context, c *bankpay.Client) (any, error) {
			return one(c.PaymentProviders.ListPage(ctx, &bankpay.PaymentProviderListParams{Countries: []string{"US", "CA"},
				PaymentType: "Deferred", StartIndex: 40, Count: 20}))
		},
	}},
}
