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
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/bankpay/bankpay-go/internal/pipeline"
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

// maxEventSkew is how far ahead of the handler's clock an event's createdAt
// may be: 5 minutes, as Standard Webhooks allows. A later one gets 400: it
// would never be stale, so once forgotten it could be replayed for ever. A
// done mark is kept for the max age plus twice this skew (see
// Deduplicator.Complete).
const maxEventSkew = 5 * time.Minute

// firstExtension is how long a callback runs before the handler first
// extends its claim; later extensions come every third of the TTL the
// store's Extend returned.
const firstExtension = 100 * time.Millisecond

// extendTimeout bounds one Extend: a store that does not answer does not
// hold the response back once the callback has returned.
const extendTimeout = 2 * time.Second

// VerifyNotification checks that body (the raw request body) is an event
// notification signed with creds: the Authorization header is "Basic " +
// Base64(accessId:signature) with the merchant's accessId and the HMAC of
// the URL-decoded body, as documented. A JSON body (one whose first
// character is "{") may also be signed as sent, when URL-decoding is
// impossible for it (a literal "%") or changes it (a "+" or "%" in a
// value): the same key and the same constant-time comparison check it. No
// establish data or redirect is a JSON object, so no other signature the
// key makes verifies as a notification. A bad signature fails with
// ErrInvalidSignature (the message says why), a signed body that is not a
// notification with ErrMalformedEvent, empty creds with a *ValidationError.
// Reject the request on any error. On success it returns the event read
// from what the signature covers (a JSON body signed as sent is read as
// sent): act on this event, not on ParseEvent of the same body, which
// cannot know which reading was signed. It does not check the event's age
// or eventId (the handler does); see the Security section of the package
// documentation.
func VerifyNotification(body []byte, authorizationHeader string, creds Credentials) (*Event, error) {
	sb, err := verifyNotification(nil, body, authorizationHeader, creds, "")
	if err != nil {
		return nil, opErr("verify notification", err)
	}
	ev, err := parseNotification(sb, "")
	if err != nil {
		return nil, opErr("verify notification", err)
	}
	return ev, nil
}

// verifyNotification checks the signature of body (of type contentType,
// "" when unknown) and returns it with what the signature covers: the
// fields are read from what is signed (see signedBody).
func verifyNotification(macs *sign.MACCache, body []byte, header string, creds Credentials, contentType string) (signedBody, error) {
	if creds.AccessID == "" || creds.AccessKey.Reveal() == "" {
		return signedBody{}, errEmptyCredentials
	}
	header = strings.TrimSpace(header)
	if header == "" {
		return signedBody{}, fmt.Errorf("%w: no Authorization header", errMissingSignature)
	}
	scheme, token, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Basic") {
		return signedBody{}, fmt.Errorf("%w: not Basic", errMalformedAuthorization)
	}
	decoded, err := base64.StdEncoding.DecodeString(strings.TrimSpace(token))
	if err != nil {
		return signedBody{}, fmt.Errorf("%w: not Base64", errMalformedAuthorization)
	}
	id, sig, ok := strings.Cut(string(decoded), ":")
	if !ok {
		return signedBody{}, fmt.Errorf("%w: no accessId:signature pair", errMalformedAuthorization)
	}
	if subtle.ConstantTimeCompare([]byte(id), []byte(creds.AccessID)) != 1 {
		return signedBody{}, errWrongAccessID
	}
	key := creds.AccessKey.Reveal()
	msg, derr := sign.NotificationMessage(body)
	sb := signedBody{body: body, msg: msg, decoded: derr == nil}
	if sb.decoded {
		// The documented signature: over the URL-decoded body. Only a
		// mismatch (checkSignature's bare ErrInvalidSignature) tries the
		// body as sent; success or a missing or unsupported signature ends
		// here.
		if err = checkSignature(macs, key, msg, sig, nil); err != ErrInvalidSignature {
			return sb, err
		}
	} else {
		err = fmt.Errorf("%w: body is not URL-decodable", ErrInvalidSignature)
	}
	// A JSON body whose URL-decoding is impossible or changes it may be
	// signed as sent: the same key, the same comparison. Only a JSON
	// object is: no establish data or redirect the key signs is one.
	if rawJSONObject(body, contentType) && (!sb.decoded || msg != string(body)) {
		if checkSignature(macs, key, string(body), sig, nil) == nil {
			sb.rawSigned = true
			return sb, nil
		}
	}
	return signedBody{}, err
}

