package bankpay

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
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
		ObjectID: "100258123456791", ObjectType: "Transaction", TransactionID: "100258123456791", ParentObjectID: "100258123456789",
		TimeZone: "Etc/UTC", CreatedAt: time.UnixMilli(1700000000123).UTC(),
		Transaction: &TransactionEvent{Status: models.StatusProcessed, HasStatus: true, StatusMessage: "Processed", ProviderStatus: "10",
			ProviderStatusMessage: "Established", SplitToken: "tok+1", ErrorCode: "331"},
	}
	got := *ev
	got.Raw = nil
	assert.Equal(t, want, got, "got  %+v %+v\nwant %+v %+v", got, got.Transaction, want, want.Transaction)
	assert.Equal(t, want.Transaction, got.Transaction, "got  %+v %+v\nwant %+v %+v", got, got.Transaction, want, want.Transaction)
	assert.Equal(t, eventKindTransaction, ev.kind(), "kind %v id %s code %d", ev.kind(), ev.TransactionID, ev.Transaction.code())
	assert.Equal(t, "100258123456791", ev.TransactionID, "kind %v id %s code %d", ev.kind(), ev.TransactionID, ev.Transaction.code())
	assert.Equal(t, codeNotEnoughBalance, ev.Transaction.code(), "kind %v id %s code %d", ev.kind(), ev.TransactionID, ev.Transaction.code())
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
	assert.False(t, transactionEventTypes[ev.EventType], "%+v", ev)
	assert.Nil(t, ev.Transaction, "%+v", ev)
	want, _ := url.ParseQuery(body)
	assert.Equal(t, want, ev.Raw, "raw %v", ev.Raw)
	assert.Empty(t, ev.TransactionID, "a Dispute object is not a transaction")
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
		"negative status":     {ok + "&status=-1", formType},
		"negative txn type":   {ok + "&transactionType=-1", formType},
		"status Unknown":      {ok + "&status=Unknown", formType},
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
	assert.True(t, transactionEventTypes[wire.CanonicalEventType("Completed")], "transactionEventTypes")
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

// field is one name=value of a notification, in the order sent.
type field struct{ k, v string }

// docCreatedAt is the createdAt of the documented notifications.
var docCreatedAt = time.UnixMilli(1700000000000).UTC()

// common are the standard fields of a transaction event of type typ.
func common(id, typ string, extra ...field) []field {
	fs := []field{{"merchantId", "1002463580"}, {"merchantReference", "order-42"}, {"paymentType", "2"},
		{"transactionType", "1"}, {"eventId", id}, {"eventType", typ}, {"objectId", "1002593555"},
		{"objectType", "Transaction"}, {"message", ""}, {"timeZone", "Etc/UTC"}, {"createdAt", "1700000000000"},
		{"accessId", "hook-access-id"}}
	return append(fs, extra...)
}

// encodeFields encodes fs as the service does: form-urlencoded, in order.
func encodeFields(fs []field) string {
	parts := make([]string, len(fs))
	for i, f := range fs {
		parts[i] = url.QueryEscape(f.k) + "=" + url.QueryEscape(f.v)
	}
	return strings.Join(parts, "&")
}

// jsonBody encodes fs as the OpenAPI shows: a JSON object of strings
// (booleans for the names in bools), dotted names nested unless flat. The
// signature covers the URL-decoded body, so "%" and "+" are sent
// percent-encoded: the body decodes to the JSON document.
func jsonBody(t testing.TB, fs []field, flat bool, bools ...string) string {
	doc := map[string]any{}
	for _, f := range fs {
		var v any = f.v
		for _, b := range bools {
			if b == f.k {
				v = f.v == "true"
			}
		}
		parts := []string{f.k}
		if !flat {
			parts = strings.Split(f.k, ".")
		}
		m := doc
		for _, p := range parts[:len(parts)-1] {
			sub, ok := m[p].(map[string]any)
			if !ok {
				sub = map[string]any{}
				m[p] = sub
			}
			m = sub
		}
		m[parts[len(parts)-1]] = v
	}
	b, err := json.Marshal(doc)
	require.NoError(t, err)
	return strings.NewReplacer("%", "%25", "+", "%2B").Replace(string(b))
}

