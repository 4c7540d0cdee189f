package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

// exchange is one request the SDK sent to the sandbox and its answer.
type exchange struct {
	method, url string
	header      http.Header
	reqBody     []byte
	status      int
	respHeader  http.Header
	respBody    []byte
}

// tap records every exchange under the SDK's retry layer.
type tap struct {
	next http.RoundTripper
	mu   sync.Mutex
	log  []exchange
}

func (t *tap) RoundTrip(req *http.Request) (*http.Response, error) {
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	rb, _ := io.ReadAll(resp.Body)
	resp.Body = io.NopCloser(bytes.NewReader(rb))
	t.mu.Lock()
	t.log = append(t.log, exchange{req.Method, req.URL.String(), req.Header.Clone(), body, resp.StatusCode, resp.Header.Clone(), rb})
	t.mu.Unlock()
	return resp, nil
}

var thursday = time.Date(2026, 3, 5, 15, 0, 0, 0, time.UTC)

// sandboxScenario drives every operation the sandbox plays through the SDK;
// check reports a call that should have succeeded.
func sandboxScenario(t *testing.T, opts ...bankpaytest.Option) ([]exchange, []delivered) {
	var (
		mu     sync.Mutex
		tokens = map[string]string{} // authorization → splitToken
		s      *bankpaytest.Server
	)
	var events []delivered
	hook := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		d := delivered{contentType: r.Header.Get("Content-Type"), body: body}
		rec := httptest.NewRecorder()
		bankpay.NewWebhookHandler(s.Credentials(), func(_ context.Context, e *bankpay.Event) error {
			d.event = e
			if e.Transaction != nil && e.Transaction.SplitToken != "" {
				mu.Lock()
				tokens[e.ObjectID] = e.Transaction.SplitToken
				mu.Unlock()
			}
			return nil
		}, bankpay.WithWebhookClock(func() time.Time { return s.Now() })).ServeHTTP(rec, r)
		d.status = rec.Code
		mu.Lock()
		events = append(events, d)
		mu.Unlock()
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
	s = bankpaytest.NewServer(append(opts, bankpaytest.WithStartTime(thursday), bankpaytest.WithEventHandler(hook))...)
	t.Cleanup(s.Close)
	tp := &tap{}
	c := s.Client(bankpay.WithTransport(func(rt http.RoundTripper) http.RoundTripper { tp.next = rt; return tp }))
	ctx := context.Background()
	flush := func() { require.NoError(t, s.Flush(ctx)) }
	settle := func() { s.Advance(time.Minute); s.AdvanceBankingDays(bankpaytest.CompletionBankingDays); flush() }
	ok := func(what string, err error) {
		t.Helper()
		assert.NoError(t, err, what)
	}
	authorize := func(d models.EstablishData, o bankpaytest.Outcome) string {
		t.Helper()
		require.NoError(t, c.SignEstablishData(&d))
		_, txn, err := s.Authorize(d, o)
		require.NoError(t, err)
		flush()
		return txn.TransactionID
	}
	deferred := func(ref string) models.EstablishData {
		return models.EstablishData{Description: "contract", Currency: models.USD, Amount: "100.00", MerchantReference: ref,
			PaymentType: models.PaymentTypeDeferred, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
			NotificationURL: "http://127.0.0.1:1/hook",
			Customer: &models.Customer{ExternalID: "ext-" + ref, Name: "Ada Lovelace", Email: "ada@example.com", Phone: "+12025550143",
				Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}}}
	}

	// Reference data.
	_, err := c.Countries.List(ctx, nil)
	ok("countries", err)
	_, err = c.PaymentProviders.ListPage(ctx, &bankpay.PaymentProviderListParams{Countries: []string{"US"}, Count: 5})
	ok("payment providers", err)

	// Accounts.
	_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, VerifyAccount: true})
	ok("tokenize", err)
	_, err = c.Accounts.Verify(ctx, &bankpay.AccountVerifyParams{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber})
	ok("verify", err)
	ok("account feedback", c.Accounts.Feedback(ctx, &bankpay.AccountFeedbackParams{AccountNumber: bankpaytest.AccountVerified,
		RoutingNumber: bankpaytest.SandboxRoutingNumber, ExternalID: "ach-1", Status: models.StatusReversed, SubStatus: "R01",
		SubmissionDate: thursday, ReturnDate: thursday.Add(48 * time.Hour), Amount: "10.00", Currency: models.USD}))

	// A disbursement: establish, deposit, settle, reclaim; a second deposit cancelled.
	est, err := c.Transactions.Establish(ctx, &models.EstablishData{Currency: models.USD, Amount: "0.00", MerchantReference: "sb-payout",
		Description: "payout", PaymentType: models.PaymentTypeDisbursement, ReturnURL: "https://shop.example/ok", CancelURL: "https://shop.example/no",
		Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber, Type: 1}})
	ok("establish", err)
	if est != nil {
		dep, err := c.Transactions.Deposit(ctx, est.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-dep-1", Amount: "25.00"})
		ok("deposit", err)
		dep2, err := c.Transactions.Deposit(ctx, est.TransactionID, &bankpay.DepositParams{MerchantReference: "sb-dep-2", Amount: "5.00"})
		ok("deposit 2", err)
		if dep2 != nil {
			_, err = c.Transactions.Cancel(ctx, dep2.TransactionID, &bankpay.CancelParams{MerchantReference: "sb-dep-2", Message: "changed mind"})
			ok("cancel", err)
		}
		settle()
		if dep != nil {
			_, err = c.Transactions.Get(ctx, dep.TransactionID)
			ok("get", err)
			_, err = c.Transactions.Reclaim(ctx, dep.TransactionID, &bankpay.ReclaimParams{MerchantReference: "sb-rc-1", Amount: "5.00"})
			ok("reclaim", err)
		}
		_, err = c.Transactions.ListPage(ctx, &bankpay.TransactionListParams{OriginalTransactionID: est.TransactionID, ListRange: bankpay.ListRange{Count: 10}})
		ok("list transactions", err)
		if est.Payment != nil {
			_, err = c.Payments.Get(ctx, est.Payment.PaymentID)
			ok("payment", err)
		}
	}
	_, err = c.Payments.ListPage(ctx, &bankpay.PaymentListParams{ListRange: bankpay.ListRange{Count: 10}})
	ok("list payments", err)

	// A Pay: user authorization, capture with the split token, refund, dispute; a preauthorization; a refresh.
	auth := authorize(deferred("sb-pay"), bankpaytest.OutcomeAuthorize)
	mu.Lock()
	token := tokens[auth]
	mu.Unlock()
	require.NotEmpty(t, token, "the Authorize event's split token")
	capture, err := c.Transactions.Capture(ctx, auth, &bankpay.CaptureParams{MerchantReference: "sb-cap", Amount: "80.00", SplitToken: token})
	ok("capture", err)
	settle()
	if capture != nil {
		_, err = c.Transactions.Refund(ctx, capture.TransactionID, &bankpay.RefundParams{MerchantReference: "sb-rf", Amount: "10.00"})
		ok("refund", err)
	}
	// A second Pay, disputed (a return), then recovered.
	auth3 := authorize(deferred("sb-pay3"), bankpaytest.OutcomeAuthorize)
	mu.Lock()
	token3 := tokens[auth3]
	mu.Unlock()
	capture3, err := c.Transactions.Capture(ctx, auth3, &bankpay.CaptureParams{MerchantReference: "sb-cap3", Amount: "50.00", SplitToken: token3})
	ok("capture 3", err)
	settle()
	if capture3 != nil {
		ok("dispute event", s.Dispute(capture3.TransactionID))
		flush()
		_, err = c.Disputes.Create(ctx, &bankpay.DisputeParams{TransactionID: capture3.TransactionID, Amount: "20.00"})
		ok("dispute recovery", err)
	}
	auth2 := authorize(deferred("sb-pre"), bankpaytest.OutcomeAuthorize)
	mu.Lock()
	token2 := tokens[auth2]
	mu.Unlock()
	_, err = c.Transactions.Preauthorize(ctx, auth2, &bankpay.PreauthorizeParams{MerchantReference: "sb-pa", Amount: "10.00", Period: 2, SplitToken: token2})
	ok("preauthorize", err)
	_, err = c.Transactions.Refresh(ctx, auth2, token2)
	ok("refresh", err)

	// Account data of a Retrieval.
	ret := deferred("sb-ret")
	ret.PaymentType, ret.Amount = models.PaymentTypeRetrieval, "0.00"
	rid := authorize(ret, bankpaytest.OutcomeAuthorize)
	_, err = c.Accounts.Balance(ctx, rid)
	ok("balance", err)
	_, err = c.Accounts.User(ctx, rid, bankpay.WithExpand("customer.segmentedName"))
	ok("bank user", err)
	_, err = c.Accounts.ListSelected(ctx, rid)
	ok("selected accounts", err)
	_, err = c.Accounts.Summary(ctx, rid)
	ok("summary", err)

	// Identity: kycType 1, the verification to its end, then the reads and the feedback.
	kyc := deferred("sb-kyc")
	kyc.Amount, kyc.KYCType = "0.00", models.KYCTypeIdentity
	kid := authorize(kyc, bankpaytest.OutcomeEligible)
	for i := 0; i < 4; i++ {
		s.Advance(bankpaytest.IdentityStep)
		flush()
	}
	_, err = c.Identity.User(ctx, kid)
	ok("identity user", err)
	_, err = c.Identity.Detail(ctx, kid)
	ok("identity detail", err)
	_, err = c.Identity.CustomerVerification(ctx, kid)
	ok("customer verification", err)
	ok("register", c.Identity.Register(ctx, kid, "member 42"))

	// Customers.
	vip := 2
	created, err := c.Customers.Create(ctx, &bankpay.CustomerParams{Name: "Ada Lovelace", ExternalID: "sb-cust", Email: "ada@example.com",
		Phone: "+12025550143", Address: &models.Address{Address1: "1 Main St", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}})
	ok("customer create", err)
	if created != nil {
		_, err = c.Customers.Get(ctx, created.CustomerID)
		ok("customer get", err)
		_, err = c.Customers.Update(ctx, created.CustomerID, &bankpay.CustomerParams{Name: "Ada Lovelace", VIP: &vip})
		ok("customer update", err)
	}
	_, err = c.Customers.UpdateByExternalID(ctx, "sb-cust", &bankpay.CustomerParams{VIP: &vip})
	ok("customer update by externalId", err)
	_, err = c.Customers.List(ctx, &bankpay.CustomerListParams{ExternalID: "sb-cust"})
	ok("customer list", err)
	_, err = c.Customers.Lookup(ctx, "ada@example.com", "")
	ok("lookup", err)

	// Some refusals: their error answers are validated too.
	_, err = c.Transactions.Get(ctx, "999999999999999")
	assert.Error(t, err)
	_, err = c.Accounts.Tokenize(ctx, &bankpay.TokenizeParams{AccountNumber: "1000000001", RoutingNumber: "999999999"})
	assert.Error(t, err)

	tp.mu.Lock()
	defer tp.mu.Unlock()
	mu.Lock()
	defer mu.Unlock()
	return append([]exchange(nil), tp.log...), append([]delivered(nil), events...)
}

