package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/models"
	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var allCalls = []string{callGet, callDeposit, callList, callSummary, callTokenize}

// TestClientsAgree runs each benchmarked call of each client once on each
// shape's canned answer and checks what it read: every value the canned
// answer carries in the SDK's models (the values the SDK can return) comes
// back from every client, the same; and wherever two clients both return a
// value, it is the same (codes compared by number: "2" and 2 agree). So no
// client is timed on an answer it fails to read, or reads wrong. The ogen
// client joins a pair only where it reads the answer (shape.ogenReads);
// where it does not, this checks that it indeed fails it.
func TestClientsAgree(t *testing.T) {
	for _, sh := range shapes {
		e := newPairEnv(t, sh)
		for _, name := range allCalls {
			t.Run(sh.name+"/"+name, func(t *testing.T) {
				c := e.call(sh, name)
				want := flatten(t, expected(sh, name))
				require.NotEmpty(t, want)
				got := map[string]map[string]string{}
				for _, s := range []struct {
					client string
					call   func() (any, error)
				}{{"sdk", c.sdk}, {"baseline", c.base}, {"ogen", c.ogen}} {
					v, err := s.call()
					if s.client == "ogen" && !sh.ogenReads[name] {
						assert.False(t, err == nil && covers(flatten(t, reading(name, sh, v)), want),
							"ogen reads the %s answer in the %s shape: add it to that shape's ogenReads", name, sh.name)
						continue
					}
					require.NoError(t, err, "%s", s.client)
					got[s.client] = flatten(t, reading(name, sh, v))
					for k, w := range want {
						assert.Equal(t, w, got[s.client][k], "%s: %s", s.client, k)
					}
				}
				for _, other := range []string{"baseline", "ogen"} {
					for k, v := range got[other] {
						if sv, ok := got["sdk"][k]; ok {
							assert.Equal(t, sv, v, "sdk and %s differ at %s", other, k)
						}
					}
				}
			})
		}
	}
}

// expected is what the named call's canned answer in shape sh carries in
// the SDK's models, laid out as reading lays out a client's result.
func expected(sh shape, name string) any {
	tx := cannedTransaction
	if sh.name != "spec" {
		tx = openapiTransaction
	}
	switch name {
	case callGet:
		return tx(models.TypeAuthorize)
	case callDeposit:
		return tx(models.TypeDeposit)
	case callList:
		return listPage(tx)
	case callSummary:
		return cannedSummary()
	case callTokenize:
		if sh.name == "spec" {
			return cannedTokenization()
		}
		return openapiTokenization().Account
	}
	panic("bench: no call " + name)
}

// reading is a client's result v of the named call laid out as the answer
// of shape sh: a list page as {"transactions":[…]}, the SDK's tokenization
// as the bare account in the OpenAPI's shape.
func reading(name string, sh shape, v any) any {
	switch r := v.(type) {
	case *bankpay.Page[models.Transaction]:
		return map[string][]models.Transaction{"transactions": r.Items}
	case []models.Transaction:
		return map[string][]models.Transaction{"transactions": r}
	case *models.Tokenization:
		if sh.name != "spec" && name == callTokenize {
			return r.Account
		}
	}
	return v
}

// flatten is v as encoding/json writes it (through its MarshalJSON, for
// ogen's types), as path → value text ("payment.account.type" → "1",
// "transactions[3].status" → "2"): numbers and numeric strings in one
// form, empty values ("", 0, false, null, {}, []) left out.
func flatten(t *testing.T, v any) map[string]string {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var x any
	require.NoError(t, d.Decode(&x))
	out := map[string]string{}
	flattenInto(out, "", x)
	return out
}

func flattenInto(out map[string]string, path string, x any) {
	switch v := x.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			flattenInto(out, p, v[k])
		}
	case []any:
		for i, e := range v {
			flattenInto(out, fmt.Sprintf("%s[%d]", path, i), e)
		}
	case json.Number:
		if f, err := strconv.ParseFloat(v.String(), 64); err == nil && f != 0 {
			out[path] = strconv.FormatFloat(f, 'f', -1, 64)
		}
	case string:
		if v != "" {
			out[path] = v
		}
	case bool:
		if v {
			out[path] = "true"
		}
	}
}

// covers reports whether got has every value of want.
func covers(got, want map[string]string) bool {
	for k, w := range want {
		if got[k] != w {
			return false
		}
	}
	return true
}

func TestWebhookPairAgrees(t *testing.T) {
	var got []string
	sdk := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		got = append(got, "sdk:"+ev.EventID+":"+ev.Transaction.Status.String())
		return nil
	})
	base := bareWebhook(creds.AccessID, creds.AccessKey.Reveal(), func(_ context.Context, ev *bareEvent) error {
		got = append(got, "base:"+ev.EventID+":"+ev.Fields.Get("statusMessage"))
		return nil
	})
	auth := eventAuthorization(t)
	tampered := bytes.Replace(eventBody, []byte("status=2"), []byte("status=4"), 1)
	for _, c := range []struct {
		body []byte
		want int
	}{{eventBody, http.StatusOK}, {tampered, http.StatusUnauthorized}} {
		for name, h := range map[string]http.Handler{"sdk": sdk, "baseline": base} {
			r := httptest.NewRequest(http.MethodPost, "/bankpay/events", bytes.NewReader(c.body))
			r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			r.Header.Set("Authorization", auth)
			w := httptest.NewRecorder()
			h.ServeHTTP(w, r)
			assert.Equal(t, c.want, w.Code, "%s: status %d, want %d", name, w.Code, c.want)
		}
	}
	require.Len(t, got, 2, "callbacks: %v", got)
	require.Contains(t, strings.Join(got, " "), "sdk:1002581299999:Authorized", "callbacks: %v", got)
	require.Contains(t, strings.Join(got, " "), "base:1002581299999:Authorized", "callbacks: %v", got)
}

