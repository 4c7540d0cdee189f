package contract

import (
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go"
)

// IdentityEvents are the spec's two identity events (service-spec.md,
// "Event notifications"), which the OpenAPI does not list: their fields
// beside the common ones.
var IdentityEvents = map[string][]string{
	"IdentityVerificationDataRetrieved": {"Provider Report Status", "Provider Service Name", "Provider used for validation"},
	"CustomerIdentityVerified":          {"Identity Verified", "KYC Result"},
}

// IdentityCommonFields are the fields common to both identity events.
var IdentityCommonFields = []string{"merchantId", "merchantReference", "eventType", "eventId", "paymentType", "transactionType",
	"objectId", "objectType", "message", "timeZone", "createdAt"}

// EventFields maps the wire name of each notification field the SDK types to
// the typed value it reads into, as text (a bool as true/false, createdAt as
// epoch milliseconds); ok is false when the event has no place for it (the
// part holding it is nil).
var EventFields = map[string]func(e *bankpay.Event) (string, bool){
	"eventId":                           func(e *bankpay.Event) (string, bool) { return e.EventID, true },
	"eventType":                         func(e *bankpay.Event) (string, bool) { return string(e.EventType), true },
	"merchantId":                        func(e *bankpay.Event) (string, bool) { return e.MerchantID, true },
	"merchantReference":                 func(e *bankpay.Event) (string, bool) { return e.MerchantReference, true },
	"accessId":                          func(e *bankpay.Event) (string, bool) { return e.AccessID, true },
	"paymentType":                       func(e *bankpay.Event) (string, bool) { return strconv.Itoa(int(e.PaymentType)), true },
	"transactionType":                   func(e *bankpay.Event) (string, bool) { return strconv.Itoa(int(e.TransactionType)), true },
	"objectId":                          func(e *bankpay.Event) (string, bool) { return e.ObjectID, true },
	"objectType":                        func(e *bankpay.Event) (string, bool) { return e.ObjectType, true },
	"parentObjectId":                    func(e *bankpay.Event) (string, bool) { return e.ParentObjectID, true },
	"message":                           func(e *bankpay.Event) (string, bool) { return e.Message, true },
	"timeZone":                          func(e *bankpay.Event) (string, bool) { return e.TimeZone, true },
	"createdAt":                         func(e *bankpay.Event) (string, bool) { return strconv.FormatInt(e.CreatedAt.UnixMilli(), 10), true },
	"status":                            txn(func(t *bankpay.TransactionEvent) string { return strconv.Itoa(int(t.Status)) }),
	"statusMessage":                     txn(func(t *bankpay.TransactionEvent) string { return t.StatusMessage }),
	"paymentProviderTransaction.status": txn(func(t *bankpay.TransactionEvent) string { return string(t.ProviderStatus) }),
	"paymentProviderTransaction.statusMessage":     txn(func(t *bankpay.TransactionEvent) string { return t.ProviderStatusMessage }),
	"paymentProviderTransaction.reasonCode":        txn(func(t *bankpay.TransactionEvent) string { return t.ProviderReasonCode }),
	"paymentProviderTransaction.reasonCodeMessage": txn(func(t *bankpay.TransactionEvent) string { return t.ProviderReasonCodeMessage }),
	"splitToken":           txn(func(t *bankpay.TransactionEvent) string { return t.SplitToken }),
	"errorCode":            txn(func(t *bankpay.TransactionEvent) string { return t.ErrorCode }),
	"suggestedRetryAmount": txn(func(t *bankpay.TransactionEvent) string { return string(t.SuggestedRetryAmount) }),
	"fiName":               txn(func(t *bankpay.TransactionEvent) string { return t.FIName }),
	"customer.name":        txn(func(t *bankpay.TransactionEvent) string { return t.CustomerName }),
	"hardRefresh":          refresh(func(r *bankpay.RefreshResult) string { return strconv.FormatBool(r.HardRefresh) }),
	"refreshPurpose":       refresh(func(r *bankpay.RefreshResult) string { return r.Purpose }),
	"success": refresh(func(r *bankpay.RefreshResult) string {
		if r.Success == nil {
			return ""
		}
		return strconv.FormatBool(*r.Success)
	}),
	"reference":                    dispute(func(d *bankpay.DisputeDetails) string { return d.Reference }),
	"transactionId":                dispute(func(d *bankpay.DisputeDetails) string { return d.TransactionID }),
	"transactionDatetime":          dispute(func(d *bankpay.DisputeDetails) string { return d.TransactionDatetime }),
	"returnType":                   dispute(func(d *bankpay.DisputeDetails) string { return d.ReturnType }),
	"customerId":                   dispute(func(d *bankpay.DisputeDetails) string { return d.CustomerID }),
	"returnDatetime":               dispute(func(d *bankpay.DisputeDetails) string { return d.ReturnDatetime }),
	"amountReturned":               dispute(func(d *bankpay.DisputeDetails) string { return string(d.AmountReturned) }),
	"Provider Report Status":       identity(func(i *bankpay.IdentityEvent) string { return i.ProviderReportStatus }),
	"Provider Service Name":        identity(func(i *bankpay.IdentityEvent) string { return i.ProviderServiceName }),
	"Provider used for validation": identity(func(i *bankpay.IdentityEvent) string { return i.ProviderUsedForValidation }),
	"Identity Verified":            identity(func(i *bankpay.IdentityEvent) string { return i.IdentityVerified }),
	"KYC Result":                   identity(func(i *bankpay.IdentityEvent) string { return i.KYCResult }),
}

