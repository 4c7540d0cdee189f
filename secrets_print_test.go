package bankpay

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"log/slog"
	"strings"
	"testing"

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
	auth := base64.StdEncoding.EncodeToString([]byte(creds.AccessID + ":" + creds.AccessKey))
	var forms []string
	for _, s := range []string{creds.AccessKey, auth} {
		forms = append(forms, s, hex.EncodeToString([]byte(s)), strings.ToUpper(hex.EncodeToString([]byte(s))),
			strings.Trim(fmt.Sprint([]byte(s)), "[]"), fmt.Sprintf("% x", s))
	}
	return forms
}

func assertNoSecretForm(t *testing.T, creds Credentials, what, out string) {
	t.Helper()
	for _, f := range secretForms(creds) {
		if strings.Contains(out, f) {
			t.Errorf("%s shows the key as %q: %s", what, f, out)
		}
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
	assert.Equal(t, "bankpay.Client{BaseURL:"+SandboxBaseURL+" Credentials:"+testCreds.String()+"}", fmt.Sprintf("%v", c))
	assert.Contains(t, fmt.Sprintf("%+v", *c), "AccessKey:[redacted]")
}

// slog (LogValue, and the JSON and text handlers) shows a Client and
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
	assert.Contains(t, logs, `"credentials":{"accessId":"test-access-id","accessKey":"[redacted]","merchantId":"1002463580"}`)
	assert.Contains(t, logs, `client.credentials.accessKey=[redacted]`)
	assertNoSecretForm(t, testCreds, "LogValue", c.LogValue().Resolve().String()+testCreds.LogValue().Resolve().String())
}
