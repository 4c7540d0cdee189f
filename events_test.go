package bankpay

import (
	"errors"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
)

const formType = "application/x-www-form-urlencoded"

// processForm is a standard transaction event as the service sends it.
const processForm = "merchantId=1002463580&merchantReference=order-42&paymentType=2&transactionType=6" +
	"&eventId=ev-1&eventType=Process&objectId=100258123456791&objectType=Transaction&message=" +
	"&parentObjectId=100258123456789&timeZone=Etc%2FUTC&createdAt=1700000000123&accessId=test-access-id" +
	"&status=3&statusMessage=Processed&paymentProviderTransaction.status=10" +
	"&paymentProviderTransaction.statusMessage=Established&splitToken=tok%2B1&errorCode=331"

func TestParseEventStandardForm(t *testing.T) {
	ev, err := ParseEvent([]byte(processForm), formType)
	if err != nil {
		t.Fatal(err)
	}
	want := Event{
		EventID: "ev-1", EventType: models.EventProcess, MerchantID: "1002463580", MerchantReference: "order-42",
		AccessID: "test-access-id", PaymentType: models.PaymentTypeDeferred, TransactionType: models.TypeDeposit,
		ObjectID: "100258123456791", ObjectType: "Transaction", ParentObjectID: "100258123456789",
		TimeZone: "Etc/UTC", CreatedAt: time.UnixMilli(1700000000123).UTC(),
		Transaction: &TransactionEvent{Status: models.StatusProcessed, StatusMessage: "Processed", ProviderStatus: 10,
			ProviderStatusMessage: "Established", SplitToken: "tok+1", ErrorCode: "331"},
	}
	got := *ev
	got.Raw = nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if ev.Kind() != EventKindTransaction || ev.TransactionID() != "100258123456791" || ev.Transaction.Code() != CodeNotEnoughBalance {
		t.Errorf("kind %v id %s code %d", ev.Kind(), ev.TransactionID(), ev.Transaction.Code())
	}
	if len(ev.Raw) != 19 || ev.Raw.Get("message") != "" || ev.Raw.Get("splitToken") != "tok+1" {
		t.Errorf("raw %v", ev.Raw)
	}
	if ev.CreatedAt.Location() != time.UTC {
		t.Error("createdAt not UTC")
	}
}

func TestParseEventIdentityEvents(t *testing.T) {
	common := "merchantId=M&merchantReference=r&paymentType=2&transactionType=1&eventId=ev-2&objectId=T1" +
		"&objectType=Transaction&message=performKycVerification&timeZone=UTC&createdAt=1700000000000"
	ev, err := ParseEvent([]byte(common+"&eventType=IdentityVerificationDataRetrieved"+
		"&Provider+Report+Status=SUCCESS&Provider%20Service%20Name=Demo+KYC&Provider+used+for+validation=acme"), formType)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind() != EventKindIdentityDataRetrieved || ev.IdentityVerified != nil || ev.Transaction != nil ||
		*ev.IdentityDataRetrieved != (IdentityDataRetrieved{"SUCCESS", "Demo KYC", "acme"}) || ev.Message != "performKycVerification" {
		t.Errorf("data retrieved: %+v %+v", ev, ev.IdentityDataRetrieved)
	}

	ev, err = ParseEvent([]byte(common+"&eventType=CustomerIdentityVerified&Identity+Verified=FINISHED&KYC+Result=FINISHED"), formType)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind() != EventKindIdentityVerified || ev.IdentityDataRetrieved != nil ||
		*ev.IdentityVerified != (IdentityVerified{"FINISHED", "FINISHED"}) {
		t.Errorf("verified: %+v %+v", ev, ev.IdentityVerified)
	}
}

func TestParseEventUnknownTypeKeepsEverything(t *testing.T) {
	body := "eventId=ev-3&eventType=Chargeback&objectId=T9&objectType=Dispute&createdAt=1700000000000" +
		"&reasonCode=R01&amounts=1.00&amounts=2.00&nested.key=v"
	ev, err := ParseEvent([]byte(body), formType)
	if err != nil {
		t.Fatal(err)
	}
	if ev.Kind() != EventKindUnknown || ev.EventType != "Chargeback" || ev.EventType.Known() || ev.Transaction != nil {
		t.Errorf("%+v", ev)
	}
	want, _ := url.ParseQuery(body)
	if !reflect.DeepEqual(ev.Raw, want) {
		t.Errorf("raw %v", ev.Raw)
	}
	if ev.TransactionID() != "" {
		t.Error("a Dispute object is not a transaction")
	}
	// An unknown type with a status still gets the transaction payload.
	ev, err = ParseEvent([]byte("eventId=ev-4&eventType=Settle&status=4"), formType)
	if err != nil || ev.Transaction == nil || ev.Transaction.Status != models.StatusCompleted || ev.Kind() != EventKindUnknown {
		t.Errorf("%+v %v", ev, err)
	}
}

