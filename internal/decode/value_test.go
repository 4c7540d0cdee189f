package decode

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bankpay/bankpay-go/models"
)

// TestAttack_DecoderRefuses: bodies that must never read as a transaction
// with its identity (every one of them is an error).
func TestAttack_DecoderRefuses(t *testing.T) {
	const rest = `"transactionType":6,"status":2`
	for _, body := range []string{
		// duplicate keys: encoding/json keeps the last, which is empty
		`{"transactionId":"T1","transactionId":"",` + rest + `,"amount":"1.00"}`,
		`{"transaction":{"transactionId":"T1","transactionId":"",` + rest + `,"amount":"1.00"}}`,
		`{"transactionId":"T1",` + rest + `,"amount":"1.00","amount":""}`,
		`{"transaction":{"transactionId":"T1",` + rest + `,"amount":"1.00","amount":""}}`,
		// case-folded duplicate
		`{"transactionId":"T1","TRANSACTIONID":"",` + rest + `,"amount":"1.00"}`,
		// escaped duplicate
		`{"transactionId":"T1","transaction\u0049d":"",` + rest + `,"amount":"1.00"}`,
		// truncated, trailing value, invalid
		`{"transactionId":"T1",` + rest + `,"amount":"1.00"`,
		`{"transactionId":"T1",` + rest + `,"amount":"1.00"}{}`,
		`{"transactionId":"T1",` + rest + `,"amount":"1.00"} x`,
		`{"transactionId":"T1",` + rest + `,"amount":01.00}`,
		`{"transactionId":"T1","transactionType":6,"status":"0x2","amount":"1.00"}`,
		`{"transactionId":"T1","transactionType":6,"status":1e400,"amount":"1.00"}`,
		`{"transactionId":"T1","transactionType":6,"status":"NaN","amount":"1.00"}`,
		`{"transactionId":"T1","transactionType":6,"status":"Infinity","amount":"1.00"}`,
		`{"transactionId":"T1","transactionType":6,"status":2.5,"amount":"1.00"}`,
		`{"transaction":{"transactionId":"T1",` + rest + `,"amount":"1.00"},"transaction":{}}`,
		`{"transaction":{"transactionId":"T1",` + rest + `,"amount":"1.00"},"Transaction":null}`,
		`{"transactionId":"T1",` + rest + `,"amount":"1.00","transaction":{}}`,
		"{\"transactionId\":\"T1\xff\"," + rest + `,"amount":"1.00"` + "\x00}",
		strings.Repeat("[", 20000) + strings.Repeat("]", 20000),
		`{"transactionId":"T1",` + rest + `,"amount":"1.00","x":` + strings.Repeat(`{"a":`, 20000) + `1` + strings.Repeat("}", 20000) + `}`,
	} {
		txn, _, err := Value[models.Transaction]([]byte(body), "transaction")
		if err == nil {
			short := body
			if len(short) > 120 {
				short = short[:120]
			}
			t.Errorf("accepted %s as %+v", short, *txn)
		}
	}
}

// TestAttack_AmountMustBeReadable: a transaction's amount is part of its
// identity: an amount that is no amount must not read as present, in a
// single answer or a list item, whatever the shape; one that is a decimal
// but unusual reads as before.
func TestAttack_AmountMustBeReadable(t *testing.T) {
	const id = `"transactionId":"T1","transactionType":6,"status":2`
	for _, a := range []string{`"abc"`, `"NaN"`, `" "`, `1e400`, `"1,00"`, `"0x10"`, `"1e2"`, `" 1.00"`, `"1."`, `".5"`, `"+1.00"`, `"--1"`, `1.5e-3`} {
		for _, body := range []string{`{` + id + `,"amount":` + a + `}`, `{"transaction":{` + id + `,"amount":` + a + `}}`,
			`{` + id + `,"amount":"1.00","amount":` + a + `}`} {
			txn, _, err := Value[models.Transaction]([]byte(body), "transaction")
			var fe *FieldError
			if assert.True(t, errors.As(err, &fe), "%s: read as %+v (%v)", body, txn, err) {
				assert.True(t, strings.HasSuffix(fe.Path, "amount"), "%s: %v", body, err)
				assert.True(t, fe.Required, "%s: %v", body, err)
				assert.NotEmpty(t, fe.Got, "%s: present, not missing: %v", body, err)
			}
		}
		_, err := ReadList[models.Transaction]([]byte(`{"transactions":[{`+id+`,"amount":"1.00"},{`+id+`,"amount":`+a+`}]}`), "transactions", 10)
		var ie *ItemError
		if assert.True(t, errors.As(err, &ie), "list item amount %s: %v", a, err) {
			assert.Equal(t, 1, ie.Index)
		}
	}
	for a, want := range map[string]models.Amount{
		`"10"`: "10", `"10.5"`: "10.5", `"10.00"`: "10.00", `"-1.25"`: "-1.25", `"0.125"`: "0.125", `"010.00"`: "010.00",
		`10`: "10.00", `10.5`: "10.50", `1e2`: "100.00", `0.125`: "0.125", `-0.5`: "-0.50",
		`"abc","amount":"2.00"`: "2.00", // the last one wins, as in encoding/json
	} {
		txn, _, err := Value[models.Transaction]([]byte(`{`+id+`,"amount":`+a+`}`), "transaction")
		if assert.NoError(t, err, a) {
			assert.Equal(t, want, txn.Amount, a)
		}
	}
}

// TestAttack_IDMustBeAnID: an id of blanks or a boolean is no identity.
func TestAttack_IDMustBeAnID(t *testing.T) {
	for _, id := range []string{`"  "`, `true`, `false`} {
		body := `{"transactionId":` + id + `,"transactionType":6,"status":2,"amount":"1.00"}`
		txn, _, err := Value[models.Transaction]([]byte(body), "transaction")
		if err == nil {
			t.Errorf("transactionId %s accepted as %q", id, txn.TransactionID)
		}
	}
}

// TestAttack_ListDuplicateKeys: a list item with its identity emptied by a
// repeated key fails its page.
func TestAttack_ListDuplicateKeys(t *testing.T) {
	for _, body := range []string{
		`{"transactions":[{"transactionId":"T1","transactionId":"","transactionType":6,"status":2,"amount":"1.00"}]}`,
		`{"transactions":[{"transactionId":"T1","transactionType":6,"status":2,"amount":"1.00","amount":""}]}`,
		`{"transactions":[]} []`,
		`{"transactions":[],"transactions":null}`,
	} {
		page, err := ReadList[models.Transaction]([]byte(body), "transactions", 100)
		if err == nil {
			t.Errorf("accepted %s as %+v", body, page.Items)
		}
	}
}
