package contract

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand"
	"net/http"
	"net/http/httptest"
	"net/url"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
)

// EventsPerType is how many payloads are generated per documented event;
// each is posted as JSON and as a form.
const EventsPerType = 10

// webhookCase is one notification to post.
type webhookCase struct {
	event   string
	seed    int64
	payload map[string]any // the JSON object; the form carries Flatten(payload)
}

// openAPIEvents generates the OpenAPI's events from their schemas; the
// eventType is the webhook's name.
func openAPIEvents(t *testing.T, spec *Spec) []webhookCase {
	var out []webhookCase
	names := make([]string, 0, len(spec.Webhooks))
	for n := range spec.Webhooks {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, name := range names {
		for i := 0; i < EventsPerType; i++ {
			seed := seedOf("webhook "+name, i)
			v, _, err := Generate(spec.Webhooks[name], seed, All)
			require.NoError(t, err)
			obj, ok := v.(map[string]any)
			require.True(t, ok, "%s: an object", name)
			obj["eventType"] = name
			// The OpenAPI's event schemas type the codes as free strings;
			// the service sends numeric codes (the sandbox's notifications
			// carry them, TestSandbox), and the SDK reads the numbers (a
			// payment type name marks establish data): for each code the
			// schema leaves a free string, the generator draws a numeric
			// one while that code's row allows it.
			rng := rand.New(rand.NewSource(seed))
			props := SchemaProperties(spec.Webhooks[name])
			for _, k := range []string{"paymentType", "transactionType", "status"} {
				n := map[string]int{"paymentType": 6, "transactionType": 10, "status": 14}[k]
				if _, ok := obj[k]; !ok || !freeString(props[k]) {
					continue
				}
				if d := Excuse(InWebhook, name, "codes: the event schema types "+k+" as a free string; the service sends a numeric code"); d != nil {
					obj[k] = strconv.Itoa(1 + rng.Intn(n))
					markUsed(d.ID)
				}
			}
			addStandardFields(obj, rand.New(rand.NewSource(seed+1)))
			out = append(out, webhookCase{name, seed, obj})
		}
	}
	// The spellings and types the spec and the service use beside the
	// OpenAPI's webhook names, made from the transaction event schema
	// (Completed) with the standard fields.
	for _, typ := range otherEventTypes {
		for i := 0; i < EventsPerType; i++ {
			seed := seedOf("webhook "+typ, i)
			v, _, err := Generate(spec.Webhooks["Completed"], seed, All)
			require.NoError(t, err)
			obj := v.(map[string]any)
			obj["eventType"] = typ
			rng := rand.New(rand.NewSource(seed))
			for k, n := range map[string]int{"paymentType": 6, "transactionType": 10, "status": 14} {
				obj[k] = strconv.Itoa(1 + rng.Intn(n))
			}
			addStandardFields(obj, rng)
			out = append(out, webhookCase{typ, seed, obj})
		}
	}
	return out
}

// freeString reports a schema of type string with no enum, format or
// pattern: any text.
func freeString(s *base.Schema) bool {
	return s != nil && len(s.Type) == 1 && s.Type[0] == "string" && len(s.Enum) == 0 && s.Format == "" && s.Pattern == ""
}

// otherEventTypes are the event types (and spellings) the service sends
// that are not the OpenAPI's webhook names.
var otherEventTypes = []string{"Complete", "Cancel", "Cancelled", "Expire", "Process", "Deny", "Reconcile", "Refund", "Reverse"}

// addStandardFields sets the notification fields of the spec that the
// OpenAPI's event schemas do not list: accessId, parentObjectId, errorCode,
// the provider's reasonCode and its message, suggestedRetryAmount.
func addStandardFields(obj map[string]any, rng *rand.Rand) {
	w := wordList()
	word := func() string { return w[rng.Intn(len(w))] }
	obj["accessId"] = word()
	obj["parentObjectId"] = strconv.FormatInt(1_000_000_000+rng.Int63n(1_000_000_000), 10)
	obj["errorCode"] = strconv.Itoa(100 + rng.Intn(900))
	obj["suggestedRetryAmount"] = fmt.Sprintf("%d.%02d", rng.Intn(1000), rng.Intn(100))
	ppt, _ := obj["paymentProviderTransaction"].(map[string]any)
	if ppt == nil {
		ppt = map[string]any{}
		obj["paymentProviderTransaction"] = ppt
	}
	ppt["reasonCode"] = fmt.Sprintf("R%02d", rng.Intn(100))
	ppt["reasonCodeMessage"] = word()
}

// identityEvents makes the spec's two identity events, with the values the
// spec gives (paymentType 2, transactionType 1, objectType Transaction,
// message performKycVerification) and words from the word list elsewhere.
func identityEvents() []webhookCase {
	var out []webhookCase
	w := wordList()
	for _, name := range []string{"IdentityVerificationDataRetrieved", "CustomerIdentityVerified"} {
		for i := 0; i < EventsPerType; i++ {
			seed := seedOf("webhook "+name, i)
			rng := rand.New(rand.NewSource(seed))
			obj := map[string]any{}
			for _, f := range append(append([]string(nil), IdentityCommonFields...), IdentityEvents[name]...) {
				obj[f] = w[rng.Intn(len(w))]
			}
			obj["eventType"], obj["paymentType"], obj["transactionType"] = name, "2", "1"
			obj["objectType"], obj["message"] = "Transaction", "performKycVerification"
			obj["createdAt"] = strconv.FormatInt(1_700_000_000_000+rng.Int63n(100_000_000_000), 10)
			out = append(out, webhookCase{name, seed, obj})
		}
	}
	return out
}

// post sends body to a fresh webhook handler and returns its status, its
// answer and the event the callback got (nil if none).
func post(t *testing.T, body []byte, contentType string, createdAt time.Time) (int, string, *bankpay.Event) {
	t.Helper()
	var got *bankpay.Event
	h := bankpay.NewWebhookHandler(testCreds, func(_ context.Context, e *bankpay.Event) error {
		got = e
		return nil
	}, bankpay.WithWebhookClock(func() time.Time { return createdAt.Add(time.Second) }))
	auth, err := bankpaytest.SignNotification(body, testCreds)
	if err != nil {
		// A JSON body that is not URL-decodable (a literal "%"): the
		// service signs its raw bytes.
		mac := hmac.New(sha1.New, []byte(testCreds.AccessKey.Reveal()))
		mac.Write(body)
		auth = "Basic " + base64.StdEncoding.EncodeToString([]byte(testCreds.AccessID+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil))))
	}
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(body))
	req.Header.Set("Content-Type", contentType)
	req.Header.Set("Authorization", auth)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec.Code, strings.TrimSpace(rec.Body.String()), got
}

