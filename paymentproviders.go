package bankpay

import (
	"context"
	"iter"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

// PaymentProvidersService lists the financial institutions users can pay
// with.
type PaymentProvidersService service

// PaymentProviderListParams filters and pages the list of payment
// providers, sent as the query of GET /paymentProviders. Empty fields are
// not sent.
type PaymentProviderListParams struct {
	// Countries keeps the providers of these countries, ISO 3166 alpha-2
	// codes (sent as one countries parameter each).
	Countries []string `url:"countries,omitempty"`
	// PaymentType keeps the providers enabled for a payment type: Instant,
	// Deferred, Recurring, Disbursement, Verification or Retrieval (any case).
	PaymentType string `url:"paymentType,omitempty"`
	// StartIndex is the offset of the first provider returned.
	StartIndex int `url:"startIndex,omitempty"`
	// Count is the most providers one page returns; List reads pages of
	// Count (100 when 0).
	Count int `url:"count,omitempty"`
}

// ListPage returns one page of the payment providers matching p (nil: all):
// GET /paymentProviders, from p.StartIndex, at most p.Count of them (the
// service's page size when 0). A malformed filter is a *ValidationError
// and nothing is sent. It is a read: retried on connection errors, 429 and
// 5xx.
func (s *PaymentProvidersService) ListPage(ctx context.Context, p *PaymentProviderListParams, opts ...Option) (*Page[models.PaymentProvider], error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	return s.page(ctx, q, opts)
}

// List iterates over every payment provider matching p (nil: all), from
// p.StartIndex on, reading one page of p.Count (100 when 0) at a time as
// the loop asks for more: GET /paymentProviders. An error (a malformed
// filter is a *ValidationError, sent before any request) is yielded once,
// with a nil provider, and ends the iteration. Each page is a read,
// retried on connection errors, 429 and 5xx.
func (s *PaymentProvidersService) List(ctx context.Context, p *PaymentProviderListParams, opts ...Option) iter.Seq2[*models.PaymentProvider, error] {
	q, err := p.query()
	if ctx == nil {
		err = invalid("ctx", "must not be nil")
	}
	if err != nil {
		return func(yield func(*models.PaymentProvider, error) bool) { yield(nil, err) }
	}
	return paginate(ctx, q, func(ctx context.Context, q url.Values) (*Page[models.PaymentProvider], error) {
		return s.page(ctx, q, opts)
	})
}

func (s *PaymentProvidersService) page(ctx context.Context, q url.Values, opts []Option) (*Page[models.PaymentProvider], error) {
	return listPage[models.PaymentProvider](ctx, s.client, ops.PaymentProvidersList, q, opts)
}

// query validates p and encodes it.
func (p *PaymentProviderListParams) query() (url.Values, error) {
	if p == nil {
		return url.Values{}, nil
	}
	for _, c := range p.Countries {
		if !allOf(c, 2, isUpper) {
			return nil, invalid("countries", "must be ISO 3166 alpha-2 codes in upper case, like US")
		}
	}
	switch {
	case p.StartIndex < 0:
		return nil, invalid("startIndex", "must not be negative")
	case p.Count < 0:
		return nil, invalid("count", "must not be negative")
	}
	if err := checkPaymentTypeFilter("paymentType", p.PaymentType); err != nil {
		return nil, err
	}
	return listQuery(p)
}
