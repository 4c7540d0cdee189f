package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAttack_LookupCommandQuoted: exit 5 prints a command to paste; a
// reference with a space or shell characters (the SDK allows them) was
// printed bare: pasted, "-ref order 42; touch x" looks up "order" and runs
// what follows.
func TestAttack_LookupCommandQuoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.WriteHeader(http.StatusBadGateway)
	}))
	defer srv.Close()
	vars := map[string]string{"BANKPAY_ACCESS_ID": "id", "BANKPAY_ACCESS_KEY": "secretkey0123456789", "BANKPAY_MERCHANT_ID": "m", "BANKPAY_BASE_URL": srv.URL}
	var errOut strings.Builder
	e := &env{getenv: func(k string) string { return vars[k] }, stdin: strings.NewReader(""), stdout: io.Discard, stderr: &errOut}
	code := run(context.Background(), []string{"deposit", "-ref", "order 42; touch x's", "-amount", "1.00", "A1"}, e)
	require.Equal(t, exitUncertain, code, errOut.String())
	assert.Contains(t, errOut.String(), `-ref 'order 42; touch x'\''s'`, errOut.String())
}
