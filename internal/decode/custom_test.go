package decode

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/jsonr"
	"github.com/bankpay/bankpay-go/models"
)

// tokenizationRef is the reading of a tokenize response the way
// Tokenization read it before TokenizationBuf: the generated member
// functions only, every value in its own allocation. Tokenization must
// agree with it on every input.
func tokenizationRef(data []byte) (*models.Tokenization, []Unset, error) {
	d := get(data)
	defer put(d)
	if k := d.r.Peek(); k != jsonr.Object {
		d.notKind(k, "an object")
		if err := d.r.End(); err != nil {
			return nil, nil, err
		}
		c := d.cause
		return nil, nil, &c
	}
	tok, acct := new(models.Tokenization), new(models.Account)
	var cause *FieldError
	echo := false
	for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
		var held bool
		if i := indexTokenization(k); i >= 0 {
			echo = echo || namesTokenization[i] == "account"
			held = memberTokenization(d, tok, k)
		} else {
			held = memberAccount(d, acct, k)
		}
		if !held && cause == nil {
			c := d.cause
			cause = &c
		}
	}
	if err := d.r.End(); err != nil {
		return nil, nil, err
	}
	if cause != nil {
		return nil, nil, cause
	}
	if echo {
		if tok.Account == nil {
			return nil, nil, errNoAccount
		}
		if tok.Account.Token == "" {
			return nil, nil, &FieldError{Path: "account.token", Want: "a string", Required: true}
		}
		return tok, d.unset, nil
	}
	if zeroAccount(acct) {
		return nil, nil, errNoAccount
	}
	if acct.Token == "" {
		return nil, nil, &FieldError{Path: "token", Want: "a string", Required: true}
	}
	tok.Account = acct
	return tok, d.unset, nil
}

var tokenizationBodies = []string{
	`{"merchantId":"M","account":{"token":"tk","type":1.0,"verification":{"verified":true,"score":9,"type":3}},"customer":{"name":"A"}}`,
	`{"token":"tk","type":"1","verification":{"verified":"true","score":"7","hasEnoughFunds":true},"accountNumber":"0001"}`,
	`{"token":"tk","verification":null,"verification":{"verified":true}}`,
	`{"token":"tk","verification":{"verified":true},"verification":{"score":3}}`,
	`{"token":"tk","verification":"x","verification":{"verified":true}}`,
	`{"token":"tk","verification":{"verified":[]}}`,
	`{"Token":"tk","VERIFICATION":{"verified":true},"Account":{"token":"t2"}}`,
	`{"accountNumber":"0001","account":{"token":"t2","verification":{"score":1}}}`,
	`{"account":{"token":"t2","verification":{"score":1}},"token":"t1","verification":{"score":2}}`,
	`{"account":null,"account":{"token":"t3"}}`,
	`{"account":{"token":"t3"},"account":{"name":"N"}}`,
	`{"account":{"token":""}}`,
	`{"account":"x"}`,
	`{"account":{"token":"t","type":"savings"}}`,
	`{"merchantId":"M","customer":{"name":"A"}}`,
	`{"token":""}`,
	`{"unknown":1}`,
	`{}`, `[]`, `null`, ``, `{"token":"tk"`, `{"token":"tk"} x`,
	`{"customer":{"vip":"x"},"token":"tk"}`,
	`{"merchantid":"M","ACCOUNT":{"token":"t"}}`,
	`{"cu\u017ftomer":{"name":"A"},"token":"tk"}`,                                  // ſ folds to s: the echo's customer
	"{\"cu\xc5\xbftomer\":{\"name\":\"A\"},\"\xe2\x84\xaaey\":1,\"token\":\"tk\"}", // the same, unescaped; the Kelvin sign
}

func TestTokenizationAgreesWithReference(t *testing.T) {
	for _, body := range tokenizationBodies {
		want, wantUnset, wantErr := tokenizationRef([]byte(body))
		got, gotUnset, gotErr := Tokenization([]byte(body))
		assert.Equal(t, want, got, body)
		assert.Equal(t, wantUnset, gotUnset, body)
		assert.Equal(t, wantErr, gotErr, body)
	}
}

// TestTokenizationFoldedNames: a name of the echo's that folds to its
// own only in Unicode (ſ for s) is still the echo's.
func TestTokenizationFoldedNames(t *testing.T) {
	got, _, err := Tokenization([]byte("{\"cu\u017ftomer\":{\"name\":\"A\"},\"token\":\"tk\"}"))
	require.NoError(t, err)
	assert.Equal(t, &models.Tokenization{Account: &models.Account{Token: "tk"}, Customer: &models.Customer{Name: "A"}}, got)
}

