package decode

import (
	"strings"
	"testing"

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
// identity: an amount that is no amount must not read as present.
func TestAttack_AmountMustBeReadable(t *testing.T) {
	t.Skip("FINDING: a required amount that is no amount (\"abc\", \"NaN\", \" \", 1e400, \"1,00\", \"0x10\") reads as present: a Deposit answered with it succeeds with Amount \"abc\"; only Amount.Cents refuses it later. The decoder keeps odd amounts as written by design (as Amount.UnmarshalJSON does, and the fuzz against encoding/json checks that), so refusing them for the identity's amount is a contract decision, not a small fix")
	for _, a := range []string{`"abc"`, `"NaN"`, `" "`, `1e400`, `"1,00"`, `"0x10"`} {
		body := `{"transactionId":"T1","transactionType":6,"status":2,"amount":` + a + `}`
		txn, _, err := Value[models.Transaction]([]byte(body), "transaction")
		if err == nil {
			t.Errorf("amount %s accepted as %q", a, txn.Amount)
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
