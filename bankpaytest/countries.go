package bankpaytest

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// The reference data, countries and payment providers, come from two fixed
// tables: the same for every merchant and for the server's life.

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

// providerRow is a payment provider of the table and the payment types it
// is enabled for (lower case; not part of the response).
type providerRow struct {
	models.PaymentProvider
	types []string
}

var allTypes = []string{"instant", "deferred", "recurring", "disbursement", "verification", "retrieval"}

// providerTable is what GET /paymentProviders lists, in this order: the
// sandbox bank first (the bank of every sandbox authorization).
var providerTable = []providerRow{
	{models.PaymentProvider{PaymentProviderID: SandboxProviderID, Type: 1, Name: SandboxBankName, Country: "US", SubType: "1000",
		Swift: "DEMOUS33", InstantPayoutAvailable: true, InstantPayment: true}, allTypes},
	{models.PaymentProvider{PaymentProviderID: "200005502", Type: 1, Name: "First Sample Bank", Country: "US", SubType: "1000",
		Swift: "FSMPUS44", InstantPayoutAvailable: true}, allTypes},
	{models.PaymentProvider{PaymentProviderID: "200005503", Type: 1, Name: "Pine Credit Union", Country: "US", SubType: "2000"},
		[]string{"deferred", "disbursement", "verification"}},
	{models.PaymentProvider{PaymentProviderID: "200005504", Type: 1, Name: "Harbor Savings", Country: "US", SubType: "2001"},
		[]string{"deferred", "verification"}},
	{models.PaymentProvider{PaymentProviderID: "200010001", Type: 1, Name: "Maple Demo Bank", Country: "CA", SubType: "1000",
		Swift: "MAPLCATT", InstantPayment: true}, []string{"instant", "deferred", "recurring", "disbursement"}},
	{models.PaymentProvider{PaymentProviderID: "200010002", Type: 1, Name: "Northern Credit Union", Country: "CA", SubType: "2000"},
		[]string{"deferred", "disbursement"}},
	{models.PaymentProvider{PaymentProviderID: "200020001", Type: 1, Name: "Thames Demo Bank", Country: "UK", SubType: "1000",
		Swift: "THMSGB2L", InstantPayment: true}, []string{"instant", "deferred", "recurring"}},
	{models.PaymentProvider{PaymentProviderID: "200030001", Type: 1, Name: "Rhein Demo Bank", Country: "DE", SubType: "1000",
		Swift: "RHEIDEFF", InstantPayment: true}, []string{"instant", "deferred"}},
	{models.PaymentProvider{PaymentProviderID: "200030002", Type: 1, Name: "Spree Sparkasse", Country: "DE", SubType: "1000",
		Swift: "SPREDEBB"}, []string{"instant"}},
	{models.PaymentProvider{PaymentProviderID: "200040001", Type: 1, Name: "Harbour Demo Bank", Country: "AU", SubType: "1000",
		Swift: "HRBRAU2S", InstantPayment: true}, []string{"instant", "deferred", "disbursement"}},
}

// defaultProviderCount is the page size of GET /paymentProviders without a
// count.
const defaultProviderCount = 25

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

// handleProviders serves GET /paymentProviders?countries=…&paymentType=&startIndex=&count=:
// the table's providers of any of the countries given (repeated parameter)
// and enabled for the payment type, from startIndex (default 0), at most
// count (default defaultProviderCount) of them. itemsPerPage is the page
// size used. The sandbox bank shows instantPayoutAvailable false for a
// merchant with NoInstantPayout, as its authorizations do.
func (s *Server) handleProviders(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	countries := q["countries"]
	for _, c := range countries {
		if !isAlpha2(c) {
			return nil, badRequest("countries must be ISO 3166 alpha-2 codes")
		}
	}
	typ, ok := paymentTypeFilter(q.Get("paymentType"))
	if !ok {
		return nil, badRequest("paymentType must be Instant, Deferred, Recurring, Disbursement, Verification or Retrieval")
	}
	start, err := queryInt(q.Get("startIndex"), 0, 0, "startIndex")
	if err != nil {
		return nil, err
	}
	count, err := queryInt(q.Get("count"), defaultProviderCount, 1, "count")
	if err != nil {
		return nil, err
	}
	var match []models.PaymentProvider
	for _, p := range providerTable {
		if (len(countries) == 0 || slices.Contains(countries, p.Country)) && (typ == "" || slices.Contains(p.types, typ)) {
			pp := p.PaymentProvider
			if pp.PaymentProviderID == SandboxProviderID {
				pp.InstantPayoutAvailable = !m.cfg.NoInstantPayout
			}
			match = append(match, pp)
		}
	}
	page := []models.PaymentProvider{}
	if start < len(match) {
		page = match[start:min(len(match), start+count)]
	}
	return struct {
		PaymentProviders []models.PaymentProvider `json:"paymentProviders"`
		StartIndex       int                      `json:"startIndex"`
		ItemsPerPage     int                      `json:"itemsPerPage"`
	}{page, start, count}, nil
}

// queryInt reads a decimal query parameter of at least least, def when absent.
func queryInt(v string, def, least int, name string) (int, *Error) {
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < least || n > 1<<30 {
		return 0, badRequest("%s must be an integer from %d", name, least)
	}
	return n, nil
}
