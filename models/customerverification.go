package models

// CustomerMatch is the comparison of one attribute of the customer data the
// merchant holds for an authorization with the data of the user's bank
// (IdentityService.CustomerVerification).
type CustomerMatch struct {
	// Attribute is the attribute compared, such as customer.name or
	// customer.address.zip.
	Attribute string `json:"attribute"`
	// Result is -1 (inconclusive), 0 (no match), 1 (partial match) or 2
	// (match); a numeric string is read as its number.
	Result int `json:"result" wire:"zero"`
	// Source is the data compared with: 1 (the user's profile), 2 (the
	// selected account), 3 (the user's other accounts) or 4 (the service's
	// user records).
	Source int `json:"source"`
}
