package bankpay

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookCreds are the merchant's credentials in the webhook tests.
var hookCreds = Credentials{AccessID: "hook-access-id", AccessKey: NewSecret("hook-s3cret-key"), MerchantID: "M1"}

// authFor is the Authorization header the service sends, computed by the
// test: Basic base64(accessId:Base64(HMAC-SHA1(key, URL-decoded body))).
func authFor(t testing.TB, id, key, body string) string {
	t.Helper()
	msg, err := url.QueryUnescape(body)
	require.NoError(t, err, "test body not URL-decodable: %v", err)
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+hmacB64(sha1.New, key, msg)))
}

// nowMillis is createdAt a minute ago, in epoch milliseconds.
func nowMillis() string { return strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10) }

// minimal is the smallest notification: eventId, createdAt a minute ago,
// eventType and the extra fields.
func minimal(id, typ string, extra ...string) string {
	return strings.Join(append([]string{"eventId=" + id, "createdAt=" + nowMillis(), "eventType=" + typ}, extra...), "&")
}

// eventBody is a signed-able Authorize-like event created a minute ago, so
// that a handler with the default max event age accepts it.
func eventBody(eventID, eventType string) string {
	return eventBodyAt(eventID, eventType, time.Now().Add(-time.Minute))
}

func eventBodyAt(eventID, eventType string, createdAt time.Time) string {
	return "merchantId=M1&merchantReference=order-42&paymentType=2&transactionType=1&eventId=" + eventID +
		"&eventType=" + eventType + "&objectId=100258123456789&objectType=Transaction&message=&timeZone=UTC" +
		"&createdAt=" + strconv.FormatInt(createdAt.UnixMilli(), 10) + "&accessId=hook-access-id&status=2&statusMessage=Authorized" +
		"&paymentProviderTransaction.status=10&paymentProviderTransaction.statusMessage=Established"
}

func TestVerifyNotification(t *testing.T) {
	body := eventBody("ev-1", "Authorize")
	good := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body)
	err := verifyErr(VerifyNotification([]byte(body), good, hookCreds))
	require.NoError(t, err, "valid: %v", err)
	sig := hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), body)
	b64 := func(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }
	for name, tc := range map[string]struct {
		body, header string
		creds        Credentials
		want         error
	}{
		"no accessId in creds":  {body, good, Credentials{AccessKey: NewSecret("k")}, errEmptyCredentials},
		"no accessKey in creds": {body, good, Credentials{AccessID: hookCreds.AccessID}, errEmptyCredentials},
		"no header":             {body, "", hookCreds, errMissingSignature},
		"blank header":          {body, "  ", hookCreds, errMissingSignature},
		"empty signature":       {body, "Basic " + b64(hookCreds.AccessID+":"), hookCreds, errMissingSignature},
		"bearer":                {body, "Bearer " + b64(hookCreds.AccessID+":"+sig), hookCreds, errMalformedAuthorization},
		"scheme only":           {body, "Basic", hookCreds, errMalformedAuthorization},
		"not base64":            {body, "Basic !!!", hookCreds, errMalformedAuthorization},
		"no colon":              {body, "Basic " + b64(hookCreds.AccessID+sig), hookCreds, errMalformedAuthorization},
		"wrong accessId":        {body, authFor(t, "someone-else", hookCreds.AccessKey.Reveal(), body), hookCreds, errWrongAccessID},
		"accessId prefix":       {body, "Basic " + b64("hook-access:"+sig), hookCreds, errWrongAccessID},
		"wrong key":             {body, authFor(t, hookCreds.AccessID, "guessed-key", body), hookCreds, ErrInvalidSignature},
		"tampered body":         {strings.Replace(body, "status=2", "status=4", 1), good, hookCreds, ErrInvalidSignature},
		"appended field":        {body + "&status=5", good, hookCreds, ErrInvalidSignature},
		"signature of raw":      {"a=1%262", "Basic " + b64(hookCreds.AccessID+":"+hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), "a=1%262")), hookCreds, ErrInvalidSignature},
		"undecodable body":      {"a=100%", "Basic " + b64(hookCreds.AccessID+":"+hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), "a=100%")), hookCreds, ErrInvalidSignature},
		"wrong prefix":          {body, "Basic " + b64(hookCreds.AccessID+":HmacSHA256:"+sig), hookCreds, errUnsupportedAlgorithm},
	} {
		err := verifyErr(VerifyNotification([]byte(tc.body), tc.header, tc.creds))
		if !assert.ErrorIs(t, err, tc.want, "%s: %v, want %v", name, err, tc.want) {
			continue
		}
		msg := err.Error()
		assert.NotContains(t, msg, hookCreds.AccessKey.Reveal(), "%s: error shows key material: %s", name, msg)
		assert.NotContains(t, msg, sig, "%s: error shows key material: %s", name, msg)
		assert.NotContains(t, msg, "guessed-key", "%s: error shows key material: %s", name, msg)
		assert.True(t, strings.HasPrefix(msg, "bankpay: verify notification: "), "%s: message %q", name, msg)
	}
	// The reasons are distinct, each is an ErrInvalidSignature; empty
	// credentials are a configuration error, not a signature failure.
	all := []error{errMissingSignature, errWrongAccessID, errMalformedAuthorization, errUnsupportedAlgorithm}
	for i, a := range all {
		assert.ErrorIs(t, a, ErrInvalidSignature, "%v does not match ErrInvalidSignature", a)
		for j, b := range all {
			if i != j {
				assert.NotErrorIs(t, a, b, "%v matches %v", a, b)
			}
		}
	}
	assert.NotErrorIs(t, errEmptyCredentials, ErrInvalidSignature, "empty credentials: %v", errEmptyCredentials)
	assert.True(t, isValidation(errEmptyCredentials), "empty credentials: %v", errEmptyCredentials)
}

func TestVerifyNotificationVariants(t *testing.T) {
	body := "eventId=e1&createdAt=1&message=two+words&statusMessage=a%20b"
	// The message is the URL-decoded body: "+" and %20 both are spaces.
	sig := hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), "eventId=e1&createdAt=1&message=two words&statusMessage=a b")
	cred := base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID + ":" + sig))
	for _, h := range []string{"Basic " + cred, "basic " + cred, "BASIC   " + cred + " "} {
		err := verifyErr(VerifyNotification([]byte(body), h, hookCreds))
		assert.NoError(t, err, "%q: %v", h, err)
	}
	sig512 := "HmacSHA512:" + hmacB64(sha512.New, hookCreds.AccessKey.Reveal(), "eventId=e1&createdAt=1&message=two words&statusMessage=a b")
	h512 := "Basic " + base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":"+sig512))
	err := verifyErr(VerifyNotification([]byte(body), h512, hookCreds))
	assert.NoError(t, err, "SHA-512: %v", err)
}

// recorder counts and keeps the events a callback got.
type recorder struct {
	mu     sync.Mutex
	events []*Event
	err    error
}

func (r *recorder) fn(_ context.Context, ev *Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, ev)
	return r.err
}

func (r *recorder) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.events)
}

func post(t testing.TB, h http.Handler, body, auth, contentType string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/bankpay/events", strings.NewReader(body))
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	return w
}

