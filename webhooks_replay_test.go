package bankpay

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeMessage returns a body that URL-decodes to msg: the bytes for
// which pick is true, and every "%" and "+", as %XX (upper or lower hex),
// spaces as "+" unless picked, the others as they are.
func encodeMessage(msg string, lower bool, pick func(i int, c byte) bool) string {
	format := "%%%02X"
	if lower {
		format = "%%%02x"
	}
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		switch c := msg[i]; {
		case pick(i, c) || c == '%' || c == '+':
			fmt.Fprintf(&b, format, c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// reencodings are bodies that URL-decode to the same message as body: the
// attacks of issue 10, hole 2, and a few more.
func reencodings(t *testing.T, body string) map[string]string {
	msg, err := url.QueryUnescape(body)
	require.NoError(t, err)
	all := func(int, byte) bool { return true }
	return map[string]string{
		"createdAt%3D":          strings.Replace(body, "createdAt=", "createdAt%3D", 1),
		"createdAt%3d":          strings.Replace(body, "createdAt=", "createdAt%3d", 1),
		"eventId%3D":            strings.Replace(body, "eventId=", "eventId%3D", 1),
		"&eventId%3D":           strings.Replace(body, "&eventId=", "%26eventId%3D", 1),
		"every & as %26":        strings.ReplaceAll(body, "&", "%26"),
		"every = as %3D":        strings.ReplaceAll(body, "=", "%3D"),
		"%65ventId":             strings.Replace(body, "eventId", "%65ventId", 1),
		"%63reatedAt":           strings.Replace(body, "createdAt", "%63reatedAt", 1),
		"every byte, upper hex": encodeMessage(msg, false, all),
		"every byte, lower hex": encodeMessage(msg, true, all),
		"every other byte":      encodeMessage(msg, true, func(i int, _ byte) bool { return i%2 == 0 }),
		"letters only":          encodeMessage(msg, false, func(_ int, c byte) bool { return isLetter(c) }),
		"spaces as %20":         encodeMessage(msg, false, func(_ int, c byte) bool { return c == ' ' }),
		"JSON quotes as %22":    strings.ReplaceAll(body, `"`, "%22"),
	}
}

// replayBodies are captured genuine notifications, form and JSON, created
// at created, with spaces in a value.
func replayBodies(created time.Time) map[string][2]string {
	ms := fmt.Sprint(created.UnixMilli())
	form := "merchantId=M1&merchantReference=order-42&paymentType=2&transactionType=1&eventId=ev-captured" +
		"&eventType=Authorize&objectId=100258123456789&objectType=Transaction&message=Authorized+by+the+user" +
		"&timeZone=UTC&createdAt=" + ms + "&status=2&statusMessage=Authorized&paymentProviderTransaction.status=AC100"
	js := `{"eventId":"ev-captured-json","eventType":"Authorize","createdAt":"` + ms + `","message":"Authorized by the user",` +
		`"status":"2","paymentProviderTransaction":{"status":"AC100"}}`
	return map[string][2]string{"form": {form, formType}, "json": {js, "application/json"}}
}

// TestWebhookReencodedReplays (issue 10, hole 2): a captured signed event,
// replayed in any encoding, verifies (the signature covers the URL-decoded
// body) but reads the same eventId and createdAt: twice within the max age
// it is a duplicate, after the max age it is stale, and the callback sees
// it once with the fields that were signed.
func TestWebhookReencodedReplays(t *testing.T) {
	created := time.UnixMilli(1700000000000).UTC()
	for shape, captured := range replayBodies(created) {
		body, ct := captured[0], captured[1]
		auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body)
		clock := created.Add(time.Minute)
		var got []*Event
		var logs bytes.Buffer
		dups := func() int { return len(logLines(logs.String(), "duplicate event")) }
		h := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { got = append(got, ev); return nil },
			WithDeduplicator(NewMemoryDeduplicator(10)), WithWebhookClock(func() time.Time { return clock }),
			WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
		require.Equal(t, http.StatusOK, post(t, h, body, auth, ct).Code, shape)
		require.Len(t, got, 1)
		first := got[0]
		assert.Equal(t, "Authorized by the user", first.Message)

		// Every variant reads exactly the captured event.
		var plain []*Event
		ph := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { plain = append(plain, ev); return nil },
			WithWebhookClock(func() time.Time { return clock }))
		variants := reencodings(t, body)
		for name, v := range variants {
			if v == body {
				continue // nothing to re-encode in this shape
			}
			require.NoError(t, VerifyNotification([]byte(v), auth, hookCreds), "%s/%s: the attack must verify", shape, name)
			ev, err := ParseEvent([]byte(v), ct)
			require.NoError(t, err, "%s/%s", shape, name)
			assert.Equal(t, first.Raw, ev.Raw, "%s/%s", shape, name)

			// Within the max age: a duplicate, acknowledged, no callback.
			w := post(t, h, v, auth, ct)
			assert.Equal(t, http.StatusOK, w.Code, "%s/%s", shape, name)
			// Without a Deduplicator the callback sees the signed fields.
			if w := post(t, ph, v, auth, ct); assert.Equal(t, http.StatusOK, w.Code, "%s/%s", shape, name) {
				got := plain[len(plain)-1]
				assert.Equal(t, first.EventID, got.EventID, "%s/%s", shape, name)
				assert.Equal(t, first.CreatedAt, got.CreatedAt, "%s/%s", shape, name)
				assert.Equal(t, first.Raw, got.Raw, "%s/%s", shape, name)
			}
		}
		assert.Len(t, got, 1, "%s: the callback ran again for a replay", shape)
		assert.Positive(t, dups())

		// After the max age: stale in every encoding, with or without a
		// Deduplicator that remembers it.
		clock = created.Add(defaultMaxEventAge + time.Second)
		fresh := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { got = append(got, ev); return nil },
			WithDeduplicator(NewMemoryDeduplicator(10)), WithWebhookClock(func() time.Time { return clock }))
		variants["as captured"] = body
		for name, v := range variants {
			for _, hh := range []http.Handler{h, fresh} {
				assert.Equal(t, http.StatusBadRequest, post(t, hh, v, auth, ct).Code, "%s/%s after the max age", shape, name)
			}
		}
		assert.Len(t, got, 1, "%s: a stale replay reached the callback", shape)
	}
}

