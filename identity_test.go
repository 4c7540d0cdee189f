package bankpay

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

const identityUserJSON = `{"user":{
  "name":"John Smith",
  "address":[{"address1":"2000 Broadway St","address2":"Apt 2","city":"Redwood City","state":"CA","zip":"94063","country":"US"}],
  "phone":["+14155550100","+14155550101"],
  "email":["john@example.com"],
  "dateOfBirth":"1980-01-31",
  "taxId":"123-45-6789",
  "driverLicense":{"number":"D1234567","state":"CA"},
  "eligible":true}}`

func TestIdentityUser(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/user"}, 200, identityUserJSON)

	u, err := c.Identity.User(context.Background(), "1002581234567")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("calls = %d", calls.Load())
	}
	if u.Name != "John Smith" || u.DateOfBirth != "1980-01-31" || u.TaxID != "123-45-6789" || !u.Eligible {
		t.Errorf("user = %+v", u)
	}
	wantAddr := models.Address{Address1: "2000 Broadway St", Address2: "Apt 2", City: "Redwood City", State: "CA", Zip: "94063", Country: "US"}
	if len(u.Address) != 1 || u.Address[0] != wantAddr {
		t.Errorf("address = %+v", u.Address)
	}
	if len(u.Phone) != 2 || u.Phone[1] != "+14155550101" || len(u.Email) != 1 || u.Email[0] != "john@example.com" {
		t.Errorf("phone/email = %q %q", u.Phone, u.Email)
	}
	if u.DriverLicense == nil || *u.DriverLicense != (models.DriverLicense{Number: "D1234567", State: "CA"}) {
		t.Errorf("driverLicense = %+v", u.DriverLicense)
	}
}

func TestIdentityUserNotEligible(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user"}, 200,
		`{"user":{"name":"Jane Roe","address":[],"phone":[],"email":[],"eligible":false}}`)
	u, err := c.Identity.User(context.Background(), "T1")
	if err != nil {
		t.Fatal(err)
	}
	if u.Eligible || u.Name != "Jane Roe" || u.DriverLicense != nil || u.TaxID != "" {
		t.Errorf("user = %+v", u)
	}
}

const verificationDetailJSON = `{"detail":{
  "verification":[{"verificationName":"KYC","result":1},{"verificationName":"AML","result":2}],
  "attribute":[
    {"name":"name","source":"bank","sourceType":1,"createdAt":1700000000000,"verified":true,
     "verification":[
       {"trustedEntity":"Demo Bank","verificationType":1,"verificationMethod":2,"result":1,"verifiedAt":"1700000005000"},
       {"trustedEntity":"Credit Bureau","verificationType":2,"verificationMethod":3,"result":1,"verifiedAt":1700000006000}]},
    {"name":"email","source":"user","sourceType":2,"createdAt":"1700000001000","verified":false,"verification":[]}]}}`

func TestIdentityDetail(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/user/detail"}, 200, verificationDetailJSON)

	d, err := c.Identity.Detail(context.Background(), "1002581234567")
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("calls = %d", calls.Load())
	}
	wantVer := []models.VerificationResult{{VerificationName: "KYC", Result: 1}, {VerificationName: "AML", Result: 2}}
	if !reflect.DeepEqual(d.Verification, wantVer) {
		t.Errorf("verification = %+v", d.Verification)
	}
	if len(d.Attribute) != 2 {
		t.Fatalf("attributes = %d", len(d.Attribute))
	}
	a := d.Attribute[0]
	if a.Name != "name" || a.Source != "bank" || a.SourceType != 1 || !a.Verified || len(a.Verification) != 2 {
		t.Fatalf("attribute 0 = %+v", a)
	}
	if !a.CreatedAt.Time().Equal(time.UnixMilli(1700000000000)) { // number
		t.Errorf("createdAt = %v", a.CreatedAt)
	}
	want0 := models.AttributeVerification{TrustedEntity: "Demo Bank", VerificationType: 1, VerificationMethod: 2, Result: 1, VerifiedAt: 1700000005000}
	want1 := models.AttributeVerification{TrustedEntity: "Credit Bureau", VerificationType: 2, VerificationMethod: 3, Result: 1, VerifiedAt: 1700000006000}
	if a.Verification[0] != want0 || a.Verification[1] != want1 {
		t.Errorf("attribute verifications = %+v", a.Verification)
	}
	if !a.Verification[0].VerifiedAt.Time().Equal(time.UnixMilli(1700000005000)) { // string
		t.Errorf("verifiedAt = %v", a.Verification[0].VerifiedAt.Time())
	}
	b := d.Attribute[1]
	if b.Name != "email" || b.Source != "user" || b.SourceType != 2 || b.Verified || len(b.Verification) != 0 ||
		b.CreatedAt != 1700000001000 { // string
		t.Errorf("attribute 1 = %+v", b)
	}
}

func TestIdentityEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user/detail"}, 200, `{"user":{}}`)
	if _, err := c.Identity.Detail(context.Background(), "T1"); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("Detail: err = %v, want ErrInvalidResponse", err)
	}
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user"}, 200, `{"detail":{}}`)
	if _, err := c.Identity.User(context.Background(), "T1"); !errors.Is(err, ErrInvalidResponse) {
		t.Errorf("User: err = %v, want ErrInvalidResponse", err)
	}
}

// The 400 the service responses before IdentityVerificationDataRetrieved
// matches ErrIdentityNotReady and ErrBadRequest, is not retried, and keeps
// the service's message; the same response to an account read is only a bad
// request.
func TestIdentityNotReady(t *testing.T) {
	const notReady = `{"errors":[{"domain":"Identity","code":200,"message":"identity data not available yet"}]}`
	reads := map[string]func(*Client) error{
		"User":   func(c *Client) error { _, err := c.Identity.User(context.Background(), "T1"); return err },
		"Detail": func(c *Client) error { _, err := c.Identity.Detail(context.Background(), "T1"); return err },
	}
	for name, read := range reads {
		c, mock, _ := newTestClient(t)
		calls := sequence(t, mock, jsonResponse(400, notReady))
		err := read(c)
		if !errors.Is(err, ErrIdentityNotReady) || !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: err = %v, want ErrIdentityNotReady and ErrBadRequest", name, err)
		}
		var apiErr *APIError
		if !errors.As(err, &apiErr) || apiErr.Message != "identity data not available yet" || apiErr.Code != 200 {
			t.Errorf("%s: APIError = %+v", name, apiErr)
		}
		if calls.Load() != 1 {
			t.Errorf("%s: calls = %d, want 1", name, calls.Load())
		}
	}

	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(400, notReady))
	_, err := c.Accounts.Balance(context.Background(), "T1")
	if !errors.Is(err, ErrBadRequest) || errors.Is(err, ErrIdentityNotReady) {
		t.Errorf("Balance 400: err = %v, want ErrBadRequest only", err)
	}
	// A feedback responded 400 is not "not ready" either.
	c, mock, _ = newTestClient(t)
	sequence(t, mock, jsonResponse(400, notReady))
	err = c.Identity.Register(context.Background(), "T1", "registered")
	if !errors.Is(err, ErrBadRequest) || errors.Is(err, ErrIdentityNotReady) {
		t.Errorf("Register 400: err = %v, want ErrBadRequest only", err)
	}
}

// An identity read responded 401 or 404 is not "not ready".
func TestIdentityOtherErrorsAreNotNotReady(t *testing.T) {
	for _, status := range []int{401, 404, 500} {
		c, mock, _ := newTestClient(t, WithMaxRetries(0))
		sequence(t, mock, jsonResponse(status, `{"errors":[{"code":300,"message":"x"}]}`))
		_, err := c.Identity.User(context.Background(), "T1")
		if err == nil || errors.Is(err, ErrIdentityNotReady) {
			t.Errorf("%d: err = %v, must not match ErrIdentityNotReady", status, err)
		}
	}
}

