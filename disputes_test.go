package bankpay

import (
	"context"
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/jarcoal/httpmock"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const disputePath = "/api/v1/collections/recovery/dispute"

// disputeResponseJSON is the recovery transaction, bare as the OpenAPI
// shows it.
const disputeResponseJSON = `{"transactionId":"1002600000077","transactionType":8,"originalTransactionId":"1002593555",
  "currency":"USD","amount":"12.50","status":2.0,"statusMessage":"Authorized","createdAt":1700000900000}`

const disputeBody = `{"transactionId":"1002593555","amount":"12.50"}`

var uuidV4 = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

// recordKeys responds to every request with the responders in turn (the
// last one again when they run out), checking the request, and records
// each Idempotency-Key sent.
func recordKeys(t *testing.T, mock *httpmock.MockTransport, rs ...httpmock.Responder) *[]string {
	t.Helper()
	var keys []string
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		checkRequest(t, req, wantRequest{Method: "POST", Path: disputePath, ContentType: "application/json", Body: disputeBody})
		assert.Len(t, req.Header.Values("Idempotency-Key"), 1)
		keys = append(keys, req.Header.Get("Idempotency-Key"))
		r := rs[min(len(keys), len(rs))-1]
		return r(req)
	})
	return &keys
}

func disputeParams() *DisputeParams {
	return &DisputeParams{TransactionID: "1002593555", Amount: "12.50"}
}

func TestDisputes_Create(t *testing.T) {
	for name, body := range map[string]string{
		"bare":    disputeResponseJSON,
		"wrapped": `{"transaction":` + disputeResponseJSON + `}`,
	} {
		t.Run(name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			keys := recordKeys(t, mock, jsonResponse(200, body))
			p := disputeParams()
			p.IdempotencyKey = "dispute 1002593555/1"
			txn, err := c.Disputes.Create(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, []string{"dispute 1002593555/1"}, *keys, "the given key is sent as is")
			assert.Equal(t, "1002600000077", txn.TransactionID)
			assert.Equal(t, models.TypeRepresentment, txn.TransactionType)
			assert.Equal(t, "1002593555", txn.OriginalTransactionID)
			assert.Equal(t, models.Amount("12.50"), txn.Amount)
			assert.Equal(t, models.StatusAuthorized, txn.Status)
			assert.Equal(t, "dispute 1002593555/1", p.IdempotencyKey, "the params are not modified")
		})
	}
}

// Without a key, each call sends a new random one (a version 4 UUID).
func TestDisputes_CreateGeneratesKeys(t *testing.T) {
	c, mock, _ := newTestClient(t)
	keys := recordKeys(t, mock, jsonResponse(200, disputeResponseJSON))
	p := disputeParams()
	for range 3 {
		_, err := c.Disputes.Create(context.Background(), p)
		require.NoError(t, err)
	}
	require.Len(t, *keys, 3)
	for _, k := range *keys {
		assert.Regexp(t, uuidV4, k)
	}
	assert.NotEqual(t, (*keys)[0], (*keys)[1])
	assert.NotEqual(t, (*keys)[1], (*keys)[2])
	assert.NotEqual(t, (*keys)[0], (*keys)[2])
	assert.Empty(t, p.IdempotencyKey, "the generated key is not written into the params")
}

// Create is retried like a read, every attempt with the same key.
func TestDisputes_CreateRetriesWithTheSameKey(t *testing.T) {
	unavailable := jsonResponse(503, `{"errors":[{"code":100,"message":"unavailable"}]}`, "Retry-After", "2")
	for _, tc := range []struct {
		name  string
		first httpmock.Responder
		key   string
	}{
		{"503 then 200, generated key", unavailable, ""},
		{"503 then 200, given key", unavailable, "order-42-dispute"},
		{"connection reset after sending", httpmock.NewErrorResponder(errors.New("connection reset by peer")), ""},
		{"2xx body cut short", func(*http.Request) (*http.Response, error) {
			resp := httpmock.NewStringResponse(200, "")
			resp.Body = io.NopCloser(io.MultiReader(strings.NewReader(`{"transactionId":"10026`), errReader{io.ErrUnexpectedEOF}))
			return resp, nil
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, w := newTestClient(t)
			keys := recordKeys(t, mock, tc.first, jsonResponse(200, disputeResponseJSON))
			p := disputeParams()
			p.IdempotencyKey = tc.key
			txn, err := c.Disputes.Create(context.Background(), p)
			require.NoError(t, err)
			assert.Equal(t, "1002600000077", txn.TransactionID)
			require.Len(t, *keys, 2, "two attempts")
			assert.Equal(t, (*keys)[0], (*keys)[1], "the retry sends the same key")
			if tc.key != "" {
				assert.Equal(t, tc.key, (*keys)[0])
			}
			assert.Len(t, w.list, 1)
		})
	}
}