// WithDeduplicator gives the webhook handler a shared de-duplication store
// (dedup/pgdedup, dedup/redisdedup, or the merchant's own Deduplicator), in
// place of the memory of its own it uses by default: replicas behind a load
// balancer, or a process that restarts, then run each event's callback once
// between them. With either, the handler processes each event (the
// accessId's eventId) once: one already processed gets 200 without a
// callback, one in progress gets 409 (the service re-sends it), and a failed
// one is released for the next delivery. While the callback runs the
// handler extends its claim (first after 100 ms, then every third of the
// store's claim TTL); when the claim is lost anyway, or runs out while the
// store is out of reach, the callback's context is canceled with the cause
// "the event's claim was lost". The run-out time is the claim's (the TTL of
// a store with a ClaimTTL method, counted from before Claim was asked, see
// Deduplicator), then each successful Extend's: a store unreachable from
// the first Extend on still cancels the callback when its claim runs out.
// Handler only.
func WithDeduplicator(d Deduplicator) WebhookOption {
	return WebhookOption(option("WithDeduplicator", forHandler, func(cfg *config) {
		if d == nil || reflect.ValueOf(d).Kind() == reflect.Pointer && reflect.ValueOf(d).IsNil() {
			cfg.fail(invalid("deduplicator", "must not be nil"))
			return
		}
		cfg.dedup = d
	}))
}

// withMaxEventBytes sets the body cap (1 MiB by default; 413 beyond). Tests only.
func withMaxEventBytes(n int64) WebhookOption {
	return WebhookOption(option("withMaxEventBytes", forHandler, func(cfg *config) {
		if n > 0 {
			cfg.maxEventBytes = n
		}
	}))
}

// WithEventReadTimeout sets how long the webhook handler waits for a
// request's body (5s by default; 408 beyond), whatever the server's own
// timeouts. Handler only.
func WithEventReadTimeout(d time.Duration) WebhookOption {
	return WebhookOption(option("WithEventReadTimeout", forHandler, func(cfg *config) {
		if d > 0 {
			cfg.eventReadTimeout = d
		}
	}))
}

// WithMaxEventAge sets how old (by its signed createdAt) an event may be:
// 24 hours by default, d <= 0 disables the check. An older event gets 400,
// no callback runs, and the logger records it at warn level (see the
// Security section of the package documentation). An event dated more than
// 5 minutes ahead of the handler's clock gets 400 too, whatever the max age.
// A Deduplicator keeps done marks for the max age plus 10 minutes (twice
// that skew), or as long as it can when the check is off. Handler only.
func WithMaxEventAge(d time.Duration) WebhookOption {
	return WebhookOption(option("WithMaxEventAge", forHandler, func(cfg *config) { cfg.maxEventAge = d }))
}

// WithWebhookClock sets the webhook handler's clock (time.Now by default),
// for tests against a bankpaytest sandbox with its own clock:
// WithWebhookClock(srv.Now), or, for a standalone sandbox,
// bankpaytest.RemoteClock(baseURL, creds), which reads its GET /sandbox/now
// when called (an offset read only after /sandbox/advance comes too late
// for the events the advance fires, which are delivered before it answers).
// The event-age and future-date checks use it. Handler only.
func WithWebhookClock(now func() time.Time) WebhookOption {
	return WebhookOption(option("WithWebhookClock", forHandler, func(cfg *config) {
		if now != nil {
			cfg.hookNow = now
		}
	}))
}

// WebhookOption configures the webhook handler (NewWebhookHandler): an
// option of the handler given to NewClient, a call or VerifyRedirect, or
// an Option given to the handler, does not compile. WithLogger configures
// both.
type WebhookOption func(*config)

type webhookHandler struct {
	creds       Credentials
	macs        *sign.MACCache // keyed HMAC states of creds' key
	fn          func(context.Context, *Event) error
	dedup       Deduplicator
	maxBytes    int64
	logger      *slog.Logger
	maxAge      time.Duration
	readTimeout time.Duration
	now         func() time.Time
	clock       claimClock // times the claim's extensions and run-out
	misuse      error      // an option converted from one of another kind: every request gets 500
}

