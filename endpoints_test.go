package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// endpoint is one method of the SDK, with the request it must send and a
// response it accepts: the one table that drives the request, error
// mapping, retry, id escaping, bad-id, undecodable-response and fault
// tests (accounts_test.go, faults_test.go). A new endpoint gets a row here.
type endpoint struct {
	name   string
	method string
	// path is without /api/v1; "{id}" stands for the path-escaped id.
	path string
	// query is the exact raw query; "{id}" stands for the query-escaped id.
	query       string
	contentType string
	// body is the exact body; "{id}" stands for the id as a JSON string's content.
	body       string
	okResponse string
	idIn       idPlace
	idField    string // the wire name a bad id is refused under ("transactionId" when empty)
	identity   bool   // a 400 response also matches ErrIdentityNotReady
	readsBody  bool   // false for a call that does not read a 2xx body
	// idempotent marks a POST sent with an Idempotency-Key, the same on
	// every attempt: retried like a read.
	idempotent bool
	// answersAsked marks a call whose answer must be the transaction
	// asked (Get, Cancel): answer(id) is okResponse about id.
	answersAsked bool
	// askedIn is the field of the answer that must name the id asked:
	// originalTransactionId for a call that makes a transaction from the
	// one asked (Deposit, Capture, Preauthorize, Refund, Reclaim), the
	// resource's id for a read that refuses an answer about another
	// (Payments.Get, Customers.Get). answer(id) is okResponse with that
	// field set to id.
	askedIn string
	call    func(ctx context.Context, c *Client, id string, opts ...Option) error
	// invalid makes the call with bad params (nil when the id is the only
	// input); it must fail with a *ValidationError on invalidField.
	invalid      func(ctx context.Context, c *Client) error
	invalidField string
}

// idPlace is where an endpoint carries its id argument.
type idPlace int

const (
	noID idPlace = iota
	inPath
	inQuery
)

func (e endpoint) want(id string) wantRequest {
	return wantRequest{Method: e.method, Path: "/api/v1" + e.pathFor(id),
		RawQuery: strings.ReplaceAll(e.query, "{id}", url.QueryEscape(id)), ContentType: e.contentType,
		Body: strings.ReplaceAll(e.body, "{id}", jsonContent(id))}
}

// answer is the endpoint's successful answer to a call with id.
func (e endpoint) answer(id string) string {
	if e.answersAsked {
		return aboutID(e.okResponse, id)
	}
	if e.askedIn != "" {
		return withField(e.okResponse, e.askedIn, id)
	}
	return e.okResponse
}

func (e endpoint) pathFor(id string) string {
	return strings.ReplaceAll(e.path, "{id}", url.PathEscape(id))
}

// mutates reports whether the endpoint changes state (never retried once
// it may have reached the server, unless opted in or idempotent).
func (e endpoint) mutates() bool { return e.method != "GET" }

// keyed reports whether the service can recognize the call when it comes
// again (an Idempotency-Key, or a merchantReference in its body): only such
// a call is retried under WithRetryNonIdempotent.
func (e endpoint) keyed() bool { return e.idempotent || strings.Contains(e.body, "merchantReference") }

// retried reports whether the endpoint is retried on 5xx by default.
func (e endpoint) retried() bool { return !e.mutates() || e.idempotent }

// badIDField is the field a bad id is refused under.
func (e endpoint) badIDField() string {
	if e.idField != "" {
		return e.idField
	}
	return "transactionId"
}