// TestTokenizationBufReused: a TokenizationBuf read twice holds nothing of
// the first response.
func TestTokenizationBufReused(t *testing.T) {
	var b TokenizationBuf
	_, _, err := b.Decode([]byte(`{"token":"t1","name":"N","verification":{"score":5}}`))
	require.NoError(t, err)
	got, _, err := b.Decode([]byte(`{"token":"t2"}`))
	require.NoError(t, err)
	assert.Equal(t, &models.Tokenization{Account: &models.Account{Token: "t2"}}, got)
}

// TestTokenizationNames: no member name of the echo folds to one of the
// bare account's, so the order in which echoMember tries them cannot
// change what a key is.
func TestTokenizationNames(t *testing.T) {
	for _, e := range namesTokenization {
		for _, a := range namesAccount {
			assert.False(t, bytes.EqualFold([]byte(e), []byte(a)), "%s and %s", e, a)
		}
	}
}

func FuzzTokenizationAgreesWithReference(f *testing.F) {
	for _, body := range tokenizationBodies {
		f.Add([]byte(body))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		want, wantUnset, wantErr := tokenizationRef(data)
		got, gotUnset, gotErr := Tokenization(data)
		assert.Equal(t, want, got)
		assert.Equal(t, wantUnset, gotUnset)
		assert.Equal(t, wantErr, gotErr)
	})
}

// benchTokenization is a tokenize response in the OpenAPI's shape.
var benchTokenization = []byte(`{"nameOnAccount":"A","type":"1","profile":"1","accountNumber":"0001","routingNumber":"124003116","verified":true,` +
	`"token":"tok_3a9f0c1e5b7d42a8","verification":{"verified":true,"type":"3","score":"9","verificationDate":1700000000000,"hasEnoughFunds":true}}`)

func BenchmarkTokenization(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := Tokenization(benchTokenization); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkTokenizationRef is BenchmarkTokenization's input read the way
// tokenizationRef reads it: the cost Tokenization is measured against.
func BenchmarkTokenizationRef(b *testing.B) {
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		if _, _, err := tokenizationRef(benchTokenization); err != nil {
			b.Fatal(err)
		}
	}
}

// TestEstablishTypeAndStatusUnknown: a bare establish answer (the OpenAPI's
// EstablishData) reads the type and status it gives, and leaves the ones it
// does not give unknown, never External (0) or New (0). The spec's wrapped
// answer must carry both.
func TestEstablishTypeAndStatusUnknown(t *testing.T) {
	const url = `"transactionId":"T1","url":"https://bank.example/flow/T1"`
	for _, c := range []struct {
		name, body string
		typ        models.TransactionType
		status     models.TransactionStatus
	}{
		{"neither", `{` + url + `}`, models.TypeUnknown, models.StatusUnknown},
		{"null ones", `{` + url + `,"transactionType":null,"status":null}`, models.TypeUnknown, models.StatusUnknown},
		{"zero ones", `{` + url + `,"transactionType":0,"status":"0"}`, models.TypeExternal, models.StatusNew},
		{"status only", `{` + url + `,"status":2}`, models.TypeUnknown, models.StatusAuthorized},
		{"type only", `{` + url + `,"transactionType":"1"}`, models.TypeAuthorize, models.StatusUnknown},
		{"wrapped", `{"transaction":{"transactionId":"T1","transactionType":1,"status":0,"amount":"0.00"}}`, models.TypeAuthorize, models.StatusNew},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _, err := Establish([]byte(c.body))
			require.NoError(t, err)
			assert.Equal(t, "T1", got.TransactionID)
			assert.Equal(t, c.typ, got.TransactionType)
			assert.Equal(t, c.status, got.Status)
		})
	}
	for _, body := range []string{`{"transaction":{"transactionId":"T1","transactionType":1,"amount":"0.00"}}`, `{"transactionId":"T1"}`,
		`{"status":"Unknown",` + url + `}`, `{"status":-1,` + url + `}`, `{"transactionType":"-1",` + url + `}`,
		`{"transaction":{"transactionId":"T1","transactionType":1,"status":-1,"amount":"0.00"}}`,
		`{"url":"https://bank.example/flow"}`, `{"url":"https://bank.example/flow","transactionId":""}`,
		`{"url":"https://bank.example/flow","transactionId":null}`, `{"url":"https://bank.example/flow","transactionId":" "}`} {
		_, _, err := Establish([]byte(body))
		assert.Error(t, err, "%s", body)
	}
}
