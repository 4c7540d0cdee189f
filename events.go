package bankpay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// ErrMalformedEvent: an event notification body that cannot be decoded (not
// form-urlencoded or JSON, a JSON body that is not an object, a repeated or
// ill-typed common field). The webhook handler answers it with 400.
var ErrMalformedEvent = errors.New("bankpay: malformed event")

// EventKind groups event types by the payload they carry.
type EventKind int

// Event kinds.
const (
	// EventKindUnknown: an eventType the SDK does not know. Its fields are
	// in Event.Raw (and Event.Transaction when it carries a status).
	EventKindUnknown EventKind = iota
	// EventKindTransaction: a standard transaction event (Authorize,
	// Process, Completed, Failed…); Event.Transaction is set.
	EventKindTransaction
	// EventKindIdentityDataRetrieved: IdentityVerificationDataRetrieved;
	// Event.IdentityDataRetrieved is set.
	EventKindIdentityDataRetrieved
	// EventKindIdentityVerified: CustomerIdentityVerified;
	// Event.IdentityVerified is set.
	EventKindIdentityVerified
)

// String returns the kind's name.
func (k EventKind) String() string {
	switch k {
	case EventKindTransaction:
		return "Transaction"
	case EventKindIdentityDataRetrieved:
		return "IdentityDataRetrieved"
	case EventKindIdentityVerified:
		return "IdentityVerified"
	}
	return "Unknown"
}

// Event is a decoded event notification. The common fields are typed; the
// payload of the event's kind is set; Raw keeps every field as received.
//
// Get an Event from NewWebhookHandler, which verifies the notification
// first, or from ParseEvent after VerifyNotification. Never act on an event
// whose notification was not verified.
type Event struct {
	EventID           string
	EventType         models.EventType
	MerchantID        string
	MerchantReference string
	AccessID          string
	// PaymentType is the number the event carries (2 for Deferred).
	PaymentType     models.PaymentType
	TransactionType models.TransactionType
	// ObjectID is the transaction id for objectType "Transaction".
	ObjectID       string
	ObjectType     string
	ParentObjectID string
	Message        string
	TimeZone       string
	// CreatedAt is when the event was created (UTC); zero when not sent.
	CreatedAt time.Time

	// Transaction holds the standard transaction fields. It is set for
	// EventKindTransaction and for any other event carrying one of them.
	Transaction *TransactionEvent
	// IdentityDataRetrieved is set for IdentityVerificationDataRetrieved.
	IdentityDataRetrieved *IdentityDataRetrieved
	// IdentityVerified is set for CustomerIdentityVerified.
	IdentityVerified *IdentityVerified

	// Raw holds every field of the notification as received, nested JSON
	// names dotted ("paymentProviderTransaction.status").
	Raw url.Values
}

// Kind returns the kind of the event's type.
func (e *Event) Kind() EventKind {
	switch {
	case e.EventType == models.EventIdentityVerificationDataRetrieved:
		return EventKindIdentityDataRetrieved
	case e.EventType == models.EventCustomerIdentityVerified:
		return EventKindIdentityVerified
	case e.EventType.IsTransaction():
		return EventKindTransaction
	}
	return EventKindUnknown
}

// TransactionID returns ObjectID when the event is about a transaction.
func (e *Event) TransactionID() string {
	if e.ObjectType == "" || strings.EqualFold(e.ObjectType, models.ObjectTypeTransaction) {
		return e.ObjectID
	}
	return ""
}

// TransactionEvent is the payload of a standard transaction event.
type TransactionEvent struct {
	Status        models.TransactionStatus
	StatusMessage string
	// ProviderStatus is paymentProviderTransaction.status (10: Established).
	ProviderStatus        int
	ProviderStatusMessage string
	SplitToken            string
	// ErrorCode is the error code as sent, usually one of the Code*
	// constants ("330"); see Code.
	ErrorCode string
}

// Code returns ErrorCode as a number, or 0 when it is absent or not numeric.
func (t *TransactionEvent) Code() int {
	n, err := strconv.Atoi(strings.TrimSpace(t.ErrorCode))
	if err != nil {
		return 0
	}
	return n
}

// IdentityDataRetrieved is the payload of IdentityVerificationDataRetrieved.
// The identity user can be read after it, but verification may be
// unfinished.
type IdentityDataRetrieved struct {
	ProviderReportStatus      string // "Provider Report Status", such as SUCCESS
	ProviderServiceName       string // "Provider Service Name"
	ProviderUsedForValidation string // "Provider used for validation"
}

// IdentityVerified is the payload of CustomerIdentityVerified. After it the
// identity user and verification detail reads return data, whatever the
// outcome.
type IdentityVerified struct {
	IdentityVerified string // "Identity Verified", such as FINISHED
	KYCResult        string // "KYC Result", such as FINISHED
}