// jsonContent is s as it is written inside a JSON string.
func jsonContent(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// endpoints is every method of the SDK that sends a request.
func endpoints() []endpoint {
	return append([]endpoint{
		{name: "Transactions.Get", method: "GET", path: "/transactions/{id}", okResponse: faultTxn, idIn: inPath, readsBody: true, answersAsked: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Get(ctx, id, opts...)
				return err
			}},
		{name: "Transactions.Establish", method: "POST", path: "/establish", query: "createTransaction=true",
			contentType: "application/json", body: disbursementBody(), okResponse: establishResponseJSON, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Transactions.Establish(ctx, disbursementParams(), opts...)
				return err
			},
			invalidField: "currency",
			invalid: func(ctx context.Context, c *Client) error {
				d := disbursementParams()
				d.Currency = "EUR"
				_, err := c.Transactions.Establish(ctx, d)
				return err
			}},
		{name: "Transactions.Deposit", method: "POST", path: "/transactions/{id}/deposit",
			contentType: "application/x-www-form-urlencoded", body: "amount=10.00&merchantReference=dep-ref-1",
			okResponse: depositResponseJSON, idIn: inPath, readsBody: true, askedIn: "originalTransactionId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Deposit(ctx, id, &DepositParams{MerchantReference: "dep-ref-1", Amount: "10.00"}, opts...)
				return err
			},
			invalidField: "amount",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Deposit(ctx, "1", &DepositParams{MerchantReference: "dep-ref-1", Amount: "10.5"})
				return err
			}},
		{name: "Transactions.Capture", method: "POST", path: "/transactions/{id}/capture",
			contentType: "application/x-www-form-urlencoded",
			body:        "amount=5.00&beneficiary.address.country=MX&beneficiary.name=Ana+Ruiz&merchantReference=cap-ref-1",
			okResponse:  captureResponseJSON, idIn: inPath, readsBody: true, askedIn: "originalTransactionId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Capture(ctx, id, &CaptureParams{MerchantReference: "cap-ref-1", Amount: "5.00",
					Beneficiary: minimalBeneficiary()}, opts...)
				return err
			},
			invalidField: "beneficiary.name",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Capture(ctx, "1", &CaptureParams{MerchantReference: "cap-ref-1", Amount: "5.00"})
				return err
			}},
		{name: "Customers.Update", method: "POST", path: "/customers/{id}", contentType: "application/json",
			body:       `{"name":"Jane Doe","customerId":"{id}","merchantId":"1002463580","vip":2}`,
			okResponse: customerResponseJSON, idIn: inPath, idField: "customerId", readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Customers.Update(ctx, id, &CustomerParams{Name: "Jane Doe", VIP: intPtr(2)}, opts...)
				return err
			},
			invalidField: "vip",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Customers.Update(ctx, "c-1", &CustomerParams{Name: "Jane Doe", VIP: intPtr(-1)})
				return err
			}},
		{name: "Customers.UpdateByExternalID", method: "POST", path: "/customers", query: "externalId={id}", contentType: "application/json",
			body:       `{"name":"Jane Doe","externalId":"{id}","merchantId":"1002463580","vip":0}`,
			okResponse: customerResponseJSON, idIn: inQuery, idField: "externalId", readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Customers.UpdateByExternalID(ctx, id, &CustomerParams{Name: "Jane Doe", VIP: intPtr(0)}, opts...)
				return err
			},
			invalidField: "externalId",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Customers.UpdateByExternalID(ctx, "x-1", &CustomerParams{Name: "Jane Doe", ExternalID: "x-2"})
				return err
			}},
		{name: "Accounts.Balance", method: "GET", path: "/transactions/{id}/payment/paymentProvider/account/balance",
			okResponse: accountBalanceJSON, idIn: inPath,
			readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Accounts.Balance(ctx, id, opts...)
				return err
			}},
		{name: "Accounts.User", method: "GET", path: "/transactions/{id}/payment/paymentProvider/user",
			okResponse: bankUserJSON, idIn: inPath,
			readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Accounts.User(ctx, id, opts...)
				return err
			}},
		{name: "Accounts.Summary", method: "GET", path: "/transactions/{id}/accountSummary",
			okResponse: accountSummaryJSON, idIn: inPath,
			readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Accounts.Summary(ctx, id, opts...)
				return err
			}},
		{name: "Accounts.Tokenize", method: "POST", path: "/accounts/tokenize", query: "verifyAccount=true",
			contentType: "application/json", body: tokenizeFullBody, okResponse: tokenizeResponseJSON,
			readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Accounts.Tokenize(ctx, fullTokenizeParams(), opts...)
				return err
			},
			invalidField: "params",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Accounts.Tokenize(ctx, nil)
				return err
			}},
		{name: "Identity.User", method: "GET", path: "/transactions/{id}/user",
			okResponse: identityUserJSON, idIn: inPath, identity: true,
			readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Identity.User(ctx, id, opts...)
				return err
			}},
		{name: "Identity.Detail", method: "GET", path: "/transactions/{id}/user/detail",
			okResponse: verificationDetailJSON, idIn: inPath, identity: true,
			readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Identity.Detail(ctx, id, opts...)
				return err
			}},
		{name: "Identity.SendFeedback", method: "POST", path: "/transactions/{id}/feedback",
			contentType: "application/json", body: registerBody, okResponse: `{"feedback":` + `{"status":4,"subStatus":559,"description":"registered as member 42"}}`, idIn: inPath,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				return c.Identity.sendFeedback(ctx, id, wire.Feedback{Status: 4, SubStatus: 559, Description: "registered as member 42"}, opts...)
			}},
		{name: "Identity.Register", method: "POST", path: "/transactions/{id}/feedback",
			contentType: "application/json", body: registerBody, okResponse: `{"feedback":{"status":4,"subStatus":559,"description":"registered as member 42"}}`, idIn: inPath,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				return c.Identity.Register(ctx, id, "registered as member 42", opts...)
			}},
		{name: "Transactions.Refund", method: "POST", path: "/transactions/{id}/refund", contentType: "application/json",
			body: `{"merchantReference":"rf-1","amount":"40.00"}`, okResponse: refundResponseJSON, idIn: inPath, readsBody: true, askedIn: "originalTransactionId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Refund(ctx, id, &RefundParams{MerchantReference: "rf-1", Amount: "40.00"}, opts...)
				return err
			},
			invalidField: "amount",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Refund(ctx, "1", &RefundParams{Amount: "0.50"})
				return err
			}},
		{name: "Transactions.Reclaim", method: "POST", path: "/transactions/{id}/reclaim", contentType: "application/json",
			body: `{"merchantReference":"rc-1","amount":"12.50"}`, okResponse: refundResponseJSON, idIn: inPath, readsBody: true, askedIn: "originalTransactionId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Reclaim(ctx, id, &ReclaimParams{MerchantReference: "rc-1", Amount: "12.50"}, opts...)
				return err
			},
			invalidField: "amount",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Reclaim(ctx, "1", &ReclaimParams{MerchantReference: "rc-1"})
				return err
			}},
		{name: "Transactions.Cancel", method: "POST", path: "/transactions/{id}/cancel", contentType: "application/json",
			body: `{"merchantReference":"ord-9","message":"customer revoked access","reason":3}`, okResponse: refundResponseJSON, idIn: inPath, readsBody: true, answersAsked: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Cancel(ctx, id, &CancelParams{MerchantReference: "ord-9", Message: "customer revoked access", Reason: 3}, opts...)
				return err
			},
			invalidField: "message",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Cancel(ctx, "1", &CancelParams{Message: strings.Repeat("m", 41)})
				return err
			}},
		{name: "Transactions.Refresh", method: "POST", path: "/transactions/{id}/refresh", contentType: "application/json",
			body: `{"splitToken":"tok"}`, okResponse: `{"refresh":{"processId":"p-1"}}`, idIn: inPath, readsBody: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Refresh(ctx, id, "tok", opts...)
				return err
			},
			invalidField: "splitToken",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Refresh(ctx, "1", "")
				return err
			}},
		{name: "Transactions.Preauthorize", method: "POST", path: "/transactions/{id}/capture/preAuth", contentType: "application/json",
			body: `{"merchantReference":"pa","amount":"10.00","period":2}`, okResponse: preauthResponseJSON, idIn: inPath, readsBody: true, askedIn: "originalTransactionId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Preauthorize(ctx, id, &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 2}, opts...)
				return err
			},
			invalidField: "period",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.Preauthorize(ctx, "1", &PreauthorizeParams{MerchantReference: "pa", Amount: "10.00", Period: 7})
				return err
			}},
		{name: "Transactions.Capture (Pay)", method: "POST", path: "/transactions/{id}/capture", contentType: "application/x-www-form-urlencoded",
			body: "amount=25.00&merchantReference=pay-1&splitToken=c3Bs%2BdG9r%2FZW4%3D", okResponse: captureResponseJSON, idIn: inPath, readsBody: true, askedIn: "originalTransactionId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Transactions.Capture(ctx, id, &CaptureParams{MerchantReference: "pay-1", Amount: "25.00", SplitToken: "c3Bs+dG9r/ZW4="}, opts...)
				return err
			}},
		{name: "Countries.List", method: "GET", path: "/countries", query: "country=CA", okResponse: countriesJSON, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Countries.List(ctx, &CountryListParams{Country: "CA"}, opts...)
				return err
			},
			invalidField: "country",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Countries.List(ctx, &CountryListParams{Country: "ca"})
				return err
			}},
		{name: "PaymentProviders.ListPage", method: "GET", path: "/paymentProviders", query: "count=2&countries=US&startIndex=4",
			okResponse: providersPage(4, 2, "p5", "p6"), readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.PaymentProviders.ListPage(ctx, &PaymentProviderListParams{Countries: []string{"US"}, StartIndex: 4, Count: 2}, opts...)
				return err
			},
			invalidField: "count",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.PaymentProviders.ListPage(ctx, &PaymentProviderListParams{Count: -1})
				return err
			}},
		{name: "PaymentProviders.List", method: "GET", path: "/paymentProviders", query: "count=2&startIndex=0",
			okResponse: providersPage(0, 2, "p1"), readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				// The first page: a list ends only at an empty one.
				for _, err := range c.PaymentProviders.List(ctx, &PaymentProviderListParams{Count: 2}, opts...) {
					return err
				}
				return nil
			},
			invalidField: "paymentType",
			invalid: func(ctx context.Context, c *Client) error {
				for _, err := range c.PaymentProviders.List(ctx, &PaymentProviderListParams{PaymentType: "Cheque"}) {
					return err
				}
				return nil
			}},
		{name: "Disputes.Create", method: "POST", path: "/collections/recovery/dispute", contentType: "application/json",
			body: `{"transactionId":"{id}","amount":"12.50"}`, okResponse: disputeResponseJSON, readsBody: true, idempotent: true,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Disputes.Create(ctx, &DisputeParams{TransactionID: id, Amount: "12.50"}, opts...)
				return err
			},
			invalidField: "Idempotency-Key",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Disputes.Create(ctx, &DisputeParams{TransactionID: "1", Amount: "12.50", IdempotencyKey: "\x01"})
				return err
			}},
		{name: "Transactions.ListPage", method: "GET", path: "/transactions", query: "count=2&startIndex=4&transactionType=6",
			okResponse: txnPage(5, 2), readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Transactions.ListPage(ctx, &TransactionListParams{TransactionTypes: []models.TransactionType{models.TypeDeposit},
					ListRange: ListRange{StartIndex: 4, Count: 2}}, opts...)
				return err
			},
			invalidField: "transactionType",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.ListPage(ctx, &TransactionListParams{TransactionTypes: []models.TransactionType{9}})
				return err
			}},
		{name: "Transactions.List", method: "GET", path: "/transactions", query: "count=2&startIndex=0",
			okResponse: txnPage(1, 1), readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				// The first page: a list ends only at an empty one.
				for _, err := range c.Transactions.List(ctx, &TransactionListParams{ListRange: ListRange{Count: 2}}, opts...) {
					return err
				}
				return nil
			},
			invalidField: "sortOrder",
			invalid: func(ctx context.Context, c *Client) error {
				for _, err := range c.Transactions.List(ctx, &TransactionListParams{ListRange: ListRange{SortOrder: "up"}}) {
					return err
				}
				return nil
			}},
		// Its list read (findMadeFrom; the read of the original before it,
		// and the answers, are tested in transactions_list_test.go), one
		// request: an empty list, read whole, is ErrNotFound.
		{name: "Transactions.FindByMerchantReference", method: "GET", path: "/transactions",
			query: "count=100&orderBy=createdAt&originalTransactionId=A1&sortOrder=asc&startIndex=0", okResponse: `{"transactions":[]}`, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Transactions.findMadeFrom(ctx, "A1", models.TypeDeposit, "order-42", opts)
				if errors.Is(err, ErrNotFound) {
					return nil
				}
				return err
			},
			invalidField: "merchantReference",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Transactions.FindByMerchantReference(ctx, &FindParams{OriginalTransactionID: "A1", MerchantReference: "order\n42", Type: models.TypeDeposit})
				return err
			}},
		// One request: an empty list, read whole, is no authorization.
		{name: "Transactions.FindAuthorization", method: "GET", path: "/transactions",
			query: "count=100&orderBy=createdAt&payment.merchantReference=order-42&sortOrder=asc&startIndex=0", okResponse: `{"transactions":[]}`, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, ok, err := c.Transactions.FindAuthorization(ctx, "order-42", opts...)
				if err == nil && ok {
					return errors.New("an authorization found in an empty list")
				}
				return err
			},
			invalidField: "merchantReference",
			invalid: func(ctx context.Context, c *Client) error {
				_, _, err := c.Transactions.FindAuthorization(ctx, "order\n42")
				return err
			}},
		{name: "Payments.Get", method: "GET", path: "/payments/{id}", okResponse: paymentJSON, idIn: inPath, idField: "paymentId", readsBody: true, askedIn: "paymentId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Payments.Get(ctx, id, opts...)
				return err
			}},
		{name: "Payments.ListPage", method: "GET", path: "/payments", query: "count=5&paymentType=2&startIndex=0",
			okResponse: `{"payments":[` + paymentJSON + `],"startIndex":0,"itemsPerPage":5}`, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				_, err := c.Payments.ListPage(ctx, &PaymentListParams{PaymentTypes: []models.PaymentType{models.PaymentTypeDeferred}, ListRange: ListRange{Count: 5}}, opts...)
				return err
			},
			invalidField: "orderBy",
			invalid: func(ctx context.Context, c *Client) error {
				_, err := c.Payments.ListPage(ctx, &PaymentListParams{ListRange: ListRange{OrderBy: "color"}})
				return err
			}},
		{name: "Payments.List", method: "GET", path: "/payments", query: "count=100&startIndex=0",
			okResponse: `{"payments":[` + paymentJSON + `]}`, readsBody: true,
			call: func(ctx context.Context, c *Client, _ string, opts ...Option) error {
				// The first page: a list ends only at an empty one.
				for _, err := range c.Payments.List(ctx, nil, opts...) {
					return err
				}
				return nil
			},
			invalidField: "count",
			invalid: func(ctx context.Context, c *Client) error {
				for _, err := range c.Payments.List(ctx, &PaymentListParams{ListRange: ListRange{Count: 1001}}) {
					return err
				}
				return nil
			}},
		{name: "Identity.Void", method: "POST", path: "/transactions/{id}/feedback",
			contentType: "application/json", body: voidBody, okResponse: `{"feedback":{"status":13,"subStatus":558,"description":"name mismatch"}}`, idIn: inPath,
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				return c.Identity.Void(ctx, id, "name mismatch", opts...)
			}},
	}, customerAndAccountEndpoints()...)
}

