package bankpay

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestNewClientValidatesCredentials(t *testing.T) {
	for _, tc := range []struct {
		creds Credentials
		field string
	}{
		{Credentials{AccessKey: NewSecret("k"), MerchantID: "m"}, "accessId"},
		{Credentials{AccessID: "a", MerchantID: "m"}, "accessKey"},
		{Credentials{AccessID: "a", AccessKey: NewSecret("k")}, "merchantId"},
	} {
		_, err := NewClient(tc.creds)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != tc.field {
			t.Errorf("NewClient(%v) = %v, want ValidationError on %s", tc.creds, err, tc.field)
		}
		if !isValidation(err) {
			t.Errorf("error %v is not a *ValidationError", err)
		}
	}
}

func TestNewClientBaseURL(t *testing.T) {
	c, err := NewClient(testCreds)
	if err != nil || c.cfg.baseURL != SandboxBaseURL {
		t.Fatalf("default base URL = %v, %v", c, err)
	}
	for raw, ok := range map[string]bool{
		ProductionBaseURL:                 true,
		"https://api.example.com/api/v1/": true,
		"http://127.0.0.1:8089/api/v1":    true,
		"http://localhost:1/api/v1":       true,
		"http://[::1]:1/api/v1":           true,
		"http://example.com/api/v1":       false, // plain http off loopback
		"http://10.0.0.1/api/v1":          false,
		"ftp://example.com/api/v1":        false,
		"/api/v1":                         false,
		"https://user:pw@example.com":     false,
		"https://example.com/api?x=1":     false,
		"::not a url":                     false,
	} {
		c, err := NewClient(testCreds, WithBaseURL(raw))
		if ok != (err == nil) {
			t.Errorf("WithBaseURL(%q): err = %v, want ok=%v", raw, err, ok)
			continue
		}
		if ok && strings.HasSuffix(c.cfg.baseURL, "/") {
			t.Errorf("base URL %q keeps a trailing slash", c.cfg.baseURL)
		}
		if !ok && !isValidation(err) {
			t.Errorf("WithBaseURL(%q) error %v is not a ValidationError", raw, err)
		}
	}
}

func TestNewClientOptionErrors(t *testing.T) {
	for name, opt := range map[string]Option{
		"httpClient":       WithHTTPClient(nil),
		"maxRetries":       WithMaxRetries(-1),
		"retryBackoff":     WithRetryBackoff(time.Second, time.Millisecond),
		"maxRetryAfter":    withMaxRetryAfter(-time.Second),
		"maxResponseBytes": withMaxResponseBytes(0),
		"userAgent":        WithUserAgent("a\r\nX-Evil: 1"),
	} {
		_, err := NewClient(testCreds, opt)
		var ve *ValidationError
		if !errors.As(err, &ve) || ve.Field != name {
			t.Errorf("%s: err = %v", name, err)
		}
	}
	if _, err := NewClient(testCreds, nil); err != nil {
		t.Errorf("a nil option must be ignored: %v", err)
	}
}

func TestUserAgentOption(t *testing.T) {
	c, mock, _ := newTestClient(t, WithUserAgent("shop/2.1"))
	var ua string
	mock.RegisterNoResponder(func(req *http.Request) (*http.Response, error) {
		ua = req.Header.Get("User-Agent")
		return jsonResponse(200, authorizationJSON)(req)
	})
	if _, err := c.Transactions.Get(context.Background(), "1"); err != nil {
		t.Fatal(err)
	}
	if ua != "shop/2.1 bankpay-go/"+version {
		t.Errorf("User-Agent = %q", ua)
	}
}

func TestCredentialsNeverPrintTheKey(t *testing.T) {
	c, _, _ := newTestClient(t)
	type holder struct{ Creds Credentials }
	for _, s := range []string{
		fmt.Sprintf("%v", testCreds), fmt.Sprintf("%+v", testCreds), fmt.Sprintf("%#v", testCreds),
		fmt.Sprintf("%s", testCreds), fmt.Sprintf("%q", testCreds), fmt.Sprintf("%x", testCreds),
		fmt.Sprint(testCreds), fmt.Sprintf("%+v", holder{testCreds}), fmt.Sprintf("%#v", holder{testCreds}),
		fmt.Sprintf("%v", c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%+v", *c),
	} {
		assertNoSecret(t, s)
	}
	if got := fmt.Sprintf("%v", testCreds); !strings.Contains(got, "[redacted]") || !strings.Contains(got, testCreds.AccessID) {
		t.Errorf("String() = %q", got)
	}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("creds", "creds", testCreds, "nested", holder{testCreds})
	assertNoSecret(t, buf.String())
	if !strings.Contains(buf.String(), `"AccessKey":{}`) {
		t.Errorf("slog output %s", buf.String())
	}
}

func TestLoggerWritesNoSecrets(t *testing.T) {
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	c, mock, _ := newTestClient(t, WithLogger(logger))
	sequence(t, mock,
		jsonResponse(503, `{"errors":[{"code":100,"message":"account 123456789 busy"}]}`),
		jsonResponse(200, authorizationJSON),
	)
	if _, err := c.Transactions.Get(context.Background(), "1002581234567"); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	assertNoSecret(t, out)
	if strings.Contains(out, "123456789 ") || strings.Contains(out, "Basic ") {
		t.Errorf("log leaks: %s", out)
	}
	for _, want := range []string{"bankpay: retrying", "path=/transactions/1002581234567", "status=200", "attempts=2"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestDoRejectsNilContext(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	req, _ := newRequest(http.MethodGet, "/transactions/1", nil, nil)
	//lint:ignore SA1012 the nil context is the point of the test
	if err := c.do(nil, req, nil, nil); !isValidation(err) { //nolint:staticcheck
		t.Fatalf("err = %v", err)
	}
	if calls.Load() != 0 {
		t.Fatal("request sent")
	}
}

func TestNewRequestBodies(t *testing.T) {
	type inner struct {
		City string `url:"city"`
	}
	type outer struct {
		In *inner `url:"beneficiary"`
	}
	for _, tc := range []struct {
		body        any
		contentType string
		want        string
	}{
		{nil, "", ""},
		{map[string]int{"a": 1}, "application/json", `{"a":1}`},
		{formBody{&outer{&inner{"Austin"}}}, "application/x-www-form-urlencoded", "beneficiary.city=Austin"},
	} {
		r, err := newRequest(http.MethodPost, "/x", nil, tc.body)
		if err != nil {
			t.Fatal(err)
		}
		if r.ContentType != tc.contentType || string(r.Body) != tc.want || !r.StateChanging {
			t.Errorf("NewRequest(%v) = %+v", tc.body, r)
		}
	}
	if _, err := newRequest(http.MethodPost, "/x", nil, make(chan int)); err == nil {
		t.Error("unencodable JSON body accepted")
	}
	if _, err := newRequest(http.MethodPost, "/x", nil, formBody{42}); err == nil {
		t.Error("unencodable form body accepted")
	}
	if r, _ := newRequest(http.MethodGet, "/x", nil, nil); r.StateChanging {
		t.Error("GET marked state-changing")
	}
}

func TestPathJoin(t *testing.T) {
	if got := pathJoin("transactions", "a/b?c#d", "deposit"); got != "/transactions/a%2Fb%3Fc%23d/deposit" {
		t.Errorf("PathJoin = %q", got)
	}
}