// sandboxExcuse is the row that excuses difference d of a sandbox answer
// of operation op in mode ("wrapped", the spec's shape, or "bare", the
// OpenAPI's): a row InSandboxSpec excuses it only in the spec's shape.
func sandboxExcuse(mode, op, d string) *Difference {
	if mode == "wrapped" {
		if row := Excuse(InSandboxSpec, op, d); row != nil {
			return row
		}
	}
	return Excuse(InSandbox, op, d)
}

// delivered is a notification the sandbox delivered, the status the SDK's
// webhook handler answered and the event it handed on (nil if none).
type delivered struct {
	contentType string
	body        []byte
	status      int
	event       *bankpay.Event
}

func TestSandbox(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	modes := 0
	defer func() {
		if modes == 2 {
			markRan(InSandbox, InSandboxSpec)
		}
	}()
	for _, mode := range []struct {
		name string
		opts []bankpaytest.Option
	}{{"wrapped", nil}, {"bare", []bankpaytest.Option{bankpaytest.WithBareResponses()}}} {
		t.Run(mode.name, func(t *testing.T) {
			modes++
			log, events := sandboxScenario(t, mode.opts...)
			ops := map[string]int{}
			shapes := map[string]int{}
			var problems []string
			seen := map[string]bool{}
			for _, x := range log {
				req, err := http.NewRequest(x.method, x.url, bytes.NewReader(x.reqBody))
				require.NoError(t, err)
				req.Header = x.header
				opID := val.OperationOf(req)
				if !assert.NotEmpty(t, opID, "%s %s: no operation of the contract", x.method, x.url) {
					continue
				}
				ops[opID]++
				// The request, as in TestOperations.
				_, reqDiffs := val.Request(req)
				for _, d := range reqDiffs {
					// The SDK sets Authorization below any middleware, so the
					// tap never sees it (TestOperations checks it where it
					// arrives).
					if strings.HasPrefix(d, "security/") {
						continue
					}
					if row := Excuse(InRequest, opID, d); row != nil {
						markUsed(row.ID)
						continue
					}
					p := fmt.Sprintf("request %s %s (%s): %s", x.method, opID, mode.name, d)
					if !seen[p] {
						seen[p] = true
						problems = append(problems, p+"\n      body "+clip(string(x.reqBody)))
					}
				}
				req.Body = io.NopCloser(bytes.NewReader(x.reqBody))
				schema := spec.Operations[opID].SchemaFor(x.status)
				shape, body := ClaimedShape(schema, x.respBody)
				if x.status/100 == 2 {
					shapes[shape]++
				}
				resp := &http.Response{StatusCode: x.status, Header: x.respHeader, Body: io.NopCloser(bytes.NewReader(body)), Request: req}
				for _, d := range val.Answer(req, resp) {
					d = generalise(d)
					if row := sandboxExcuse(mode.name, opID, d); row != nil {
						markUsed(row.ID)
						continue
					}
					p := fmt.Sprintf("%s %d (%s, %s): %s", opID, x.status, shape, mode.name, d)
					if !seen[p] {
						seen[p] = true
						problems = append(problems, p+"\n      body "+clip(string(x.respBody)))
					}
				}
			}
			// The notifications: each against its event's schema in the
			// OpenAPI, in strict mode.
			eventTypes := map[string]int{}
			for _, ev := range events {
				require.Equal(t, "application/x-www-form-urlencoded", ev.contentType)
				fields, err := url.ParseQuery(string(ev.body))
				require.NoError(t, err)
				name := fields.Get("eventType")
				eventTypes[name]++
				// The SDK's handler accepts the sandbox's own notification and
				// reads every field into its typed place as sent.
				if ev.status != http.StatusOK || ev.event == nil {
					problems = append(problems, fmt.Sprintf("event %s (%s): the webhook handler answered %d: %s", name, mode.name, ev.status, clip(string(ev.body))))
				} else {
					for _, d := range checkEvent(fields, ev.event) {
						problems = append(problems, fmt.Sprintf("event %s (%s): %s", name, mode.name, d))
					}
				}
				for k := range fields {
					if _, typed := EventFields[k]; !typed {
						problems = append(problems, fmt.Sprintf("event %s (%s): field %q has no typed place in the map (EventFields)", name, mode.name, k))
					}
				}
				for _, d := range EventDifferences(spec, fields) {
					if row := Excuse(InSandbox, name, d); row != nil {
						markUsed(row.ID)
						continue
					}
					p := fmt.Sprintf("event %s (%s): %s", name, mode.name, d)
					if !seen[p] {
						seen[p] = true
						problems = append(problems, p+"\n      body "+clip(string(ev.body)))
					}
				}
			}
			t.Logf("%d sandbox notifications validated (%s mode): %v", len(events), mode.name, eventTypes)
			var lines []string
			for id, n := range ops {
				lines = append(lines, fmt.Sprintf("%-62s %d", id, n))
			}
			sort.Strings(lines)
			t.Logf("%d sandbox answers validated (%s mode) in %d operations; 2xx shapes %v:\n%s", len(log), mode.name, len(ops), shapes, strings.Join(lines, "\n"))
			sort.Strings(problems)
			for _, p := range problems {
				t.Errorf("sandbox exchange not in the contract and not allow-listed: %s", p)
			}
		})
	}
}