// docEvent is a genuine notification of a documented type and shape.
type docEvent struct {
	name   string
	fields []field
	bools  []string // names that are JSON booleans
	kind   eventKind
	check  func(t *testing.T, ev *Event)
}

func statusIs(st models.TransactionStatus) func(*testing.T, *Event) {
	return func(t *testing.T, ev *Event) {
		assert.True(t, ev.Transaction.HasStatus)
		assert.Equal(t, st, ev.Transaction.Status)
	}
}

// documentedEvents covers every type of the operator's material, in both
// spellings where its sources differ, with the conditional fields of each.
func documentedEvents() []docEvent {
	std := func(typ string, st models.TransactionStatus, extra ...field) docEvent {
		fs := common("ev-"+typ, typ, append([]field{{"status", strconv.Itoa(int(st))}, {"statusMessage", st.String()}}, extra...)...)
		return docEvent{name: typ, fields: fs, kind: eventKindTransaction, check: statusIs(st)}
	}
	evs := []docEvent{
		// The operator's published example: provider status AC100.
		{name: "Authorize (published example)", kind: eventKindTransaction, fields: []field{
			{"merchantId", "1002463580"}, {"merchantReference", "cb180040-7210-4ab9-97b7-415824754802"}, {"paymentType", "2"},
			{"transactionType", "3"}, {"eventId", "1002593570"}, {"eventType", "Authorize"}, {"objectId", "1002593555"},
			{"objectType", "Transaction"}, {"message", ""}, {"timeZone", "Etc/UTC"}, {"createdAt", "1700000000000"},
			{"accessId", "hook-access-id"}, {"paymentProviderTransaction.status", "AC100"},
			{"paymentProviderTransaction.statusMessage", "AC100"}, {"status", "2"}, {"statusMessage", "Authorized"}},
			check: func(t *testing.T, ev *Event) {
				assert.Equal(t, models.ProviderStatus("AC100"), ev.Transaction.ProviderStatus)
				assert.Equal(t, models.TypeCapture, ev.TransactionType)
			}},
	}
	for _, c := range []struct {
		typ   string
		st    models.TransactionStatus
		extra []field
		check func(*testing.T, *Event)
	}{
		{"Establish", models.StatusNew, []field{{"paymentProviderTransaction.status", "SW010"}, {"paymentProviderTransaction.statusMessage", "Established"}},
			func(t *testing.T, ev *Event) {
				assert.Equal(t, models.ProviderStatus("SW010"), ev.Transaction.ProviderStatus)
			}},
		{"Authorize", models.StatusAuthorized, []field{{"splitToken", "c3BsaXQ+dG9r/ZW4=="}, {"paymentProviderTransaction.status", "SW020"}},
			func(t *testing.T, ev *Event) {
				assert.Equal(t, "c3BsaXQ+dG9r/ZW4==", ev.Transaction.SplitToken)
				assert.Equal(t, models.ProviderStatus("SW020"), ev.Transaction.ProviderStatus)
			}},
		{"DataReady", models.StatusAuthorized, nil, nil},
		{"Update", models.StatusAuthorized, []field{{"fiName", "Farmers & Merchants Bank"}},
			func(t *testing.T, ev *Event) { assert.Equal(t, "Farmers & Merchants Bank", ev.Transaction.FIName) }},
		{"Process", models.StatusProcessed, []field{{"parentObjectId", "1002593500"}},
			func(t *testing.T, ev *Event) { assert.Equal(t, "1002593500", ev.ParentObjectID) }},
		{"Complete", models.StatusCompleted, nil, nil},
		{"Completed", models.StatusCompleted, []field{{"paymentProviderTransaction.status", "AC105"}, {"paymentProviderTransaction.statusMessage", "Settled"}},
			func(t *testing.T, ev *Event) {
				assert.Equal(t, models.ProviderStatus("AC105"), ev.Transaction.ProviderStatus)
			}},
		{"Cancel", models.StatusCanceled, []field{{"paymentProviderTransaction.status", "UC01"}}, nil},
		{"Cancelled", models.StatusCanceled, nil, nil},
		{"Expire", models.StatusExpired, nil, nil},
		{"Expired", models.StatusExpired, []field{{"paymentProviderTransaction.status", "SW013"}, {"paymentProviderTransaction.statusMessage", "Expired"}}, nil},
		{"Failed", models.StatusFailed, []field{{"errorCode", "331"}, {"suggestedRetryAmount", "25.00"},
			{"paymentProviderTransaction.status", "SW021"}, {"paymentProviderTransaction.reasonCode", "R01"},
			{"paymentProviderTransaction.reasonCodeMessage", "Insufficient funds"}},
			func(t *testing.T, ev *Event) {
				tx := ev.Transaction
				assert.Equal(t, codeNotEnoughBalance, tx.code())
				assert.Equal(t, models.Amount("25.00"), tx.SuggestedRetryAmount)
				assert.Equal(t, "R01", tx.ProviderReasonCode)
				assert.Equal(t, "Insufficient funds", tx.ProviderReasonCodeMessage)
			}},
		{"Deny", models.StatusDenied, []field{{"paymentProviderTransaction.status", "SW021"}}, nil},
		{"Reconcile", models.StatusCompleted, nil, nil},
		{"Refund", models.StatusRefunded, []field{{"parentObjectId", "1002593500"}}, nil},
		{"Reverse", models.StatusReversed, nil, nil},
		{"Refresh", models.StatusAuthorized, []field{{"hardRefresh", "true"}, {"refreshPurpose", "balance"}, {"success", "false"},
			{"paymentProviderTransaction.status", "AC100"}},
			func(t *testing.T, ev *Event) {
				r := ev.Transaction.Refresh
				require.NotNil(t, r)
				assert.True(t, r.HardRefresh)
				assert.Equal(t, "balance", r.Purpose)
				require.NotNil(t, r.Success)
				assert.False(t, *r.Success)
			}},
		{"VerifyCustomer", models.StatusAuthorized, []field{{"customer.name", "Jane Doe"}},
			func(t *testing.T, ev *Event) { assert.Equal(t, "Jane Doe", ev.Transaction.CustomerName) }},
		{"CONSENT_REVOKED", models.StatusAuthorized, nil, nil},
	} {
		e := std(c.typ, c.st, c.extra...)
		if c.typ == "Refresh" {
			e.bools = []string{"hardRefresh", "success"}
		}
		if more := c.check; more != nil {
			base := e.check
			e.check = func(t *testing.T, ev *Event) { base(t, ev); more(t, ev) }
		}
		evs = append(evs, e)
	}
	evs = append(evs,
		docEvent{name: "Dispute", kind: eventKindTransaction, fields: []field{{"createdAt", "1700000000000"}, {"eventId", "ev-dispute"},
			{"eventType", "Dispute"}, {"objectId", "1002593555"}, {"objectType", "Transaction"}, {"reference", "RET-1"},
			{"transactionId", "1002593555"}, {"transactionDatetime", "2023-11-14T22:13:20Z"}, {"returnType", "R10"},
			{"customerId", "C-9"}, {"returnDatetime", "2023-11-16T10:00:00Z"}, {"amountReturned", "12.50"}},
			check: func(t *testing.T, ev *Event) {
				assert.False(t, ev.Transaction.HasStatus, "a Dispute carries no status")
				assert.Equal(t, models.StatusUnknown, ev.Transaction.Status, "a status the event did not give is not New")
				assert.Equal(t, models.TypeUnknown, ev.TransactionType, "a type the event did not give is not External")
				assert.Equal(t, &DisputeDetails{Reference: "RET-1", TransactionID: "1002593555", TransactionDatetime: "2023-11-14T22:13:20Z",
					ReturnType: "R10", CustomerID: "C-9", ReturnDatetime: "2023-11-16T10:00:00Z", AmountReturned: "12.50"}, ev.Transaction.Dispute)
			}},
		docEvent{name: "IdentityVerificationDataRetrieved", kind: eventKindIdentityDataRetrieved,
			fields: common("ev-idr", "IdentityVerificationDataRetrieved", field{"Provider Report Status", "SUCCESS"},
				field{"Provider Service Name", "IdentityData"}, field{"Provider used for validation", "Demo KYC"}),
			check: func(t *testing.T, ev *Event) {
				assert.Equal(t, IdentityEvent{ProviderReportStatus: "SUCCESS", ProviderServiceName: "IdentityData", ProviderUsedForValidation: "Demo KYC"}, *ev.Identity)
			}},
		docEvent{name: "CustomerIdentityVerified", kind: eventKindIdentityVerified,
			fields: common("ev-civ", "CustomerIdentityVerified", field{"Identity Verified", "FINISHED"}, field{"KYC Result", "FINISHED"}),
			check: func(t *testing.T, ev *Event) {
				assert.Equal(t, IdentityEvent{IdentityVerified: "FINISHED", KYCResult: "FINISHED"}, *ev.Identity)
			}},
		docEvent{name: "unknown type and fields", kind: eventKindUnknown,
			fields: common("ev-new", "Chargeback", field{"thirdPartyDeclineCode", "T1"}, field{"new.nested_name-2", "x"})},
	)
	return evs
}

