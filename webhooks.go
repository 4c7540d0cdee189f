package bankpay

import (
	"context"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/sign"
)

// defaultMaxEventBytes caps the body of an event notification the webhook
// handler reads (1 MiB); a larger one gets a 413 response.
const defaultMaxEventBytes = 1 << 20

// defaultEventReadTimeout is how long the webhook handler waits for a
// notification's body, whatever the server's own timeouts. See
// WithEventReadTimeout.
const defaultEventReadTimeout = 5 * time.Second

// defaultMaxEventAge is how old (by its createdAt) an event the webhook
// handler accepts may be: 24 hours, twice the 12 hours for which the service
// re-sends an unacknowledged event. See WithMaxEventAge.
const defaultMaxEventAge = 24 * time.Hour

// VerifyNotification checks that body is an event notification from the
// service: the Authorization header must be "Basic " + Base64(accessId + ":"
// + signature), with the merchant's accessId, and signature the Base64
// HMAC-SHA1, keyed with the access key, of the URL-decoded body
// ("HmacSHA512:"-prefixed HMAC-SHA512 is accepted too); both comparisons are
// constant-time. A signed message that is not a notification (the
// establish data the merchant signs, a signed redirect URL, repeated or
// foreign fields, no eventId or createdAt) is refused with
// ErrMalformedEvent; the body is sniffed for JSON. body is the raw body.
//
// Errors (errors.Is): errEmptyCredentials, errMissingSignature,
// errMalformedAuthorization, errWrongAccessID, errUnsupportedAlgorithm,
// ErrInvalidSignature, ErrMalformedEvent. Reject the request on any error.
//
// VerifyNotification does not look at the event's age or eventId:
// NewWebhookHandler rejects events older than its max age and can
// de-duplicate eventIds; otherwise check Event.CreatedAt and the eventId
// yourself.
//
// Limitation: the signature covers the URL-decoded body, so it does not bind
// field boundaries. Fields are read from that signed message (ParseEvent
// too), so every encoding of a body reads the same fields, but a signed
// value that decodes to "&name=" reads as a field of its own:
// "merchantReference=ord-1%26errorCode%3D330" carries an errorCode. The SDK
// refuses '&', '=', '%', '+' and control characters in every
// merchantReference it sends; values the service generates cannot be fixed
// from the merchant's side. A repeated field is refused, so an injected field
// can only add one the event did not carry: do not act on an unexpected
// errorCode or status alone.
//
// A valid signature says that the service sent this event, not that the
// merchant receives every event: notificationUrl is not signed (see
// SignEstablishData) and travels through the user's browser or app with the
// establish data, so the user can redirect, withhold or time the
// notifications of their own transaction. Before acting on an event that
// moves money, reconcile the transaction's state with Transactions.Get, and
// do not take a missing event as "nothing happened".
func VerifyNotification(body []byte, authorizationHeader string, creds Credentials) error {
	msg, err := verifyNotification(nil, body, authorizationHeader, creds)
	if err == nil {
		_, err = parseNotification(msg, "")
	}
	if err != nil {
		return opErr("verify notification", err)
	}
	return nil
}

// verifyNotification checks the signature of body and returns the signed
// message: the fields are read from it, never from body.
func verifyNotification(macs *sign.MACCache, body []byte, header string, creds Credentials) (string, error) {
	if creds.AccessID == "" || creds.AccessKey.Reveal() == "" {
		return "", errEmptyCredentials
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return "", fmt.Errorf("%w: no Authorization header", errMissingSignature)
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return "", fmt.Errorf("%w: not Basic", errMalformedAuthorization)
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(token))
	if err != nil {
		return "", fmt.Errorf("%w: not Base64", errMalformedAuthorization)
	}
	id, sig, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return "", fmt.Errorf("%w: no accessId:signature pair", errMalformedAuthorization)
	}
	if subtle.ConstantTimeCompare([]byte(id), []byte(creds.AccessID)) != 1 {
		return "", errWrongAccessID
	}
	msg, err := sign.NotificationMessage(body)
	if err != nil {
		return "", fmt.Errorf("%w: body is not URL-decodable", ErrInvalidSignature)
	}
	if err := checkSignature(macs, creds.AccessKey.Reveal(), msg, sig, nil); err != nil {
		return "", err
	}
	return msg, nil
}

