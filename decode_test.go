package bankpay

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/form"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// decodeResponse reads the spec's wrapped shape and the OpenAPI's bare shape
// to the same value; a null wrapper or an empty bare object is an error.
func TestDecodeResponseWrappedOrBare(t *testing.T) {
	wrapped, err := decodeResponse[models.Transaction]([]byte(`{"transaction":{"transactionId":"T7","transactionType":6,"status":2,"amount":"1.00","status":"2"}}`), "transaction", "GET", "/p")
	require.NoError(t, err)
	bare, err := decodeResponse[models.Transaction]([]byte(`{"transactionId":"T7","transactionType":6,"status":2,"amount":"1.00","status":2}`), "transaction", "GET", "/p")
	require.NoError(t, err)
	assert.Equal(t, wrapped, bare)
	assert.Equal(t, models.StatusAuthorized, bare.Status)

	empty, err := decodeResponse[models.IdentityUser]([]byte(`{"user":{}}`), "user", "GET", "/p")
	require.NoError(t, err, "a wrapper holding an empty object is an (empty) response, as before")
	assert.Equal(t, &models.IdentityUser{}, empty)

	for _, body := range []string{`{"transaction":null}`, `{}`, `{"unknown":1}`, `[]`, `"x"`, `null`} {
		_, err := decodeResponse[models.Transaction]([]byte(body), "transaction", "GET", "/p")
		var re *ResponseError
		require.True(t, errors.As(err, &re), "%s: %v", body, err)
		assert.ErrorIs(t, err, ErrInvalidResponse, body)
		assert.Equal(t, "GET", re.Method)
		assert.Equal(t, "/p", re.Path)
	}
}

// A field of the identity of the result (a transaction's id, type, status,
// amount) of the wrong JSON type fails the call with a *ResponseError whose
// message names the field's JSON path (wrapped or bare), never the value;
// unknown fields and unknown enum values do not fail it.
func TestServiceCallWrongFieldType(t *testing.T) {
	for _, tc := range []struct{ body, path string }{
		{`{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00","status":"abc"}}`, "transaction.status"},
		{`{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00","amount":{}}}`, "transaction.amount"},
		{`{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00","status":"abc"}`, "field status:"},
		{`{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00","transactionType":["123456789"]}}`, "transaction.transactionType"},
	} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1"}, 200, tc.body)
		txn, err := c.Transactions.Get(context.Background(), "T1")
		assert.Nil(t, txn)
		var re *ResponseError
		require.True(t, errors.As(err, &re), "%s: %v", tc.body, err)
		assert.ErrorIs(t, err, ErrInvalidResponse)
		var fe *decode.FieldError
		assert.True(t, errors.As(err, &fe), "the cause is a *decode.FieldError")
		assert.Contains(t, err.Error(), tc.path)
		assert.NotContains(t, err.Error(), "123456789")
		assertNoSecret(t, err.Error())
	}

	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1"}, 200,
		`{"transaction":{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00","status":"77","transactionType":"55","brandNew":{"a":[1]},"paymentProviderTransaction":{"status":"QQ1"}}}`)
	txn, err := c.Transactions.Get(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, models.TransactionStatus(77), txn.Status)
	assert.Equal(t, models.TransactionType(55), txn.TransactionType)
	assert.Equal(t, models.ProviderStatus("QQ1"), txn.PaymentProviderTransaction.Status)
}

// Every call that reads a wrong type names the path under its own wrapper;
// the rows without a path are shapes the model holds and must read.
func TestServiceCallsNameFieldPath(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, body, path string
		call             func(c *Client) error
	}{
		{"Identity.User", `{"user":{"eligible":{}}}`, "user.eligible",
			func(c *Client) error { _, err := c.Identity.User(ctx, "T1"); return err }},
		{"Identity.Detail", `{"detail":{"verification":[{"verificationName":"kyc","result":1}]}}`, "",
			func(c *Client) error { _, err := c.Identity.Detail(ctx, "T1"); return err }},
		{"Payments.Get", `{"paymentId":"P1","amount":"1.00","customer":{"vip":"12345678"}}`, "",
			func(c *Client) error { _, err := c.Payments.Get(ctx, "P1"); return err }},
		{"Refund", `{"transaction":{"transactionId":"R1","transactionType":6,"status":2,"amount":"1.00","status":"xx 12345678"}}`, "transaction.status",
			func(c *Client) error { _, err := c.Transactions.Refund(ctx, "T1", nil); return err }},
		{"Dispute", `{"transactionId":"R1","transactionType":6,"status":2,"amount":"1.00","amount":["12345678"]}`, "field amount",
			func(c *Client) error {
				_, err := c.Disputes.Create(ctx, &DisputeParams{TransactionID: "T1", Amount: "1.00"})
				return err
			}},
	} {
		c, mock, _ := newTestClient(t)
		sequence(t, mock, jsonResponse(200, tc.body))
		err := tc.call(c)
		if tc.path == "" {
			// A shape the model holds (an integer result, vip from a
			// numeric string): read, not a failure.
			require.NoError(t, err, tc.name)
			continue
		}
		require.ErrorIs(t, err, ErrInvalidResponse, tc.name)
		assert.Contains(t, err.Error(), tc.path, tc.name)
		assert.NotContains(t, err.Error(), "12345678", tc.name)
	}
}

