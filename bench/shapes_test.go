package bench

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/bankpay/bankpay-go/models"
)

// shape is one way the service may write its answers. Every paired
// benchmark runs on each shape, in the same run.
type shape struct {
	// name is the sub-benchmark's name: "spec" or "openapi".
	name string
	// answers are the canned answers the loopback server sends.
	answers *answers
	// ogenReads lists the calls whose answer in this shape the ogen client
	// can read (TestClientsAgree checks that it fails the others): it
	// joins those pairs only.
	ogenReads map[string]bool
}

// answers are the canned answers of the benchmarked calls, in one shape.
type answers struct {
	transaction, deposit, list, summary, tokenize []byte
}

// The calls of the paired benchmarks, as ogenReads names them.
const (
	callGet      = "get"
	callDeposit  = "deposit"
	callList     = "list"
	callSummary  = "summary"
	callTokenize = "tokenize"
)

// shapes are the two shapes of the paired benchmarks:
//
//   - spec: the service spec's shape and today's canned answers: a
//     transaction wrapped as {"transaction":{…}}, codes as JSON integers.
//     The ogen client reads only the account summary there (the others miss
//     what the OpenAPI requires at their root, or have integer codes where
//     the OpenAPI has strings).
//   - openapi: the operator's OpenAPI's shape: bare objects, codes as
//     numeric strings ("status":"2"), every field the OpenAPI requires
//     present; TestOpenAPIAnswersValid validates each against the OpenAPI.
var shapes = []shape{
	{name: "spec", answers: specAnswers(), ogenReads: map[string]bool{callSummary: true}},
	{name: "openapi", answers: openapiAnswers(), ogenReads: map[string]bool{
		callGet: true, callDeposit: true, callList: true, callSummary: true, callTokenize: true}},
}

func specAnswers() *answers {
	return &answers{
		transaction: mustJSON(txEnvelope{Transaction: cannedTransaction(models.TypeAuthorize)}),
		deposit:     mustJSON(txEnvelope{Transaction: cannedTransaction(models.TypeDeposit)}),
		list:        mustJSON(listPage(cannedTransaction)),
		summary:     mustJSON(cannedSummary()),
		tokenize:    mustJSON(cannedTokenization()),
	}
}

// listPage is one page of GET /transactions: listPageSize transactions made
// by tx, {"transactions":[…]} as both shapes have it.
func listPage(tx func(models.TransactionType) *models.Transaction) map[string][]*models.Transaction {
	var items []*models.Transaction
	for i := range listPageSize {
		t := tx(models.TypeDeposit)
		t.TransactionID = fmt.Sprintf("10025812%07d", i)
		t.MerchantReference = fmt.Sprintf("order-%06d-payout", i)
		items = append(items, t)
	}
	return map[string][]*models.Transaction{"transactions": items}
}

// openapiTransaction is cannedTransaction with the running totals and
// payment fields the OpenAPI requires and the SDK models set too.
func openapiTransaction(typ models.TransactionType) *models.Transaction {
	t := cannedTransaction(typ)
	t.Paid, t.Refunded, t.Balance = "1250.00", "0.00", "1250.00"
	t.CompletedAt = 1700000007000
	p := t.Payment
	p.MerchantReference = t.MerchantReference
	p.Description = "Payout of order 000042"
	authorized := models.StatusAuthorized
	p.AuthorizationStatus, p.AuthorizationStatusMessage = &authorized, "Authorized"
	p.Pending, p.Paid, p.Refunded, p.Reversed, p.Balance = "0.00", "1250.00", "0.00", "0.00", "1250.00"
	p.CreatedAt, p.UpdatedAt, p.RecordVersion = 1700000000000, 1700000006000, 2
	return t
}

// openapiTransactionJSON is t in the OpenAPI's shape: bare, its codes as
// numeric strings, with the fields the OpenAPI requires that the SDK does
// not model (fixed values: no client is compared on them).
func openapiTransactionJSON(t *models.Transaction) map[string]any {
	m := jsonObject(t)
	stringify(m, "transactionType", "status")
	for k, v := range map[string]any{"pending": "0.00", "reversed": "0.00", "ip": "203.0.113.7"} {
		m[k] = v
	}
	p := m["payment"].(map[string]any)
	stringify(p, "paymentType")
	for k, v := range map[string]any{
		"merchant":                   map[string]any{"merchantId": creds.MerchantID, "name": "Demo Shop"},
		"fingerprint":                "fp-5c1d0e9a7b",
		"verification":               map[string]any{"status": "2", "mode": "1", "verifyCustomer": false},
		"auth":                       map[string]any{"status": 0, "message": "OK"},
		"authorization":              "auth-3f9a1c",
		"allowedPaymentProviderType": []any{1},
		"paymentFlow":                1,
	} {
		p[k] = v
	}
	return m
}

// openapiAccountJSON is the tokenize answer in the OpenAPI's shape: the
// account itself, bare, with its codes as numeric strings.
func openapiAccountJSON(a *models.Account) map[string]any {
	m := jsonObject(a)
	stringify(m, "type", "profile")
	stringify(m["verification"].(map[string]any), "type", "score")
	return m
}

func openapiAnswers() *answers {
	page := listPage(openapiTransaction)["transactions"]
	items := make([]any, len(page))
	for i, t := range page {
		items[i] = openapiTransactionJSON(t)
	}
	return &answers{
		transaction: mustJSON(openapiTransactionJSON(openapiTransaction(models.TypeAuthorize))),
		deposit:     mustJSON(openapiTransactionJSON(openapiTransaction(models.TypeDeposit))),
		list:        mustJSON(map[string]any{"transactions": items}),
		summary:     mustJSON(cannedSummary()),
		tokenize:    mustJSON(openapiAccountJSON(openapiTokenization().Account)),
	}
}

// openapiTokenization is cannedTokenization with what the OpenAPI's
// tokenize answer requires and the SDK models; its account number is the
// last four digits (the OpenAPI's answer has at most four).
func openapiTokenization() *models.Tokenization {
	t := cannedTokenization()
	t.Account.Name, t.Account.Profile, t.Account.Verified = "Adv Plus Banking", 1, true
	t.Account.AccountNumber = "0001"
	yes := true
	t.Account.Verification.HasEnoughFunds = &yes
	return t
}

// jsonObject is v as encoding/json writes it, read back as a JSON object
// (numbers as json.Number).
func jsonObject(v any) map[string]any {
	d := json.NewDecoder(bytes.NewReader(mustJSON(v)))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		panic(err)
	}
	return m
}

// stringify writes the numbers of m's keys as JSON strings ("2" for 2).
func stringify(m map[string]any, keys ...string) {
	for _, k := range keys {
		if n, ok := m[k].(json.Number); ok {
			m[k] = n.String()
		}
	}
}
