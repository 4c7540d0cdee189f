package bench

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
)

// creds are the credentials of the paired benchmarks.
var creds = bankpay.Credentials{AccessID: "A48B73F694C4C8EE6306", AccessKey: bankpay.NewSecret("bench-access-key-0123456789"), MerchantID: "110005514"}

const txID = "1002581234567"

// authID is the authorization the canned deposit is made against (its
// OriginalTransactionID): a deposit answered with the transaction it was
// made from is refused by the SDK.
const authID = "1002581230000"

// cannedTransaction is a full transaction response: every field the service
// sends on GET /transactions/{id}.
func cannedTransaction(typ models.TransactionType) *models.Transaction {
	settle := true
	return &models.Transaction{
		TransactionID:         txID,
		TransactionType:       typ,
		OriginalTransactionID: authID,
		Payment: &models.Payment{
			PaymentID:   "1002581234500",
			PaymentType: models.PaymentTypeDeferred,
			MerchantID:  creds.MerchantID,
			ReturnURL:   "https://shop.example/bankpay/return",
			CancelURL:   "https://shop.example/bankpay/cancel",
			Amount:      "1250.00",
			Currency:    models.USD,
			Account: &models.PaymentAccount{
				Name: "Adv Plus Banking", Type: 1, AccountNumber: "6789", RoutingNumber: "124003116", Verified: true,
			},
			PaymentProvider: &models.PaymentProvider{
				PaymentProviderID: "051000017", Type: 1, InstantPayoutAvailable: true, Name: "Demo Bank",
			},
		},
		Currency: models.USD,
		Amount:   "1250.00",
		PaymentProviderTransaction: &models.PaymentProviderTransaction{
			PaymentProviderTransactionID: "ppt-7f3c2a9e-4b1d",
			Status:                       "10",
			StatusMessage:                "Established",
			InstantSettle:                &settle,
			PaymentProcessor:             &models.PaymentProcessor{PaymentProcessorID: "ACH-01"},
		},
		Status:               models.StatusAuthorized,
		StatusMessage:        "Authorized",
		StatusCode:           "AC100",
		CreatedAt:            1700000000000,
		ProcessedAt:          1700000005000,
		UpdatedAt:            1700000006000,
		PPTrxID:              "ppt-7f3c2a9e-4b1d",
		MerchantReference:    "order-000042",
		PaymentProcessorType: "ACH",
		RecordVersion:        3,
	}
}

// cannedSummary is the largest response of the API: the cash-flow summary of
// four accounts with their 7, 30 and 90 day aggregations.
func cannedSummary() *models.AccountSummary {
	s := &models.AccountSummary{CustomerID: "cust-778", LastUpdated: 1700000000000}
	for i, n := range []string{"1234567890", "9876543210", "5555666677", "1111222233"} {
		e := models.AccountEntry{SelectedAccount: i == 0, Currency: models.USD, NameOnAccount: "John Smith",
			AccountNumber: n, RoutingNumber: "124003116"}
		for _, d := range []int{7, 30, 90} {
			e.Aggregations = append(e.Aggregations, models.Aggregation{
				Days: d, ActivityEarliestDate: 1690000000000, ActivityLatestDate: 1700000000000,
				BalanceMax: "15234.56", BalanceMin: "120.03", BalanceAvg: "7431.87",
				DepositCount: 12 * d / 7, DepositAmountTotal: "23456.78", DepositAmountMax: "5000.00",
				WithdrawalCount: 31 * d / 7, WithdrawalAmountTotal: "19876.54", WithdrawalAmountMax: "2500.00",
				OverdraftCount: 1, OverdraftAmountTotal: "45.00", NSFCount: 1, NSFFeeAmountTotal: "35.00",
			})
		}
		s.Summary = append(s.Summary, e)
	}
	return s
}

// cannedTokenization is the tokenize response: the request echoed with the
// token and the verification.
func cannedTokenization() *models.Tokenization {
	score := 9
	return &models.Tokenization{
		MerchantID: creds.MerchantID,
		Account: &models.Account{
			AccountNumber: "100000001", RoutingNumber: "124003116", Type: 1,
			Token:        "tok_3a9f0c1e5b7d42a8",
			Verification: &models.Verification{Verified: true, Type: 3, Score: &score, VerificationDate: 1700000000000},
		},
	}
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// cannedServer is a loopback server of canned responses: the SDK and the
// baseline of a pair call the same server in the same run, so the pair
// differs only by the client side. It checks the Basic credentials (both
// sides must send them) and reads the whole request body.
type cannedServer struct {
	*httptest.Server
	auth    string
	answers *answers
}

func newCannedServer(tb testing.TB, a *answers) *cannedServer {
	tb.Helper()
	cs := &cannedServer{auth: basicAuth(creds.AccessID, creds.AccessKey.Reveal()), answers: a}
	cs.Server = httptest.NewServer(http.HandlerFunc(cs.serve))
	tb.Cleanup(cs.Close)
	return cs
}

var (
	pathTransaction = "/api/v1/transactions/" + txID
	pathDeposit     = "/api/v1/transactions/" + authID + "/deposit"
	pathSummary     = pathTransaction + "/accountSummary"
	pathTokenize    = "/api/v1/accounts/tokenize"
)

func (cs *cannedServer) serve(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	if r.Header.Get("Authorization") != cs.auth {
		http.Error(w, `{"errors":[{"code":375,"message":"Access control error"}]}`, http.StatusUnauthorized)
		return
	}
	var response []byte
	switch {
	case r.Method == http.MethodGet && r.URL.Path == pathTransaction:
		response = cs.answers.transaction
	case r.Method == http.MethodPost && r.URL.Path == pathDeposit && depositBody(r.Header.Get("Content-Type")):
		response = cs.answers.deposit
	case r.Method == http.MethodGet && r.URL.Path == pathSummary:
		response = cs.answers.summary
	case r.Method == http.MethodPost && r.URL.Path == pathTokenize:
		response = cs.answers.tokenize
	case r.Method == http.MethodGet && r.URL.Path == pathTransactions:
		response = cs.answers.list
	default:
		http.Error(w, `{"errors":[{"code":200,"message":"not found"}]}`, http.StatusNotFound)
		return
	}
	h := w.Header()
	h["Content-Type"] = jsonContentType
	_, _ = w.Write(response)
}

var jsonContentType = []string{"application/json"}

// depositBody reports whether a deposit's Content-Type is one the service
// takes: a form (the SDK, the baseline) or JSON (the OpenAPI's, which the
// ogen client sends).
func depositBody(contentType string) bool {
	return strings.HasPrefix(contentType, "application/x-www-form-urlencoded") ||
		strings.HasPrefix(contentType, "application/json")
}

// baseURL is the API base URL of the server.
func (cs *cannedServer) baseURL() string { return cs.URL + "/api/v1" }

// txEnvelope is the spec's wrapping of one transaction,
// {"transaction":{…}} (the bench module does not reach into the SDK's
// internal packages).
type txEnvelope struct {
	Transaction *models.Transaction `json:"transaction"`
}