// A 2xx answer to a call that changed state (refund, cancel, reclaim,
// dispute recovery) is never turned into a failure by a field the SDK can
// do without: its identity decodes, every other field the Go type cannot
// hold is left unset (never a zero that means something), and each is
// logged at debug level with its JSON path, never its value.
func TestLeftUnsetAfterStateChange(t *testing.T) {
	ctx := context.Background()
	calls := map[string]func(c *Client) (*models.Transaction, error){
		"Refund": func(c *Client) (*models.Transaction, error) {
			return c.Transactions.Refund(ctx, "T1", &RefundParams{Amount: "5.00"})
		},
		"Cancel": func(c *Client) (*models.Transaction, error) {
			return c.Transactions.Cancel(ctx, "T1", &CancelParams{MerchantReference: "c-1"})
		},
		"Reclaim": func(c *Client) (*models.Transaction, error) {
			return c.Transactions.Reclaim(ctx, "T1", &ReclaimParams{Amount: "5.00"})
		},
		"Dispute": func(c *Client) (*models.Transaction, error) {
			return c.Disputes.Create(ctx, &DisputeParams{TransactionID: "T1", Amount: "5.00"})
		},
	}
	const secret = "4111222233334444"
	for _, tc := range []struct {
		name, fields string
		unset        []string
		check        func(t *testing.T, tr *models.Transaction)
	}{
		{"account.type an object", `"payment":{"paymentId":"P1","account":{"name":"Main","type":{"code":"` + secret + `"}}}`,
			[]string{"payment.account"}, func(t *testing.T, tr *models.Transaction) {
				require.NotNil(t, tr.Payment)
				assert.Equal(t, "P1", tr.Payment.PaymentID)
				assert.Nil(t, tr.Payment.Account, "never type 0 (Other): the account is unset")
			}},
		{"createdAt an object", `"createdAt":{"epoch":"` + secret + `"},"updatedAt":"1700000000000"`,
			[]string{"createdAt"}, func(t *testing.T, tr *models.Transaction) {
				assert.True(t, tr.CreatedAt.Time().IsZero(), "unset: no time")
				assert.Equal(t, models.EpochMillis(1700000000000), tr.UpdatedAt)
			}},
		{"customer.address a number", `"payment":{"customer":{"name":"Ada","address":` + secret + `}}`,
			[]string{"payment.customer.address"}, func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, "Ada", tr.Payment.Customer.Name)
				assert.Nil(t, tr.Payment.Customer.Address)
			}},
		{"authorizationStatus a word", `"payment":{"authorizationStatus":"acct ` + secret + `"}`,
			[]string{"payment.authorizationStatus"}, func(t *testing.T, tr *models.Transaction) {
				assert.Nil(t, tr.Payment.AuthorizationStatus, "unset, never 0 (New)")
			}},
		{"vip a word", `"payment":{"customer":{"vip":"low-risk"}}`,
			[]string{"payment.customer.vip"}, func(t *testing.T, tr *models.Transaction) {
				assert.Nil(t, tr.Payment.Customer.VIP, "unset, never 0 (removes VIP)")
				assert.Equal(t, "low-risk", tr.Payment.Customer.VIPText)
			}},
		{"several at once", `"recordVersion":"v` + secret + `","paymentProviderTransaction":{"status":["AC100"],"statusMessage":"ok"},"balance":{}`,
			[]string{"balance", "paymentProviderTransaction.status", "recordVersion"}, func(t *testing.T, tr *models.Transaction) {
				assert.Equal(t, 0, tr.RecordVersion)
				assert.Equal(t, "ok", tr.PaymentProviderTransaction.StatusMessage)
				assert.Equal(t, models.Amount(""), tr.Balance)
			}},
	} {
		for name, call := range calls {
			for _, wrapped := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/%s/wrapped=%v", tc.name, name, wrapped), func(t *testing.T) {
					var logs bytes.Buffer
					logger := slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
					c, mock, _ := newTestClient(t, WithLogger(logger))
					id := "R1"
					if name == "Cancel" { // answered with the transaction canceled
						id = "T1"
					}
					body := `{"transactionId":"` + id + `","transactionType":4,"status":1,"amount":"5.00",` + tc.fields + `}`
					prefix := ""
					if wrapped {
						body, prefix = `{"transaction":`+body+`}`, "transaction."
					}
					sequence(t, mock, jsonResponse(200, body))
					tr, err := call(c)
					require.NoError(t, err, "a 2xx after the state changed is never a failure")
					assert.Equal(t, id, tr.TransactionID)
					assert.Equal(t, models.StatusPending, tr.Status)
					assert.Equal(t, models.TypeRefund, tr.TransactionType)
					assert.Equal(t, models.Amount("5.00"), tr.Amount)
					tc.check(t, tr)

					var got []string
					for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
						var rec struct{ Level, Msg, Field, Reason string }
						require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
						if rec.Msg == "bankpay: response field left unset" {
							assert.Equal(t, "DEBUG", rec.Level)
							got = append(got, rec.Field)
						}
					}
					sort.Strings(got)
					var want []string
					for _, p := range tc.unset {
						want = append(want, prefix+p)
					}
					assert.Equal(t, want, got)
					assert.NotContains(t, logs.String(), secret, "a value left unset is never logged")
					assert.NotContains(t, logs.String(), "low-risk", "a value left unset is never logged")
				})
			}
		}
	}
}