func postSigned(t testing.TB, h http.Handler, body string) *httptest.ResponseRecorder {
	t.Helper()
	return post(t, h, body, authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body), formType)
}

func TestWebhookHandlerAccepts(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn)
	w := postSigned(t, h, eventBody("ev-1", "Authorize"))
	require.Equal(t, http.StatusOK, w.Code, "status %d, calls %d", w.Code, rec.count())
	require.Equal(t, 1, rec.count(), "status %d, calls %d", w.Code, rec.count())
	ev := rec.events[0]
	assert.Equal(t, "ev-1", ev.EventID, "event %+v", ev)
	if assert.Equal(t, eventKindTransaction, ev.kind(), "event %+v", ev) && assert.NotNil(t, ev.Transaction, "event %+v", ev) {
		assert.Equal(t, models.StatusAuthorized, ev.Transaction.Status, "event %+v", ev)
	}
	assert.Equal(t, "100258123456789", ev.TransactionID, "event %+v", ev)
	// JSON bodies too.
	body := `{"eventId":"ev-j","eventType":"Completed","status":4,"objectId":"T","createdAt":` + nowMillis() + `}`
	w = post(t, h, body, authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body), "application/json")
	assert.Equal(t, http.StatusOK, w.Code, "JSON: status %d, calls %d", w.Code, rec.count())
	assert.Equal(t, 2, rec.count(), "JSON: status %d, calls %d", w.Code, rec.count())
	assert.Equal(t, models.StatusCompleted, rec.events[1].Transaction.Status, "JSON: status %d, calls %d", w.Code, rec.count())
}

func TestWebhookHandlerRejects(t *testing.T) {
	body := eventBody("ev-1", "Authorize")
	good := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body)
	undecodable := "eventId=e&createdAt=yesterday"
	for name, tc := range map[string]struct {
		method, body, auth, ct string
		want                   int
	}{
		"GET":            {http.MethodGet, "", "", "", http.StatusMethodNotAllowed},
		"PUT signed":     {http.MethodPut, body, good, formType, http.StatusMethodNotAllowed},
		"unsigned":       {http.MethodPost, body, "", formType, http.StatusUnauthorized},
		"forged":         {http.MethodPost, body, authFor(t, hookCreds.AccessID, "not-the-key", body), formType, http.StatusUnauthorized},
		"wrong accessId": {http.MethodPost, body, authFor(t, "other", hookCreds.AccessKey.Reveal(), body), formType, http.StatusUnauthorized},
		"tampered":       {http.MethodPost, strings.Replace(body, "status=2", "status=7", 1), good, formType, http.StatusUnauthorized},
		"malformed auth": {http.MethodPost, body, "Basic %%%", formType, http.StatusUnauthorized},
		"signed but undecodable": {http.MethodPost, undecodable,
			authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), undecodable), formType, http.StatusBadRequest},
		"signed, wrong content type": {http.MethodPost, body, good, "text/plain", http.StatusBadRequest},
	} {
		var rec recorder
		h := NewWebhookHandler(hookCreds, rec.fn)
		req := httptest.NewRequest(tc.method, "/bankpay/events", strings.NewReader(tc.body))
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		if tc.ct != "" {
			req.Header.Set("Content-Type", tc.ct)
		}
		w := httptest.NewRecorder()
		h.ServeHTTP(w, req)
		assert.Equal(t, tc.want, w.Code, "%s: status %d, want %d", name, w.Code, tc.want)
		assert.Equal(t, 0, rec.count(), "%s: fn called for a rejected request", name)
		switch w.Code {
		case http.StatusMethodNotAllowed:
			assert.Equal(t, http.MethodPost, w.Header().Get("Allow"), "%s: Allow %q", name, w.Header().Get("Allow"))
		case http.StatusUnauthorized:
			assert.NotEmpty(t, w.Header().Get("WWW-Authenticate"), "%s: no WWW-Authenticate", name)
		}
		assert.NotContains(t, w.Body.String(), hookCreds.AccessKey.Reveal(), "%s: key in response", name)
	}
}

func TestWebhookHandlerRepeatedAuthorization(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn)
	body := eventBody("ev-1", "Authorize")
	req := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	req.Header.Add("Authorization", authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body))
	req.Header.Add("Authorization", "Basic x")
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusUnauthorized, w.Code, "status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 0, rec.count(), "status %d calls %d", w.Code, rec.count())
}

func TestWebhookHandlerBodyCap(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn)
	// A signed body just over 1 MiB: the signature is never looked at.
	big := eventBody("ev-big", "Authorize") + "&pad=" + strings.Repeat("a", defaultMaxEventBytes)
	auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), big)
	w := post(t, h, big, auth, formType)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "declared length: status %d", w.Code)
	// Without a Content-Length (chunked), the read itself stops at the cap.
	req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", formType)
	w = httptest.NewRecorder()
	h.ServeHTTP(w, req)
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "chunked: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 0, rec.count(), "chunked: status %d calls %d", w.Code, rec.count())
	// Exactly at the cap is fine.
	exact := eventBody("ev-exact", "Authorize")
	exact += "&pad=" + strings.Repeat("a", defaultMaxEventBytes-len(exact)-len("&pad="))
	w = postSigned(t, h, exact)
	assert.Equal(t, http.StatusOK, w.Code, "at the cap: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 1, rec.count(), "at the cap: status %d calls %d", w.Code, rec.count())
	// A smaller cap.
	h = NewWebhookHandler(hookCreds, rec.fn, withMaxEventBytes(100))
	w = postSigned(t, h, eventBody("ev-2", "Authorize"))
	assert.Equal(t, http.StatusRequestEntityTooLarge, w.Code, "custom cap: status %d", w.Code)
}

func TestWebhookHandlerCallbackError(t *testing.T) {
	rec := recorder{err: errors.New("database down: dsn=postgres://u:p@db")}
	h := NewWebhookHandler(hookCreds, rec.fn) // its default de-duplication
	body := eventBody("ev-1", "Authorize")
	w := postSigned(t, h, body)
	require.Equal(t, http.StatusInternalServerError, w.Code, "status %d calls %d", w.Code, rec.count())
	require.Equal(t, 1, rec.count(), "status %d calls %d", w.Code, rec.count())
	assert.NotContains(t, w.Body.String(), "database", "callback error sent to the caller")
	// The service re-sends: the failed event runs again, and succeeds.
	rec.err = nil
	w = postSigned(t, h, body)
	assert.Equal(t, http.StatusOK, w.Code, "re-send: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 2, rec.count(), "re-send: status %d calls %d", w.Code, rec.count())
	w = postSigned(t, h, body)
	assert.Equal(t, http.StatusOK, w.Code, "duplicate: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 2, rec.count(), "duplicate: status %d calls %d", w.Code, rec.count())
}

// Without WithDeduplicator the handler de-duplicates in memory of its own:
// a processed event re-sent gets 200 and no second callback; another
// handler has its own memory; WithDeduplicator's store replaces it, shared
// by the handlers given it.
func TestWebhookHandlerDefaultDeduplication(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn)
	body := eventBody("ev-1", "Authorize")
	for i := 0; i < 3; i++ {
		w := postSigned(t, h, body)
		require.Equal(t, http.StatusOK, w.Code, "delivery %d: status %d", i, w.Code)
	}
	assert.Equal(t, 1, rec.count(), "fn called %d times for one eventId, no option given", rec.count())
	w := postSigned(t, h, eventBody("ev-2", "Authorize"))
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, 2, rec.count(), "another eventId is processed")

	w = postSigned(t, NewWebhookHandler(hookCreds, rec.fn), body)
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, 3, rec.count(), "each handler remembers its own events")

	shared := newMemoryDeduplicator(10)
	var recShared recorder
	for i := 0; i < 2; i++ {
		w := postSigned(t, NewWebhookHandler(hookCreds, recShared.fn, WithDeduplicator(shared)), body)
		require.Equal(t, http.StatusOK, w.Code, "replica %d: status %d", i, w.Code)
	}
	assert.Equal(t, 1, recShared.count(), "two replicas given one store ran the callback %d times", recShared.count())
}

