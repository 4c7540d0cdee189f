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

// pairEnv is one loopback server with the two clients of a pair: the SDK and
// the hand-written baseline share the server and its *http.Client (and so
// the connection pool), so that a pair differs only by the client code.
type pairEnv struct {
	srv  *cannedServer
	sdk  *bankpay.Client
	bare *bareClient
}

func newPairEnv(tb testing.TB) *pairEnv {
	tb.Helper()
	srv := newCannedServer(tb)
	hc := srv.Client()
	c, err := bankpay.NewClient(creds, bankpay.WithBaseURL(srv.baseURL()), bankpay.WithHTTPClient(hc))
	require.NoError(tb, err)
	return &pairEnv{srv: srv, sdk: c, bare: &bareClient{hc: hc, base: srv.baseURL(), auth: basicAuth(creds.AccessID, creds.AccessKey.Reveal())}}
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

// Sinks keep the results alive so that nothing is optimised away.
var (
	sinkTx      *models.Transaction
	sinkSummary *models.AccountSummary
	sinkToken   *models.Tokenization
)

func BenchmarkGetTransaction(b *testing.B) {
	e := newPairEnv(b)
	pair(b, "",
		func() (err error) { sinkTx, err = e.sdk.Transactions.Get(ctx, txID); return },
		func() (err error) { sinkTx, err = e.bare.getTransaction(ctx, txID); return })
}

var depositParams = &bankpay.DepositParams{MerchantReference: "order-000042-payout", Amount: "1250.00"}

func BenchmarkDeposit(b *testing.B) {
	e := newPairEnv(b)
	pair(b, "",
		func() (err error) { sinkTx, err = e.sdk.Transactions.Deposit(ctx, txID, depositParams); return },
		func() (err error) {
			sinkTx, err = e.bare.deposit(ctx, txID, depositParams.MerchantReference, depositParams.Amount)
			return
		})
}

func BenchmarkAccountSummary(b *testing.B) {
	e := newPairEnv(b)
	pair(b, "",
		func() (err error) { sinkSummary, err = e.sdk.Accounts.Summary(ctx, txID); return },
		func() (err error) { sinkSummary, err = e.bare.summary(ctx, txID); return })
}

var tokenizeParams = &bankpay.TokenizeParams{AccountNumber: "100000001", RoutingNumber: "124003116", AccountType: 1, VerifyAccount: true}

func BenchmarkTokenize(b *testing.B) {
	e := newPairEnv(b)
	pair(b, "",
		func() (err error) { sinkToken, err = e.sdk.Accounts.Tokenize(ctx, tokenizeParams); return },
		func() (err error) {
			sinkToken, err = e.bare.tokenize(ctx, tokenizeParams.AccountNumber, tokenizeParams.RoutingNumber)
			return
		})
}
