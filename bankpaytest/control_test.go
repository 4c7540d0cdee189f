package bankpaytest_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func (c *api) control(method, path string, body []byte) response {
	c.t.Helper()
	ct := ""
	if body != nil {
		ct = "application/json"
	}
	return send(c.t, &c.creds, method, c.srv.ControlURL+path, ct, body)
}

type nowResponse struct {
	Now  models.EpochMillis `json:"now"`
	Time string             `json:"time"`
}

func TestControlEndpoints(t *testing.T) {
	srv := newServer(t, bankpaytest.WithMerchant(bankpaytest.Merchant{}))
	ms := srv.Merchants()
	c, other := newAPI(t, srv, ms[0].Credentials), newAPI(t, srv, ms[1].Credentials)
	require.Equal(t, strings.TrimSuffix(srv.URL, "/api/v1")+"/sandbox", srv.ControlURL, "ControlURL %q", srv.ControlURL)

	var now nowResponse
	c.control(http.MethodGet, "/now", nil).wantOK(t, &now)
	require.Equal(t, friday, now.Now.Time(), "now %+v", now)
	require.Equal(t, "2024-03-01T10:00:00Z", now.Time, "now %+v", now)

	// Authorize over HTTP.
	d := c.sign(uiData("ctl-1", models.PaymentTypeDeferred, "20.00"))
	body, _ := json.Marshal(d)
	var auth struct {
		RedirectURL string              `json:"redirectUrl"`
		Transaction *models.Transaction `json:"transaction"`
	}
	c.control(http.MethodPost, "/authorize?outcome=authorize", body).wantOK(t, &auth)
	require.NotNil(t, auth.Transaction, "authorize %+v", auth)
	require.Equal(t, models.StatusAuthorized, auth.Transaction.Status, "authorize %+v", auth)
	require.Contains(t, auth.RedirectURL, "&requestSignature=", "authorize %+v", auth)
	c.control(http.MethodPost, "/authorize?outcome=maybe", body).wantError(t, 400, 200)
	other.control(http.MethodPost, "/authorize", body).wantError(t, 401, 375) // establish data of another merchant
	c.control(http.MethodPost, "/authorize", body).wantError(t, 400, 210)

	id := auth.Transaction.TransactionID
	dep := c.mustDeposit(id, "ctl-dep", "5.00")
	dep2 := c.mustDeposit(id, "ctl-dep2", "5.00")

	c.control(http.MethodPost, "/advance?d=1h", nil).wantOK(t, &now)
	require.Equal(t, friday.Add(time.Hour), now.Now.Time(), "after advance %+v", now)
	require.Equal(t, models.StatusProcessed, c.txn(dep.TransactionID).Status, "not processed after advance")
	var env wire.TransactionEnvelope
	c.control(http.MethodPost, "/transactions/"+dep2.TransactionID+"/deny", nil).wantOK(t, &env)
	require.Equal(t, models.StatusDenied, env.Transaction.Status, "deny %+v", env.Transaction)
	c.control(http.MethodPost, "/transactions/"+dep2.TransactionID+"/deny", nil).wantError(t, 400, 200)
	c.control(http.MethodPost, "/advance?bankingDays=3", nil).wantOK(t, &now)
	require.Equal(t, models.StatusCompleted, c.txn(dep.TransactionID).Status, "not completed after 3 banking days")
	c.control(http.MethodPost, "/transactions/"+dep.TransactionID+"/reverse", nil).wantOK(t, &env)
	require.Equal(t, models.StatusReversed, env.Transaction.Status, "reverse %+v", env.Transaction)
	other.control(http.MethodPost, "/transactions/"+dep.TransactionID+"/reverse", nil).wantError(t, 404, 200)
	c.control(http.MethodPost, "/transactions/100000000999999/deny", nil).wantError(t, 404, 200)

	c.control(http.MethodPost, "/flush", nil).wantOK(t, nil)
	var evs struct {
		Events []bankpaytest.Event `json:"events"`
	}
	c.control(http.MethodGet, "/events?transactionId="+url.QueryEscape(dep.TransactionID), nil).wantOK(t, &evs)
	got := joined(eventTypes(evs.Events))
	require.Equal(t, "Process,Complete,Reverse", got, "events %s", got)
	other.control(http.MethodGet, "/events", nil).wantOK(t, &evs)
	require.Len(t, evs.Events, 0, "another merchant sees %d events", len(evs.Events))

	c.postJSON("/customers?externalId=ctl-c", customerUpdate{models.Customer{Name: "C"}, c.creds.MerchantID}).wantOK(t, nil)
	var cust wire.CustomerEnvelope
	c.control(http.MethodGet, "/customers?externalId=ctl-c", nil).wantOK(t, &cust)
	require.Equal(t, "C", cust.Customer.Name, "customer %+v", cust.Customer)
	c.control(http.MethodGet, "/customers?customerId="+cust.Customer.CustomerID, nil).wantOK(t, nil)
	c.control(http.MethodGet, "/customers?externalId=none", nil).wantError(t, 404, 200)
	c.control(http.MethodGet, "/customers", nil).wantError(t, 400, 200)

	var fb struct {
		Feedback []wire.Feedback `json:"feedback"`
	}
	c.control(http.MethodGet, "/transactions/"+id+"/feedback", nil).wantOK(t, &fb)
	require.NotNil(t, fb.Feedback, "feedback %+v", fb)
	require.Len(t, fb.Feedback, 0, "feedback %+v", fb)

	for name, a := range map[string]response{
		"no credentials": send(t, nil, http.MethodGet, srv.ControlURL+"/now", "", nil),
		"bad key":        send(t, &bankpay.Credentials{AccessID: c.creds.AccessID, AccessKey: bankpay.NewSecret("x")}, http.MethodPost, srv.ControlURL+"/advance?d=1h", "", nil),
	} {
		t.Run(name, func(t *testing.T) { a.wantError(t, 401, 375) })
	}
	require.Equal(t, friday.AddDate(0, 0, 5).Add(time.Hour), srv.Now(), "clock moved by an unauthenticated call: %v", srv.Now())
	c.control(http.MethodGet, "/advance?d=1h", nil).wantError(t, 405, 200)
	c.control(http.MethodPost, "/advance", nil).wantError(t, 400, 200)
	c.control(http.MethodPost, "/advance?d=soon", nil).wantError(t, 400, 200)
	c.control(http.MethodPost, "/advance?bankingDays=-1", nil).wantError(t, 400, 200)
	c.control(http.MethodGet, "/nothing", nil).wantError(t, 404, 200)
}

