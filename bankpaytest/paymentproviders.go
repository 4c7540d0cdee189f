package bankpaytest

import (
	"net/http"
	"slices"
	"strconv"

	"github.com/bankpay/bankpay-go/models"
)

// providerRow is a payment provider of the table and the payment types it
// is enabled for (lower case; not part of the response).
type providerRow struct {
	models.PaymentProvider
	types []string
}

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