// fieldDiff is a field of a notification the SDK did not read as sent.
type fieldDiff struct{ field, sent, got, where string }

func (d fieldDiff) String() string {
	return fmt.Sprintf("%s: sent %q, %s %q", d.field, d.sent, d.where, d.got)
}

// checkEvent compares every field sent with what the SDK read: Raw holds
// each field exactly, and each typed field its value.
func checkEvent(sent url.Values, e *bankpay.Event) []fieldDiff {
	var bad []fieldDiff
	for k := range sent {
		want := sent.Get(k)
		if got := e.Raw.Get(k); got != want || len(e.Raw[k]) != 1 {
			bad = append(bad, fieldDiff{k, want, got, "Raw holds"})
		}
		if read, ok := EventTypeRead[want]; ok && k == "eventType" {
			want = read
		}
		if f, ok := EventFields[k]; ok {
			got, has := f(e)
			if !has {
				bad = append(bad, fieldDiff{k, want, "", "the event has no place for it, typed"})
			} else if got != want && !sameNumber(got, want) {
				bad = append(bad, fieldDiff{k, want, got, "typed"})
			}
		}
	}
	// TransactionID is the objectId of a transaction's event, "" for
	// another object's.
	wantID := ""
	if ot := sent.Get("objectType"); ot == "" || strings.EqualFold(ot, "Transaction") {
		wantID = sent.Get("objectId")
	}
	if e.TransactionID != wantID {
		bad = append(bad, fieldDiff{"objectId", wantID, e.TransactionID, "TransactionID"})
	}
	for k := range e.Raw {
		if _, ok := sent[k]; !ok {
			bad = append(bad, fieldDiff{k, "", e.Raw.Get(k), "not sent, Raw holds"})
		}
	}
	sort.Slice(bad, func(i, j int) bool { return bad[i].String() < bad[j].String() })
	return bad
}