const (
	registerBody = `{"feedback":{"status":4,"subStatus":559,"description":"registered as member 42"}}`
	voidBody     = `{"feedback":{"status":13,"subStatus":558,"description":"name mismatch"}}`
)

func TestIdentityRegister(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/1002581234567/feedback",
		ContentType: "application/json", Body: registerBody}, 200, `{"feedback":{"status":4,"subStatus":559,"description":"registered as member 42"}}`)
	if err := c.Identity.Register(context.Background(), "1002581234567", "registered as member 42"); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d", calls.Load())
	}
}

func TestIdentityVoid(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/1002581234567/feedback",
		ContentType: "application/json", Body: voidBody}, 200, `{"feedback":{"status":13,"subStatus":558,"description":"name mismatch"}}`)
	if err := c.Identity.Void(context.Background(), "1002581234567", "name mismatch"); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d", calls.Load())
	}
}

func TestIdentitySendFeedback(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/T1/feedback",
		ContentType: "application/json", Body: `{"feedback":{"status":13,"subStatus":558,"description":"user \"quit\" \u0026 left"}}`},
		200, `{"feedback":{"status":13,"subStatus":558}}`)
	fb := wire.Feedback{Status: wire.FeedbackStatusVoid, SubStatus: wire.FeedbackSubStatusVoid, Description: `user "quit" & left`}
	if err := c.Identity.sendFeedback(context.Background(), "T1", fb); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Errorf("calls = %d", calls.Load())
	}
}

func TestIdentityFeedbackValidation(t *testing.T) {
	send := func(fb wire.Feedback) func(*Client) error {
		return func(c *Client) error { return c.Identity.sendFeedback(context.Background(), "T1", fb) }
	}
	cases := []struct {
		name  string
		call  func(*Client) error
		field string
	}{
		{"zero feedback", send(wire.Feedback{Description: "x"}), "feedback.status"},
		{"registered status with void subStatus", send(wire.Feedback{Status: 4, SubStatus: 558, Description: "x"}), "feedback.status"},
		{"void status with registered subStatus", send(wire.Feedback{Status: 13, SubStatus: 559, Description: "x"}), "feedback.status"},
		{"unknown status", send(wire.Feedback{Status: 5, SubStatus: 559, Description: "x"}), "feedback.status"},
		{"registered without subStatus", send(wire.Feedback{Status: 4, Description: "x"}), "feedback.status"},
		{"negative", send(wire.Feedback{Status: -4, SubStatus: -559, Description: "x"}), "feedback.status"},
		{"SendFeedback without description", send(wire.Feedback{Status: 4, SubStatus: 559}), "feedback.description"},
		{"Register without description", func(c *Client) error { return c.Identity.Register(context.Background(), "T1", "") }, "feedback.description"},
		{"Void without description", func(c *Client) error { return c.Identity.Void(context.Background(), "T1", "") }, "feedback.description"},
		{"Register without id", func(c *Client) error { return c.Identity.Register(context.Background(), "", "ok") }, "transactionId"},
		{"SendFeedback without id", func(c *Client) error {
			return c.Identity.sendFeedback(context.Background(), "", wire.Feedback{Status: 4, SubStatus: 559, Description: "ok"})
		}, "transactionId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, mock, _ := newTestClient(t)
			calls := expectNoRequest(t, mock)
			err := tc.call(c)
			var ve *ValidationError
			if !errors.As(err, &ve) || ve.Field != tc.field || !isValidation(err) {
				t.Fatalf("err = %v, want *ValidationError on %s", err, tc.field)
			}
			if calls.Load() != 0 {
				t.Errorf("%d requests sent", calls.Load())
			}
		})
	}
}

// A nil context is rejected before anything is sent, not a panic.
func TestIdentityNilContext(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	//lint:ignore SA1012 the nil context is the point of the test
	_, err := c.Identity.User(nil, "T1")
	if !isValidation(err) || calls.Load() != 0 {
		t.Fatalf("err = %v, calls = %d", err, calls.Load())
	}
	if !strings.Contains(err.Error(), "ctx") {
		t.Errorf("err = %v", err)
	}
}