// TestConcurrentUse drives the server from many goroutines while the clock
// moves; run with -race.
func TestConcurrentUse(t *testing.T) {
	rcv := newReceiver(t, always(http.StatusOK))
	srv := newServer(t, bankpaytest.WithDefaultMerchant(bankpaytest.Merchant{NotificationURL: rcv.srv.URL}))
	c := newAPI(t, srv, srv.Credentials())
	auth := c.establish("conc", "0.00")
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 10; i++ {
				ref := "g" + string(rune('a'+g)) + string(rune('a'+i))
				v := url.Values{"merchantReference": {ref}, "amount": {"1.00"}}
				a := send(t, &c.creds, http.MethodPost, srv.URL+"/transactions/"+auth.TransactionID+"/deposit",
					"application/x-www-form-urlencoded", []byte(v.Encode()))
				assert.Equal(t, 200, a.status, "deposit %d %s", a.status, a.body)
				send(t, &c.creds, http.MethodGet, srv.URL+"/transactions/"+auth.TransactionID, "", nil)
				_ = srv.Events()
			}
		}(g)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 20; i++ {
			srv.Advance(time.Hour)
		}
	}()
	wg.Wait()
	srv.AdvanceBankingDays(5)
	flush(t, srv)
	completed := 0
	for _, e := range srv.Events() {
		if e.EventType == models.EventComplete {
			completed++
		}
		require.True(t, e.Delivered, "event %s not delivered", e.EventID)
	}
	require.Equal(t, 80, completed, "%d deposits completed, want 80", completed)
}

// BenchmarkGetTransaction measures the server's request rate on one
// connection (the target is at least 5,000 requests a second on one core).
func BenchmarkGetTransaction(b *testing.B) {
	srv := bankpaytest.NewServer()
	defer srv.Close()
	c := newAPI(b, srv, srv.Credentials())
	id := c.establish("bench", "1.00").TransactionID
	creds := srv.Credentials()
	req, _ := http.NewRequest(http.MethodGet, srv.URL+"/transactions/"+id, nil)
	req.SetBasicAuth(creds.AccessID, creds.AccessKey.Reveal())
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Fatal(resp.Status)
		}
	}
}