// docBodies are the encodings of e: form as the service sends it, JSON
// nested and JSON with literal dotted names (EventExpire's shape).
func docBodies(t testing.TB, e docEvent) map[string][2]string {
	return map[string][2]string{
		"form":        {encodeFields(e.fields), formType},
		"json":        {jsonBody(t, e.fields, false, e.bools...), "application/json"},
		"json dotted": {jsonBody(t, e.fields, true, e.bools...), "application/json"},
	}
}

// TestParseEventEveryDocumentedType: every documented type in every shape
// decodes, keeps each field as sent in Raw, and types the conditional
// fields.
func TestParseEventEveryDocumentedType(t *testing.T) {
	for _, e := range documentedEvents() {
		for shape, b := range docBodies(t, e) {
			t.Run(e.name+"/"+shape, func(t *testing.T) {
				ev, err := ParseEvent([]byte(b[0]), b[1])
				require.NoError(t, err)
				assert.Equal(t, e.kind, ev.kind())
				assert.Equal(t, docCreatedAt, ev.CreatedAt)
				want := url.Values{}
				for _, f := range e.fields {
					want.Set(f.k, f.v)
				}
				assert.Equal(t, want, ev.Raw)
				if e.kind == eventKindTransaction {
					require.NotNil(t, ev.Transaction)
				}
				if e.check != nil {
					e.check(t, ev)
				}
			})
		}
	}
}

