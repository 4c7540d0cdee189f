package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/internal/form"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// Fuzz targets for what the SDK decodes from, and encodes for, the wire:
// the dotted form encoder, the error-body parser (with Retry-After), and
// the response decoders of every call. They run on their seed corpus with
// every `go test`; explore one at a time with, for example,
// `go test -run '^$' -fuzz '^FuzzFormEncoder$' -fuzztime 60s`.
// (ParseEvent, VerifyNotification and VerifyRedirect: fuzz_test.go.)

// FuzzFormEncoder encodes capture params built from arbitrary strings and
// checks that the body decodes back to exactly the fields set, under their
// dotted names, and that the encoder's own writer agrees with
// url.Values.Encode.
func FuzzFormEncoder(f *testing.F) {
	f.Add("cap-1", "10.00", "Jane Doe", "1 Main St", "Apt 2", "Austin", "TX", "78701", "US", "123-45-6789", "1990-01-02", "1000000006", "", "124003116", "BankDeposit", "6789")
	f.Add("a&b=c", "1.5", "Zoë Ñ 山田", "x[y]", "]", "%zz", "+ +", "\x00\xff", "MX", "", "", "", "DE89370400440532013000", "", "Cash", "")
	f.Add("", "", "", "", "", "", "", "", "", "", "", "", "", "", "", "")
	f.Add("ref;drop", "0.00", "O'Brien \"the\" <b>", "\r\n", "\t", "?", "#", "&amp;", "==", "\u2028", "💸", "0", "0", "0", "HomeDelivery", "12")
	f.Fuzz(func(t *testing.T, ref, amount, name, addr1, addr2, city, state, zip, country, taxID, dob, acct, iban, routing, method, last4 string) {
		p := &CaptureParams{
			MerchantReference: ref,
			Amount:            models.Amount(amount),
			Beneficiary: &models.Beneficiary{Name: name, TaxID: taxID, DateOfBirth: dob,
				Address: &models.Address{Address1: addr1, Address2: addr2, City: city, State: state, Zip: zip, Country: country}},
			BeneficiaryAccount: &models.BeneficiaryAccount{AccountNumber: acct, IBAN: iban,
				PaymentProvider: &models.PaymentProvider{RoutingNumber: routing}},
			Remittance: &models.Remittance{WithdrawalMethod: method, AccountLastFour: last4},
		}
		want := map[string]string{"merchantReference": ref, "amount": amount} // never omitted
		for k, v := range map[string]string{
			"beneficiary.name": name, "beneficiary.taxId": taxID, "beneficiary.dateOfBirth": dob,
			"beneficiary.address.address1": addr1, "beneficiary.address.address2": addr2,
			"beneficiary.address.city": city, "beneficiary.address.state": state,
			"beneficiary.address.zip": zip, "beneficiary.address.country": country,
			"beneficiaryAccount.accountNumber": acct, "beneficiaryAccount.iban": iban,
			"beneficiaryAccount.paymentProvider.routingNumber": routing,
			"metadata.remittance.withdrawalMethod":             method,
			"metadata.remittance.accountLastFour":              last4,
		} {
			if v != "" {
				want[k] = v
			}
		}
		body, err := form.Body(p)
		require.NoError(t, err, "form.Body: %v", err)
		vals, err := form.Values(p)
		require.NoError(t, err, "form.Values: %v", err)
		enc := vals.Encode()
		require.Equal(t, enc, string(body), "form.Body and url.Values.Encode disagree:\n%s\n%s", body, enc)
		got, err := url.ParseQuery(string(body))
		require.NoError(t, err, "the body %q does not parse: %v", body, err)
		require.Len(t, got, len(want), "got fields %v, want %v", got, want)
		for k, v := range want {
			vs := got[k]
			require.Len(t, vs, 1, "field %s = %q, want %q", k, vs, v)
			require.Equal(t, v, vs[0], "field %s = %q, want %q", k, vs, v)
		}
		// The request the pipeline builds carries the same body.
		req, err := newRequest(http.MethodPost, "/x", nil, formBody{V: p})
		require.NoError(t, err, "NewRequest: %v, body %q", err, req.Body)
		require.True(t, bytes.Equal(req.Body, body), "NewRequest: %v, body %q", err, req.Body)
		require.Equal(t, "application/x-www-form-urlencoded", req.ContentType, "NewRequest: %v, body %q", err, req.Body)
		// A name go-querystring scopes, a[b][c], becomes a.b.c.
		if segs := []string{ref, name, city}; !strings.ContainsAny(strings.Join(segs, ""), "[]") {
			scoped := segs[0] + "[" + segs[1] + "][" + segs[2] + "]"
			d := form.Dotted(scoped)
			require.Equal(t, strings.Join(segs, "."), d, "Dotted(%q) = %q", scoped, d)
		}
	})
}

