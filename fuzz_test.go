package bankpay

import (
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// isJSONBody reports whether a body ParseEvent accepted was read as JSON.
func isJSONBody(body []byte, contentType string) bool {
	if contentType == "" {
		msg, _ := url.QueryUnescape(string(body))
		return strings.HasPrefix(strings.TrimSpace(msg), "{")
	}
	return strings.Contains(contentType, "json")
}

// The fuzz targets run their seed corpus with every `go test`; explore with
// `go test -fuzz=FuzzVerifyNotification -fuzztime=30s` (one target at a time).
// Each checks, independently of the code under test, that an accepted input
// was signed with the key.

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(processForm), formType)
	f.Add([]byte(eventBody("ev-1", "Authorize")), "")
	f.Add([]byte("eventId=e&eventType=IdentityVerificationDataRetrieved&Provider+Report+Status=SUCCESS"), formType)
	f.Add([]byte("eventId=e&eventType=CustomerIdentityVerified&Identity+Verified=FINISHED&KYC+Result=FINISHED"), formType)
	f.Add([]byte(`{"eventId":"e","eventType":"Completed","status":4,"paymentProviderTransaction":{"status":10}}`), "application/json")
	f.Add([]byte(`{"a":[{"b":[1,{"c":null}]}],"createdAt":"2023-11-14T22:13:20Z"}`), "application/json; charset=utf-8")
	f.Add([]byte("eventId=%zz"), formType)
	f.Add([]byte(`[1,2]`), "application/json")
	f.Add([]byte("status=Cancelled&createdAt=1.7e12"), "text/plain")
	f.Add([]byte(""), "")
	f.Add([]byte("eventId=e&createdAt=1&fiName=A+%26+B&a%3Db=c"), formType)
	f.Add([]byte("%7B%22eventId%22:%22e%22,%22createdAt%22:1%7D"), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		ev, err := ParseEvent(body, contentType)
		// What a form (or a JSON body sent URL-encoded) reads depends on
		// the URL-decoded body alone: another encoding of it reads the
		// same. A JSON object is read as sent.
		if msg, uerr := url.QueryUnescape(string(body)); uerr == nil && !rawJSONObject(body, contentType) {
			ev2, err2 := ParseEvent([]byte(url.QueryEscape(msg)), contentType)
			require.Equal(t, err == nil, err2 == nil, "re-encoded: %+v %v; as received: %+v %v", ev2, err2, ev, err)
			if err == nil {
				require.Equal(t, ev, ev2, "re-encoded: %+v %v; as received: %+v %v", ev2, err2, ev, err)
			}
		}
		if err != nil {
			require.Nil(t, ev, "ev=%v err=%v", ev, err)
			require.ErrorIs(t, err, ErrMalformedEvent, "ev=%v err=%v", ev, err)
			return
		}
		require.NotNil(t, ev, "nil event or Raw")
		require.NotNil(t, ev.Raw, "nil event or Raw")
		switch ev.kind() {
		case eventKindTransaction:
			require.NotNil(t, ev.Transaction, "transaction event without payload")
		case eventKindIdentityDataRetrieved, eventKindIdentityVerified:
			require.NotNil(t, ev.Identity, "identity event without payload")
		default:
			require.Nil(t, ev.Identity, "identity payload on another event")
		}
		got := ev.Raw.Get("eventId")
		require.Equal(t, ev.EventID, got, "eventId %q, raw %q, createdAt %v", ev.EventID, got, ev.CreatedAt)
		require.NotEmpty(t, strings.TrimSpace(got), "eventId %q, raw %q, createdAt %v", ev.EventID, got, ev.CreatedAt)
		require.False(t, ev.CreatedAt.IsZero(), "eventId %q, raw %q, createdAt %v", ev.EventID, got, ev.CreatedAt)
		for k, vs := range ev.Raw {
			require.False(t, foreignField(k), "field %q=%q", k, vs)
			require.NotEmpty(t, vs, "field %q=%q", k, vs)
			if !isJSONBody(body, contentType) {
				require.Len(t, vs, 1, "field %q=%q", k, vs)
			}
		}
	})
}

