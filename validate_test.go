package bankpay

import (
	"context"
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
