package bankpay

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
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
	assert.Equal(t, "bankpay.Client{BaseURL:"+SandboxBaseURL+" AccessID:test-access-id}", fmt.Sprintf("%+v", *c))
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
