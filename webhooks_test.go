package bankpay

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// hookCreds are the merchant's credentials in the webhook tests.
var hookCreds = Credentials{AccessID: "hook-access-id", AccessKey: NewSecret("hook-s3cret-key"), MerchantID: "M1"}

// authFor is the Authorization header the service sends, computed by the
// test: Basic base64(accessId:Base64(HMAC-SHA1(key, URL-decoded body))).
func authFor(t testing.TB, id, key, body string) string {
	t.Helper()
	msg, err := url.QueryUnescape(body)
	if err != nil {
		t.Fatalf("test body not URL-decodable: %v", err)
	}
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
	if err := VerifyNotification([]byte(body), good, hookCreds); err != nil {
		t.Fatalf("valid: %v", err)
	}
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
		err := VerifyNotification([]byte(tc.body), tc.header, tc.creds)
		if !errors.Is(err, tc.want) {
			t.Errorf("%s: %v, want %v", name, err, tc.want)
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, hookCreds.AccessKey.Reveal()) || strings.Contains(msg, sig) || strings.Contains(msg, "guessed-key") {
			t.Errorf("%s: error shows key material: %s", name, msg)
		}
		if !strings.HasPrefix(msg, "bankpay: verify notification: ") {
			t.Errorf("%s: message %q", name, msg)
		}
	}
	// The reasons are distinct, each is an ErrInvalidSignature; empty
	// credentials are a configuration error, not a signature failure.
	all := []error{errMissingSignature, errWrongAccessID, errMalformedAuthorization, errUnsupportedAlgorithm}
	for i, a := range all {
		if !errors.Is(a, ErrInvalidSignature) {
			t.Errorf("%v does not match ErrInvalidSignature", a)
		}
		for j, b := range all {
			if i != j && errors.Is(a, b) {
				t.Errorf("%v matches %v", a, b)
			}
		}
	}
	if errors.Is(errEmptyCredentials, ErrInvalidSignature) || !isValidation(errEmptyCredentials) {
		t.Errorf("empty credentials: %v", errEmptyCredentials)
	}
}

func TestVerifyNotificationVariants(t *testing.T) {
	body := "eventId=e1&createdAt=1&message=two+words&statusMessage=a%20b"
	// The message is the URL-decoded body: "+" and %20 both are spaces.
	sig := hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), "eventId=e1&createdAt=1&message=two words&statusMessage=a b")
	cred := base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID + ":" + sig))
	for _, h := range []string{"Basic " + cred, "basic " + cred, "BASIC   " + cred + " "} {
		if err := VerifyNotification([]byte(body), h, hookCreds); err != nil {
			t.Errorf("%q: %v", h, err)
		}
	}
	sig512 := "HmacSHA512:" + hmacB64(sha512.New, hookCreds.AccessKey.Reveal(), "eventId=e1&createdAt=1&message=two words&statusMessage=a b")
	h512 := "Basic " + base64.StdEncoding.EncodeToString([]byte(hookCreds.AccessID+":"+sig512))
	if err := VerifyNotification([]byte(body), h512, hookCreds); err != nil {
		t.Errorf("SHA-512: %v", err)
	}
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
	if w.Code != http.StatusOK || rec.count() != 1 {
		t.Fatalf("status %d, calls %d", w.Code, rec.count())
	}
	ev := rec.events[0]
	if ev.EventID != "ev-1" || ev.kind() != eventKindTransaction || ev.Transaction.Status != models.StatusAuthorized ||
		ev.TransactionID() != "100258123456789" {
		t.Errorf("event %+v", ev)
	}
	// JSON bodies too.
	body := `{"eventId":"ev-j","eventType":"Completed","status":4,"objectId":"T","createdAt":` + nowMillis() + `}`
	w = post(t, h, body, authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body), "application/json")
	if w.Code != http.StatusOK || rec.count() != 2 || rec.events[1].Transaction.Status != models.StatusCompleted {
		t.Errorf("JSON: status %d, calls %d", w.Code, rec.count())
	}
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
		if w.Code != tc.want {
			t.Errorf("%s: status %d, want %d", name, w.Code, tc.want)
		}
		if rec.count() != 0 {
			t.Errorf("%s: fn called for a rejected request", name)
		}
		switch w.Code {
		case http.StatusMethodNotAllowed:
			if w.Header().Get("Allow") != http.MethodPost {
				t.Errorf("%s: Allow %q", name, w.Header().Get("Allow"))
			}
		case http.StatusUnauthorized:
			if w.Header().Get("WWW-Authenticate") == "" {
				t.Errorf("%s: no WWW-Authenticate", name)
			}
		}
		if strings.Contains(w.Body.String(), hookCreds.AccessKey.Reveal()) {
			t.Errorf("%s: key in response", name)
		}
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
	if w.Code != http.StatusUnauthorized || rec.count() != 0 {
		t.Errorf("status %d calls %d", w.Code, rec.count())
	}
}

