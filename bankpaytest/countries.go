package bankpaytest

import (
	"net/http"
	"slices"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// The reference data, countries and payment providers (paymentproviders.go),
// come from two fixed tables: the same for every merchant and for the
// server's life.

// countryTable is what GET /countries lists: the five countries the
// operator supports, and one it does not (shown with enabled=false only).
var countryTable = []models.Country{
	{NumericCode: 840, Alpha2Code: "US", Alpha3Code: "USA", Name: "United States", Currencies: []string{"USD"},
		PaymentTypes:            []string{"instant", "deferred", "recurring", "disbursement", "verification", "retrieval"},
		PaymentProviderSubtypes: []string{"1000", "2000", "2001"}, Enabled: true},
	{NumericCode: 124, Alpha2Code: "CA", Alpha3Code: "CAN", Name: "Canada", Currencies: []string{"CAD"},
		PaymentTypes:            []string{"instant", "deferred", "recurring", "disbursement", "verification"},
		PaymentProviderSubtypes: []string{"1000", "2000"}, Enabled: true},
	{NumericCode: 826, Alpha2Code: "UK", Alpha3Code: "GBR", Name: "United Kingdom", Currencies: []string{"GBP"},
		PaymentTypes: []string{"instant", "deferred", "recurring"}, PaymentProviderSubtypes: []string{"1000"}, Enabled: true},
	{NumericCode: 276, Alpha2Code: "DE", Alpha3Code: "DEU", Name: "Germany", Currencies: []string{"EUR"},
		PaymentTypes: []string{"instant", "deferred"}, PaymentProviderSubtypes: []string{"1000"}, Enabled: true},
	{NumericCode: 36, Alpha2Code: "AU", Alpha3Code: "AUS", Name: "Australia", Currencies: []string{"AUD"},
		PaymentTypes: []string{"instant", "deferred", "disbursement"}, PaymentProviderSubtypes: []string{"1000"}, Enabled: true},
	{NumericCode: 484, Alpha2Code: "MX", Alpha3Code: "MEX", Name: "Mexico", Currencies: []string{"MXN"},
		PaymentTypes: []string{"disbursement"}, PaymentProviderSubtypes: []string{"2000"}, Enabled: false},
}

// allTypes are the payment types of the reference data, lower case.
var allTypes = []string{"instant", "deferred", "recurring", "disbursement", "verification", "retrieval"}

// paymentTypeFilter reads a paymentType filter (any case) as the table's
// lower-case name; ok is false for an unknown name.
func paymentTypeFilter(v string) (name string, ok bool) {
	name = strings.ToLower(v)
	return name, name == "" || slices.Contains(allTypes, name)
}

// handleCountries serves GET /countries?country=&paymentType=&paymentProvider.subType=&enabled=.
// enabled defaults to true (the countries currently supported); false
// lists every country. A malformed filter responds with the bare 400
// {"message":…} the OpenAPI shows for this call; a filter nothing matches
// gives an empty list.
func (s *Server) handleCountries(r *http.Request, _ []byte, _ *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	country := q.Get("country")
	if country != "" && !isAlpha2(country) {
		return nil, unreadable("country must be an ISO 3166 alpha-2 code")
	}
	typ, ok := paymentTypeFilter(q.Get("paymentType"))
	if !ok {
		return nil, unreadable("paymentType must be Instant, Deferred, Recurring, Disbursement, Verification or Retrieval")
	}
	sub := q.Get("paymentProvider.subType")
	if sub != "" && !isDigits(sub) {
		return nil, unreadable("paymentProvider.subType must be a subtype code, like 1000")
	}
	onlyEnabled := true
	switch q.Get("enabled") {
	case "", "true":
	case "false":
		onlyEnabled = false
	default:
		return nil, unreadable("enabled must be true or false")
	}
	out := []models.Country{}
	for _, c := range countryTable {
		if (country == "" || c.Alpha2Code == country) && (typ == "" || slices.Contains(c.PaymentTypes, typ)) &&
			(sub == "" || slices.Contains(c.PaymentProviderSubtypes, sub)) && (c.Enabled || !onlyEnabled) {
			out = append(out, c)
		}
	}
	return struct {
		Countries []models.Country `json:"countries"`
	}{out}, nil
}