func TestWebhookHandlerEmptyCredentials(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(Credentials{AccessID: hookCreds.AccessID}, rec.fn)
	w := postSigned(t, h, eventBody("ev-1", "Authorize"))
	assert.Equal(t, http.StatusInternalServerError, w.Code, "status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 0, rec.count(), "status %d calls %d", w.Code, rec.count())
}

func TestWebhookHandlerDuplicates(t *testing.T) {
	var rec recorder
	var logs bytes.Buffer
	dups := func() []string { return logLines(logs.String(), "duplicate event") }
	dedup := newMemoryDeduplicator(100)
	h := NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(dedup),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	body := eventBody("ev-1", "Authorize")
	for i := 0; i < 3; i++ {
		w := postSigned(t, h, body)
		require.Equal(t, http.StatusOK, w.Code, "delivery %d: status %d", i, w.Code)
	}
	assert.Equal(t, 1, rec.count(), "fn called %d times for one eventId", rec.count())
	d := dups()
	if assert.Len(t, d, 2, "duplicates logged: %v", d) {
		assert.Contains(t, d[0], "eventId=ev-1", "duplicates logged: %v", d)
	}
	st, _, _ := dedup.Claim(context.Background(), dedupKey(hookCreds.AccessID, "ev-1"))
	assert.Equal(t, ClaimDone, st, "hook state %v", st)
	// Another eventId is processed; a forged replay is still rejected first.
	w := postSigned(t, h, eventBody("ev-2", "Process"))
	assert.Equal(t, http.StatusOK, w.Code, "second event: %d %d", w.Code, rec.count())
	assert.Equal(t, 2, rec.count(), "second event: %d %d", w.Code, rec.count())
	w = post(t, h, body, authFor(t, hookCreds.AccessID, "x", body), formType)
	assert.Equal(t, http.StatusUnauthorized, w.Code, "forged replay: %d, dups %v", w.Code, dups())
	assert.Len(t, dups(), 2, "forged replay: %d, dups %v", w.Code, dups())
	// Events without an eventId are refused: they could not be de-duplicated.
	noID := "eventType=Update&status=2&createdAt=" + nowMillis()
	w = postSigned(t, h, noID)
	assert.Equal(t, http.StatusBadRequest, w.Code, "no eventId: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 2, rec.count(), "no eventId: status %d calls %d", w.Code, rec.count())
}

func TestWebhookHandlerConcurrentDelivery(t *testing.T) {
	entered := make(chan struct{})
	release := make(chan struct{})
	var calls atomic.Int32
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error {
		calls.Add(1)
		close(entered)
		<-release
		return nil
	}, WithDeduplicator(newMemoryDeduplicator(0)))
	body := eventBody("ev-1", "Authorize")
	first := make(chan int)
	go func() { first <- postSigned(t, h, body).Code }()
	<-entered
	w := postSigned(t, h, body)
	assert.Equal(t, http.StatusConflict, w.Code, "while in progress: status %d", w.Code)
	close(release)
	code := <-first
	assert.Equal(t, http.StatusOK, code, "first: %d", code)
	w = postSigned(t, h, body)
	assert.Equal(t, http.StatusOK, w.Code, "after: status %d calls %d", w.Code, calls.Load())
	assert.Equal(t, int32(1), calls.Load(), "after: status %d calls %d", w.Code, calls.Load())
}

func TestWebhookHandlerPanicReleasesClaim(t *testing.T) {
	var calls atomic.Int32
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return nil
	}, WithDeduplicator(newMemoryDeduplicator(10)))
	body := eventBody("ev-1", "Authorize")
	func() {
		defer func() {
			assert.NotNil(t, recover(), "panic swallowed")
		}()
		postSigned(t, h, body)
	}()
	w := postSigned(t, h, body)
	assert.Equal(t, http.StatusOK, w.Code, "after panic: status %d calls %d", w.Code, calls.Load())
	assert.Equal(t, int32(2), calls.Load(), "after panic: status %d calls %d", w.Code, calls.Load())
}

type failingStore struct{ claimErr, completeErr error }

func (f failingStore) Claim(context.Context, string) (ClaimState, string, error) {
	return ClaimNew, "t", f.claimErr
}
func (f failingStore) Extend(context.Context, string, string) (time.Duration, error) {
	return time.Minute, nil
}
func (f failingStore) Complete(context.Context, string, string, time.Duration) error {
	return f.completeErr
}
func (f failingStore) Release(context.Context, string, string) error { return nil }

func TestWebhookHandlerStoreErrors(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(failingStore{claimErr: errors.New("store down")}))
	w := postSigned(t, h, eventBody("ev-1", "Authorize"))
	assert.Equal(t, http.StatusInternalServerError, w.Code, "claim error: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 0, rec.count(), "claim error: status %d calls %d", w.Code, rec.count())
	h = NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(failingStore{completeErr: errors.New("store down")}))
	w = postSigned(t, h, eventBody("ev-1", "Authorize"))
	assert.Equal(t, http.StatusOK, w.Code, "complete error after success: status %d calls %d", w.Code, rec.count())
	assert.Equal(t, 1, rec.count(), "complete error after success: status %d calls %d", w.Code, rec.count())
}

// TestWebhookHandlerTypedPayloads: the one callback gets each event with
// the typed payload of its type set, and its error responds 500.
func TestWebhookHandlerTypedPayloads(t *testing.T) {
	var got []string
	h := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error {
		switch {
		case ev.EventType == models.EventCustomerIdentityVerified:
			got = append(got, "verified:"+ev.Identity.KYCResult)
			return errors.New("not yet")
		case ev.EventType == models.EventIdentityVerificationDataRetrieved:
			got = append(got, "data:"+ev.Identity.ProviderReportStatus)
		case ev.Transaction != nil:
			got = append(got, "txn:"+ev.EventID+":"+ev.Transaction.Status.String())
		default:
			got = append(got, "other:"+ev.EventID)
		}
		return nil
	})
	postSigned(t, h, eventBody("ev-1", "Authorize"))
	postSigned(t, h, minimal("ev-2", "IdentityVerificationDataRetrieved", "Provider+Report+Status=SUCCESS"))
	w := postSigned(t, h, minimal("ev-3", "CustomerIdentityVerified", "KYC+Result=FINISHED"))
	assert.Equal(t, http.StatusInternalServerError, w.Code, "typed callback error: status %d", w.Code)
	postSigned(t, h, minimal("ev-4", "Chargeback"))
	want := []string{"txn:ev-1:Authorized", "data:SUCCESS", "verified:FINISHED", "other:ev-4"}
	assert.Equal(t, strings.Join(want, ","), strings.Join(got, ","), "typed payloads got %v", got)

	// fn may be nil: every event is acknowledged.
	h = NewWebhookHandler(hookCreds, nil)
	w = postSigned(t, h, minimal("ev-5", "Chargeback"))
	assert.Equal(t, http.StatusOK, w.Code, "nil fn: %d", w.Code)
}

func TestWebhookHandlerLogsNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { return errors.New("fail") },
		WithLogger(logger), WithDeduplicator(newMemoryDeduplicator(10)))
	body := eventBody("ev-1", "Authorize")
	post(t, h, body, authFor(t, hookCreds.AccessID, "wrong", body), formType)
	postSigned(t, h, body)
	out := buf.String()
	assert.Contains(t, out, "request rejected", "log:\n%s", out)
	assert.Contains(t, out, "callback failed", "log:\n%s", out)
	assert.Contains(t, out, "ev-1", "log:\n%s", out)
	sig := hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), body)
	for _, secret := range []string{hookCreds.AccessKey.Reveal(), sig, "order-42", "Basic "} {
		assert.NotContains(t, out, secret, "log shows %q:\n%s", secret, out)
	}
}

// TestWebhookHandlerOnServeMux mounts the handler with a Go 1.22 pattern on
// a loopback server and posts to it over HTTP.
func TestWebhookHandlerOnServeMux(t *testing.T) {
	var rec recorder
	mux := http.NewServeMux()
	mux.Handle("POST /bankpay/events", NewWebhookHandler(hookCreds, rec.fn))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	client := &http.Client{Timeout: 5 * time.Second}

	send := func(method, body, auth string) int {
		req, err := http.NewRequest(method, srv.URL+"/bankpay/events", strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", formType)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	body := eventBody("ev-1", "Authorize")
	code := send(http.MethodPost, body, authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body))
	assert.Equal(t, http.StatusOK, code, "signed: %d", code)
	code = send(http.MethodPost, body, authFor(t, hookCreds.AccessID, "forged", body))
	assert.Equal(t, http.StatusUnauthorized, code, "forged: %d", code)
	code = send(http.MethodGet, "", "")
	assert.Equal(t, http.StatusMethodNotAllowed, code, "GET: %d", code)
	assert.Equal(t, 1, rec.count(), "calls %d", rec.count())
}

// TestWebhookHandlerMaxEventAge: a verified event older than the max age (24
// hours by default) gets a 400 response without any callback, is not recorded
// by the Deduplicator, and is logged at warn level with its age; so is one
// dated more than 5 minutes (maxEventSkew) ahead of the clock. Events at
// either limit pass, events without createdAt are refused, and a max age <=
// 0 turns the age check off (not the future check).
func TestWebhookHandlerMaxEventAge(t *testing.T) {
	created := time.UnixMilli(1700000000000).UTC()
	clock := created
	now := func() time.Time { return clock }
	var logs bytes.Buffer
	var rec recorder
	dedup := newMemoryDeduplicator(10)
	h := NewWebhookHandler(hookCreds, rec.fn, WithWebhookClock(now), WithDeduplicator(dedup),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))

	for _, tc := range []struct {
		name  string
		id    string
		after time.Duration // clock - createdAt
		want  int
	}{
		{"fresh", "ev-fresh", time.Minute, http.StatusOK},
		{"re-sent after 12 hours", "ev-12h", 12 * time.Hour, http.StatusOK},
		{"exactly the max age", "ev-24h", defaultMaxEventAge, http.StatusOK},
		{"ahead by the allowed skew", "ev-ahead", -maxEventSkew, http.StatusOK},
		{"a millisecond too old", "ev-old", defaultMaxEventAge + time.Millisecond, http.StatusBadRequest},
		{"a year old", "ev-year", 365 * 24 * time.Hour, http.StatusBadRequest},
		{"a millisecond beyond the skew", "ev-future", -maxEventSkew - time.Millisecond, http.StatusBadRequest},
		{"a year ahead", "ev-next-year", -365 * 24 * time.Hour, http.StatusBadRequest},
	} {
		clock = created.Add(tc.after)
		before := rec.count()
		w := postSigned(t, h, eventBodyAt(tc.id, "Authorize", created))
		assert.Equal(t, tc.want, w.Code, "%s: status %d, want %d", tc.name, w.Code, tc.want)
		called := rec.count() - before
		assert.Equal(t, tc.want == http.StatusOK, called == 1, "%s: fn called %d times", tc.name, called)
	}
	stales := logLines(logs.String(), "stale event rejected")
	if assert.Len(t, stales, 2, "stale events logged: %q", stales) {
		assert.Contains(t, stales[0], "eventId=ev-old", "stale events logged: %q", stales)
		assert.Contains(t, stales[0], "age=24h0m0.001s", "stale events logged: %q", stales)
		assert.Contains(t, stales[1], "eventId=ev-year", "stale events logged: %q", stales)
		assert.Contains(t, stales[1], "age=8760h0m0s", "stale events logged: %q", stales)
	}
	futures := logLines(logs.String(), "future-dated event rejected")
	if assert.Len(t, futures, 2, "future events logged: %q", futures) {
		assert.Contains(t, futures[0], "eventId=ev-future", "future events logged: %q", futures)
		assert.Contains(t, futures[0], "age=-5m0.001s", "future events logged: %q", futures)
		assert.Contains(t, futures[1], "eventId=ev-next-year", "future events logged: %q", futures)
	}
	// The refused events were not claimed: they are still new to the store.
	for _, id := range []string{"ev-old", "ev-future"} {
		st, _, _ := dedup.Claim(context.Background(), dedupKey(hookCreds.AccessID, id))
		assert.Equal(t, ClaimNew, st, "refused event %s recorded by the deduplicator: %v", id, st)
	}
	out := logs.String()
	assert.Contains(t, out, "stale event rejected", "log:\n%s", out)
	assert.Contains(t, out, "eventId=ev-old", "log:\n%s", out)
	assert.Contains(t, out, "age=24h0m0.001s", "log:\n%s", out)
	assert.NotContains(t, out, "order-42", "log:\n%s", out)

	// Without createdAt: refused, whatever the clock (the age is unknown).
	before := rec.count()
	w := postSigned(t, h, "eventId=ev-nodate&eventType=Authorize&status=2")
	assert.Equal(t, http.StatusBadRequest, w.Code, "no createdAt: status %d", w.Code)
	assert.Equal(t, before, rec.count(), "no createdAt: status %d", w.Code)

	// A custom max age, and the check turned off.
	old := eventBodyAt("ev-2h", "Authorize", created)
	clock = created.Add(2 * time.Hour)
	for _, tc := range []struct {
		maxAge time.Duration
		want   int
	}{{time.Hour, http.StatusBadRequest}, {3 * time.Hour, http.StatusOK}, {0, http.StatusOK}, {-time.Second, http.StatusOK}} {
		var rec recorder
		h := NewWebhookHandler(hookCreds, rec.fn, WithWebhookClock(now), WithMaxEventAge(tc.maxAge))
		w := postSigned(t, h, old)
		assert.Equal(t, tc.want, w.Code, "max age %v: status %d, calls %d", tc.maxAge, w.Code, rec.count())
		assert.Equal(t, tc.want == http.StatusOK, rec.count() == 1, "max age %v: status %d, calls %d", tc.maxAge, w.Code, rec.count())
		// The future check stays on without the age check.
		ahead := eventBodyAt("ev-ahead-"+tc.maxAge.String(), "Authorize", clock.Add(time.Hour))
		w = postSigned(t, h, ahead)
		assert.Equal(t, http.StatusBadRequest, w.Code, "max age %v, an hour ahead: status %d", tc.maxAge, w.Code)
	}

	// The default clock is the real one: a notification from 2023 is stale.
	rec = recorder{}
	h = NewWebhookHandler(hookCreds, rec.fn)
	w = postSigned(t, h, old)
	assert.Equal(t, http.StatusBadRequest, w.Code, "real clock: status %d, calls %d", w.Code, rec.count())
	assert.Equal(t, 0, rec.count(), "real clock: status %d, calls %d", w.Code, rec.count())
	// A forged stale event is still a 401: the signature is checked first.
	w = post(t, h, old, authFor(t, hookCreds.AccessID, "x", old), formType)
	assert.Equal(t, http.StatusUnauthorized, w.Code, "forged stale event: status %d", w.Code)
}

