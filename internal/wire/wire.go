// Package wire holds what only the wire needs, shared by the client and the
// bankpaytest sandbox: the wrappers of wrapped responses, the field names of
// event notifications, payment type names and identity feedback codes.
package wire

import "github.com/bankpay/bankpay-go/models"

// TransactionEnvelope is the wire wrapping of a single transaction.
type TransactionEnvelope struct {
	Transaction *models.Transaction `json:"transaction"`
}

// CustomerEnvelope is the wire wrapping of a customer record.
type CustomerEnvelope struct {
	Customer *models.Customer `json:"customer"`
}

// AccountBalanceEnvelope is the wire wrapping of an account balance.
type AccountBalanceEnvelope struct {
	AccountBalance *models.AccountBalance `json:"accountBalance"`
}

// BankUserEnvelope is the wire wrapping of a bank-held user.
type BankUserEnvelope struct {
	User *models.BankUser `json:"user"`
}

// IdentityUserEnvelope is the wire wrapping of an identity user.
type IdentityUserEnvelope struct {
	User *models.IdentityUser `json:"user"`
}

// VerificationDetailEnvelope is the wire wrapping of a verification detail.
type VerificationDetailEnvelope struct {
	Detail *models.VerificationDetail `json:"detail"`
}

// Feedback is what the merchant reports after an identity verification:
// Registered (status 4, subStatus 559) or Void (status 13, subStatus 558).
type Feedback struct {
	Status      int    `json:"status"`
	SubStatus   int    `json:"subStatus"`
	Description string `json:"description,omitempty"`
}

// Feedback codes of the identity flow.
const (
	FeedbackStatusRegistered    = 4
	FeedbackSubStatusRegistered = 559
	FeedbackStatusVoid          = 13
	FeedbackSubStatusVoid       = 558
)

// FeedbackEnvelope is the wire wrapping of feedback.
type FeedbackEnvelope struct {
	Feedback *Feedback `json:"feedback"`
}

// FeedbackBody is the identity feedback request the SDK sends: the feedback
// wrapped, as the spec shows, and the same fields flat beside it, as the
// OpenAPI shows. A server reading either shape reads the merchant's choice.
// The wrapped shape alone, read flat, would take the OpenAPI's defaults
// (status 4, subStatus 559, "Registered") and register a user the merchant
// asked to void; the flat shape alone, read wrapped, would find no
// feedback. This is the one request where the SDK writes beyond the spec's
// shape (docs/wire.md).
type FeedbackBody struct {
	Feedback    *Feedback `json:"feedback"`
	Status      int       `json:"status"`
	SubStatus   int       `json:"subStatus"`
	Description string    `json:"description,omitempty"`
}

// NewFeedbackBody returns fb in both shapes.
func NewFeedbackBody(fb Feedback) FeedbackBody {
	return FeedbackBody{Feedback: &fb, Status: fb.Status, SubStatus: fb.SubStatus, Description: fb.Description}
}

// Field names of an event notification (form-encoded, nested names dotted;
// the identity events' extra fields have spaces).
const (
	EventFieldMerchantID                   = "merchantId"
	EventFieldMerchantReference            = "merchantReference"
	EventFieldPaymentType                  = "paymentType"
	EventFieldTransactionType              = "transactionType"
	EventFieldEventID                      = "eventId"
	EventFieldEventType                    = "eventType"
	EventFieldObjectID                     = "objectId"
	EventFieldObjectType                   = "objectType"
	EventFieldMessage                      = "message"
	EventFieldParentObjectID               = "parentObjectId"
	EventFieldTimeZone                     = "timeZone"
	EventFieldCreatedAt                    = "createdAt"
	EventFieldAccessID                     = "accessId"
	EventFieldStatus                       = "status"
	EventFieldStatusMessage                = "statusMessage"
	EventFieldProviderTransactionStatus    = "paymentProviderTransaction.status"
	EventFieldProviderTransactionStatusMsg = "paymentProviderTransaction.statusMessage"
	EventFieldProviderReasonCode           = "paymentProviderTransaction.reasonCode"
	EventFieldProviderReasonCodeMessage    = "paymentProviderTransaction.reasonCodeMessage"
	EventFieldSplitToken                   = "splitToken"
	EventFieldErrorCode                    = "errorCode"
	EventFieldSuggestedRetryAmount         = "suggestedRetryAmount"

	// Update
	EventFieldFIName = "fiName"

	// Refresh
	EventFieldHardRefresh    = "hardRefresh"
	EventFieldRefreshPurpose = "refreshPurpose"
	EventFieldSuccess        = "success"

	// Dispute
	EventFieldReference           = "reference"
	EventFieldTransactionID       = "transactionId"
	EventFieldTransactionDatetime = "transactionDatetime"
	EventFieldReturnType          = "returnType"
	EventFieldCustomerID          = "customerId"
	EventFieldReturnDatetime      = "returnDatetime"
	EventFieldAmountReturned      = "amountReturned"

	// VerifyCustomer
	EventFieldCustomerName = "customer.name"

	// IdentityVerificationDataRetrieved
	EventFieldProviderReportStatus      = "Provider Report Status"
	EventFieldProviderServiceName       = "Provider Service Name"
	EventFieldProviderUsedForValidation = "Provider used for validation"

	// CustomerIdentityVerified
	EventFieldIdentityVerified = "Identity Verified"
	EventFieldKYCResult        = "KYC Result"
)

// ObjectTypeTransaction is the objectType of transaction and identity events.
const ObjectTypeTransaction = "Transaction"

// CanonicalEventType returns t in the one spelling the SDK reads where the
// operator's sources differ (docs/wire.md): Completed is Complete,
// Cancelled is Cancel, Expired is Expire; any other type is returned as it
// is. Event.EventType is read so; Event.Raw keeps the spelling received.
func CanonicalEventType(t models.EventType) models.EventType {
	switch t {
	case "Completed":
		return models.EventComplete
	case "Cancelled":
		return models.EventCancel
	case "Expired":
		return models.EventExpire
	}
	return t
}

// CustomerLookup is the body of GET /customers/lookup.
type CustomerLookup struct {
	Known *bool `json:"isInTrustlyNetwork"`
}