// TestWebhookHandlerEveryDocumentedType: the handler verifies and accepts
// every documented notification, in every shape, and hands each to the
// callback of its kind once; none is refused.
func TestWebhookHandlerEveryDocumentedType(t *testing.T) {
	for _, e := range documentedEvents() {
		for shape, b := range docBodies(t, e) {
			var got []*Event
			record := func(_ context.Context, ev *Event) error { got = append(got, ev); return nil }
			h := NewWebhookHandler(hookCreds, func(ctx context.Context, ev *Event) error {
				switch ev.kind() {
				case eventKindTransaction:
					if ev.Transaction == nil {
						return errors.New("no transaction payload")
					}
				case eventKindIdentityDataRetrieved:
					if ev.EventType != models.EventIdentityVerificationDataRetrieved {
						return errors.New("no data-retrieved payload")
					}
				case eventKindIdentityVerified:
					if ev.EventType != models.EventCustomerIdentityVerified {
						return errors.New("no verified payload")
					}
				}
				return record(ctx, ev)
			}, WithWebhookClock(func() time.Time { return docCreatedAt.Add(time.Minute) }))
			auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), b[0])
			require.NoError(t, verifyErr(VerifyNotification([]byte(b[0]), auth, hookCreds)), "%s/%s", e.name, shape)
			w := post(t, h, b[0], auth, b[1])
			if assert.Equal(t, http.StatusOK, w.Code, "%s/%s", e.name, shape) && assert.Len(t, got, 1) {
				assert.Equal(t, e.kind, got[0].kind())
			}
		}
	}
}