// FuzzErrorBody parses arbitrary error responses: the excerpt and messages
// stay short, on one line, valid UTF-8 and masked (no run of 5 or more
// digits, the shape of account numbers and tax ids), the Retry-After is
// never negative, and the sentinels follow the status and codes.
func FuzzErrorBody(f *testing.F) {
	f.Add([]byte(`{"errors":[{"domain":"com.bankpay","code":210,"message":"duplicate request"}]}`), uint16(400), "")
	f.Add([]byte(`{"errors":[{"code":375,"message":"access control for 1000000006","location":"account 124003116"}]}`), uint16(401), "")
	f.Add([]byte(`{"message":"bad tax id 123-45-6789","code":"200"}`), uint16(400), "")
	f.Add([]byte(`<html><body>502 Bad Gateway 10020003000 </body></html>`), uint16(502), "120")
	f.Add([]byte(`{"errors":null,"message":""}`), uint16(500), "86400")
	f.Add([]byte("\xff\xfe\x00\x01 \r\n\t"+strings.Repeat("é", 300)), uint16(503), "Wed, 21 Oct 2099 07:28:00 GMT")
	f.Add([]byte(`{"errors":[{"code":1e400}]}`), uint16(429), "99999999999999999999")
	f.Add([]byte(`{"message":"x","code":12345678901234567890}`), uint16(404), "-1")
	f.Add([]byte(strings.Repeat("1", 70<<10)), uint16(500), "0")
	f.Add([]byte(`{"isInTrustlyNetwork":false,"errorsList":[{"code":200,"message":"iban DE89370400440532013000 invalid","location":"email"}]}`), uint16(400), "")
	f.Fuzz(func(t *testing.T, body []byte, status uint16, retryAfterHeader string) {
		st := 400 + int(status)%200 // 400 to 599
		resp := &http.Response{StatusCode: st, Header: http.Header{}, Body: io.NopCloser(bytes.NewReader(body))}
		if retryAfterHeader != "" {
			resp.Header.Set("Retry-After", retryAfterHeader)
		}
		c, err := NewClient(testCreds)
		require.NoError(t, err)
		e := c.apiError(&request{Method: http.MethodPost, Path: "/transactions/1/deposit"}, resp, 1)
		require.GreaterOrEqual(t, e.RetryAfter, time.Duration(0), "RetryAfter %v", e.RetryAfter)
		const short = maxExcerpt + len("…")
		require.LessOrEqual(t, len(e.Message), short, "message of %d bytes, body excerpt of %d", len(e.Message), len(e.Body))
		require.LessOrEqual(t, len(e.Body), short, "message of %d bytes, body excerpt of %d", len(e.Message), len(e.Body))
		msg := e.Error()
		require.False(t, strings.ContainsAny(msg, "\r\n"), "Error() = %q", msg)
		require.True(t, utf8.ValidString(msg), "Error() = %q", msg)
		require.LessOrEqual(t, len(msg), 2*short+200, "Error() = %q", msg)
		for _, s := range []string{e.Message, e.Body, msg} {
			require.False(t, hasDigitRun(s, 5), "unmasked digits in %q", s)
		}
		for _, it := range e.Errors {
			require.False(t, hasDigitRun(it.Message, 5), "unmasked digits in item %+v", it)
			require.False(t, hasDigitRun(it.Location, 5), "unmasked digits in item %+v", it)
		}
		require.Equal(t, st >= 500 || e.HasCode(codeInternal), errors.Is(e, ErrServer), "ErrServer mismatch for %d %+v", st, e)
		require.Equal(t, e.HasCode(codeDuplicate), errors.Is(e, ErrDuplicate), "ErrDuplicate mismatch: %+v", e)
		require.Equal(t, st == 400 || e.HasCode(codeInvalidParameter), errors.Is(e, ErrBadRequest), "ErrBadRequest mismatch for %d %+v", st, e)
		// A huge Retry-After is never waited for: the retry rule stops.
		if d, ok := retryAfter(resp); ok && d > defaultMaxRetryAfter && st == 503 {
			a := &attempt{cfg: &c.cfg, retryAll: true, count: 1}
			retry, _ := a.checkRetry(context.Background(), resp, nil)
			require.False(t, retry, "retry after a Retry-After of %v", d)
		}
	})
}

