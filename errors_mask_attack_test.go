package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// maskEchoServer answers every call with the echo the test sets, as a JSON
// error (Message, Errors) or as an HTML 502 (Body).
func maskEchoServer(t *testing.T) (*Client, *string, *strings.Builder) {
	echo := new(string)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		if r.Header.Get("X-Shape") == "html" {
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprintf(w, "<html>502: %s</html>", *echo)
			return
		}
		q, _ := json.Marshal(*echo)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"errors":[{"code":200,"message":%s,"location":%s}]}`, q, q)
	}))
	t.Cleanup(srv.Close)
	var logs strings.Builder
	logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	c, err := NewClient(testCreds, WithBaseURL(srv.URL+"/api/v1"), WithHTTPClient(srv.Client()), WithLogger(logger), WithMaxRetries(0))
	require.NoError(t, err)
	return c, echo, &logs
}

// TestAttack_MaskEchoVariants: the personal values of a Customers.Create
// body echoed back in forms other than the ones masked today.
func TestAttack_MaskEchoVariants(t *testing.T) {
	c, echo, logs := maskEchoServer(t)
	params := &CustomerParams{Name: "José O'Brien", ExternalID: "cust-42", Email: "jane.doe@example.com",
		Phone: "+15125550100", DateOfBirth: "1990-01-02", TaxID: "123-45-6789",
		Address: &models.Address{Address1: "500 Congress Ave", City: "Austin", State: "TX", Zip: "78701", Country: "US"}}
	for _, tc := range []struct{ name, echo, secret string }{
		{"URL-escaped, mixed case", "to Jane.Doe%40Example.com", "Jane.Doe%40Example.com"},
		{"JSON \\u0040 (raw body)", `{"detail":"jane.doe\u0040example.com"}`, `jane.doe\u0040example.com`},
		{"JSON \\u00e9 (raw body)", `{"detail":"Jos\u00e9"}`, `Jos\u00e9`},
		{"upper URL-escaped", "JANE.DOE%40EXAMPLE.COM", "JANE.DOE%40EXAMPLE.COM"},
		{"email local part alone", "user jane.doe unknown", "jane.doe"},
		{"email in another case", "Jane.Doe@Example.Com", "Jane.Doe@Example.Com"},
		{"name upper case", "JOSÉ", "JOSÉ"},
		{"street split", "Congress Ave 500", "Congress"},
		{"plus-escaped email", "jane.doe%2540example.com", "jane.doe%2540example.com"},
		{"HTML entity @", "jane.doe&#64;example.com", "jane.doe&#64;example.com"},
		{"JSON \\u00E9 upper hex", `"JOS\u00C9"`, `JOS\u00C9`},
		{"phone without plus", "15125550100x", "15125550100"},
	} {
		for _, shape := range []string{"json", "html"} {
			*echo = tc.echo
			logs.Reset()
			_, err := c.Customers.Create(context.Background(), params, WithHeader("X-Shape", shape))
			var ae *APIError
			require.ErrorAs(t, err, &ae)
			for _, text := range []string{err.Error(), ae.Message, ae.Body, fmt.Sprint(ae.Errors), logs.String()} {
				if strings.Contains(text, tc.secret) {
					t.Errorf("%s (%s): %q leaks in %q", tc.name, shape, tc.secret, text)
					break
				}
			}
		}
	}
}