func TestWebhookHandlerBodyCap(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn)
	// A signed body just over 1 MiB: the signature is never looked at.
	big := eventBody("ev-big", "Authorize") + "&pad=" + strings.Repeat("a", defaultMaxEventBytes)
	auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), big)
	if w := post(t, h, big, auth, formType); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("declared length: status %d", w.Code)
	}
	// Without a Content-Length (chunked), the read itself stops at the cap.
	req := httptest.NewRequest(http.MethodPost, "/", io.MultiReader(strings.NewReader(big)))
	req.ContentLength = -1
	req.Header.Set("Authorization", auth)
	req.Header.Set("Content-Type", formType)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, req)
	if w.Code != http.StatusRequestEntityTooLarge || rec.count() != 0 {
		t.Errorf("chunked: status %d calls %d", w.Code, rec.count())
	}
	// Exactly at the cap is fine.
	exact := eventBody("ev-exact", "Authorize")
	exact += "&pad=" + strings.Repeat("a", defaultMaxEventBytes-len(exact)-len("&pad="))
	if w := postSigned(t, h, exact); w.Code != http.StatusOK || rec.count() != 1 {
		t.Errorf("at the cap: status %d calls %d", w.Code, rec.count())
	}
	// A smaller cap.
	h = NewWebhookHandler(hookCreds, rec.fn, withMaxEventBytes(100))
	if w := postSigned(t, h, eventBody("ev-2", "Authorize")); w.Code != http.StatusRequestEntityTooLarge {
		t.Errorf("custom cap: status %d", w.Code)
	}
}

func TestWebhookHandlerCallbackError(t *testing.T) {
	rec := recorder{err: errors.New("database down: dsn=postgres://u:p@db")}
	h := NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(NewMemoryDeduplicator(10)))
	body := eventBody("ev-1", "Authorize")
	w := postSigned(t, h, body)
	if w.Code != http.StatusInternalServerError || rec.count() != 1 {
		t.Fatalf("status %d calls %d", w.Code, rec.count())
	}
	if strings.Contains(w.Body.String(), "database") {
		t.Error("callback error sent to the caller")
	}
	// The service re-sends: the failed event runs again, and succeeds.
	rec.err = nil
	if w := postSigned(t, h, body); w.Code != http.StatusOK || rec.count() != 2 {
		t.Errorf("re-send: status %d calls %d", w.Code, rec.count())
	}
	if w := postSigned(t, h, body); w.Code != http.StatusOK || rec.count() != 2 {
		t.Errorf("duplicate: status %d calls %d", w.Code, rec.count())
	}
}

func TestWebhookHandlerEmptyCredentials(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(Credentials{AccessID: hookCreds.AccessID}, rec.fn)
	if w := postSigned(t, h, eventBody("ev-1", "Authorize")); w.Code != http.StatusInternalServerError || rec.count() != 0 {
		t.Errorf("status %d calls %d", w.Code, rec.count())
	}
}