// TestVerifyNotificationFieldInjectionLimitation pins down the limitation
// VerifyNotification's godoc describes: the signature covers the URL-decoded
// body, so a signed value that decodes to "&name=" reads as a field of its
// own. Fields are read from that signed message, so the encoding does not
// matter: the genuine body and its re-encodings read the same fields. It is
// why the SDK refuses such characters in every merchantReference it sends
// (TestMerchantReferenceRefusedEverywhere).
func TestVerifyNotificationFieldInjectionLimitation(t *testing.T) {
	signed := "eventId=ev-1&createdAt=1&eventType=Authorize&merchantReference=ord-1%26errorCode%3D330&status=2"
	replayed := "eventId=ev-1&createdAt=1&eventType=Authorize&merchantReference=ord-1&errorCode=330&status=2"
	auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), signed)
	for _, body := range []string{signed, replayed} {
		err := verifyErr(VerifyNotification([]byte(body), auth, hookCreds))
		require.NoError(t, err, "%s: %v", body, err)
		ev, err := ParseEvent([]byte(body), formType)
		require.NoError(t, err, "%s: %+v %v", body, ev, err)
		require.Equal(t, "ord-1", ev.MerchantReference, "%s: %+v %v", body, ev, err)
		require.Equal(t, "330", ev.Transaction.ErrorCode, "%s: %+v %v", body, ev, err)
	}
	// A field the event already carries cannot be overridden: a repeated
	// field is not a notification, in any encoding.
	dup := "eventId=ev-1&createdAt=1&eventType=Authorize&merchantReference=ord-1%26status%3D7&status=2"
	for _, body := range []string{dup, "eventId=ev-1&createdAt=1&eventType=Authorize&merchantReference=ord-1&status=7&status=2"} {
		err := verifyErr(VerifyNotification([]byte(body), authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), dup), hookCreds))
		assert.ErrorIs(t, err, ErrMalformedEvent, "repeated status: %v", err)
		_, err = ParseEvent([]byte(body), formType)
		assert.ErrorIs(t, err, ErrMalformedEvent, "repeated status: %v", err)
	}
}

// TestSecurityGodoc keeps the security warnings in the godoc: the package's
// Security section, and the functions merchants call to trust a
// notification or a redirect.
func TestSecurityGodoc(t *testing.T) {
	docs := map[string]string{}
	fset := token.NewFileSet()
	for _, file := range []string{"webhooks.go", "redirect.go", "doc.go"} {
		f, err := parser.ParseFile(fset, file, nil, parser.ParseComments)
		require.NoError(t, err)
		if f.Doc != nil {
			docs["package"] = strings.Join(strings.Fields(f.Doc.Text()), " ")
		}
		for _, d := range f.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Doc != nil {
				docs[fn.Name.Name] = strings.Join(strings.Fields(fn.Doc.Text()), " ")
			}
		}
	}
	for name, musts := range map[string][]string{
		// The threat model is written once, in the package documentation;
		// the functions point to it.
		"package": {
			"covers the URL-decoded body", `"merchantReference=ord-1%26errorCode%3D330"`, "cannot be fixed from the merchant's side",
			"notificationUrl is not signed", "travels through the user's browser", "reconcile the transaction's state with Transactions.Get",
			"older than the max age", "never expires",
			// The default memory is the process's: a merchant must know that
			// a replay after a restart (a deploy) runs the callback again.
			"a restart empties",
		},
		"VerifyNotification": {"ErrInvalidSignature", "Security section"},
		"NewWebhookHandler":  {"Transactions.Get", "Security section", "stale events"},
		"VerifyRedirect": {
			"it never expires", "check MerchantReference", "TransactionID against the transactionId",
			"act at most once per TransactionID", "RedirectExpectReference",
		},
	} {
		for _, must := range musts {
			assert.Contains(t, docs[name], must, "%s godoc does not say %q", name, must)
		}
	}
}

// logLines returns the lines of a text log that contain msg.
func logLines(log, msg string) []string {
	var out []string
	for _, l := range strings.Split(log, "\n") {
		if strings.Contains(l, msg) {
			out = append(out, l)
		}
	}
	return out
}

// rawAuth is the Authorization header of a signature over body as sent
// (not URL-decoded), HMAC-SHA1 or HMAC-SHA512.
func rawAuth(id, key, body string, sha512Sig bool) string {
	sig := hmacB64(sha1.New, key, body)
	if sha512Sig {
		sig = "HmacSHA512:" + hmacB64(sha512.New, key, body)
	}
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(id+":"+sig))
}