// hasDigitRun reports whether s has n or more ASCII digits in a row.
func hasDigitRun(s string, n int) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			run++
			if run >= n {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// fuzzTransport responds every request with one status, header and body.
type fuzzTransport struct {
	status int
	header http.Header
	body   []byte
}

func (ft fuzzTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		_ = req.Body.Close()
	}
	return &http.Response{StatusCode: ft.status, Header: ft.header.Clone(), Body: io.NopCloser(bytes.NewReader(ft.body)),
		ContentLength: int64(len(ft.body)), Request: req}, nil
}

// decodeCalls are the calls whose responses FuzzResponseDecoders feeds: each
// returns its typed result (nil on error).
var decodeCalls = []func(ctx context.Context, c *Client) (any, error){
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Transactions.Get(ctx, "1")) },
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Transactions.Establish(ctx, &models.EstablishData{
			PaymentType: models.PaymentTypeDisbursement, Currency: models.USD, Amount: "0.00", MerchantReference: "r",
			Account: &models.Account{AccountNumber: "1000000006", RoutingNumber: "124003116"}}))
	},
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Transactions.Deposit(ctx, "1", &DepositParams{MerchantReference: "r"}))
	},
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Transactions.Capture(ctx, "1", &CaptureParams{MerchantReference: "r", Amount: "1.00",
			Beneficiary: &models.Beneficiary{Name: "B", Address: &models.Address{Country: "MX"}}}))
	},
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Accounts.Balance(ctx, "1")) },
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Accounts.User(ctx, "1")) },
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Accounts.Summary(ctx, "1")) },
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "1000000006", RoutingNumber: "124003116"}))
	},
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Customers.Update(ctx, "c", &CustomerUpdateParams{VIP: intPtr(1)}))
	},
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Identity.User(ctx, "1")) },
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Identity.Detail(ctx, "1")) },
	func(ctx context.Context, c *Client) (any, error) {
		if err := c.Identity.Register(ctx, "1", "d"); err != nil {
			return nil, err
		}
		return &struct{}{}, nil
	},
	func(ctx context.Context, c *Client) (any, error) {
		cs, err := c.Countries.List(ctx, nil)
		if err != nil {
			return nil, err
		}
		return &cs, nil
	},
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.PaymentProviders.ListPage(ctx, nil))
	},
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Disputes.Create(ctx, &DisputeParams{TransactionID: "1", Amount: "1.00"}))
	},
	// 15 and on: the customer and account-verification calls.
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Customers.Get(ctx, "c")) },
	func(ctx context.Context, c *Client) (any, error) {
		return sliceOrNil(c.Customers.List(ctx, &CustomerListParams{ExternalID: "e"}))
	},
	func(ctx context.Context, c *Client) (any, error) {
		known, err := c.Customers.Lookup(ctx, "a@b.example", "")
		if err != nil {
			return nil, err
		}
		return &known, nil
	},
	func(ctx context.Context, c *Client) (any, error) {
		return nilIfErr(c.Accounts.Verify(ctx, &AccountVerifyParams{IBAN: "DE89370400440532013000"}))
	},
	func(ctx context.Context, c *Client) (any, error) {
		return sliceOrNil(c.Accounts.ListSelected(ctx, "1"))
	},
	func(ctx context.Context, c *Client) (any, error) {
		return sliceOrNil(c.Identity.CustomerVerification(ctx, "1"))
	},
	// 21 and on: the lists.
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Transactions.ListPage(ctx, nil)) },
	func(ctx context.Context, c *Client) (any, error) { return nilIfErr(c.Payments.Get(ctx, "p")) },
}

// sliceOrNil is nilIfErr for a call returning a slice.
func sliceOrNil[T any](v []T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return &v, nil
}

// nilIfErr turns a typed nil pointer into a nil interface.
func nilIfErr[T any](v *T, err error) (any, error) {
	if v == nil {
		return nil, err
	}
	return v, err
}

