package bench

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha1"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/paytype"
	"github.com/bankpay/bankpay-go/models"
)

// hmacSHA1 is the baseline signature: Base64(HMAC-SHA1(key, message)).
func hmacSHA1(key, message string) string {
	m := hmac.New(sha1.New, []byte(key))
	m.Write([]byte(message))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// ---- Webhook handler ----

// eventBody is a form-encoded Authorize event as the service sends it,
// created a minute before the run (the handler rejects events older than
// its max age, 24 hours by default).
var eventBody = []byte(url.Values{
	"merchantId":                        {creds.MerchantID},
	"merchantReference":                 {"order-000042"},
	"paymentType":                       {"2"},
	"transactionType":                   {"1"},
	"eventId":                           {"1002581299999"},
	"eventType":                         {"Authorize"},
	"objectId":                          {txID},
	"objectType":                        {"Transaction"},
	"message":                           {"Authorized by the user"},
	"parentObjectId":                    {txID},
	"timeZone":                          {"Etc/UTC"},
	"createdAt":                         {strconv.FormatInt(time.Now().Add(-time.Minute).UnixMilli(), 10)},
	"accessId":                          {creds.AccessID},
	"status":                            {"2"},
	"statusMessage":                     {"Authorized"},
	"paymentProviderTransaction.status": {"10"},
	"paymentProviderTransaction.statusMessage": {"Established"},
}.Encode())

// eventAuthorization is the Authorization header of eventBody, computed by
// hand: Basic base64(accessId ":" Base64(HMAC-SHA1(key, URL-decoded body))).
func eventAuthorization(tb testing.TB) string {
	msg, err := url.QueryUnescape(string(eventBody))
	if err != nil {
		tb.Fatal(err)
	}
	return basicAuth(creds.AccessID, hmacSHA1(creds.AccessKey.Reveal(), msg))
}

// reusableBody is a request body that can be rewound without allocating.
type reusableBody struct{ bytes.Reader }

func (*reusableBody) Close() error { return nil }

// nullWriter is a ResponseWriter that keeps only the status.
type nullWriter struct {
	h      http.Header
	status int
}

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) Write(p []byte) (int, error) { return len(p), nil }
func (w *nullWriter) WriteHeader(s int)           { w.status = s }

// bareEvent is what the baseline handler decodes.
type bareEvent struct {
	EventID, EventType, ObjectID, MerchantReference string
	TransactionType, Status                         int
	CreatedAt                                       time.Time
	Fields                                          url.Values
}