// A JSON notification whose URL-decoding is impossible (a literal "%") or
// changes it (a "+") verifies when signed as sent, and is then read as
// sent; a form never does (its signature is the documented one only), nor
// a JSON body sent as a form, nor a tampered body.
func TestNotificationJSONSignedAsSent(t *testing.T) {
	key := hookCreds.AccessKey.Reveal()
	js := `{"eventId":"ev-raw+1","eventType":"Authorize","createdAt":"` + nowMillis() + `","status":"2",` +
		`"splitToken":"Ab+cD/eF+gH=","statusMessage":"50% returned"}`
	var seen []*Event
	h := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { seen = append(seen, ev); return nil })
	for _, sha := range []bool{false, true} {
		auth := rawAuth(hookCreds.AccessID, key, js, sha)
		require.NoError(t, verifyErr(VerifyNotification([]byte(js), auth, hookCreds)))
		for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/cloudevents+json", ""} {
			w := post(t, h, js, auth, ct)
			require.Equal(t, http.StatusOK, w.Code, ct)
			ev := seen[len(seen)-1]
			assert.Equal(t, "ev-raw+1", ev.EventID, "signed as sent: the eventId as sent")
			assert.Equal(t, "Ab+cD/eF+gH=", ev.Transaction.SplitToken)
			assert.Equal(t, "50% returned", ev.Transaction.StatusMessage)
		}
		// Not as a form, whatever the body looks like.
		assert.Equal(t, http.StatusUnauthorized, post(t, h, js, auth, formType).Code)
		assert.Equal(t, http.StatusUnauthorized, post(t, h, js, auth, "text/plain").Code)
		// A tampered body.
		for _, tampered := range []string{strings.Replace(js, `"status":"2"`, `"status":"4"`, 1), " " + js, js + " "} {
			assert.Equal(t, http.StatusUnauthorized, post(t, h, tampered, auth, "application/json").Code, tampered)
			assert.ErrorIs(t, verifyErr(VerifyNotification([]byte(tampered), auth, hookCreds)), ErrInvalidSignature)
		}
	}

	// A form body signed as sent is refused: "+" and "%XX" in a form are
	// encodings, and only the URL-decoded message is signed.
	form := "eventId=ev-f&eventType=Authorize&createdAt=" + nowMillis() + "&status=2&splitToken=Ab+cD"
	before := len(seen)
	for _, ct := range []string{formType, ""} {
		assert.Equal(t, http.StatusUnauthorized, post(t, h, form, rawAuth(hookCreds.AccessID, key, form, false), ct).Code, ct)
	}
	assert.ErrorIs(t, verifyErr(VerifyNotification([]byte(form), rawAuth(hookCreds.AccessID, key, form, false), hookCreds)), ErrInvalidSignature)
	assert.Len(t, seen, before, "no callback for a refused body")

	// The documented signature still verifies a JSON body: values as sent,
	// the eventId as signed (a "+" in it is a space).
	docJSON := strings.Replace(js, "50% returned", "half returned", 1)
	w := post(t, h, docJSON, authFor(t, hookCreds.AccessID, key, docJSON), "application/json")
	require.Equal(t, http.StatusOK, w.Code)
	ev := seen[len(seen)-1]
	assert.Equal(t, "ev-raw 1", ev.EventID)
	assert.Equal(t, "Ab+cD/eF+gH=", ev.Transaction.SplitToken)
}

// Opening the signature over a JSON body as sent opens no oracle: the
// merchant's key signs establish data (SignEstablishData, over a canonical
// string that starts "accessId=") and the service signs redirect URLs, and
// none of those is a JSON object. An establish-data signature never
// verifies a notification: not its canonical string, not the JSON or the
// flat form of the data, in any content type.
func TestEstablishSignatureNeverVerifiesAsNotification(t *testing.T) {
	for _, opts := range [][]Option{nil, {WithHMACSHA512()}} {
		c, err := NewClient(hookCreds, append([]Option{WithBaseURL(testBaseURL)}, opts...)...)
		require.NoError(t, err)
		for _, d := range []*models.EstablishData{
			{Description: "Order 42", Currency: models.USD, Amount: "10.00", MerchantReference: "ref-42",
				PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c",
				Customer: &models.Customer{Name: "Jane Doe", Address: &models.Address{Country: "US"}}},
			// A description that is itself a notification, JSON and form.
			{Description: `{"eventId":"e1","createdAt":"1700000000000","status":"4"}`, Currency: models.USD, Amount: "1.00",
				MerchantReference: "r", PaymentType: models.PaymentTypeInstant, ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c"},
			{Description: "eventId=e2 createdAt 1700000000000", Currency: models.USD, Amount: "1.00",
				MerchantReference: "r", PaymentType: models.PaymentTypeInstant, ReturnURL: "https://shop.example/r", CancelURL: "https://shop.example/c"},
		} {
			require.NoError(t, c.SignEstablishData(d))
			canonical, err := canonicalEstablishData(d)
			require.NoError(t, err)
			require.True(t, strings.HasPrefix(canonical, "accessId="), "the canonical string starts with accessId=: %q", canonical)
			require.False(t, rawJSONObject([]byte(canonical), "application/json"), "never a JSON object")
			auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":"+d.RequestSignature))
			js, err := json.Marshal(d)
			require.NoError(t, err)
			flat, err := json.Marshal(FlattenEstablishData(d))
			require.NoError(t, err)
			var seen int
			h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { seen++; return nil },
				WithWebhookClock(func() time.Time { return time.UnixMilli(1700000000000) }))
			for _, body := range []string{canonical, url.QueryEscape(canonical), string(js), string(flat),
				`{"x":"` + canonical + `"}`, "{" + canonical + "}"} {
				assert.Error(t, verifyErr(VerifyNotification([]byte(body), auth, hookCreds)), body)
				for _, ct := range []string{formType, "application/json", ""} {
					code := post(t, h, body, auth, ct).Code
					assert.Contains(t, []int{http.StatusUnauthorized, http.StatusBadRequest}, code, "%s %q", ct, body)
				}
			}
			assert.Zero(t, seen, "an establish-data signature ran a callback")
		}
	}

	// A redirect signed over a returnUrl the user rewrote to open a JSON
	// object (the URLs of establish data are not signed): the service
	// appends its parameters after it, so the signed string never closes
	// the object.
	redirect := `{"eventId":"e3","createdAt":"1700000000000","status":"4","x":"?transactionId=1002&status=2&merchantReference=r`
	auth := rawAuth(hookCreds.AccessID, hookCreds.AccessKey.Reveal(), redirect, false)
	err := verifyErr(VerifyNotification([]byte(redirect), auth, hookCreds))
	require.ErrorIs(t, err, ErrMalformedEvent, "signed, but never a notification")
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { t.Error("callback ran"); return nil })
	assert.Equal(t, http.StatusBadRequest, post(t, h, redirect, auth, "application/json").Code)
}

// extendingStore is a Deduplicator whose one claim ("tok") lasts ttl per
// Extend until lostAfter extensions (or, with failAfter, fails every
// Extend after failAfter: the store out of reach); it records the calls.
type extendingStore struct {
	mu        sync.Mutex
	ttl       time.Duration
	lostAfter int
	failAfter int
	extends   int
	calls     []string
}

func (s *extendingStore) record(call string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls = append(s.calls, call)
}

func (s *extendingStore) Claim(_ context.Context, key string) (ClaimState, string, error) {
	s.record("claim " + key)
	return ClaimNew, "tok", nil
}

func (s *extendingStore) Extend(_ context.Context, _, token string) (time.Duration, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.extends++
	if s.failAfter > 0 && s.extends > s.failAfter {
		return 0, errors.New("store out of reach")
	}
	if token != "tok" || s.lostAfter > 0 && s.extends > s.lostAfter {
		return 0, nil
	}
	return s.ttl, nil
}

func (s *extendingStore) Complete(_ context.Context, _, token string, keep time.Duration) error {
	s.record(fmt.Sprint("complete ", token, " ", keep))
	return nil
}

func (s *extendingStore) Release(_ context.Context, _, token string) error {
	s.record("release " + token)
	return nil
}

