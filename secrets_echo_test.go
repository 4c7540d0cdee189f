package bankpay

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// echoServer plays a server (or proxy) that echoes what the client sent:
// the Authorization header, the access key it carries (raw, URL-encoded,
// and base64 of id:key) and an account number, in every field of an error
// response, next to an amount. The path picks the shape of the response.
func echoServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		pair, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(auth, "Basic "))
		_, key, _ := strings.Cut(string(pair), ":")
		echo := fmt.Sprintf("amount exceeds 100.00 for account 1002000000; got Authorization: %s, key %s, id:key %s, encoded %s %s %s",
			auth, key, base64.StdEncoding.EncodeToString(pair), url.QueryEscape(key), url.PathEscape(key), base64.URLEncoding.EncodeToString([]byte(key)))
		quoted, _ := json.Marshal(echo)
		switch {
		case strings.HasSuffix(r.URL.Path, "/items"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"errors":[{"domain":%s,"code":200,"message":%s,"location":%s,"occurredAt":%s},{"domain":%s,"code":330,"message":%s}]}`,
				quoted, quoted, quoted, quoted, quoted, quoted)
		case strings.HasSuffix(r.URL.Path, "/bare"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"message":%s,"code":300}`, quoted)
		default: // a proxy's HTML page, the key near the excerpt's cut
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			head := "<html>amount exceeds 100.00 for account 1002000000 "
			fmt.Fprintf(w, "%s%s%s %s</html>", head, strings.Repeat("x", maxExcerpt-6-len(head)), key, echo)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestEchoedSecretsRedacted(t *testing.T) {
	for _, creds := range []Credentials{
		testCreds,
		{AccessID: "echo-id", AccessKey: NewSecret("k3y/with+special&chars=?é"), MerchantID: "1002463580"},
	} {
		t.Run(creds.AccessID, func(t *testing.T) {
			srv := echoServer(t)
			var logs syncBuffer
			handlers := slog.New(fanout{
				slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
				slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}),
			})
			c, err := NewClient(creds, WithBaseURL(srv.URL+"/api/v1"), WithMaxRetries(0), WithLogger(handlers))
			require.NoError(t, err)
			defer func() { _ = c.Close() }()

			var texts []string
			for _, path := range []string{"/echo/items", "/echo/bare", "/echo/html"} {
				req, err := newRequest(http.MethodGet, path, nil, nil)
				require.NoError(t, err)
				err = c.do(context.Background(), req, &struct{}{}, nil)
				var ae *APIError
				require.ErrorAs(t, err, &ae, path)
				texts = append(texts, err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", ae), ae.Message, ae.Domain, ae.Body)
				for _, it := range ae.Errors {
					texts = append(texts, it.Domain, it.Message, it.Location, it.OccurredAt)
				}
				if path != "/echo/html" {
					assert.Contains(t, ae.Message, "amount exceeds 100.00 for account [redacted]", path)
				} else {
					assert.Contains(t, ae.Body, "amount exceeds 100.00", path)
				}
			}
			texts = append(texts, logs.String())
			all := strings.Join(texts, "\n")
			require.Contains(t, logs.String(), `"level":"WARN"`)
			require.Contains(t, logs.String(), `level=WARN`)
			pair := creds.AccessID + ":" + creds.AccessKey.Reveal()
			for _, secret := range []string{
				creds.AccessKey.Reveal(), url.QueryEscape(creds.AccessKey.Reveal()), url.PathEscape(creds.AccessKey.Reveal()),
				base64.StdEncoding.EncodeToString([]byte(pair)), base64.URLEncoding.EncodeToString([]byte(creds.AccessKey.Reveal())),
				"1002000000",
			} {
				assert.NotContains(t, all, secret)
			}
			// Nor a large part of the key, cut by the excerpt.
			assert.NotContains(t, all, creds.AccessKey.Reveal()[:len(creds.AccessKey.Reveal())/2])
		})
	}
}

// fanout sends every record to several handlers.
type fanout []slog.Handler

func (f fanout) Enabled(ctx context.Context, l slog.Level) bool { return f[0].Enabled(ctx, l) }

