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

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

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
			require.NoError(t, VerifyNotification([]byte(b[0]), auth, hookCreds), "%s/%s", e.name, shape)
			w := post(t, h, b[0], auth, b[1])
			if assert.Equal(t, http.StatusOK, w.Code, "%s/%s", e.name, shape) && assert.Len(t, got, 1) {
				assert.Equal(t, e.kind, got[0].kind())
			}
		}
	}
}

// TestEventTypeCanonical: the two spellings of a type are one.
func TestEventTypeCanonical(t *testing.T) {
	for in, want := range map[models.EventType]models.EventType{
		"Completed": models.EventComplete, models.EventComplete: models.EventComplete,
		"Cancelled": models.EventCancel, "Expired": models.EventExpire,
		models.EventRefresh: models.EventRefresh, "Other": "Other",
	} {
		assert.Equal(t, want, in.Canonical(), string(in))
	}
	for _, typ := range []models.EventType{models.EventVerifyCustomer, models.EventConsentRevoked, "Completed"} {
		assert.True(t, transactionEventTypes[typ.Canonical()], string(typ))
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
			err := VerifyNotification([]byte(body), auth, hookCreds)
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