// A callback longer than the claim: the handler extends the claim 100 ms in
// and then every third of the TTL, stops when the callback returns, and
// completes with the claim's token, keeping the mark for the max age plus
// twice the allowed skew.
func TestWebhookHandlerExtendsClaim(t *testing.T) {
	s := &extendingStore{ttl: 60 * time.Millisecond}
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error {
		time.Sleep(firstExtension + 250*time.Millisecond)
		return nil
	}, WithDeduplicator(s), WithMaxEventAge(time.Hour))
	w := postSigned(t, h, eventBody("ev-long", "Authorize"))
	assert.Equal(t, http.StatusOK, w.Code)
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.GreaterOrEqual(t, s.extends, 6, "extensions every 20 ms for 250 ms")
	assert.LessOrEqual(t, s.extends, 14)
	assert.Equal(t, []string{"claim " + dedupKey(hookCreds.AccessID, "ev-long"), fmt.Sprint("complete tok ", time.Hour+10*time.Minute)}, s.calls)
	n := s.extends
	s.mu.Unlock()
	time.Sleep(100 * time.Millisecond)
	s.mu.Lock()
	assert.Equal(t, n, s.extends, "extended after the callback returned")
}

// untilCanceled is a callback that runs until its context is canceled,
// records the cancellation's cause in *cause and returns it; after giveUp
// it returns nil (the callback ran on: the test's assertion on the
// response code then fails).
func untilCanceled(cause *error, giveUp time.Duration) func(context.Context, *Event) error {
	return func(ctx context.Context, _ *Event) error {
		select {
		case <-ctx.Done():
			*cause = context.Cause(ctx)
			return *cause
		case <-time.After(giveUp):
			return nil
		}
	}
}

// When an extension finds the claim no longer current, the callback's
// context is canceled with errClaimLost; its error responds 500 and the
// release carries the lost claim's token (which the store ignores).
func TestWebhookHandlerClaimLost(t *testing.T) {
	s := &extendingStore{ttl: 60 * time.Millisecond, lostAfter: 2}
	var cause error
	h := NewWebhookHandler(hookCreds, untilCanceled(&cause, 5*time.Second), WithDeduplicator(s))
	w := postSigned(t, h, eventBody("ev-lost", "Authorize"))
	assert.Equal(t, http.StatusInternalServerError, w.Code)
	assert.ErrorIs(t, cause, errClaimLost)
	s.mu.Lock()
	defer s.mu.Unlock()
	assert.Equal(t, 3, s.extends)
	assert.Equal(t, []string{"claim " + dedupKey(hookCreds.AccessID, "ev-lost"), "release tok"}, s.calls)
}

// returnUrl and cancelUrl are not signed by the merchant: they travel
// through the user's browser with the establish data, and the user can
// rewrite them. The service then signs, with the merchant's key, the
// user's URL plus its redirect parameters; with the older API versions it
// signs the query string alone. A user who puts event fields in that query
// gets a service signature over "eventId=…&createdAt=…&transactionId=…&
// status=2…": it must not pass for a notification, whatever redirect
// parameters the service appends (the minimal shape of transactionId,
// transactionType, merchantReference and status too).
func TestVerifyNotification_RewrittenReturnURL(t *testing.T) {
	creds := Credentials{AccessID: "AID-1", AccessKey: NewSecret(redirectKey), MerchantID: "M-1"}
	now := time.UnixMilli(1700000000000).UTC()
	userQuery := fmt.Sprintf("eventId=ev-forged&eventType=Completed&objectType=Transaction&objectId=100258999999999"+
		"&message=paid&createdAt=%d", now.UnixMilli())
	shapes := map[string]string{
		"minimal": "transactionId=100258123456789&transactionType=1&merchantReference=order-42&status=2",
		"cancel":  "transactionId=100258123456789&merchantReference=order-42&status=7",
		"full": "transactionId=100258123456789&transactionType=1&merchantReference=order-42&status=2" +
			"&payment.paymentType=2&payment.paymentProvider.type=1&panel=3",
	}
	var called int
	h := NewWebhookHandler(creds, func(context.Context, *Event) error { called++; return nil },
		WithWebhookClock(func() time.Time { return now }))
	for name, service := range shapes {
		for _, alg := range []sign.Algorithm{sign.SHA1, sign.SHA512} {
			signed := sign.SignRedirect(alg, redirectKey, "https://attacker.example/r?"+userQuery+"&"+service, true)
			msg, encSig, _, ok := sign.RedirectMessage(signed, true)
			require.True(t, ok)
			sig, err := url.QueryUnescape(encSig)
			require.NoError(t, err)
			body := url.QueryEscape(msg)
			auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds.AccessID+":"+sig))
			assert.ErrorIs(t, verifyErr(VerifyNotification([]byte(body), auth, creds)), ErrMalformedEvent, name)
			req := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(body))
			req.Header.Set("Authorization", auth)
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			assert.Equal(t, http.StatusBadRequest, rec.Code, name)
		}
	}
	assert.Zero(t, called, "a forged event reached the callback")
}

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
// re-encoding reads exactly the event of the service's own encoding, one
// handler runs the callback once for all of them, and a body that does
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

		// Each encoding to a handler of its own (each de-duplicates what it
		// saw only): the variant reads the canonical event.
		var seen []*Event
		newHandler := func() http.Handler {
			return NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { seen = append(seen, ev); return nil },
				WithWebhookClock(clock))
		}
		h := newHandler()
		cw, vw := post(t, h, canonical, auth, ct), post(t, newHandler(), variant, auth, ct)
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

		// One handler (its default de-duplication): once for both encodings.
		calls := 0
		dh := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { calls++; return nil },
			WithWebhookClock(clock))
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
			WithDeduplicator(newMemoryDeduplicator(10)), WithWebhookClock(func() time.Time { return clock }),
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
			require.NoError(t, verifyErr(VerifyNotification([]byte(v), auth, hookCreds)), "%s/%s: the attack must verify", shape, name)
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
			WithDeduplicator(newMemoryDeduplicator(10)), WithWebhookClock(func() time.Time { return clock }))
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
	t.Parallel() // waits for real read deadlines: beside the other waiting tests
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
		err := verifyErr(VerifyNotification(body, header, hookCreds))
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
		err = verifyErr(VerifyNotification(body, own, hookCreds))
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

// When the store cannot be reached to extend the claim, the claim runs out
// at the store (its TTL after the last extension) and another replica's
// delivery may take it and run the callback too: the handler cancels its
// callback with errClaimLost once the last extension's TTL is over, as when
// an extension finds the claim lost, instead of letting it run on.
func TestWebhookHandlerClaimRunsOutUnreachable(t *testing.T) {
	s := &extendingStore{ttl: 60 * time.Millisecond, failAfter: 1}
	var cause error
	h := NewWebhookHandler(hookCreds, untilCanceled(&cause, 2*time.Second), WithDeduplicator(s))
	start := time.Now()
	w := postSigned(t, h, eventBody("ev-unreachable", "Authorize"))
	assert.Equal(t, http.StatusInternalServerError, w.Code, "the callback ran on after its claim ran out")
	assert.ErrorIs(t, cause, errClaimLost)
	assert.Less(t, time.Since(start), time.Second)
}

