package bankpaytest_test

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/require"
)

// wantBare fails unless the response is a 400 with the bare {"message":…}
// body some of the service's 400s have: no errors array, no code.
func (a response) wantBare(t testing.TB) {
	t.Helper()
	require.Equal(t, http.StatusBadRequest, a.status, "status %d, want 400; body %s", a.status, a.body)
	var doc map[string]json.RawMessage
	a.decode(t, &doc)
	var msg string
	err := json.Unmarshal(doc["message"], &msg)
	require.NoError(t, err, "body %s, want a bare {\"message\":…}", a.body)
	require.NotEmpty(t, msg, "body %s, want a bare {\"message\":…}", a.body)
	require.Len(t, doc, 1, "body %s, want a bare {\"message\":…}", a.body)
}

// jsonRoute is a JSON endpoint of the API with a body it accepts.
type jsonRoute struct {
	name, path string
	body       func() []byte // a new acceptable body (references used once)
}

// jsonRoutes sets up what each JSON endpoint needs (a verified identity
// authorization for feedback, a customer for POST /customers/{id}) and
// returns the endpoints.
func jsonRoutes(t *testing.T, srv *bankpaytest.Server, c *api) []jsonRoute {
	t.Helper()
	_, kyc := c.authorize(kycData("enc-kyc"), bankpaytest.OutcomeAuthorize)
	srv.Advance(time.Minute) // the identity verification completes
	var cust wire.CustomerEnvelope
	c.postJSON("/customers?externalId=enc-ext", customerUpdate{MerchantID: c.creds.MerchantID, Customer: models.Customer{Name: "Jane Doe"}}).wantOK(t, &cust)
	marshal := func(v any) []byte {
		b, err := json.Marshal(v)
		require.NoError(t, err)
		return b
	}
	n := 0
	return []jsonRoute{
		{"establish", "/establish?createTransaction=true", func() []byte {
			n++
			return marshal(c.sign(disbursementData("enc-"+string(rune('a'+n)), "1.00")))
		}},
		{"feedback", "/transactions/" + kyc.TransactionID + "/feedback", func() []byte {
			return marshal(wire.FeedbackEnvelope{Feedback: &wire.Feedback{Status: 4, SubStatus: 559, Description: "registered"}})
		}},
		{"customer by externalId", "/customers?externalId=enc-ext", func() []byte {
			return marshal(customerUpdate{MerchantID: c.creds.MerchantID, Customer: models.Customer{Email: "jane@example.com"}})
		}},
		{"customer by id", "/customers/" + cust.Customer.CustomerID, func() []byte {
			return marshal(customerUpdate{MerchantID: c.creds.MerchantID, Customer: models.Customer{Phone: "5125550100"}})
		}},
		{"tokenize", "/accounts/tokenize", func() []byte {
			return marshal(models.Tokenization{MerchantID: c.creds.MerchantID, Account: &models.Account{AccountNumber: bankpaytest.AccountVerified, RoutingNumber: bankpaytest.SandboxRoutingNumber}})
		}},
	}
}

// The JSON endpoints read only application/json bodies, as a service built
// on a JSON body binding does: another Content-Type (or none) responds with 415
// with code 200, and the same body sent as JSON is accepted.
func TestJSONEndpointsRefuseOtherContentTypes(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	for _, rt := range jsonRoutes(t, srv, c) {
		t.Run(rt.name, func(t *testing.T) {
			for _, ct := range []string{"", "text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/jsonp", "not a media type"} {
				send(t, &c.creds, http.MethodPost, srv.URL+rt.path, ct, rt.body()).wantError(t, http.StatusUnsupportedMediaType, 200)
			}
			for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
				send(t, &c.creds, http.MethodPost, srv.URL+rt.path, ct, rt.body()).wantOK(t, nil)
			}
		})
	}
}

// A JSON endpoint responses a body it cannot read as JSON of its shape with
// the bare {"message":…} 400 of the service, not the {"errors":[…]} shape.
func TestJSONEndpointsUnreadableBodyIsBare400(t *testing.T) {
	srv := newServer(t)
	c := newAPI(t, srv, srv.Credentials())
	for _, rt := range jsonRoutes(t, srv, c) {
		t.Run(rt.name, func(t *testing.T) {
			for name, body := range map[string]string{
				"empty":          "",
				"truncated":      `{"merchantId":`,
				"not JSON":       "merchantId=1",
				"array":          "[]",
				"trailing data":  `{} {}`,
				"wrong type":     `{"merchantId":12,"feedback":"x","vip":"gold","account":"x"}`,
				"unknown enum":   `{"paymentType":"Teleport","feedback":[],"vip":[],"account":[]}`,
				"number for obj": `{"feedback":1,"account":1,"address":1}`,
			} {
				t.Run(name, func(t *testing.T) {
					send(t, &c.creds, http.MethodPost, srv.URL+rt.path, "application/json", []byte(body)).wantBare(t)
				})
			}
		})
	}
}

