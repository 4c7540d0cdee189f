package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// accountSecrets are the account data a server could echo into an error
// response: IBANs (digits only, alphanumeric, grouped by four), an account
// number and a tax id.
var accountSecrets = []string{
	"DE89370400440532013000", "MT84MALT011000012345MTLCAST001S", "GB82 WEST 1234 5698 7654 32", "1000001700", "999-00-1234",
}

// The error responses of the verify, tokenize, feedback and lookup calls,
// echoing account data in every field and shape (errors, errorsList, a bare
// message, a proxy's HTML page), never show it in an error, its fields or
// a log line; the amount next to it stays.
func TestAccountDataEchoedRedacted(t *testing.T) {
	echo := "amount 125.00 refused: account " + strings.Join(accountSecrets, ", ") + " is closed"
	quoted, _ := json.Marshal(echo)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/v1/accounts/verify":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"errors":[{"domain":%s,"code":330,"message":%s,"location":%s,"occurredAt":%s}]}`, quoted, quoted, quoted, quoted)
		case "/api/v1/customers/lookup":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"isInTrustlyNetwork":false,"errorsList":[{"domain":%s,"code":200,"message":%s,"location":%s}]}`, quoted, quoted, quoted)
		case "/api/v1/feedback":
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"message":%s}`, quoted)
		default:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html>%s</html>", echo)
		}
	}))
	defer srv.Close()
	var logs syncBuffer
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0),
		WithLogger(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	require.NoError(t, err)
	defer func() { _ = c.Close() }()
	ctx := context.Background()

	var texts []string
	for name, call := range map[string]func() error{
		"Verify": func() error {
			_, err := c.Accounts.Verify(ctx, &AccountVerifyParams{IBAN: "DE89370400440532013000"})
			return err
		},
		"Tokenize": func() error {
			_, err := c.Accounts.Tokenize(ctx, &TokenizeParams{IBAN: "DE89370400440532013000"})
			return err
		},
		"Feedback": func() error { return c.Accounts.Feedback(ctx, feedbackParams()) },
		"Lookup":   func() error { _, err := c.Customers.Lookup(ctx, "jane@example.com", "+15125550100"); return err },
	} {
		err := call()
		var ae *APIError
		require.ErrorAs(t, err, &ae, name)
		assert.True(t, strings.Contains(ae.Message, "amount 125.00") || strings.Contains(ae.Body, "amount 125.00"), "%s: the rest of the text stays: %+v", name, ae)
		texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), ae.Message, ae.Domain, ae.Body)
		for _, it := range ae.Errors {
			texts = append(texts, it.Domain, it.Message, it.Location, it.OccurredAt)
		}
	}
	require.Contains(t, logs.String(), `"level":"WARN"`)
	all := strings.Join(append(texts, logs.String()), "\n")
	for _, s := range accountSecrets {
		assert.NotContains(t, all, s)
	}
	for _, part := range []string{"MTLCAST001S", "5698 7654", "WEST 1234", "0532013000", "+15125550100"} {
		assert.NotContains(t, all, part)
	}
}

func TestMaskIBANs(t *testing.T) {
	for in, want := range map[string]string{
		"iban DE89370400440532013000 invalid":       "iban [redacted] invalid",
		"iban MT84MALT011000012345MTLCAST001S.":     "iban [redacted].",
		"iban GB82 WEST 1234 5698 7654 32 closed":   "iban [redacted] closed",
		"(NL91ABNA0417164300) amount 10.00 USD":     "([redacted]) amount 10.00 USD",
		"code AB12 is short; US 100.00; XY99ZZ":     "code AB12 is short; US 100.00; XY99ZZ",
		"ERROR CODE 330: INVALID ACCOUNT":           "ERROR CODE 330: INVALID ACCOUNT",
		"account DE89370400440532013000, 50.00 due": "account [redacted], 50.00 due",
	} {
		assert.Equal(t, want, mask(in), in)
	}
}
