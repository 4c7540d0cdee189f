package bankpay

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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

func TestIdentity_User(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/user"}, 200, identityUserJSON)

	u, err := c.Identity.User(context.Background(), "1002581234567")
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	assert.Equal(t, "John Smith", u.Name, "user = %+v", u)
	assert.Equal(t, "1980-01-31", u.DateOfBirth, "user = %+v", u)
	assert.Equal(t, "123-45-6789", u.TaxID, "user = %+v", u)
	assert.True(t, u.Eligible, "user = %+v", u)
	wantAddr := models.Address{Address1: "2000 Broadway St", Address2: "Apt 2", City: "Redwood City", State: "CA", Zip: "94063", Country: "US"}
	if assert.Len(t, u.Address, 1, "address = %+v", u.Address) {
		assert.Equal(t, wantAddr, u.Address[0], "address = %+v", u.Address)
	}
	if assert.Len(t, u.Phone, 2, "phone/email = %q %q", u.Phone, u.Email) {
		assert.Equal(t, "+14155550101", u.Phone[1], "phone/email = %q %q", u.Phone, u.Email)
	}
	if assert.Len(t, u.Email, 1, "phone/email = %q %q", u.Phone, u.Email) {
		assert.Equal(t, "john@example.com", u.Email[0], "phone/email = %q %q", u.Phone, u.Email)
	}
	if assert.NotNil(t, u.DriverLicense, "driverLicense = %+v", u.DriverLicense) {
		assert.Equal(t, models.DriverLicense{Number: "D1234567", State: "CA"}, *u.DriverLicense, "driverLicense = %+v", u.DriverLicense)
	}
}

func TestIdentity_UserNotEligible(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user"}, 200,
		`{"user":{"name":"Jane Roe","address":[],"phone":[],"email":[],"eligible":false}}`)
	u, err := c.Identity.User(context.Background(), "T1")
	require.NoError(t, err)
	assert.False(t, u.Eligible, "user = %+v", u)
	assert.Equal(t, "Jane Roe", u.Name, "user = %+v", u)
	assert.Nil(t, u.DriverLicense, "user = %+v", u)
	assert.Equal(t, "", u.TaxID, "user = %+v", u)
}

const verificationDetailJSON = `{"detail":{
  "verification":[{"verificationName":"KYC","result":1},{"verificationName":"AML","result":2}],
  "attribute":[
    {"name":"name","source":"bank","sourceType":1,"createdAt":1700000000000,"verified":true,
     "verification":[
       {"trustedEntity":"Demo Bank","verificationType":1,"verificationMethod":2,"result":1,"verifiedAt":"1700000005000"},
       {"trustedEntity":"Credit Bureau","verificationType":2,"verificationMethod":3,"result":1,"verifiedAt":1700000006000}]},
    {"name":"email","source":"user","sourceType":2,"createdAt":"1700000001000","verified":false,"verification":[]}]}}`

func TestIdentity_Detail(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/1002581234567/user/detail"}, 200, verificationDetailJSON)

	d, err := c.Identity.Detail(context.Background(), "1002581234567")
	require.NoError(t, err)
	require.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
	wantVer := []models.VerificationResult{{VerificationName: "KYC", Result: 1}, {VerificationName: "AML", Result: 2}}
	assert.Equal(t, wantVer, d.Verification, "verification = %+v", d.Verification)
	require.Len(t, d.Attribute, 2, "attributes = %d", len(d.Attribute))
	a := d.Attribute[0]
	require.Equal(t, "name", a.Name, "attribute 0 = %+v", a)
	require.Equal(t, "bank", a.Source, "attribute 0 = %+v", a)
	require.Equal(t, 1, a.SourceType, "attribute 0 = %+v", a)
	require.True(t, a.Verified, "attribute 0 = %+v", a)
	require.Len(t, a.Verification, 2, "attribute 0 = %+v", a)
	assert.True(t, a.CreatedAt.Time().Equal(time.UnixMilli(1700000000000)), "createdAt = %v", a.CreatedAt) // number
	want0 := models.AttributeVerification{TrustedEntity: "Demo Bank", VerificationType: 1, VerificationMethod: 2, Result: 1, VerifiedAt: 1700000005000}
	want1 := models.AttributeVerification{TrustedEntity: "Credit Bureau", VerificationType: 2, VerificationMethod: 3, Result: 1, VerifiedAt: 1700000006000}
	assert.Equal(t, want0, a.Verification[0], "attribute verifications = %+v", a.Verification)
	assert.Equal(t, want1, a.Verification[1], "attribute verifications = %+v", a.Verification)
	assert.True(t, a.Verification[0].VerifiedAt.Time().Equal(time.UnixMilli(1700000005000)), "verifiedAt = %v", a.Verification[0].VerifiedAt.Time()) // string
	b := d.Attribute[1]
	assert.Equal(t, "email", b.Name, "attribute 1 = %+v", b)
	assert.Equal(t, "user", b.Source, "attribute 1 = %+v", b)
	assert.Equal(t, 2, b.SourceType, "attribute 1 = %+v", b)
	assert.False(t, b.Verified, "attribute 1 = %+v", b)
	assert.Empty(t, b.Verification, "attribute 1 = %+v", b)
	assert.Equal(t, models.EpochMillis(1700000001000), b.CreatedAt, "attribute 1 = %+v", b) // string
}

