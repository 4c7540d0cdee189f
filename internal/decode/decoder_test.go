package decode

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/internal/decode/gen"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/testmain"
)

// TestMain runs the package's tests without the race detector's exit pause
// (package testmain).
func TestMain(m *testing.M) { testmain.Run(m) }

// The checked-in decoders are what the generator writes from today's
// models: run go generate in internal/decode when this fails.
func TestGeneratedIsFresh(t *testing.T) {
	want, err := gen.Source()
	require.NoError(t, err)
	got, err := os.ReadFile("zz_generated.go")
	require.NoError(t, err)
	require.True(t, string(want) == string(got), "zz_generated.go is stale: run go generate ./internal/decode")
}

const ident = `"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00"`

// The OpenAPI types account.type as a double: 1.0 is Checking.
func TestAccountTypeDouble(t *testing.T) {
	for _, body := range []string{
		`{"transaction":{` + ident + `,"payment":{"account":{"type":1.0,"name":"x"}}}}`,
		`{` + ident + `,"payment":{"account":{"type":"1.0"}}}`,
		`{` + ident + `,"payment":{"account":{"type":"01"}}}`,
	} {
		txn, unset, err := Value[models.Transaction]([]byte(body), "transaction")
		require.NoError(t, err, body)
		assert.Empty(t, unset, body)
		require.NotNil(t, txn.Payment.Account, body)
		assert.Equal(t, 1, txn.Payment.Account.Type, body)
	}
	bal, _, err := Value[models.AccountBalance]([]byte(`{"account":{"type":2.0,"profile":1.0,"token":"t"},"amount":10.5}`), "accountBalance")
	require.NoError(t, err)
	assert.Equal(t, &models.AccountBalance{Account: &models.Account{Type: 2, Profile: 1, Token: "t"}, Amount: "10.50"}, bal)
}

// A code reads as a number, a numeric string, a whole double or its name.
func TestCodeWordsAndNumbers(t *testing.T) {
	for body, want := range map[string]models.TransactionStatus{
		`"Authorized"`: models.StatusAuthorized, `"authorized"`: models.StatusAuthorized, `"OnHold"`: models.StatusOnHold,
		`"02"`: models.StatusAuthorized, `"+2"`: models.StatusAuthorized, `2.0`: models.StatusAuthorized,
		`"2e0"`: models.StatusAuthorized, `0`: models.StatusNew, `"New"`: models.StatusNew, `12`: models.StatusRefunded,
	} {
		txn, _, err := Value[models.Transaction]([]byte(`{"transactionId":"T1","transactionType":"Deposit","amount":1,"status":`+body+`}`), "transaction")
		require.NoError(t, err, body)
		assert.Equal(t, want, txn.Status, body)
		assert.Equal(t, models.TypeDeposit, txn.TransactionType, body)
	}
	for _, body := range []string{`"Authorised"`, `2.5`, `{}`, `[]`, `true`, `""`, `null`, `"  "`} {
		_, _, err := Value[models.Transaction]([]byte(`{"transactionId":"T1","transactionType":6,"amount":1,"status":`+body+`}`), "transaction")
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", body, err)
		assert.Equal(t, "status", fe.Path, body)
		assert.True(t, fe.Required, body)
	}
}

// A value a field cannot hold leaves it unset, reported with its path and
// the kinds, never the value; a wire:"zero" field unset leaves its holder
// unset; the text of a scalar is kept where the model asks (vip).
func TestLeftUnsetPaths(t *testing.T) {
	body := `{"transaction":{` + ident + `,"statusMessage":{"x":1},"createdAt":"soon 123456789",
 "payment":{"account":{"type":"checking"},"customer":{"vip":"gold"},"paymentProvider":{"instantPayoutAvailable":7}},
 "paymentProviderTransaction":{"status":{"c":1}}}}`
	txn, unset, err := Value[models.Transaction]([]byte(body), "transaction")
	require.NoError(t, err)
	var got []string
	for _, u := range unset {
		got = append(got, u.String())
		assert.NotContains(t, u.String(), "123456789")
		assert.NotContains(t, u.String(), "gold")
	}
	assert.ElementsMatch(t, []string{
		"field transaction.statusMessage: want a string, got an object",
		"field transaction.createdAt: want an integer, got a non-numeric string",
		"field transaction.payment.account left unset: field transaction.payment.account.type: want an integer, got a non-numeric string",
		"field transaction.payment.customer.vip: want an integer, got a non-numeric string",
		"field transaction.payment.paymentProvider.instantPayoutAvailable: want a boolean, got a number",
		"field transaction.paymentProviderTransaction.status: want a valid ProviderStatus, got an object",
	}, got)
	assert.Nil(t, txn.Payment.Account)
	assert.Equal(t, "gold", txn.Payment.Customer.VIPText)
	assert.Nil(t, txn.Payment.Customer.VIP)
	assert.NotNil(t, txn.PaymentProviderTransaction)
}

