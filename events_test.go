package bankpay

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
	require.NoError(t, err)
	want := Event{
		EventID: "ev-1", EventType: models.EventProcess, MerchantID: "1002463580", MerchantReference: "order-42",
		AccessID: "test-access-id", PaymentType: models.PaymentTypeDeferred, TransactionType: models.TypeDeposit,
		ObjectID: "100258123456791", ObjectType: "Transaction", ParentObjectID: "100258123456789",
		TimeZone: "Etc/UTC", CreatedAt: time.UnixMilli(1700000000123).UTC(),
		Transaction: &TransactionEvent{Status: models.StatusProcessed, HasStatus: true, StatusMessage: "Processed", ProviderStatus: "10",
			ProviderStatusMessage: "Established", SplitToken: "tok+1", ErrorCode: "331"},
	}
	got := *ev
	got.Raw = nil
	assert.Equal(t, want, got, "got  %+v %+v\nwant %+v %+v", got, got.Transaction, want, want.Transaction)
	assert.Equal(t, want.Transaction, got.Transaction, "got  %+v %+v\nwant %+v %+v", got, got.Transaction, want, want.Transaction)
	assert.Equal(t, eventKindTransaction, ev.kind(), "kind %v id %s code %d", ev.kind(), ev.TransactionID(), ev.Transaction.code())
	assert.Equal(t, "100258123456791", ev.TransactionID(), "kind %v id %s code %d", ev.kind(), ev.TransactionID(), ev.Transaction.code())
	assert.Equal(t, codeNotEnoughBalance, ev.Transaction.code(), "kind %v id %s code %d", ev.kind(), ev.TransactionID(), ev.Transaction.code())
	if assert.Len(t, ev.Raw, 19, "raw %v", ev.Raw) {
		assert.Empty(t, ev.Raw.Get("message"), "raw %v", ev.Raw)
		assert.Equal(t, "tok+1", ev.Raw.Get("splitToken"), "raw %v", ev.Raw)
	}
	assert.Equal(t, time.UTC, ev.CreatedAt.Location(), "createdAt not UTC")
}

func TestParseEventIdentityEvents(t *testing.T) {
	common := "merchantId=M&merchantReference=r&paymentType=2&transactionType=1&eventId=ev-2&objectId=T1" +
		"&objectType=Transaction&message=performKycVerification&timeZone=UTC&createdAt=1700000000000"
	ev, err := ParseEvent([]byte(common+"&eventType=IdentityVerificationDataRetrieved"+
		"&Provider+Report+Status=SUCCESS&Provider%20Service%20Name=Demo+KYC&Provider+used+for+validation=acme"), formType)
	require.NoError(t, err)
	assert.Equal(t, eventKindIdentityDataRetrieved, ev.kind(), "data retrieved: %+v %+v", ev, ev.Identity)
	assert.Nil(t, ev.Transaction, "data retrieved: %+v %+v", ev, ev.Identity)
	if assert.NotNil(t, ev.Identity, "data retrieved: %+v %+v", ev, ev.Identity) {
		assert.Equal(t, IdentityEvent{ProviderReportStatus: "SUCCESS", ProviderServiceName: "Demo KYC", ProviderUsedForValidation: "acme"}, *ev.Identity, "data retrieved: %+v %+v", ev, ev.Identity)
	}
	assert.Equal(t, "performKycVerification", ev.Message, "data retrieved: %+v %+v", ev, ev.Identity)

	ev, err = ParseEvent([]byte(common+"&eventType=CustomerIdentityVerified&Identity+Verified=FINISHED&KYC+Result=FINISHED"), formType)
	require.NoError(t, err)
	assert.Equal(t, eventKindIdentityVerified, ev.kind(), "verified: %+v %+v", ev, ev.Identity)
	assert.Nil(t, ev.Transaction, "verified: %+v %+v", ev, ev.Identity)
	if assert.NotNil(t, ev.Identity, "verified: %+v %+v", ev, ev.Identity) {
		assert.Equal(t, IdentityEvent{IdentityVerified: "FINISHED", KYCResult: "FINISHED"}, *ev.Identity, "verified: %+v %+v", ev, ev.Identity)
	}
}

func TestParseEventUnknownTypeKeepsEverything(t *testing.T) {
	body := "eventId=ev-3&eventType=Chargeback&objectId=T9&objectType=Dispute&createdAt=1700000000000" +
		"&reasonCode=R01&amounts=1.00&nested.key=v&Some+Key_2-x=%26"
	ev, err := ParseEvent([]byte(body), formType)
	require.NoError(t, err)
	assert.Equal(t, eventKindUnknown, ev.kind(), "%+v", ev)
	assert.Equal(t, models.EventType("Chargeback"), ev.EventType, "%+v", ev)
	assert.False(t, transactionEventTypes[ev.EventType.Canonical()], "%+v", ev)
	assert.Nil(t, ev.Transaction, "%+v", ev)
	want, _ := url.ParseQuery(body)
	assert.Equal(t, want, ev.Raw, "raw %v", ev.Raw)
	assert.Empty(t, ev.TransactionID(), "a Dispute object is not a transaction")
	// An unknown type with a status still gets the transaction payload.
	ev, err = ParseEvent([]byte("eventId=ev-4&eventType=Settle&status=4&createdAt=1"), formType)
	assert.NoError(t, err, "%+v %v", ev, err)
	if assert.NotNil(t, ev.Transaction, "%+v %v", ev, err) {
		assert.Equal(t, models.StatusCompleted, ev.Transaction.Status, "%+v %v", ev, err)
		assert.Equal(t, eventKindUnknown, ev.kind(), "%+v %v", ev, err)
	}
}

