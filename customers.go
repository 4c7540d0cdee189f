package bankpay

import (
	"context"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/models"
)

// CustomersService updates customer records, chiefly their VIP tier. The
// VIP operations work only with an accessId tied to a merchant the operator
// configured for VIP tiers; other merchants get an error response (the
// bankpaytest sandbox responds 400 with code 200, ErrBadRequest).
type CustomersService service

// CustomerUpdateParams is the body of a customer update, sent as JSON. Give
// the customer details to update together with the tier; empty fields are
// not sent. The client adds merchantId from its credentials.
type CustomerUpdateParams struct {
	// Name is the full legal name (needed for VIP status).
	Name string `json:"name,omitempty"`
	// CustomerID is the service's id of the customer record. Update fills it
	// from its customerID argument when empty; it must match when set.
	CustomerID string `json:"customerId,omitempty"`
	// ExternalID is the merchant's id of the customer. UpdateByExternalID
	// fills it from its externalID argument when empty; it must match when set.
	ExternalID string `json:"externalId,omitempty"`
	// Email, Phone, DateOfBirth, TaxID and Address are customer details
	// updated together with the tier.
	Email       string          `json:"email,omitempty"`
	Phone       string          `json:"phone,omitempty"`
	DateOfBirth string          `json:"dateOfBirth,omitempty"`
	TaxID       string          `json:"taxId,omitempty"`
	Address     *models.Address `json:"address,omitempty"`
	// VIP is the tier: nil leaves it unchanged, 0 removes VIP (sent as
	// "vip":0), 1 and up set a tier.
	VIP *int `json:"vip,omitempty"`
}

// customerUpdateBody is the wire body: the params plus merchantId.
type customerUpdateBody struct {
	Name        string          `json:"name,omitempty"`
	CustomerID  string          `json:"customerId,omitempty"`
	ExternalID  string          `json:"externalId,omitempty"`
	MerchantID  string          `json:"merchantId"`
	VIP         *int            `json:"vip,omitempty"`
	Email       string          `json:"email,omitempty"`
	Phone       string          `json:"phone,omitempty"`
	DateOfBirth string          `json:"dateOfBirth,omitempty"`
	TaxID       string          `json:"taxId,omitempty"`
	Address     *models.Address `json:"address,omitempty"`
}

// Update updates the customer record customerID (the service's id):
// POST /customers/{customerId}. The response is the updated record.
func (s *CustomersService) Update(ctx context.Context, customerID string, p *CustomerUpdateParams, opts ...Option) (*models.Customer, error) {
	if err := checkID("customerId", customerID); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	body := s.body(p)
	if err := pinID(&body.CustomerID, customerID, "customerId"); err != nil {
		return nil, err
	}
	return s.update(ctx, pathJoin("customers", customerID), nil, body, opts)
}

// UpdateByExternalID updates the customer record the merchant knows as
// externalID: POST /customers?externalId=X. The response is the updated record.
func (s *CustomersService) UpdateByExternalID(ctx context.Context, externalID string, p *CustomerUpdateParams, opts ...Option) (*models.Customer, error) {
	if err := checkID("externalId", externalID); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	body := s.body(p)
	if err := pinID(&body.ExternalID, externalID, "externalId"); err != nil {
		return nil, err
	}
	return s.update(ctx, "/customers", url.Values{"externalId": {externalID}}, body, opts)
}

func (s *CustomersService) update(ctx context.Context, path string, query url.Values, body *customerUpdateBody, opts []Option) (*models.Customer, error) {
	return call[models.Customer](ctx, s.client, http.MethodPost, path, query, body, "customer", opts)
}

// pinID fills the body's id field from the id the call names, and refuses
// a different one in the params.
func pinID(field *string, id, name string) error {
	switch *field {
	case "":
		*field = id
	case id:
	default:
		return invalid(name, "must match the "+name+" argument")
	}
	return nil
}

// body copies p into the wire body, so that p is never modified.
func (s *CustomersService) body(p *CustomerUpdateParams) *customerUpdateBody {
	return &customerUpdateBody{
		Name:        p.Name,
		CustomerID:  p.CustomerID,
		ExternalID:  p.ExternalID,
		MerchantID:  s.client.secrets.creds.MerchantID,
		VIP:         p.VIP,
		Email:       p.Email,
		Phone:       p.Phone,
		DateOfBirth: p.DateOfBirth,
		TaxID:       p.TaxID,
		Address:     p.Address,
	}
}

func (p *CustomerUpdateParams) validate() error {
	if p == nil {
		return invalid("customerUpdateParams", "must not be nil")
	}
	return checkVIP("vip", p.VIP)
}
