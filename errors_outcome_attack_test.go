package bankpay

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestAttack_OutcomeUnknownOnTheWire: a Deposit whose answer is lost or
// broken in each way a wire can break it is OutcomeUnknown (reconcile,
// never pay again).
func TestAttack_OutcomeUnknownOnTheWire(t *testing.T) {
	const okBody = `{"transaction":{"transactionId":"D1","transactionType":6,"status":2,"amount":"10.00"}}`
	for name, h := range map[string]http.HandlerFunc{
		"hang up after reading": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			conn, _, _ := w.(http.Hijacker).Hijack()
			_ = conn.Close()
		},
		"truncated 200": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			conn, buf, _ := w.(http.Hijacker).Hijack()
			_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n" + okBody[:40])
			_ = buf.Flush()
			_ = conn.Close()
		},
		"202 empty": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusAccepted)
		},
		"204": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusNoContent)
		},
		"200 html": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = io.WriteString(w, "<html>ok</html>")
		},
		"200 errors body": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = io.WriteString(w, `{"errors":[{"code":100,"message":"internal"}]}`)
		},
		"502 gateway": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.WriteHeader(http.StatusBadGateway)
		},
		"400 code 100": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_, _ = io.WriteString(w, `{"errors":[{"code":100,"message":"internal"}]}`)
		},
		"200 then garbage": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.ReadAll(r.Body)
			_, _ = io.WriteString(w, okBody+`{"transaction":{}}`)
		},
	} {
		srv := httptest.NewServer(h)
		c, err := NewClient(testCreds, WithBaseURL(srv.URL), WithMaxRetries(0), WithRetryBackoff(0, 0))
		if err != nil {
			t.Fatal(err)
		}
		txn, err := c.Transactions.Deposit(context.Background(), "A1", &DepositParams{MerchantReference: "payout-42", Amount: "10.00"})
		srv.Close()
		assert.Nil(t, txn, name)
		assert.True(t, OutcomeUnknown(err), "%s: %v", name, err)
	}
}
