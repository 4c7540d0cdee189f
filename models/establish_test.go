package models

import (
	"encoding/json"
	"testing"
)

func TestEstablishDataJSON(t *testing.T) {
	zero, two := 0, 2
	d := EstablishData{PaymentType: PaymentTypeDisbursement, Amount: "0.00", Customer: &Customer{Name: "A", VIP: &zero}}
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := string(b), `{"amount":"0.00","customer":{"name":"A"},"paymentType":"Disbursement"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if *d.Customer.VIP != 0 {
		t.Error("MarshalJSON changed the caller's customer")
	}
	d.Customer.VIP = &two
	b, _ = json.Marshal(&d)
	if got, want := string(b), `{"amount":"0.00","customer":{"name":"A","vip":2},"paymentType":"Disbursement"}`; got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	var back EstablishData
	if err := json.Unmarshal(b, &back); err != nil || back.PaymentType != PaymentTypeDisbursement || *back.Customer.VIP != 2 {
		t.Errorf("round trip: %+v %v", back, err)
	}
}