// disbursementBody is the exact JSON body Establish sends for
// disbursementParams, signed with the test key.
func disbursementBody() string {
	// The signed keys in the service's fixed order; notificationUrl,
	// metadata and deviceType are never signed.
	const canonical = "accessId=test-access-id&merchantId=1002463580&description=Weekly payout&currency=USD" +
		"&amount=0.00&merchantReference=payout-2024-001&paymentType=Disbursement" +
		"&customer.externalId=cust-77&customer.name=Jane Doe&customer.vip=2" +
		"&customer.address.address1=1 Main St&customer.address.city=Austin&customer.address.state=TX" +
		"&customer.address.zip=73301&customer.address.country=US&customer.email=jane@example.com" +
		"&account.nameOnAccount=Jane Doe&account.type=1&account.accountNumber=1000000001&account.routingNumber=124003116"
	return `{"accessId":"test-access-id","merchantId":"1002463580","requestSignature":"` + refHMACSHA1(canonical) + `",` +
		`"description":"Weekly payout","currency":"USD","amount":"0.00","merchantReference":"payout-2024-001",` +
		`"notificationUrl":"https://merchant.test/notify?src=bankpay","metadata":{"flowType":"payouts"},` +
		`"customer":{"externalId":"cust-77","name":"Jane Doe","email":"jane@example.com",` +
		`"address":{"address1":"1 Main St","city":"Austin","state":"TX","zip":"73301","country":"US"},"vip":2},` +
		`"account":{"nameOnAccount":"Jane Doe","type":1,"accountNumber":"1000000001","routingNumber":"124003116"},` +
		`"deviceType":"web","paymentType":"Disbursement"}`
}

