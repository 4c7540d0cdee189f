package bankpay

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// reencodedCreated is the createdAt of FuzzWebhookReencoded's notifications.
var reencodedCreated = time.UnixMilli(1700000000000).UTC()

// signedNotification is a notification message the service would sign: form
// fields (values raw, as the URL-decoded body reads) or a JSON object, whose
// keys are \u-escaped when escKeys.
func signedNotification(eventID, value string, asJSON, escKeys bool) string {
	if !asJSON {
		return "eventId=" + eventID + "&createdAt=1700000000000&eventType=Authorize&status=2&message=" + value +
			"&merchantReference=order-1&paymentProviderTransaction.status=AC100"
	}
	key := func(k string) string {
		if !escKeys {
			return `"` + k + `"`
		}
		var b strings.Builder
		b.WriteByte('"')
		for _, r := range k {
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		return b.String() + `"`
	}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return "{" + key("eventId") + ":" + str(eventID) + "," + key("createdAt") + `:"1700000000000",` +
		key("eventType") + `:"Authorize",` + key("status") + `:"2",` + key("message") + ":" + str(value) + "," +
		key("paymentProviderTransaction") + ":{" + key("status") + `:"AC100"}}`
}

// encodeVariant returns a body that URL-decodes to msg: mask picks, byte by
// byte, %XX (upper or lower hex) or the byte itself, and "+" or %20 for a
// space; "%" and "+" are always encoded.
func encodeVariant(msg string, mask []byte) string {
	var b strings.Builder
	for i := 0; i < len(msg); i++ {
		var m byte
		if len(mask) > 0 {
			m = mask[i%len(mask)] >> (uint(i/len(mask)) % 4)
		}
		hex := "%%%02X"
		if m&2 != 0 {
			hex = "%%%02x"
		}
		switch c := msg[i]; {
		case c == '%' || c == '+' || m&1 != 0:
			fmt.Fprintf(&b, hex, c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// signedAs reports whether the signed form message msg carries name=value
// as one of its "&"-separated parts, or as the start of one whose value
// runs over parts without "=" (the test's own reading of the message).
func signedAs(msg, name, value string) bool {
	want := name + "=" + value
	for i := 0; i+len(want) <= len(msg); i++ {
		if (i == 0 || msg[i-1] == '&') && strings.HasPrefix(msg[i:], want) &&
			(i+len(want) == len(msg) || msg[i+len(want)] == '&') {
			return true
		}
	}
	return false
}

// FuzzWebhookReencoded feeds the webhook handler re-encodings of signed
// notifications (any byte percent-encoded, "&" and "=" and key letters
// included, "+" or %20 for spaces, JSON with escaped keys) and checks that
// the callback never sees a field that was not signed as that field: every
// re-encoding reads exactly the event of the service's own encoding, a
// Deduplicator runs the callback once for all of them, and a body that does
// not decode to the signed message is refused.
func FuzzWebhookReencoded(f *testing.F) {
	f.Add("ev-1", "Authorized by the user", []byte{1}, false, false, uint16(0))
	f.Add("ev-1", "a&createdAt=1&b", []byte{0, 1, 3}, false, false, uint16(0))
	f.Add("ev&eventId=ev-2", "x", []byte{0xff}, false, false, uint16(0))
	f.Add("ev=1", "100% + more", []byte{2, 1}, false, false, uint16(0x8005))
	f.Add("ev-1", "Farmers & Merchants", []byte{5, 0, 7}, true, false, uint16(0))
	f.Add(`ev"1`, `a\b`, []byte{1, 0}, true, true, uint16(0x8011))
	f.Add("", "", []byte{}, false, false, uint16(0))
	f.Fuzz(func(t *testing.T, eventID, value string, mask []byte, asJSON, escKeys bool, mutate uint16) {
		msg := signedNotification(eventID, value, asJSON, escKeys)
		if len(msg) > 4096 {
			return
		}
		canonical, variant := encodeVariant(msg, nil), encodeVariant(msg, mask)
		m, err := url.QueryUnescape(variant)
		require.NoError(t, err, "test bug: %q decodes to %q, %v", variant, m, err)
		require.Equal(t, msg, m, "test bug: %q decodes to %q, %v", variant, m, err)
		ct := formType
		if asJSON {
			ct = "application/json"
			// A JSON body without "%" is read as sent: a "+" in it is a
			// "+" (TestXCheckEventJSONLiteralPlus), not a space. The
			// re-encodings compared here are read from the URL-decoded
			// body: each has a "%" (spaces as %20), or is msg itself.
			canonical = strings.ReplaceAll(canonical, "+", "%20") // its "+" are spaces: msg's are %2B
			if !strings.Contains(variant, "%") {
				variant = canonical
			}
		}
		auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), canonical)
		clock := func() time.Time { return reencodedCreated.Add(time.Minute) }

		// Without a Deduplicator: the variant reads the canonical event.
		var seen []*Event
		h := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { seen = append(seen, ev); return nil },
			WithWebhookClock(clock))
		cw, vw := post(t, h, canonical, auth, ct), post(t, h, variant, auth, ct)
		require.Equal(t, vw.Code, cw.Code, "canonical %d, variant %d: %q", cw.Code, vw.Code, variant)
		if cw.Code != http.StatusOK {
			require.Equal(t, http.StatusBadRequest, cw.Code, "status %d, %d calls", cw.Code, len(seen))
			require.Len(t, seen, 0, "status %d, %d calls", cw.Code, len(seen))
			return
		}
		require.Len(t, seen, 2, "the variant read another event: %+v / %+v", seen[0], seen[len(seen)-1])
		require.Equal(t, seen[1], seen[0], "the variant read another event: %+v / %+v", seen[0], seen[len(seen)-1])
		ev := seen[1]
		require.True(t, ev.CreatedAt.Equal(reencodedCreated), "createdAt %v", ev.CreatedAt)

		// Every field read was signed as that field.
		if asJSON {
			var doc map[string]any
			err := json.Unmarshal([]byte(msg), &doc)
			require.NoError(t, err, "accepted a message json.Unmarshal refuses: %v", err)
			want := url.Values{}
			for k, v := range doc {
				if sub, ok := v.(map[string]any); ok {
					for sk, sv := range sub {
						want.Set(k+"."+sk, sv.(string))
					}
					continue
				}
				want.Set(k, v.(string))
			}
			require.Equal(t, want, ev.Raw, "read %v, signed %v", ev.Raw, want)
		} else {
			for k, vs := range ev.Raw {
				require.Len(t, vs, 1, "field %q=%q was not signed as such in %q", k, vs, msg)
				require.True(t, signedAs(msg, k, vs[0]), "field %q=%q was not signed as such in %q", k, vs, msg)
			}
			if !strings.Contains(eventID+value, "&") {
				require.Equal(t, eventID, ev.EventID, "eventId %q message %q, signed %q %q", ev.EventID, ev.Message, eventID, value)
				require.Equal(t, value, ev.Message, "eventId %q message %q, signed %q %q", ev.EventID, ev.Message, eventID, value)
			}
		}

		// With a Deduplicator: once for both encodings.
		calls := 0
		dh := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { calls++; return nil },
			WithWebhookClock(clock), WithDeduplicator(NewMemoryDeduplicator(4)))
		for _, body := range []string{canonical, variant, canonical} {
			w := post(t, dh, body, auth, ct)
			require.Equal(t, http.StatusOK, w.Code, "deduplicated delivery: %d", w.Code)
		}
		require.Equal(t, 1, calls, "the callback ran %d times for one signed event", calls)

		// A body that decodes to another message is refused.
		if mutate&0x8000 != 0 && len(variant) > 0 {
			b := []byte(variant)
			i := int(mutate&0x7fff) % len(b)
			b[i] ^= byte(mutate>>8) | 1
			if m, err := url.QueryUnescape(string(b)); (err != nil || m != msg) && string(b) != msg {
				before := len(seen)
				w := post(t, h, string(b), auth, ct)
				require.Equal(t, http.StatusUnauthorized, w.Code, "a changed body: status %d", w.Code)
				require.Len(t, seen, before, "a changed body: status %d", w.Code)
			}
		}
	})
}