// SignNotification returns the Authorization header value the service would
// send with body: use it to test the merchant's own notification handling
// (see also the bankpaytest sandbox, which sends real notifications).
func SignNotification(body []byte, creds Credentials) (string, error) {
	if creds.AccessID == "" || creds.AccessKey.Reveal() == "" {
		return "", opErr("sign notification", errEmptyCredentials)
	}
	h, err := sign.NotificationAuthorization(creds.AccessID, creds.AccessKey.Reveal(), body)
	if err != nil {
		return "", opErr("sign notification", fmt.Errorf("%w: body is not URL-decodable", ErrInvalidSignature))
	}
	return h, nil
}

// WebhookOption configures NewWebhookHandler.
type WebhookOption func(*webhookHandler)

// WithDeduplicator makes the handler process each eventId once: a delivery
// of an eventId already processed gets a 200 response without calling any
// callback, one whose processing is under way in another request is
// responded 409 (the service re-sends it later), and a failed processing is
// released so that the next delivery runs again. Every accepted event has
// an eventId, read from the signed message whatever the body's encoding.
// See NewMemoryDeduplicator.
func WithDeduplicator(d Deduplicator) WebhookOption {
	return func(h *webhookHandler) { h.dedup = d }
}

// WithMaxEventBytes sets the body cap (defaultMaxEventBytes by default).
func WithMaxEventBytes(n int64) WebhookOption {
	return func(h *webhookHandler) {
		if n > 0 {
			h.maxBytes = n
		}
	}
}

// WithEventReadTimeout sets how long the handler waits for the body of a
// request (defaultEventReadTimeout when d <= 0). It sets the connection's
// read deadline itself (http.ResponseController), so a client that
// drip-feeds its body is cut off and responded 408; a server's shorter
// ReadTimeout is kept.
func WithEventReadTimeout(d time.Duration) WebhookOption {
	return func(h *webhookHandler) {
		if d > 0 {
			h.readTimeout = d
		}
	}
}

// WithMaxEventAge sets how old an event may be (defaultMaxEventAge; d <= 0
// disables the check). A signed notification never expires, and the service
// re-sends for 12 hours only, so a verified event whose createdAt is more
// than d before the handler's clock is a replay or hopelessly late: it is
// responded 400 (a 200 would hide it for good; not 401, the signature is
// valid), no callback runs, the Deduplicator does not record it, and it is
// reported to OnStaleEvent and the logger. createdAt is read from the signed
// message, so no encoding hides it; events dated in the future pass (clock
// skew). Size a Deduplicator for the eventIds of the max age.
func WithMaxEventAge(d time.Duration) WebhookOption {
	return func(h *webhookHandler) { h.maxAge = d }
}

// WithWebhookClock sets the clock the handler compares an event's createdAt
// with (time.Now by default). It is for tests: with the bankpaytest sandbox
// started at a fixed time (WithStartTime), give it the sandbox's clock,
// WithWebhookClock(sandbox.Now), so that its events are not seen as stale.
// A nil now keeps time.Now.
func WithWebhookClock(now func() time.Time) WebhookOption {
	return func(h *webhookHandler) {
		if now != nil {
			h.now = now
		}
	}
}

// OnStaleEvent calls fn for each verified event rejected because it is older
// than the max age (see WithMaxEventAge), with its age, before the handler
// responds 400. Use it to alert, count replays, or queue a reconciliation with
// Transactions.Get. fn must not block for long: the service waits 3 seconds.
func OnStaleEvent(fn func(ctx context.Context, ev *Event, age time.Duration)) WebhookOption {
	return func(h *webhookHandler) { h.onStale = fn }
}

// WithWebhookLogger logs rejected requests (at warn level, with the reason),
// stale events (at warn level, with their age), callback errors (at error
// level) and duplicates (at info level): never bodies, headers or
// credentials.
func WithWebhookLogger(l *slog.Logger) WebhookOption {
	return func(h *webhookHandler) { h.logger = l }
}

// OnDuplicate calls fn for each verified delivery of an eventId the
// Deduplicator reports already processed (the handler responds 200 and calls
// no other callback). Use it to count re-sends.
func OnDuplicate(fn func(context.Context, *Event)) WebhookOption {
	return func(h *webhookHandler) { h.onDuplicate = fn }
}

type webhookHandler struct {
	creds       Credentials
	macs        *sign.MACCache // keyed HMAC states of creds' key
	fn          func(context.Context, *Event) error
	dedup       Deduplicator
	maxBytes    int64
	logger      *slog.Logger
	onDuplicate func(context.Context, *Event)
	maxAge      time.Duration
	readTimeout time.Duration
	now         func() time.Time
	onStale     func(context.Context, *Event, time.Duration)
}

