package bankpay

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

// Golden wire tests: each response the SDK reads, written from the facts the
// operator's OpenAPI schemas state (field names, kinds, enum values) with
// ids and values of our own, is decoded through the real SDK method in
// both shapes (the spec's wrapped object and the OpenAPI's bare one) and
// in three number encodings (JSON integers as the spec writes them,
// numeric strings as the OpenAPI's enums do, and whole-valued floats such
// as 1.0). Every variant must decode to the same Go value.

// numEnc writes a whole number the way one source does.
type numEnc struct {
	name string
	n    func(int64) string
}

var numEncs = []numEnc{
	{"int", func(v int64) string { return strconv.FormatInt(v, 10) }},
	{"string", func(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }},
	{"float", func(v int64) string { return strconv.FormatInt(v, 10) + ".0" }},
}

const (
	goldenTime  = int64(1731000000000)
	goldenTime2 = int64(1731000123000)
)

func goldenTxnBody(n func(int64) string, typ int64) string {
	return fmt.Sprintf(`{"transactionId":"TXG000000000071","transactionType":%s,"originalTransactionId":"TXG000000000070",
  "payment":{"paymentId":"PAYG0001","paymentType":%s,"merchantId":"1002463580","amount":"25.00","currency":"USD",
    "account":{"name":"Everyday Checking","type":%s,"profile":%s,"accountNumber":"4417","verified":true},
    "paymentProvider":{"paymentProviderId":"PPG-77","name":"Golden Test Bank","type":%s,"instantPayoutAvailable":true,"subType":"1000"}},
  "currency":"USD","amount":"25.00","pending":"0.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"PPT-G-9","status":"SW020","statusMessage":"Authorization received",
    "paymentProcessor":{"paymentProcessorId":"PROC-G","type":1}},
  "status":%s,"statusMessage":"Authorized","statusCode":"AU","createdAt":%s,"updatedAt":%s,
  "merchantReference":"gold-ref-1","recordVersion":%s,"fee":"0.00"}`,
		n(typ), n(4), n(1), n(1), n(1), n(2), n(goldenTime), n(goldenTime2), n(5))
}

func goldenTxnWant(typ models.TransactionType) *models.Transaction {
	return &models.Transaction{
		TransactionID: "TXG000000000071", TransactionType: typ, OriginalTransactionID: "TXG000000000070",
		Payment: &models.Payment{PaymentID: "PAYG0001", PaymentType: models.PaymentTypeDisbursement, MerchantID: "1002463580",
			Amount: "25.00", Currency: models.USD,
			Account:         &models.PaymentAccount{Name: "Everyday Checking", Type: 1, AccountNumber: "4417", Verified: true},
			PaymentProvider: &models.PaymentProvider{PaymentProviderID: "PPG-77", Name: "Golden Test Bank", Type: 1, InstantPayoutAvailable: true, SubType: "1000"}},
		Currency: models.USD, Amount: "25.00",
		PaymentProviderTransaction: &models.PaymentProviderTransaction{PaymentProviderTransactionID: "PPT-G-9",
			Status: models.ProviderStatus("SW020"), StatusMessage: "Authorization received",
			PaymentProcessor: &models.PaymentProcessor{PaymentProcessorID: "PROC-G"}},
		Status: models.StatusAuthorized, StatusMessage: "Authorized", StatusCode: "AU",
		CreatedAt: models.EpochMillis(goldenTime), UpdatedAt: models.EpochMillis(goldenTime2),
		MerchantReference: "gold-ref-1", RecordVersion: 5,
	}
}

func goldenVerificationBody(n func(int64) string) string {
	return fmt.Sprintf(`{"verified":true,"type":%s,"score":%s,"thirdPartyScore":%s,"verificationDate":%s,"hasEnoughFunds":true,"numberOfTries":%s}`,
		n(3), n(8), n(700), n(goldenTime), n(1))
}

func goldenVerificationWant() *models.Verification {
	score, third, enough := 8, 700, true
	return &models.Verification{Verified: true, Type: 3, Score: &score, ThirdPartyScore: &third,
		VerificationDate: models.EpochMillis(goldenTime), HasEnoughFunds: &enough}
}

// goldenCase is one SDK method and the respond it reads.
type goldenCase struct {
	name, method, path string
	// bare is the response in the OpenAPI's (unwrapped) shape; wrap gives the
	// spec's shape ("" when both sources write the same shape).
	bare func(n func(int64) string) string
	wrap func(bare string, n func(int64) string) string
	call func(ctx context.Context, c *Client) (any, error)
	// want is the decoded value; wantBare overrides it for the bare shape
	// when that shape carries fewer fields.
	want, wantBare any
}