// TestEndpointsRequest checks, for every endpoint, method, path, exact
// query, auth, content type (none for GETs) and exact body of a successful call.
func TestEndpointsRequest(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, ep.want("1002581234567"), 200, ep.answer("1002581234567"))
			require.NoError(t, ep.call(context.Background(), c, "1002581234567"))
			assert.Equal(t, int32(1), calls.Load(), "calls")
		})
	}
}

// TestEndpointsErrorMapping maps the documented error responses of every
// endpoint to *APIError and its sentinels.
func TestEndpointsErrorMapping(t *testing.T) {
	cases := []struct {
		name      string
		status    int
		body      string
		code      int
		message   string
		bodyPart  string // expected in APIError.Body when the body is not JSON
		is        []error
		isNot     []error
		retryable bool // a GET is retried on it
	}{
		{name: "400/200", status: 400, body: `{"errors":[{"domain":"Validation","code":200,"message":"invalid parameter"}]}`,
			code: 200, message: "invalid parameter", is: []error{ErrBadRequest}, isNot: []error{ErrUnauthorized, ErrServer, ErrDuplicate}},
		{name: "401/300", status: 401, body: `{"errors":[{"domain":"Security","code":300,"message":"security error"}]}`,
			code: 300, message: "security error", is: []error{ErrUnauthorized}, isNot: []error{ErrBadRequest, ErrServer, ErrIdentityNotReady}},
		{name: "401/325", status: 401, body: `{"errors":[{"domain":"Security","code":325,"message":"security error"}]}`,
			code: 325, message: "security error", is: []error{ErrUnauthorized}, isNot: []error{ErrBadRequest, ErrServer, ErrIdentityNotReady}},
		{name: "401/375", status: 401, body: `{"errors":[{"domain":"AccessControl","code":375,"message":"access denied"}]}`,
			code: 375, message: "access denied", is: []error{ErrUnauthorized}, isNot: []error{ErrBadRequest, ErrServer, ErrIdentityNotReady}},
		{name: "500/100", status: 500, body: `{"errors":[{"domain":"Internal","code":100,"message":"internal error"}]}`,
			code: 100, message: "internal error", is: []error{ErrServer}, isNot: []error{ErrBadRequest, ErrUnauthorized, ErrIdentityNotReady}, retryable: true},
		{name: "502 not JSON", status: 502, body: `<html><body>502 Bad Gateway</body></html>`,
			bodyPart: "Bad Gateway", is: []error{ErrServer}, isNot: []error{ErrBadRequest, ErrUnauthorized, ErrIdentityNotReady}, retryable: true},
		{name: "400 empty body", status: 400, body: ``,
			is: []error{ErrBadRequest}, isNot: []error{ErrUnauthorized, ErrServer}},
		{name: "401 empty body", status: 401, body: ``,
			is: []error{ErrUnauthorized}, isNot: []error{ErrBadRequest, ErrServer, ErrIdentityNotReady}},
	}
	for _, ep := range endpoints() {
		for _, tc := range cases {
			t.Run(ep.name+"/"+tc.name, func(t *testing.T) {
				c, mock, w := newTestClient(t)
				calls := expect(t, mock, ep.want("T1"), tc.status, tc.body)
				err := ep.call(context.Background(), c, "T1")

				var apiErr *APIError
				require.ErrorAs(t, err, &apiErr)
				assert.Equal(t, tc.status, apiErr.StatusCode, "APIError.StatusCode")
				assert.Equal(t, tc.code, apiErr.Code, "APIError.Code")
				assert.Equal(t, tc.message, apiErr.Message, "APIError.Message")
				assert.Equal(t, ep.method, apiErr.Method, "APIError.Method")
				assert.Equal(t, ep.pathFor("T1"), apiErr.Path, "APIError.Path")
				if tc.bodyPart != "" {
					assert.Contains(t, apiErr.Body, tc.bodyPart, "APIError.Body")
				}
				for _, target := range tc.is {
					assert.ErrorIs(t, err, target)
				}
				for _, target := range tc.isNot {
					assert.NotErrorIs(t, err, target)
				}
				// Only an identity read responded 400 is "not ready".
				wantNotReady := ep.identity && tc.status == 400
				assert.Equal(t, wantNotReady, errors.Is(err, ErrIdentityNotReady), "errors.Is(err, ErrIdentityNotReady)")
				// GETs are retried on 5xx (default 3 retries); state-changing POSTs are not.
				wantCalls := 1
				if tc.retryable && ep.retried() {
					wantCalls = 1 + defaultMaxRetries
				}
				assert.Equal(t, wantCalls, int(calls.Load()), "calls")
				assert.Equal(t, wantCalls, apiErr.Attempts, "attempts")
				assert.Len(t, w.list, wantCalls-1, "waits")
				assertNoSecret(t, err.Error())
			})
		}
	}
}

