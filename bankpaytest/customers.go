package bankpaytest

import (
	"fmt"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// customerRecord is a merchant's customer, keyed by customerId and (when it
// has one) externalId.
type customerRecord struct {
	c models.Customer
}

// customerBody is the body of the customer update calls.
type customerBody struct {
	models.Customer
	MerchantID string `json:"merchantId,omitempty"`
}

// newCustomer creates a record with a new customerId (or id, when given).
// The caller holds s.mu.
func (s *Server) newCustomer(m *merchant, id string) *customerRecord {
	if id == "" {
		s.st.seqCust++
		id = fmt.Sprintf("%d", 3000000000+s.st.seqCust)
	}
	rec := &customerRecord{c: models.Customer{CustomerID: id}}
	m.customers[id] = rec
	return rec
}

// upsertCustomerFromEstablish finds the customer of establish data (by
// customerId, then externalId) or creates it, and merges the data in. The
// VIP tier is set from customer.vip with customer.name for merchants
// configured for VIP tiers, and ignored for others. The caller holds s.mu.
func (s *Server) upsertCustomerFromEstablish(m *merchant, c *models.Customer) *customerRecord {
	if c == nil {
		return s.newCustomer(m, "")
	}
	var rec *customerRecord
	if c.CustomerID != "" {
		rec = m.customers[c.CustomerID]
	}
	if rec == nil && c.ExternalID != "" {
		rec = m.byExternal[c.ExternalID]
	}
	if rec == nil {
		rec = s.newCustomer(m, c.CustomerID)
	}
	in := *c
	if m.cfg.NoVIP || in.Name == "" {
		in.VIP = nil
	}
	s.mergeCustomer(m, rec, &in)
	return rec
}

// mergeCustomer copies the fields src carries into rec. The caller holds s.mu.
func (s *Server) mergeCustomer(m *merchant, rec *customerRecord, src *models.Customer) {
	dst := &rec.c
	set := func(d *string, v string) {
		if v != "" {
			*d = v
		}
	}
	if src.ExternalID != "" && src.ExternalID != dst.ExternalID {
		if dst.ExternalID != "" {
			delete(m.byExternal, dst.ExternalID)
		}
		dst.ExternalID = src.ExternalID
		m.byExternal[src.ExternalID] = rec
	}
	set(&dst.Name, src.Name)
	set(&dst.Email, src.Email)
	set(&dst.Phone, src.Phone)
	set(&dst.DateOfBirth, src.DateOfBirth)
	set(&dst.TaxID, src.TaxID)
	set((*string)(&dst.Balance), string(src.Balance))
	set(&dst.Currency, src.Currency)
	set(&dst.EnrollDate, src.EnrollDate)
	set(&dst.ExternalTier, src.ExternalTier)
	if src.DriverLicense != nil {
		dl := *src.DriverLicense
		dst.DriverLicense = &dl
	}
	if src.Address != nil {
		a := *src.Address
		dst.Address = &a
	}
	if src.VIP != nil {
		v := *src.VIP
		dst.VIP = &v
	}
}

// checkCustomerUpdate checks an update body for merchant m and the record it
// updates (nil for a new one).
func checkCustomerUpdate(m *merchant, b *customerBody, rec *customerRecord) *Error {
	if err := checkMerchantID(m, b.MerchantID); err != nil {
		return err
	}
	if b.VIP == nil {
		return nil
	}
	if *b.VIP < 0 {
		return badRequest("vip must be 0 (not VIP) or a positive tier")
	}
	if m.cfg.NoVIP {
		return badRequest("the merchant is not configured for VIP tiers")
	}
	if *b.VIP > 0 && b.Name == "" && (rec == nil || rec.c.Name == "") {
		return badRequest("name is required for a VIP tier")
	}
	return nil
}

// handleCustomerByID serves POST /customers/{customerId}: it updates an
// existing customer (404 for an unknown customerId).
func (s *Server) handleCustomerByID(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	var b customerBody
	if err := decodeJSON(body, &b); err != nil {
		return nil, err
	}
	rec := m.customers[id]
	if rec == nil {
		return nil, notFound("customer")
	}
	if err := checkCustomerUpdate(m, &b, rec); err != nil {
		return nil, err
	}
	if b.CustomerID != "" && b.CustomerID != id {
		return nil, badRequest("customerId does not match the path")
	}
	if b.ExternalID != "" {
		if other := m.byExternal[b.ExternalID]; other != nil && other != rec {
			return nil, badRequest("externalId belongs to another customer")
		}
	}
	s.mergeCustomer(m, rec, &b.Customer)
	c := copyCustomer(&rec.c)
	return wire.CustomerEnvelope{Customer: &c}, nil
}

// handleCustomerByExternalID serves POST /customers?externalId=X: it updates
// the customer with that externalId, or creates it.
func (s *Server) handleCustomerByExternalID(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	ext := r.URL.Query().Get("externalId")
	if ext == "" {
		return nil, badRequest("externalId is required")
	}
	var b customerBody
	if err := decodeJSON(body, &b); err != nil {
		return nil, err
	}
	if b.ExternalID != "" && b.ExternalID != ext {
		return nil, badRequest("externalId does not match the query")
	}
	rec := m.byExternal[ext]
	if err := checkCustomerUpdate(m, &b, rec); err != nil {
		return nil, err
	}
	if b.CustomerID != "" && (rec == nil || rec.c.CustomerID != b.CustomerID) {
		return nil, badRequest("customerId does not match the externalId")
	}
	if rec == nil {
		rec = s.newCustomer(m, "")
	}
	b.ExternalID = ext
	s.mergeCustomer(m, rec, &b.Customer)
	c := copyCustomer(&rec.c)
	return wire.CustomerEnvelope{Customer: &c}, nil
}

func copyCustomer(c *models.Customer) models.Customer {
	out := *c
	if c.Address != nil {
		a := *c.Address
		out.Address = &a
	}
	if c.DriverLicense != nil {
		dl := *c.DriverLicense
		out.DriverLicense = &dl
	}
	if c.VIP != nil {
		v := *c.VIP
		out.VIP = &v
	}
	return out
}

// Customer returns the customer record with externalID, searching the
// merchants in order (the default first).
func (s *Server) Customer(externalID string) (models.Customer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.st.merchants {
		if rec := m.byExternal[externalID]; rec != nil {
			return copyCustomer(&rec.c), true
		}
	}
	return models.Customer{}, false
}

// CustomerByID returns the customer record with customerID, searching the
// merchants in order (the default first).
func (s *Server) CustomerByID(customerID string) (models.Customer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, m := range s.st.merchants {
		if rec := m.customers[customerID]; rec != nil {
			return copyCustomer(&rec.c), true
		}
	}
	return models.Customer{}, false
}

// CustomerOf returns the customer record of authorization id: the customer
// of its establish data, or the one created for it.
func (s *Server) CustomerOf(id string) (models.Customer, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.txns[id]
	if t == nil || t.customerID == "" {
		return models.Customer{}, false
	}
	rec := t.m.customers[t.customerID]
	if rec == nil {
		return models.Customer{}, false
	}
	return copyCustomer(&rec.c), true
}