type errReader struct{ err error }

func (r errReader) Read([]byte) (int, error) { return 0, r.err }

// A 5xx on every attempt: retried up to the limit, always with one key,
// then the last response's *APIError.
func TestDisputes_CreateGivesUp(t *testing.T) {
	c, mock, _ := newTestClient(t)
	keys := recordKeys(t, mock, jsonResponse(500, `{"errors":[{"domain":"Internal","code":100,"message":"internal error"}]}`))
	_, err := c.Disputes.Create(context.Background(), disputeParams())
	apiErr := &APIError{}
	require.ErrorAs(t, err, &apiErr)
	assert.ErrorIs(t, err, ErrServer)
	assert.Equal(t, 1+defaultMaxRetries, apiErr.Attempts)
	require.Len(t, *keys, 1+defaultMaxRetries)
	for _, k := range *keys {
		assert.Equal(t, (*keys)[0], k)
	}
}

// The call's key replaces an Idempotency-Key given with WithHeader.
func TestDisputes_CreateKeyReplacesWithHeader(t *testing.T) {
	_, err := NewClient(testCreds, WithHeader("Idempotency-Key", "from-option"))
	var ve *ValidationError
	require.ErrorAs(t, err, &ve, "an Idempotency-Key header option is refused: the call's key would replace it")
	assert.Equal(t, "header", ve.Field)
	c, mock, _ := newTestClient(t, WithHeader("X-Trace", "t-1"))
	var trace string
	keys := recordKeys(t, mock, func(req *http.Request) (*http.Response, error) {
		trace = req.Header.Get("X-Trace")
		return jsonResponse(200, disputeResponseJSON)(req)
	})
	p := disputeParams()
	p.IdempotencyKey = "from-params"
	_, err = c.Disputes.Create(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, []string{"from-params"}, *keys)
	assert.Equal(t, "t-1", trace)
}

// 4xx responses are not retried: a key used with another body (422 in the
// sandbox), a bad parameter, an unknown transaction.
func TestDisputes_CreateErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		code   int
		is     error
	}{
		{"422 key reused with another body", 422, `{"errors":[{"domain":"Validation","code":200,"message":"Idempotency-Key was used with another request"}]}`, 200, ErrBadRequest},
		{"400 invalid parameter", 400, `{"errors":[{"domain":"Validation","code":200,"message":"amount exceeds the amount returned"}]}`, 200, ErrBadRequest},
		{"400 bare BaseException", 400, `{"domain":"Validation","code":200.0,"message":"Invalid parameter"}`, 200, ErrBadRequest},
		{"401 access control", 401, `{"errors":[{"domain":"Security","code":375,"message":"access denied"}]}`, 375, ErrUnauthorized},
		{"404", 404, `{"errors":[{"domain":"Validation","code":200,"message":"transaction not found"}]}`, 200, ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, w := newTestClient(t)
			keys := recordKeys(t, mock, jsonResponse(tc.status, tc.body))
			_, err := c.Disputes.Create(context.Background(), disputeParams())
			apiErr := &APIError{}
			require.ErrorAs(t, err, &apiErr)
			assert.ErrorIs(t, err, tc.is)
			assert.Equal(t, tc.status, apiErr.StatusCode)
			assert.Equal(t, tc.code, apiErr.Code)
			assert.Equal(t, "POST", apiErr.Method)
			assert.Equal(t, "/collections/recovery/dispute", apiErr.Path)
			assert.Len(t, *keys, 1)
			assert.Empty(t, w.list)
			assertNoSecret(t, err.Error())
		})
	}
}

// A 2xx the SDK cannot read is a *ResponseError (a whole body that is not
// a transaction is not retried).
func TestDisputes_CreateUndecodable(t *testing.T) {
	for _, body := range []string{``, `<html>ok</html>`, `{"transactionId":"1002600000077"`, `{"transaction":null}`, `{}`} {
		c, mock, _ := newTestClient(t)
		keys := recordKeys(t, mock, jsonResponse(200, body))
		_, err := c.Disputes.Create(context.Background(), disputeParams())
		var re *ResponseError
		require.ErrorAs(t, err, &re, body)
		assert.ErrorIs(t, err, ErrInvalidResponse)
		assert.Len(t, *keys, 1, body)
	}
}

