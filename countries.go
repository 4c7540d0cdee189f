package bankpay

import (
	"context"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/paytype"
	"github.com/bankpay/bankpay-go/models"
)

// CountriesService lists the countries the service operates in.
type CountriesService service

// CountryListParams filters the list of countries, sent as the query of
// GET /countries. Empty fields are not sent.
type CountryListParams struct {
	// Country keeps one country, an ISO 3166 alpha-2 code (the service
	// supports US, CA, UK, DE and AU).
	Country string `url:"country,omitempty"`
	// PaymentType keeps the countries supporting a payment type: Instant,
	// Deferred, Recurring, Disbursement, Verification or Retrieval (any case).
	PaymentType string `url:"paymentType,omitempty"`
	// PaymentProviderSubType keeps the countries supporting a provider
	// subtype: "1000", "2000" or "2001" (paymentProvider.subType).
	PaymentProviderSubType string `url:"paymentProvider.subType,omitempty"`
	// Enabled nil sends nothing: the service lists the countries currently
	// supported (its default, true). A pointer to false lists every
	// country, supported or not (see Country.Enabled).
	Enabled *bool `url:"enabled,omitempty"`
}

// List returns the countries matching p (nil: every country currently
// supported): GET /countries, in one response (the list is not paged; more
// than 1,000 countries is an invalid response, refused before decoding). A
// malformed filter is a *ValidationError and nothing is sent. It is a read:
// retried on connection errors, 429 and 5xx.
func (s *CountriesService) List(ctx context.Context, p *CountryListParams, opts ...Option) ([]models.Country, error) {
	if p == nil {
		p = &CountryListParams{}
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	q, err := listQuery(p)
	if err != nil {
		return nil, err
	}
	return listWhole[models.Country](ctx, s.client, ops.CountriesList, args{Query: q}, opts)
}

func (p *CountryListParams) validate() error {
	if p.Country != "" && !allOf(p.Country, 2, isUpper) {
		return invalid("country", "must be an ISO 3166 alpha-2 code in upper case, like US")
	}
	if sub := p.PaymentProviderSubType; sub != "" && !allOf(sub, 4, isDigit) {
		return invalid("paymentProvider.subType", `must be a four-digit subtype code, like "1000"`)
	}
	return checkPaymentTypeFilter("paymentType", p.PaymentType)
}

// checkPaymentTypeFilter accepts "" and a payment type name in any case
// (internal/paytype, the names establish data sends).
func checkPaymentTypeFilter(field, name string) error {
	if _, ok := paytype.Parse(name); name == "" || ok {
		return nil
	}
	return invalid(field, "must be Instant, Deferred, Recurring, Disbursement, Verification or Retrieval")
}