// TestEndpointsRetryGET: a GET responded 503 then 200 succeeds with
// exactly two requests; a state-changing POST responded 503 is not retried
// unless the call opts in.
func TestEndpointsRetry(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			c, mock, w := newTestClient(t)
			calls := sequence(t, mock,
				jsonResponse(503, `{"errors":[{"code":100,"message":"unavailable"}]}`, "Retry-After", "1"),
				jsonResponse(200, ep.answer("T1")))
			err := ep.call(context.Background(), c, "T1")
			if ep.retried() {
				require.NoError(t, err)
				require.Equal(t, int32(2), calls.Load(), "calls")
				assert.Equal(t, []time.Duration{time.Second}, w.list, "waits (Retry-After)")
				return
			}
			require.ErrorIs(t, err, ErrServer, "POST without opt-in")
			require.Equal(t, int32(1), calls.Load(), "POST without opt-in: calls")

			c, mock, _ = newTestClient(t)
			calls = sequence(t, mock,
				jsonResponse(503, `{"errors":[{"code":100,"message":"unavailable"}]}`),
				jsonResponse(200, ep.answer("T1")))
			err = ep.call(context.Background(), c, "T1", WithRetryNonIdempotent())
			if !ep.keyed() {
				// Nothing the service could recognize a repeat by: the
				// opt-in does not apply.
				require.ErrorIs(t, err, ErrServer, "keyless POST with RetryNonIdempotent")
				require.Equal(t, int32(1), calls.Load(), "keyless POST with RetryNonIdempotent: calls")
				return
			}
			require.NoError(t, err, "POST with RetryNonIdempotent")
			require.Equal(t, int32(2), calls.Load(), "POST with RetryNonIdempotent: calls")
		})
	}
}