// acceptedNotification is the test's own check of an accepted notification.
func acceptedNotification(header string, body []byte, creds Credentials) bool {
	scheme, token, ok := strings.Cut(strings.TrimSpace(header), " ")
	if !ok || !strings.EqualFold(scheme, "basic") {
		return false
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(token))
	if err != nil {
		return false
	}
	id, sig, ok := strings.Cut(string(raw), ":")
	if !ok || id != creds.AccessID {
		return false
	}
	signed := func(msg string) bool {
		return sig == hmacB64(sha1.New, creds.AccessKey.Reveal(), msg) || sig == "HmacSHA512:"+hmacB64(sha512.New, creds.AccessKey.Reveal(), msg)
	}
	// A JSON object may be signed as sent.
	if t := strings.TrimLeft(string(body), " \t\r\n"); strings.HasPrefix(t, "{") && signed(string(body)) {
		return true
	}
	msg, err := url.QueryUnescape(string(body))
	if err != nil {
		return false
	}
	return signed(msg)
}

func FuzzVerifyNotification(f *testing.F) {
	body := eventBody("ev-1", "Authorize")
	f.Add([]byte(body), authFor(f, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body))
	f.Add([]byte(body), authFor(f, hookCreds.AccessID, "wrong-key", body))
	f.Add([]byte(body), authFor(f, "wrong-id", hookCreds.AccessKey.Reveal(), body))
	f.Add([]byte("a=b+c%20d"), authFor(f, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), "a=b+c%20d"))
	f.Add([]byte("eventId=e&createdAt=1&a=b+c%20d"), authFor(f, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), "eventId=e&createdAt=1&a=b+c%20d"))
	f.Add([]byte("a=100%"), "Basic "+base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":x")))
	f.Add([]byte(`{"eventId":"e"}`), "Basic "+base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":HmacSHA512:")))
	rawJSON := `{"eventId":"e","createdAt":"1","splitToken":"Ab+c%"}`
	f.Add([]byte(rawJSON), "Basic "+base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":"+hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), rawJSON))))
	f.Add([]byte(""), "")
	f.Add([]byte("x"), "Basic")
	f.Add([]byte("x"), "Bearer abc")
	f.Fuzz(func(t *testing.T, body []byte, header string) {
		err := VerifyNotification(body, header, hookCreds)
		if err == nil {
			require.True(t, acceptedNotification(header, body, hookCreds), "accepted a notification not signed with the key: body %q header %q", body, header)
		} else {
			require.NotContains(t, err.Error(), hookCreds.AccessKey.Reveal(), "key in error: %v", err)
		}
		// Whatever the body, the service's own header for it passes the
		// signature check when the body is URL-decodable (then only a body
		// that is not a notification is refused, as ParseEvent refuses it),
		// and fails it when it is not.
		msg, uerr := url.QueryUnescape(string(body))
		own := "Basic " + base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":"+hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), msg)))
		err = VerifyNotification(body, own, hookCreds)
		if uerr != nil {
			require.ErrorIs(t, err, ErrInvalidSignature, "own signature of an undecodable body: %v", err)
			return
		}
		_, perr := ParseEvent(body, "")
		require.Equal(t, err == nil, perr == nil, "own signature: %v; ParseEvent: %v", err, perr)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformedEvent, "own signature: %v; ParseEvent: %v", err, perr)
		}
	})
}

