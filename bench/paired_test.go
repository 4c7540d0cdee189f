package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// pairEnv is one loopback server, answering in one shape, with the clients
// of a pair: the SDK, the hand-written baseline and the ogen client share
// the server and its *http.Client (and so the connection pool), so that a
// pair differs only by the client code.
type pairEnv struct {
	srv  *cannedServer
	sdk  *bankpay.Client
	bare *bareClient
	ogen *ogenCaller
}

func newPairEnv(tb testing.TB, sh shape) *pairEnv {
	tb.Helper()
	srv := newCannedServer(tb, sh.answers)
	hc := srv.Client()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.baseURL()), bankpay.WithHTTPClient(hc))
	require.NoError(tb, err)
	o, err := newOgenCaller(srv.baseURL(), hc)
	require.NoError(tb, err)
	return &pairEnv{srv: srv, sdk: c, ogen: o, bare: &bareClient{hc: hc, base: srv.baseURL(), auth: basicAuth(creds.AccessID, creds.AccessKey.Reveal())}}
}

// bareClient is the baseline: what a merchant would write by hand with
// net/http, encoding/json and net/url, and nothing else. It decodes into the
// same wire types as the SDK, so that both sides decode the same JSON into
// the same structs.
type bareClient struct {
	hc   *http.Client
	base string
	auth string
}

func (c *bareClient) do(ctx context.Context, method, path, contentType string, body io.Reader, out any) error {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", c.auth)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	defer func() {
		_, _ = io.Copy(io.Discard, resp.Body) // keep the connection reusable
		_ = resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s %s: HTTP %d", method, path, resp.StatusCode)
	}
	return json.NewDecoder(resp.Body).Decode(out)
}

func (c *bareClient) getTransaction(ctx context.Context, id string) (*models.Transaction, error) {
	var env txEnvelope
	if err := c.do(ctx, http.MethodGet, "/transactions/"+url.PathEscape(id), "", nil, &env); err != nil {
		return nil, err
	}
	if env.Transaction == nil {
		return nil, fmt.Errorf("no transaction")
	}
	return env.Transaction, nil
}

func (c *bareClient) deposit(ctx context.Context, id, ref string, amount models.Amount) (*models.Transaction, error) {
	form := url.Values{"merchantReference": {ref}, "amount": {string(amount)}}
	var env txEnvelope
	if err := c.do(ctx, http.MethodPost, "/transactions/"+url.PathEscape(id)+"/deposit",
		"application/x-www-form-urlencoded", strings.NewReader(form.Encode()), &env); err != nil {
		return nil, err
	}
	if env.Transaction == nil {
		return nil, fmt.Errorf("no transaction")
	}
	return env.Transaction, nil
}