// A JSON notification signed as sent whose values hold %-escapes: the
// handler reads it as sent (what the signature covers), but the documented
// pair VerifyNotification + ParseEvent reads the URL-decoded body, in which
// a value's %22 closes its string and opens a field that was never signed as
// a field (here a splitToken). The River inbox re-reads a verified body with
// ParseEvent in its worker, so its callback got the unsigned field too (see
// dedup/riverinbox, which now stores such a body escaped).
func TestVerifyNotification_ReturnsWhatItChecked(t *testing.T) {
	js := `{"eventId":"ev-pct","eventType":"Authorize","createdAt":"` + nowMillis() + `","objectId":"T1","objectType":"Transaction","status":"2",` +
		`"customerName":"Eve%22,%22splitToken%22:%22forged"}`
	auth := rawAuth(hookCreds.AccessID, hookCreds.AccessKey.Reveal(), js, false)
	var seen *Event
	h := NewWebhookHandler(hookCreds, func(_ context.Context, ev *Event) error { seen = ev; return nil })
	require.Equal(t, http.StatusOK, post(t, h, js, auth, "application/json").Code)
	require.NotNil(t, seen)
	assert.Empty(t, seen.Raw.Get("splitToken"), "the handler reads what was signed")

	// VerifyNotification returns the event as its signature covers it, as
	// the handler reads it (ParseEvent alone cannot know which reading was
	// signed, and reads the URL-decoding: its doc says to use this event).
	ev, err := VerifyNotification([]byte(js), auth, hookCreds)
	require.NoError(t, err)
	assert.Empty(t, ev.Raw.Get("splitToken"), "VerifyNotification's event holds a field that was not signed as a field")
	assert.Equal(t, seen.Raw, ev.Raw)
}

// fakeClock is a claimClock whose time moves only by Advance.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	at      time.Time
	c       chan time.Time
	stopped bool
}

func newFakeClock() *fakeClock { return &fakeClock{now: time.Unix(1_700_000_000, 0)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) TimerAt(at time.Time) (<-chan time.Time, func() bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{at: at, c: make(chan time.Time, 1)}
	if !at.After(c.now) {
		t.c <- c.now
		t.stopped = true
	} else {
		c.timers = append(c.timers, t)
	}
	return t.c, func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		was := t.stopped
		t.stopped = true
		return !was
	}
}

// Advance moves the clock by d and fires the timers due.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	live := c.timers[:0]
	for _, t := range c.timers {
		switch {
		case t.stopped:
		case !t.at.After(c.now):
			t.stopped = true
			t.c <- c.now
		default:
			live = append(live, t)
		}
	}
	c.timers = live
}

// unreachableStore is a Deduplicator with a claim TTL whose Extend succeeds
// for the first okExtends calls and then fails: the store out of reach.
type unreachableStore struct {
	ttl       time.Duration
	okExtends int32
	extends   atomic.Int32
	released  atomic.Bool
}

func (s *unreachableStore) ClaimTTL() time.Duration { return s.ttl }

func (s *unreachableStore) Claim(context.Context, string) (ClaimState, string, error) {
	return ClaimNew, "tok", nil
}

func (s *unreachableStore) Extend(context.Context, string, string) (time.Duration, error) {
	if s.extends.Add(1) > s.okExtends {
		return 0, errors.New("store out of reach")
	}
	return s.ttl, nil
}

func (s *unreachableStore) Complete(context.Context, string, string, time.Duration) error {
	return errors.New("store out of reach")
}

func (s *unreachableStore) Release(context.Context, string, string) error {
	s.released.Store(true)
	return nil
}

// The store is out of reach from the first Extend on: the handler knows
// when the claim runs out from Claim (the store's ClaimTTL) and cancels the
// callback then, not a step later (it ran 600 ms past a 1 s claim). When an
// Extend succeeded first, the claim runs out its TTL after that Extend was
// asked.
func TestWebhookHandlerCancelsAtClaimExpiry(t *testing.T) {
	const ttl = time.Second
	for _, tc := range []struct {
		name      string
		okExtends int32
		runsOut   time.Duration // after the claim
	}{
		{"every Extend fails", 0, ttl},
		{"one Extend succeeds", 1, firstExtension + ttl},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			s := &unreachableStore{ttl: ttl, okExtends: tc.okExtends}
			started, canceled := make(chan struct{}), make(chan error, 1)
			h := NewWebhookHandler(hookCreds, func(ctx context.Context, _ *Event) error {
				close(started)
				select {
				case <-ctx.Done():
					canceled <- context.Cause(ctx)
					return ctx.Err()
				case <-time.After(10 * time.Second):
					return nil
				}
			}, WithDeduplicator(s)).(*webhookHandler)
			h.clock = clock
			resp := make(chan *httptest.ResponseRecorder, 1)
			go func() { resp <- postSigned(t, h, eventBody("ev-unreachable", "Authorize")) }()
			<-started

			step := 10 * time.Millisecond
			var elapsed time.Duration
			for elapsed+step < tc.runsOut {
				clock.Advance(step)
				elapsed += step
				if elapsed == firstExtension && tc.okExtends > 0 {
					// The extension is asked at this instant.
					require.Eventually(t, func() bool { return s.extends.Load() == 1 }, 5*time.Second, time.Millisecond)
				}
				time.Sleep(time.Millisecond)
			}
			time.Sleep(50 * time.Millisecond)
			select {
			case err := <-canceled:
				t.Fatalf("canceled %v before the claim ran out: %v", elapsed, err)
			default:
			}
			clock.Advance(tc.runsOut - elapsed)
			select {
			case err := <-canceled:
				assert.ErrorIs(t, err, errClaimLost)
			case <-time.After(5 * time.Second):
				t.Fatal("the callback ran on after its claim ran out")
			}
			w := <-resp
			assert.Equal(t, http.StatusInternalServerError, w.Code)
			assert.True(t, s.released.Load(), "the failed callback's claim is released")
			assert.Greater(t, s.extends.Load(), tc.okExtends, "extensions were tried")
		})
	}
}

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
		w := postSigned(t, NewWebhookHandler(hookCreds, nil, WithDeduplicator(newMemoryDeduplicator(100))), fresh)
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

// The default memory must not forget a processed event while it can still
// be delivered (within the max age): a signed notification captured once
// (the user can point their own transaction's notificationUrl anywhere)
// would otherwise run the callback again, replayed after enough newer
// events were processed. Capacity 2 stands for the default's 10000.
func TestWebhookHandlerDefaultMemoryKeepsEventsWithinMaxAge(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn).(*webhookHandler)
	h.dedup = newMemoryDeduplicator(2)
	first := eventBody("ev-0", "Complete")
	require.Equal(t, http.StatusOK, postSigned(t, h, first).Code)
	for i := 1; i <= 3; i++ {
		w := postSigned(t, h, eventBody(fmt.Sprint("ev-", i), "Complete"))
		require.Equal(t, http.StatusOK, w.Code, "ev-%d: status %d", i, w.Code)
	}
	require.Equal(t, 4, rec.count())
	w := postSigned(t, h, first) // a replay, well within the max age
	assert.Equal(t, http.StatusOK, w.Code)
	assert.Equal(t, 4, rec.count(), "a replayed event ran the callback again once newer events filled the memory")
}
