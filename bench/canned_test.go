package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bench/ogenclient"
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

// ogenCaller is the peer: the client ogen v1.24.0 generated from the
// operator's OpenAPI (package ogenclient), called as its documentation
// shows, with the same *http.Client as the SDK and the baseline.
type ogenCaller struct{ c *ogenclient.Client }

// basicSource is the ogen client's HTTPBasic security source.
type basicSource struct{ user, pass string }

// HTTPBasic returns the benchmark's credentials for every operation.
func (s basicSource) HTTPBasic(context.Context, ogenclient.OperationName) (ogenclient.HTTPBasic, error) {
	return ogenclient.HTTPBasic{Username: s.user, Password: s.pass}, nil
}

func newOgenCaller(baseURL string, hc *http.Client) (*ogenCaller, error) {
	c, err := ogenclient.NewClient(baseURL, basicSource{creds.AccessID, creds.AccessKey.Reveal()}, ogenclient.WithClient(hc))
	if err != nil {
		return nil, fmt.Errorf("ogen client: %w", err)
	}
	return &ogenCaller{c: c}, nil
}

func (o *ogenCaller) getTransaction(ctx context.Context, id string) (*ogenclient.Transaction, error) {
	return o.c.TransactionsGetTransaction(ctx, ogenclient.TransactionsGetTransactionParams{TransactionId: id})
}

func (o *ogenCaller) deposit(ctx context.Context, id, ref, amount string) (*ogenclient.Transaction, error) {
	return o.c.TransactionsPostTransactionsDeposit(ctx,
		ogenclient.NewOptTransactionsPostTransactionsDepositReq(ogenclient.TransactionsPostTransactionsDepositReq{
			MerchantReference: ref, Amount: ogenclient.NewOptString(amount)}),
		ogenclient.TransactionsPostTransactionsDepositParams{TransactionId: id})
}

func (o *ogenCaller) listTransactions(ctx context.Context, count int) (*ogenclient.TransactionsListTransactionsResponse200, error) {
	return o.c.TransactionsListTransactions(ctx, ogenclient.TransactionsListTransactionsParams{
		StartIndex: ogenclient.NewOptString("0"), Count: ogenclient.NewOptString(strconv.Itoa(count))})
}

func (o *ogenCaller) summary(ctx context.Context, id string) (*ogenclient.AccountDataGetTransactionAccountSummaryResponse200, error) {
	res, err := o.c.AccountDataGetTransactionAccountSummary(ctx, ogenclient.AccountDataGetTransactionAccountSummaryParams{TransactionId: id})
	if err != nil {
		return nil, err
	}
	ok, isOK := res.(*ogenclient.AccountDataGetTransactionAccountSummaryResponse200)
	if !isOK {
		return nil, fmt.Errorf("summary: answer %T", res)
	}
	return ok, nil
}

func (o *ogenCaller) tokenize(ctx context.Context, accountNumber, routingNumber string) (*ogenclient.AccountsPostAccountsTokenizeVerifyAccountResponse200, error) {
	res, err := o.c.AccountsPostAccountsTokenizeVerifyAccount(ctx,
		ogenclient.NewOptAccountsPostAccountsTokenizeVerifyAccountReq(ogenclient.AccountsPostAccountsTokenizeVerifyAccountReq{
			MerchantId: creds.MerchantID,
			Account: ogenclient.AccountsTokenizePostRequestBodyContentApplicationJsonSchemaAccount{
				AccountNumber: ogenclient.NewOptString(accountNumber), RoutingNumber: ogenclient.NewOptString(routingNumber)},
		}),
		ogenclient.AccountsPostAccountsTokenizeVerifyAccountParams{VerifyAccount: ogenclient.NewOptBool(true)})
	if err != nil {
		return nil, err
	}
	ok, isOK := res.(*ogenclient.AccountsPostAccountsTokenizeVerifyAccountResponse200)
	if !isOK {
		return nil, fmt.Errorf("tokenize: answer %T", res)
	}
	return ok, nil
}