func TestParseEventJSON(t *testing.T) {
	body := `{"merchantId":"M","eventId":"ev-5","eventType":"Completed","paymentType":"2","transactionType":6,
	  "objectId":"T2","createdAt":1700000000000,"status":4,"statusMessage":"Completed",
	  "paymentProviderTransaction":{"status":10,"statusMessage":"Established"},
	  "extra":{"list":[1,true,null,"x"]},"Provider Report Status":"SUCCESS","nothing":null}`
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/vnd.event+json", ""} {
		ev, err := ParseEvent([]byte(body), ct)
		if err != nil {
			t.Fatalf("%q: %v", ct, err)
		}
		if ev.Kind() != EventKindTransaction || ev.TransactionType != models.TypeDeposit || ev.PaymentType != models.PaymentTypeDeferred ||
			ev.Transaction.Status != models.StatusCompleted || ev.Transaction.ProviderStatus != 10 ||
			ev.Transaction.ProviderStatusMessage != "Established" || !ev.CreatedAt.Equal(time.UnixMilli(1700000000000)) {
			t.Errorf("%q: %+v %+v", ct, ev, ev.Transaction)
		}
		if got := ev.Raw["extra.list"]; !reflect.DeepEqual(got, []string{"1", "true", "x"}) {
			t.Errorf("raw list %v", got)
		}
		if ev.Raw.Get("Provider Report Status") != "SUCCESS" || ev.Raw.Get("paymentProviderTransaction.status") != "10" {
			t.Errorf("raw %v", ev.Raw)
		}
		if _, ok := ev.Raw["nothing"]; ok {
			t.Error("null kept")
		}
	}
}

func TestParseEventLenientValues(t *testing.T) {
	ev, err := ParseEvent([]byte("eventId=e&eventType=Authorize&paymentType=Deferred&status=Authorized&createdAt=2023-11-14T22:13:20Z"), "")
	if err != nil {
		t.Fatal(err)
	}
	if ev.PaymentType != models.PaymentTypeDeferred || ev.Transaction.Status != models.StatusAuthorized ||
		!ev.CreatedAt.Equal(time.Unix(1700000000, 0)) {
		t.Errorf("%+v %+v", ev, ev.Transaction)
	}
	ev, err = ParseEvent([]byte("eventType=Cancel&status=Cancelled&createdAt="), formType)
	if err != nil || ev.Transaction.Status != models.StatusCanceled || !ev.CreatedAt.IsZero() {
		t.Errorf("%+v %v", ev, err)
	}
}

func TestParseEventErrors(t *testing.T) {
	for name, tc := range map[string]struct{ body, ct string }{
		"empty":              {"", formType},
		"blank":              {"  \n", "application/json"},
		"json array":         {`[{"eventId":"e"}]`, "application/json"},
		"json trailing":      {`{"eventId":"e"} {}`, "application/json"},
		"json broken":        {`{"eventId":`, ""},
		"json null":          {`null`, "application/json"},
		"form as json":       {"eventId=e", "application/json"},
		"text/plain":         {"eventId=e", "text/plain"},
		"bad content type":   {"eventId=e", "application/"},
		"bad escape":         {"eventId=%zz", formType},
		"semicolon":          {"eventId=e;x=1", formType},
		"repeated eventId":   {"eventId=a&eventId=b", formType},
		"repeated status":    {"eventType=Process&status=2&status=5", formType},
		"bad createdAt":      {"eventId=e&createdAt=yesterday", formType},
		"bad status":         {"eventId=e&status=great", formType},
		"bad provider":       {"eventId=e&paymentProviderTransaction.status=x", formType},
		"bad payment type":   {"eventId=e&paymentType=Lottery", formType},
		"bad txn type":       {"eventId=e&transactionType=1.5", formType},
		"json repeated flat": {`{"a.b":"1","a":{"b":"2"},"transactionType":{"x":1},"eventId":["a","b"]}`, "application/json"},
	} {
		ev, err := ParseEvent([]byte(tc.body), tc.ct)
		if !errors.Is(err, ErrMalformedEvent) || ev != nil {
			t.Errorf("%s: ev=%v err=%v", name, ev, err)
		}
	}
}

func TestParseEventErrorHidesValues(t *testing.T) {
	_, err := ParseEvent([]byte("eventId=e&createdAt=123-45-6789xyz"), formType)
	if err == nil || strings.Contains(err.Error(), "6789") {
		t.Errorf("err %v", err)
	}
}

func TestEventKindString(t *testing.T) {
	for k, s := range map[EventKind]string{EventKindUnknown: "Unknown", EventKindTransaction: "Transaction",
		EventKindIdentityDataRetrieved: "IdentityDataRetrieved", EventKindIdentityVerified: "IdentityVerified", 9: "Unknown"} {
		if k.String() != s {
			t.Errorf("%d: %s", k, k.String())
		}
	}
	if !models.EventCompleted.IsTransaction() || models.EventCustomerIdentityVerified.IsTransaction() ||
		!models.EventCustomerIdentityVerified.IsIdentity() || !models.EventRefresh.Known() || models.EventType("x").Known() {
		t.Error("models.EventType predicates")
	}
}