// TestEventTypeCanonical: the two spellings of a type read as one, the
// models constant's; Raw keeps the spelling received.
func TestEventTypeCanonical(t *testing.T) {
	for in, want := range map[string]models.EventType{
		"Completed": models.EventComplete, "Complete": models.EventComplete,
		"Cancelled": models.EventCancel, "Cancel": models.EventCancel, "Expired": models.EventExpire, "Expire": models.EventExpire,
		"Refresh": models.EventRefresh, "Other": "Other", "completed": "completed",
	} {
		ev, err := ParseEvent([]byte("eventId=ev-1&createdAt=1700000000000&eventType="+in), formType)
		require.NoError(t, err, in)
		assert.Equal(t, want, ev.EventType, in)
		assert.Equal(t, in, ev.Raw.Get("eventType"), "Raw keeps the spelling received")
		assert.Equal(t, want, wire.CanonicalEventType(models.EventType(in)), in)
	}
	for _, typ := range []string{string(models.EventVerifyCustomer), string(models.EventConsentRevoked), "Completed", "Cancelled", "Expired"} {
		ev, err := ParseEvent([]byte("eventId=ev-1&createdAt=1700000000000&eventType="+typ), formType)
		require.NoError(t, err, typ)
		assert.Equal(t, eventKindTransaction, ev.kind(), typ)
		assert.NotNil(t, ev.Transaction, typ)
	}
}

// TestNotificationNeverEstablishOrRedirect (issue 10, hole 1): the
// canonical establish string the merchant signs and a signed redirect URL,
// posted with their own valid signatures, never verify as notifications
// and never reach a callback.
func TestNotificationNeverEstablishOrRedirect(t *testing.T) {
	vip := 1
	d := &models.EstablishData{AccessID: hookCreds.AccessID, MerchantID: hookCreds.MerchantID, Description: "Order 42",
		Currency: models.USD, Amount: "10.00", MerchantReference: "order-42", PaymentType: models.PaymentTypeDeferred,
		Customer: &models.Customer{Name: "Jane Doe", VIP: &vip, Email: "jane@example.com"}}
	establish := sign.EstablishMessage(d)
	require.Contains(t, establish, "paymentType=Deferred&")
	// The minimal establish strings too: no description, amount or currency.
	minimal := sign.EstablishMessage(&models.EstablishData{AccessID: hookCreds.AccessID, MerchantID: hookCreds.MerchantID,
		MerchantReference: "r", PaymentType: models.PaymentTypeDeferred})
	numeric := "accessId=" + hookCreds.AccessID + "&merchantId=M1&merchantReference=r&paymentType=2"
	redirect := "https://shop.example/pay/return?transactionId=100258123456789&transactionType=1&merchantReference=order-42" +
		"&status=2&payment.paymentType=2&panel=1&payment.paymentProviderTransaction.status=10"
	_, query, _ := strings.Cut(redirect, "?")
	// Even a query that names an eventId and a createdAt is a redirect.
	queryWithEvent := "eventId=e&createdAt=1700000000000&" + query

	var calls int
	h := NewWebhookHandler(hookCreds, func(context.Context, *Event) error { calls++; return nil },
		WithWebhookClock(func() time.Time { return docCreatedAt }))
	for name, msg := range map[string]string{"establish": establish, "minimal establish": minimal,
		"numeric establish": numeric, "redirect URL": redirect, "redirect query": query, "redirect query with event": queryWithEvent} {
		// The body that URL-decodes to the signed message, and the header
		// made of the merchant's own signature of it.
		for _, body := range []string{url.QueryEscape(msg), strings.ReplaceAll(msg, "+", "%2B"), url.PathEscape(msg)} {
			if m, err := url.QueryUnescape(body); err != nil || m != msg {
				continue
			}
			auth := authFor(t, hookCreds.AccessID, hookCreds.AccessKey.Reveal(), body)
			err := verifyErr(VerifyNotification([]byte(body), auth, hookCreds))
			assert.ErrorIs(t, err, ErrMalformedEvent, name)
			_, err = ParseEvent([]byte(body), "")
			assert.ErrorIs(t, err, ErrMalformedEvent, name)
			for _, ct := range []string{formType, "application/json", ""} {
				w := post(t, h, body, auth, ct)
				assert.Equal(t, http.StatusBadRequest, w.Code, "%s %q", name, ct)
			}
		}
	}
	assert.Zero(t, calls, "a callback ran")
}

