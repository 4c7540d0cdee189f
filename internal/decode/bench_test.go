package decode

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/bankpay/bankpay-go/models"
)

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