// describeJSON names a difference of a JSON notification as the allow-list
// does: a value read URL-decoded (exactly so) from a body holding "%", or
// an eventId whose "+" reads as the space it is signed as; "" for anything
// else.
func describeJSON(body []byte, d fieldDiff) string {
	if dec, err := url.QueryUnescape(d.sent); err == nil && dec == d.got && bytes.ContainsRune(body, '%') {
		return `json: a body holding "%" whose signature covers it URL-decoded is read URL-decoded`
	}
	if d.field == "eventId" && d.got == strings.ReplaceAll(d.sent, "+", " ") {
		return `json: eventId read as signed ("+" as a space)`
	}
	return ""
}

// ambiguousForm reports a form whose URL-decoded body reads differently:
// a value holding "&" followed by "=".
func ambiguousForm(fields url.Values) bool {
	for _, vs := range fields {
		for _, v := range vs {
			if i := strings.IndexByte(v, '&'); i >= 0 && strings.Contains(v[i:], "=") {
				return true
			}
		}
	}
	return false
}

// asSigned is what the documented signature covers of a form body: its
// URL-decoding, read as fields split at "&" and at each field's first "="
// (not decoded again).
func asSigned(t *testing.T, body []byte) url.Values {
	t.Helper()
	dec, err := url.QueryUnescape(string(body))
	require.NoError(t, err)
	out := url.Values{}
	for _, kv := range strings.Split(dec, "&") {
		k, v, _ := strings.Cut(kv, "=")
		out.Add(k, v)
	}
	return out
}

// repeatedField returns a field name fields holds more than once.
func repeatedField(fields url.Values) (string, bool) {
	for k, vs := range fields {
		if len(vs) > 1 {
			return k, true
		}
	}
	return "", false
}

func TestWebhooks(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	require.Len(t, spec.Webhooks, 10, "the OpenAPI's events")
	defer markRan(InWebhook)
	cases := append(openAPIEvents(t, spec), identityEvents()...)
	// The case: a Base64 split token in a JSON Authorize event keeps
	// its "+" (the capture needs it as issued).
	cases = append(cases, webhookCase{"Authorize", 0, map[string]any{"createdAt": "1772722800000", "eventId": "evt-split-1",
		"eventType": "Authorize", "merchantId": "1002463580", "merchantReference": "ord-7", "objectId": "1002463581",
		"objectType": "Transaction", "paymentType": "2", "transactionType": "1", "status": "2", "statusMessage": "Authorized",
		"timeZone": "Etc/GMT+5", "splitToken": "Ab+cD/eF+gH="}})
	counts := map[string]int{}
	ambiguous, repeated := 0, 0
	failures := map[string][]string{}
	for _, c := range cases {
		for _, enc := range []string{"json", "form"} {
			sent := Flatten(c.payload)
			var body []byte
			ct := "application/x-www-form-urlencoded"
			if enc == "json" {
				var b bytes.Buffer
				e := json.NewEncoder(&b)
				e.SetEscapeHTML(false)
				require.NoError(t, e.Encode(c.payload))
				body, ct = bytes.TrimSpace(b.Bytes()), "application/json"
			} else {
				body = FormBody(sent)
				if ambiguousForm(sent) {
					// The documented signature covers the URL-decoded body,
					// and the event is the one it covers: the fields that
					// body reads, the "&" splitting the value.
					sent = asSigned(t, body)
					ambiguous++
				}
			}
			ms, err := strconv.ParseInt(sent.Get("createdAt"), 10, 64)
			require.NoError(t, err, "%s createdAt", c.event)
			if name, ok := repeatedField(sent); ok {
				// Two values split so name the same field twice: a
				// repeated field is ErrMalformedEvent, which the handler
				// answers with 400, the callback not called.
				status, _, ev := post(t, body, ct, time.UnixMilli(ms))
				counts[c.event+" "+enc]++
				repeated++
				if status != http.StatusBadRequest || ev != nil {
					key := fmt.Sprintf("%s as %s", c.event, enc)
					failures[key] = append(failures[key], fmt.Sprintf("seed %d: %q repeated as signed: %d (event %v), want 400 and no event", c.seed, name, status, ev != nil))
				}
				continue
			}
			status, answer, ev := post(t, body, ct, time.UnixMilli(ms))
			counts[c.event+" "+enc]++
			key := fmt.Sprintf("%s as %s", c.event, enc)
			switch {
			case status != http.StatusOK || ev == nil:
				failures[key] = append(failures[key], fmt.Sprintf("seed %d: %d %q for %s", c.seed, status, answer, body))
			default:
				var left []string
				for _, d := range checkEvent(sent, ev) {
					if enc == "json" {
						if row := Excuse(InWebhook, c.event, describeJSON(body, d)); row != nil {
							markUsed(row.ID)
							continue
						}
					}
					left = append(left, d.String())
				}
				if len(left) > 0 {
					failures[key] = append(failures[key], fmt.Sprintf("seed %d: %s\n        body %s", c.seed, strings.Join(left, "; "), body))
				}
			}
		}
	}
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var lines []string
	for _, k := range keys {
		lines = append(lines, fmt.Sprintf("%-45s %d posted, %d failed", k, counts[k], len(failures[strings.Replace(k, " ", " as ", 1)])))
	}
	t.Logf("webhook cases (%d events × %d payloads, and the split-token case, × JSON and form = %d; %d form cases with a value holding \"&\" then \"=\", read as the URL-decoded body the signature covers, %d of them naming a field twice so, refused):\n%s",
		len(keys)/2, EventsPerType, 2*len(cases), ambiguous, repeated, strings.Join(lines, "\n"))
	assert.Greater(t, ambiguous, repeated, "the generated forms hold the \"&\" case read as signed")
	assert.Positive(t, repeated, "the generated forms hold the \"&\" case refused")
	assert.Len(t, keys, 2*(12+len(otherEventTypes)), "every event type, JSON and form")
	for k, f := range failures {
		t.Errorf("%s: %d failed; e.g. %s", k, len(f), clip(f[0]))
	}
}