// TestEndpointsEscapeID: an id with "/", "?" and "#" stays one path segment.
func TestEndpointsEscapeID(t *testing.T) {
	const id = "a/../b?x=1#f"
	for _, ep := range endpoints() {
		if ep.idIn == noID {
			continue
		}
		t.Run(ep.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			want := ep.want(id)
			require.True(t, strings.Contains(want.Path+"?"+want.RawQuery, "a%2F..%2Fb%3Fx%3D1%23f") || strings.Contains(want.Path, "a%2F..%2Fb%3Fx=1%23f"),
				"test path %s?%s", want.Path, want.RawQuery)
			calls := expect(t, mock, want, 200, ep.answer(id))
			require.NoError(t, ep.call(context.Background(), c, id))
			assert.Equal(t, int32(1), calls.Load(), "calls")
		})
	}
}

// TestEndpointsRejectBadID: a bad id is a *ValidationError naming its
// field and nothing is sent.
func TestEndpointsRejectBadID(t *testing.T) {
	for _, ep := range endpoints() {
		if ep.idIn == noID {
			continue
		}
		for _, id := range []string{"", ".", "..", "T1\r\nX-Evil: 1"} {
			c, mock, _ := newTestClient(t)
			calls := expectNoRequest(t, mock)
			err := ep.call(context.Background(), c, id)
			var ve *ValidationError
			if assert.ErrorAs(t, err, &ve, "%s(%q)", ep.name, id) {
				assert.Equal(t, ep.badIDField(), ve.Field, "%s(%q)", ep.name, id)
			}
			assert.Zero(t, calls.Load(), "%s(%q): requests sent", ep.name, id)
		}
	}
}

