package contract

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type cmpInner struct {
	Code  int    `json:"code"`
	Label string `json:"label,omitempty"`
}

type cmpModel struct {
	ID      string     `json:"id"`
	Count   int        `json:"count"`
	Tier    *int       `json:"tier,omitempty"`
	TierTxt string     `json:"-" wire:"text=tier"`
	Flag    bool       `json:"flag"`
	Items   []string   `json:"items" wire:"anytext"`
	Inner   *cmpInner  `json:"inner,omitempty"`
	List    []cmpInner `json:"list"`
}

// cmpMap is the field map of the test models.
func cmpMap(t *testing.T) *FieldMap {
	t.Helper()
	m, err := ParseFieldMap([]byte(`
contract.cmpModel id ID
contract.cmpModel count Count
contract.cmpModel tier Tier|TierTxt
contract.cmpModel - TierTxt the text of a tier
contract.cmpModel flag Flag
contract.cmpModel items Items
contract.cmpModel inner Inner
contract.cmpModel list List
contract.cmpInner code Code
contract.cmpInner label Label
`), []byte("contract.cmpModel extra not read: a test\n"))
	require.NoError(t, err)
	return m
}

func genOf(t *testing.T, s string) any {
	t.Helper()
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	var v any
	require.NoError(t, d.Decode(&v))
	return v
}

func TestCompare_equalReadings(t *testing.T) {
	two := 2
	got := cmpModel{ID: "7", Count: 7, Tier: &two, Flag: true, Items: []string{"a", `{"v":"b"}`},
		Inner: &cmpInner{Code: 210}, List: []cmpInner{{Code: 1, Label: "x"}}}
	gen := genOf(t, `{"id":7,"count":"7.0","tier":"002","flag":true,"items":["a",{"v":"b"}],"inner":{"code":210.0},
		"list":[{"code":"1","label":"x"}],"extra":{"z":1}}`)
	c := Compare(cmpMap(t), gen, got)
	assert.Empty(t, c.Mismatches)
	assert.True(t, c.Unmodelled["extra"])
	assert.Equal(t, 9, c.Compared) // id count tier flag items×2 inner.code list[0].code,label

	// A tier the typed field cannot hold is kept as text.
	c = Compare(cmpMap(t), genOf(t, `{"tier":"gold"}`), cmpModel{TierTxt: "gold"})
	assert.Empty(t, c.Mismatches)
}

func TestCompare_failsOnDroppedOrChangedValues(t *testing.T) {
	for name, tc := range map[string]struct {
		gen  string
		got  cmpModel
		want string
	}{
		"dropped":        {`{"id":"abc"}`, cmpModel{}, "id: sent"},
		"changed":        {`{"count":8}`, cmpModel{Count: 9}, "count: sent 8"},
		"nested dropped": {`{"inner":{"code":3}}`, cmpModel{}, "inner.code: sent 3"},
		"text lost":      {`{"tier":"gold"}`, cmpModel{}, "tier: sent"},
		"item lost":      {`{"items":["a","b"]}`, cmpModel{Items: []string{"a"}}, "2 items sent, 1 decoded"},
		"object as text": {`{"items":[{"v":"b"}]}`, cmpModel{Items: []string{"b"}}, "items[0]"},
		"plus mangled":   {`{"id":"Ab+cD="}`, cmpModel{ID: "Ab cD="}, "id: sent"},
	} {
		t.Run(name, func(t *testing.T) {
			c := Compare(cmpMap(t), genOf(t, tc.gen), tc.got)
			require.Len(t, c.Mismatches, 1)
			assert.Contains(t, c.Mismatches[0], tc.want)
		})
	}
}

func TestApplyReshape(t *testing.T) {
	gen := genOf(t, `{"detail":{"attribute":[{"name":"n","source":{"name":"bank","type":2,"x":1}},{"name":"m"}]}}`)
	n := ApplyReshape(gen, &Reshape{Path: "detail.attribute[].source", Into: map[string]string{"name": "source", "type": "sourceType"}})
	assert.Equal(t, 1, n)
	b, _ := json.Marshal(gen)
	assert.JSONEq(t, `{"detail":{"attribute":[{"name":"n","source":"bank","sourceType":2,"source.x":1},{"name":"m"}]}}`, string(b))
}

