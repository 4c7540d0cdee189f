package bankpay

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
	"github.com/bankpay/bankpay-go/models"
)

// ErrMalformedEvent: an event notification body that is not a notification
// or cannot be decoded: not URL-decodable, neither form fields nor a JSON
// object, a repeated field, a name outside the notification alphabet, a
// field of establish data or of a redirect (also transactionId together with
// status, which only redirects carry), no eventId or createdAt, an
// ill-typed common field. The webhook handler responds to it with 400.
var ErrMalformedEvent = errors.New("bankpay: malformed event")

// eventKind groups event types by the payload they carry.
type eventKind int

// Event kinds.
const (
	// eventKindUnknown: an eventType the SDK does not know. Its fields are
	// in Event.Raw (and Event.Transaction when it carries a status).
	eventKindUnknown eventKind = iota
	// eventKindTransaction: a standard transaction event (Authorize,
	// Process, Completed, Failed…); Event.Transaction is set.
	eventKindTransaction
	// eventKindIdentityDataRetrieved: IdentityVerificationDataRetrieved;
	// Event.Identity is set.
	eventKindIdentityDataRetrieved
	// eventKindIdentityVerified: CustomerIdentityVerified;
	// Event.Identity is set.
	eventKindIdentityVerified
)

// String returns the kind's name.
func (k eventKind) String() string {
	switch k {
	case eventKindTransaction:
		return "Transaction"
	case eventKindIdentityDataRetrieved:
		return "IdentityDataRetrieved"
	case eventKindIdentityVerified:
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
	// PaymentType is the number the event carries (2 for Deferred); a
	// name is refused (it marks establish data).
	PaymentType     models.PaymentType
	TransactionType models.TransactionType
	// ObjectID is the transaction id for objectType "Transaction".
	ObjectID       string
	ObjectType     string
	ParentObjectID string
	Message        string
	TimeZone       string
	// CreatedAt is when the event was created (UTC). Every notification
	// carries it, and an eventId.
	CreatedAt time.Time

	// Transaction holds the standard transaction fields. It is set for
	// eventKindTransaction and for any other event carrying one of them.
	Transaction *TransactionEvent
	// Identity is set for the two identity events,
	// IdentityVerificationDataRetrieved and CustomerIdentityVerified.
	Identity *IdentityEvent

	// Raw holds every field of the notification as signed, nested JSON
	// names dotted ("paymentProviderTransaction.status"): read from the
	// URL-decoded body for a form, from the JSON as sent for a JSON body
	// (see ParseEvent).
	Raw url.Values
}

// transactionEventTypes are the standard transaction event types (every
// listed type but the two identity events), in canonical spelling.
var transactionEventTypes = map[models.EventType]bool{
	models.EventEstablish: true, models.EventAuthorize: true, models.EventDataReady: true, models.EventUpdate: true,
	models.EventProcess: true, models.EventComplete: true, models.EventCancel: true, models.EventExpire: true,
	models.EventFailed: true, models.EventDeny: true, models.EventDispute: true, models.EventReconcile: true,
	models.EventRefund: true, models.EventReverse: true, models.EventRefresh: true, models.EventVerifyCustomer: true,
	models.EventConsentRevoked: true,
}

// kind returns the kind of the event's type.
func (e *Event) kind() eventKind {
	switch {
	case e.EventType == models.EventIdentityVerificationDataRetrieved:
		return eventKindIdentityDataRetrieved
	case e.EventType == models.EventCustomerIdentityVerified:
		return eventKindIdentityVerified
	case transactionEventTypes[e.EventType.Canonical()]:
		return eventKindTransaction
	}
	return eventKindUnknown
}

// TransactionID returns ObjectID when the event is about a transaction.
func (e *Event) TransactionID() string {
	if e.ObjectType == "" || strings.EqualFold(e.ObjectType, wire.ObjectTypeTransaction) {
		return e.ObjectID
	}
	return ""
}

// TransactionEvent is the payload of a standard transaction event. The
// spellings of eventType differ between the operator's sources (Complete and
// Completed…): act on Status and Event.TransactionType, the numbers.
// Conditional fields are empty when the event does not carry them.
type TransactionEvent struct {
	Status models.TransactionStatus
	// HasStatus is false when the event carries no status (Dispute): Status
	// is then 0 and means nothing.
	HasStatus     bool
	StatusMessage string
	// ProviderStatus is paymentProviderTransaction.status, a code such as
	// AC100 or SW020, kept as received.
	ProviderStatus        models.ProviderStatus
	ProviderStatusMessage string
	// ProviderReasonCode and its message explain a provider decline
	// (paymentProviderTransaction.reasonCode, .reasonCodeMessage).
	ProviderReasonCode        string
	ProviderReasonCodeMessage string
	SplitToken                string
	// ErrorCode is the error code as sent, usually one of the Code*
	// constants ("330"); see Code.
	ErrorCode string
	// SuggestedRetryAmount comes with a failure for lack of funds.
	SuggestedRetryAmount models.Amount
	// FIName is the bank's name (Update).
	FIName string
	// CustomerName is customer.name (VerifyCustomer).
	CustomerName string
	// Refresh is set for Refresh events and any event with their fields.
	Refresh *RefreshResult
	// Dispute is set for Dispute events and any event with their fields.
	Dispute *DisputeDetails
}

// RefreshResult is what a Refresh event says of a refresh of the account
// data.
type RefreshResult struct {
	HardRefresh bool   // hardRefresh
	Purpose     string // refreshPurpose
	// Success is the outcome (success); nil when the event does not say.
	Success *bool
}

// DisputeDetails are the fields of a Dispute event: a return against the
// transaction.
type DisputeDetails struct {
	Reference           string
	TransactionID       string
	TransactionDatetime string
	ReturnType          string
	CustomerID          string
	ReturnDatetime      string
	AmountReturned      models.Amount
}

// code is ErrorCode as a number, or 0 when it is absent or not numeric.
func (t *TransactionEvent) code() int {
	n, err := strconv.Atoi(strings.TrimSpace(t.ErrorCode))
	if err != nil {
		return 0
	}
	return n
}

// IdentityEvent is the payload of the identity events. After
// IdentityVerificationDataRetrieved the identity user can be read, but
// verification may be unfinished; after CustomerIdentityVerified the
// identity user and verification detail reads return data, whatever the
// outcome.
type IdentityEvent struct {
	// Set for IdentityVerificationDataRetrieved.
	ProviderReportStatus      string // "Provider Report Status", such as SUCCESS
	ProviderServiceName       string // "Provider Service Name"
	ProviderUsedForValidation string // "Provider used for validation"
	// Set for CustomerIdentityVerified.
	IdentityVerified string // "Identity Verified", such as FINISHED
	KYCResult        string // "KYC Result", such as FINISHED
}

// ParseEvent decodes an event notification body. contentType is the
// request's: form-urlencoded (what the service sends), JSON or any +json
// type (nested objects flattened to dotted names); when empty the body is
// sniffed. A form is read, like its signature, from the URL-decoded body,
// so every encoding of a signed form gives the same event. A JSON body is
// read from its JSON as sent, so that a "+" or a "%" in a value (a Base64
// splitToken, "50% returned") stays what it is; only a JSON body that has
// a "%" and URL-decodes is read from its URL-decoded form, the message its
// documented signature covers (VerifyNotification and the webhook handler
// read it as sent when its signature covers it as sent). It refuses what is
// not a notification (see ErrMalformedEvent) and keeps unknown types and
// fields in Raw. It does not check the signature: call VerifyNotification
// first, or use NewWebhookHandler. Errors match ErrMalformedEvent.
func ParseEvent(body []byte, contentType string) (*Event, error) {
	msg, err := sign.NotificationMessage(body)
	// A body that does not URL-decode has no other reading than as sent.
	return parseNotification(signedBody{body: body, msg: msg, decoded: err == nil, rawSigned: err != nil}, contentType)
}

// signedBody is a notification body and what its signature covers: the
// URL-decoded body msg (documented; decoded says it exists), or for a JSON
// body the body as sent (rawSigned).
type signedBody struct {
	body      []byte
	msg       string
	decoded   bool
	rawSigned bool
}

// rawJSONObject reports whether body is sent as JSON (contentType JSON, or
// unknown) and is an object: the only bodies whose signature may cover
// them as sent.
func rawJSONObject(body []byte, contentType string) bool {
	t := bytes.TrimLeft(body, " \t\r\n")
	if len(t) == 0 || t[0] != '{' {
		return false
	}
	if contentType == "" {
		return true
	}
	isJSON, err := isJSONEvent("{", contentType)
	return err == nil && isJSON
}

// source returns the text the fields of a notification of type contentType
// are read from, and whether it is JSON: a form's URL-decoded body; a JSON
// body as sent when it is signed as sent or has no "%" (URL-decoding it
// then only turns a "+" in a value into a space, which the same signature
// covers: a "+" and a space are one signed character, read as sent but for
// the eventId), its URL-decoded body otherwise.
func (sb signedBody) source(contentType string) (string, bool, error) {
	if rawJSONObject(sb.body, contentType) && (sb.rawSigned || bytes.IndexByte(sb.body, '%') < 0) {
		return string(sb.body), true, nil
	}
	if !sb.decoded {
		return "", false, errors.New("body is not URL-decodable")
	}
	isJSON, err := isJSONEvent(sb.msg, contentType)
	return sb.msg, isJSON, err
}

// parseNotification decodes the event of a notification body from what its
// signature covers (see signedBody.source).
func parseNotification(sb signedBody, contentType string) (*Event, error) {
	msg, isJSON, err := sb.source(contentType)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	raw, err := notificationFields(msg, isJSON)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	if isJSON && !sb.rawSigned && sb.decoded && msg != sb.msg {
		// Read as sent, signed URL-decoded: each "+" of the body is signed
		// as a space, so "a+b" and "a b" are one signed value. The eventId,
		// the key of de-duplication, is read as signed, so that no
		// re-encoding of a captured event reads another eventId.
		signed, err := notificationFields(sb.msg, true)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
		}
		raw[wire.EventFieldEventID] = signed[wire.EventFieldEventID]
	}
	ev, err := eventFromFields(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrMalformedEvent, err)
	}
	return ev, nil
}