// bareWebhook is the baseline handler: read the body, check the Basic
// accessId:signature header with a hand-written HMAC, url.ParseQuery the
// body and hand a typed event to fn.
func bareWebhook(accessID, accessKey string, fn func(context.Context, *bareEvent) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		token, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Basic ")
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		pair, err := base64.StdEncoding.DecodeString(token)
		if err != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		id, sig, ok := strings.Cut(string(pair), ":")
		if !ok || !hmac.Equal([]byte(id), []byte(accessID)) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		msg, err := url.QueryUnescape(string(body))
		if err != nil || !hmac.Equal([]byte(hmacSHA1(accessKey, msg)), []byte(sig)) {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		v, err := url.ParseQuery(string(body))
		if err != nil {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		ev := &bareEvent{EventID: v.Get("eventId"), EventType: v.Get("eventType"), ObjectID: v.Get("objectId"),
			MerchantReference: v.Get("merchantReference"), Fields: v}
		ev.TransactionType, _ = strconv.Atoi(v.Get("transactionType"))
		ev.Status, _ = strconv.Atoi(v.Get("status"))
		if ms, err := strconv.ParseInt(v.Get("createdAt"), 10, 64); err == nil {
			ev.CreatedAt = time.UnixMilli(ms).UTC()
		}
		if err := fn(r.Context(), ev); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

var errWrongEvent = errors.New("wrong event decoded")

// eventCall returns a call of h with the signed eventBody; the request,
// its body and the ResponseWriter are reused, so that the call measures the
// handler alone.
func eventCall(b *testing.B, h http.Handler) func() error {
	req, err := http.NewRequest(http.MethodPost, "https://shop.example/bankpay/events", nil)
	if err != nil {
		b.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", eventAuthorization(b))
	req.ContentLength = int64(len(eventBody))
	body := &reusableBody{}
	w := &nullWriter{h: http.Header{}}
	return func() error {
		body.Reset(eventBody)
		req.Body = body
		w.status = 0
		h.ServeHTTP(w, req)
		if w.status != http.StatusOK {
			return errors.New("status " + strconv.Itoa(w.status))
		}
		return nil
	}
}

var sinkEvent *bankpay.Event

// everNew is a Deduplicator for which every delivery is a new event: the
// benchmark posts one event again and again, and the handler (which
// de-duplicates by default) must run its callback, and claim and complete
// it, each time, as for a stream of new events.
type everNew struct{}

func (everNew) Claim(context.Context, string) (bankpay.ClaimState, string, error) {
	return bankpay.ClaimNew, "t", nil
}
func (everNew) Extend(context.Context, string, string) (time.Duration, error) { return 0, nil }
func (everNew) Complete(context.Context, string, string, time.Duration) error { return nil }
func (everNew) Release(context.Context, string, string) error                 { return nil }

// BenchmarkWebhook is the notification handler: signature check and decode
// of a form-encoded Authorize event, its claim, then the callback. events/s
// is the handler's rate on one goroutine (run with -cpu 1 for one core).
func BenchmarkWebhook(b *testing.B) {
	sdk := bankpay.NewWebhookHandler(creds, func(_ context.Context, ev *bankpay.Event) error {
		if ev.EventID != "1002581299999" || ev.Transaction == nil || ev.Transaction.Status != models.StatusAuthorized {
			return errWrongEvent
		}
		sinkEvent = ev
		return nil
	}, bankpay.WithDeduplicator(everNew{}))
	base := bareWebhook(creds.AccessID, creds.AccessKey.Reveal(), func(_ context.Context, ev *bareEvent) error {
		if ev.EventID != "1002581299999" || ev.Status != 2 {
			return errWrongEvent
		}
		return nil
	})
	pair(b, "events/s", eventCall(b, sdk), eventCall(b, base))
}

// ---- SignEstablishData ----

// establishData is a typical Deferred authorization of the front-end SDK.
func establishData() *models.EstablishData {
	return &models.EstablishData{
		Description:       "Order 42",
		Currency:          models.USD,
		Amount:            "1250.00",
		MerchantReference: "order-000042",
		PaymentType:       models.PaymentTypeDeferred,
		ReturnURL:         "https://shop.example/bankpay/return",
		CancelURL:         "https://shop.example/bankpay/cancel",
		NotificationURL:   "https://shop.example/bankpay/events",
		Customer: &models.Customer{
			ExternalID: "cust-778", Name: "Jane Doe", Email: "jane@example.com", Phone: "+15125550100",
			Address: &models.Address{Address1: "100 Congress Ave", City: "Austin", State: "TX", Zip: "78701", Country: "US"},
		},
	}
}

// bareSign is the baseline: the canonical string written by hand for the
// fields a merchant's establish data carries, in the service's key order,
// then Base64(HMAC-SHA1).
func bareSign(d *models.EstablishData, accessID, merchantID, key string) {
	d.AccessID, d.MerchantID = accessID, merchantID
	var sb strings.Builder
	sb.Grow(256)
	add := func(k, v string) {
		if v == "" {
			return
		}
		if sb.Len() > 0 {
			sb.WriteByte('&')
		}
		sb.WriteString(k)
		sb.WriteByte('=')
		sb.WriteString(v)
	}
	add("accessId", d.AccessID)
	add("merchantId", d.MerchantID)
	add("description", d.Description)
	add("currency", string(d.Currency))
	add("amount", string(d.Amount))
	add("merchantReference", d.MerchantReference)
	add("paymentType", paytype.Name(d.PaymentType))
	if c := d.Customer; c != nil {
		add("customer.externalId", c.ExternalID)
		add("customer.name", c.Name)
		if a := c.Address; a != nil {
			add("customer.address.address1", a.Address1)
			add("customer.address.city", a.City)
			add("customer.address.state", a.State)
			add("customer.address.zip", a.Zip)
			add("customer.address.country", a.Country)
		}
		add("customer.phone", c.Phone)
		add("customer.email", c.Email)
	}
	d.RequestSignature = hmacSHA1(key, sb.String())
}

func BenchmarkSignEstablishData(b *testing.B) {
	c, err := bankpay.NewClient(creds)
	if err != nil {
		b.Fatal(err)
	}
	d, bd := establishData(), establishData()
	if err := c.SignEstablishData(d); err != nil {
		b.Fatal(err)
	}
	want := d.RequestSignature
	pair(b, "",
		func() error { return c.SignEstablishData(d) },
		func() error {
			bareSign(bd, creds.AccessID, creds.MerchantID, creds.AccessKey.Reveal())
			if bd.RequestSignature != want {
				return errors.New("the baseline and the SDK sign differently")
			}
			return nil
		})
}

// ---- VerifyRedirect ----

// redirectUnsigned is a return URL of the real shape: the service appends
// instantPayoutAvail after the signature (see redirectURL).
const redirectUnsigned = "https://shop.example/bankpay/return?transactionId=" + txID +
	"&transactionType=1&merchantReference=order-000042&status=2&payment.paymentType=2" +
	"&payment.paymentProvider.type=1&payment.paymentProvider.instantPayoutAvailable=true" +
	"&payment.account.verified=true&panel=1&payment.paymentProviderTransaction.status=AC100"

var redirectURL = redirectUnsigned + "&requestSignature=" + url.QueryEscape(hmacSHA1(creds.AccessKey.Reveal(), redirectUnsigned)) +
	"&instantPayoutAvail=true"

type bareRedirect struct {
	TransactionID, MerchantReference, PPTStatus string
	TransactionType, Status, PaymentType, Panel int
	InstantPayout, Verified                     bool
	Unsigned                                    url.Values
}

var errBadSignature = errors.New("invalid signature")

// bareVerifyRedirect is the baseline: cut at &requestSignature=, the
// signature up to the next "&", compare the HMAC of the rest in constant
// time, url.ParseQuery the signed query and the unsigned tail.
func bareVerifyRedirect(raw, key string) (*bareRedirect, error) {
	const marker = "&requestSignature="
	i := strings.Index(raw, marker)
	if i < 0 {
		return nil, errBadSignature
	}
	msg := raw[:i]
	enc, tail, _ := strings.Cut(raw[i+len(marker):], "&")
	sig, err := url.QueryUnescape(enc)
	if err != nil || !hmac.Equal([]byte(hmacSHA1(key, msg)), []byte(sig)) {
		return nil, errBadSignature
	}
	_, query, _ := strings.Cut(msg, "?")
	q, err := url.ParseQuery(query)
	if err != nil {
		return nil, err
	}
	r := &bareRedirect{TransactionID: q.Get("transactionId"), MerchantReference: q.Get("merchantReference"),
		PPTStatus: q.Get("payment.paymentProviderTransaction.status")}
	r.TransactionType, _ = strconv.Atoi(q.Get("transactionType"))
	r.Status, _ = strconv.Atoi(q.Get("status"))
	r.PaymentType, _ = strconv.Atoi(q.Get("payment.paymentType"))
	r.Panel, _ = strconv.Atoi(q.Get("panel"))
	r.InstantPayout, _ = strconv.ParseBool(q.Get("payment.paymentProvider.instantPayoutAvailable"))
	r.Verified, _ = strconv.ParseBool(q.Get("payment.account.verified"))
	if tail != "" {
		if r.Unsigned, err = url.ParseQuery(tail); err != nil {
			return nil, err
		}
	}
	return r, nil
}

var (
	sinkRedirect     *bankpay.Redirect
	sinkBareRedirect *bareRedirect
)

func BenchmarkVerifyRedirect(b *testing.B) {
	pair(b, "",
		func() (err error) {
			sinkRedirect, err = bankpay.VerifyRedirect(redirectURL, creds)
			if err == nil && (sinkRedirect.Status != models.StatusAuthorized || sinkRedirect.TransactionID != txID) {
				err = errors.New("wrong redirect decoded")
			}
			return
		},
		func() (err error) {
			sinkBareRedirect, err = bareVerifyRedirect(redirectURL, creds.AccessKey.Reveal())
			if err == nil && (sinkBareRedirect.Status != 2 || sinkBareRedirect.TransactionID != txID) {
				err = errors.New("wrong redirect decoded")
			}
			return
		})
}