func txn(f func(*bankpay.TransactionEvent) string) func(*bankpay.Event) (string, bool) {
	return func(e *bankpay.Event) (string, bool) {
		if e.Transaction == nil {
			return "", false
		}
		return f(e.Transaction), true
	}
}

func refresh(f func(*bankpay.RefreshResult) string) func(*bankpay.Event) (string, bool) {
	return func(e *bankpay.Event) (string, bool) {
		if e.Transaction == nil || e.Transaction.Refresh == nil {
			return "", false
		}
		return f(e.Transaction.Refresh), true
	}
}

func dispute(f func(*bankpay.DisputeDetails) string) func(*bankpay.Event) (string, bool) {
	return func(e *bankpay.Event) (string, bool) {
		if e.Transaction == nil || e.Transaction.Dispute == nil {
			return "", false
		}
		return f(e.Transaction.Dispute), true
	}
}

func identity(f func(*bankpay.IdentityEvent) string) func(*bankpay.Event) (string, bool) {
	return func(e *bankpay.Event) (string, bool) {
		if e.Identity == nil {
			return "", false
		}
		return f(e.Identity), true
	}
}

// Flatten writes a JSON object as the notification's fields: nested objects
// dotted, scalars as text (numbers as written, null as empty).
func Flatten(v map[string]any) url.Values {
	out := url.Values{}
	var walk func(prefix string, v any)
	walk = func(prefix string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				walk(join(prefix, k), e)
			}
		case []any:
			b := make([]string, len(x))
			for i, e := range x {
				b[i] = scalarText(e)
			}
			out.Set(prefix, strings.Join(b, ","))
		default:
			out.Set(prefix, scalarText(v))
		}
	}
	walk("", v)
	return out
}

// FormBody encodes fields as the service posts them: name=value pairs, the
// values URL-encoded, names sorted.
func FormBody(fields url.Values) []byte {
	keys := make([]string, 0, len(fields))
	for k := range fields {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for i, k := range keys {
		if i > 0 {
			b.WriteByte('&')
		}
		fmt.Fprintf(&b, "%s=%s", url.QueryEscape(k), url.QueryEscape(fields.Get(k)))
	}
	return []byte(b.String())
}

// EventTypeRead are the eventType spellings the operator's sources differ
// on (the OpenAPI's webhook names against the DESIGN's), with the one the
// SDK reads into Event.EventType (docs/wire.md, eventType spellings); Raw
// keeps the spelling sent.
var EventTypeRead = map[string]string{"Completed": "Complete", "Cancelled": "Cancel", "Expired": "Expire"}

// EventOffWire are the fields of bankpay.Event (and the types it holds)
// that no single notification field is read into, with why.
var EventOffWire = map[string]string{
	"Raw":                   "every field as sent (checked field by field against what was sent)",
	"Transaction":           "the transaction part: its fields are mapped one by one",
	"Identity":              "the identity part: its fields are mapped one by one",
	"Transaction.HasStatus": "whether status was sent (checked through status)",
	"TransactionID":         "objectId when objectType is a transaction's (checked through objectId and objectType)",
	"Transaction.Refresh":   "the refresh part: its fields are mapped one by one",
	"Transaction.Dispute":   "the dispute part: its fields are mapped one by one",
}

// UnreadEventFields are the properties of the OpenAPI's event schemas the
// SDK deliberately does not type, with why (Raw still holds each).
var UnreadEventFields = map[string]string{}