func TestSignaturePairsAgree(t *testing.T) {
	c, err := bankpay.NewClient(creds)
	require.NoError(t, err)
	d, bd := establishData(), establishData()
	require.NoError(t, c.SignEstablishData(d))
	bareSign(bd, creds.AccessID, creds.MerchantID, creds.AccessKey.Reveal())
	require.NotEmpty(t, d.RequestSignature, "signatures differ: sdk %q, baseline %q", d.RequestSignature, bd.RequestSignature)
	require.Equal(t, bd.RequestSignature, d.RequestSignature, "signatures differ: sdk %q, baseline %q", d.RequestSignature, bd.RequestSignature)

	r, err := bankpay.VerifyRedirect(redirectURL, creds)
	require.NoError(t, err)
	br, err := bareVerifyRedirect(redirectURL, creds.AccessKey.Reveal())
	require.NoError(t, err, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.TransactionID, br.TransactionID, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, int(r.Status), br.Status, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.Panel, br.Panel, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.InstantPayoutAvailable, br.InstantPayout, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.AccountVerified, br.Verified, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, string(r.ProviderTransactionStatus), br.PPTStatus, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, "true", br.Unsigned.Get("instantPayoutAvail"), "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	require.Equal(t, r.Unsigned, br.Unsigned, "redirect: sdk %+v, baseline %+v, %v", r, br, err)
	forged := strings.Replace(redirectURL, "status=2", "status=4", 1)
	_, err = bankpay.VerifyRedirect(forged, creds)
	assert.Error(t, err, "sdk accepted a forged redirect")
	_, err = bareVerifyRedirect(forged, creds.AccessKey.Reveal())
	assert.Error(t, err, "baseline accepted a forged redirect")
}

func TestSandboxMixRuns(t *testing.T) {
	e := newSandboxEnv(t)
	for i := uint64(0); i < 8; i++ {
		err := e.mixed(ctx, i)
		require.NoError(t, err, "call %d: %v", i, err)
	}
}

// openapiFile is the operator's OpenAPI, beside the repository (as for the
// contract suite and bench/ogenclient); $BANKPAY_OPENAPI overrides it.
func openapiFile() string {
	if p := os.Getenv("BANKPAY_OPENAPI"); p != "" {
		return p
	}
	return "../../shared/reference/operator-openapi.yml"
}

// TestOpenAPIAnswersValid validates every canned answer of the OpenAPI's
// shape against its operation's 200 answer in the operator's OpenAPI, with
// pb33f/libopenapi-validator in strict mode (an undeclared property is an
// error) and format assertions, as the contract suite does.
func TestOpenAPIAnswersValid(t *testing.T) {
	src, err := os.ReadFile(openapiFile())
	require.NoError(t, err, "the operator's OpenAPI (../shared/reference/operator-openapi.yml beside the repository, or $BANKPAY_OPENAPI)")
	doc, err := libopenapi.NewDocument(src)
	require.NoError(t, err)
	v, errs := validator.NewValidator(doc, config.WithFormatAssertions(), config.WithStrictMode())
	require.Empty(t, errs)
	a := openapiAnswers()
	for _, c := range []struct {
		name, method, path string
		body               []byte
	}{
		{callGet, http.MethodGet, pathTransaction, a.transaction},
		{callDeposit, http.MethodPost, pathDeposit, a.deposit},
		{callList, http.MethodGet, pathTransactions + "?startIndex=0&count=100", a.list},
		{callSummary, http.MethodGet, pathSummary, a.summary},
		{callTokenize, http.MethodPost, pathTokenize + "?verifyAccount=true", a.tokenize},
	} {
		t.Run(c.name, func(t *testing.T) {
			req := httptest.NewRequest(c.method, "https://sandbox.trustly.one"+c.path, nil)
			resp := &http.Response{StatusCode: http.StatusOK, Request: req, Body: io.NopCloser(bytes.NewReader(c.body)),
				Header: http.Header{"Content-Type": {"application/json"}}}
			ok, errs := v.ValidateHttpResponse(req, resp)
			require.True(t, ok, "%s %s: %s", c.method, c.path, describe(errs))
			require.Empty(t, errs)
		})
	}
}

// describe is the validator's errors, with each schema violation's reason
// and place.
func describe(errs []*verrors.ValidationError) string {
	var b bytes.Buffer
	for _, e := range errs {
		fmt.Fprintf(&b, "\n%s: %s", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n  %s: %s", s.FieldPath, s.Reason)
		}
	}
	return b.String()
}
