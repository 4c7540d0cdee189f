package bankpay

import (
	"context"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

// Fixtures of the customer, account-verification and customer-verification
// calls, shared by their unit tests and the dataEndpoints table.

const (
	customerGetJSON  = `{"customer":{"customerId":"3000000001","externalId":"ext-9","merchantId":"1002463580","name":"Jane Doe","email":"jane@example.com","phone":"+15125550100","createdAt":1700000000000,"updatedAt":1700000100000,"vip":"2","address":{"country":"US","zip":"73301"}}}`
	customerListJSON = `{"customers":[{"customerId":"3000000001","externalId":"ext-9","name":"Jane Doe","vip":1},{"customerId":"3000000002","name":"John Roe"}]}`
	lookupJSON       = `{"isInTrustlyNetwork":true}`

	// verifyBodyRouting is the golden body of verifyParams.
	verifyBodyRouting = `{"merchantId":1002463580,"account":{"accountNumber":"1000001700","routingNumber":"124003116","nameOnAccount":"John Smith"}}`
	// verifyResponseJSON is the OpenAPI's bare FinancialInstitutionAccount,
	// with its enums as numeric strings.
	verifyResponseJSON = `{"nameOnAccount":"John Smith","name":"Checking","type":"1","profile":"1",
  "verification":{"verified":true,"type":"3","hasEnoughFunds":false,"verificationDate":1700000000000,"score":"7","thirdPartyScore":"700","numberOfTries":3,"numberOfAttemptsLeft":2.0},
  "accountNumber":"1700","routingNumber":"124003116","token":"tok-7f3a9c1e","accountId":"A-1","providerId":"200005501",
  "paymentProvider":{"paymentProviderId":"200005501","type":1.0,"name":"Demo Bank","subType":"1000","country":"US"},"verified":true,"country":"US"}`

	selectedAccountsJSON = `{"accounts":[{"providerId":"200005501","paymentProvider":{"paymentProviderId":"200005501","name":"Demo Bank","type":1},
  "nameOnAccount":"John Smith","country":"US","name":"Demo Checking","type":1.0,"profile":1,"accountNumber":"2012345678","verified":true,
  "verification":{"verified":true,"type":"2","verificationDate":1700000000000},"source":1,"routingNumber":"124003116","token":"tok-1",
  "accountNumberLastFour":"5678","virtualAccountRoutingPair":false}]}`

	customerVerificationJSON = `{"matches":[{"attribute":"customer.name","result":"2","source":"2"},{"attribute":"customer.phone","result":-1,"source":1},{"attribute":"customer.email","result":0,"source":4}]}`

	// feedbackBodyToken is the golden body of feedbackParams.
	feedbackBodyToken = `{"merchantId":1002463580,"account":{"token":"tok-7f3a9c1e"},"feedback":{"externalId":"pay-77","status":"10","subStatus":"R04","description":"returned: invalid account","submissionDate":1700000000000,"returnDate":1700259200000,"amount":"125.00","currency":"USD"}}`
)

func verifyParams() *AccountVerifyParams {
	return &AccountVerifyParams{AccountNumber: "1000001700", RoutingNumber: "124003116", NameOnAccount: "John Smith"}
}

func feedbackParams() *AccountFeedbackParams {
	return &AccountFeedbackParams{Token: "tok-7f3a9c1e", ExternalID: "pay-77", Status: models.StatusReversed, SubStatus: "R04",
		Description: "returned: invalid account", SubmissionDate: time.UnixMilli(1700000000000), ReturnDate: time.UnixMilli(1700259200000),
		Amount: "125.00", Currency: models.USD}
}

// custacctEndpoints are the rows of the customer, account-verification and
// customer-verification calls in the endpoints table (endpoints_test.go).
func custacctEndpoints() []endpoint {
	return []endpoint{
		{name: "Accounts.ListSelected", method: "GET", path: "/transactions/{id}/payment/paymentProvider/accounts",
			okResponse: selectedAccountsJSON, idIn: inPath, readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Accounts.ListSelected(ctx, id, opts...)
				return err
			}},
		{name: "Identity.CustomerVerification", method: "GET", path: "/transactions/{id}/payment/customer/verify",
			okResponse: customerVerificationJSON, idIn: inPath, readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Identity.CustomerVerification(ctx, id, opts...)
				return err
			}},
		{name: "Accounts.Verify", method: "POST", path: "/accounts/verify", contentType: "application/json",
			body: verifyBodyRouting, okResponse: verifyResponseJSON, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Accounts.Verify(ctx, verifyParams(), opts...)
				return err
			},
			invalidField: "account.iban",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Accounts.Verify(ctx, &AccountVerifyParams{IBAN: "DE89370400440532013001"})
				return err
			}},
		{name: "Accounts.Feedback", method: "POST", path: "/feedback", contentType: "application/json",
			body: feedbackBodyToken, okResponse: `{"message":"Feedback received"}`,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				return c.Accounts.Feedback(ctx, feedbackParams(), opts...)
			},
			invalidField: "feedback.subStatus",
			invalid: func(ctx context.Context, c *Client) error {
				p := feedbackParams()
				p.SubStatus = ""
				return c.Accounts.Feedback(ctx, p)
			}},
		{name: "Customers.Create", method: "POST", path: "/customers", contentType: "application/json",
			body:       `{"name":"Jane Doe","merchantId":"1002463580","email":"jane@example.com","phone":"+15125550100","address":{"country":"US"}}`,
			okResponse: customerGetJSON, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Customers.Create(ctx, &CustomerParams{Name: "Jane Doe", Email: "jane@example.com",
					Phone: "+15125550100", Address: &models.Address{Country: "US"}}, opts...)
				return err
			},
			invalidField: "phone",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Customers.Create(ctx, &CustomerParams{Name: "Jane Doe", Email: "jane@example.com", Address: &models.Address{Country: "US"}})
				return err
			}},
		{name: "Customers.Get", method: "GET", path: "/customers/{id}", okResponse: customerGetJSON,
			idIn: inPath, idField: "customerId", readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Customers.Get(ctx, id, opts...)
				return err
			}},
		// An empty filter is no filter, so the externalId is not this
		// table's id: customers_crud_test.go checks the filters.
		{name: "Customers.List", method: "GET", path: "/customers", query: "externalId=ext-9", okResponse: customerListJSON,
			readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Customers.List(ctx, &CustomerListParams{ExternalID: "ext-9"}, opts...)
				return err
			},
			invalidField: "customerId",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Customers.List(ctx, &CustomerListParams{CustomerID: ".."})
				return err
			}},
		{name: "Customers.Lookup", method: "GET", path: "/customers/lookup", query: "email=jane%40example.com&phone=%2B15125550100",
			okResponse: lookupJSON, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Customers.Lookup(ctx, "jane@example.com", "+15125550100", opts...)
				return err
			},
			invalidField: "phone",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Customers.Lookup(ctx, "jane@example.com", "5125550100")
				return err
			}},
	}
}