// FuzzResponseDecoders feeds arbitrary responses to every call through the
// whole pipeline: no panic; success only on 2xx, with a result; otherwise
// an *APIError (non-2xx) or a *ResponseError (2xx), with a short message
// and no secret; and a decoded result re-encodes and decodes to the same.
func FuzzResponseDecoders(f *testing.F) {
	for i := range decodeCalls {
		f.Add(uint8(i), uint8(0), []byte(`{"transaction":{"transactionId":"1002600000000001","transactionType":"6","status":2,"amount":10,"createTime":"1700000000000","payment":{"paymentType":"Disbursement","account":{"accountNumber":"6789"}}}}`))
	}
	f.Add(uint8(4), uint8(0), []byte(`{"accountBalance":{"account":{"verification":{"verified":true,"score":7,"verificationDate":1.7e12}},"amount":"10.00","currency":"USD"}}`))
	f.Add(uint8(5), uint8(0), []byte(`{"user":{"name":["A","B"],"address":[{"city":"X"}],"phone":null}}`))
	f.Add(uint8(6), uint8(0), []byte(`{"customerId":"1","lastUpdated":"1700000000000","summary":[{"aggregations":[{"days":7}]}]}`))
	f.Add(uint8(7), uint8(0), []byte(`{"merchantId":"1","account":{"token":"t","verification":{"verified":false,"type":3,"score":0,"thirdPartyScore":999}}}`))
	f.Add(uint8(8), uint8(0), []byte(`{"customer":{"customerId":"c","vip":0,"balance":12.5}}`))
	f.Add(uint8(9), uint8(0), []byte(`{"user":{"firstName":"J"}}`))
	f.Add(uint8(10), uint8(0), []byte(`{"detail":{}}`))
	f.Add(uint8(0), uint8(3), []byte(`{"errors":[{"code":200,"message":"Transaction 100260000000 not found"}]}`))
	f.Add(uint8(2), uint8(2), []byte(`{"errors":[{"code":210,"message":"duplicate"}]}`))
	f.Add(uint8(1), uint8(5), []byte(`<html>503</html>`))
	f.Add(uint8(0), uint8(1), []byte(``))
	f.Add(uint8(0), uint8(0), []byte(`{"transaction":null}`))
	f.Add(uint8(0), uint8(0), []byte(`{"transaction":{"createTime":"17e11x"}}`))
	f.Add(uint8(6), uint8(0), []byte(`{"summary":{}}`))
	f.Add(uint8(0), uint8(0), []byte(`[`))
	// The OpenAPI's shapes: bare objects, codes as strings or whole floats.
	f.Add(uint8(0), uint8(0), []byte(`{"transactionId":"1","transactionType":"1","status":"2.0","recordVersion":3.0,"url":"https://x"}`))
	f.Add(uint8(5), uint8(0), []byte(`{"name":["A"],"createdAt":1700000000000}`))
	f.Add(uint8(7), uint8(0), []byte(`{"token":"t","type":"1","profile":"-1","verification":{"type":"3","score":"7","thirdPartyScore":"999"}}`))
	f.Add(uint8(8), uint8(0), []byte(`{"customer":{"vip":"2","enrollDate":1700000000000}}`))
	f.Add(uint8(10), uint8(0), []byte(`{"detail":{"verification":[{"result":"1","reasons":[{"code":"-1"}]}],"attribute":[{"source":{"name":"bank","type":1}}]}}`))
	f.Add(uint8(0), uint8(0), []byte(`{"transaction":{"status":"abc","amount":{}}}`))
	f.Add(uint8(12), uint8(0), []byte(`{"countries":[{"numericCode":840.0,"alpha2Code":"US","currencies":["USD"],"enabled":"true"}]}`))
	f.Add(uint8(13), uint8(0), []byte(`{"paymentProviders":[{"paymentProviderId":"1","type":1.0,"subType":"1000","address":{"zip":"1"}}],"startIndex":2.0,"itemsPerPage":"2"}`))
	f.Add(uint8(14), uint8(0), []byte(`{"transactionId":"2","transactionType":8.0,"originalTransactionId":"1","status":"2"}`))
	f.Add(uint8(15), uint8(0), []byte(`{"customer":{"customerId":"c","createdAt":"1700000000000","merchantId":1002463580}}`))
	f.Add(uint8(16), uint8(0), []byte(`{"customers":[{"customerId":"c","vip":"1"},{"customerId":"d"}]}`))
	f.Add(uint8(17), uint8(0), []byte(`{"isInTrustlyNetwork":"true"}`))
	f.Add(uint8(17), uint8(3), []byte(`{"isInTrustlyNetwork":false,"errorsList":[{"code":200.0,"message":"invalid email"}]}`))
	f.Add(uint8(18), uint8(0), []byte(`{"accountNumber":"3000","verification":{"verified":"true","type":"3","score":"6"},"verified":true}`))
	f.Add(uint8(19), uint8(0), []byte(`{"accounts":[{"accountNumber":"2012345678","accountNumberLastFour":"5678","type":1.0,"source":1}]}`))
	f.Add(uint8(20), uint8(0), []byte(`{"matches":[{"attribute":"customer.name","result":"-1","source":"4"}]}`))
	f.Add(uint8(21), uint8(0), []byte(`{"transactions":[{"transactionId":"1","status":"2","payment":{"paymentType":"4"}}],"startIndex":1.0,"itemsPerPage":"2"}`))
	f.Add(uint8(21), uint8(0), []byte(`[{"transactionId":"1"}]`))
	f.Add(uint8(22), uint8(0), []byte(`{"paymentId":"p","authorizationStatus":2.0,"paid":"1.00","customer":{"vip":"1"}}`))
	// Fields the SDK can do without, of a type it cannot hold: left unset.
	f.Add(uint8(0), uint8(0), []byte(`{"transactionId":"1","status":"2","createdAt":{"t":1},"payment":{"account":{"type":{"c":1}},"customer":{"vip":"gold","address":7}}}`))
	f.Add(uint8(5), uint8(0), []byte(`{"user":{"name":[{"first":"A"}],"phone":[{"number":"+1555"},15550100],"email":"a@b.example"}}`))
	f.Add(uint8(14), uint8(0), []byte(`{"transactionId":"2","status":"1","amount":"5.00","paid":{},"paymentProviderTransaction":{"status":[]}}`))
	statuses := []int{200, 204, 201, 404, 400, 503, 429, 500, 401, 299}
	f.Fuzz(func(t *testing.T, which, statusIx uint8, body []byte) {
		status := statuses[int(statusIx)%len(statuses)]
		call := decodeCalls[int(which)%len(decodeCalls)]
		header := http.Header{"Content-Type": {"application/json"}}
		if statusIx >= uint8(len(statuses)) {
			header.Set("Retry-After", strconv.Itoa(int(statusIx)))
		}
		c, err := NewClient(testCreds, WithBaseURL(testBaseURL),
			WithHTTPClient(&http.Client{Transport: fuzzTransport{status, header, body}}), withMaxResponseBytes(1<<16))
		require.NoError(t, err)
		c.waitScale = func(time.Duration) time.Duration { return 0 }
		res, err := call(context.Background(), c)
		ok2xx := status >= 200 && status <= 299
		if err == nil {
			require.True(t, ok2xx, "success on %d with %v", status, res)
			require.NotNil(t, res, "success on %d with %v", status, res)
			checkRoundTrip(t, res)
			return
		}
		require.Nil(t, res, "a result (%v) with an error (%v)", res, err)
		var ae *APIError
		var re *ResponseError
		if ok2xx {
			require.ErrorAs(t, err, &re, "%d response: %T %v, want *ResponseError", status, err, err)
			require.ErrorIs(t, err, ErrInvalidResponse, "%v does not match ErrInvalidResponse", err)
		} else {
			require.ErrorAs(t, err, &ae, "%d response: %T %v, want *APIError", status, err, err)
		}
		msg := err.Error()
		require.LessOrEqual(t, len(msg), 1024, "error message (%d bytes): %q", len(msg), msg)
		require.NotContains(t, msg, testCreds.AccessKey.Reveal(), "error message (%d bytes): %q", len(msg), msg)
		require.False(t, strings.ContainsAny(msg, "\r\n"), "error message (%d bytes): %q", len(msg), msg)
	})
}

// checkRoundTrip re-encodes a decoded result and decodes it again: the
// second encoding must equal the first (what the SDK decoded, it can
// encode, and means the same thing).
func checkRoundTrip(t *testing.T, res any) {
	t.Helper()
	first, err := json.Marshal(res)
	require.NoError(t, err, "a decoded %T does not encode: %v", res, err)
	again := reflect.New(reflect.TypeOf(res).Elem()).Interface()
	err = json.Unmarshal(first, again)
	require.NoError(t, err, "%T: its own encoding %s does not decode: %v", res, first, err)
	second, err := json.Marshal(again)
	require.NoError(t, err, "%T does not round-trip:\n%s\n%s (%v)", res, first, second, err)
	require.True(t, bytes.Equal(first, second), "%T does not round-trip:\n%s\n%s (%v)", res, first, second, err)
}
