package bankpay

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// captureDefaultLog points slog.Default() at a buffer for the test and
// restores it after. Tests that use it must not run in parallel with
// others (none of this package's do).
func captureDefaultLog(t *testing.T) *syncBuffer {
	t.Helper()
	old := slog.Default()
	var buf syncBuffer
	slog.SetDefault(slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	t.Cleanup(func() { slog.SetDefault(old) })
	return &buf
}

// inProgressStore claims every event as held by another delivery.
type inProgressStore struct{ failingStore }

func (inProgressStore) Claim(context.Context, string) (ClaimState, string, error) {
	return ClaimInProgress, "", nil
}

// refusalCase is one refusal the handler logs by default: the request,
// its status, the line's message and the reason it gives.
type refusalCase struct {
	name   string
	h      http.Handler
	body   string
	auth   string // "" signs body with hookCreds, "-" sends none
	status int
	msg    string // the line's message
	reason string // in its reason or error attribute ("" when it has none)
}

// refusalCases are the refusals of TestWebhookHandlerDefaultLogSaysWhy.
func refusalCases(t *testing.T) []refusalCase {
	key := hookCreds.AccessKey.Reveal()
	fresh := eventBody("ev-log", "Authorize")
	failing := func(context.Context, *Event) error { return errors.New("order service down") }
	malformed := strings.Replace(fresh, "status=2", "status=two", 1)
	return []refusalCase{
		{"stale", NewWebhookHandler(hookCreds, nil), eventBodyAt("ev-old", "Authorize", time.Now().Add(-25*time.Hour)), "",
			http.StatusBadRequest, "bankpay: webhook: stale event rejected", ""},
		{"future-dated", NewWebhookHandler(hookCreds, nil), eventBodyAt("ev-new", "Authorize", time.Now().Add(10*time.Minute)), "",
			http.StatusBadRequest, "bankpay: webhook: future-dated event rejected", ""},
		{"bad signature", NewWebhookHandler(hookCreds, nil), fresh, authFor(t, hookCreds.AccessID, "another-key", fresh),
			http.StatusUnauthorized, "bankpay: webhook: request rejected", "invalid signature"},
		{"wrong accessId", NewWebhookHandler(hookCreds, nil), fresh, authFor(t, "someone-else", key, fresh),
			http.StatusUnauthorized, "bankpay: webhook: request rejected", "wrong accessId"},
		{"no signature", NewWebhookHandler(hookCreds, nil), fresh, "-",
			http.StatusUnauthorized, "bankpay: webhook: request rejected", "no Authorization header"},
		{"malformed", NewWebhookHandler(hookCreds, nil), malformed, "",
			http.StatusBadRequest, "bankpay: webhook: request rejected", "malformed event"},
		{"too large", NewWebhookHandler(hookCreds, nil, withMaxEventBytes(64)), fresh, "",
			http.StatusRequestEntityTooLarge, "bankpay: webhook: request rejected", "body over the cap"},
		{"no credentials", NewWebhookHandler(Credentials{}, nil), fresh, "",
			http.StatusInternalServerError, "bankpay: webhook: request rejected", "accessId and accessKey are required"},
		{"store unreachable", NewWebhookHandler(hookCreds, nil, WithDeduplicator(failingStore{claimErr: errors.New("dial redis://user:pw@db")})), fresh, "",
			http.StatusInternalServerError, "bankpay: webhook: de-duplication store failed", ""},
		{"in progress", NewWebhookHandler(hookCreds, nil, WithDeduplicator(inProgressStore{})), fresh, "",
			http.StatusConflict, "bankpay: webhook: event already in progress", ""},
		{"callback failed", NewWebhookHandler(hookCreds, failing), fresh, "",
			http.StatusInternalServerError, "bankpay: webhook: callback failed", "order service down"},
	}
}

// TestWebhookHandlerDefaultLogSaysWhy: without WithLogger, each refusal
// logs one warn line to slog.Default() with its reason, never the body,
// the key or personal data; an accepted event logs nothing.
func TestWebhookHandlerDefaultLogSaysWhy(t *testing.T) {
	key := hookCreds.AccessKey.Reveal()
	signed := func(body string) string { return authFor(t, hookCreds.AccessID, key, body) }
	fresh := eventBody("ev-log", "Authorize")
	cases := refusalCases(t)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			buf := captureDefaultLog(t)
			auth := tc.auth
			switch auth {
			case "":
				auth = signed(tc.body)
			case "-":
				auth = ""
			}
			w := post(t, tc.h, tc.body, auth, formType)
			require.Equal(t, tc.status, w.Code)
			lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
			require.Len(t, lines, 1, "one line: %s", buf.String())
			var line map[string]any
			require.NoError(t, json.Unmarshal([]byte(lines[0]), &line), lines[0])
			assert.Equal(t, "WARN", line["level"], lines[0])
			assert.Equal(t, tc.msg, line["msg"], lines[0])
			assert.EqualValues(t, tc.status, line["status"], lines[0])
			if tc.reason != "" {
				got, _ := line["reason"].(string)
				if got == "" {
					got, _ = line["error"].(string)
				}
				assert.Contains(t, got, tc.reason, lines[0])
			}
			for _, secret := range []string{key, "order-42", "two", "pw@db", "redis", tc.body, auth, "remoteAddr"} {
				if secret != "" {
					assert.NotContains(t, lines[0], secret)
				}
			}
		})
	}
	t.Run("accepted is quiet", func(t *testing.T) {
		buf := captureDefaultLog(t)
		w := postSigned(t, NewWebhookHandler(hookCreds, nil, WithDeduplicator(NewMemoryDeduplicator(100))), fresh)
		require.Equal(t, http.StatusOK, w.Code)
		assert.Empty(t, buf.String())
	})
	t.Run("WithLogger keeps the default quiet", func(t *testing.T) {
		buf := captureDefaultLog(t)
		var own syncBuffer
		h := NewWebhookHandler(hookCreds, nil, WithLogger(slog.New(slog.NewTextHandler(&own, nil))))
		w := post(t, h, fresh, "", formType)
		require.Equal(t, http.StatusUnauthorized, w.Code)
		assert.Empty(t, buf.String())
		assert.Contains(t, own.String(), "request rejected")
	})
}