// isJSONEvent tells from contentType, or when it is empty from msg, whether
// a notification is JSON or form fields.
func isJSONEvent(msg, contentType string) (bool, error) {
	trimmed := strings.TrimSpace(msg)
	if trimmed == "" {
		return false, errors.New("empty body")
	}
	switch contentType {
	case "":
		return trimmed[0] == '{', nil
	case "application/x-www-form-urlencoded": // what the service sends: no parsing
		return false, nil
	case "application/json":
		return true, nil
	}
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return false, errors.New("the Content-Type is unreadable")
	}
	switch {
	case mt == "application/x-www-form-urlencoded":
		return false, nil
	case mt == "application/json" || strings.HasSuffix(mt, "+json"):
		return true, nil
	}
	return false, errors.New("the Content-Type is neither form-urlencoded nor JSON")
}

// transactionFields are the fields that give any event a TransactionEvent.
var transactionFields = []string{wire.EventFieldStatus, wire.EventFieldStatusMessage,
	wire.EventFieldProviderTransactionStatus, wire.EventFieldProviderTransactionStatusMsg,
	wire.EventFieldProviderReasonCode, wire.EventFieldProviderReasonCodeMessage,
	wire.EventFieldSplitToken, wire.EventFieldErrorCode, wire.EventFieldSuggestedRetryAmount,
	wire.EventFieldFIName, wire.EventFieldCustomerName}

