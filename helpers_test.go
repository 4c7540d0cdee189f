package bankpay

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/faultinject"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// testCreds are the credentials of every unit test. The key must never show
// up in an error or a log line.
var testCreds = Credentials{AccessID: "test-access-id", AccessKey: NewSecret("s3cret-access-key"), MerchantID: "1002463580"}

const testBaseURL = "https://api.bankpay.test/api/v1"

// newTestClient returns a client whose HTTP transport is a fresh httpmock
// transport (a transport per test, under the retry layer). Retries wait on a
// fake clock: the computed waits are recorded in the returned *waits and not
// slept.
func newTestClient(t *testing.T, opts ...Option) (*Client, *httpmock.MockTransport, *waits) {
	t.Helper()
	mock := httpmock.NewMockTransport()
	all := append([]Option{WithBaseURL(testBaseURL), WithHTTPClient(&http.Client{Transport: mock})}, opts...)
	c, err := NewClient(testCreds, all...)
	require.NoError(t, err, "NewClient: %v", err)
	w := &waits{}
	c.cfg.waitScale = w.record
	return c, mock, w
}

// waits is the fake clock of the retry layer.
type waits struct{ list []time.Duration }

func (w *waits) record(d time.Duration) time.Duration {
	w.list = append(w.list, d)
	return 0
}

// wantRequest is what a test expects the client to send.
type wantRequest struct {
	Method      string
	Path        string // escaped path, with the /api/v1 prefix
	RawQuery    string // exact encoded query ("" for none)
	ContentType string // "" when no body is expected
	Body        string // exact body
}

// expect makes every request to mock be checked against want and responded
// with status and body (JSON content type). It returns the call counter.
func expect(t *testing.T, mock *httpmock.MockTransport, want wantRequest, status int, body string) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		n.Add(1)
		checkRequest(t, req, want)
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		return resp, nil
	})
	return &n
}

// checkRequest asserts method, path, query, auth, accept, content type and
// the exact body of req.
func checkRequest(t *testing.T, req *http.Request, want wantRequest) {
	t.Helper()
	assert.Equal(t, want.Method, req.Method, "method = %s, want %s", req.Method, want.Method)
	host := req.URL.Scheme + "://" + req.URL.Host
	assert.Equal(t, "https://api.bankpay.test", host, "host = %s", host)
	path := req.URL.EscapedPath()
	assert.Equal(t, want.Path, path, "path = %s, want %s", path, want.Path)
	assert.Equal(t, want.RawQuery, req.URL.RawQuery, "query = %q, want %q", req.URL.RawQuery, want.RawQuery)
	wantAuth := "Basic " + base64.StdEncoding.EncodeToString([]byte(testCreds.AccessID+":"+testCreds.AccessKey.Reveal()))
	auth := req.Header.Get("Authorization")
	assert.Equal(t, wantAuth, auth, "Authorization = %q, want %q", auth, wantAuth)
	accept := req.Header.Get("Accept")
	assert.Equal(t, "application/json", accept, "Accept = %q", accept)
	assert.True(t, strings.HasPrefix(req.Header.Get("User-Agent"), "bankpay-go/"), "User-Agent = %q", req.Header.Get("User-Agent"))
	ct := req.Header.Get("Content-Type")
	assert.Equal(t, want.ContentType, ct, "Content-Type = %q, want %q", ct, want.ContentType)
	var got []byte
	if req.Body != nil {
		got, _ = io.ReadAll(req.Body)
	}
	assert.Equal(t, want.Body, string(got), "body =\n  %s\nwant\n  %s", got, want.Body)
}

// expectNoRequest fails the test if the client sends anything.
func expectNoRequest(t *testing.T, mock *httpmock.MockTransport) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		n.Add(1)
		assert.Failf(t, "unexpected request", "unexpected request %s %s", req.Method, req.URL)
		return httpmock.NewStringResponse(500, ""), nil
	})
	return &n
}

// sequence responses successive requests with the given responders, and fails
// the test if more requests come than responders.
func sequence(t *testing.T, mock *httpmock.MockTransport, rs ...httpmock.Responder) *atomic.Int32 {
	t.Helper()
	var n atomic.Int32
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		i := int(n.Add(1)) - 1
		if !assert.Less(t, i, len(rs), "request %d not expected: %s %s", i+1, req.Method, req.URL.Path) {
			return httpmock.NewStringResponse(500, ""), nil
		}
		return rs[i](req)
	})
	return &n
}

