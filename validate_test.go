package bankpay

import (
	"context"
	"errors"
	"testing"

	"github.com/bankpay/bankpay-go/models"
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
		if !errors.As(err, &ve) || ve.Field != "merchantReference" || !isValidation(err) {
			t.Errorf("%s: %v, want a *ValidationError on merchantReference", name, err)
			continue
		}
		if ve.Reason != "must not contain '&', '=', '%', '+' or control characters" {
			t.Errorf("%s: reason %q", name, ve.Reason)
		}
	}
	for _, ref := range []string{"order-42", "m ref", "payout 43/x?y#1", "Zoë-山田_1.2:3", "a;b,c'd\"e"} {
		if err := checkMerchantReference("merchantReference", ref, true); err != nil {
			t.Errorf("%q: %v", ref, err)
		}
	}
	if err := checkMerchantReference("merchantReference", "", false); err != nil {
		t.Errorf("optional empty: %v", err)
	}
	var ve *ValidationError
	if err := checkMerchantReference("merchantReference", "", true); !errors.As(err, &ve) || ve.Reason != "is required" {
		t.Errorf("required empty: %v", err)
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
				if err := c.SignEstablishData(&d); !errors.As(err, &ve) || ve.Field != "merchantReference" {
					t.Fatalf("err = %v, want a *ValidationError on merchantReference", err)
				}
				if d.RequestSignature != "" {
					t.Error("signed anyway")
				}
			})
		})
	}
	// Establish data may leave merchantReference out.
	d := validDeferred()
	d.MerchantReference = ""
	if err := validateEstablishData(&d); err != nil {
		t.Errorf("no merchantReference: %v", err)
	}
	d.MerchantReference, d.PaymentType = "ok ref", models.PaymentTypeRetrieval
	if err := validateEstablishData(&d); err != nil {
		t.Errorf("a safe merchantReference: %v", err)
	}
}