func TestDisputes_CreateRejects(t *testing.T) {
	with := func(f func(*DisputeParams)) *DisputeParams {
		p := disputeParams()
		f(p)
		return p
	}
	for _, tc := range []struct {
		name  string
		p     *DisputeParams
		field string
	}{
		{"nil params", nil, "disputeParams"},
		{"no transactionId", with(func(p *DisputeParams) { p.TransactionID = "" }), "transactionId"},
		{"transactionId dot-dot", with(func(p *DisputeParams) { p.TransactionID = ".." }), "transactionId"},
		{"transactionId control character", with(func(p *DisputeParams) { p.TransactionID = "1\n2" }), "transactionId"},
		{"no amount", with(func(p *DisputeParams) { p.Amount = "" }), "amount"},
		{"amount without places", with(func(p *DisputeParams) { p.Amount = "12" }), "amount"},
		{"amount zero", with(func(p *DisputeParams) { p.Amount = "0.00" }), "amount"},
		{"amount negative", with(func(p *DisputeParams) { p.Amount = "-1.00" }), "amount"},
		{"amount over 10 characters", with(func(p *DisputeParams) { p.Amount = "12345678.00" }), "amount"},
		{"key blank", with(func(p *DisputeParams) { p.IdempotencyKey = "   " }), "Idempotency-Key"},
		{"key tab only", with(func(p *DisputeParams) { p.IdempotencyKey = "\t" }), "Idempotency-Key"},
		{"key too long", with(func(p *DisputeParams) { p.IdempotencyKey = strings.Repeat("k", 256) }), "Idempotency-Key"},
		{"key with newline", with(func(p *DisputeParams) { p.IdempotencyKey = "abc\r\nX-Injected: 1" }), "Idempotency-Key"},
		{"key with NUL", with(func(p *DisputeParams) { p.IdempotencyKey = "abc\x00" }), "Idempotency-Key"},
		{"key with DEL", with(func(p *DisputeParams) { p.IdempotencyKey = "abc\x7f" }), "Idempotency-Key"},
		{"key not ASCII", with(func(p *DisputeParams) { p.IdempotencyKey = "clé-1" }), "Idempotency-Key"},
		{"key leading space", with(func(p *DisputeParams) { p.IdempotencyKey = " abc" }), "Idempotency-Key"},
		{"key trailing space", with(func(p *DisputeParams) { p.IdempotencyKey = "abc " }), "Idempotency-Key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkRejected(t, tc.field, func(c *Client) error {
				_, err := c.Disputes.Create(context.Background(), tc.p)
				return err
			})
		})
	}
}

// The longest key and one with inner spaces and punctuation are sent as is.
func TestDisputes_CreateAcceptsKeys(t *testing.T) {
	for _, key := range []string{strings.Repeat("k", 255), "a", `order 42: "dispute" #1 ~!@$%^&*()`} {
		c, mock, _ := newTestClient(t)
		keys := recordKeys(t, mock, jsonResponse(200, disputeResponseJSON))
		p := disputeParams()
		p.IdempotencyKey = key
		_, err := c.Disputes.Create(context.Background(), p)
		require.NoError(t, err)
		assert.Equal(t, []string{key}, *keys)
	}
}

// A caller's WithHeader("Idempotency-Key", K) on Disputes.Create is
// silently replaced by a random key: the same call repeated after a restart
// is a second dispute recovery.
func TestDisputes_CreateWithHeaderIdempotencyKeyIgnored(t *testing.T) {
	var got []string
	c := serverClient(t, func(w http.ResponseWriter, r *http.Request) {
		got = append(got, r.Header.Values("Idempotency-Key")...)
		_, _ = w.Write([]byte(`{"transaction":{"transactionId":"R1","transactionType":8,"status":2,"amount":"1.00"}}`))
	})
	_, err := c.Disputes.Create(context.Background(), &DisputeParams{TransactionID: "T1", Amount: "1.00"},
		WithHeader("Idempotency-Key", "order-42"))
	// Fixed: the header option is refused before anything is sent; the key
	// goes in DisputeParams.IdempotencyKey.
	var ve *ValidationError
	if assert.ErrorAs(t, err, &ve, "Idempotency-Key by header: err %v, sent %q; want a *ValidationError on header and nothing sent", err, got) {
		assert.Equal(t, "header", ve.Field, "Idempotency-Key by header: err %v, sent %q; want a *ValidationError on header and nothing sent", err, got)
	}
	assert.Empty(t, got, "Idempotency-Key by header: err %v, sent %q; want a *ValidationError on header and nothing sent", err, got)
}
