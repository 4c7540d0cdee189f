package bankpay

import (
	"context"
	"net/url"
	"testing"

	"github.com/bankpay/bankpay-go/models"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// unsafeReferences are merchantReferences that could smuggle fields into a
// notification signed over its URL-decoded body, or that carry control
// characters.
var unsafeReferences = map[string]string{
	"ampersand":         "ord-1&errorCode=330",
	"equals":            "ord=1",
	"percent":           "ord-1%26errorCode%3D330",
	"plus":              "ord+1",
	"NUL":               "ord\x001",
	"newline":           "ord-1\nstatus=4",
	"tab":               "ord\t1",
	"DEL":               "ord\x7f1",
	"C1 control (NEL)":  "ord\u00851",
	"only an ampersand": "&",
}

func TestCheckMerchantReference(t *testing.T) {
	for name, ref := range unsafeReferences {
		var ve *ValidationError
		err := checkMerchantReference("merchantReference", ref, false)
		if !assert.ErrorAs(t, err, &ve, "%s: %v, want a *ValidationError on merchantReference", name, err) {
			continue
		}
		assert.Equal(t, "merchantReference", ve.Field, "%s: %v, want a *ValidationError on merchantReference", name, err)
		assert.True(t, isValidation(err), "%s: %v, want a *ValidationError on merchantReference", name, err)
		assert.Equal(t, "must not contain '&', '=', '%', '+' or control characters", ve.Reason, "%s: reason %q", name, ve.Reason)
	}
	for _, ref := range []string{"order-42", "m ref", "payout 43/x?y#1", "Zoë-山田_1.2:3", "a;b,c'd\"e"} {
		err := checkMerchantReference("merchantReference", ref, true)
		assert.NoError(t, err, "%q: %v", ref, err)
	}
	err := checkMerchantReference("merchantReference", "", false)
	assert.NoError(t, err, "optional empty: %v", err)
	var ve *ValidationError
	err = checkMerchantReference("merchantReference", "", true)
	if assert.ErrorAs(t, err, &ve, "required empty: %v", err) {
		assert.Equal(t, "is required", ve.Reason, "required empty: %v", err)
	}
}

// TestMerchantReferenceRefusedEverywhere: every merchantReference the SDK
// sends goes through the same check, and nothing is sent or signed.
func TestMerchantReferenceRefusedEverywhere(t *testing.T) {
	for name, ref := range unsafeReferences {
		t.Run(name, func(t *testing.T) {
			t.Run("Deposit", func(t *testing.T) {
				checkRejected(t, "merchantReference", func(c *Client) error {
					_, err := c.Transactions.Deposit(context.Background(), "1", &DepositParams{MerchantReference: ref, Amount: "1.00"})
					return err
				})
			})
			t.Run("Capture", func(t *testing.T) {
				p := fullCaptureParams()
				p.MerchantReference = ref
				checkRejected(t, "merchantReference", func(c *Client) error {
					_, err := c.Transactions.Capture(context.Background(), "1", p)
					return err
				})
			})
			t.Run("Establish", func(t *testing.T) {
				d := validDeferred()
				d.MerchantReference = ref
				checkRejected(t, "merchantReference", func(c *Client) error {
					_, err := c.Transactions.Establish(context.Background(), &d)
					return err
				})
			})
			t.Run("SignEstablishData", func(t *testing.T) {
				d := validDeferred()
				d.MerchantReference = ref
				c := signingClient(t, "AID", "key", "MID")
				var ve *ValidationError
				err := c.SignEstablishData(&d)
				require.ErrorAs(t, err, &ve, "err = %v, want a *ValidationError on merchantReference", err)
				require.Equal(t, "merchantReference", ve.Field, "err = %v, want a *ValidationError on merchantReference", err)
				assert.Empty(t, d.RequestSignature, "signed anyway")
			})
		})
	}
	// Establish data may leave merchantReference out.
	d := validDeferred()
	d.MerchantReference = ""
	err := validateEstablishData(&d)
	assert.NoError(t, err, "no merchantReference: %v", err)
	d.MerchantReference, d.PaymentType = "ok ref", models.PaymentTypeRetrieval
	err = validateEstablishData(&d)
	assert.NoError(t, err, "a safe merchantReference: %v", err)
}

// TestPlainHTTPURL: the URLs merchants give take the one-pass path, with
// url.Parse's RawQuery; anything unusual is left to url.Parse.
func TestPlainHTTPURL(t *testing.T) {
	for raw, query := range map[string]string{
		"https://shop.example/bankpay/return":        "",
		"http://localhost:8080/return?order=42&x=y":  "order=42&x=y",
		"https://Shop-1.example.com":                 "",
		"https://shop.example?":                      "",
		"https://shop.example/a/b;c=d?e=f/g&h=i:j@k": "e=f/g&h=i:j@k",
	} {
		q, ok := plainHTTPURL(raw)
		require.True(t, ok, raw)
		assert.Equal(t, query, q, raw)
		u, err := url.Parse(raw)
		require.NoError(t, err, raw)
		assert.Equal(t, u.RawQuery, q, raw)
	}
	for _, raw := range []string{
		"", "https://", "https:///path", "HTTPS://shop.example", "ftp://shop.example",
		"https://user@shop.example", "https://[::1]:8080/", "https://shop.example:", "https://shop.example:80a",
		"https://shop.example:1234567", "https://:80/", "https://shop.example/a b", "https://shop.example/%41",
		"https://shop.example/#top", "https://shop.example/?a=1?b", "https://shop.example/\x7f", "https://exämple.test/",
	} {
		_, ok := plainHTTPURL(raw)
		assert.False(t, ok, raw)
	}
}

// FuzzPlainHTTPURL: every URL the one-pass path accepts is one url.Parse
// accepts as an absolute http(s) URL with a host, with the same RawQuery.
func FuzzPlainHTTPURL(f *testing.F) {
	for _, s := range []string{
		"https://shop.example/bankpay/return", "http://localhost:8080/r?a=1", "https://a.b:/", "https://a:1:2/",
		"https://a/b?c?d", "http://-/..", "https://a/[x]", "https://a/b\\c", "https://a/;=:@!$'()*,",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		q, ok := plainHTTPURL(raw)
		if !ok {
			return
		}
		u, err := url.Parse(raw)
		require.NoError(t, err, raw)
		assert.NotEmpty(t, u.Host, raw)
		assert.Contains(t, []string{"http", "https"}, u.Scheme, raw)
		assert.Equal(t, u.RawQuery, q, raw)
		assert.NoError(t, checkURL("f", raw, true), raw)
	})
}