func TestWebhookHandlerDuplicates(t *testing.T) {
	var rec recorder
	var logs bytes.Buffer
	dups := func() []string { return logLines(logs.String(), "duplicate event") }
	dedup := NewMemoryDeduplicator(100)
	h := NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(dedup),
		WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	body := eventBody("ev-1", "Authorize")
	for i := 0; i < 3; i++ {
		if w := postSigned(t, h, body); w.Code != http.StatusOK {
			t.Fatalf("delivery %d: status %d", i, w.Code)
		}
	}
	if rec.count() != 1 {
		t.Errorf("fn called %d times for one eventId", rec.count())
	}
	if d := dups(); len(d) != 2 || !strings.Contains(d[0], "eventId=ev-1") {
		t.Errorf("duplicates logged: %v", d)
	}
	if st, _ := dedup.Claim(context.Background(), "ev-1"); st != ClaimDone {
		t.Errorf("hook state %v", st)
	}
	// Another eventId is processed; a forged replay is still rejected first.
	if w := postSigned(t, h, eventBody("ev-2", "Process")); w.Code != http.StatusOK || rec.count() != 2 {
		t.Errorf("second event: %d %d", w.Code, rec.count())
	}
	if w := post(t, h, body, authFor(t, hookCreds.AccessID, "x", body), formType); w.Code != http.StatusUnauthorized || len(dups()) != 2 {
		t.Errorf("forged replay: %d, dups %v", w.Code, dups())
	}
	// Events without an eventId are refused: they could not be de-duplicated.
	noID := "eventType=Update&status=2&createdAt=" + nowMillis()
	if w := postSigned(t, h, noID); w.Code != http.StatusBadRequest || rec.count() != 2 {
		t.Errorf("no eventId: status %d calls %d", w.Code, rec.count())
	}
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
	}, WithDeduplicator(NewMemoryDeduplicator(0)))
	body := eventBody("ev-1", "Authorize")
	first := make(chan int)
	go func() { first <- postSigned(t, h, body).Code }()
	<-entered
	if w := postSigned(t, h, body); w.Code != http.StatusConflict {
		t.Errorf("while in progress: status %d", w.Code)
	}
	close(release)
	if code := <-first; code != http.StatusOK {
		t.Errorf("first: %d", code)
	}
	if w := postSigned(t, h, body); w.Code != http.StatusOK || calls.Load() != 1 {
		t.Errorf("after: status %d calls %d", w.Code, calls.Load())
	}
}

func TestWebhookHandlerPanicReleasesClaim(t *testing.T) {
	var calls atomic.Int32
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error {
		if calls.Add(1) == 1 {
			panic("boom")
		}
		return nil
	}, WithDeduplicator(NewMemoryDeduplicator(10)))
	body := eventBody("ev-1", "Authorize")
	func() {
		defer func() {
			if recover() == nil {
				t.Error("panic swallowed")
			}
		}()
		postSigned(t, h, body)
	}()
	if w := postSigned(t, h, body); w.Code != http.StatusOK || calls.Load() != 2 {
		t.Errorf("after panic: status %d calls %d", w.Code, calls.Load())
	}
}

type failingStore struct{ claimErr, completeErr error }

func (f failingStore) Claim(context.Context, string) (ClaimState, error) { return ClaimNew, f.claimErr }
func (f failingStore) Complete(context.Context, string) error            { return f.completeErr }
func (f failingStore) Release(context.Context, string) error             { return nil }