// NewWebhookHandler returns the http.Handler of the merchant's
// notificationUrl:
//
//	mux.Handle("POST /bankpay/events", bankpay.NewWebhookHandler(creds, handle))
//
// It verifies each request before decoding it (401 on a bad signature),
// refuses non-POST (405), bodies over the cap (413) or too slow (408),
// malformed (400) and stale events (400) and events dated over 5 minutes
// ahead of its clock (400), and then calls fn once with the
// Event, whose typed payload is set: fn's error gets 500, so the service
// re-sends the event; success gets 200. fn may be nil. Keep fn short and
// idempotent (the service waits 3 seconds), and confirm money state with
// Transactions.Get before acting (see the Security section).
//
// It de-duplicates: an event (the accessId's eventId) already processed
// gets 200 without a second callback, one whose callback is running gets
// 409, one whose callback failed runs again at the next delivery. By
// default it remembers the events processed in memory of its own: each
// one within the max age plus 10 minutes (any delivery it can accept), and
// at least the last 10000 (all of them, when the max age is off). Each
// handler has its own, lost on restart: a re-send of an event processed
// before a restart runs it again; give replicas a shared store with
// WithDeduplicator.
//
// Each refusal says why: without WithLogger, one warn line to slog.Default() with the
// reason (never the body, the key or personal data). Options are
// WebhookOptions: WithDeduplicator, WithLogger, WithMaxEventAge,
// WithEventReadTimeout and WithWebhookClock; an Option does not compile
// here. (An Option converted to a WebhookOption, or a nil Deduplicator, is
// refused at run time, as empty credentials are: every request gets 500
// and the reason is logged.)
func NewWebhookHandler(creds Credentials, fn func(context.Context, *Event) error, opts ...WebhookOption) http.Handler {
	cfg := config{target: forHandler, maxEventBytes: defaultMaxEventBytes, maxEventAge: defaultMaxEventAge,
		eventReadTimeout: defaultEventReadTimeout, hookNow: time.Now}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if cfg.dedup == nil {
		cfg.dedup = newMemoryDeduplicator(0)
	}
	return &webhookHandler{creds: creds, macs: &sign.MACCache{}, fn: fn, dedup: cfg.dedup, maxBytes: cfg.maxEventBytes,
		logger: cfg.logger, maxAge: cfg.maxEventAge, readTimeout: cfg.eventReadTimeout, now: cfg.hookNow,
		clock: wallClock{}, misuse: cfg.err}
}