func (f fanout) Handle(ctx context.Context, r slog.Record) error {
	for _, h := range f {
		if err := h.Handle(ctx, r.Clone()); err != nil {
			return err
		}
	}
	return nil
}

func (f fanout) WithAttrs(as []slog.Attr) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithAttrs(as)
	}
	return out
}

func (f fanout) WithGroup(name string) slog.Handler {
	out := make(fanout, len(f))
	for i, h := range f {
		out[i] = h.WithGroup(name)
	}
	return out
}

func TestMaskKeepsAmounts(t *testing.T) {
	for in, want := range map[string]string{
		"amount exceeds 100.00":             "amount exceeds 100.00",
		"balance 12345.67 too low":          "balance 12345.67 too low",
		"limit 1,000,000.00":                "limit 1,000,000.00",
		"account 1002000000.":               "account [redacted].",
		"account 1002000000 amount 250.00":  "account [redacted] amount 250.00",
		"dob 1990.01.02":                    "dob [redacted]",
		"ref 1234567890.12":                 "ref [redacted]",
		"ip 10.0.0.123":                     "ip [redacted]",
		"ssn 123-45-6789 owes 10000.50 USD": "ssn [redacted] owes 10000.50 USD",
		"12345.678":                         "[redacted]",
	} {
		assert.Equal(t, want, mask(in), in)
	}
}

// An echo cut short (a server's clip of a quoted value, a proxy's
// truncated header) is redacted too, and the error of a 2xx response that
// cannot be decoded names the field but quotes neither a key nor an account
// number it holds.
func TestEchoedSecretsCutShortAndInDecodeErrors(t *testing.T) {
	creds := Credentials{AccessID: "echo-id", AccessKey: NewSecret("Zq-secret-key-for-echo-tests-ABCDEFGH"), MerchantID: "1002463580"}
	key := creds.AccessKey.Reveal()
	auth := base64.StdEncoding.EncodeToString([]byte(creds.AccessID + ":" + key))
	mock := httpmock.NewMockTransport()
	c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}))
	require.NoError(t, err)
	for _, status := range []string{key, "acct 1002000000"} {
		sequence(t, mock, jsonResponse(200, `{"transaction":{"transactionId":"1","status":"`+status+`"}}`))
		_, err := c.Transactions.Get(context.Background(), "1")
		var re *ResponseError
		require.ErrorAs(t, err, &re)
		require.Error(t, re.Err, "the cause stays")
		// A decode error names the field, never the value it could not read.
		assert.Contains(t, err.Error(), "transaction.status")
		assert.NotContains(t, err.Error(), key[:minEcho])
		assert.NotContains(t, err.Error(), "1002000000")
	}
	sequence(t, mock, jsonResponse(401, `{"errors":[{"code":300,"message":"bad key `+key[:14]+`… in Basic `+auth[:20]+`…"}]}`))
	_, err = c.Transactions.Get(context.Background(), "1")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.Equal(t, "bad key [redacted]… in Basic [redacted]…", ae.Message)
}

// No error in the chain of an undecodable 2xx response quotes the value:
// error reporters walk Unwrap and would send it out.
func TestDecodeErrorChainQuotesNoValue(t *testing.T) {
	creds := Credentials{AccessID: "echo-id", AccessKey: NewSecret("Zq-secret-key-for-chain-tests"), MerchantID: "1002463580"}
	mock := httpmock.NewMockTransport()
	c, err := NewClient(creds, WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock}))
	require.NoError(t, err)
	for _, field := range []string{`"transactionType":"%s"`, `"status":"%s"`} {
		value := creds.AccessKey.Reveal() + " 1002000000"
		sequence(t, mock, jsonResponse(200, `{"transaction":{"transactionId":"1",`+strings.Replace(field, "%s", value, 1)+`}}`))
		_, err := c.Transactions.Get(context.Background(), "1")
		require.ErrorIs(t, err, ErrInvalidResponse)
		for e := err; e != nil; e = errors.Unwrap(e) {
			assert.NotContains(t, e.Error(), "Zq-secret", field)
			assert.NotContains(t, e.Error(), "1002000000", field)
		}
	}
}