func TestParseEventJSON(t *testing.T) {
	body := `{"merchantId":"M","eventId":"ev-5","eventType":"Completed","paymentType":"2","transactionType":6,
	  "objectId":"T2","createdAt":1700000000000,"status":4,"statusMessage":"Completed",
	  "paymentProviderTransaction":{"status":10,"statusMessage":"Established"},
	  "extra":{"list":[1,true,null,"x"]},"Provider Report Status":"SUCCESS","nothing":null}`
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/vnd.event+json", ""} {
		ev, err := ParseEvent([]byte(body), ct)
		require.NoError(t, err, "%q: %v", ct, err)
		assert.Equal(t, eventKindTransaction, ev.kind(), "%q: %+v %+v", ct, ev, ev.Transaction)
		assert.Equal(t, models.TypeDeposit, ev.TransactionType, "%q: %+v %+v", ct, ev, ev.Transaction)
		assert.Equal(t, models.PaymentTypeDeferred, ev.PaymentType, "%q: %+v %+v", ct, ev, ev.Transaction)
		if assert.NotNil(t, ev.Transaction, "%q: %+v %+v", ct, ev, ev.Transaction) {
			assert.Equal(t, models.StatusCompleted, ev.Transaction.Status, "%q: %+v %+v", ct, ev, ev.Transaction)
			assert.Equal(t, models.ProviderStatus("10"), ev.Transaction.ProviderStatus, "%q: %+v %+v", ct, ev, ev.Transaction)
			assert.Equal(t, "Established", ev.Transaction.ProviderStatusMessage, "%q: %+v %+v", ct, ev, ev.Transaction)
		}
		assert.True(t, ev.CreatedAt.Equal(time.UnixMilli(1700000000000)), "%q: %+v %+v", ct, ev, ev.Transaction)
		got := ev.Raw["extra.list"]
		assert.Equal(t, []string{"1", "true", "x"}, got, "raw list %v", got)
		assert.Equal(t, "SUCCESS", ev.Raw.Get("Provider Report Status"), "raw %v", ev.Raw)
		assert.Equal(t, "10", ev.Raw.Get("paymentProviderTransaction.status"), "raw %v", ev.Raw)
		_, ok := ev.Raw["nothing"]
		assert.False(t, ok, "null kept")
	}
}

func TestParseEventLenientValues(t *testing.T) {
	ev, err := ParseEvent([]byte("eventId=e&eventType=Authorize&paymentType=2&status=Authorized&createdAt=2023-11-14T22:13:20Z"), "")
	require.NoError(t, err)
	assert.Equal(t, models.PaymentTypeDeferred, ev.PaymentType, "%+v %+v", ev, ev.Transaction)
	if assert.NotNil(t, ev.Transaction, "%+v %+v", ev, ev.Transaction) {
		assert.Equal(t, models.StatusAuthorized, ev.Transaction.Status, "%+v %+v", ev, ev.Transaction)
	}
	assert.True(t, ev.CreatedAt.Equal(time.Unix(1700000000, 0)), "%+v %+v", ev, ev.Transaction)
	ev, err = ParseEvent([]byte("eventId=e&eventType=Cancel&status=Cancelled&createdAt=1700000000000"), formType)
	assert.NoError(t, err, "%+v %v", ev, err)
	assert.Equal(t, models.StatusCanceled, ev.Transaction.Status, "%+v %v", ev, err)
	assert.True(t, ev.Transaction.HasStatus, "%+v %v", ev, err)
}

