package bankpay

// IdentityService groups the identity calls.
type IdentityService service
