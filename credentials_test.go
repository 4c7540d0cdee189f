package bankpay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// printVerbs are every fmt verb, some with flags.
var printVerbs = []string{
	"%v", "%+v", "%#v", "%T", "%s", "%q", "%x", "%X", "% x", "%#x", "%t", "%d", "%b", "%o", "%O", "%c", "%U",
	"%e", "%E", "%f", "%F", "%g", "%G", "%p", "%#p", "%w", "%z", "%08x", "%-40s", "%+q", "%#q",
}

// secretForms are the forms in which a printed value could show the key.
func secretForms(creds Credentials) []string {
	auth := base64.StdEncoding.EncodeToString([]byte(creds.AccessID + ":" + creds.AccessKey.Reveal()))
	var forms []string
	for _, s := range []string{creds.AccessKey.Reveal(), auth} {
		forms = append(forms, s, hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s))),
			strings.Trim(fmt.Sprint([]byte(s)), "[]"), fmt.Sprintf("% x", s))
	}
	return forms
}

func assertNoSecretForm(t *testing.T, creds Credentials, what, out string) {
	t.Helper()
	for _, f := range secretForms(creds) {
		assert.NotContains(t, out, f, "%s shows the key as %q: %s", what, f, out)
	}
}

// holder is a merchant's value that holds a Client.
type holder struct {
	Client  *Client
	Value   Client
	private *Client
}

// Every fmt verb of a *Client, a Client value, a struct holding them and
// the services prints no form of the access key or the Basic header.
func TestClientPrintsNoSecret(t *testing.T) {
	c, err := NewClient(testCreds)
	require.NoError(t, err)
	values := map[string]any{
		"*Client": c, "Client": *c, "holder": holder{c, *c, c}, "*holder": &holder{c, *c, c},
		"Transactions": c.Transactions, "Accounts": c.Accounts, "Customers": c.Customers, "Identity": c.Identity,
		"zero Client": Client{},
	}
	for name, v := range values {
		for _, verb := range printVerbs {
			assertNoSecretForm(t, testCreds, name+" "+verb, fmt.Sprintf(verb, v))
		}
		assertNoSecretForm(t, testCreds, name+" Sprint", fmt.Sprint(v)+fmt.Sprintln(v))
	}
	// Format has a pointer receiver: a *Client (and a struct holding one)
	// prints as its base URL and accessId with every verb; a Client value
	// prints its fields, whose credentials are behind a pointer (checked
	// above with every verb).
	want := "bankpay.Client{BaseURL:" + SandboxBaseURL + " AccessID:test-access-id}"
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		assert.Equal(t, want, fmt.Sprintf(verb, c), verb)
	}
	assert.Equal(t, "{"+want+"}", fmt.Sprintf("%v", struct{ C *Client }{c}))
	assert.Equal(t, "<nil>", fmt.Sprintf("%v", (*Client)(nil)))
	assert.NotContains(t, fmt.Sprintf("%+v", *c), "AccessID:", "a Client value prints its fields, not Format's text")
}

// slog (the JSON and text handlers) shows a Client and
// Credentials redacted.
func TestClientAndCredentialsLogNoSecret(t *testing.T) {
	c, err := NewClient(testCreds)
	require.NoError(t, err)
	var out bytes.Buffer
	for _, h := range []slog.Handler{slog.NewJSONHandler(&out, nil), slog.NewTextHandler(&out, nil)} {
		l := slog.New(h)
		l.Info("client", "client", c, "value", *c, "creds", testCreds, "credsPtr", &testCreds, "holder", holder{c, *c, c})
		l.Info("group", slog.Group("g", "client", c, "creds", testCreds))
	}
	logs := out.String()
	assertNoSecretForm(t, testCreds, "slog", logs)
	assert.Contains(t, logs, `"creds":{"AccessID":"test-access-id","AccessKey":{},"MerchantID":"1002463580"}`)
	assert.Contains(t, logs, `creds="{AccessID:test-access-id AccessKey:[redacted] MerchantID:1002463580}"`)
}

// credsHolder is a merchant's config holding Credentials.
type credsHolder struct {
	Creds   Credentials
	Ptr     *Credentials
	private Credentials
}

// Every fmt verb of Credentials (%p included, which no Format method
// sees), of a pointer to them, of a struct holding them and of the Secret
// prints no form of the key.
func TestCredentialsPrintNoSecret(t *testing.T) {
	creds := testCreds
	values := map[string]any{
		"Credentials": creds, "*Credentials": &creds, "holder": credsHolder{creds, &creds, creds},
		"*holder": &credsHolder{creds, &creds, creds}, "Secret": creds.AccessKey, "*Secret": &creds.AccessKey,
		"[]Credentials": []Credentials{creds}, "map": map[string]Credentials{"k": creds},
	}
	for name, v := range values {
		for _, verb := range printVerbs {
			assertNoSecretForm(t, creds, name+" "+verb, fmt.Sprintf(verb, v))
		}
	}
	assert.Equal(t, "{test-access-id [redacted] 1002463580}", fmt.Sprintf("%v", creds))
	//lint:ignore S1025 the %s verb is what is tested
	assert.Equal(t, "[redacted]", fmt.Sprintf("%s", creds.AccessKey))
	assert.Equal(t, `""`, Secret{}.String())
	assert.Equal(t, "s3cret-access-key", creds.AccessKey.Reveal())
	j, err := json.Marshal(credsHolder{Creds: creds, Ptr: &creds})
	require.NoError(t, err)
	assertNoSecretForm(t, creds, "JSON", string(j))
}

// failureLog is a testing.T that keeps what a failing assertion prints.
type failureLog struct{ strings.Builder }

func (f *failureLog) Errorf(format string, args ...any) { fmt.Fprintf(&f.Builder, format, args...) }

// testify's failing assert.Equal prints its values with %#v and a diff made
// by go-spew, which follows pointers, reads unexported fields and ignores
// String methods: neither shows the key of two Credentials, Secrets or
// Clients that differ.
func TestTestifyDiffsShowNoSecret(t *testing.T) {
	other := Credentials{AccessID: "other-access-id", AccessKey: NewSecret("0ther-access-key-9"), MerchantID: "1002463581"}
	c1, err := NewClient(testCreds)
	require.NoError(t, err)
	c2, err := NewClient(other, WithBaseURL("https://api.bankpay.test/api/v1"))
	require.NoError(t, err)
	// Keyed HMAC states are cached once a Client signs.
	for _, c := range []*Client{c1, c2} {
		require.NoError(t, c.SignEstablishData(disbursementParams()))
	}
	pairs := map[string][2]any{
		"Credentials":  {testCreds, other},
		"*Credentials": {&testCreds, &other},
		"Secret":       {testCreds.AccessKey, other.AccessKey},
		"holder":       {credsHolder{testCreds, &testCreds, testCreds}, credsHolder{other, &other, other}},
		"*Client":      {c1, c2},
		"Client":       {*c1, *c2},
	}
	for name, p := range pairs {
		var out failureLog
		assert.False(t, assert.Equal(&out, p[0], p[1]), name)
		require.Contains(t, out.String(), "Diff:", "%s: testify printed a diff", name)
		assertNoSecretForm(t, testCreds, name+" diff", out.String())
		assertNoSecretForm(t, other, name+" diff", out.String())
	}
	// A copy is equal to its original; keys are compared with Reveal.
	copied := testCreds
	assert.Equal(t, testCreds, copied)
	assert.Equal(t, testCreds.AccessKey.Reveal(), NewSecret("s3cret-access-key").Reveal())
}

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