func TestIdentityEmptyEnvelope(t *testing.T) {
	c, mock, _ := newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user/detail"}, 200, `{"user":{}}`)
	_, err := c.Identity.Detail(context.Background(), "T1")
	assert.ErrorIs(t, err, ErrInvalidResponse, "Detail: err = %v, want ErrInvalidResponse", err)
	c, mock, _ = newTestClient(t)
	expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/user"}, 200, `{"detail":{}}`)
	_, err = c.Identity.User(context.Background(), "T1")
	assert.ErrorIs(t, err, ErrInvalidResponse, "User: err = %v, want ErrInvalidResponse", err)
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
		assert.ErrorIs(t, err, ErrIdentityNotReady, "%s: err = %v, want ErrIdentityNotReady and ErrBadRequest", name, err)
		assert.ErrorIs(t, err, ErrBadRequest, "%s: err = %v, want ErrIdentityNotReady and ErrBadRequest", name, err)
		var apiErr *APIError
		if assert.ErrorAs(t, err, &apiErr, "%s: APIError = %+v", name, apiErr) {
			assert.Equal(t, "identity data not available yet", apiErr.Message, "%s: APIError = %+v", name, apiErr)
			assert.Equal(t, 200, apiErr.Code, "%s: APIError = %+v", name, apiErr)
		}
		assert.Equal(t, int32(1), calls.Load(), "%s: calls = %d, want 1", name, calls.Load())
	}

	c, mock, _ := newTestClient(t)
	sequence(t, mock, jsonResponse(400, notReady))
	_, err := c.Accounts.Balance(context.Background(), "T1")
	assert.ErrorIs(t, err, ErrBadRequest, "Balance 400: err = %v, want ErrBadRequest only", err)
	assert.NotErrorIs(t, err, ErrIdentityNotReady, "Balance 400: err = %v, want ErrBadRequest only", err)
	// A feedback responded 400 is not "not ready" either.
	c, mock, _ = newTestClient(t)
	sequence(t, mock, jsonResponse(400, notReady))
	err = c.Identity.Register(context.Background(), "T1", "registered")
	assert.ErrorIs(t, err, ErrBadRequest, "Register 400: err = %v, want ErrBadRequest only", err)
	assert.NotErrorIs(t, err, ErrIdentityNotReady, "Register 400: err = %v, want ErrBadRequest only", err)
}

// An identity read responded 401 or 404 is not "not ready".
func TestIdentityOtherErrorsAreNotNotReady(t *testing.T) {
	for _, status := range []int{401, 404, 500} {
		c, mock, _ := newTestClient(t, WithMaxRetries(0))
		sequence(t, mock, jsonResponse(status, `{"errors":[{"code":300,"message":"x"}]}`))
		_, err := c.Identity.User(context.Background(), "T1")
		assert.Error(t, err, "%d: err = %v, must not match ErrIdentityNotReady", status, err)
		assert.NotErrorIs(t, err, ErrIdentityNotReady, "%d: err = %v, must not match ErrIdentityNotReady", status, err)
	}
}

// The feedback is sent wrapped (spec) and flat (OpenAPI) in one body: a
// server reading either shape reads the merchant's choice.
const (
	registerBody = `{"feedback":{"status":4,"subStatus":559,"description":"registered as member 42"},` +
		`"status":4,"subStatus":559,"description":"registered as member 42"}`
	voidBody = `{"feedback":{"status":13,"subStatus":558,"description":"name mismatch"},` +
		`"status":13,"subStatus":558,"description":"name mismatch"}`
)

func TestIdentity_Register(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/1002581234567/feedback",
		ContentType: "application/json", Body: registerBody}, 200, `{"feedback":{"status":4,"subStatus":559,"description":"registered as member 42"}}`)
	require.NoError(t, c.Identity.Register(context.Background(), "1002581234567", "registered as member 42"))
	assert.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
}

func TestIdentity_Void(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/1002581234567/feedback",
		ContentType: "application/json", Body: voidBody}, 200, `{"feedback":{"status":13,"subStatus":558,"description":"name mismatch"}}`)
	require.NoError(t, c.Identity.Void(context.Background(), "1002581234567", "name mismatch"))
	assert.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
}

