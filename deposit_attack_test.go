package bankpay

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttack_MoneyCallAnsweredWithTheOriginal: a Deposit, Refund or
// Reclaim answered with the transaction it was made against (a cached or
// misrouted read: the authorization itself, its id the path's) is no
// deposit, refund or reclaim: a success would have the merchant record
// the authorization's id as the payout's. ErrInvalidResponse (outcome
// unknown: reconcile), never a success.
func TestAttack_MoneyCallAnsweredWithTheOriginal(t *testing.T) {
	const orig = `{"transaction":{"transactionId":"A1","transactionType":1,"status":2,"amount":"10.00"}}`
	for name, call := range map[string]func(c *Client) error{
		"Deposit": func(c *Client) error {
			_, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
			return err
		},
		"Refund": func(c *Client) error {
			_, err := c.Transactions.Refund(context.Background(), "A1", &RefundParams{MerchantReference: "r-1"})
			return err
		},
		"Capture": func(c *Client) error {
			_, err := c.Transactions.Capture(context.Background(), "A1", fullCaptureParams())
			return err
		},
		"Preauthorize": func(c *Client) error {
			_, err := c.Transactions.Preauthorize(context.Background(), "A1", &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 2})
			return err
		},
		"Reclaim": func(c *Client) error {
			_, err := c.Transactions.Reclaim(context.Background(), "A1", &ReclaimParams{MerchantReference: "rc-1", Amount: "1.00"})
			return err
		},
	} {
		for _, body := range []string{orig, `{"transactionId":"a1","transactionType":1,"status":2,"amount":"10.00"}`} {
			c, mock, _ := newTestClient(t)
			sequence(t, mock, jsonResponse(200, body))
			err := call(c)
			require.Error(t, err, "%s answered with the original %s: a success", name, body)
			var re *ResponseError
			assert.True(t, errors.As(err, &re), "%s: %v", name, err)
			assert.True(t, OutcomeUnknown(err), "%s: %v", name, err)
		}
	}
}

// TestAttack_DepositDuplicateMembers: a Deposit answered with its identity
// emptied by a repeated member (the last wins, as in encoding/json) is
// ErrInvalidResponse and OutcomeUnknown, never a deposit with no id or no
// amount.
func TestAttack_DepositDuplicateMembers(t *testing.T) {
	for _, body := range []string{
		`{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","transactionId":""}}`,
		`{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","TransactionID":""}}`,
		`{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","transaction\u0049d":""}}`,
		`{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00","amount":""}`,
	} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, body))
		txn, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
		require.Error(t, err, "%s: read as %+v", body, txn)
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
		assert.True(t, OutcomeUnknown(err), body)
	}
}

// TestAttack_GetAnsweredWithAnother: Transactions.Get(T1) or Cancel(T1)
// answered with another transaction (a cache or proxy mixing answers up)
// read as T1's: its status (Completed: ship) taken for T1's.
func TestAttack_GetAnsweredWithAnother(t *testing.T) {
	const other = `{"transaction":{"transactionId":"T2","transactionType":6,"status":4,"amount":"10.00"}}`
	for name, call := range map[string]func(c *Client) error{
		"Get": func(c *Client) error {
			_, err := c.Transactions.Get(context.Background(), "T1")
			return err
		},
		"Cancel": func(c *Client) error {
			_, err := c.Transactions.Cancel(context.Background(), "T1", nil)
			return err
		},
	} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, other))
		err := call(c)
		require.Error(t, err, "%s(T1) answered with T2: a success", name)
		assert.ErrorIs(t, err, ErrInvalidResponse, name)
	}
	// The same transaction, its id in another case, is T1.
	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(200, `{"transaction":{"transactionId":"t1","transactionType":6,"status":4,"amount":"10.00"}}`))
	_, err := c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
}

// aboutID is a fixture transaction answer with its transactionId replaced
// by id: an answer to Get(id) or Cancel(id), which must be about the
// transaction asked (TestAttack_GetAnsweredWithAnother).
func aboutID(body, id string) string {
	q, err := json.Marshal(id)
	if err != nil {
		panic(err)
	}
	all := regexp.MustCompile(`"transactionId"\s*:\s*"[^"]*"`).FindAllStringIndex(body, -1)
	if len(all) != 1 {
		panic("aboutID: not one transactionId in " + body)
	}
	loc := all[0]
	return body[:loc[0]] + `"transactionId":` + string(q) + body[loc[1]:]
}