// A list item whose identity cannot be read fails the page naming its
// index; another field of an item never does.
func TestListItemIdentity(t *testing.T) {
	good := `{` + ident + `,"createdAt":{"bad":1}}`
	page, err := ReadList[models.Transaction]([]byte(`{"transactions":[`+good+`,`+good+`],"startIndex":"4"}`), "transactions", 10)
	require.NoError(t, err)
	assert.Len(t, page.Items, 2)
	assert.Equal(t, 4, page.StartIndex)
	require.Len(t, page.Unset, 2)
	assert.Equal(t, "transactions[1].createdAt", page.Unset[1].Path)
	for i, bad := range []string{`{"transactionType":6,"status":2,"amount":"1.00"}`, `{"transactionId":"T","transactionType":6,"amount":"1.00"}`, `7`, `null`} {
		_, err := ReadList[models.Transaction]([]byte(`{"transactions":[`+good+`,`+bad+`]}`), "transactions", 10)
		var ie *ItemError
		require.True(t, errors.As(err, &ie), "%d: %v", i, err)
		assert.Equal(t, 1, ie.Index)
		assert.Contains(t, err.Error(), "item 1: field transactions[1]")
	}
}

// The tokenize response in either shape, and without its token.
func TestTokenization(t *testing.T) {
	echo, _, err := Tokenization([]byte(`{"merchantId":"M","account":{"token":"tk","type":1.0},"customer":{"name":"A"}}`))
	require.NoError(t, err)
	assert.Equal(t, &models.Tokenization{MerchantID: "M", Account: &models.Account{Token: "tk", Type: 1}, Customer: &models.Customer{Name: "A"}}, echo)
	bare, _, err := Tokenization([]byte(`{"token":"tk","verification":{"verified":"true","score":"7"}}`))
	require.NoError(t, err)
	seven := 7
	assert.Equal(t, &models.Tokenization{Account: &models.Account{Token: "tk", Verification: &models.Verification{Verified: true, Score: &seven}}}, bare)
	for _, body := range []string{`{"account":{"type":1}}`, `{"type":1}`, `{}`, `{"account":null}`, `[]`} {
		_, _, err := Tokenization([]byte(body))
		assert.Error(t, err, body)
	}
}

// TestMemberNamesAsEncodingJSON: the member dispatch (the exact name,
// then foldIndex) reads a transaction's members as encoding/json does for
// names written with escapes, in another case, repeated, with runes that
// fold to ASCII (U+017F is s), and ignores names that only start or end
// like a member's, long ones and non-ASCII ones that fold to none.
func TestMemberNamesAsEncodingJSON(t *testing.T) {
	long := strings.Repeat("transactionId", 5000)
	for _, member := range []string{
		`"transaction\u0049d":"T2"`, `"\u0074ransactionId":"T2"`, `"TRANSACTIONID":"T2"`, `"transactionid":"T2"`,
		`"TransactionId":"T2","transactionId":"T3"`, `"transactionId":"T2","TRANSACTIONID":"T3"`,
		`"tran\u017factionId":"T2"`, `"tranſactionId":"T2"`, `"ſtatus":7`, `"STATUS":7`,
		`"transactionI":"X"`, `"transactionIdX":"X"`, `"transactionId ":"X"`, `" transactionId":"X"`,
		`"` + long + `":"X"`, `"transactionİd":"X"`, `"statüs":7`, `"amount\u0000":"9.00"`,
	} {
		body := []byte(`{"transaction":{` + ident + `,` + member + `}}`)
		got, _, err := Value[models.Transaction](body, "transaction")
		require.NoError(t, err, member)
		var env wire.TransactionEnvelope
		require.NoError(t, json.Unmarshal(body, &env), member)
		assert.Equal(t, env.Transaction, got, member)
	}
}

// decimalAmount is what a transaction's amount must be to be readable: a
// decimal, "10", "10.5", "-1.25" (written apart from the decoder's check).
var decimalAmount = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// requireUnreadableAmount: a transaction whose amount encoding/json reads
// as no decimal amount ("abc", "NaN", 1e400 kept as written) is an error of
// its identity in the decoder.
func requireUnreadableAmount(t *testing.T, err error, data []byte) {
	t.Helper()
	var fe *FieldError
	require.True(t, errors.As(err, &fe), "an unreadable amount read as present: %v: %s", err, data)
	require.True(t, fe.Required, "%v: %s", err, data)
}

