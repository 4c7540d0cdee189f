package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func attackReviewClient(t *testing.T, h http.HandlerFunc) *Client {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	c, err := NewClient(Credentials{AccessID: "id", AccessKey: NewSecret("key0123456789abcdef"), MerchantID: "m"},
		WithBaseURL(srv.URL), WithRetryBackoff(0, 0))
	require.NoError(t, err)
	return c
}

// A caller's WithHeader("Idempotency-Key", K) on Disputes.Create is
// silently replaced by a random key: the same call repeated after a restart
// is a second dispute recovery.
func TestAttackReviewDisputeWithHeaderIdempotencyKeyIgnored(t *testing.T) {
	var got []string
	c := attackReviewClient(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Values("Idempotency-Key")...)
		_, _ = w.Write([]byte(`{"transaction":{"transactionId":"R1"}}`))
	})
	_, err := c.Disputes.Create(context.Background(), &DisputeParams{TransactionID: "T1", Amount: "1.00"},
		WithHeader("Idempotency-Key", "order-42"))
	// Fixed: the header option is refused before anything is sent; the key
	// goes in DisputeParams.IdempotencyKey.
	var ve *ValidationError
	if assert.ErrorAs(t, err, &ve, "Idempotency-Key by header: err %v, sent %q; want a *ValidationError on header and nothing sent", err, got) {
		assert.Equal(t, "header", ve.Field, "Idempotency-Key by header: err %v, sent %q; want a *ValidationError on header and nothing sent", err, got)
	}
	assert.Empty(t, got, "Idempotency-Key by header: err %v, sent %q; want a *ValidationError on header and nothing sent", err, got)
}

// A server that returns the same full page for every startIndex: List
// (and FindByMerchantReference) never ends on its own.
func TestAttackReviewFindRepeatedFullPageLoops(t *testing.T) {
	var pages atomic.Int64
	c := attackReviewClient(t, func(w http.ResponseWriter, r *http.Request) {
		pages.Add(1)
		items := make([]map[string]any, 100)
		for i := range items {
			items[i] = map[string]any{"transactionId": fmt.Sprint("X", i), "merchantReference": "other"}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"transactions": items})
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err := c.Transactions.FindByMerchantReference(ctx, &FindParams{MerchantReference: "mine"})
	assert.LessOrEqual(t, pages.Load(), int64(3), "FINDING: FindByMerchantReference read %d pages of the same repeated page (err %v); it ends only by the caller's deadline", pages.Load(), err)
	assert.NotErrorIs(t, err, ErrNotFound, "err %v, want ErrInvalidResponse (never ErrNotFound: that says pay again)", err)
	assert.ErrorIs(t, err, ErrInvalidResponse, "err %v, want ErrInvalidResponse (never ErrNotFound: that says pay again)", err)
}

// Offset paging over a growing list: the matching transaction shows up at
// the end of one page and again at the start of the next. It is one
// transaction, not two (ErrAmbiguous before).
func TestAttackReviewFindShiftedDuplicateIsOne(t *testing.T) {
	c := attackReviewClient(t, func(w http.ResponseWriter, r *http.Request) {
		items := []map[string]any{}
		switch r.URL.Query().Get("startIndex") {
		case "0":
			for i := range 99 {
				items = append(items, map[string]any{"transactionId": fmt.Sprint("X", i), "merchantReference": "other"})
			}
			fallthrough
		case "100": // shifted down a page by a newer transaction
			items = append(items, map[string]any{"transactionId": "M", "merchantReference": "mine"})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"transactions": items})
	})
	got, err := c.Transactions.FindByMerchantReference(context.Background(), &FindParams{MerchantReference: "mine"})
	require.NoError(t, err, "got %v, %v; want M", got, err)
	require.Equal(t, "M", got.TransactionID, "got %v, %v; want M", got, err)
}

// An error body that writes an account number or tax id in groups joined by
// something other than one '-', '/', ' ' or '.' reaches APIError.Message
// (and every log line and CLI error) whole.
func TestAttackReviewErrorMessageMasksGroupedNumbers(t *testing.T) {
	c := attackReviewClient(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = w.Write([]byte(`{"errorsList":[{"code":200,"message":"account 1234_5678_9012, 1234  5678  9012 or taxId 123–45–6789 invalid, limit 1,000.00"}]}`))
	})
	_, err := c.Transactions.Get(context.Background(), "T1")
	require.Error(t, err, "want the 400")
	for _, s := range []string{"1234_5678_9012", "5678", "9012", "123–45–6789", "6789"} {
		assert.NotContains(t, err.Error(), s, "error text keeps %q: %v", s, err)
	}
	assert.Contains(t, err.Error(), "limit 1,000.00", "the amount is masked: %v", err)
}