// NewWebhookHandler returns the http.Handler of the merchant's
// notificationUrl. Mount it on a ServeMux:
//
//	mux.Handle("POST /bankpay/events", bankpay.NewWebhookHandler(creds, handle))
//
// For each request it:
//   - responds 405 (with Allow: POST) to anything but POST;
//   - reads at most 1 MiB of body (WithMaxEventBytes), 413 beyond, within
//     5 seconds (WithEventReadTimeout), 408 beyond;
//   - checks the signature before decoding anything: 401 on failure, and
//     no callback is called (500 when creds are empty, a configuration
//     error);
//   - decodes the signed message, the URL-decoded body, like ParseEvent
//     (form-urlencoded or JSON): 400 when it is not a notification;
//   - responds 400 to an event whose createdAt is older than the max age
//     (24 hours by default, WithMaxEventAge): a replay of an old
//     notification, reported to OnStaleEvent and the logger;
//   - with WithDeduplicator, responds 200 to an eventId already processed
//     and 409 to one being processed;
//   - calls the callback of the event's kind (OnTransactionEvent,
//     OnIdentityDataRetrieved, OnIdentityVerified) or else fn, once, with
//     the request's context: an error responds 500, so the service re-sends
//     the event, and success responds 200. fn may be nil when the typed
//     callbacks cover what the merchant needs; other events are then
//     acknowledged.
//
// The service wants 200 within 3 seconds and re-sends every 5 minutes for 12
// hours otherwise: keep callbacks short (store the event, work later) and
// idempotent.
//
// An event is a signed hint, not the money state. The notificationUrl it is
// sent to is not signed and travels through the user's browser or app with
// the establish data handed to a front-end SDK, so the user can redirect,
// withhold or time the notifications of their own transaction (see
// VerifyNotification). Before acting on an event that moves money, read the
// transaction with Transactions.Get and act on its status; reconcile pending
// transactions with Transactions.Get on a schedule too, rather than waiting
// for an event that may never come.
func NewWebhookHandler(creds Credentials, fn func(context.Context, *Event) error, opts ...WebhookOption) http.Handler {
	h := &webhookHandler{creds: creds, macs: &sign.MACCache{}, fn: fn, maxBytes: defaultMaxEventBytes,
		maxAge: defaultMaxEventAge, readTimeout: defaultEventReadTimeout, now: time.Now}
	for _, o := range opts {
		if o != nil {
			o(h)
		}
	}
	return h
}

func (h *webhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reply(w, http.StatusMethodNotAllowed)
		return
	}
	if r.ContentLength > h.maxBytes {
		h.reject(ctx, w, r, http.StatusRequestEntityTooLarge, errors.New("body over the cap"))
		return
	}
	// The handler's own read deadline, whatever the server's timeouts
	// (net/http lifts it once the body is read: a slow callback keeps its
	// context). A ResponseWriter without deadlines is read as it is.
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(h.readTimeoutFor(r)))
	// The body is read into a pooled buffer: the signed message is a copy,
	// so nothing refers to it afterwards.
	buf := getBuffer()
	defer putBuffer(buf)
	body, err := readCapped(*buf, http.MaxBytesReader(w, r.Body, h.maxBytes), h.maxBytes)
	*buf = body[:0]
	if err != nil {
		var tooLarge *http.MaxBytesError
		switch {
		case errors.As(err, &tooLarge) || errors.Is(err, errResponseTooLarge):
			h.reject(ctx, w, r, http.StatusRequestEntityTooLarge, errors.New("body over the cap"))
		case errors.Is(err, os.ErrDeadlineExceeded):
			w.Header().Set("Connection", "close")
			h.reject(ctx, w, r, http.StatusRequestTimeout, errors.New("body not read within the read timeout"))
		default:
			h.reject(ctx, w, r, http.StatusBadRequest, errors.New("body unreadable"))
		}
		return
	}

	auth := r.Header.Values("Authorization")
	header := ""
	if len(auth) == 1 {
		header = auth[0]
	} else if len(auth) > 1 {
		header = "repeated" // not Basic: errMalformedAuthorization
	}
	msg, err := verifyNotification(h.macs, body, header, h.creds)
	if err != nil {
		err = opErr("verify notification", err)
		if errors.Is(err, errEmptyCredentials) {
			h.reject(ctx, w, r, http.StatusInternalServerError, err)
			return
		}
		w.Header().Set("WWW-Authenticate", `Basic realm="bankpay"`)
		h.reject(ctx, w, r, http.StatusUnauthorized, err)
		return
	}

	ev, err := parseNotification(msg, r.Header.Get("Content-Type"))
	if err != nil {
		h.reject(ctx, w, r, http.StatusBadRequest, err)
		return
	}
	if age, stale := h.stale(ev); stale {
		if h.logger != nil {
			h.logger.LogAttrs(ctx, slog.LevelWarn, "bankpay: webhook: stale event rejected",
				slog.Int("status", http.StatusBadRequest), slog.String("remoteAddr", r.RemoteAddr),
				slog.String("eventId", ev.EventID), slog.String("eventType", string(ev.EventType)),
				slog.Time("createdAt", ev.CreatedAt), slog.Duration("age", age), slog.Duration("maxAge", h.maxAge))
		}
		if h.onStale != nil {
			h.onStale(ctx, ev, age)
		}
		h.reply(w, http.StatusBadRequest)
		return
	}
	h.reply(w, h.process(ctx, ev))
}

