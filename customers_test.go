package bankpay

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const customerResponseJSON = `{"customer":{"customerId":"cust-123","externalId":"ext-9","name":"Jane Doe",
  "email":"jane@example.com","phone":"+15125550100","vip":0,
  "address":{"address1":"1 Main St","city":"Austin","state":"TX","zip":"73301","country":"US"}}}`

func TestCustomers_UpdateRemovesVIP(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers/cust-123", ContentType: "application/json",
		Body: `{"name":"Jane Doe","customerId":"cust-123","externalId":"ext-9","merchantId":"1002463580","vip":0}`},
		200, customerResponseJSON)

	p := &CustomerParams{Name: "Jane Doe", ExternalID: "ext-9", VIP: tierPtr(0)}
	cust, err := c.Customers.Update(context.Background(), "cust-123", p)
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "cust-123", cust.CustomerID, "decoded %+v", cust)
	assert.Equal(t, "ext-9", cust.ExternalID, "decoded %+v", cust)
	assert.Equal(t, "Jane Doe", cust.Name, "decoded %+v", cust)
	if assert.NotNil(t, cust.VIP, "decoded %+v", cust) {
		assert.Equal(t, 0, *cust.VIP, "decoded %+v", cust)
	}
	if assert.NotNil(t, cust.Address, "decoded %+v", cust) {
		assert.Equal(t, "US", cust.Address.Country, "decoded %+v", cust)
	}
	assert.Equal(t, "+15125550100", cust.Phone, "decoded %+v", cust)
	assert.Equal(t, &CustomerParams{Name: "Jane Doe", ExternalID: "ext-9", VIP: tierPtr(0)}, p, "params modified: %+v", p)
}

func TestCustomers_UpdateAllFields(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers/cust-123", ContentType: "application/json",
		Body: `{"name":"Jane Doe","customerId":"cust-123","externalId":"ext-9","merchantId":"1002463580","vip":3,` +
			`"email":"jane@example.com","phone":"+15125550100","dateOfBirth":"1990-01-31","taxId":"123456789",` +
			`"address":{"address1":"1 Main St","address2":"Unit 2","city":"Austin","state":"TX","zip":"73301","country":"US"}}`},
		200, `{"customer":{"customerId":"cust-123","externalId":"ext-9","name":"Jane Doe","vip":3}}`)
	p := &CustomerParams{Name: "Jane Doe", CustomerID: "cust-123", ExternalID: "ext-9", Email: "jane@example.com",
		Phone: "+15125550100", DateOfBirth: "1990-01-31", TaxID: "123456789", VIP: tierPtr(3),
		Address: &models.Address{Address1: "1 Main St", Address2: "Unit 2", City: "Austin", State: "TX", Zip: "73301", Country: "US"}}
	cust, err := c.Customers.Update(context.Background(), "cust-123", p)
	require.NoError(t, err)
	if assert.NotNil(t, cust.VIP, "vip = %v", cust.VIP) {
		assert.Equal(t, 3, *cust.VIP, "vip = %v", cust.VIP)
	}
}

func TestCustomers_UpdateWithoutVIPSendsNoVIP(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers/c%2F1", ContentType: "application/json",
		Body: `{"customerId":"c/1","merchantId":"1002463580","email":"new@example.com"}`}, 200, customerResponseJSON)
	_, err := c.Customers.Update(context.Background(), "c/1", &CustomerParams{Email: "new@example.com"})
	require.NoError(t, err)
}

func TestCustomers_UpdateByExternalID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers", RawQuery: "externalId=ext+9%2F1%26a",
		ContentType: "application/json",
		Body:        `{"name":"Jane Doe","externalId":"ext 9/1\u0026a","merchantId":"1002463580","vip":2}`},
		200, customerResponseJSON)
	p := &CustomerParams{Name: "Jane Doe", VIP: tierPtr(2)}
	cust, err := c.Customers.UpdateByExternalID(context.Background(), "ext 9/1&a", p)
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load(), "calls = %d, customer %+v", calls.Load(), cust)
	assert.Equal(t, "cust-123", cust.CustomerID, "calls = %d, customer %+v", calls.Load(), cust)
	assert.Equal(t, "", p.ExternalID, "params modified: %+v", p)
}

func TestCustomers_UpdateByExternalIDRemovesVIP(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers", RawQuery: "externalId=ext-9",
		ContentType: "application/json",
		Body:        `{"name":"Jane Doe","externalId":"ext-9","merchantId":"1002463580","vip":0}`}, 200, customerResponseJSON)
	_, err := c.Customers.UpdateByExternalID(context.Background(), "ext-9",
		&CustomerParams{Name: "Jane Doe", ExternalID: "ext-9", VIP: tierPtr(0)})
	require.NoError(t, err)
}

