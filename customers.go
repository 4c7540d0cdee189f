package bankpay

import (
	"context"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// CustomersService creates, reads, lists and updates the merchant's
// customer records (chiefly their VIP tier), and looks up whether a shopper
// is a known user of the service. The VIP operations work only with an
// accessId tied to a merchant the operator configured for VIP tiers; other
// merchants get an error response (the bankpaytest sandbox responds 400
// with code 200, ErrBadRequest).
type CustomersService service

// CustomerParams is a customer record as Create, Update and
// UpdateByExternalID send it, as JSON: the service creates and updates a
// record with the same body. Empty fields are not sent (an update leaves
// them unchanged); the client adds merchantId from its credentials. Create
// of a new record (neither CustomerID nor ExternalID naming an existing
// one) requires Name, Email, Phone and Address.Country.
type CustomerParams struct {
	// Name is the full legal name (needed for VIP status).
	Name string `json:"name,omitempty"`
	// CustomerID is the service's id of the customer record. Update fills it
	// from its customerID argument when empty; it must match when set.
	// Given to Create, it names the record to update.
	CustomerID string `json:"customerId,omitempty"`
	// ExternalID is the merchant's id of the customer. UpdateByExternalID
	// fills it from its externalID argument when empty; it must match when
	// set. Given to Create, it names the record to update or the new
	// record's id.
	ExternalID string `json:"externalId,omitempty"`
	// Email, Phone, DateOfBirth, TaxID and Address are customer details,
	// set or updated together with the tier.
	Email       string          `json:"email,omitempty"`
	Phone       string          `json:"phone,omitempty"`
	DateOfBirth string          `json:"dateOfBirth,omitempty"`
	TaxID       string          `json:"taxId,omitempty"`
	Address     *models.Address `json:"address,omitempty"`
	// VIP is the tier: nil leaves it unchanged, 0 removes VIP (sent as
	// "vip":0), 1 and up set a tier.
	VIP *int `json:"vip,omitempty"`
}

// customerBody is the wire body: the params plus merchantId.
type customerBody struct {
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
func (s *CustomersService) Update(ctx context.Context, customerID string, p *CustomerParams, opts ...Option) (*models.Customer, error) {
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
	return call[models.Customer](ctx, s.client, ops.CustomersUpdate, args{IDs: []string{customerID}, Body: body}, opts)
}

// UpdateByExternalID updates the customer record the merchant knows as
// externalID: POST /customers?externalId=X. The response is the updated record.
func (s *CustomersService) UpdateByExternalID(ctx context.Context, externalID string, p *CustomerParams, opts ...Option) (*models.Customer, error) {
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
	return call[models.Customer](ctx, s.client, ops.CustomersUpdateByExternalID, args{Query: url.Values{"externalId": {externalID}}, Body: body}, opts)
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
func (s *CustomersService) body(p *CustomerParams) *customerBody {
	return &customerBody{
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

func (p *CustomerParams) validate() error {
	if p == nil {
		return invalid("customerParams", "must not be nil")
	}
	return checkVIP("vip", p.VIP)
}

// Create creates a customer record, or updates the one the params name by
// CustomerID or ExternalID: POST /customers with the JSON body of Update
// (merchantId added). A record named by neither is new: name, email, phone
// and address.country are then required (the OpenAPI's required fields of
// a customer). The response is the record, read wrapped in
// {"customer":{…}} or bare.
//
// Create changes state: it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given.
func (s *CustomersService) Create(ctx context.Context, p *CustomerParams, opts ...Option) (*models.Customer, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.CustomerID == "" && p.ExternalID == "" {
		if err := firstError(
			required("name", p.Name),
			required("email", p.Email),
			required("phone", p.Phone),
		); err != nil {
			return nil, err
		}
		if p.Address == nil || p.Address.Country == "" {
			return nil, invalid("address.country", "is required")
		}
	}
	for _, id := range []struct{ field, v string }{{"customerId", p.CustomerID}, {"externalId", p.ExternalID}} {
		if id.v != "" {
			if err := checkID(id.field, id.v); err != nil {
				return nil, err
			}
		}
	}
	return call[models.Customer](ctx, s.client, ops.CustomersCreate, args{Body: s.body(p)}, opts)
}

// Get reads the customer record customerID (the service's id):
// GET /customers/{customerId}, read wrapped in {"customer":{…}} or bare.
// An answer about another customer is a *ResponseError (ErrInvalidResponse).
// A read: retried on a network error or a 5xx response.
func (s *CustomersService) Get(ctx context.Context, customerID string, opts ...Option) (*models.Customer, error) {
	if err := checkID("customerId", customerID); err != nil {
		return nil, err
	}
	return isThe(ops.CustomersGet, customerID, customerIDField)(call[models.Customer](ctx, s.client, ops.CustomersGet, args{IDs: []string{customerID}}, opts))
}

// customerIDField is the id a Customer answer is about (isThe); the
// OpenAPI does not require it in a customer.
var customerIDField = idField[models.Customer]{"customerId", func(c *models.Customer) string { return c.CustomerID }, false}

// CustomerListParams filters CustomersService.List. Empty fields are not
// sent; with neither set, every customer of the merchant is listed.
type CustomerListParams struct {
	// ExternalID keeps the customer the merchant knows by this id.
	ExternalID string `url:"externalId,omitempty"`
	// CustomerID keeps the customer with this id of the service.
	CustomerID string `url:"customerId,omitempty"`
}

// List reads the merchant's customers, filtered by p (nil lists them all):
// GET /customers[?externalId=…][&customerId=…]. The service does not page
// this list, so it is returned whole; an empty list is not an error. The
// response is {"customers":[…]} (or a bare array); one of more than
// 20,000 customers is a *ResponseError (ErrInvalidResponse), refused
// before it is decoded (ops.MaxCustomers says why). A read: retried on a
// network error or a 5xx response.
func (s *CustomersService) List(ctx context.Context, p *CustomerListParams, opts ...Option) ([]models.Customer, error) {
	var q url.Values
	if p != nil {
		for _, id := range []struct{ field, v string }{{"externalId", p.ExternalID}, {"customerId", p.CustomerID}} {
			if id.v != "" {
				if err := checkID(id.field, id.v); err != nil {
					return nil, err
				}
			}
		}
		var err error
		if q, err = listQuery(p); err != nil {
			return nil, err
		}
	}
	return listWhole[models.Customer](ctx, s.client, ops.CustomersList, args{Query: q}, opts)
}

// lookupResponse is the body of GET /customers/lookup.
type lookupResponse = wire.CustomerLookup

// Lookup reports whether the user with this email address (and, when not
// empty, phone number in E.164 form, such as +15125550100) has paid with
// the service before, at any merchant: GET /customers/lookup?email=…[&phone=…].
// No widget is needed; use it to decide whether to offer bank payment
// first. email is required. A response without isInTrustlyNetwork is a
// *ResponseError. A read: retried on a network error or a 5xx response.
// The SDK puts neither the email nor the phone in its errors or log lines
// (a query is never logged).
func (s *CustomersService) Lookup(ctx context.Context, email, phone string, opts ...Option) (bool, error) {
	if err := firstError(checkEmail("email", email), checkPhone("phone", phone)); err != nil {
		return false, err
	}
	q := url.Values{"email": {email}}
	if phone != "" {
		q.Set("phone", phone)
	}
	r, err := call[lookupResponse](ctx, s.client, ops.CustomersLookup, args{Query: q}, opts)
	if err != nil {
		return false, err
	}
	return *r.Known, nil
}
