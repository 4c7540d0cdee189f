package models

// EventType is the eventType of an event notification. The service may send
// types not listed here; they are kept as received.
type EventType string

// Event types seen in notifications. Complete, Cancel and Expire also
// come as Completed, Cancelled and Expired: bankpay.Event.EventType holds
// the spelling here (Event.Raw the one received), so compare with these.
const (
	EventEstablish EventType = "Establish"
	EventAuthorize EventType = "Authorize"
	EventDataReady EventType = "DataReady"
	EventUpdate    EventType = "Update"
	EventProcess   EventType = "Process"
	EventComplete  EventType = "Complete"
	EventCancel    EventType = "Cancel"
	EventExpire    EventType = "Expire"
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
