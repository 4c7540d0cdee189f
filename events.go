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

	"github.com/bankpay/bankpay-go/internal/jsonr"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
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
// first, or from VerifyNotification, which returns the event as its signature
// covers it. Never act on an event whose notification was not verified.
type Event struct {
	EventID string
	// EventType is the eventType in the one spelling of models' Event…
	// constants: Completed, Cancelled and Expired, which some of the
	// operator's sources send, read as EventComplete, EventCancel and
	// EventExpire (Raw keeps the spelling received). Other types are kept
	// as received.
	EventType         models.EventType
	MerchantID        string
	MerchantReference string
	AccessID          string
	// PaymentType is the number the event carries (2 for Deferred); a
	// name is refused (it marks establish data).
	PaymentType models.PaymentType
	// TransactionType is models.TypeUnknown when the event carries none.
	TransactionType models.TransactionType
	// ObjectID is the transaction id for objectType "Transaction".
	ObjectID   string
	ObjectType string
	// TransactionID is ObjectID when the event is about a transaction
	// (ObjectType "Transaction" in any case, or none), and empty for an
	// event about another objectType. A Dispute event about its
	// transaction (objectType Transaction, as the sandbox sends it) has it
	// here; the disputed transaction is also Transaction.Dispute.TransactionID.
	TransactionID  string
	ParentObjectID string
	Message        string
	TimeZone       string
	// CreatedAt is when the event was created (UTC). Every notification
	// carries it, and an eventId.
	CreatedAt time.Time

	// Transaction holds the standard transaction fields. It is set for the
	// standard transaction events (Authorize, Process, Complete, Failed…)
	// and for any other event carrying one of their fields.
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
	case transactionEventTypes[e.EventType]:
		return eventKindTransaction
	}
	return eventKindUnknown
}

// transactionID is objectID when objectType is a transaction's (or none),
// and "" otherwise: Event.TransactionID.
func transactionID(objectType, objectID string) string {
	if objectType == "" || strings.EqualFold(objectType, wire.ObjectTypeTransaction) {
		return objectID
	}
	return ""
}