// readTimeoutFor is the handler's read timeout, or the server's ReadTimeout
// when that is shorter: the handler's deadline replaces the server's.
func (h *webhookHandler) readTimeoutFor(r *http.Request) time.Duration {
	if srv, ok := r.Context().Value(http.ServerContextKey).(*http.Server); ok && srv.ReadTimeout > 0 && srv.ReadTimeout < h.readTimeout {
		return srv.ReadTimeout
	}
	return h.readTimeout
}

// stale reports whether ev is older than the max age, and its age.
func (h *webhookHandler) stale(ev *Event) (time.Duration, bool) {
	if h.maxAge <= 0 {
		return 0, false
	}
	age := h.now().Sub(ev.CreatedAt)
	return age, age > h.maxAge
}

// process runs the callbacks of a verified event and returns the status to
// response.
func (h *webhookHandler) process(ctx context.Context, ev *Event) (status int) {
	claimed := false
	if h.dedup != nil {
		st, err := h.dedup.Claim(ctx, ev.EventID)
		if err != nil {
			h.log(ctx, slog.LevelError, "bankpay: webhook: de-duplication store failed", ev, err)
			return http.StatusInternalServerError
		}
		switch st {
		case ClaimDone:
			h.log(ctx, slog.LevelInfo, "bankpay: webhook: duplicate event", ev, nil)
			if h.onDuplicate != nil {
				h.onDuplicate(ctx, ev)
			}
			return http.StatusOK
		case ClaimInProgress:
			h.log(ctx, slog.LevelInfo, "bankpay: webhook: event already in progress", ev, nil)
			return http.StatusConflict
		}
		claimed = true
	}

	done := false
	defer func() {
		if claimed && !done {
			// The callback failed or panicked: let the next delivery run it.
			if err := h.dedup.Release(context.WithoutCancel(ctx), ev.EventID); err != nil {
				h.log(ctx, slog.LevelError, "bankpay: webhook: releasing the event failed", ev, err)
			}
		}
	}()
	if err := h.dispatch(ctx, ev); err != nil {
		h.log(ctx, slog.LevelError, "bankpay: webhook: callback failed", ev, err)
		return http.StatusInternalServerError
	}
	done = true
	if claimed {
		if err := h.dedup.Complete(context.WithoutCancel(ctx), ev.EventID); err != nil {
			h.log(ctx, slog.LevelError, "bankpay: webhook: recording the event failed", ev, err)
		}
	}
	return http.StatusOK
}

// dispatch calls fn; a nil fn acknowledges every event.
func (h *webhookHandler) dispatch(ctx context.Context, ev *Event) error {
	if h.fn != nil {
		return h.fn(ctx, ev)
	}
	return nil
}

func (h *webhookHandler) reply(w http.ResponseWriter, status int) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, http.StatusText(status)+"\n")
}

func (h *webhookHandler) reject(ctx context.Context, w http.ResponseWriter, r *http.Request, status int, err error) {
	if h.logger != nil {
		h.logger.LogAttrs(ctx, slog.LevelWarn, "bankpay: webhook: request rejected",
			slog.Int("status", status), slog.String("remoteAddr", r.RemoteAddr), slog.String("reason", err.Error()))
	}
	h.reply(w, status)
}

func (h *webhookHandler) log(ctx context.Context, level slog.Level, msg string, ev *Event, err error) {
	if h.logger == nil || !h.logger.Enabled(ctx, level) {
		return
	}
	attrs := []slog.Attr{slog.String("eventId", ev.EventID), slog.String("eventType", string(ev.EventType))}
	if err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	h.logger.LogAttrs(ctx, level, msg, attrs...)
}