func TestWebhookHandlerStoreErrors(t *testing.T) {
	var rec recorder
	h := NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(failingStore{claimErr: errors.New("store down")}))
	if w := postSigned(t, h, eventBody("ev-1", "Authorize")); w.Code != http.StatusInternalServerError || rec.count() != 0 {
		t.Errorf("claim error: status %d calls %d", w.Code, rec.count())
	}
	h = NewWebhookHandler(hookCreds, rec.fn, WithDeduplicator(failingStore{completeErr: errors.New("store down")}))
	if w := postSigned(t, h, eventBody("ev-1", "Authorize")); w.Code != http.StatusOK || rec.count() != 1 {
		t.Errorf("complete error after success: status %d calls %d", w.Code, rec.count())
	}
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
	if w := postSigned(t, h, minimal("ev-3", "CustomerIdentityVerified", "KYC+Result=FINISHED")); w.Code != http.StatusInternalServerError {
		t.Errorf("typed callback error: status %d", w.Code)
	}
	postSigned(t, h, minimal("ev-4", "Chargeback"))
	want := []string{"txn:ev-1:Authorized", "data:SUCCESS", "verified:FINISHED", "other:ev-4"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("typed payloads got %v", got)
	}

	// fn may be nil: every event is acknowledged.
	h = NewWebhookHandler(hookCreds, nil)
	if w := postSigned(t, h, minimal("ev-5", "Chargeback")); w.Code != http.StatusOK {
		t.Errorf("nil fn: %d", w.Code)
	}
}

func TestWebhookHandlerLogsNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { return errors.New("fail") },
		WithLogger(logger), WithDeduplicator(NewMemoryDeduplicator(10)))
	body := eventBody("ev-1", "Authorize")
	post(t, h, body, authFor(t, hookCreds.AccessID, "wrong", body), formType)
	postSigned(t, h, body)
	out := buf.String()
	if !strings.Contains(out, "request rejected") || !strings.Contains(out, "callback failed") || !strings.Contains(out, "ev-1") {
		t.Errorf("log:\n%s", out)
	}
	sig := hmacB64(sha1.New, hookCreds.AccessKey.Reveal(), body)
	for _, secret := range []string{hookCreds.AccessKey.Reveal(), sig, "order-42", "Basic "} {
		if strings.Contains(out, secret) {
			t.Errorf("log shows %q:\n%s", secret, out)
		}
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
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", formType)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	body := eventBody("ev-1", "Authorize")
	if code := send(http.MethodPost, body, authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body)); code != http.StatusOK {
		t.Errorf("signed: %d", code)
	}
	if code := send(http.MethodPost, body, authFor(t, hookCreds.AccessID, "forged", body)); code != http.StatusUnauthorized {
		t.Errorf("forged: %d", code)
	}
	if code := send(http.MethodGet, "", ""); code != http.StatusMethodNotAllowed {
		t.Errorf("GET: %d", code)
	}
	if rec.count() != 1 {
		t.Errorf("calls %d", rec.count())
	}
}

