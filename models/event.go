package models

// EventType is the eventType of an event notification. The service may send
// types not listed here; they are kept as received.
type EventType string

// Event types seen in notifications. Some appear in two spellings.
const (
	EventEstablish EventType = "Establish"
	EventAuthorize EventType = "Authorize"
	EventDataReady EventType = "DataReady"
	EventUpdate    EventType = "Update"
	EventProcess   EventType = "Process"
	EventComplete  EventType = "Complete"
	EventCompleted EventType = "Completed"
	EventCancel    EventType = "Cancel"
	EventCancelled EventType = "Cancelled"
	EventExpire    EventType = "Expire"
	EventExpired   EventType = "Expired"
	EventFailed    EventType = "Failed"
	EventDeny      EventType = "Deny"
	EventDispute   EventType = "Dispute"
	EventReconcile EventType = "Reconcile"
	EventRefund    EventType = "Refund"
	EventReverse   EventType = "Reverse"
	EventRefresh   EventType = "Refresh"

	// EventVerifyCustomer carries the result of the identity check against
	// the bank's data (customer.name).
	EventVerifyCustomer EventType = "VerifyCustomer"
	// EventConsentRevoked: the user revoked the consent of an authorization.
	EventConsentRevoked EventType = "CONSENT_REVOKED"

	// EventIdentityVerificationDataRetrieved: identity data came back from
	// at least one provider (one event per provider or verification).
	EventIdentityVerificationDataRetrieved EventType = "IdentityVerificationDataRetrieved"
	// EventCustomerIdentityVerified: the verification process is complete.
	EventCustomerIdentityVerified EventType = "CustomerIdentityVerified"
)

var transactionEventTypes = map[EventType]bool{
	EventEstablish: true, EventAuthorize: true, EventDataReady: true, EventUpdate: true,
	EventProcess: true, EventComplete: true, EventCompleted: true, EventCancel: true,
	EventCancelled: true, EventExpire: true, EventExpired: true, EventFailed: true,
	EventDeny: true, EventDispute: true, EventReconcile: true, EventRefund: true,
	EventReverse: true, EventRefresh: true, EventVerifyCustomer: true, EventConsentRevoked: true,
}

// IsTransaction reports whether t is one of the standard transaction event
// types (every listed type but the two identity events).
func (t EventType) IsTransaction() bool { return transactionEventTypes[t] }

// IsIdentity reports whether t is one of the two identity events.
func (t EventType) IsIdentity() bool {
	return t == EventIdentityVerificationDataRetrieved || t == EventCustomerIdentityVerified
}

// Known reports whether t is a listed event type.
func (t EventType) Known() bool { return t.IsTransaction() || t.IsIdentity() }

// Canonical returns t in one spelling where the operator's sources differ:
// Completed is Complete, Cancelled is Cancel, Expired is Expire; any other
// type is returned as it is.
func (t EventType) Canonical() EventType {
	switch t {
	case EventCompleted:
		return EventComplete
	case EventCancelled:
		return EventCancel
	case EventExpired:
		return EventExpire
	}
	return t
}

// String returns the type as sent.
func (t EventType) String() string { return string(t) }