func TestCustomers_UpdateRejects(t *testing.T) {
	update := func(id string, p *CustomerParams) func(*Client) error {
		return func(c *Client) error {
			_, err := c.Customers.Update(context.Background(), id, p)
			return err
		}
	}
	byExternal := func(id string, p *CustomerParams) func(*Client) error {
		return func(c *Client) error {
			_, err := c.Customers.UpdateByExternalID(context.Background(), id, p)
			return err
		}
	}
	for _, tc := range []struct {
		name  string
		call  func(*Client) error
		field string
	}{
		{"negative vip", update("cust-123", &CustomerParams{VIP: tierPtr(-1)}), "vip"},
		{"empty customerId", update("", &CustomerParams{VIP: tierPtr(1)}), "customerId"},
		{"dot customerId", update(".", &CustomerParams{VIP: tierPtr(1)}), "customerId"},
		{"nil params", update("cust-123", nil), "customerParams"},
		{"customerId mismatch", update("cust-123", &CustomerParams{CustomerID: "cust-456"}), "customerId"},
		{"by external: negative vip", byExternal("ext-9", &CustomerParams{VIP: tierPtr(-2)}), "vip"},
		{"by external: empty externalId", byExternal("", &CustomerParams{VIP: tierPtr(1)}), "externalId"},
		{"by external: control character", byExternal("ext\n9", &CustomerParams{}), "externalId"},
		{"by external: nil params", byExternal("ext-9", nil), "customerParams"},
		{"by external: externalId mismatch", byExternal("ext-9", &CustomerParams{ExternalID: "ext-10"}), "externalId"},
	} {
		t.Run(tc.name, func(t *testing.T) { checkRejected(t, tc.field, tc.call) })
	}
}

func TestCustomers_UpdateErrors(t *testing.T) {
	checkErrorResponses(t, wantRequest{Method: "POST", Path: "/api/v1/customers/cust-123", ContentType: "application/json",
		Body: `{"customerId":"cust-123","merchantId":"1002463580","vip":1}`},
		func(c *Client) error {
			_, err := c.Customers.Update(context.Background(), "cust-123", &CustomerParams{VIP: tierPtr(1)})
			return err
		})
}

func TestCustomers_UpdateByExternalIDErrors(t *testing.T) {
	checkErrorResponses(t, wantRequest{Method: "POST", Path: "/api/v1/customers", RawQuery: "externalId=ext-9",
		ContentType: "application/json", Body: `{"externalId":"ext-9","merchantId":"1002463580","vip":1}`},
		func(c *Client) error {
			_, err := c.Customers.UpdateByExternalID(context.Background(), "ext-9", &CustomerParams{VIP: tierPtr(1)})
			return err
		})
}

func TestCustomers_UpdateEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(200, `{"transaction":{}}`))
	_, err := c.Customers.Update(context.Background(), "cust-123", &CustomerParams{VIP: tierPtr(1)})
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v, want ErrInvalidResponse", err)
}

// Unit tests of Customers.Create, Get, List and Lookup (error mapping,
// retries and undecodable responses: their rows in endpoints(),
// endpoints_test.go).

func TestCustomers_Create(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers", ContentType: "application/json",
		Body: `{"name":"Jane Doe","externalId":"ext-9","merchantId":"1002463580","vip":2,"email":"jane@example.com",` +
			`"phone":"+15125550100","dateOfBirth":"1990-01-31","taxId":"999-00-1234","address":{"address1":"1 Main St","zip":"73301","country":"US"}}`},
		200, customerGetJSON)
	p := &CustomerParams{Name: "Jane Doe", ExternalID: "ext-9", Email: "jane@example.com", Phone: "+15125550100",
		DateOfBirth: "1990-01-31", TaxID: "999-00-1234", VIP: tierPtr(2),
		Address: &models.Address{Address1: "1 Main St", Zip: "73301", Country: "US"}}
	before := *p
	cust, err := c.Customers.Create(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, before, *p, "params not modified")
	assert.Equal(t, "3000000001", cust.CustomerID)
	assert.Equal(t, "1002463580", cust.MerchantID)
	require.NotNil(t, cust.VIP)
	assert.Equal(t, 2, *cust.VIP, `vip "2" (OpenAPI string) reads as 2`)
	assert.Equal(t, models.EpochMillis(1700000000000), cust.CreatedAt)
	assert.Equal(t, models.EpochMillis(1700000100000), cust.UpdatedAt)
}

