package pipeline

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzRetryAfterCap: a huge Retry-After is never waited for: the retry
// rule stops (the retry half of the root's FuzzErrorBody, whose seeds it
// shares).
func FuzzRetryAfterCap(f *testing.F) {
	f.Add(uint16(502), "120")
	f.Add(uint16(500), "86400")
	f.Add(uint16(503), "Wed, 21 Oct 2099 07:28:00 GMT")
	f.Add(uint16(429), "99999999999999999999")
	f.Add(uint16(404), "-1")
	f.Add(uint16(500), "0")
	const maxRetryAfter = 30 * time.Second // the SDK's default cap
	f.Fuzz(func(t *testing.T, status uint16, retryAfterHeader string) {
		st := 400 + int(status)%200 // 400 to 599
		resp := &http.Response{StatusCode: st, Header: http.Header{}}
		if retryAfterHeader != "" {
			resp.Header.Set("Retry-After", retryAfterHeader)
		}
		if d, ok := RetryAfter(resp); ok && d > maxRetryAfter && st == 503 {
			a := &Call{cfg: Config{MaxRetryAfter: maxRetryAfter}, retryAll: true, count: 1}
			retry, _ := a.checkRetry(context.Background(), resp, nil)
			require.False(t, retry, "retry after a Retry-After of %v", d)
		}
	})
}

// A request's context is its Call: a middleware that prints or logs it
// (fmt, encoding/json, slog) must get no account number of the body, no
// WithHeader value and no Idempotency-Key, as with context.WithValue.
func TestCallAsContextPrintsNoSecrets(t *testing.T) {
	body := []byte(`{"accountNumber":"12345678"}`)
	a := &Call{Request: Request{Method: http.MethodPost, Path: "/accounts/tokenize", Body: body, ContentType: ContentTypeJSON,
		StateChanging: true, Idempotent: true, Header: http.Header{"Idempotency-Key": {"key-2f1c9a"}}}}
	a.cfg = Config{BaseURL: "https://h.example/api/v1", Header: http.Header{"X-Partner-Token": {"tok-7e3b"}}}
	a.init(&a.Request)
	hr, err := a.build(context.Background(), nil)
	require.NoError(t, err)
	ctx := hr.Context()
	require.Same(t, a, attemptOf(ctx))

	var out []string
	for _, verb := range []string{"%v", "%+v", "%#v", "%s", "%q", "%x"} {
		out = append(out, fmt.Sprintf(verb, ctx))
	}
	js, err := json.Marshal(ctx)
	require.NoError(t, err)
	out = append(out, string(js))
	var logged bytes.Buffer
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("request", "ctx", ctx)
	slog.New(slog.NewTextHandler(&logged, nil)).Info("request", "ctx", ctx)
	out = append(out, logged.String())
	for _, s := range out {
		for _, secret := range []string{"12345678", base64.StdEncoding.EncodeToString(body), hex.EncodeToString(body)[:16], "key-2f1c9a", "tok-7e3b"} {
			assert.NotContains(t, s, secret)
		}
	}
	assert.Equal(t, "context.Background.WithValue(pipeline.attemptKey, *pipeline.Call)", fmt.Sprint(ctx), "named as context.WithValue named it")
}