// TestWebhookHandlerProviderStatusCodes: letter codes of
// paymentProviderTransaction.status (AC100, AC105, SW020) are accepted and
// kept; they used to get a 4 response00, and the event lost after 12 hours.
func TestWebhookHandlerProviderStatusCodes(t *testing.T) {
	for _, code := range []string{"AC100", "AC105", "SW020", "10", "UC01"} {
		var got *TransactionEvent
		h := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error {
			got = ev.Transaction
			return nil
		})
		body := minimal("ev-"+code, "Authorize", "status=2", "paymentProviderTransaction.status="+code)
		if w := postSigned(t, h, body); assert.Equal(t, http.StatusOK, w.Code, code) && assert.NotNil(t, got) {
			assert.Equal(t, code, string(got.ProviderStatus))
		}
	}
}

// dripPost sends body to addr with a valid signature, one byte every gap,
// and returns the response's status and how long it took; the connection
// gives up after 5 seconds.
func dripPost(t *testing.T, addr, body string, gap time.Duration) (int, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", addr)
	require.NoError(t, err)
	defer conn.Close()
	start := time.Now()
	_, err = fmt.Fprintf(conn, "POST /bankpay/events HTTP/1.1\r\nHost: shop.example\r\nContent-Type: %s\r\n"+
		"Authorization: %s\r\nContent-Length: %d\r\n\r\n", formType, authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body), len(body))
	require.NoError(t, err)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		for i := 0; i < len(body); i++ {
			select {
			case <-stop:
				return
			case <-time.After(gap):
			}
			if _, err := conn.Write([]byte{body[i]}); err != nil {
				return
			}
		}
	}()
	require.NoError(t, conn.SetReadDeadline(time.Now().Add(5*time.Second)))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, time.Since(start) // the server closed the connection
	}
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// TestWebhookHandlerReadDeadline (issue 10, hole 8): on a real loopback
// server with no timeouts of its own, a client that drip-feeds a signed body
// is cut off at the handler's read timeout and responded 408; a server's
// shorter ReadTimeout is kept; and a callback slower than the read timeout
// keeps its context (net/http lifts the deadline once the body is read).
func TestWebhookHandlerReadDeadline(t *testing.T) {
	var calls atomic.Int32
	count := func(context.Context, *Event) error { calls.Add(1); return nil }
	body := eventBody("ev-drip", "Authorize") // ~400 bytes: 20 s at one byte per 50 ms

	srv := httptest.NewServer(NewWebhookHandler(hookCreds, count, WithEventReadTimeout(200*time.Millisecond)))
	defer srv.Close()
	code, took := dripPost(t, srv.Listener.Addr().String(), body, 50*time.Millisecond)
	assert.Equal(t, http.StatusRequestTimeout, code)
	assert.Less(t, took, 2*time.Second)

	// The handler's default (5 s) does not extend a server's shorter
	// ReadTimeout.
	short := httptest.NewUnstartedServer(NewWebhookHandler(hookCreds, count))
	short.Config.ReadTimeout = 200 * time.Millisecond
	short.Start()
	defer short.Close()
	_, took = dripPost(t, short.Listener.Addr().String(), body, 50*time.Millisecond)
	assert.Less(t, took, 2*time.Second)
	assert.Zero(t, calls.Load(), "a drip-fed body reached the callback")

	// A slow callback keeps its context, and the connection serves the
	// next request.
	var ctxErr atomic.Value
	slow := httptest.NewServer(NewWebhookHandler(hookCreds, func(ctx context.Context, ev *Event) error {
		time.Sleep(300 * time.Millisecond) // longer than the read timeout: the real clock is the point
		ctxErr.Store(fmt.Sprint(ctx.Err()))
		return nil
	}, WithEventReadTimeout(100*time.Millisecond)))
	defer slow.Close()
	client := slow.Client()
	for i, id := range []string{"ev-slow-1", "ev-slow-2"} {
		b := eventBody(id, "Authorize")
		req, err := http.NewRequest(http.MethodPost, slow.URL, strings.NewReader(b))
		require.NoError(t, err)
		req.Header.Set("Content-Type", formType)
		req.Header.Set("Authorization", authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), b))
		resp, err := client.Do(req)
		require.NoError(t, err, "request %d", i)
		resp.Body.Close()
		assert.Equal(t, http.StatusOK, resp.StatusCode, "request %d", i)
		assert.Equal(t, "<nil>", ctxErr.Load(), "request %d: the callback's context was canceled", i)
	}
}