// FuzzDecodeAgreesWithJSON: on the seed's shape (wrapped, integer codes)
// the decoder reads what encoding/json reads wherever encoding/json reads
// the response, except a response without a transaction's readable
// identity, which encoding/json reads as zero values (or an amount that is
// no amount) and the decoder refuses: an amount that is no decimal must
// be an error. Never a panic.
func FuzzDecodeAgreesWithJSON(f *testing.F) {
	for _, s := range []string{
		`{"transaction":{` + ident + `}}`,
		`{"transaction":{` + ident + `,"payment":{"paymentId":"P","paymentType":"Deferred","amount":"5.00","account":{"type":1,"verified":true},"customer":{"vip":2,"address":{"zip":"7"}}},"paymentProviderTransaction":{"status":"AC100","instantSettle":false},"createdAt":1700000000000,"paid":1.5}}`,
		`{"transaction":{"transactionId":"T\u00e9\"","transactionType":1,"status":0,"amount":10,"Status":7,"url":"\ud800"}}`,
		`{"Transaction":{` + ident + `},"x":[1,{"a":null}]}`,
		`{"transaction":{` + ident + `,"payment":null,"payment":{"paymentId":"2"}}}`,
		`{"transaction":{` + ident + `}} `,
		`{"transaction":{` + ident + `,"amount":1e2,"paid":-0.5,"balance":0.001}}`,
		`{"transaction":{` + ident + `,"amount":"abc"}}`,
		`{"transaction":{` + ident + `,"amount":1e400}}`,
		`{"transaction":{` + ident + `,"amount":"NaN","amount":"10.5"}}`,
		`{"transaction":{` + ident + `,"status":-1}}`,
		`{"transaction":{` + ident + `,"payment":{"paymentType":"-4"}}}`,
		`{"transaction":{` + ident + `,"status":4294967298,"payment":{"authorizationStatus":"4294967295"}}}`,
		// names matched without case: ASCII, and runes that fold to ASCII
		// (U+017F is s, U+212A is k) in names of another length
		`{"transaction":{` + ident + `,"MERCHANTREFERENCE":"m","paymentProviderTransaction":{"\u017ftatus":"x"},"payment":{"ban\u212a":"b","PaymentId":"p"}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, _, err := Value[models.Transaction](data, "transaction")
		var env wire.TransactionEnvelope
		if json.Unmarshal(data, &env) != nil || env.Transaction == nil {
			return
		}
		if a := env.Transaction.Amount; a != "" && !decimalAmount.MatchString(string(a)) {
			requireUnreadableAmount(t, err, data)
			return
		}
		if negativeCode(reflect.ValueOf(env.Transaction)) {
			requireNoNegativeCode(t, got, err, data)
			return
		}
		var fe *FieldError
		if errors.As(err, &fe) && fe.Required && fe.Got == "" {
			return // identity missing, null or empty: encoding/json reads zero values
		}
		require.NoError(t, err, "%s", data)
		require.Equal(t, env.Transaction, got, "%s", data)
	})
}

// negativeCode reports whether v holds a negative code (a status, a
// transaction or payment type), or one beyond int32: encoding/json reads
// one, the decoder refuses it (the negative codes are the SDK's own, never
// the wire's; a larger one would wrap in a 32-bit int).
func negativeCode(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Pointer:
		return !v.IsNil() && negativeCode(v.Elem())
	case reflect.Slice:
		for i := range v.Len() {
			if negativeCode(v.Index(i)) {
				return true
			}
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if negativeCode(v.Field(i)) {
				return true
			}
		}
	case reflect.Int:
		switch v.Type() {
		case reflect.TypeFor[models.TransactionStatus](), reflect.TypeFor[models.TransactionType](), reflect.TypeFor[models.PaymentType]():
			return v.Int() < 0 || v.Int() > math.MaxInt32
		}
	}
	return false
}

// requireNoNegativeCode: where the answer has a negative code, the decoder
// fails or reads none.
func requireNoNegativeCode(t *testing.T, got any, err error, data []byte) {
	t.Helper()
	if err == nil {
		require.False(t, negativeCode(reflect.ValueOf(got)), "a negative code read from %s", data)
	}
}

// FuzzListAgreesWithJSON is FuzzDecodeAgreesWithJSON for a list page.
func FuzzListAgreesWithJSON(f *testing.F) {
	f.Add([]byte(`{"transactions":[{` + ident + `},{` + ident + `,"status":3}],"startIndex":2,"itemsPerPage":2}`))
	f.Add([]byte(`{"transactions":[]}`))
	f.Add([]byte(`{"transactions":[{` + ident + `,"transactionType":-6}]}`))
	f.Add([]byte(`{"TRANSACTIONS":[{` + ident + `}],"itemsPerPage":0}`))
	f.Add([]byte(`{"transactions":[{` + ident + `},{` + ident + `,"amount":" "}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := ReadList[models.Transaction](data, "transactions", 0)
		var env struct {
			Transactions []models.Transaction `json:"transactions"`
			StartIndex   *int                 `json:"startIndex"`
		}
		if json.Unmarshal(data, &env) != nil || env.Transactions == nil {
			return
		}
		for _, item := range env.Transactions {
			if item.Amount != "" && !decimalAmount.MatchString(string(item.Amount)) {
				requireUnreadableAmount(t, err, data)
				return
			}
		}
		if negativeCode(reflect.ValueOf(env.Transactions)) {
			requireNoNegativeCode(t, got, err, data)
			return
		}
		var fe *FieldError
		if errors.As(err, &fe) && fe.Required && fe.Got == "" {
			return
		}
		require.NoError(t, err, "%s", data)
		assert.Equal(t, env.Transactions, got.Items, "%s", data)
		if env.StartIndex != nil {
			assert.Equal(t, *env.StartIndex, got.StartIndex, "%s", data)
		}
	})
}

// page100 is a page of 100 transactions: the seed's shape (wrapped in
// {"transactions":…}, integer codes) or the OpenAPI's (codes as numeric
// strings, amounts as numbers).
func page100(openapi bool) []byte {
	code := func(n int) string {
		if openapi {
			return `"` + strconv.Itoa(n) + `"`
		}
		return strconv.Itoa(n)
	}
	amount := `"125.50"`
	if openapi {
		amount = `125.5`
	}
	var b strings.Builder
	b.WriteString(`{"transactions":[`)
	for i := range 100 {
		if i > 0 {
			b.WriteByte(',')
		}
		id := strconv.Itoa(1002600000000 + i)
		b.WriteString(`{"transactionId":"` + id + `","transactionType":` + code(6) + `,"originalTransactionId":"1002599999999",` +
			`"payment":{"paymentId":"` + id + `","paymentType":` + code(2) + `,"merchantId":"1002463580","merchantReference":"order-` + id + `",` +
			`"account":{"name":"Checking","type":` + code(1) + `,"accountNumber":"0009","routingNumber":"124003116","verified":true},` +
			`"paymentProvider":{"paymentProviderId":"200005501","type":` + code(1) + `,"name":"Demo Bank","instantPayoutAvailable":false},` +
			`"currency":"USD","amount":` + amount + `,"createdAt":1700000000000,"updatedAt":1700000001000,"recordVersion":` + code(3) + `},` +
			`"currency":"USD","amount":` + amount + `,"paymentProviderTransaction":{"paymentProviderTransactionId":"pp-` + id + `","status":"AC100","statusMessage":"payment pending"},` +
			`"status":` + code(2) + `,"statusMessage":"Authorized","createdAt":1700000000000,"processedAt":1700000000500,` +
			`"updatedAt":1700000001000,"merchantReference":"dep-` + id + `","recordVersion":` + code(2) + `}`)
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func BenchmarkPage100(b *testing.B) {
	for _, sh := range []struct {
		name    string
		openapi bool
	}{{"seed", false}, {"openapi", true}} {
		body := page100(sh.openapi)
		b.Run("decode/"+sh.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			for range b.N {
				page, err := ReadList[models.Transaction](body, "transactions", 100)
				if err != nil || len(page.Items) != 100 {
					b.Fatal(err)
				}
			}
		})
	}
	// encoding/json reads only the seed's shape into the models (the
	// OpenAPI's numeric strings fail it): the reference.
	body := page100(false)
	b.Run("encoding-json/seed", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(body)))
		for range b.N {
			var env struct {
				Transactions []models.Transaction `json:"transactions"`
			}
			if err := json.Unmarshal(body, &env); err != nil || len(env.Transactions) != 100 {
				b.Fatal(err)
			}
		}
	})
}

// A code beyond int32 is refused on every platform: on a 32-bit one
// (GOARCH=386, arm) models' int codes would wrap, 4294967298 reading as 2
// (Authorized) and 4294967295 as -1 (the SDK's own StatusUnknown).
func TestCodeBeyondInt32Refused(t *testing.T) {
	for _, body := range []string{`4294967298`, `"4294967298"`, `4294967295`, `2147483648`, `4294967298.0`} {
		_, _, err := Value[models.Transaction]([]byte(`{"transactionId":"T1","transactionType":6,"amount":1,"status":`+body+`}`), "transaction")
		var fe *FieldError
		require.True(t, errors.As(err, &fe), "%s: %v", body, err)
		assert.Equal(t, "status", fe.Path, body)
		_, _, err = Value[models.Transaction]([]byte(`{"transactionId":"T1","transactionType":`+body+`,"amount":1,"status":2}`), "transaction")
		require.True(t, errors.As(err, &fe), "transactionType %s: %v", body, err)
	}
	txn, _, err := Value[models.Transaction]([]byte(`{"transactionId":"T1","transactionType":6,"amount":1,"status":2147483647}`), "transaction")
	require.NoError(t, err)
	assert.Equal(t, models.TransactionStatus(2147483647), txn.Status)
}