// A record named by customerId or externalId may be updated with any
// subset of fields: the new-record checks do not apply.
func TestCustomers_CreateNamedRecord(t *testing.T) {
	for _, tc := range []struct {
		p    *CustomerParams
		body string
	}{
		{&CustomerParams{CustomerID: "3000000001", Email: "new@example.com"},
			`{"customerId":"3000000001","merchantId":"1002463580","email":"new@example.com"}`},
		{&CustomerParams{ExternalID: "ext 9/1", VIP: tierPtr(0)},
			`{"externalId":"ext 9/1","merchantId":"1002463580","vip":0}`},
	} {
		c, mock, _ := newTestClient(t)
		calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers", ContentType: "application/json", Body: tc.body},
			200, `{"customerId":"3000000001","email":"new@example.com"}`)
		cust, err := c.Customers.Create(context.Background(), tc.p)
		require.NoError(t, err)
		assert.Equal(t, int32(1), calls.Load())
		assert.Equal(t, "3000000001", cust.CustomerID, "a bare record is read too")
	}
}

func TestCustomers_CreateRejects(t *testing.T) {
	full := func() *CustomerParams {
		return &CustomerParams{Name: "Jane Doe", Email: "jane@example.com", Phone: "+15125550100",
			Address: &models.Address{Country: "US"}}
	}
	for _, tc := range []struct {
		name  string
		edit  func(*CustomerParams) *CustomerParams
		field string
	}{
		{"nil", func(*CustomerParams) *CustomerParams { return nil }, "customerParams"},
		{"no name", func(p *CustomerParams) *CustomerParams { p.Name = ""; return p }, "name"},
		{"no email", func(p *CustomerParams) *CustomerParams { p.Email = ""; return p }, "email"},
		{"no phone", func(p *CustomerParams) *CustomerParams { p.Phone = ""; return p }, "phone"},
		{"no address", func(p *CustomerParams) *CustomerParams { p.Address = nil; return p }, "address.country"},
		{"no country", func(p *CustomerParams) *CustomerParams { p.Address.Country = ""; return p }, "address.country"},
		{"negative vip", func(p *CustomerParams) *CustomerParams { p.VIP = tierPtr(-1); return p }, "vip"},
		{"bad customerId", func(p *CustomerParams) *CustomerParams { p.CustomerID = ".."; return p }, "customerId"},
		{"bad externalId", func(p *CustomerParams) *CustomerParams { p.ExternalID = "a\nb"; return p }, "externalId"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Customers.Create(context.Background(), tc.edit(full()))
				return err
			})
		})
	}
}

func TestCustomers_Get(t *testing.T) {
	for _, body := range []string{customerGetJSON, customerGetJSON[len(`{"customer":`) : len(customerGetJSON)-1]} {
		c, mock, _ := newTestClient(t)
		calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/3000000001"}, 200, body)
		cust, err := c.Customers.Get(context.Background(), "3000000001")
		require.NoError(t, err, body)
		assert.Equal(t, int32(1), calls.Load())
		assert.Equal(t, "ext-9", cust.ExternalID)
		assert.Equal(t, "+15125550100", cust.Phone)
		require.NotNil(t, cust.Address)
		assert.Equal(t, "73301", cust.Address.Zip)
	}
}

// TestCustomers_GetAnsweredAboutAnother: Get(C1) answered about C2 (a
// cache or proxy mixing answers up) would hand one person's record (name,
// email, phone, address) to the code asking about another: it is
// ErrInvalidResponse. The same id in another case or with blanks around it
// is C1; a record without a customerId (the OpenAPI does not require one)
// is taken as C1's.
func TestCustomers_GetAnsweredAboutAnother(t *testing.T) {
	bare := customerGetJSON[len(`{"customer":`) : len(customerGetJSON)-1]
	for _, body := range []string{withField(customerGetJSON, "customerId", "3000000002"), withField(bare, "customerId", "3000000002")} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/3000000001"}, 200, body)
		cust, err := c.Customers.Get(context.Background(), "3000000001")
		require.Error(t, err, "Get(3000000001) answered %s: read as %+v", body, cust)
		assert.ErrorIs(t, err, ErrInvalidResponse)
	}
	for _, body := range []string{withField(customerGetJSON, "customerId", " C-1 "), withField(customerGetJSON, "customerId", " "),
		strings.Replace(bare, `"customerId":"3000000001",`, "", 1)} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/c-1"}, 200, body)
		cust, err := c.Customers.Get(context.Background(), "c-1")
		require.NoError(t, err, body)
		assert.Equal(t, "ext-9", cust.ExternalID)
	}
}

func TestCustomers_GetIDs(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/a%2F..%2Fb%3Fx=1"}, 200, withField(customerGetJSON, "customerId", "a/../b?x=1"))
	_, err := c.Customers.Get(context.Background(), "a/../b?x=1")
	require.NoError(t, err)
	for _, id := range []string{"", ".", "..", "a\r\nb"} {
		checkRejected(t, "customerId", func(c *Client) error {
			_, err := c.Customers.Get(context.Background(), id)
			return err
		})
	}
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/1"}, 200, `{"customer":null}`)
	_, err = c.Customers.Get(context.Background(), "1")
	assert.ErrorIs(t, err, ErrInvalidResponse)
}

