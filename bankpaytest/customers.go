package bankpaytest

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

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
	now := models.EpochMillis(s.st.now.UnixMilli())
	rec := &customerRecord{c: models.Customer{CustomerID: id, MerchantID: m.cfg.MerchantID, CreatedAt: now, UpdatedAt: now}}
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
	dst.UpdatedAt = models.EpochMillis(s.st.now.UnixMilli())
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
	return s.openAPICodes(wire.CustomerEnvelope{Customer: &c}, "customer.vip"), nil
}

// handleCustomerByExternalID serves POST /customers. With ?externalId=X it
// updates the customer with that externalId, or creates it. Without it,
// it creates a customer, or updates the one the body names by customerId
// (404 when unknown) or externalId; a new customer needs name, email, phone
// and address.country.
func (s *Server) handleCustomerByExternalID(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	if !q.Has("externalId") {
		return s.createCustomer(body, m)
	}
	ext := q.Get("externalId")
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
	return s.openAPICodes(wire.CustomerEnvelope{Customer: &c}, "customer.vip"), nil
}

// createCustomer serves POST /customers without externalId in the query.
func (s *Server) createCustomer(body []byte, m *merchant) (any, *Error) {
	var b customerBody
	if err := decodeJSON(body, &b); err != nil {
		return nil, err
	}
	var rec *customerRecord
	switch {
	case b.CustomerID != "":
		if rec = m.customers[b.CustomerID]; rec == nil {
			return nil, notFound("customer")
		}
		if b.ExternalID != "" {
			if other := m.byExternal[b.ExternalID]; other != nil && other != rec {
				return nil, badRequest("externalId belongs to another customer")
			}
		}
	case b.ExternalID != "":
		rec = m.byExternal[b.ExternalID]
	}
	if err := checkCustomerUpdate(m, &b, rec); err != nil {
		return nil, err
	}
	if rec == nil {
		for _, f := range []struct{ name, v string }{{"name", b.Name}, {"email", b.Email}, {"phone", b.Phone}} {
			if f.v == "" {
				return nil, badRequest("%s is required for a new customer", f.name)
			}
		}
		if b.Address == nil || b.Address.Country == "" {
			return nil, badRequest("address.country is required for a new customer")
		}
		rec = s.newCustomer(m, "")
	}
	s.mergeCustomer(m, rec, &b.Customer)
	c := copyCustomer(&rec.c)
	return s.openAPICodes(wire.CustomerEnvelope{Customer: &c}, "customer.vip"), nil
}

// handleGetCustomer serves GET /customers/{customerId}.
func (s *Server) handleGetCustomer(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	rec := m.customers[id]
	if rec == nil {
		return nil, notFound("customer")
	}
	c := copyCustomer(&rec.c)
	return s.openAPICodes(s.single(wire.CustomerEnvelope{Customer: &c}, &c), "customer.vip", "vip"), nil
}

// handleListCustomers serves GET /customers[?externalId=…][&customerId=…]:
// the merchant's customers in the order they were created, not paged.
func (s *Server) handleListCustomers(r *http.Request, _ []byte, m *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	ext, id := q.Get("externalId"), q.Get("customerId")
	out := []models.Customer{}
	for _, rec := range m.customers {
		if (ext != "" && rec.c.ExternalID != ext) || (id != "" && rec.c.CustomerID != id) {
			continue
		}
		out = append(out, copyCustomer(&rec.c))
	}
	// customerIds are numbers of one length, given in order.
	sort.Slice(out, func(i, j int) bool { return out[i].CustomerID < out[j].CustomerID })
	return s.openAPICodes(customerList{Customers: out}, "customers[].vip"), nil
}

// customerList is the body of GET /customers.
type customerList struct {
	Customers []models.Customer `json:"customers"`
}

// handleLookupCustomer serves GET /customers/lookup?email=…[&phone=…]:
// whether a user with that email or phone has authorized a transaction, at
// any merchant of the sandbox, as the customer of the authorization or as
// the holder of the bank account used. Its errors are written as
// errorsList.
func (s *Server) handleLookupCustomer(r *http.Request, _ []byte, _ *merchant, _ string) (any, *Error) {
	q := r.URL.Query()
	email, phone := q.Get("email"), q.Get("phone")
	fail := func(msg string) (any, *Error) {
		return nil, &Error{Status: http.StatusBadRequest, Code: codeInvalidParameter, Message: msg, list: true}
	}
	switch at := strings.LastIndexByte(email, '@'); {
	case email == "":
		return fail("email is required")
	case at < 1 || at == len(email)-1:
		return fail("email is not a valid email address")
	}
	known := false
	for _, t := range s.st.txns {
		if t.rec.TransactionType != models.TypeAuthorize || !wasAuthorized(t.rec.Status) {
			continue
		}
		p := personFor(t.id())
		var c models.Customer
		if rec := t.m.customers[t.customerID]; rec != nil {
			c = rec.c
		}
		if strings.EqualFold(email, p.email) || strings.EqualFold(email, c.Email) ||
			(phone != "" && (phone == p.phone || phone == c.Phone)) {
			known = true
			break
		}
	}
	return lookupResult{Known: known}, nil
}

// lookupResult is the body of a customer lookup.
type lookupResult struct {
	Known bool `json:"isInTrustlyNetwork"`
}

// wasAuthorized reports whether an authorization in status st was
// authorized by its user at some point.
func wasAuthorized(st models.TransactionStatus) bool {
	switch st {
	case models.StatusNew, models.StatusPending, models.StatusCanceled, models.StatusDenied,
		models.StatusFailed, models.StatusExpired:
		return false
	}
	return true
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