// The baseline's types for the OpenAPI's shape: what a merchant writes by
// hand from the OpenAPI for encoding/json, the SDK's models with each field
// typed as the OpenAPI types it (codes as strings, account and provider
// types, recordVersion and authorizationStatus as doubles). They carry the
// fields the SDK's models carry, no more.
type (
	oaTransaction struct {
		TransactionID              string                             `json:"transactionId"`
		TransactionType            string                             `json:"transactionType"`
		OriginalTransactionID      string                             `json:"originalTransactionId,omitempty"`
		Payment                    *oaPayment                         `json:"payment,omitempty"`
		Currency                   string                             `json:"currency,omitempty"`
		Amount                     string                             `json:"amount,omitempty"`
		PaymentProviderTransaction *models.PaymentProviderTransaction `json:"paymentProviderTransaction,omitempty"`
		Status                     string                             `json:"status"`
		StatusMessage              string                             `json:"statusMessage,omitempty"`
		StatusCode                 string                             `json:"statusCode,omitempty"`
		CreatedAt                  int64                              `json:"createdAt,omitempty"`
		ProcessedAt                int64                              `json:"processedAt,omitempty"`
		CompletedAt                int64                              `json:"completedAt,omitempty"`
		UpdatedAt                  int64                              `json:"updatedAt,omitempty"`
		PPTrxID                    string                             `json:"ppTrxId,omitempty"`
		MerchantReference          string                             `json:"merchantReference,omitempty"`
		PaymentProcessorType       string                             `json:"paymentProcessorType,omitempty"`
		RecordVersion              float64                            `json:"recordVersion,omitempty"`
		Paid                       string                             `json:"paid,omitempty"`
		Refunded                   string                             `json:"refunded,omitempty"`
		Balance                    string                             `json:"balance,omitempty"`
		ExpiredAt                  int64                              `json:"expiredAt,omitempty"`
		PreAuthorized              bool                               `json:"preAuthorized,omitempty"`
		URL                        string                             `json:"url,omitempty"`
	}
	oaPayment struct {
		PaymentID                  string             `json:"paymentId,omitempty"`
		PaymentType                string             `json:"paymentType,omitempty"`
		MerchantID                 string             `json:"merchantId,omitempty"`
		ReturnURL                  string             `json:"returnUrl,omitempty"`
		CancelURL                  string             `json:"cancelUrl,omitempty"`
		Amount                     string             `json:"amount,omitempty"`
		Currency                   string             `json:"currency,omitempty"`
		Account                    *oaPaymentAccount  `json:"account,omitempty"`
		PaymentProvider            *oaPaymentProvider `json:"paymentProvider,omitempty"`
		MerchantReference          string             `json:"merchantReference,omitempty"`
		Description                string             `json:"description,omitempty"`
		AuthorizationStatus        float64            `json:"authorizationStatus,omitempty"`
		AuthorizationStatusMessage string             `json:"authorizationStatusMessage,omitempty"`
		Pending                    string             `json:"pending,omitempty"`
		Paid                       string             `json:"paid,omitempty"`
		Refunded                   string             `json:"refunded,omitempty"`
		Reversed                   string             `json:"reversed,omitempty"`
		Balance                    string             `json:"balance,omitempty"`
		Customer                   *models.Customer   `json:"customer,omitempty"`
		CreatedAt                  int64              `json:"createdAt,omitempty"`
		UpdatedAt                  int64              `json:"updatedAt,omitempty"`
		RecordVersion              float64            `json:"recordVersion,omitempty"`
	}
	oaPaymentAccount struct {
		Name          string  `json:"name,omitempty"`
		Type          float64 `json:"type,omitempty"`
		AccountNumber string  `json:"accountNumber,omitempty"`
		RoutingNumber string  `json:"routingNumber,omitempty"`
		Verified      bool    `json:"verified,omitempty"`
	}
	oaPaymentProvider struct {
		PaymentProviderID      string  `json:"paymentProviderId,omitempty"`
		Type                   float64 `json:"type,omitempty"`
		InstantPayoutAvailable bool    `json:"instantPayoutAvailable,omitempty"`
		Name                   string  `json:"name,omitempty"`
		Country                string  `json:"country,omitempty"`
		Swift                  string  `json:"swift,omitempty"`
		SubType                string  `json:"subType,omitempty"`
		InstantPayment         bool    `json:"instantPayment,omitempty"`
	}
	// oaAccount is the tokenize answer: the account, bare.
	oaAccount struct {
		NameOnAccount             string             `json:"nameOnAccount,omitempty"`
		Name                      string             `json:"name,omitempty"`
		Type                      string             `json:"type,omitempty"`
		Profile                   string             `json:"profile,omitempty"`
		AccountNumber             string             `json:"accountNumber,omitempty"`
		RoutingNumber             string             `json:"routingNumber,omitempty"`
		IBAN                      string             `json:"iban,omitempty"`
		ProviderID                string             `json:"providerId,omitempty"`
		PaymentProvider           *oaPaymentProvider `json:"paymentProvider,omitempty"`
		Verified                  bool               `json:"verified,omitempty"`
		Token                     string             `json:"token,omitempty"`
		Verification              *oaVerification    `json:"verification,omitempty"`
		AccountID                 string             `json:"accountId,omitempty"`
		Country                   string             `json:"country,omitempty"`
		AccountNumberLastFour     string             `json:"accountNumberLastFour,omitempty"`
		VirtualAccountRoutingPair bool               `json:"virtualAccountRoutingPair,omitempty"`
	}
	oaVerification struct {
		Verified         bool   `json:"verified"`
		Type             string `json:"type,omitempty"`
		Score            string `json:"score,omitempty"`
		ThirdPartyScore  string `json:"thirdPartyScore,omitempty"`
		VerificationDate int64  `json:"verificationDate,omitempty"`
		HasEnoughFunds   *bool  `json:"hasEnoughFunds,omitempty"`
	}
	// oaPage is one page of GET /transactions.
	oaPage struct {
		Transactions []oaTransaction `json:"transactions"`
	}
)