// jsonResponse is a responder with a JSON body and optional headers (k, v, k, v…).
func jsonResponse(status int, body string, headers ...string) httpmock.Responder {
	return func(*http.Request) (*http.Response, error) {
		resp := httpmock.NewStringResponse(status, body)
		resp.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			resp.Header.Set(headers[i], headers[i+1])
		}
		return resp, nil
	}
}

// assertNoSecret fails if s contains the access key.
func assertNoSecret(t *testing.T, s string) {
	t.Helper()
	assert.NotContains(t, s, testCreds.AccessKey.Reveal(), "secret access key leaked in %q", s)
}

// isValidation reports whether err is a *ValidationError.
func isValidation(err error) bool {
	var ve *ValidationError
	return errors.As(err, &ve)
}

// ptrTo returns a pointer to a copy of v.
func ptrTo[T any](v T) *T { return &v }

// Fixtures of the customer, account-verification and customer-verification
// calls, shared by their unit tests and their rows of endpoints().

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

// customerAndAccountEndpoints are the rows of the customer,
// account-verification and customer-verification calls in the endpoints
// table (endpoints_test.go).
func customerAndAccountEndpoints() []endpoint {
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
			idIn: inPath, idField: "customerId", readsBody: true, askedIn: "customerId",
			call: func(ctx context.Context, c *Client, id string, opts ...Option) error {
				_, err := c.Customers.Get(ctx, id, opts...)
				return err
			}},
		// An empty filter is no filter, so the externalId is not this
		// table's id: TestCustomers_List checks the filters.
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

// TestMain runs the package's tests and then fails the run if any goroutine
// they started (a connection's read or write loop, a server handler, a
// retry timer, a webhook worker) is still running after a short grace
// period. Set BANKPAY_LEAKCHECK_VERBOSE=1 to print the goroutine counts.
func TestMain(m *testing.M) {
	testmain.NoExitPause()
	os.Exit(faultinject.VerifyTestMain(m, 5*time.Second))
}

// Test helpers shared with the external test package (bankpay_test), which
// the tests that use the bankpaytest sandbox live in.

// syncBuffer is a bytes.Buffer safe for the concurrent writes of slog.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// verifyErr is the error of VerifyNotification, for assertions.
func verifyErr(_ *Event, err error) error { return err }

// decodeResponse is decodeUnset without the fields it left unset.
func decodeResponse[T any](raw []byte, key, method, path string) (*T, error) {
	v, _, err := decodeUnset[T](raw, key, method, path)
	return v, err
}

// authHeader is the client's Authorization header value.
func (s *secrets) authHeader() string { return s.material().authValue[0] }

// canonicalEstablishData returns the canonical string the requestSignature
// of d is made over (see SignEstablishData). It holds the signed values of
// d, which may be personal data: do not log it in production. Like
// SignEstablishData it refuses, with a *ValidationError naming the field,
// data with a value that would add pairs to the string (an '&' or ';'
// followed later by '='), so that no one signs such a string; it makes no
// other check.
func canonicalEstablishData(d *models.EstablishData) (string, error) {
	if d == nil {
		return "", invalid("establishData", "must not be nil")
	}
	msg, split := sign.EstablishMessageChecked(d)
	if split != "" {
		return "", splitError(split)
	}
	return msg, nil
}

// do sends req through the pipeline as invoke sends an operation's
// request (send), for a test that builds its own request.
func (c *caller) do(ctx context.Context, req *pipeline.Request, v any, opts []Option) error {
	cfg, err := c.pipelineConfig(ctx, req.Expand, opts)
	if err != nil {
		return err
	}
	call := new(pipeline.Call)
	call.Request = *req
	return call.Do(ctx, cfg, v)
}

// errResendRefused is the guard's refusal (pipeline.ErrResendRefused).
var errResendRefused = pipeline.ErrResendRefused

// withField is body with its one string member field (at any depth) set to
// v: an answer about the id a call asked for. It panics unless body has
// exactly one such member.
func withField(body, field, v string) string {
	q, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	all := regexp.MustCompile(`"`+regexp.QuoteMeta(field)+`"\s*:\s*"[^"]*"`).FindAllStringIndex(body, -1)
	if len(all) != 1 {
		panic("withField: not one " + field + " in " + body)
	}
	loc := all[0]
	return body[:loc[0]] + `"` + field + `":` + string(q) + body[loc[1]:]
}