// TestParseEventJSONPlus: a raw "+" in a JSON body is signed as a space (the
// documented signature covers the URL-decoded body). Values are read as
// sent, so that a Base64 splitToken keeps its "+"; the eventId is read as
// signed: reading the raw "+" there would let "a+b", "a b" and "a%20b" be
// three eventIds of one signature, three runs of one de-duplicated event.
func TestParseEventJSONPlus(t *testing.T) {
	var ids, tokens []string
	for _, body := range []string{`{"eventId":"a+b","createdAt":"1","splitToken":"Ab+c/d="}`,
		`{"eventId":"a b","createdAt":"1","splitToken":"Ab+c/d="}`,
		`{"eventId":"a%20b","createdAt":"1","splitToken":"Ab%2Bc/d="}`, `{"eventId":"a%2Bb","createdAt":"1","splitToken":"Ab%2Bc/d="}`} {
		ev, err := ParseEvent([]byte(body), "application/json")
		require.NoError(t, err)
		ids = append(ids, ev.EventID)
		assert.Equal(t, ev.EventID, ev.Raw.Get("eventId"))
		tokens = append(tokens, ev.Transaction.SplitToken)
	}
	assert.Equal(t, []string{"a b", "a b", "a b", "a+b"}, ids)
	assert.Equal(t, []string{"Ab+c/d=", "Ab+c/d=", "Ab+c/d=", "Ab+c/d="}, tokens)
}