func TestIdentitySendFeedback(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "POST", Path: "/api/v1/transactions/T1/feedback",
		ContentType: "application/json", Body: `{"feedback":{"status":13,"subStatus":558,"description":"user \"quit\" \u0026 left"},` +
			`"status":13,"subStatus":558,"description":"user \"quit\" \u0026 left"}`},
		200, `{"feedback":{"status":13,"subStatus":558}}`)
	fb := wire.Feedback{Status: wire.FeedbackStatusVoid, SubStatus: wire.FeedbackSubStatusVoid, Description: `user "quit" & left`}
	require.NoError(t, c.Identity.sendFeedback(context.Background(), "T1", fb))
	assert.Equal(t, int32(1), calls.Load(), "calls = %d", calls.Load())
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
			require.ErrorAs(t, err, &ve, "err = %v, want *ValidationError on %s", err, tc.field)
			require.Equal(t, tc.field, ve.Field, "err = %v, want *ValidationError on %s", err, tc.field)
			require.True(t, isValidation(err), "err = %v, want *ValidationError on %s", err, tc.field)
			assert.Equal(t, int32(0), calls.Load(), "%d requests sent", calls.Load())
		})
	}
}

// A nil context is rejected before anything is sent, not a panic.
func TestIdentityNilContext(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expectNoRequest(t, mock)
	//lint:ignore SA1012 the nil context is the point of the test
	_, err := c.Identity.User(nil, "T1")
	require.True(t, isValidation(err), "err = %v, calls = %d", err, calls.Load())
	require.Equal(t, int32(0), calls.Load(), "err = %v, calls = %d", err, calls.Load())
	assert.Contains(t, err.Error(), "ctx", "err = %v", err)
}

// Register and Void read the same whichever shape the service reads: the
// spec's wrapper, or the OpenAPI's flat fields with its defaults (status 4,
// subStatus 559, "Registered") for any it misses. A Void never reads as a
// Register.
func TestIdentityFeedbackBothReadings(t *testing.T) {
	type flat struct {
		Status      *int    `json:"status"`
		SubStatus   *int    `json:"subStatus"`
		Description *string `json:"description"`
	}
	readFlat := func(body []byte) wire.Feedback {
		var f flat
		require.NoError(t, json.Unmarshal(body, &f))
		out := wire.Feedback{Status: 4, SubStatus: 559, Description: "Registered"} // the OpenAPI's defaults
		if f.Status != nil {
			out.Status = *f.Status
		}
		if f.SubStatus != nil {
			out.SubStatus = *f.SubStatus
		}
		if f.Description != nil {
			out.Description = *f.Description
		}
		return out
	}
	readWrapped := func(body []byte) wire.Feedback {
		var env wire.FeedbackEnvelope
		require.NoError(t, json.Unmarshal(body, &env))
		require.NotNil(t, env.Feedback)
		return *env.Feedback
	}
	for _, tc := range []struct {
		name string
		call func(*Client) error
		want wire.Feedback
	}{
		{"Void", func(c *Client) error { return c.Identity.Void(context.Background(), "T1", "name mismatch") },
			wire.Feedback{Status: 13, SubStatus: 558, Description: "name mismatch"}},
		{"Register", func(c *Client) error { return c.Identity.Register(context.Background(), "T1", "member 42") },
			wire.Feedback{Status: 4, SubStatus: 559, Description: "member 42"}},
	} {
		c, mock, _ := newTestClient(t)
		var body []byte
		mock.RegisterResponder("POST", "=~/feedback$", func(r *http.Request) (*http.Response, error) {
			body, _ = io.ReadAll(r.Body)
			return httpmock.NewStringResponse(200, `{}`), nil
		})
		require.NoError(t, tc.call(c), tc.name)
		assert.Equal(t, tc.want, readWrapped(body), "%s read wrapped (spec)", tc.name)
		assert.Equal(t, tc.want, readFlat(body), "%s read flat (OpenAPI, with its defaults)", tc.name)
	}
}

func TestIdentity_CustomerVerification(t *testing.T) {
	c, mock, _ := newTestClient(t)
	calls := expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/customer/verify"}, 200, customerVerificationJSON)
	v, err := c.Identity.CustomerVerification(context.Background(), "T1")
	require.NoError(t, err)
	assert.Equal(t, int32(1), calls.Load())
	assert.Equal(t, []models.CustomerMatch{
		{Attribute: "customer.name", Result: 2, Source: 2},
		{Attribute: "customer.phone", Result: -1, Source: 1},
		{Attribute: "customer.email", Result: 0, Source: 4},
	}, v)

	for body, ok := range map[string]bool{`{"matches":[]}`: true, `[]`: true, `{}`: false, `{"matches":null}`: false, `null`: false,
		`{"matches":[{"result":"x"}]}`: false, `{"matches":{}}`: false} {
		c, mock, _ := newTestClient(t)
		expect(t, mock, wantRequest{Method: "GET", Path: "/api/v1/transactions/T1/payment/customer/verify"}, 200, body)
		v, err := c.Identity.CustomerVerification(context.Background(), "T1")
		if ok {
			require.NoError(t, err, body)
			assert.NotNil(t, v, body)
			assert.Empty(t, v, body)
		} else {
			assert.ErrorIs(t, err, ErrInvalidResponse, body)
		}
	}
}
