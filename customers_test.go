package bankpay

import (
	"context"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const customerResponseJSON = `{"customer":{"customerId":"cust-123","externalId":"ext-9","name":"Jane Doe",
  "email":"jane@example.com","phone":"+15125550100","vip":0,
  "address":{"address1":"1 Main St","city":"Austin","state":"TX","zip":"73301","country":"US"}}}`

func TestCustomersUpdateRemovesVIP(t *testing.T) {
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

func TestCustomersUpdateAllFields(t *testing.T) {
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

func TestCustomersUpdateWithoutVIPSendsNoVIP(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers/c%2F1", ContentType: "application/json",
		Body: `{"customerId":"c/1","merchantId":"1002463580","email":"new@example.com"}`}, 200, customerResponseJSON)
	_, err := c.Customers.Update(context.Background(), "c/1", &CustomerParams{Email: "new@example.com"})
	require.NoError(t, err)
}

func TestCustomersUpdateByExternalID(t *testing.T) {
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

func TestCustomersUpdateByExternalIDRemovesVIP(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/customers", RawQuery: "externalId=ext-9",
		ContentType: "application/json",
		Body:        `{"name":"Jane Doe","externalId":"ext-9","merchantId":"1002463580","vip":0}`}, 200, customerResponseJSON)
	_, err := c.Customers.UpdateByExternalID(context.Background(), "ext-9",
		&CustomerParams{Name: "Jane Doe", ExternalID: "ext-9", VIP: tierPtr(0)})
	require.NoError(t, err)
}

func TestCustomersUpdateRejects(t *testing.T) {
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

func TestCustomersUpdateErrors(t *testing.T) {
	checkErrorResponses(t, wantRequest{Method: "POST", Path: "/api/v1/customers/cust-123", ContentType: "application/json",
		Body: `{"customerId":"cust-123","merchantId":"1002463580","vip":1}`},
		func(c *Client) error {
			_, err := c.Customers.Update(context.Background(), "cust-123", &CustomerParams{VIP: tierPtr(1)})
			return err
		})
}

func TestCustomersUpdateByExternalIDErrors(t *testing.T) {
	checkErrorResponses(t, wantRequest{Method: "POST", Path: "/api/v1/customers", RawQuery: "externalId=ext-9",
		ContentType: "application/json", Body: `{"externalId":"ext-9","merchantId":"1002463580","vip":1}`},
		func(c *Client) error {
			_, err := c.Customers.UpdateByExternalID(context.Background(), "ext-9", &CustomerParams{VIP: tierPtr(1)})
			return err
		})
}

func TestCustomersUpdateEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(200, `{"transaction":{}}`))
	_, err := c.Customers.Update(context.Background(), "cust-123", &CustomerParams{VIP: tierPtr(1)})
	require.ErrorIs(t, err, ErrInvalidResponse, "err = %v, want ErrInvalidResponse", err)
}