// TestEventFields_bothWays checks the webhook map (EventFields) both ways:
// every property of every event schema of the OpenAPI (nested objects
// dotted) is mapped or listed as unread, and every Go field of the event
// types is read by some mapping (setting it changes what the map reads) or
// listed as off the wire.
func TestEventFields_bothWays(t *testing.T) {
	spec, err := LoadSpec(nil)
	require.NoError(t, err)
	for name, schema := range spec.Webhooks {
		var walk func(prefix string, s *base.Schema)
		walk = func(prefix string, s *base.Schema) {
			for k, p := range SchemaProperties(s) {
				field := join(prefix, k)
				if p != nil && len(SchemaProperties(p)) > 0 {
					walk(field, p)
					continue
				}
				_, mapped := EventFields[field]
				_, unread := UnreadEventFields[field]
				assert.True(t, mapped || unread, "webhook %s: property %s is neither in EventFields nor unread", name, field)
			}
		}
		walk("", schema)
	}

	// Each Go field, set on its own, must change what some mapping reads.
	full := &bankpay.Event{Transaction: &bankpay.TransactionEvent{Refresh: &bankpay.RefreshResult{}, Dispute: &bankpay.DisputeDetails{}},
		Identity: &bankpay.IdentityEvent{}}
	read := func() map[string]string {
		out := map[string]string{}
		for k, f := range EventFields {
			out[k], _ = f(full)
		}
		return out
	}
	base0 := read()
	var visit func(prefix string, v reflect.Value)
	visit = func(prefix string, v reflect.Value) {
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if !f.IsExported() {
				continue
			}
			path := join(prefix, f.Name)
			fv := v.Field(i)
			if fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.Struct && !fv.IsNil() {
				visit(path, fv.Elem())
			}
			if _, off := EventOffWire[path]; off {
				continue
			}
			old := reflect.New(fv.Type()).Elem()
			old.Set(fv)
			switch {
			case fv.Type() == reflect.TypeOf(time.Time{}):
				fv.Set(reflect.ValueOf(time.UnixMilli(1_772_722_800_123)))
			case fv.Kind() == reflect.String:
				fv.SetString("v-" + f.Name)
			case fv.Kind() == reflect.Int:
				fv.SetInt(7)
			case fv.Kind() == reflect.Bool:
				fv.SetBool(true)
			case fv.Kind() == reflect.Pointer && fv.Type().Elem().Kind() == reflect.Bool:
				fv.Set(reflect.ValueOf(bp(true)))
			default:
				t.Errorf("event field %s: a %s the check cannot set", path, fv.Type())
				continue
			}
			changed := false
			for k, v := range read() {
				if v != base0[k] {
					changed = true
				}
			}
			assert.True(t, changed, "event field %s is read by no mapping of EventFields and is not listed as off the wire", path)
			fv.Set(old)
		}
	}
	visit("", reflect.ValueOf(full).Elem())
}
