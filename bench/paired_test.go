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