// TestEndpointsUndecodableResponse: a 200 response that is not JSON or is
// empty is a *ResponseError for the endpoints that return data; the feedback
// calls return no data and do not read the response.
func TestEndpointsUndecodableResponse(t *testing.T) {
	for _, ep := range endpoints() {
		for _, body := range []string{``, `<html>ok</html>`, `{"accountBalance":`} {
			c, mock, _ := newTestClient(t)
			calls := expect(t, mock, ep.want("T1"), 200, body)
			err := ep.call(context.Background(), c, "T1")
			if !ep.readsBody {
				assert.NoError(t, err, "%s, 200 %q", ep.name, body)
			} else {
				var re *ResponseError
				if assert.ErrorAs(t, err, &re, "%s, 200 %q", ep.name, body) {
					assert.Equal(t, http.StatusOK, re.StatusCode, "%s, 200 %q", ep.name, body)
				}
				assert.ErrorIs(t, err, ErrInvalidResponse, "%s, 200 %q", ep.name, body)
			}
			assert.Equal(t, int32(1), calls.Load(), "%s: calls", ep.name)
		}
	}
}

// TestEndpointsRejectInvalidParams: bad params are a *ValidationError naming
// the wire field, and nothing is sent.
func TestEndpointsRejectInvalidParams(t *testing.T) {
	for _, ep := range endpoints() {
		if ep.invalid == nil {
			continue
		}
		t.Run(ep.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expectNoRequest(t, mock)
			err := ep.invalid(context.Background(), c)
			var ve *ValidationError
			require.ErrorAs(t, err, &ve)
			assert.Equal(t, ep.invalidField, ve.Field)
			assert.Zero(t, calls.Load(), "nothing sent")
		})
	}
}

