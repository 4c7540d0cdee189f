package bankpaytest

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// Event is an event notification the sandbox emitted, with its delivery.
type Event struct {
	EventID       string           `json:"eventId"`
	EventType     models.EventType `json:"eventType"`
	TransactionID string           `json:"transactionId"`
	MerchantID    string           `json:"merchantId"`
	// Raw holds the notification's fields by their wire names, as sent
	// (bankpay.Event.Raw holds them as received).
	Raw url.Values `json:"fields"`
	// Body is the form-encoded body as POSTed.
	Body string `json:"body"`
	// Authorization is the Authorization header sent with it.
	Authorization string `json:"authorization"`
	// URL is where it is delivered; empty when neither the transaction nor
	// the merchant has a notification URL (then it is only recorded).
	URL       string    `json:"url,omitempty"`
	CreatedAt time.Time `json:"createdAt"`
	Attempts  []Attempt `json:"attempts"`
	// Delivered reports that an attempt was responded to with 200.
	Delivered bool `json:"delivered"`
}

// Attempt is one delivery attempt of an event.
type Attempt struct {
	// At is the sandbox clock's time the attempt was due: the event's
	// creation, then each 5-minute mark.
	At time.Time `json:"at"`
	// StatusCode is the receiver's HTTP status, 0 when there was no response.
	StatusCode int `json:"statusCode"`
	// Err describes why there was no response.
	Err string `json:"error,omitempty"`
}

// LastStatus returns the HTTP status of the last attempt, 0 if none.
func (e Event) LastStatus() int {
	if len(e.Attempts) == 0 {
		return 0
	}
	return e.Attempts[len(e.Attempts)-1].StatusCode
}

// event is the sandbox's record of an event. Guarded by Server.mu.
type event struct {
	pub    Event
	queued int // attempts queued or in flight
}

type pair struct{ k, v string }

// newEvent records an event of transaction t with fields and queues its
// first delivery. The caller holds s.mu.
func (s *Server) newEvent(t *txn, typ models.EventType, id string, fields []pair) *event {
	var b strings.Builder
	vals := make(url.Values, len(fields))
	for i, f := range fields {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(url.QueryEscape(f.k))
		b.WriteByte('=')
		b.WriteString(url.QueryEscape(f.v))
		vals.Add(f.k, f.v)
	}
	body := b.String()
	decoded, _ := url.QueryUnescape(body)
	sig := sign.Sign(sign.SHA1, t.m.key, decoded)
	target := t.notifyURL
	if target == "" {
		target = t.m.cfg.NotificationURL
	}
	e := &event{pub: Event{
		EventID:       id,
		EventType:     typ,
		TransactionID: t.id(),
		MerchantID:    t.m.cfg.MerchantID,
		Raw:           vals,
		Body:          body,
		Authorization: "Basic " + base64.StdEncoding.EncodeToString([]byte(t.m.cfg.AccessID+":"+sig)),
		URL:           target,
		CreatedAt:     s.st.now,
	}}
	s.st.events = append(s.st.events, e)
	if target != "" && !s.st.closed {
		s.enqueue(e)
		s.schedule(&timer{at: s.st.now.Add(ResendInterval), kind: timerResend, ev: e, step: 1})
	}
	return e
}

func (s *Server) nextEventID() string {
	s.st.seqEvent++
	return fmt.Sprintf("%d", s.st.eventBase+s.st.seqEvent)
}

// firstEventBase is what the fake clock's eventIds count from.
const firstEventBase = 500000000000000

// wallEventBase is what a wall-clock sandbox started at t counts its
// eventIds from: firstEventBase plus t's milliseconds (modulo 10^9, about
// 11 days) times 10^5, still 15 digits. A sandbox started again later
// numbers its events apart from the last one's (unless that one sent
// 100,000 events), so that a handler's memory of processed eventIds does
// not swallow them.
func wallEventBase(t time.Time) uint64 {
	return firstEventBase + uint64(t.UnixMilli()%1_000_000_000)*100_000
}

func (t *txn) zone() string {
	if t.timeZone != "" {
		return t.timeZone
	}
	return "Etc/UTC"
}