// The baseline's calls in the OpenAPI's shape: the same requests as in the
// spec's shape (bareClient), the answers read into the types above.

func (c *bareClient) oaGetTransaction(ctx context.Context, id string) (*oaTransaction, error) {
	var t oaTransaction
	if err := c.do(ctx, http.MethodGet, "/transactions/"+url.PathEscape(id), "", nil, &t); err != nil {
		return nil, err
	}
	if t.TransactionID == "" {
		return nil, fmt.Errorf("no transaction")
	}
	return &t, nil
}

func (c *bareClient) oaDeposit(ctx context.Context, id, ref string, amount models.Amount) (*oaTransaction, error) {
	form := url.Values{"merchantReference": {ref}, "amount": {string(amount)}}
	var t oaTransaction
	if err := c.do(ctx, http.MethodPost, "/transactions/"+url.PathEscape(id)+"/deposit",
		"application/x-www-form-urlencoded", strings.NewReader(form.Encode()), &t); err != nil {
		return nil, err
	}
	if t.TransactionID == "" {
		return nil, fmt.Errorf("no transaction")
	}
	return &t, nil
}

func (c *bareClient) oaListTransactions(ctx context.Context, startIndex, count int) (*oaPage, error) {
	q := url.Values{"startIndex": {strconv.Itoa(startIndex)}, "count": {strconv.Itoa(count)}}
	var page oaPage
	if err := c.do(ctx, http.MethodGet, "/transactions?"+q.Encode(), "", nil, &page); err != nil {
		return nil, err
	}
	if page.Transactions == nil {
		return nil, fmt.Errorf("no transactions")
	}
	return &page, nil
}

func (c *bareClient) oaTokenize(ctx context.Context, accountNumber, routingNumber string) (*oaAccount, error) {
	body, err := json.Marshal(&models.Tokenization{
		MerchantID: creds.MerchantID,
		Account:    &models.Account{AccountNumber: accountNumber, RoutingNumber: routingNumber, Type: 1},
	})
	if err != nil {
		return nil, err
	}
	var a oaAccount
	if err := c.do(ctx, http.MethodPost, "/accounts/tokenize?verifyAccount=true", "application/json", bytes.NewReader(body), &a); err != nil {
		return nil, err
	}
	return &a, nil
}