// TestWebhookHandlerMaxEventAge: a verified event older than the max age (24
// hours by default) gets a 400 response without any callback, is not recorded
// by the Deduplicator, and is logged at warn level with its age;
// events at the limit, from the future, or without createdAt pass, and a
// max age <= 0 turns the check off.
func TestWebhookHandlerMaxEventAge(t *testing.T) {
	created := time.UnixMilli(1700000000000).UTC()
	clock := created
	now := func() time.Time { return clock }
	var logs bytes.Buffer
	var rec recorder
	dedup := NewMemoryDeduplicator(10)
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
		{"from the future", "ev-future", -time.Hour, http.StatusOK},
		{"a millisecond too old", "ev-old", defaultMaxEventAge + time.Millisecond, http.StatusBadRequest},
		{"a year old", "ev-year", 365 * 24 * time.Hour, http.StatusBadRequest},
	} {
		clock = created.Add(tc.after)
		before := rec.count()
		w := postSigned(t, h, eventBodyAt(tc.id, "Authorize", created))
		if w.Code != tc.want {
			t.Errorf("%s: status %d, want %d", tc.name, w.Code, tc.want)
		}
		if called := rec.count() - before; (called == 1) != (tc.want == http.StatusOK) {
			t.Errorf("%s: fn called %d times", tc.name, called)
		}
	}
	stales := logLines(logs.String(), "stale event rejected")
	if len(stales) != 2 || !strings.Contains(stales[0], "eventId=ev-old") || !strings.Contains(stales[0], "age=24h0m0.001s") ||
		!strings.Contains(stales[1], "eventId=ev-year") || !strings.Contains(stales[1], "age=8760h0m0s") {
		t.Errorf("stale events logged: %q", stales)
	}
	// The stale event was not claimed: it is still new to the store.
	if st, _ := dedup.Claim(context.Background(), "ev-old"); st != ClaimNew {
		t.Errorf("stale event recorded by the deduplicator: %v", st)
	}
	out := logs.String()
	if !strings.Contains(out, "stale event rejected") || !strings.Contains(out, "eventId=ev-old") ||
		!strings.Contains(out, "age=24h0m0.001s") || strings.Contains(out, "order-42") {
		t.Errorf("log:\n%s", out)
	}

	// Without createdAt: refused, whatever the clock (the age is unknown).
	before := rec.count()
	if w := postSigned(t, h, "eventId=ev-nodate&eventType=Authorize&status=2"); w.Code != http.StatusBadRequest || rec.count() != before {
		t.Errorf("no createdAt: status %d", w.Code)
	}

	// A custom max age, and the check turned off.
	old := eventBodyAt("ev-2h", "Authorize", created)
	clock = created.Add(2 * time.Hour)
	for _, tc := range []struct {
		maxAge time.Duration
		want   int
	}{{time.Hour, http.StatusBadRequest}, {3 * time.Hour, http.StatusOK}, {0, http.StatusOK}, {-time.Second, http.StatusOK}} {
		var rec recorder
		h := NewWebhookHandler(hookCreds, rec.fn, WithWebhookClock(now), WithMaxEventAge(tc.maxAge))
		if w := postSigned(t, h, old); w.Code != tc.want || (rec.count() == 1) != (tc.want == http.StatusOK) {
			t.Errorf("max age %v: status %d, calls %d", tc.maxAge, w.Code, rec.count())
		}
	}

	// The default clock is the real one: a notification from 2023 is stale.
	rec = recorder{}
	h = NewWebhookHandler(hookCreds, rec.fn)
	if w := postSigned(t, h, old); w.Code != http.StatusBadRequest || rec.count() != 0 {
		t.Errorf("real clock: status %d, calls %d", w.Code, rec.count())
	}
	// A forged stale event is still a 401: the signature is checked first.
	if w := post(t, h, old, authFor(t, hookCreds.AccessID, "x", old), formType); w.Code != http.StatusUnauthorized {
		t.Errorf("forged stale event: status %d", w.Code)
	}
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
		if err := VerifyNotification([]byte(body), auth, hookCreds); err != nil {
			t.Fatalf("%s: %v", body, err)
		}
		ev, err := ParseEvent([]byte(body), formType)
		if err != nil || ev.MerchantReference != "ord-1" || ev.Transaction.ErrorCode != "330" {
			t.Fatalf("%s: %+v %v", body, ev, err)
		}
	}
	// A field the event already carries cannot be overridden: a repeated
	// field is not a notification, in any encoding.
	dup := "eventId=ev-1&createdAt=1&eventType=Authorize&merchantReference=ord-1%26status%3D7&status=2"
	for _, body := range []string{dup, "eventId=ev-1&createdAt=1&eventType=Authorize&merchantReference=ord-1&status=7&status=2"} {
		err := VerifyNotification([]byte(body), authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), dup), hookCreds)
		if !errors.Is(err, ErrMalformedEvent) {
			t.Errorf("repeated status: %v", err)
		}
		if _, err := ParseEvent([]byte(body), formType); !errors.Is(err, ErrMalformedEvent) {
			t.Errorf("repeated status: %v", err)
		}
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
		if err != nil {
			t.Fatal(err)
		}
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
		},
		"VerifyNotification": {"ErrInvalidSignature", "Security section"},
		"NewWebhookHandler":  {"Transactions.Get", "Security section", "stale events"},
		"VerifyRedirect": {
			"it never expires", "check MerchantReference", "TransactionID against the transactionId",
			"act at most once per TransactionID", "RedirectExpectReference",
		},
	} {
		for _, must := range musts {
			if !strings.Contains(docs[name], must) {
				t.Errorf("%s godoc does not say %q", name, must)
			}
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
