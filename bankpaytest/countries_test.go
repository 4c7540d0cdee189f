package bankpaytest_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/models"
)

func countryCodes(t *testing.T, a response) []string {
	t.Helper()
	var body struct {
		Countries []models.Country `json:"countries"`
	}
	a.wantOK(t, &body)
	require.NotNil(t, body.Countries, "countries is an array, never null: %s", a.body)
	codes := []string{}
	for _, c := range body.Countries {
		codes = append(codes, c.Alpha2Code)
	}
	return codes
}

func TestCountries(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())

	var body struct {
		Countries []map[string]json.RawMessage `json:"countries"`
	}
	c.get("/countries").wantOK(t, &body)
	require.Len(t, body.Countries, 5)
	us := body.Countries[0]
	for _, k := range []string{"numericCode", "alpha2Code", "alpha3Code", "name", "currencies", "paymentTypes", "paymentProviderSubtypes", "enabled"} {
		assert.Contains(t, us, k, "the OpenAPI's Country fields")
	}
	assert.JSONEq(t, `"US"`, string(us["alpha2Code"]))
	assert.JSONEq(t, `840`, string(us["numericCode"]))

	for _, tc := range []struct {
		query string
		want  []string
	}{
		{"", []string{"US", "CA", "UK", "DE", "AU"}},
		{"enabled=true", []string{"US", "CA", "UK", "DE", "AU"}},
		{"enabled=false", []string{"US", "CA", "UK", "DE", "AU", "MX"}},
		{"country=CA", []string{"CA"}},
		{"country=MX", []string{}},
		{"country=MX&enabled=false", []string{"MX"}},
		{"country=FR", []string{}},
		{"paymentType=Disbursement", []string{"US", "CA", "AU"}},
		{"paymentType=disbursement&enabled=false", []string{"US", "CA", "AU", "MX"}},
		{"paymentType=retrieval", []string{"US"}},
		{"paymentProvider.subType=2000", []string{"US", "CA"}},
		{"paymentProvider.subType=2001", []string{"US"}},
		{"paymentProvider.subType=9999", []string{}},
		{"paymentType=Instant&paymentProvider.subType=1000&country=DE", []string{"DE"}},
	} {
		t.Run(tc.query, func(t *testing.T) {
			assert.Equal(t, tc.want, countryCodes(t, c.get("/countries?"+tc.query)))
		})
	}
}

// A malformed filter responds with the bare 400 {"message":…} the OpenAPI
// shows for GET /countries.
func TestCountriesBadFilters(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	for _, q := range []string{"country=us", "country=USA", "paymentType=Weekly", "paymentProvider.subType=abc", "enabled=yes"} {
		t.Run(q, func(t *testing.T) {
			a := c.get("/countries?" + q)
			require.Equal(t, http.StatusBadRequest, a.status, "%s", a.body)
			var body map[string]any
			a.decode(t, &body)
			assert.NotEmpty(t, body["message"])
			assert.NotContains(t, body, "errors")
		})
	}
}
