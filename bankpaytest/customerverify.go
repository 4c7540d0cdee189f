package bankpaytest

import (
	"net/http"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// Match results and sources of the customer verification (OpenAPI).
const (
	matchInconclusive = -1
	matchNone         = 0
	matchPartial      = 1
	matchFull         = 2

	sourceProfile         = 1
	sourceSelectedAccount = 2
)

// handleCustomerVerify serves GET /transactions/{id}/payment/customer/verify:
// the customer record of an authorization the user authorized, compared
// when read with what the user's bank holds (the account holder's name on
// the selected account; email, phone and address from the bank profile).
// Only the attributes the record has are compared; the bank holds no date
// of birth, so a date of birth is inconclusive.
func (s *Server) handleCustomerVerify(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	if !wasAuthorized(t.rec.Status) {
		return nil, badRequest("the authorization is %s: the user has not authorized it", t.rec.Status)
	}
	var c models.Customer
	if rec := m.customers[t.customerID]; rec != nil {
		c = rec.c
	}
	p := personFor(t.id())
	matches := []models.CustomerMatch{}
	add := func(attr string, have bool, result, source int) {
		if have {
			matches = append(matches, models.CustomerMatch{Attribute: attr, Result: result, Source: source})
		}
	}
	add("customer.name", c.Name != "", matchName(c.Name, p), sourceSelectedAccount)
	add("customer.email", c.Email != "", matchEqual(strings.EqualFold(c.Email, p.email)), sourceProfile)
	add("customer.phone", c.Phone != "", matchPhone(c.Phone, p.phone), sourceProfile)
	if a := c.Address; a != nil {
		add("customer.address.address1", a.Address1 != "", matchEqual(strings.EqualFold(a.Address1, p.address.Address1)), sourceProfile)
		add("customer.address.zip", a.Zip != "", matchEqual(a.Zip == p.address.Zip), sourceProfile)
	}
	add("customer.dateOfBirth", c.DateOfBirth != "", matchInconclusive, sourceProfile)
	// result and source as the OpenAPI's string enums, in both shapes: the
	// spec does not describe this answer.
	out, cerr := codesAsStrings(struct {
		Matches []models.CustomerMatch `json:"matches"`
	}{matches}, "matches[].result", "matches[].source")
	if cerr != nil {
		return nil, &Error{Status: http.StatusInternalServerError, Code: codeInvalidParameter, Message: "internal error"}
	}
	return out, nil
}

func matchEqual(eq bool) int {
	if eq {
		return matchFull
	}
	return matchNone
}

// matchName is a full match for the same first and last name, a partial
// one for either.
func matchName(name string, p person) int {
	words := strings.Fields(strings.ToLower(name))
	if len(words) == 0 {
		return matchNone
	}
	first, last := words[0] == strings.ToLower(p.first), words[len(words)-1] == strings.ToLower(p.last)
	switch {
	case first && last:
		return matchFull
	case first || last:
		return matchPartial
	}
	return matchNone
}

// matchPhone compares the digits: all of them, or the last seven for a
// partial match (the same line with another country or area code).
func matchPhone(a, b string) int {
	digits := func(s string) string {
		return strings.Map(func(r rune) rune {
			if r >= '0' && r <= '9' {
				return r
			}
			return -1
		}, s)
	}
	da, db := digits(a), digits(b)
	switch {
	case da == db:
		return matchFull
	case len(da) >= 7 && len(db) >= 7 && da[len(da)-7:] == db[len(db)-7:]:
		return matchPartial
	}
	return matchNone
}