// emitTxnEvent emits a standard transaction event for t's current status,
// with extra fields after the standard ones (an Authorize event carries the
// authorization's splitToken). The caller holds s.mu.
func (s *Server) emitTxnEvent(t *txn, typ models.EventType, extra ...pair) {
	id := s.nextEventID()
	r := &t.rec
	fields := []pair{
		{wire.EventFieldMerchantID, t.m.cfg.MerchantID},
		{wire.EventFieldMerchantReference, r.MerchantReference},
		{wire.EventFieldPaymentType, strconv.Itoa(int(r.Payment.PaymentType))},
		{wire.EventFieldTransactionType, strconv.Itoa(int(r.TransactionType))},
		{wire.EventFieldEventID, id},
		{wire.EventFieldEventType, string(typ)},
		{wire.EventFieldObjectID, r.TransactionID},
		{wire.EventFieldObjectType, wire.ObjectTypeTransaction},
		{wire.EventFieldMessage, r.StatusMessage},
	}
	if r.OriginalTransactionID != "" {
		fields = append(fields, pair{wire.EventFieldParentObjectID, r.OriginalTransactionID})
	}
	fields = append(fields,
		pair{wire.EventFieldTimeZone, t.zone()},
		pair{wire.EventFieldCreatedAt, strconv.FormatInt(s.st.now.UnixMilli(), 10)},
		pair{wire.EventFieldAccessID, t.m.cfg.AccessID},
		pair{wire.EventFieldStatus, strconv.Itoa(int(r.Status))},
		pair{wire.EventFieldStatusMessage, r.StatusMessage},
	)
	if ppt := r.PaymentProviderTransaction; ppt != nil && ppt.Status != "" {
		fields = append(fields,
			pair{wire.EventFieldProviderTransactionStatus, string(ppt.Status)},
			pair{wire.EventFieldProviderTransactionStatusMsg, ppt.StatusMessage},
		)
	}
	if typ == models.EventAuthorize && t.splitToken != "" {
		fields = append(fields, pair{wire.EventFieldSplitToken, t.splitToken})
	}
	s.newEvent(t, typ, id, append(fields, extra...))
}

// emitIdentityEvent emits an identity event of authorization t with its
// extra fields. The caller holds s.mu.
func (s *Server) emitIdentityEvent(t *txn, typ models.EventType, extra ...pair) {
	id := s.nextEventID()
	r := &t.rec
	fields := []pair{
		{wire.EventFieldMerchantID, t.m.cfg.MerchantID},
		{wire.EventFieldMerchantReference, r.MerchantReference},
		{wire.EventFieldEventType, string(typ)},
		{wire.EventFieldEventID, id},
		{wire.EventFieldPaymentType, strconv.Itoa(int(r.Payment.PaymentType))},
		{wire.EventFieldTransactionType, strconv.Itoa(int(r.TransactionType))},
		{wire.EventFieldObjectID, r.TransactionID},
		{wire.EventFieldObjectType, wire.ObjectTypeTransaction},
		{wire.EventFieldMessage, "performKycVerification"},
		{wire.EventFieldTimeZone, t.zone()},
		{wire.EventFieldCreatedAt, strconv.FormatInt(s.st.now.UnixMilli(), 10)},
		{wire.EventFieldAccessID, t.m.cfg.AccessID},
	}
	s.newEvent(t, typ, id, append(fields, extra...))
}

// resend queues re-send number step of e unless it was delivered, and
// schedules the next one within ResendWindow. The caller holds s.mu.
func (s *Server) resend(e *event, step int) {
	if e.pub.Delivered || s.st.closed {
		return
	}
	s.enqueue(e)
	if next := step + 1; time.Duration(next)*ResendInterval <= ResendWindow {
		s.schedule(&timer{at: e.pub.CreatedAt.Add(time.Duration(next) * ResendInterval), kind: timerResend, ev: e, step: next})
	}
}

func (e *event) snapshot() Event {
	out := e.pub
	out.Raw = make(url.Values, len(e.pub.Raw))
	for k, v := range e.pub.Raw {
		out.Raw[k] = append([]string(nil), v...)
	}
	out.Attempts = append([]Attempt(nil), e.pub.Attempts...)
	return out
}

// Events returns every event emitted so far, oldest first, with its
// delivery attempts.
func (s *Server) Events() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Event, len(s.st.events))
	for i, e := range s.st.events {
		out[i] = e.snapshot()
	}
	return out
}

// EventsFor returns the events of transaction id, oldest first.
func (s *Server) EventsFor(id string) []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Event
	for _, e := range s.st.events {
		if e.pub.TransactionID == id {
			out = append(out, e.snapshot())
		}
	}
	return out
}
