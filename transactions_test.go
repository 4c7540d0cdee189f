package bankpay

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

const authorizationJSON = `{"transaction":{
  "transactionId":"1002581234567","transactionType":1,
  "payment":{"paymentId":"1002581234568","paymentType":2,"merchantId":"1002463580",
    "returnUrl":"https://merchant.test/return","cancelUrl":"https://merchant.test/cancel","amount":"0.00",
    "account":{"name":"Checking","type":1,"accountNumber":"1234","verified":true},
    "paymentProvider":{"paymentProviderId":"051000017","name":"Demo Bank","instantPayoutAvailable":true,"type":1}},
  "currency":"USD","amount":"0.00",
  "paymentProviderTransaction":{"paymentProviderTransactionId":"pp-1","status":10,"statusMessage":"Established",
    "paymentProcessor":{"paymentProcessorId":"proc-1"}},
  "status":2,"statusMessage":"Authorized","createdAt":1700000000000,"updatedAt":"1700000001000",
  "merchantReference":"order-42","recordVersion":3}}`

func TestTransactionsGet(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567"}, 200, authorizationJSON)

	txn, err := c.Transactions.Get(context.Background(), "1002581234567")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("calls = %d", calls.Load())
	}
	if txn.TransactionID != "1002581234567" || txn.TransactionType != models.TypeAuthorize || txn.Status != models.StatusAuthorized {
		t.Errorf("decoded %+v", txn)
	}
	if txn.Payment.PaymentType != models.PaymentTypeDeferred || txn.Payment.Account.AccountNumber != "1234" ||
		!txn.Payment.PaymentProvider.InstantPayoutAvailable || txn.Payment.PaymentProvider.Name != "Demo Bank" {
		t.Errorf("payment %+v", txn.Payment)
	}
	if txn.PaymentProviderTransaction.Status != 10 || txn.PaymentProviderTransaction.PaymentProcessor.PaymentProcessorID != "proc-1" {
		t.Errorf("provider transaction %+v", txn.PaymentProviderTransaction)
	}
	if !txn.CreatedAt.Time().Equal(time.UnixMilli(1700000000000)) || txn.UpdatedAt != 1700000001000 {
		t.Errorf("times %v %v", txn.CreatedAt, txn.UpdatedAt)
	}
	if txn.Amount != "0.00" || txn.Currency != models.USD || txn.RecordVersion != 3 || txn.MerchantReference != "order-42" {
		t.Errorf("fields %+v", txn)
	}
}

func TestTransactionsGetEscapesID(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/a%2F..%2Fcustomers%3Fx=1"}, 200, authorizationJSON)
	if _, err := c.Transactions.Get(context.Background(), "a/../customers?x=1"); err != nil {
		t.Fatal(err)
	}
}

func TestTransactionsGetRejectsBadID(t *testing.T) {
	for _, id := range []string{"", ".", "..", "a\nb"} {
		c, mock, _ := newTestClient(t)
		calls := expectNoRequest(t, mock)
		_, err := c.Transactions.Get(context.Background(), id)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != "transactionId" {
			t.Errorf("Get(%q) error = %v, want ValidationError on transactionId", id, err)
		}
		if calls.Load() != 0 {
			t.Errorf("Get(%q) sent a request", id)
		}
	}
}

func TestTransactionsGetEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1"}, 200, `{}`)
	_, err := c.Transactions.Get(context.Background(), "1")
	if !errors.Is(err, ErrInvalidResponse) {
		t.Fatalf("err = %v, want ErrInvalidResponse", err)
	}
}