// acceptedRedirect is the test's own check of an accepted redirect URL:
// the signature runs from the first "&requestSignature=" to the next "&".
func acceptedRedirect(rawURL, key string, queryOnly bool) bool {
	const marker = "&requestSignature="
	i := strings.Index(rawURL, marker)
	if i < 0 {
		return false
	}
	msg, enc := rawURL[:i], rawURL[i+len(marker):]
	enc, _, _ = strings.Cut(enc, "&")
	if queryOnly {
		var ok bool
		if _, msg, ok = strings.Cut(msg, "?"); !ok {
			return false
		}
	}
	sig, err := url.QueryUnescape(enc)
	if err != nil {
		return false
	}
	sig = strings.ReplaceAll(sig, " ", "+")
	return sig == hmacB64(sha1.New, key, msg) || sig == "HmacSHA512:"+hmacB64(sha512.New, key, msg)
}

func FuzzVerifyRedirect(f *testing.F) {
	f.Add(signURL(redirectKey, returnUnsigned, false), false, "")
	f.Add(signURL(redirectKey, cancelUnsigned, false), false, "&status=2")
	f.Add(signURL(redirectKey, returnUnsigned, true), true, "#x")
	f.Add(signURL(redirectKey, returnUnsigned, false), false, "&instantPayoutAvail=true")
	f.Add(signURL(redirectKey, cancelUnsigned, true), true, "&panel=9&x=%zz")
	f.Add(signURL("other", returnUnsigned, false), false, "")
	f.Add(returnUnsigned+"&requestSignature=HmacSHA512%3Aabc", false, "")
	f.Add("https://shop.example/r?requestSignature=abc", true, "x")
	f.Add("https://shop.example/r?a=1&b=%zz&requestSignature=%", false, "")
	f.Add("accessId=A&merchantId=M&customer.name=x?transactionId=1&status=2", false, "")
	f.Add("https://s.example/r?accessId=A&transactionId=1&status=2", true, "&a=1")
	f.Add("", false, "")
	f.Fuzz(func(t *testing.T, rawURL string, queryOnly bool, suffix string) {
		var opts []Option
		if queryOnly {
			opts = append(opts, RedirectQueryOnly())
		}
		r, err := VerifyRedirect(rawURL, redirectKey, opts...)
		if err == nil {
			require.NotNil(t, r, "accepted a URL not signed with the key: %q", rawURL)
			require.True(t, acceptedRedirect(rawURL, redirectKey, queryOnly), "accepted a URL not signed with the key: %q", rawURL)
			require.NotEmpty(t, r.TransactionID, "accepted a redirect without transactionId or status: %q", rawURL)
			require.NotEmpty(t, r.Params.Get("status"), "accepted a redirect without transactionId or status: %q", rawURL)
			for k, vs := range r.Params {
				require.False(t, notRedirectKey(k), "accepted a signed part that is not a redirect (%q): %q", k, rawURL)
				require.Len(t, vs, 1, "accepted a signed part that is not a redirect (%q): %q", k, rawURL)
			}
		} else {
			require.Nil(t, r, "a Redirect returned with an error")
		}

		// Sign the fuzzed URL (when it has no signature marker) the way the
		// service does: it verifies, or its signed part is not a redirect;
		// and what is appended after the signature changes no trusted field:
		// it is refused, or it lands in Unsigned only.
		if strings.Contains(rawURL, "&requestSignature=") || (queryOnly && !strings.Contains(rawURL, "?")) {
			return
		}
		signed := signURL(redirectKey, rawURL, queryOnly)
		base, err := VerifyRedirect(signed, redirectKey, opts...)
		if err != nil {
			require.ErrorIs(t, err, ErrMalformedRedirect, "own signature rejected: %q: %v", signed, err)
		}
		if suffix == "" {
			return
		}
		got, err := VerifyRedirect(signed+suffix, redirectKey, opts...)
		if err != nil {
			return
		}
		require.NotNil(t, base, "%q appended made a malformed redirect acceptable: %+v", suffix, got)
		require.True(t, strings.HasPrefix(suffix, "&"), "accepted with %q glued to the signature: %+v", suffix, got)
		got.Unsigned = nil
		require.Equal(t, base, got, "%q appended changed the redirect:\n got %+v\nwant %+v", suffix, got, base)
	})
}