func TestParseEventErrors(t *testing.T) {
	const ok = "eventId=e&createdAt=1700000000000&eventType=Authorize"
	_, err := ParseEvent([]byte(ok), formType)
	require.NoError(t, err, "the base case fails: %v", err)
	for name, tc := range map[string]struct{ body, ct string }{
		"empty":               {"", formType},
		"blank":               {"  \n", "application/json"},
		"json array":          {`[{"eventId":"e","createdAt":"1"}]`, "application/json"},
		"json trailing":       {`{"eventId":"e","createdAt":"1"} {}`, "application/json"},
		"json broken":         {`{"eventId":"e","createdAt":`, ""},
		"json null":           {`null`, "application/json"},
		"form as json":        {ok, "application/json"},
		"json as form":        {`{"eventId":"e","createdAt":"1"}`, formType},
		"text/plain":          {ok, "text/plain"},
		"bad content type":    {ok, "application/"},
		"bad escape":          {ok + "&x=%zz", formType},
		"no eventId":          {"createdAt=1700000000000&eventType=Authorize", formType},
		"empty eventId":       {"eventId=&createdAt=1700000000000", formType},
		"no createdAt":        {"eventId=e&eventType=Authorize", formType},
		"blank createdAt":     {"eventId=e&createdAt=+", formType},
		"json no eventId":     {`{"createdAt":"1","eventId":null}`, "application/json"},
		"repeated eventId":    {ok + "&eventId=b", formType},
		"repeated unknown":    {ok + "&x=1&x=1", formType},
		"repeated status":     {ok + "&status=2&status=5", formType},
		"bad createdAt":       {"eventId=e&createdAt=yesterday", formType},
		"bad status":          {ok + "&status=great", formType},
		"payment type name":   {ok + "&paymentType=Deferred", formType},
		"bad txn type":        {ok + "&transactionType=1.5", formType},
		"name with a slash":   {ok + "&a/b=1", formType},
		"name with a colon":   {"https://shop/r?eventId=e&createdAt=1", formType},
		"name with ;":         {ok + "&x;y=1", formType},
		"leading part":        {"junk&" + ok, formType},
		"name starts digit":   {ok + "&1x=1", formType},
		"establish field":     {ok + "&currency=USD", formType},
		"establish amount":    {ok + "&amount=10.00", formType},
		"establish customer":  {ok + "&customer.taxId=1", formType},
		"establish account":   {ok + "&account.accountNumber=1", formType},
		"redirect field":      {ok + "&payment.paymentType=2", formType},
		"return url":          {ok + "&returnUrl=x", formType},
		"json repeated key":   {`{"eventId":"a","createdAt":"1","eventId":"b"}`, "application/json"},
		"json repeated flat":  {`{"eventId":"a","createdAt":"1","a.b":"1","a":{"b":"2"}}`, "application/json"},
		"json array eventId":  {`{"eventId":["a","b"],"createdAt":"1"}`, "application/json"},
		"json foreign nested": {`{"eventId":"a","createdAt":"1","customer":{"taxId":"1"}}`, "application/json"},
		"json bad name":       {`{"eventId":"a","createdAt":"1","a?":"1"}`, "application/json"},
		"json too deep":       {`{"eventId":"a","createdAt":"1","a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `}`, "application/json"},
	} {
		ev, err := ParseEvent([]byte(tc.body), tc.ct)
		if assert.ErrorIs(t, err, ErrMalformedEvent, "%s: ev=%v err=%v", name, ev, err) {
			assert.Nil(t, ev, "%s: ev=%v err=%v", name, ev, err)
		}
	}
}

func TestParseEventErrorHidesValues(t *testing.T) {
	for _, body := range []string{"eventId=e&createdAt=123-45-6789xyz", "eventId=e&createdAt=1&123-45-6789/x=1",
		"eventId=e&createdAt=1&customer.taxId=123-45-6789", `{"eventId":"e","createdAt":"1","123-45-6789":1}`} {
		_, err := ParseEvent([]byte(body), "")
		if assert.Error(t, err, "%s: err %v", body, err) {
			assert.NotContains(t, err.Error(), "6789", "%s: err %v", body, err)
		}
	}
}

func TestEventKindString(t *testing.T) {
	for k, s := range map[eventKind]string{eventKindUnknown: "Unknown", eventKindTransaction: "Transaction",
		eventKindIdentityDataRetrieved: "IdentityDataRetrieved", eventKindIdentityVerified: "IdentityVerified", 9: "Unknown"} {
		assert.Equal(t, s, k.String(), "%d: %s", k, k.String())
	}
	assert.True(t, transactionEventTypes[models.EventType("Completed").Canonical()], "transactionEventTypes")
	assert.False(t, transactionEventTypes[models.EventCustomerIdentityVerified], "transactionEventTypes")
	assert.True(t, transactionEventTypes[models.EventRefresh], "transactionEventTypes")
	assert.False(t, transactionEventTypes["x"], "transactionEventTypes")
}

// TestParseEventJSONArrays: array elements are values of their array's
// name, objects in arrays included; a name repeated within one object is
// refused.
func TestParseEventJSONArrays(t *testing.T) {
	ev, err := ParseEvent([]byte(`{"eventId":"e","createdAt":1,"items":[{"k":1},{"k":"2","n":{"m":true}}]}`), "application/json")
	require.NoError(t, err)
	assert.Equal(t, []string{"1", "2"}, ev.Raw["items.k"], "raw %v", ev.Raw)
	assert.Equal(t, "true", ev.Raw.Get("items.n.m"), "raw %v", ev.Raw)
	_, err = ParseEvent([]byte(`{"eventId":"e","createdAt":1,"items":[{"k":1,"k":2}]}`), "application/json")
	assert.ErrorIs(t, err, ErrMalformedEvent, "repeated name in an array's object: %v", err)
}