// The form endpoints read only application/x-www-form-urlencoded bodies:
// any other Content-Type responds with 400/200 (their parameters are not found),
// whatever the body.
func TestFormEndpointsRefuseOtherBodies(t *testing.T) {
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{}))
	c := newAPI(t, srv, srv.Credentials())
	est := c.establish("form-auth", "0.00")
	_, deferred := c.authorize(transferData("form-mt"), bankpaytest.OutcomeAuthorize)
	n := 0
	for _, rt := range []struct {
		name, path string
		form       func() url.Values
	}{
		{"deposit", "/transactions/" + est.TransactionID + "/deposit", func() url.Values {
			n++
			return url.Values{"merchantReference": {"fd-" + string(rune('a'+n))}, "amount": {"1.00"}}
		}},
		{"capture", "/transactions/" + deferred.TransactionID + "/capture", func() url.Values {
			n++
			return captureForm("fc-"+string(rune('a'+n)), "1.00")
		}},
	} {
		t.Run(rt.name, func(t *testing.T) {
			for _, ct := range []string{"", "text/plain", "application/json", "multipart/form-data; boundary=x"} {
				send(t, &c.creds, http.MethodPost, srv.URL+rt.path, ct, []byte(rt.form().Encode())).wantError(t, 400, 200)
			}
			js, err := json.Marshal(flat(rt.form()))
			require.NoError(t, err)
			send(t, &c.creds, http.MethodPost, srv.URL+rt.path, "application/json", js).wantError(t, 400, 200)
			// A JSON body labelled as a form is not read as JSON either.
			send(t, &c.creds, http.MethodPost, srv.URL+rt.path, "application/x-www-form-urlencoded", js).wantError(t, 400, 200)
			for _, ct := range []string{"application/x-www-form-urlencoded", "application/x-www-form-urlencoded; charset=UTF-8"} {
				send(t, &c.creds, http.MethodPost, srv.URL+rt.path, ct, []byte(rt.form().Encode())).wantOK(t, nil)
			}
		})
	}
}

func flat(v url.Values) map[string]string {
	m := make(map[string]string, len(v))
	for k := range v {
		m[k] = v.Get(k)
	}
	return m
}

// Establish data must carry the authenticated accessId: data signed
// without one, or with another one, is refused 401/375 by the establish
// endpoint (and by the user interface, which knows no merchant without it).
func TestEstablishAccessIDMustMatch(t *testing.T) {
	srv := newServer(t,
		bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{Credentials: bankpay.Credentials{AccessID: "ACCESS-ONE"}}),
		bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	c, other := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	signWith := func(d models.EstablishData, accessID string) models.EstablishData {
		d.AccessID, d.MerchantID = accessID, c.creds.MerchantID
		d.RequestSignature = sign.Sign(sign.SHA1, c.creds.AccessKey.Reveal(), sign.EstablishMessage(&d))
		return d
	}
	for name, accessID := range map[string]string{
		"missing":          "",
		"another merchant": other.creds.AccessID,
		"other case":       strings.ToLower(c.creds.AccessID),
	} {
		t.Run(name, func(t *testing.T) {
			c.postJSON("/establish?createTransaction=true", signWith(disbursementData("acc-"+name, "1.00"), accessID)).wantError(t, 401, 375)
			// The interface knows the merchant by the data's accessId only
			// (another merchant's is then a merchantId mismatch, 401/300).
			want := 375
			if accessID == other.creds.AccessID {
				want = 300
			}
			_, _, err := srv.Authorize(signWith(uiData("acc-ui-"+name, models.PaymentTypeDeferred, "1.00"), accessID), bankpaytest.OutcomeAuthorize)
			var e *bankpaytest.Error
			require.ErrorAs(t, err, &e, "Authorize: %v, want 401/%d", err, want)
			require.Equal(t, 401, e.Status, "Authorize: %v, want 401/%d", err, want)
			require.Equal(t, want, e.Code, "Authorize: %v, want 401/%d", err, want)
		})
	}
	c.postJSON("/establish?createTransaction=true", signWith(disbursementData("acc-ok", "1.00"), c.creds.AccessID)).wantOK(t, nil)
	n := len(srv.Events())
	require.Equal(t, 1, n, "%d events, want only the accepted authorization's", n)
}