func TestCustomers_List(t *testing.T) {
	for _, tc := range []struct {
		name   string
		params *CustomerListParams
		query  string
		body   string
		want   []string // customerIds
	}{
		{"all", nil, "", customerListJSON, []string{"3000000001", "3000000002"}},
		{"empty params", &CustomerListParams{}, "", customerListJSON, []string{"3000000001", "3000000002"}},
		{"by externalId", &CustomerListParams{ExternalID: "ext 9&x"}, "externalId=ext+9%26x", `{"customers":[{"customerId":"3000000001"}]}`, []string{"3000000001"}},
		{"by both", &CustomerListParams{ExternalID: "ext-9", CustomerID: "3000000001"}, "customerId=3000000001&externalId=ext-9",
			`{"customers":[{"customerId":"3000000001"}]}`, []string{"3000000001"}},
		{"none found", &CustomerListParams{CustomerID: "3999999999"}, "customerId=3999999999", `{"customers":[]}`, []string{}},
		{"bare array", nil, "", `[{"customerId":"3000000002"}]`, []string{"3000000002"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers", RawQuery: tc.query}, 200, tc.body)
			list, err := c.Customers.List(context.Background(), tc.params)
			require.NoError(t, err)
			assert.Equal(t, int32(1), calls.Load())
			ids := []string{}
			for _, cu := range list {
				ids = append(ids, cu.CustomerID)
			}
			assert.Equal(t, tc.want, ids)
		})
	}
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers"}, 200, `{"customer":{"customerId":"1"}}`)
	_, err := c.Customers.List(context.Background(), nil)
	assert.ErrorIs(t, err, ErrInvalidResponse, "a response without a customers array")
	checkRejected(t, "externalId", func(c *Client) error {
		_, err := c.Customers.List(context.Background(), &CustomerListParams{ExternalID: "a\x00b"})
		return err
	})
}

func TestCustomers_Lookup(t *testing.T) {
	for _, tc := range []struct {
		phone, query, body string
		want               bool
	}{
		{"", "email=jane%2Btag%40example.com", `{"isInTrustlyNetwork":false}`, false},
		{"+15125550100", "email=jane%2Btag%40example.com&phone=%2B15125550100", `{"isInTrustlyNetwork":"true"}`, true},
	} {
		c, mock, _ := newTestClient(t)
		calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/lookup", RawQuery: tc.query}, 200, tc.body)
		known, err := c.Customers.Lookup(context.Background(), "jane+tag@example.com", tc.phone)
		require.NoError(t, err)
		assert.Equal(t, tc.want, known)
		assert.Equal(t, int32(1), calls.Load())
	}
	for _, body := range []string{`{}`, `{"isInTrustlyNetwork":null}`, `{"errorsList":[]}`} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/lookup", RawQuery: "email=a%40b.example"}, 200, body)
		_, err := c.Customers.Lookup(context.Background(), "a@b.example", "")
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
	}
}

// The lookup's error responses list their errors as errorsList (OpenAPI).
func TestCustomers_LookupErrorsList(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/customers/lookup", RawQuery: "email=a%40b.example"}, 400,
		`{"isInTrustlyNetwork":false,"errorsList":[{"code":200,"message":"invalid email","location":"email","domain":"Validation","occurredAt":1700000000000}]}`)
	_, err := c.Customers.Lookup(context.Background(), "a@b.example", "")
	var ae *APIError
	require.ErrorAs(t, err, &ae)
	assert.ErrorIs(t, err, ErrBadRequest)
	assert.Equal(t, http.StatusBadRequest, ae.StatusCode)
	assert.Equal(t, 200, ae.Code)
	assert.Equal(t, "invalid email", ae.Message)
	require.Len(t, ae.Errors, 1)
	assert.Equal(t, "email", ae.Errors[0].Location)
}

func TestCustomers_LookupRejects(t *testing.T) {
	for _, tc := range []struct{ email, phone, field string }{
		{"", "", "email"},
		{"jane.example.com", "", "email"},
		{"@example.com", "", "email"},
		{"jane@", "", "email"},
		{"jane doe@example.com", "", "email"},
		{"jane@example.com", "15125550100", "phone"},
		{"jane@example.com", "+1 512 555 0100", "phone"},
		{"jane@example.com", "+05125550100", "phone"},
		{"jane@example.com", "+1234567890123456", "phone"},
		{"jane@example.com", "+1", "phone"},
	} {
		checkRejected(t, tc.field, func(c *Client) error {
			_, err := c.Customers.Lookup(context.Background(), tc.email, tc.phone)
			return err
		})
	}
}
