package bench

import (
	"context"
	"fmt"
	"net/http"
	"strconv"

	"github.com/bankpay/bankpay-go/bench/ogenclient"
)

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