func (c *bareClient) summary(ctx context.Context, id string) (*models.AccountSummary, error) {
	var s models.AccountSummary
	if err := c.do(ctx, http.MethodGet, "/transactions/"+url.PathEscape(id)+"/accountSummary", "", nil, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

func (c *bareClient) tokenize(ctx context.Context, accountNumber, routingNumber string) (*models.Tokenization, error) {
	body, err := json.Marshal(&models.Tokenization{
		MerchantID: creds.MerchantID,
		Account:    &models.Account{AccountNumber: accountNumber, RoutingNumber: routingNumber, Type: 1},
	})
	if err != nil {
		return nil, err
	}
	var t models.Tokenization
	if err := c.do(ctx, http.MethodPost, "/accounts/tokenize?verifyAccount=true", "application/json", bytes.NewReader(body), &t); err != nil {
		return nil, err
	}
	return &t, nil
}

// sink keeps the results alive so that nothing is optimised away (every
// result is a pointer: storing it allocates nothing).
var sink any

// Typed sinks of the sandbox and parallel benchmarks.
var (
	sinkTx      *models.Transaction
	sinkSummary *models.AccountSummary
	sinkToken   *models.Tokenization
)

// clientCall is one benchmarked call of each client, in one shape.
type clientCall struct {
	sdk, base, ogen func() (any, error)
}

var (
	depositParams  = &bankpay.DepositParams{MerchantReference: "order-000042-payout", Amount: "1250.00"}
	tokenizeParams = &bankpay.TokenizeParams{AccountNumber: "100000001", RoutingNumber: "124003116", AccountType: 1, VerifyAccount: true}
	listParams     = &bankpay.TransactionListParams{ListRange: bankpay.ListRange{Count: listPageSize}}
)

// call returns the clients' functions of the named call (callGet…) against
// e, whose server answers in shape sh: the baseline reads the spec's shape
// into the SDK's models, the OpenAPI's into its own types.
func (e *pairEnv) call(sh shape, name string) clientCall {
	spec := sh.name == "spec"
	switch name {
	case callGet:
		return clientCall{
			sdk:  func() (any, error) { return e.sdk.Transactions.Get(ctx, txID) },
			base: pick(spec, func() (any, error) { return e.bare.getTransaction(ctx, txID) }, func() (any, error) { return e.bare.oaGetTransaction(ctx, txID) }),
			ogen: func() (any, error) { return e.ogen.getTransaction(ctx, txID) },
		}
	case callDeposit:
		ref, amount := depositParams.MerchantReference, depositParams.Amount
		return clientCall{
			sdk:  func() (any, error) { return e.sdk.Transactions.Deposit(ctx, authID, depositParams) },
			base: pick(spec, func() (any, error) { return e.bare.deposit(ctx, authID, ref, amount) }, func() (any, error) { return e.bare.oaDeposit(ctx, authID, ref, amount) }),
			ogen: func() (any, error) { return e.ogen.deposit(ctx, authID, ref, string(amount)) },
		}
	case callList:
		return clientCall{
			sdk:  func() (any, error) { return e.sdk.Transactions.ListPage(ctx, listParams) },
			base: pick(spec, func() (any, error) { return e.bare.listTransactions(ctx, 0, listPageSize) }, func() (any, error) { return e.bare.oaListTransactions(ctx, 0, listPageSize) }),
			ogen: func() (any, error) { return e.ogen.listTransactions(ctx, listPageSize) },
		}
	case callSummary:
		return clientCall{
			sdk:  func() (any, error) { return e.sdk.Accounts.Summary(ctx, txID) },
			base: func() (any, error) { return e.bare.summary(ctx, txID) }, // no codes: one type for both shapes
			ogen: func() (any, error) { return e.ogen.summary(ctx, txID) },
		}
	case callTokenize:
		an, rn := tokenizeParams.AccountNumber, tokenizeParams.RoutingNumber
		return clientCall{
			sdk:  func() (any, error) { return e.sdk.Accounts.Tokenize(ctx, tokenizeParams) },
			base: pick(spec, func() (any, error) { return e.bare.tokenize(ctx, an, rn) }, func() (any, error) { return e.bare.oaTokenize(ctx, an, rn) }),
			ogen: func() (any, error) { return e.ogen.tokenize(ctx, an, rn) },
		}
	}
	panic("bench: no call " + name)
}

func pick[T any](first bool, a, b T) T {
	if first {
		return a
	}
	return b
}

// timed is f with its result kept in sink.
func timed(f func() (any, error)) func() error {
	return func() (err error) { sink, err = f(); return }
}

// benchCall runs the named call's pair in each shape: the SDK, the
// baseline and, where it can read the shape's answer, the ogen client.
func benchCall(b *testing.B, name string) {
	for _, sh := range shapes {
		b.Run(sh.name, func(b *testing.B) {
			c := newPairEnv(b, sh).call(sh, name)
			sides := []side{{"sdk", timed(c.sdk)}, {"baseline", timed(c.base)}}
			if sh.ogenReads[name] {
				sides = append(sides, side{"ogen", timed(c.ogen)})
			}
			compare(b, "", sides)
		})
	}
}

func BenchmarkGetTransaction(b *testing.B) { benchCall(b, callGet) }
func BenchmarkDeposit(b *testing.B)        { benchCall(b, callDeposit) }
func BenchmarkAccountSummary(b *testing.B) { benchCall(b, callSummary) }
func BenchmarkTokenize(b *testing.B)       { benchCall(b, callTokenize) }

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