// Values the OpenAPI allows that the SDK once lost: account.type as a
// double (1.0, which dropped the whole account, so Accounts.Balance, whose
// account is required, failed) and a transaction status written as its
// name ("Authorized", which failed a whole list page). Each answer is
// decoded by the SDK and compared value by value with what was sent; the
// account row is also checked valid against the OpenAPI. The status rows
// cannot be: the OpenAPI's status is an enum of numeric strings, and the
// SDK reads the names as well (its words tables), as the spec's summary
// and the service's messages write them.
func TestDecoderRows(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	val := NewValidators(t, spec)
	const txn = `{"transactionId":"1002600000001","transactionType":"6","status":"Authorized","amount":"5.00","currency":"USD"}`
	rows := []struct {
		name, method, path, body string
		openapi                  bool // the answer is valid against the OpenAPI
		call                     func(context.Context, *bankpay.Client) (any, error)
		check                    func(t *testing.T, got any)
	}{
		{"account.type 1.0", http.MethodGet, "/api/v1/transactions/1002600000001/payment/paymentProvider/account/balance",
			`{"accountBalance":{"account":{"type":1.0,"profile":2.0,"name":"Checking","accountNumber":"0009"},"currency":"USD","amount":"10.50"}}`, true,
			func(ctx context.Context, c *bankpay.Client) (any, error) {
				return c.Accounts.Balance(ctx, "1002600000001")
			},
			func(t *testing.T, got any) {
				bal := got.(*models.AccountBalance)
				require.NotNil(t, bal.Account)
				assert.Equal(t, 1, bal.Account.Type)
				assert.Equal(t, 2, bal.Account.Profile)
			}},
		{"status word", http.MethodGet, "/api/v1/transactions/1002600000001", txn, false,
			func(ctx context.Context, c *bankpay.Client) (any, error) {
				return c.Transactions.Get(ctx, "1002600000001")
			},
			func(t *testing.T, got any) {
				assert.Equal(t, models.StatusAuthorized, got.(*models.Transaction).Status)
			}},
		{"status word in a list", http.MethodGet, "/api/v1/transactions", `{"transactions":[` + txn + `]}`, false,
			func(ctx context.Context, c *bankpay.Client) (any, error) {
				return c.Transactions.ListPage(ctx, nil)
			},
			func(t *testing.T, got any) {
				page := got.(*bankpay.Page[models.Transaction])
				require.Len(t, page.Items, 1)
				assert.Equal(t, models.StatusAuthorized, page.Items[0].Status)
			}},
	}
	for _, row := range rows {
		t.Run(row.name, func(t *testing.T) {
			if row.openapi {
				req := httptest.NewRequest(row.method, "https://api.bankpay.test"+row.path, nil)
				resp := &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
					Body: io.NopCloser(bytes.NewReader([]byte(row.body))), Request: req}
				require.Empty(t, val.Answer(req, resp), "the answer is valid against the OpenAPI")
			}

			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				_, _ = w.Write([]byte(row.body))
			}))
			defer srv.Close()
			c, err := bankpay.NewClient(testCreds, bankpay.WithBaseURL(srv.URL+"/api/v1"), bankpay.WithMaxRetries(0))
			require.NoError(t, err)
			got, err := row.call(context.Background(), c)
			require.NoError(t, err)
			row.check(t, got)

			var gen any
			dec := json.NewDecoder(bytes.NewReader([]byte(row.body)))
			dec.UseNumber()
			require.NoError(t, dec.Decode(&gen))
			fieldMap, err := LoadFieldMap()
			require.NoError(t, err)
			sent, result := part(fieldMap, gen, got)
			cmp := Compare(fieldMap, sent, result)
			var others []string
			for _, m := range cmp.Mismatches {
				// Compare knows no names: the status sent as its name is
				// checked as its code above.
				if !row.openapi && strings.HasSuffix(strings.SplitN(m, ":", 2)[0], "status") && strings.Contains(m, `sent "Authorized", got 2`) {
					continue
				}
				others = append(others, m)
			}
			assert.Empty(t, others)
			assert.Positive(t, cmp.Compared)
		})
	}
}