// TransactionEvent is the payload of a standard transaction event. Act on
// Status and Event.TransactionType, the numbers, rather than on the event's
// type alone.
// Conditional fields are empty when the event does not carry them.
type TransactionEvent struct {
	Status models.TransactionStatus
	// HasStatus is false when the event carries no status (Dispute): Status
	// is then models.StatusUnknown.
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
	// SplitToken is the token an Authorize event carries for a Deferred or
	// Instant authorization: give it to Capture (CaptureParams.SplitToken)
	// to charge the customer; an account using guaranteed payments gets a
	// Failed capture without it.
	SplitToken string
	// ErrorCode is the service's error code as sent ("330"; strconv.Atoi
	// for the number).
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
// fields in Raw. It does not check the signature, and cannot know which
// reading of a JSON body a signature covered: act on the event that
// VerifyNotification returns, or use NewWebhookHandler. Errors match
// ErrMalformedEvent.
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
	p := fieldReader{v: raw}
	ev := &Event{
		EventID:           p.str(wire.EventFieldEventID),
		EventType:         wire.CanonicalEventType(models.EventType(p.str(wire.EventFieldEventType))),
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
	if strings.TrimSpace(p.str(wire.EventFieldTransactionType)) == "" {
		ev.TransactionType = models.TypeUnknown // not External: the event did not say
	}
	ev.TransactionID = transactionID(ev.ObjectType, ev.ObjectID)
	if s := p.str(wire.EventFieldCreatedAt); s != "" {
		t, err := parseEventTime(s)
		if err != nil {
			p.fail(fmt.Errorf("%s: %w", wire.EventFieldCreatedAt, err))
		}
		ev.CreatedAt = t
	}

	kind := ev.kind()
	typ := ev.EventType
	isRefresh := typ == models.EventRefresh || hasAny(raw, refreshFields...)
	isDispute := typ == models.EventDispute || hasAny(raw, disputeFields...)
	if kind == eventKindTransaction || isRefresh || isDispute || hasAny(raw, transactionFields...) {
		ev.Transaction = transactionEvent(&p, isRefresh, isDispute)
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

// transactionEvent reads the transaction fields of an event from p: its
// status, and the refresh or dispute details when isRefresh or isDispute.
func transactionEvent(p *fieldReader, isRefresh, isDispute bool) *TransactionEvent {
	t := &TransactionEvent{
		Status:                    models.StatusUnknown, // until the event gives one
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
	return t
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
	if w, ok := jsonr.WholeNumber(s); ok && w != "" {
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
	if w, ok := jsonr.WholeNumber(s); ok && w != "" {
		if n, err := strconv.ParseInt(w, 10, 32); err == nil && n >= 0 { // negative: the SDK's own StatusUnknown; beyond int32 it would wrap on 32 bits
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

// A notification's fields are read from the message its signature covers.
// For a form that is the URL-decoded body, never the raw body: every
// encoding of a signed form ("createdAt%3D…", "%65ventId", "&" sent as
// "%26") reads the same fields, so what is verified is what is read. A JSON
// object is read as sent when it has no "%" (its URL-decoding only turns a
// "+" into a space: one signed character; its eventId is read as signed) or
// when its signature covers it as sent; from its URL-decoded body otherwise
// (see signedBody.source in events.go).
//
// A message is a notification when it is form fields (nested names dotted)
// or a JSON object (nested objects flattened to the same dotted names) with
// no repeated name, every name in the notification alphabet, no field that
// only establish data or a redirect carries (nor transactionId with status,
// which every redirect has), and an eventId and a createdAt.
// The establish message the merchant signs and a signed redirect URL never
// are.

// maxJSONDepth bounds the nesting of a JSON notification (genuine ones
// nest once).
const maxJSONDepth = 16

// notificationFields reads the fields of msg, the signed message of a
// notification, as JSON when isJSON and as form fields otherwise, and checks
// that it is a notification.
func notificationFields(msg string, isJSON bool) (url.Values, error) {
	var v url.Values
	var err error
	if isJSON {
		v, err = jsonFields(msg)
	} else {
		v, err = formFields(msg)
	}
	if err != nil {
		return nil, err
	}
	for _, k := range [...]string{wire.EventFieldEventID, wire.EventFieldCreatedAt} {
		if vs := v[k]; len(vs) == 0 || strings.TrimSpace(vs[0]) == "" {
			return nil, fmt.Errorf("no %s", k)
		}
	}
	// Every redirect has transactionId and status (VerifyRedirect refuses
	// one without), and no notification has both (a Dispute's transactionId
	// comes without a status; a transaction event names its transaction
	// objectId). A query-only redirect signature over a returnUrl whose
	// query the user rewrote to carry event fields has both.
	if _, ok := v[wire.EventFieldTransactionID]; ok {
		if _, ok := v[wire.EventFieldStatus]; ok {
			return nil, errors.New("transactionId with status: the fields of a redirect, not of a notification")
		}
	}
	return v, nil
}

// formFields splits msg at each "&" into name=value fields, a value running
// to the next "&" that starts a field: a part without "=" belongs to the
// value before it ("fiName=Farmers & Merchants Bank"). Nothing is decoded
// again. The values are substrings of msg.
func formFields(msg string) (url.Values, error) {
	n := strings.Count(msg, "&") + 1
	m := make(url.Values, n)
	vals := make([]string, 0, n) // one array backs every field's value
	key, start, end := "", -1, 0 // the field being read: its name and value msg[start:end]
	add := func() error {
		if _, ok := m[key]; ok {
			return fmt.Errorf("%q: repeated", clipKey(key))
		}
		vals = append(vals, msg[start:end])
		m[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		return nil
	}
	for pos := 0; pos <= len(msg); {
		stop := strings.IndexByte(msg[pos:], '&')
		if stop < 0 {
			stop = len(msg)
		} else {
			stop += pos
		}
		if eq := strings.IndexByte(msg[pos:stop], '='); eq >= 0 {
			if start >= 0 {
				if err := add(); err != nil {
					return nil, err
				}
			}
			key, start = msg[pos:pos+eq], pos+eq+1
			if err := checkFieldName(key); err != nil {
				return nil, err
			}
		} else if start < 0 {
			return nil, errors.New("not name=value fields")
		}
		end = stop
		pos = stop + 1
	}
	if err := add(); err != nil {
		return nil, err
	}
	return m, nil
}

// jsonFields flattens the JSON object msg: nested object names are joined
// with ".", array elements are values of their array's name, nulls are
// left out. A name given twice, directly or by flattening ("a.b" and
// {"a":{"b"}}), is refused. It reads msg in one pass (internal/jsonr).
func jsonFields(msg string) (url.Values, error) {
	w := jsonWalker{out: url.Values{}, names: map[string]bool{}}
	w.r.Reset([]byte(msg))
	if w.r.Peek() != jsonr.Object {
		return nil, errNotJSON
	}
	if err := w.object("", 1, false); err != nil {
		return nil, err
	}
	if w.r.Err() != nil {
		return nil, errNotJSON
	}
	if w.r.End() != nil {
		return nil, errors.New("data after the JSON object")
	}
	return w.out, nil
}

type jsonWalker struct {
	r     jsonr.Reader
	out   url.Values
	names map[string]bool // flattened names of members outside arrays
}

var errNotJSON = errors.New("body is not a JSON object")

// object reads the object at the reader.
func (w *jsonWalker) object(prefix string, depth int, inArray bool) error {
	if depth > maxJSONDepth {
		return errors.New("JSON nested too deep")
	}
	local := map[string]bool{}
	for key, more := w.r.FirstKey(); more; key, more = w.r.NextKey() {
		k := string(key)
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if err := checkFieldName(name); err != nil {
			return err
		}
		if local[k] {
			return fmt.Errorf("%q: repeated", clipKey(name))
		}
		local[k] = true
		if !inArray {
			if w.names[name] {
				return fmt.Errorf("%q: repeated", clipKey(name))
			}
			w.names[name] = true
		}
		if err := w.value(name, depth, inArray); err != nil {
			return err
		}
	}
	if w.r.Err() != nil {
		return errNotJSON
	}
	return nil
}

// value reads one value named name.
func (w *jsonWalker) value(name string, depth int, inArray bool) error {
	switch w.r.Peek() {
	case jsonr.Object:
		return w.object(name, depth+1, inArray)
	case jsonr.Array:
		if depth+1 > maxJSONDepth {
			return errors.New("JSON nested too deep")
		}
		for more := w.r.FirstElem(); more; more = w.r.NextElem() {
			if err := w.value(name, depth+1, true); err != nil {
				return err
			}
		}
	case jsonr.String, jsonr.Number, jsonr.Bool:
		if s, _, ok := w.r.Scalar(); ok {
			w.out[name] = append(w.out[name], s)
		}
	case jsonr.Null:
		w.r.Null()
	default:
		w.r.Skip() // records the syntax error
	}
	if w.r.Err() != nil {
		return errNotJSON
	}
	return nil
}

// checkFieldName refuses a name outside the notification alphabet (a letter,
// then letters, digits, spaces, ".", "_" and "-": the identity events' names
// have spaces) and the names only establish data or a redirect carries.
func checkFieldName(name string) error {
	// The name is not shown: it is not one.
	if name == "" || !isLetter(name[0]) {
		return errors.New("a part is not a field name=value")
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && !('0' <= c && c <= '9') && c != ' ' && c != '.' && c != '_' && c != '-' {
			return errors.New("a part is not a field name=value")
		}
	}
	if foreignField(name) {
		return fmt.Errorf("%q: a field of establish data or a redirect, not of a notification", clipKey(name))
	}
	return nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// foreignField reports whether name is a field that establish data or a
// redirect carries and no notification does. VerifyCustomer's customer.name
// is a notification field; customerId is Dispute's.
func foreignField(name string) bool {
	switch name {
	case "description", "currency", "amount", "displayAmount", "minimumBalance", "returnUrl", "cancelUrl",
		"notificationUrl", "requestSignature", "metadata", "panel", "instantPayoutAvailable":
		return true
	case wire.EventFieldCustomerName:
		return false
	}
	switch name[0] {
	case 'r':
		return strings.HasPrefix(name, "recurrence.")
	case 'v':
		return strings.HasPrefix(name, "verification.")
	case 'c':
		return strings.HasPrefix(name, "customer.")
	case 'a':
		return strings.HasPrefix(name, "account.")
	case 'p':
		return strings.HasPrefix(name, "payment.")
	case 'm':
		return strings.HasPrefix(name, "metadata.")
	}
	return false
}

// clipKey shortens a field name for an error message.
func clipKey(k string) string {
	if len(k) > 40 {
		return k[:40] + "…"
	}
	return k
}

// fieldReader reads typed values from url.Values, keeping the first error. A
// repeated key is an error: its meaning would be ambiguous.
type fieldReader struct {
	v   url.Values
	err error
}

func (p *fieldReader) str(key string) string {
	vs := p.v[key]
	switch {
	case len(vs) == 0:
		return ""
	case len(vs) > 1:
		p.fail(fmt.Errorf("%s: repeated", key))
		return ""
	}
	return vs[0]
}

// num reads a code (payment or transaction type): a whole number, not
// negative (the negative codes are the SDK's own, as models.TypeUnknown);
// 0 when absent.
func (p *fieldReader) num(key string) int {
	s := p.str(key)
	if s == "" {
		return 0
	}
	w, ok := jsonr.WholeNumber(strings.TrimSpace(s)) // 2, 2.0 and 2e0 are 2
	n, err := strconv.ParseInt(w, 10, 32)            // an int on every platform
	if !ok || err != nil || n < 0 {
		p.fail(fmt.Errorf("%s: not a code", key))
		return 0
	}
	return int(n)
}

func (p *fieldReader) fail(err error) {
	if p.err == nil {
		p.err = err
	}
}
