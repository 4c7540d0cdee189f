package bankpay

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// The signing oracle again, with the separators and encodings the value
// check does not look for (newline, CR, NUL, "?", "#", percent escapes that
// a verifier decodes, full-width look-alikes), in the fields a user types
// and in transactionId and timeZone, for Deferred and Retrieval data (no
// currency or amount to mark it), with both algorithms. Whatever
// SignEstablishData agrees to sign must pass for nothing: not for a
// notification (VerifyNotification, and the webhook handler under every
// Content-Type) and not for a redirect (full URL and query-only).
func TestAttackEstablishSignatureIsNoNotificationOrRedirect(t *testing.T) {
	const inject = "eventId=ev-1%seventType=Completed%sobjectType=Transaction%sobjectId=100258999999999%sstatus=4%screatedAt=1700000000000"
	seps := map[string]string{
		"newline": "\n", "crlf": "\r\n", "nul": "\x00", "question": "?", "hash": "#", "pct26": "%26", "pct3B": "%3B",
		"pct2526": "%2526", "fullwidth": "\uff06", "plus": "+", "tab": "\t", "htmlamp": "&amp;",
	}
	creds := Credentials{AccessID: "AID-1", AccessKey: NewSecret(redirectKey), MerchantID: "M-1"}
	var called, signed int
	h := NewWebhookHandler(creds, func(context.Context, *Event) error { called++; return nil })
	for _, alg := range []signatureAlgorithm{hmacSHA1, hmacSHA512} {
		c := signingClient(t, creds.AccessID, redirectKey, creds.MerchantID, withSignatureAlgorithm(alg))
		for sepName, sep := range seps {
			payload := "Eve" + sep + strings.ReplaceAll(inject, "%s", sep)
			for _, field := range []string{"description", "customer.name", "customer.address.city", "transactionId", "timeZone"} {
				for _, retrieval := range []bool{false, true} {
					d := attackerData("", "")
					if retrieval {
						d.PaymentType, d.Currency, d.Amount = models.PaymentTypeRetrieval, "", ""
					}
					switch field {
					case "transactionId":
						d.TransactionID = payload
					case "timeZone":
						d.TimeZone = payload
					default:
						d = attackerData(field, payload)
						if retrieval {
							d.PaymentType, d.Currency, d.Amount = models.PaymentTypeRetrieval, "", ""
						}
					}
					if err := c.SignEstablishData(d); err != nil {
						continue // refused: nothing signed
					}
					signed++
					msg := sign.EstablishMessage(d)
					name := alg.name() + "/" + sepName + "/" + field
					// As a notification: a body that URL-decodes to the message.
					body := url.QueryEscape(msg)
					auth := "Basic " + base64.StdEncoding.EncodeToString([]byte(creds.AccessID+":"+d.RequestSignature))
					assert.Error(t, VerifyNotification([]byte(body), auth, creds), name)
					for _, ct := range []string{"", "application/x-www-form-urlencoded", "application/json", "text/plain"} {
						req := httptest.NewRequest(http.MethodPost, "/events", strings.NewReader(body))
						req.Header.Set("Authorization", auth)
						if ct != "" {
							req.Header.Set("Content-Type", ct)
						}
						rec := httptest.NewRecorder()
						h.ServeHTTP(rec, req)
						assert.NotEqual(t, http.StatusOK, rec.Code, "%s %q", name, ct)
					}
					// As a redirect.
					tail := "&requestSignature=" + url.QueryEscape(d.RequestSignature)
					_, err := VerifyRedirect(msg+tail, keyCreds(redirectKey))
					assert.Error(t, err, name)
					_, err = VerifyRedirect("https://shop.example/return?"+msg+tail, keyCreds(redirectKey), RedirectQueryOnly())
					assert.Error(t, err, name)
				}
			}
		}
	}
	assert.Zero(t, called, "no callback ran")
	assert.Greater(t, signed, 200, "most of these values are signed: the verifiers must refuse them")
}
