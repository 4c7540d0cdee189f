package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/bankpay/bankpay-go/internal/jsonr"
	"github.com/bankpay/bankpay-go/internal/paytype"
)

// TransactionStatus is the status code of a transaction.
type TransactionStatus int

// Transaction status codes. StatusUnknown is the SDK's own: the answer or
// event said no status (the OpenAPI's establish answer, a Dispute event).
// The service never sends it, and a status it did not send is never New.
const (
	StatusUnknown           TransactionStatus = -1
	StatusNew               TransactionStatus = 0
	StatusPending           TransactionStatus = 1
	StatusAuthorized        TransactionStatus = 2
	StatusProcessed         TransactionStatus = 3
	StatusCompleted         TransactionStatus = 4
	StatusFailed            TransactionStatus = 5
	StatusExpired           TransactionStatus = 6
	StatusCanceled          TransactionStatus = 7
	StatusDenied            TransactionStatus = 8
	StatusReversed          TransactionStatus = 10
	StatusPartiallyRefunded TransactionStatus = 11
	StatusRefunded          TransactionStatus = 12
	StatusVoided            TransactionStatus = 13
	StatusOnHold            TransactionStatus = 14
)

var statusNames = map[TransactionStatus]string{
	StatusUnknown: "Unknown", StatusNew: "New", StatusPending: "Pending", StatusAuthorized: "Authorized",
	StatusProcessed: "Processed", StatusCompleted: "Completed", StatusFailed: "Failed",
	StatusExpired: "Expired", StatusCanceled: "Canceled", StatusDenied: "Denied",
	StatusReversed: "Reversed", StatusPartiallyRefunded: "PartiallyRefunded",
	StatusRefunded: "Refunded", StatusVoided: "Voided", StatusOnHold: "OnHold",
}

// String returns the status name, or "TransactionStatus(n)" for an unknown code.
func (s TransactionStatus) String() string { return codeName(statusNames, s, "TransactionStatus") }

// TransactionType is the kind of a transaction.
type TransactionType int

// Transaction type codes. TypeUnknown is the SDK's own: the answer or event
// said no type. The service never sends it, and a type it did not send is
// never External.
const (
	TypeUnknown          TransactionType = -1
	TypeExternal         TransactionType = 0
	TypeAuthorize        TransactionType = 1
	TypePay              TransactionType = 2
	TypeCapture          TransactionType = 3
	TypeRefund           TransactionType = 4
	TypeReverse          TransactionType = 5
	TypeDeposit          TransactionType = 6
	TypeReclaim          TransactionType = 7
	TypeRepresentment    TransactionType = 8
	TypePreauthorization TransactionType = 10
)

var typeNames = map[TransactionType]string{
	TypeUnknown: "Unknown", TypeExternal: "External", TypeAuthorize: "Authorize", TypePay: "Pay", TypeCapture: "Capture",
	TypeRefund: "Refund", TypeReverse: "Reverse", TypeDeposit: "Deposit", TypeReclaim: "Reclaim",
	TypeRepresentment: "Representment", TypePreauthorization: "Preauthorization",
}

// String returns the type name, or "TransactionType(n)" for an unknown code.
func (t TransactionType) String() string { return codeName(typeNames, t, "TransactionType") }

// PaymentType is the kind of payment an authorization is for. Establish data
// sends its name ("Deferred"); responses and events send the number.
type PaymentType int

// Payment type codes.
const (
	PaymentTypeInstant      PaymentType = 1
	PaymentTypeDeferred     PaymentType = 2
	PaymentTypeRecurring    PaymentType = 3
	PaymentTypeDisbursement PaymentType = 4
	PaymentTypeVerification PaymentType = 5
	PaymentTypeRetrieval    PaymentType = 6
)

// String returns the payment type name ("Deferred"), as establish data
// sends it, or "PaymentType(n)" for the zero value or an unknown code.
func (p PaymentType) String() string {
	if name := paytype.Name(p); name != "" {
		return name
	}
	return "PaymentType(" + strconv.Itoa(int(p)) + ")"
}

// parsePaymentType accepts a name ("Deferred", also lowercase "deferred" and
// any other case) or a number ("2").
func parsePaymentType(s string) (PaymentType, error) {
	if code, ok := paytype.Parse(s); ok {
		return PaymentType(code), nil
	}
	var n int
	if err := parseCode(s, &n); err != nil {
		return 0, fmt.Errorf("unknown payment type %q", clip(s))
	}
	return PaymentType(n), nil
}

// UnmarshalJSON accepts a number, a numeric string or a name.
func (p *PaymentType) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		if s == "" {
			*p = 0
			return nil
		}
		v, err := parsePaymentType(s)
		*p = v
		return err
	}
	return unmarshalCode(b, (*int)(p))
}

// Currency is a 3-letter ISO currency code. The service supports USD and CAD.
type Currency string

// Supported currencies.
const (
	USD Currency = "USD"
	CAD Currency = "CAD"
)

func codeName[T ~int](names map[T]string, v T, typ string) string {
	if n, ok := names[v]; ok {
		return n
	}
	return typ + "(" + strconv.Itoa(int(v)) + ")"
}

func unmarshalCode(b []byte, dst *int) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		return nil
	}
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		return parseCode(s, dst)
	}
	return parseCode(string(b), dst)
}

func parseCode(s string, dst *int) error {
	if s == "" {
		*dst = 0
		return nil
	}
	w, ok := jsonr.WholeNumber(s) // 2, "2", 2.0 and "2.0" are the code 2
	if !ok {
		return fmt.Errorf("invalid code %q", clip(s))
	}
	n, err := strconv.Atoi(w)
	if err != nil {
		return fmt.Errorf("invalid code %q", clip(s))
	}
	*dst = n
	return nil
}