func (h *webhookHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		h.reply(w, http.StatusMethodNotAllowed)
		return
	}
	if h.misuse != nil {
		h.reject(ctx, w, r, http.StatusInternalServerError, fmt.Errorf("bankpay: NewWebhookHandler: %w", h.misuse))
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
	// The body is read into a pooled buffer: the event's fields are copied
	// out of it (the URL-decoded message, or strings of the JSON decoder),
	// so nothing refers to it afterwards.
	buf := pipeline.GetBuffer()
	defer pipeline.PutBuffer(buf)
	body, err := pipeline.ReadCapped(*buf, http.MaxBytesReader(w, r.Body, h.maxBytes), h.maxBytes)
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
	contentType := r.Header.Get("Content-Type")
	sb, err := verifyNotification(h.macs, body, header, h.creds, contentType)
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

	ev, err := parseNotification(sb, contentType)
	if err != nil {
		h.reject(ctx, w, r, http.StatusBadRequest, err)
		return
	}
	if age, why := h.outOfWindow(ev); why != "" {
		lg, remote := h.logger, []slog.Attr{slog.String("remoteAddr", r.RemoteAddr)}
		if lg == nil {
			lg, remote = slog.Default(), nil // refusals say why by default (see logRefusal)
		}
		lg.LogAttrs(ctx, slog.LevelWarn, why, append(append([]slog.Attr{slog.Int("status", http.StatusBadRequest)}, remote...),
			slog.String("eventId", ev.EventID), slog.String("eventType", string(ev.EventType)),
			slog.Time("createdAt", ev.CreatedAt), slog.Duration("age", age), slog.Duration("maxAge", h.maxAge),
			slog.Duration("maxSkew", maxEventSkew))...)
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

// outOfWindow returns ev's age and, when the handler refuses it, the log
// message saying why: older than the max age, or dated beyond the allowed
// skew ahead of the handler's clock.
func (h *webhookHandler) outOfWindow(ev *Event) (time.Duration, string) {
	age := h.now().Sub(ev.CreatedAt)
	switch {
	case age < -maxEventSkew:
		return age, "bankpay: webhook: future-dated event rejected"
	case h.maxAge > 0 && age > h.maxAge:
		return age, "bankpay: webhook: stale event rejected"
	}
	return age, ""
}

// retention is how long a done mark must last: every delivery the handler
// accepts comes within the max age after createdAt, and createdAt is at
// most one skew ahead of the clock; another replica's clock may differ by
// one more. 0 (as long as the store can) without a max age.
func (h *webhookHandler) retention() time.Duration {
	if h.maxAge <= 0 {
		return 0
	}
	return h.maxAge + 2*maxEventSkew
}

// process runs the callbacks of a verified event and returns the status to
// response.
func (h *webhookHandler) process(ctx context.Context, ev *Event) (status int) {
	key := dedupKey(h.creds.AccessID, ev.EventID)
	claimed := h.clock.Now() // the claim runs out no sooner than its TTL after this
	st, token, err := h.dedup.Claim(ctx, key)
	if err != nil {
		h.logRefusal(ctx, slog.LevelError, http.StatusInternalServerError, "bankpay: webhook: de-duplication store failed", ev, err, false)
		return http.StatusInternalServerError
	}
	switch st {
	case ClaimDone:
		h.log(ctx, slog.LevelInfo, "bankpay: webhook: duplicate event", ev, nil)
		return http.StatusOK
	case ClaimInProgress:
		h.logRefusal(ctx, slog.LevelInfo, http.StatusConflict, "bankpay: webhook: event already in progress", ev, nil, false)
		return http.StatusConflict
	}

	cbCtx, cancel := context.WithCancelCause(ctx)
	stop := h.keepClaim(cbCtx, cancel, ev, key, token, claimed)
	done := false
	defer func() {
		stop()
		cancel(nil)
		if !done {
			// The callback failed or panicked: let the next delivery run it.
			if err := h.dedup.Release(context.WithoutCancel(ctx), key, token); err != nil {
				h.log(ctx, slog.LevelError, "bankpay: webhook: releasing the event failed", ev, err)
			}
		}
	}()
	if err := h.dispatch(cbCtx, ev); err != nil {
		h.logRefusal(ctx, slog.LevelError, http.StatusInternalServerError, "bankpay: webhook: callback failed", ev, err, true)
		return http.StatusInternalServerError
	}
	done = true
	stop()
	if err := h.dedup.Complete(context.WithoutCancel(ctx), key, token, h.retention()); err != nil {
		h.log(ctx, slog.LevelError, "bankpay: webhook: recording the event failed", ev, err)
	}
	return http.StatusOK
}

// errClaimLost is the cause of a callback's canceled context when its claim
// was lost (it expired while the store was out of reach, and another
// delivery took it).
var errClaimLost = errors.New("bankpay: webhook: the event's claim was lost")

// claimTTLer is the optional method of a Deduplicator whose claims run out
// by time: the TTL a new claim lasts unless extended (<= 0: unknown). See
// Deduplicator.
type claimTTLer interface{ ClaimTTL() time.Duration }

// claimClock is the handler's clock for its claims: the wall clock, or a
// fake one in tests. It is not WithWebhookClock's, which may be a
// sandbox's, offset from the store's.
type claimClock interface {
	Now() time.Time
	// TimerAt returns the channel of a timer that fires at t, and its
	// stop function.
	TimerAt(t time.Time) (<-chan time.Time, func() bool)
}

// wallClock is the default claimClock.
type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

func (wallClock) TimerAt(at time.Time) (<-chan time.Time, func() bool) {
	t := time.NewTimer(time.Until(at))
	return t.C, t.Stop
}

// claimTTL is the TTL of d's new claims, 0 when d does not say.
func claimTTL(d Deduplicator) time.Duration {
	if t, ok := d.(claimTTLer); ok {
		return max(t.ClaimTTL(), 0)
	}
	return 0
}

// extension is the result of one Extend, asked at asked.
type extension struct {
	asked time.Time
	ttl   time.Duration
	err   error
}

// keepClaim extends token's claim of key, made at claimed, while the
// callback runs, and cancels the callback's context with errClaimLost when
// the claim is no longer current, or at the time it runs out at the store
// (claimed plus the store's ClaimTTL, then each successful Extend's TTL
// counted from before it was asked) unless an Extend renewed it by then:
// the store being out of reach does not keep the callback running past its
// claim. The returned stop ends the extensions (an Extend under way is
// canceled) and waits for them; it may be called more than once.
func (h *webhookHandler) keepClaim(ctx context.Context, cancel context.CancelCauseFunc, ev *Event, key, token string, claimed time.Time) (stop func()) {
	quit, exited := make(chan struct{}), make(chan struct{})
	var runsOut time.Time // zero: unknown (the store does not say its TTL)
	if ttl := claimTTL(h.dedup); ttl > 0 {
		runsOut = claimed.Add(ttl)
	}
	go func() {
		defer close(exited)
		next, stopNext := h.clock.TimerAt(claimed.Add(firstExtension))
		defer func() { stopNext() }()
		var expiry <-chan time.Time // fires when the claim runs out
		stopExpiry := func() bool { return false }
		defer func() { stopExpiry() }()
		setExpiry := func() {
			stopExpiry()
			expiry, stopExpiry = h.clock.TimerAt(runsOut)
		}
		if !runsOut.IsZero() {
			setExpiry()
		}
		var pending chan extension // the Extend under way, nil when none
		ectx, cancelExtend := context.WithCancel(context.WithoutCancel(ctx))
		defer cancelExtend()
		for {
			select {
			case <-quit:
				drain(pending, cancelExtend)
				return
			case <-expiry:
				h.log(ctx, slog.LevelError, "bankpay: webhook: the event's claim ran out while the store was out of reach", ev, nil)
				cancel(errClaimLost)
				drain(pending, cancelExtend)
				return
			case <-next:
				pending = make(chan extension, 1)
				go h.extend(ectx, key, token, pending)
			case r := <-pending:
				pending = nil
				delay, lost := h.extended(ctx, ev, r, &runsOut)
				if lost {
					cancel(errClaimLost)
					return
				}
				if r.err == nil {
					setExpiry()
				}
				stopNext()
				next, stopNext = h.clock.TimerAt(h.clock.Now().Add(delay))
			}
		}
	}()
	return sync.OnceFunc(func() {
		close(quit)
		<-exited
	})
}

// drain cancels the Extend under way, if any, and waits for it.
func drain(pending <-chan extension, cancelExtend context.CancelFunc) {
	if pending != nil {
		cancelExtend()
		<-pending
	}
}

// extend runs one Extend, bounded by extendTimeout, and sends its result.
func (h *webhookHandler) extend(ctx context.Context, key, token string, out chan<- extension) {
	asked := h.clock.Now()
	ectx, done := context.WithTimeout(ctx, extendTimeout)
	defer done()
	ttl, err := h.dedup.Extend(ectx, key, token)
	out <- extension{asked: asked, ttl: ttl, err: err}
}

// extended reads an Extend's result: whether the claim is lost and, if
// not, when to extend next. A renewal moves *runsOut.
func (h *webhookHandler) extended(ctx context.Context, ev *Event, r extension, runsOut *time.Time) (next time.Duration, lost bool) {
	switch {
	case r.err != nil:
		h.log(ctx, slog.LevelError, "bankpay: webhook: extending the event's claim failed", ev, r.err)
		next = firstExtension
		if !runsOut.IsZero() {
			next = max(min(next, runsOut.Sub(h.clock.Now())), time.Millisecond)
		}
		return next, false
	case r.ttl <= 0:
		h.log(ctx, slog.LevelError, "bankpay: webhook: the event's claim was lost", ev, nil)
		return 0, true
	}
	*runsOut = r.asked.Add(r.ttl)
	return max(r.ttl/3, time.Millisecond), false
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
	} else {
		slog.Default().LogAttrs(ctx, slog.LevelWarn, "bankpay: webhook: request rejected",
			slog.Int("status", status), slog.String("reason", defaultReason(err)))
	}
	h.reply(w, status)
}

// defaultReason is the reason slog.Default() gets for a rejected request:
// the error's text, which names no value of the request, except for a
// malformed event, whose decoding error may quote one of its fields.
func defaultReason(err error) string {
	if errors.Is(err, ErrMalformedEvent) {
		return "malformed event"
	}
	return err.Error()
}

// logRefusal logs why a verified event is refused with status: to the
// WithLogger logger at level, as log does, or, without one, one line to
// slog.Default() at warn level with the event's id and type and, when
// withErr, err's text (the callback's own error; never the store's, whose
// text may hold its address or user).
func (h *webhookHandler) logRefusal(ctx context.Context, level slog.Level, status int, msg string, ev *Event, err error, withErr bool) {
	if h.logger != nil {
		h.log(ctx, level, msg, ev, err)
		return
	}
	attrs := []slog.Attr{slog.Int("status", status), slog.String("eventId", ev.EventID), slog.String("eventType", string(ev.EventType))}
	if withErr && err != nil {
		attrs = append(attrs, slog.String("error", err.Error()))
	}
	slog.Default().LogAttrs(ctx, slog.LevelWarn, msg, attrs...)
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
