package models

// Country is a country the service lists with GET /countries: its ISO 3166
// codes and name, and what the service offers there. The service writes the
// United Kingdom's alpha-2 code as UK.
type Country struct {
	// NumericCode is the ISO 3166-1 numeric code (840 for the US).
	NumericCode int    `json:"numericCode,omitempty"`
	Alpha2Code  string `json:"alpha2Code,omitempty"`
	Alpha3Code  string `json:"alpha3Code,omitempty"`
	Name        string `json:"name,omitempty"`
	// Currencies are the ISO 4217 codes supported there.
	Currencies []string `json:"currencies,omitempty"`
	// PaymentTypes are the payment type names supported there, as the
	// service writes them ("instant", "deferred", "disbursement"…).
	PaymentTypes []string `json:"paymentTypes,omitempty"`
	// PaymentProviderSubtypes are the provider subtypes supported there:
	// "1000" online banking, "2000" manual entry, "2001" manual entry with
	// challenge deposit.
	PaymentProviderSubtypes []string `json:"paymentProviderSubtypes,omitempty"`
	// Enabled reports whether the country is currently supported.
	Enabled bool `json:"enabled"`
}