func wrapIn(key string) func(string, func(int64) string) string {
	return func(bare string, _ func(int64) string) string { return `{"` + key + `":` + bare + `}` }
}

func goldenCases() []goldenCase {
	txn := func(name, method, path string, typ int64, call func(ctx context.Context, c *Client) (any, error)) goldenCase {
		return goldenCase{name: name, method: method, path: path,
			bare: func(n func(int64) string) string { return goldenTxnBody(n, typ) },
			wrap: wrapIn("transaction"), call: call, want: goldenTxnWant(models.TransactionType(typ))}
	}
	establishWant := goldenTxnWant(models.TypeAuthorize)
	establishWant.URL = "https://bank.example.test/flow/TXG000000000071"
	establish := txn("Establish", "POST", "/api/v1/establish", 1, func(ctx context.Context, c *Client) (any, error) {
		return c.Transactions.Establish(ctx, disbursementParams())
	})
	establish.bare = func(n func(int64) string) string {
		b := goldenTxnBody(n, 1)
		return b[:len(b)-1] + `,"url":"https://bank.example.test/flow/TXG000000000071","data":"opaque"}`
	}
	establish.want = establishWant

	balanceBody := func(n func(int64) string) string {
		return fmt.Sprintf(`{"account":{"providerId":"PPG-77","paymentProvider":{"paymentProviderId":"PPG-77","name":"Golden Test Bank","type":%s},
  "nameOnAccount":"Pat Example","name":"Everyday Checking","type":%s,"profile":%s,"accountNumber":"4417","routingNumber":"124003116",
  "verified":true,"country":"US","verification":%s},"amount":"1520.33","available":"1500.00","currency":"USD"}`,
			n(1), n(1), n(2), goldenVerificationBody(n))
	}
	balanceWant := &models.AccountBalance{
		Account: &models.Account{ProviderID: "PPG-77", PaymentProvider: &models.PaymentProvider{PaymentProviderID: "PPG-77", Name: "Golden Test Bank", Type: 1},
			NameOnAccount: "Pat Example", Name: "Everyday Checking", Type: 1, Profile: 2, AccountNumber: "4417", RoutingNumber: "124003116",
			Verified: true, Country: "US", Verification: goldenVerificationWant()},
		Amount: "1520.33", Available: "1500.00", Currency: models.USD,
	}

	address := `{"address1":"1 Golden Way","city":"Springfield","state":"IL","zip":"62701","country":"US"}`
	addressWant := models.Address{Address1: "1 Golden Way", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}

	accountBody := func(n func(int64) string) string {
		return fmt.Sprintf(`{"nameOnAccount":"Pat Example","type":%s,"profile":%s,"accountNumber":"5678","routingNumber":"124003116",
  "token":"tok_gold_1","accountId":"ACC-G-1","verified":true,"verification":%s}`, n(1), n(2), goldenVerificationBody(n))
	}
	vip := 2
	tokenWantAccount := &models.Account{NameOnAccount: "Pat Example", Type: 1, Profile: 2, AccountNumber: "5678", RoutingNumber: "124003116",
		Token: "tok_gold_1", AccountID: "ACC-G-1", Verified: true, Verification: goldenVerificationWant()}

	customerBody := func(n func(int64) string) string {
		return fmt.Sprintf(`{"customerId":"CUS-G-1","externalId":"ext-77","merchantId":"1002463580","name":"Pat Example",
  "email":"pat@example.test","phone":"+15550100","address":%s,"vip":%s,"enrollDate":%d,"createdAt":%s,"customData":{"k":"v"}}`,
			address, n(2), goldenTime, n(goldenTime))
	}
	customerWant := &models.Customer{CustomerID: "CUS-G-1", ExternalID: "ext-77", Name: "Pat Example", Email: "pat@example.test",
		Phone: "+15550100", Address: &addressWant, VIP: &vip, EnrollDate: strconv.FormatInt(goldenTime, 10),
		MerchantID: "1002463580", CreatedAt: models.EpochMillis(goldenTime)}

	detailBody := func(n func(int64) string, sourceObject bool) string {
		source := fmt.Sprintf(`"source":"bank","sourceType":%s`, n(1))
		if sourceObject {
			source = fmt.Sprintf(`"source":{"name":"bank","type":%s}`, n(1))
		}
		return fmt.Sprintf(`{"verification":[{"verificationName":"KYC","result":%s,"reasons":[{"code":%s,"reason":"matched"}],"screeningResult":[]}],
  "attribute":[{"name":"email",%s,"createdAt":%s,"verified":true,"link":"x",
    "verification":[{"trustedEntity":"bank","verificationType":%s,"verificationMethod":%s,"result":%s,"verifiedAt":%s}]}]}`,
			n(1), n(-1), source, n(goldenTime), n(1), n(2), n(1), n(goldenTime2))
	}
	detailWant := &models.VerificationDetail{
		Verification: []models.VerificationResult{{VerificationName: "KYC", Result: 1, Reasons: []models.VerificationReason{{Code: -1, Reason: "matched"}}}},
		Attribute: []models.VerifiedAttribute{{Name: "email", Source: "bank", SourceType: 1, CreatedAt: models.EpochMillis(goldenTime), Verified: true,
			Verification: []models.AttributeVerification{{TrustedEntity: "bank", VerificationType: 1, VerificationMethod: 2, Result: 1,
				VerifiedAt: models.EpochMillis(goldenTime2)}}}},
	}

	return []goldenCase{
		establish,
		txn("Get", "GET", "/api/v1/transactions/TXG000000000071", 1, func(ctx context.Context, c *Client) (any, error) {
			return c.Transactions.Get(ctx, "TXG000000000071")
		}),
		txn("Deposit", "POST", "/api/v1/transactions/TXG000000000070/deposit", 6, func(ctx context.Context, c *Client) (any, error) {
			return c.Transactions.Deposit(ctx, "TXG000000000070", &DepositParams{MerchantReference: "gold-ref-1", Amount: "25.00"})
		}),
		txn("Capture", "POST", "/api/v1/transactions/TXG000000000070/capture", 3, func(ctx context.Context, c *Client) (any, error) {
			return c.Transactions.Capture(ctx, "TXG000000000070", &CaptureParams{MerchantReference: "gold-ref-1", Amount: "25.00",
				Beneficiary: minimalBeneficiary()})
		}),
		{name: "Accounts.Balance", method: "GET", path: "/api/v1/transactions/T9/payment/paymentProvider/account/balance",
			bare: balanceBody, wrap: wrapIn("accountBalance"), want: balanceWant,
			call: func(ctx context.Context, c *Client) (any, error) { return c.Accounts.Balance(ctx, "T9") }},
		{name: "Accounts.User", method: "GET", path: "/api/v1/transactions/T9/payment/paymentProvider/user",
			bare: func(n func(int64) string) string {
				return fmt.Sprintf(`{"fingerprint":"fp-1","name":["Pat Example","P. Example"],"address":[%s],"phone":["+15550100"],
  "email":["pat@example.test"],"createdAt":%s,"segmentedName":{"firstName":"Pat","middleName":["Q"],"lastName":"Example"}}`, address, n(goldenTime))
			},
			wrap: wrapIn("user"),
			want: &models.BankUser{Name: []string{"Pat Example", "P. Example"}, Address: []models.Address{addressWant}, Phone: []string{"+15550100"},
				Email: []string{"pat@example.test"}, CreatedAt: models.EpochMillis(goldenTime),
				SegmentedName: &models.SegmentedName{FirstName: "Pat", MiddleName: []string{"Q"}, LastName: "Example"}},
			call: func(ctx context.Context, c *Client) (any, error) { return c.Accounts.User(ctx, "T9") }},
		{name: "Accounts.Summary", method: "GET", path: "/api/v1/transactions/T9/accountSummary",
			bare: func(n func(int64) string) string {
				return fmt.Sprintf(`{"customerId":"CUS-G-1","lastUpdated":%s,"summary":[{"selectedAccount":true,"currency":"USD",
  "nameOnAccount":"Pat Example","accountNumber":"4417","routingNumber":"124003116","aggregations":[{"days":%s,
  "activityEarliestDate":%s,"activityLatestDate":%s,"balanceMax":"900.10","balanceMin":"-12.00","balanceAvg":"410.55",
  "depositCount":%s,"depositAmountTotal":"1200.00","depositAmountMax":"600.00","withdrawalCount":%s,
  "withdrawalAmountTotal":"800.00","withdrawalAmountMax":"300.00","overdraftCount":%s,"overdraftAmountTotal":"12.00",
  "nsfCount":%s,"nsfFeeAmountTotal":"35.00"}]}]}`, n(goldenTime2), n(30), n(goldenTime), n(goldenTime2), n(4), n(9), n(1), n(1))
			},
			want: &models.AccountSummary{CustomerID: "CUS-G-1", LastUpdated: models.EpochMillis(goldenTime2), Summary: []models.AccountEntry{{
				SelectedAccount: true, Currency: models.USD, NameOnAccount: "Pat Example", AccountNumber: "4417", RoutingNumber: "124003116",
				Aggregations: []models.Aggregation{{Days: 30, ActivityEarliestDate: models.EpochMillis(goldenTime),
					ActivityLatestDate: models.EpochMillis(goldenTime2), BalanceMax: "900.10", BalanceMin: "-12.00", BalanceAvg: "410.55",
					DepositCount: 4, DepositAmountTotal: "1200.00", DepositAmountMax: "600.00", WithdrawalCount: 9,
					WithdrawalAmountTotal: "800.00", WithdrawalAmountMax: "300.00", OverdraftCount: 1, OverdraftAmountTotal: "12.00",
					NSFCount: 1, NSFFeeAmountTotal: "35.00"}}}}},
			call: func(ctx context.Context, c *Client) (any, error) { return c.Accounts.Summary(ctx, "T9") }},
		{name: "Accounts.Tokenize", method: "POST", path: "/api/v1/accounts/tokenize",
			bare: accountBody,
			wrap: func(bare string, n func(int64) string) string {
				return fmt.Sprintf(`{"merchantId":"1002463580","account":%s,"customer":{"name":"Pat Example","vip":%s}}`, bare, n(2))
			},
			want: &models.Tokenization{MerchantID: "1002463580", Account: tokenWantAccount,
				Customer: &models.Customer{Name: "Pat Example", VIP: &vip}},
			wantBare: &models.Tokenization{Account: tokenWantAccount},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "5678", RoutingNumber: "124003116"})
			}},
		{name: "Customers.Update", method: "POST", path: "/api/v1/customers/CUS-G-1",
			bare: customerBody, wrap: wrapIn("customer"), want: customerWant,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Customers.Update(ctx, "CUS-G-1", &CustomerParams{VIP: &vip, Name: "Pat Example"})
			}},
		{name: "Customers.UpdateByExternalID", method: "POST", path: "/api/v1/customers",
			bare: customerBody, wrap: wrapIn("customer"), want: customerWant,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Customers.UpdateByExternalID(ctx, "ext-77", &CustomerParams{VIP: &vip, Name: "Pat Example"})
			}},
		{name: "Identity.User", method: "GET", path: "/api/v1/transactions/T9/user",
			bare: func(n func(int64) string) string {
				return fmt.Sprintf(`{"name":"Pat Example","address":[%s],"phone":["+15550100"],"email":["pat@example.test"],
  "dateOfBirth":"1990-02-03","taxId":"000-00-0000","deceased":false,"driverLicense":{"number":"D000-0000","state":"IL"},
  "eligible":true,"createdAt":%s,"updatedAt":%s}`, address, n(goldenTime), n(goldenTime2))
			},
			wrap: wrapIn("user"),
			want: &models.IdentityUser{Name: "Pat Example", Address: []models.Address{addressWant}, Phone: []string{"+15550100"},
				Email: []string{"pat@example.test"}, DateOfBirth: "1990-02-03", TaxID: "000-00-0000",
				DriverLicense: &models.DriverLicense{Number: "D000-0000", State: "IL"}, Eligible: true,
				CreatedAt: models.EpochMillis(goldenTime), UpdatedAt: models.EpochMillis(goldenTime2)},
			call: func(ctx context.Context, c *Client) (any, error) { return c.Identity.User(ctx, "T9") }},
		{name: "Identity.Detail", method: "GET", path: "/api/v1/transactions/T9/user/detail",
			// The spec writes source as a string beside sourceType, the
			// OpenAPI as an object: the wrapped variant carries the first,
			// the bare one the second.
			bare: func(n func(int64) string) string { return detailBody(n, true) },
			wrap: func(_ string, n func(int64) string) string { return `{"detail":` + detailBody(n, false) + `}` },
			want: detailWant,
			call: func(ctx context.Context, c *Client) (any, error) { return c.Identity.Detail(ctx, "T9") }},
	}
}

func TestWireGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		for _, enc := range numEncs {
			shapes := []string{"bare"}
			if gc.wrap != nil {
				shapes = append(shapes, "wrapped")
			}
			for _, shape := range shapes {
				t.Run(gc.name+"/"+shape+"/"+enc.name, func(t *testing.T) {
					body := gc.bare(enc.n)
					want := gc.want
					if shape == "wrapped" {
						body = gc.wrap(body, enc.n)
					} else if gc.wantBare != nil {
						want = gc.wantBare
					}
					c, mock, _ := newTestClient(t)
					var calls int
					mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
						calls++
						assert.Equal(t, gc.method, req.Method)
						assert.Equal(t, gc.path, req.URL.EscapedPath())
						resp := httpmock.NewStringResponse(http.StatusOK, body)
						resp.Header.Set("Content-Type", "application/json")
						return resp, nil
					})
					got, err := gc.call(context.Background(), c)
					require.NoError(t, err, body)
					assert.Equal(t, 1, calls)
					assert.Equal(t, want, got)
				})
			}
		}
	}
}