// BenchmarkDecodeResponse compares the one-pass wrapped-or-bare read of a
// transaction with a plain json.Unmarshal of the same wrapped body.
func BenchmarkDecodeResponse(b *testing.B) {
	body := []byte(`{"transaction":` + goldenTxnBody(numEncs[0].n, 1) + `}`)
	b.Run("decodeResponse", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			if _, err := decodeResponse[models.Transaction](body, "transaction", "GET", "/p"); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("json.Unmarshal", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			var env wire.TransactionEnvelope
			if err := json.Unmarshal(body, &env); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// Fuzz targets for what the SDK decodes from, and encodes for, the wire:
// the dotted form encoder, the error-body parser (with Retry-After), and
// the response decoders of every call. They run on their seed corpus with
// every `go test`; explore one at a time with, for example,
// `go test -run '^$' -fuzz '^FuzzFormEncoder$' -fuzztime 60s`.
// (ParseEvent, VerifyNotification and VerifyRedirect: FuzzParseEvent in events_test.go, FuzzVerifyNotification in webhooks_test.go, FuzzVerifyRedirect in redirect_test.go.)

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
		req, err := pipeline.NewRequest(http.MethodPost, "/x", nil, pipeline.FormBody{V: p})
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

// FuzzBodyOfSDKParams checks the planned encoding of the SDK's form params
// (deposit, capture and preauthorization, every field, some parts nil)
// against go-querystring.
func FuzzBodyOfSDKParams(f *testing.F) {
	f.Add("ref-1", "10.00", "Jane Doe", "1 Main St", "US", "DE89 3704", "BankDeposit", uint8(0))
	f.Add("r&f=1", "", "", "", "", "", "", uint8(255))
	f.Add("é%+ ", "0.00", "a[b]", "x.y", "", "?", "#", uint8(0x55))
	f.Fuzz(func(t *testing.T, a, b, c, d, e, g, h string, mask uint8) {
		on := func(bit uint) bool { return mask&(1<<bit) == 0 }
		dp := &DepositParams{MerchantReference: a, Amount: models.Amount(b), InstantPayoutRequest: on(0), AuthorizationAmount: models.Amount(c), ExternalTier: h}
		cp := &CaptureParams{MerchantReference: a, Amount: models.Amount(b)}
		if on(7) {
			cp.SplitToken, cp.InteractionID = g, h
		}
		pp := &PreauthorizeParams{MerchantReference: a, Amount: models.Amount(b), Period: int(mask % 8),
			SplitToken: c, ExternalTier: d, WithdrawalMethod: h, InteractionID: e}
		if on(1) {
			cp.Beneficiary = &models.Beneficiary{Name: c, DateOfBirth: h, TaxID: g}
			if on(2) {
				cp.Beneficiary.Address = &models.Address{Address1: d, Address2: g, City: h, State: e, Zip: a, Country: e}
			}
		}
		if on(3) {
			cp.BeneficiaryAccount = &models.BeneficiaryAccount{AccountNumber: a, IBAN: g}
			if on(4) {
				cp.BeneficiaryAccount.PaymentProvider = &models.PaymentProvider{PaymentProviderID: h, Type: 1,
					InstantPayoutAvailable: true, Name: c, Country: e, Swift: g, RoutingNumber: d}
			}
		}
		if on(5) {
			cp.Remittance = &models.Remittance{}
			if on(6) {
				cp.Remittance = &models.Remittance{WithdrawalMethod: h, CountryCorridor: e, AccountLastFour: d}
			}
		}
		for _, v := range []any{dp, cp, pp} {
			require.True(t, form.Planned(v), "%T is not planned", v)
			got, err := form.Body(v)
			require.NoError(t, err)
			vals, err := form.Values(v)
			require.NoError(t, err)
			want := vals.Encode()
			require.Equal(t, want, string(got), "Body(%T)\n got  %s\n want %s", v, got, want)
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
		e := (*reporter)(c.secrets).apiError(&pipeline.Request{Method: http.MethodPost, Path: "/transactions/1/deposit"}, resp, 1)
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
		// That a huge Retry-After is never waited for (the retry rule
		// stops) is internal/pipeline's FuzzRetryAfterCap, on these seeds.
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
		return nilIfErr(c.Customers.Update(ctx, "c", &CustomerParams{VIP: intPtr(1)}))
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
		f.Add(uint8(i), uint8(0), []byte(`{"transaction":{"transactionId":"1002600000000001","transactionType":6,"status":2,"amount":"1.00","transactionType":"6","status":2,"amount":10,"createTime":"1700000000000","payment":{"paymentType":"Disbursement","account":{"accountNumber":"6789"}}}}`))
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
	f.Add(uint8(0), uint8(0), []byte(`{"transactionId":"1","transactionType":6,"status":2,"amount":"1.00","transactionType":"1","status":"2.0","recordVersion":3.0,"url":"https://x"}`))
	f.Add(uint8(5), uint8(0), []byte(`{"name":["A"],"createdAt":1700000000000}`))
	f.Add(uint8(7), uint8(0), []byte(`{"token":"t","type":"1","profile":"-1","verification":{"type":"3","score":"7","thirdPartyScore":"999"}}`))
	f.Add(uint8(8), uint8(0), []byte(`{"customer":{"vip":"2","enrollDate":1700000000000}}`))
	f.Add(uint8(10), uint8(0), []byte(`{"detail":{"verification":[{"result":"1","reasons":[{"code":"-1"}]}],"attribute":[{"source":{"name":"bank","type":1}}]}}`))
	f.Add(uint8(0), uint8(0), []byte(`{"transaction":{"status":"abc","amount":{}}}`))
	f.Add(uint8(12), uint8(0), []byte(`{"countries":[{"numericCode":840.0,"alpha2Code":"US","currencies":["USD"],"enabled":"true"}]}`))
	f.Add(uint8(13), uint8(0), []byte(`{"paymentProviders":[{"paymentProviderId":"1","type":1.0,"subType":"1000","address":{"zip":"1"}}],"startIndex":2.0,"itemsPerPage":"2"}`))
	f.Add(uint8(14), uint8(0), []byte(`{"transactionId":"2","transactionType":6,"status":2,"amount":"1.00","transactionType":8.0,"originalTransactionId":"1","status":"2"}`))
	f.Add(uint8(15), uint8(0), []byte(`{"customer":{"customerId":"c","createdAt":"1700000000000","merchantId":1002463580}}`))
	f.Add(uint8(16), uint8(0), []byte(`{"customers":[{"customerId":"c","vip":"1"},{"customerId":"d"}]}`))
	f.Add(uint8(17), uint8(0), []byte(`{"isInTrustlyNetwork":"true"}`))
	f.Add(uint8(17), uint8(3), []byte(`{"isInTrustlyNetwork":false,"errorsList":[{"code":200.0,"message":"invalid email"}]}`))
	f.Add(uint8(18), uint8(0), []byte(`{"accountNumber":"3000","verification":{"verified":"true","type":"3","score":"6"},"verified":true}`))
	f.Add(uint8(19), uint8(0), []byte(`{"accounts":[{"accountNumber":"2012345678","accountNumberLastFour":"5678","type":1.0,"source":1}]}`))
	f.Add(uint8(20), uint8(0), []byte(`{"matches":[{"attribute":"customer.name","result":"-1","source":"4"}]}`))
	f.Add(uint8(21), uint8(0), []byte(`{"transactions":[{"transactionId":"1","transactionType":6,"status":2,"amount":"1.00","status":"2","payment":{"paymentType":"4"}}],"startIndex":1.0,"itemsPerPage":"2"}`))
	f.Add(uint8(21), uint8(0), []byte(`[{"transactionId":"1"}]`))
	f.Add(uint8(22), uint8(0), []byte(`{"paymentId":"p","authorizationStatus":2.0,"paid":"1.00","customer":{"vip":"1"}}`))
	// Fields the SDK can do without, of a type it cannot hold: left unset.
	f.Add(uint8(0), uint8(0), []byte(`{"transactionId":"1","transactionType":6,"status":2,"amount":"1.00","status":"2","createdAt":{"t":1},"payment":{"account":{"type":{"c":1}},"customer":{"vip":"gold","address":7}}}`))
	f.Add(uint8(5), uint8(0), []byte(`{"user":{"name":[{"first":"A"}],"phone":[{"number":"+1555"},15550100],"email":"a@b.example"}}`))
	f.Add(uint8(14), uint8(0), []byte(`{"transactionId":"2","transactionType":6,"status":2,"amount":"1.00","status":"1","amount":"5.00","paid":{},"paymentProviderTransaction":{"status":[]}}`))
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
		c.cfg.waitScale = func(time.Duration) time.Duration { return 0 }
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

// Golden wire tests: each response the SDK reads, written from the facts the
// operator's OpenAPI schemas state (field names, kinds, enum values) with
// ids and values of our own, is decoded through the real SDK method in
// both shapes (the spec's wrapped object and the OpenAPI's bare one) and
// in three number encodings (JSON integers as the spec writes them,
// numeric strings as the OpenAPI's enums do, and whole-valued floats such
// as 1.0). Every variant must decode to the same Go value.

// numEnc writes a whole number the way one source does.
type numEnc struct {
	name string
	n    func(int64) string
}

var numEncs = []numEnc{
	{"int", func(v int64) string { return strconv.FormatInt(v, 10) }},
	{"string", func(v int64) string { return `"` + strconv.FormatInt(v, 10) + `"` }},
	{"float", func(v int64) string { return strconv.FormatInt(v, 10) + ".0" }},
}

const (
	goldenTime  = int64(1731000000000)
	goldenTime2 = int64(1731000123000)
)

func goldenTxnBody(n func(int64) string, typ int64) string {
	return fmt.Sprintf(`{"transactionId":"TXG000000000071","transactionType":6,"status":2,"amount":"1.00","transactionType":%s,"originalTransactionId":"TXG000000000070",
  "payment":{"paymentId":"PAYG0001","paymentType":%s,"merchantId":"1002463580","amount":"25.00","currency":"USD",
    "account":{"name":"Everyday Checking","type":%s,"profile":%s,"accountNumber":"4417","verified":true},
    "paymentProvider":{"paymentProviderId":"PPG-77","name":"Golden Test Bank","type":%s,"instantPayoutAvailable":true,"subType":"1000"}},
  "currency":"USD","amount":"25.00","pending":"0.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"PPT-G-9","status":"SW020","statusMessage":"Authorization received",
    "paymentProcessor":{"paymentProcessorId":"PROC-G","type":1}},
  "status":%s,"statusMessage":"Authorized","statusCode":"AU","createdAt":%s,"updatedAt":%s,
  "merchantReference":"gold-ref-1","recordVersion":%s,"fee":"0.00"}`,
		n(typ), n(4), n(1), n(1), n(1), n(2), n(goldenTime), n(goldenTime2), n(5))
}

func goldenTxnWant(typ models.TransactionType) *models.Transaction {
	return &models.Transaction{
		TransactionID: "TXG000000000071", TransactionType: typ, OriginalTransactionID: "TXG000000000070",
		Payment: &models.Payment{PaymentID: "PAYG0001", PaymentType: models.PaymentTypeDisbursement, MerchantID: "1002463580",
			Amount: "25.00", Currency: models.USD,
			Account:         &models.PaymentAccount{Name: "Everyday Checking", Type: 1, AccountNumber: "4417", Verified: true},
			PaymentProvider: &models.PaymentProvider{PaymentProviderID: "PPG-77", Name: "Golden Test Bank", Type: 1, InstantPayoutAvailable: true, SubType: "1000"}},
		Currency: models.USD, Amount: "25.00",
		PaymentProviderTransaction: &models.PaymentProviderTransaction{PaymentProviderTransactionID: "PPT-G-9",
			Status: models.ProviderStatus("SW020"), StatusMessage: "Authorization received",
			PaymentProcessor: &models.PaymentProcessor{PaymentProcessorID: "PROC-G"}},
		Status: models.StatusAuthorized, StatusMessage: "Authorized", StatusCode: "AU",
		CreatedAt: models.EpochMillis(goldenTime), UpdatedAt: models.EpochMillis(goldenTime2),
		MerchantReference: "gold-ref-1", RecordVersion: 5,
	}
}

func goldenVerificationBody(n func(int64) string) string {
	return fmt.Sprintf(`{"verified":true,"type":%s,"score":%s,"thirdPartyScore":%s,"verificationDate":%s,"hasEnoughFunds":true,"numberOfTries":%s}`,
		n(3), n(8), n(700), n(goldenTime), n(1))
}

func goldenVerificationWant() *models.Verification {
	score, third, enough := 8, 700, true
	return &models.Verification{Verified: true, Type: 3, Score: &score, ThirdPartyScore: &third,
		VerificationDate: models.EpochMillis(goldenTime), HasEnoughFunds: &enough}
}

// goldenCase is one SDK method and the respond it reads.
type goldenCase struct {
	name, method, path string
	// bare is the response in the OpenAPI's (unwrapped) shape; wrap gives the
	// spec's shape ("" when both sources write the same shape).
	bare func(n func(int64) string) string
	wrap func(bare string, n func(int64) string) string
	call func(ctx context.Context, c *Client) (any, error)
	// want is the decoded value; wantBare overrides it for the bare shape
	// when that shape carries fewer fields.
	want, wantBare any
}

func wrapIn(key string) func(string, func(int64) string) string {
	return func(bare string, _ func(int64) string) string { return `{"` + key + `":` + bare + `}` }
}

func goldenCases() []goldenCase {
	txn := func(name, method, path string, typ int64, call func(ctx context.Context, c *Client) (any, error)) goldenCase {
		return goldenCase{name: name, method: method, path: path,
			bare: func(n func(int64) string) string { return goldenTxnBody(n, typ) },
			wrap: wrapIn("transaction"), call: call, want: goldenTxnWant(models.TransactionType(typ))}
	}
	establishWant := goldenTxnWant(models.TypeAuthorize)
	establishWant.URL = "https://bank.example.test/flow/TXG000000000071"
	establish := txn("Establish", "POST", "/api/v1/establish", 1, func(ctx context.Context, c *Client) (any, error) {
		return c.Transactions.Establish(ctx, disbursementParams())
	})
	establish.bare = func(n func(int64) string) string {
		b := goldenTxnBody(n, 1)
		return b[:len(b)-1] + `,"url":"https://bank.example.test/flow/TXG000000000071","data":"opaque"}`
	}
	establish.want = establishWant

	balanceBody := func(n func(int64) string) string {
		return fmt.Sprintf(`{"account":{"providerId":"PPG-77","paymentProvider":{"paymentProviderId":"PPG-77","name":"Golden Test Bank","type":%s},
  "nameOnAccount":"Pat Example","name":"Everyday Checking","type":%s,"profile":%s,"accountNumber":"4417","routingNumber":"124003116",
  "verified":true,"country":"US","verification":%s},"amount":"1520.33","available":"1500.00","currency":"USD"}`,
			n(1), n(1), n(2), goldenVerificationBody(n))
	}
	balanceWant := &models.AccountBalance{
		Account: &models.Account{ProviderID: "PPG-77", PaymentProvider: &models.PaymentProvider{PaymentProviderID: "PPG-77", Name: "Golden Test Bank", Type: 1},
			NameOnAccount: "Pat Example", Name: "Everyday Checking", Type: 1, Profile: 2, AccountNumber: "4417", RoutingNumber: "124003116",
			Verified: true, Country: "US", Verification: goldenVerificationWant()},
		Amount: "1520.33", Available: "1500.00", Currency: models.USD,
	}

	address := `{"address1":"1 Golden Way","city":"Springfield","state":"IL","zip":"62701","country":"US"}`
	addressWant := models.Address{Address1: "1 Golden Way", City: "Springfield", State: "IL", Zip: "62701", Country: "US"}

	accountBody := func(n func(int64) string) string {
		return fmt.Sprintf(`{"nameOnAccount":"Pat Example","type":%s,"profile":%s,"accountNumber":"5678","routingNumber":"124003116",
  "token":"tok_gold_1","accountId":"ACC-G-1","verified":true,"verification":%s}`, n(1), n(2), goldenVerificationBody(n))
	}
	vip := 2
	tokenWantAccount := &models.Account{NameOnAccount: "Pat Example", Type: 1, Profile: 2, AccountNumber: "5678", RoutingNumber: "124003116",
		Token: "tok_gold_1", AccountID: "ACC-G-1", Verified: true, Verification: goldenVerificationWant()}

	customerBody := func(n func(int64) string) string {
		return fmt.Sprintf(`{"customerId":"CUS-G-1","externalId":"ext-77","merchantId":"1002463580","name":"Pat Example",
  "email":"pat@example.test","phone":"+15550100","address":%s,"vip":%s,"enrollDate":%d,"createdAt":%s,"customData":{"k":"v"}}`,
			address, n(2), goldenTime, n(goldenTime))
	}
	customerWant := &models.Customer{CustomerID: "CUS-G-1", ExternalID: "ext-77", Name: "Pat Example", Email: "pat@example.test",
		Phone: "+15550100", Address: &addressWant, VIP: &vip, EnrollDate: strconv.FormatInt(goldenTime, 10),
		MerchantID: "1002463580", CreatedAt: models.EpochMillis(goldenTime)}

	detailBody := func(n func(int64) string, sourceObject bool) string {
		source := fmt.Sprintf(`"source":"bank","sourceType":%s`, n(1))
		if sourceObject {
			source = fmt.Sprintf(`"source":{"name":"bank","type":%s}`, n(1))
		}
		return fmt.Sprintf(`{"verification":[{"verificationName":"KYC","result":%s,"reasons":[{"code":%s,"reason":"matched"}],"screeningResult":[]}],
  "attribute":[{"name":"email",%s,"createdAt":%s,"verified":true,"link":"x",
    "verification":[{"trustedEntity":"bank","verificationType":%s,"verificationMethod":%s,"result":%s,"verifiedAt":%s}]}]}`,
			n(1), n(-1), source, n(goldenTime), n(1), n(2), n(1), n(goldenTime2))
	}
	detailWant := &models.VerificationDetail{
		Verification: []models.VerificationResult{{VerificationName: "KYC", Result: 1, Reasons: []models.VerificationReason{{Code: -1, Reason: "matched"}}}},
		Attribute: []models.VerifiedAttribute{{Name: "email", Source: "bank", SourceType: 1, CreatedAt: models.EpochMillis(goldenTime), Verified: true,
			Verification: []models.AttributeVerification{{TrustedEntity: "bank", VerificationType: 1, VerificationMethod: 2, Result: 1,
				VerifiedAt: models.EpochMillis(goldenTime2)}}}},
	}

	return []goldenCase{
		establish,
		txn("Get", "GET", "/api/v1/transactions/TXG000000000071", 1, func(ctx context.Context, c *Client) (any, error) {
			return c.Transactions.Get(ctx, "TXG000000000071")
		}),
		txn("Deposit", "POST", "/api/v1/transactions/TXG000000000070/deposit", 6, func(ctx context.Context, c *Client) (any, error) {
			return c.Transactions.Deposit(ctx, "TXG000000000070", &DepositParams{MerchantReference: "gold-ref-1", Amount: "25.00"})
		}),
		txn("Capture", "POST", "/api/v1/transactions/TXG000000000070/capture", 3, func(ctx context.Context, c *Client) (any, error) {
			return c.Transactions.Capture(ctx, "TXG000000000070", &CaptureParams{MerchantReference: "gold-ref-1", Amount: "25.00",
				Beneficiary: minimalBeneficiary()})
		}),
		{name: "Accounts.Balance", method: "GET", path: "/api/v1/transactions/T9/payment/paymentProvider/account/balance",
			bare: balanceBody, wrap: wrapIn("accountBalance"), want: balanceWant,
			call: func(ctx context.Context, c *Client) (any, error) { return c.Accounts.Balance(ctx, "T9") }},
		{name: "Accounts.User", method: "GET", path: "/api/v1/transactions/T9/payment/paymentProvider/user",
			bare: func(n func(int64) string) string {
				return fmt.Sprintf(`{"fingerprint":"fp-1","name":["Pat Example","P. Example"],"address":[%s],"phone":["+15550100"],
  "email":["pat@example.test"],"createdAt":%s,"segmentedName":{"firstName":"Pat","middleName":["Q"],"lastName":"Example"}}`, address, n(goldenTime))
			},
			wrap: wrapIn("user"),
			want: &models.BankUser{Name: []string{"Pat Example", "P. Example"}, Address: []models.Address{addressWant}, Phone: []string{"+15550100"},
				Email: []string{"pat@example.test"}, CreatedAt: models.EpochMillis(goldenTime),
				SegmentedName: &models.SegmentedName{FirstName: "Pat", MiddleName: []string{"Q"}, LastName: "Example"}},
			call: func(ctx context.Context, c *Client) (any, error) { return c.Accounts.User(ctx, "T9") }},
		{name: "Accounts.Summary", method: "GET", path: "/api/v1/transactions/T9/accountSummary",
			bare: func(n func(int64) string) string {
				return fmt.Sprintf(`{"customerId":"CUS-G-1","lastUpdated":%s,"summary":[{"selectedAccount":true,"currency":"USD",
  "nameOnAccount":"Pat Example","accountNumber":"4417","routingNumber":"124003116","aggregations":[{"days":%s,
  "activityEarliestDate":%s,"activityLatestDate":%s,"balanceMax":"900.10","balanceMin":"-12.00","balanceAvg":"410.55",
  "depositCount":%s,"depositAmountTotal":"1200.00","depositAmountMax":"600.00","withdrawalCount":%s,
  "withdrawalAmountTotal":"800.00","withdrawalAmountMax":"300.00","overdraftCount":%s,"overdraftAmountTotal":"12.00",
  "nsfCount":%s,"nsfFeeAmountTotal":"35.00"}]}]}`, n(goldenTime2), n(30), n(goldenTime), n(goldenTime2), n(4), n(9), n(1), n(1))
			},
			want: &models.AccountSummary{CustomerID: "CUS-G-1", LastUpdated: models.EpochMillis(goldenTime2), Summary: []models.AccountEntry{{
				SelectedAccount: true, Currency: models.USD, NameOnAccount: "Pat Example", AccountNumber: "4417", RoutingNumber: "124003116",
				Aggregations: []models.Aggregation{{Days: 30, ActivityEarliestDate: models.EpochMillis(goldenTime),
					ActivityLatestDate: models.EpochMillis(goldenTime2), BalanceMax: "900.10", BalanceMin: "-12.00", BalanceAvg: "410.55",
					DepositCount: 4, DepositAmountTotal: "1200.00", DepositAmountMax: "600.00", WithdrawalCount: 9,
					WithdrawalAmountTotal: "800.00", WithdrawalAmountMax: "300.00", OverdraftCount: 1, OverdraftAmountTotal: "12.00",
					NSFCount: 1, NSFFeeAmountTotal: "35.00"}}}}},
			call: func(ctx context.Context, c *Client) (any, error) { return c.Accounts.Summary(ctx, "T9") }},
		{name: "Accounts.Tokenize", method: "POST", path: "/api/v1/accounts/tokenize",
			bare: accountBody,
			wrap: func(bare string, n func(int64) string) string {
				return fmt.Sprintf(`{"merchantId":"1002463580","account":%s,"customer":{"name":"Pat Example","vip":%s}}`, bare, n(2))
			},
			want: &models.Tokenization{MerchantID: "1002463580", Account: tokenWantAccount,
				Customer: &models.Customer{Name: "Pat Example", VIP: &vip}},
			wantBare: &models.Tokenization{Account: tokenWantAccount},
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Accounts.Tokenize(ctx, &TokenizeParams{AccountNumber: "5678", RoutingNumber: "124003116"})
			}},
		{name: "Customers.Update", method: "POST", path: "/api/v1/customers/CUS-G-1",
			bare: customerBody, wrap: wrapIn("customer"), want: customerWant,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Customers.Update(ctx, "CUS-G-1", &CustomerParams{VIP: &vip, Name: "Pat Example"})
			}},
		{name: "Customers.UpdateByExternalID", method: "POST", path: "/api/v1/customers",
			bare: customerBody, wrap: wrapIn("customer"), want: customerWant,
			call: func(ctx context.Context, c *Client) (any, error) {
				return c.Customers.UpdateByExternalID(ctx, "ext-77", &CustomerParams{VIP: &vip, Name: "Pat Example"})
			}},
		{name: "Identity.User", method: "GET", path: "/api/v1/transactions/T9/user",
			bare: func(n func(int64) string) string {
				return fmt.Sprintf(`{"name":"Pat Example","address":[%s],"phone":["+15550100"],"email":["pat@example.test"],
  "dateOfBirth":"1990-02-03","taxId":"000-00-0000","deceased":false,"driverLicense":{"number":"D000-0000","state":"IL"},
  "eligible":true,"createdAt":%s,"updatedAt":%s}`, address, n(goldenTime), n(goldenTime2))
			},
			wrap: wrapIn("user"),
			want: &models.IdentityUser{Name: "Pat Example", Address: []models.Address{addressWant}, Phone: []string{"+15550100"},
				Email: []string{"pat@example.test"}, DateOfBirth: "1990-02-03", TaxID: "000-00-0000",
				DriverLicense: &models.DriverLicense{Number: "D000-0000", State: "IL"}, Eligible: true,
				CreatedAt: models.EpochMillis(goldenTime), UpdatedAt: models.EpochMillis(goldenTime2)},
			call: func(ctx context.Context, c *Client) (any, error) { return c.Identity.User(ctx, "T9") }},
		{name: "Identity.Detail", method: "GET", path: "/api/v1/transactions/T9/user/detail",
			// The spec writes source as a string beside sourceType, the
			// OpenAPI as an object: the wrapped variant carries the first,
			// the bare one the second.
			bare: func(n func(int64) string) string { return detailBody(n, true) },
			wrap: func(_ string, n func(int64) string) string { return `{"detail":` + detailBody(n, false) + `}` },
			want: detailWant,
			call: func(ctx context.Context, c *Client) (any, error) { return c.Identity.Detail(ctx, "T9") }},
	}
}

func TestWireGolden(t *testing.T) {
	for _, gc := range goldenCases() {
		for _, enc := range numEncs {
			shapes := []string{"bare"}
			if gc.wrap != nil {
				shapes = append(shapes, "wrapped")
			}
			for _, shape := range shapes {
				t.Run(gc.name+"/"+shape+"/"+enc.name, func(t *testing.T) {
					body := gc.bare(enc.n)
					want := gc.want
					if shape == "wrapped" {
						body = gc.wrap(body, enc.n)
					} else if gc.wantBare != nil {
						want = gc.wantBare
					}
					c, mock, _ := newTestClient(t)
					var calls int
					mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
						calls++
						assert.Equal(t, gc.method, req.Method)
						assert.Equal(t, gc.path, req.URL.EscapedPath())
						resp := httpmock.NewStringResponse(http.StatusOK, body)
						resp.Header.Set("Content-Type", "application/json")
						return resp, nil
					})
					got, err := gc.call(context.Background(), c)
					require.NoError(t, err, body)
					assert.Equal(t, 1, calls)
					assert.Equal(t, want, got)
				})
			}
		}
	}
}

// Required means present: every call that reports a transaction fails
// with ErrInvalidResponse, "the service accepted it: reconcile, do not pay
// again", when the response has no transaction id, an empty one, no
// transaction at all, or no status. An absent status never reads as New.
func TestMoneyCallsRequireTheirIdentity(t *testing.T) {
	calls := map[string]bool{"Transactions.Deposit": true, "Transactions.Capture": true, "Transactions.Refund": true,
		"Transactions.Reclaim": true, "Transactions.Cancel": true, "Transactions.Preauthorize": true,
		"Transactions.Establish": true, "Transactions.Refresh": true, "Transactions.Get": true}
	bodies := map[string]string{
		"empty wrapper":     `{"transaction":{}}`,
		"empty id":          `{"transaction":{"transactionId":"","transactionType":6,"status":2,"amount":"1.00"}}`,
		"null id":           `{"transaction":{"transactionId":null,"transactionType":6,"status":2,"amount":"1.00"}}`,
		"empty object":      `{}`,
		"no status":         `{"transaction":{"transactionId":"T1","transactionType":6,"amount":"1.00"}}`,
		"null status":       `{"transaction":{"transactionId":"T1","transactionType":6,"status":null,"amount":"1.00"}}`,
		"empty status":      `{"transaction":{"transactionId":"T1","transactionType":6,"status":"","amount":"1.00"}}`,
		"bare no status":    `{"transactionId":"T1","transactionType":6,"amount":"1.00"}`,
		"no type":           `{"transaction":{"transactionId":"T1","status":2,"amount":"1.00"}}`,
		"no amount":         `{"transaction":{"transactionId":"T1","transactionType":6,"status":2}}`,
		"bare empty id":     `{"transactionId":"","transactionType":6,"status":2,"amount":"1.00"}`,
		"status a sentence": `{"transaction":{"transactionId":"T1","transactionType":6,"status":"all good","amount":"1.00"}}`,
	}
	seen := 0
	for _, e := range endpoints() {
		if !calls[e.name] {
			continue
		}
		seen++
		for name, body := range bodies {
			t.Run(e.name+"/"+name, func(t *testing.T) {
				c, mock, _ := newTestClient(t)
				expect(t, mock, e.want("1002581234567"), 200, body)
				err := e.call(context.Background(), c, "1002581234567")
				require.ErrorIs(t, err, ErrInvalidResponse, body)
				var re *ResponseError
				require.ErrorAs(t, err, &re, body)
			})
		}
	}
	require.Equal(t, len(calls), seen, "every call of the table has its endpoints() row")
}

// The same answers read whole succeed: the table above fails on the
// identity alone.
func TestMoneyCallsIdentityPresent(t *testing.T) {
	txn, err := decodeResponse[models.Transaction]([]byte(`{"transactionId":"T1","transactionType":"Deposit","status":"Authorized","amount":"1.00"}`), "transaction", "GET", "/p")
	require.NoError(t, err)
	assert.Equal(t, &models.Transaction{TransactionID: "T1", TransactionType: models.TypeDeposit, Status: models.StatusAuthorized, Amount: "1.00"}, txn)
	txn, err = decodeResponse[models.Transaction]([]byte(`{"transaction":{"transactionId":"T1","transactionType":6.0,"status":"02","amount":1}}`), "transaction", "GET", "/p")
	require.NoError(t, err)
	assert.Equal(t, models.StatusAuthorized, txn.Status)
	assert.Equal(t, models.Amount("1.00"), txn.Amount)
}
