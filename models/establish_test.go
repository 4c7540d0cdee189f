package models

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEstablishDataJSON(t *testing.T) {
	zero, two := 0, 2
	d := EstablishData{PaymentType: PaymentTypeDisbursement, Amount: "0.00", Customer: &Customer{Name: "A", VIP: &zero}}
	b, err := json.Marshal(d)
	require.NoError(t, err)
	want := `{"amount":"0.00","customer":{"name":"A"},"paymentType":"Disbursement"}`
	assert.Equal(t, want, string(b), "got  %s\nwant %s", b, want)
	assert.Equal(t, 0, *d.Customer.VIP, "MarshalJSON changed the caller's customer")
	d.Customer.VIP = &two
	b, _ = json.Marshal(&d)
	want = `{"amount":"0.00","customer":{"name":"A","vip":2},"paymentType":"Disbursement"}`
	assert.Equal(t, want, string(b), "got  %s\nwant %s", b, want)
	var back EstablishData
	err = json.Unmarshal(b, &back)
	if assert.NoError(t, err, "round trip: %+v %v", back, err) {
		assert.Equal(t, PaymentTypeDisbursement, back.PaymentType, "round trip: %+v %v", back, err)
		if assert.NotNil(t, back.Customer, "round trip: %+v %v", back, err) && assert.NotNil(t, back.Customer.VIP, "round trip: %+v %v", back, err) {
			assert.Equal(t, 2, *back.Customer.VIP, "round trip: %+v %v", back, err)
		}
	}
}