func TestClaimedShape(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	_, txn := spec.Operations["transactions_get-transaction"].SuccessSchema()
	_, cust := spec.Operations["customers_get-customers-customerId"].SuccessSchema()
	for _, tc := range []struct {
		name   string
		schema string
		body   string
		shape  string
		want   string
	}{
		{"spec's wrapper", "txn", `{"transaction":{"transactionId":"1"}}`, ShapeWrapped, `{"transactionId":"1"}`},
		{"bare transaction", "txn", `{"transactionId":"1","status":"2"}`, ShapeAsIs, `{"transactionId":"1","status":"2"}`},
		{"a field of the schema is no wrapper", "txn", `{"payment":{"paymentId":"1"}}`, ShapeAsIs, `{"payment":{"paymentId":"1"}}`},
		{"bare customer", "cust", `{"customerId":"c"}`, ShapeBare, `{"customer":{"customerId":"c"}}`},
		{"wrapped customer", "cust", `{"customer":{"customerId":"c"}}`, ShapeAsIs, `{"customer":{"customerId":"c"}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			schema := txn
			if tc.schema == "cust" {
				schema = cust
			}
			shape, body := ClaimedShape(schema, []byte(tc.body))
			assert.Equal(t, tc.shape, shape)
			assert.JSONEq(t, tc.want, string(body))
		})
	}
}

func TestFormObject(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	// The capture's JSON schema names its fields dotted: they stay whole.
	op := spec.Operations["transactions_post-transactions-transactionId-capture"].Operation
	capture := op.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
	form, err := url.ParseQuery("amount=5.00&merchantReference=r&beneficiary.address.country=FR&beneficiary.name=Bea" +
		"&metadata.remittance.withdrawalMethod=Cash&splitToken=Ab%2BcD")
	require.NoError(t, err)
	got, err := json.Marshal(FormObject(capture, form))
	require.NoError(t, err)
	assert.JSONEq(t, `{"amount":"5.00","merchantReference":"r","beneficiary.name":"Bea","beneficiary.address.country":"FR",`+
		`"metadata.remittance.withdrawalMethod":"Cash","splitToken":"Ab+cD"}`, string(got))
	assert.Empty(t, ValidateObject(capture, FormObject(capture, form), "form field"))
	form.Set("beneficiary.nickname", "B")
	assert.Equal(t, []string{`strict/undeclared-property: form field "beneficiary.nickname" at $.body['beneficiary.nickname'] is not declared`},
		ValidateObject(capture, FormObject(capture, form), "form field"))

	// The Refresh event nests paymentProviderTransaction and has booleans.
	ev, err := url.ParseQuery("eventId=e&createdAt=1&paymentProviderTransaction.status=AC100&hardRefresh=true&success=false")
	require.NoError(t, err)
	got, err = json.Marshal(FormObject(spec.Webhooks["Refresh"], ev))
	require.NoError(t, err)
	assert.JSONEq(t, `{"eventId":"e","createdAt":"1","paymentProviderTransaction":{"status":"AC100"},"hardRefresh":true,"success":false}`, string(got))
}