var refreshFields = []string{wire.EventFieldHardRefresh, wire.EventFieldRefreshPurpose, wire.EventFieldSuccess}

var disputeFields = []string{wire.EventFieldReference, wire.EventFieldTransactionID,
	wire.EventFieldTransactionDatetime, wire.EventFieldReturnType, wire.EventFieldCustomerID,
	wire.EventFieldReturnDatetime, wire.EventFieldAmountReturned}

// eventFromFields types the fields of a notification.
func eventFromFields(raw url.Values) (*Event, error) {
	p := params{v: raw}
	ev := &Event{
		EventID:           p.str(wire.EventFieldEventID),
		EventType:         models.EventType(p.str(wire.EventFieldEventType)),
		MerchantID:        p.str(wire.EventFieldMerchantID),
		MerchantReference: p.str(wire.EventFieldMerchantReference),
		AccessID:          p.str(wire.EventFieldAccessID),
		PaymentType:       models.PaymentType(p.num(wire.EventFieldPaymentType)), // the number: a name is establish data
		TransactionType:   models.TransactionType(p.num(wire.EventFieldTransactionType)),
		ObjectID:          p.str(wire.EventFieldObjectID),
		ObjectType:        p.str(wire.EventFieldObjectType),
		ParentObjectID:    p.str(wire.EventFieldParentObjectID),
		Message:           p.str(wire.EventFieldMessage),
		TimeZone:          p.str(wire.EventFieldTimeZone),
		Raw:               raw,
	}
	if s := p.str(wire.EventFieldCreatedAt); s != "" {
		t, err := parseEventTime(s)
		if err != nil {
			p.fail(fmt.Errorf("%s: %w", wire.EventFieldCreatedAt, err))
		}
		ev.CreatedAt = t
	}

	kind := ev.kind()
	typ := ev.EventType.Canonical()
	isRefresh := typ == models.EventRefresh || hasAny(raw, refreshFields...)
	isDispute := typ == models.EventDispute || hasAny(raw, disputeFields...)
	if kind == eventKindTransaction || isRefresh || isDispute || hasAny(raw, transactionFields...) {
		t := &TransactionEvent{
			StatusMessage:             p.str(wire.EventFieldStatusMessage),
			ProviderStatus:            models.ProviderStatus(p.str(wire.EventFieldProviderTransactionStatus)),
			ProviderStatusMessage:     p.str(wire.EventFieldProviderTransactionStatusMsg),
			ProviderReasonCode:        p.str(wire.EventFieldProviderReasonCode),
			ProviderReasonCodeMessage: p.str(wire.EventFieldProviderReasonCodeMessage),
			SplitToken:                p.str(wire.EventFieldSplitToken),
			ErrorCode:                 p.str(wire.EventFieldErrorCode),
			SuggestedRetryAmount:      models.Amount(p.str(wire.EventFieldSuggestedRetryAmount)),
			FIName:                    p.str(wire.EventFieldFIName),
			CustomerName:              p.str(wire.EventFieldCustomerName),
		}
		if s := p.str(wire.EventFieldStatus); s != "" {
			st, err := parseStatus(s)
			if err != nil {
				p.fail(fmt.Errorf("%s: %w", wire.EventFieldStatus, err))
			}
			t.Status, t.HasStatus = st, true
		}
		if isRefresh {
			t.Refresh = &RefreshResult{Purpose: p.str(wire.EventFieldRefreshPurpose)}
			// Informative fields: an unreadable one is left in Raw.
			t.Refresh.HardRefresh, _ = strconv.ParseBool(strings.TrimSpace(p.str(wire.EventFieldHardRefresh)))
			if b, err := strconv.ParseBool(strings.TrimSpace(p.str(wire.EventFieldSuccess))); err == nil {
				t.Refresh.Success = &b
			}
		}
		if isDispute {
			t.Dispute = &DisputeDetails{
				Reference:           p.str(wire.EventFieldReference),
				TransactionID:       p.str(wire.EventFieldTransactionID),
				TransactionDatetime: p.str(wire.EventFieldTransactionDatetime),
				ReturnType:          p.str(wire.EventFieldReturnType),
				CustomerID:          p.str(wire.EventFieldCustomerID),
				ReturnDatetime:      p.str(wire.EventFieldReturnDatetime),
				AmountReturned:      models.Amount(p.str(wire.EventFieldAmountReturned)),
			}
		}
		ev.Transaction = t
	}
	switch kind {
	case eventKindIdentityDataRetrieved:
		ev.Identity = &IdentityEvent{
			ProviderReportStatus:      p.str(wire.EventFieldProviderReportStatus),
			ProviderServiceName:       p.str(wire.EventFieldProviderServiceName),
			ProviderUsedForValidation: p.str(wire.EventFieldProviderUsedForValidation),
		}
	case eventKindIdentityVerified:
		ev.Identity = &IdentityEvent{
			IdentityVerified: p.str(wire.EventFieldIdentityVerified),
			KYCResult:        p.str(wire.EventFieldKYCResult),
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
	if w, ok := tolerant.WholeNumber(s); ok && w != "" {
		if ms, err := strconv.ParseInt(w, 10, 64); err == nil {
			return models.EpochMillis(ms).Time(), nil
		}
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
	if w, ok := tolerant.WholeNumber(s); ok && w != "" {
		if n, err := strconv.Atoi(w); err == nil {
			return models.TransactionStatus(n), nil
		}
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