// TestEndpointsLog: with WithLogger each call logs its method, path,
// status and attempts at debug level, and never the key, the Authorization
// header or a body (the account and routing numbers the table sends).
func TestEndpointsLog(t *testing.T) {
	for _, ep := range endpoints() {
		t.Run(ep.name, func(t *testing.T) {
			var buf bytes.Buffer
			c, mock, _ := newTestClient(t, WithLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))))
			expect(t, mock, ep.want("T1"), 200, ep.answer("T1"))
			require.NoError(t, ep.call(context.Background(), c, "T1"))
			out := buf.String()
			assert.Contains(t, out, "method="+ep.method)
			assert.Contains(t, out, "path="+ep.pathFor("T1"))
			assert.Contains(t, out, "status=200")
			for _, secret := range []string{testCreds.AccessKey.Reveal(), "Basic ", "1000000001", "124003116", "Jane Doe"} {
				assert.NotContains(t, out, secret)
			}
		})
	}
}

// TestReadmeOperationsTable: the Operations table (docs/operations.md,
// linked from the README) lists the operator's 31 operations, each with
// methods that exist in the endpoints table and send the method and path
// the row shows; every endpoint of the table is listed.
func TestReadmeOperationsTable(t *testing.T) {
	raw, err := os.ReadFile("docs/operations.md")
	require.NoError(t, err)
	section, ok := strings.CutPrefix(string(raw), "# Operations\n")
	require.True(t, ok, "docs/operations.md starts with its Operations heading")
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	assert.Contains(t, string(readme), "(docs/operations.md)", "the README links the Operations table")
	byName := map[string]endpoint{}
	for _, ep := range endpoints() {
		byName[ep.name] = ep
	}
	param := regexp.MustCompile(`\{[^}]+\}`)
	row := regexp.MustCompile("^\\| [^|]+ \\| `(GET|POST) ([^`]+)` \\| (.+) \\|$")
	method := regexp.MustCompile("`([A-Za-z]+\\.[A-Za-z]+)`")
	listed := map[string]bool{}
	wires := map[string]bool{}
	for _, l := range strings.Split(section, "\n") {
		m := row.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		wire := m[1] + " " + param.ReplaceAllString(m[2], "{id}")
		assert.False(t, wires[wire], "%s listed twice", wire)
		wires[wire] = true
		names := method.FindAllStringSubmatch(m[3], -1)
		require.NotEmpty(t, names, l)
		for _, n := range names {
			ep, ok := byName[n[1]]
			if assert.True(t, ok, "%s (docs/operations.md) is not in the endpoints table", n[1]) {
				assert.Equal(t, wire, ep.method+" "+ep.path, n[1])
			}
			listed[n[1]] = true
		}
	}
	assert.Len(t, wires, 31, "the operator's API has 31 operations")
	for name := range byName {
		if name == "Identity.SendFeedback" || strings.Contains(name, " (") { // unexported, or a second row of a listed method
			continue
		}
		assert.True(t, listed[name], "%s is missing from the Operations table (docs/operations.md)", name)
	}
}