func FuzzParseEvent(f *testing.F) {
	f.Add([]byte(processForm), formType)
	f.Add([]byte(eventBody("ev-1", "Authorize")), "")
	f.Add([]byte("eventId=e&eventType=IdentityVerificationDataRetrieved&Provider+Report+Status=SUCCESS"), formType)
	f.Add([]byte("eventId=e&eventType=CustomerIdentityVerified&Identity+Verified=FINISHED&KYC+Result=FINISHED"), formType)
	f.Add([]byte(`{"eventId":"e","eventType":"Completed","status":4,"paymentProviderTransaction":{"status":10}}`), "application/json")
	f.Add([]byte(`{"a":[{"b":[1,{"c":null}]}],"createdAt":"2023-11-14T22:13:20Z"}`), "application/json; charset=utf-8")
	f.Add([]byte("eventId=%zz"), formType)
	f.Add([]byte(`[1,2]`), "application/json")
	f.Add([]byte("status=Cancelled&createdAt=1.7e12"), "text/plain")
	f.Add([]byte(""), "")
	f.Add([]byte("eventId=e&createdAt=1&fiName=A+%26+B&a%3Db=c"), formType)
	f.Add([]byte("%7B%22eventId%22:%22e%22,%22createdAt%22:1%7D"), "")
	f.Fuzz(func(t *testing.T, body []byte, contentType string) {
		ev, err := ParseEvent(body, contentType)
		// What a form (or a JSON body sent URL-encoded) reads depends on
		// the URL-decoded body alone: another encoding of it reads the
		// same. A JSON object is read as sent.
		if msg, uerr := url.QueryUnescape(string(body)); uerr == nil && !rawJSONObject(body, contentType) {
			ev2, err2 := ParseEvent([]byte(url.QueryEscape(msg)), contentType)
			require.Equal(t, err == nil, err2 == nil, "re-encoded: %+v %v; as received: %+v %v", ev2, err2, ev, err)
			if err == nil {
				require.Equal(t, ev, ev2, "re-encoded: %+v %v; as received: %+v %v", ev2, err2, ev, err)
			}
		}
		if err != nil {
			require.Nil(t, ev, "ev=%v err=%v", ev, err)
			require.ErrorIs(t, err, ErrMalformedEvent, "ev=%v err=%v", ev, err)
			return
		}
		require.NotNil(t, ev, "nil event or Raw")
		require.NotNil(t, ev.Raw, "nil event or Raw")
		switch ev.kind() {
		case eventKindTransaction:
			require.NotNil(t, ev.Transaction, "transaction event without payload")
		case eventKindIdentityDataRetrieved, eventKindIdentityVerified:
			require.NotNil(t, ev.Identity, "identity event without payload")
		default:
			require.Nil(t, ev.Identity, "identity payload on another event")
		}
		got := ev.Raw.Get("eventId")
		require.Equal(t, ev.EventID, got, "eventId %q, raw %q, createdAt %v", ev.EventID, got, ev.CreatedAt)
		require.NotEmpty(t, strings.TrimSpace(got), "eventId %q, raw %q, createdAt %v", ev.EventID, got, ev.CreatedAt)
		require.False(t, ev.CreatedAt.IsZero(), "eventId %q, raw %q, createdAt %v", ev.EventID, got, ev.CreatedAt)
		for k, vs := range ev.Raw {
			require.False(t, foreignField(k), "field %q=%q", k, vs)
			require.NotEmpty(t, vs, "field %q=%q", k, vs)
			if !isJSONBody(body, contentType) {
				require.Len(t, vs, 1, "field %q=%q", k, vs)
			}
		}
	})
}

// Event.TransactionID is ObjectID when the object is a transaction (its
// objectType in any case, or none sent), and empty for any other object.
func TestParseEventTransactionID(t *testing.T) {
	for objectType, want := range map[string]string{
		"&objectType=Transaction": "T7", "&objectType=TRANSACTION": "T7", "&objectType=transaction": "T7", "": "T7",
		"&objectType=Dispute": "", "&objectType=Transactions": "",
	} {
		ev, err := ParseEvent([]byte("eventId=ev-5&eventType=Process&objectId=T7&createdAt=1"+objectType), formType)
		require.NoError(t, err, objectType)
		assert.Equal(t, want, ev.TransactionID, "objectType %q", objectType)
		assert.Equal(t, "T7", ev.ObjectID, "objectType %q", objectType)
	}
}

// A status or type code beyond int32 is refused, as the decoder refuses
// it: on a 32-bit platform it would wrap (4294967298 reading as 2).
func TestParseEventCodeBeyondInt32Refused(t *testing.T) {
	for _, extra := range []string{"status=4294967298", "transactionType=4294967298", "paymentType=4294967298", "status=2147483648"} {
		_, err := ParseEvent([]byte(minimal("ev-1", "Authorize", extra)), "")
		require.ErrorIs(t, err, ErrMalformedEvent, extra)
	}
}