// ParseEvent decodes an event notification body. contentType is the
// request's Content-Type: application/x-www-form-urlencoded (what the service
// sends) or application/json (or any +json type); when it is empty the body
// is sniffed. It does not check the signature: call VerifyNotification
// first, or use NewWebhookHandler, which does both.
//
// Unknown eventTypes decode: their common fields are typed and every field
// is kept in Raw. Errors match ErrMalformedEvent.
func ParseEvent(body []byte, contentType string) (*Event, error) {
	raw, err := eventFields(body, contentType)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	ev, err := eventFromFields(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	return ev, nil
}

// eventFields decodes body into flat fields.
func eventFields(body []byte, contentType string) (url.Values, error) {
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return nil, errors.New("empty body")
	}
	isJSON := trimmed[0] == '{'
	switch contentType {
	case "":
	case "application/x-www-form-urlencoded": // what the service sends: no parsing
		isJSON = false
	case "application/json":
		isJSON = true
	default:
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			return nil, errors.New("the Content-Type is unreadable")
		}
		switch {
		case mt == "application/x-www-form-urlencoded":
			isJSON = false
		case mt == "application/json" || strings.HasSuffix(mt, "+json"):
			isJSON = true
		default:
			return nil, errors.New("the Content-Type is neither form-urlencoded nor JSON")
		}
	}
	if !isJSON {
		v, err := parseQuery(string(body))
		if err != nil {
			return nil, errors.New("body is not form-urlencoded")
		}
		return v, nil
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil || doc == nil {
		return nil, errors.New("body is not a JSON object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	v := url.Values{}
	flattenJSON("", doc, func(k, s string) { v[k] = append(v[k], s) })
	return v, nil
}

// eventFromFields types the fields of a notification.
func eventFromFields(raw url.Values) (*Event, error) {
	p := params{v: raw}
	ev := &Event{
		EventID:           p.str(models.EventFieldEventID),
		EventType:         models.EventType(p.str(models.EventFieldEventType)),
		MerchantID:        p.str(models.EventFieldMerchantID),
		MerchantReference: p.str(models.EventFieldMerchantReference),
		AccessID:          p.str(models.EventFieldAccessID),
		ObjectID:          p.str(models.EventFieldObjectID),
		ObjectType:        p.str(models.EventFieldObjectType),
		ParentObjectID:    p.str(models.EventFieldParentObjectID),
		Message:           p.str(models.EventFieldMessage),
		TimeZone:          p.str(models.EventFieldTimeZone),
		Raw:               raw,
	}
	if s := p.str(models.EventFieldPaymentType); s != "" {
		pt, err := models.ParsePaymentType(strings.TrimSpace(s))
		if err != nil {
			p.fail(fmt.Errorf("%s: %w", models.EventFieldPaymentType, err))
		}
		ev.PaymentType = pt
	}
	ev.TransactionType = models.TransactionType(p.num(models.EventFieldTransactionType))
	if s := p.str(models.EventFieldCreatedAt); s != "" {
		t, err := parseEventTime(s)
		if err != nil {
			p.fail(fmt.Errorf("%s: %w", models.EventFieldCreatedAt, err))
		}
		ev.CreatedAt = t
	}

	kind := ev.Kind()
	if kind == EventKindTransaction || hasAny(raw, models.EventFieldStatus, models.EventFieldStatusMessage,
		models.EventFieldProviderTransactionStatus, models.EventFieldProviderTransactionStatusMsg,
		models.EventFieldSplitToken, models.EventFieldErrorCode) {
		t := &TransactionEvent{
			StatusMessage:         p.str(models.EventFieldStatusMessage),
			ProviderStatus:        p.num(models.EventFieldProviderTransactionStatus),
			ProviderStatusMessage: p.str(models.EventFieldProviderTransactionStatusMsg),
			SplitToken:            p.str(models.EventFieldSplitToken),
			ErrorCode:             p.str(models.EventFieldErrorCode),
		}
		if s := p.str(models.EventFieldStatus); s != "" {
			st, err := parseStatus(s)
			if err != nil {
				p.fail(fmt.Errorf("%s: %w", models.EventFieldStatus, err))
			}
			t.Status = st
		}
		ev.Transaction = t
	}
	switch kind {
	case EventKindIdentityDataRetrieved:
		ev.IdentityDataRetrieved = &IdentityDataRetrieved{
			ProviderReportStatus:      p.str(models.EventFieldProviderReportStatus),
			ProviderServiceName:       p.str(models.EventFieldProviderServiceName),
			ProviderUsedForValidation: p.str(models.EventFieldProviderUsedForValidation),
		}
	case EventKindIdentityVerified:
		ev.IdentityVerified = &IdentityVerified{
			IdentityVerified: p.str(models.EventFieldIdentityVerified),
			KYCResult:        p.str(models.EventFieldKYCResult),
		}
	}
	if p.err != nil {
		return nil, p.err
	}
	return ev, nil
}

func hasAny(v url.Values, keys ...string) bool {
	for _, k := range keys {
		if _, ok := v[k]; ok {
			return true
		}
	}
	return false
}

// parseEventTime reads epoch milliseconds (the service's form, as a number
// or a numeric string) or, as a fallback, an RFC 3339 time.
func parseEventTime(s string) (time.Time, error) {
	s = strings.TrimSpace(s)
	var ms models.EpochMillis
	if err := ms.UnmarshalText([]byte(s)); err == nil {
		return ms.Time(), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, errors.New("neither epoch milliseconds nor RFC 3339")
	}
	return t.UTC(), nil
}

// parseStatus reads a status code ("2") or, as a fallback, its name
// ("Authorized", any case).
func parseStatus(s string) (models.TransactionStatus, error) {
	s = strings.TrimSpace(s)
	var st models.TransactionStatus
	if err := st.UnmarshalText([]byte(s)); err == nil {
		return st, nil
	}
	for code := models.StatusNew; code <= models.StatusOnHold; code++ {
		if name := code.String(); !strings.HasPrefix(name, "TransactionStatus(") && strings.EqualFold(name, s) {
			return code, nil
		}
	}
	if strings.EqualFold(s, "Cancelled") {
		return models.StatusCanceled, nil
	}
	return 0, errors.New("not a status code")
}
