package bankpay

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const refreshPath = "/api/v1/transactions/1002581234567/refresh"

func TestTransactionsRefresh(t *testing.T) {
	// The OpenAPI's shape, {"refresh":{…}}, and a bare one.
	for name, resp := range map[string]string{
		"wrapped": `{"refresh":{"processId":"7f3c9a01"}}`,
		"bare":    `{"processId":"7f3c9a01"}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "POST", Path: refreshPath, ContentType: "application/json",
				Body: `{"splitToken":"c3Bs+dG9r/ZW4="}`}, 200, resp)
			id, err := c.Transactions.Refresh(context.Background(), "1002581234567", "c3Bs+dG9r/ZW4=")
			require.NoError(t, err)
			assert.Equal(t, "7f3c9a01", id)
			assert.EqualValues(t, 1, calls.Load())
		})
	}
}

func TestTransactionsRefreshRejects(t *testing.T) {
	for _, tc := range []struct{ name, id, token, field string }{
		{"empty id", "", "tok", "transactionId"},
		{"dot id", ".", "tok", "transactionId"},
		{"no split token", "1", "", "splitToken"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Transactions.Refresh(context.Background(), tc.id, tc.token)
				return err
			})
		})
	}
}

func TestTransactionsRefreshErrors(t *testing.T) {
	want := wantRequest{Method: "POST", Path: refreshPath, ContentType: "application/json", Body: `{"splitToken":"tok"}`}
	call := func(c *Client) error {
		_, err := c.Transactions.Refresh(context.Background(), "1002581234567", "tok")
		return err
	}
	checkErrorResponses(t, want, call)
	for _, body := range []string{`<html>`, `{"refresh":{"processId":"7f`, `{}`, `{"refresh":null}`, `{"refresh":{}}`, `{"refresh":{"processId":""}}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, want, http.StatusOK, body)
		err := call(c)
		var re *ResponseError
		require.ErrorAs(t, err, &re, body)
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
		assert.Equal(t, "/transactions/1002581234567/refresh", re.Path)
	}
}
