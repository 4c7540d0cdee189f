package integration

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func TestEventResends(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		in := startInbox(t, itCreds) // the handler's default de-duplication
		s := startSandbox(t, sh, bankpaytest.WithStartTime(thursday))
		in.useClock(s.Now)
		ctx := context.Background()

		in.failNext(2) // the handler fails twice: 500, and the sandbox re-sends
		auth, err := s.client.Transactions.Establish(ctx, disbursementParams("resend-1", in.URL, "5.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		s.flush(t)
		assert.Empty(t, in.typesFor(auth.TransactionID))
		s.Advance(bankpaytest.ResendInterval - time.Second)
		assert.Empty(t, in.typesFor(auth.TransactionID), "not re-sent before %s", bankpaytest.ResendInterval)
		s.Advance(time.Second)
		s.Advance(bankpaytest.ResendInterval)
		s.flush(t)
		assert.Equal(t, []models.EventType{models.EventAuthorize}, in.typesFor(auth.TransactionID), "processed once, on the third attempt")
		evs := s.EventsFor(auth.TransactionID)
		require.Len(t, evs, 1)
		var codes []int
		for _, a := range evs[0].Attempts {
			codes = append(codes, a.StatusCode)
		}
		assert.Equal(t, []int{500, 500, 200}, codes)
		assert.Equal(t, thursday.Add(2*bankpaytest.ResendInterval), evs[0].Attempts[2].At)
		assert.True(t, evs[0].Delivered)

		// Once delivered, no more re-sends.
		s.Advance(time.Hour)
		s.flush(t)
		assert.Len(t, s.EventsFor(auth.TransactionID)[0].Attempts, 3)
	})
}

func TestEventsRejectedAndDefaultURL(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		// The merchant's registered notification URL receives the events of
		// transactions without a notificationUrl; a handler with the wrong key
		// responds 401, and the sandbox re-sends for 12 hours, then stops.
		wrong := itCreds
		wrong.AccessKey = bankpay.NewSecret("not-the-key")
		bad := startInbox(t, wrong)
		good := startInbox(t, itCreds)
		m := sandboxMerchant()
		m.NotificationURL = good.URL
		s := startSandbox(t, sh, bankpaytest.WithDefaultMerchant(m))
		bad.useClock(s.Now)
		good.useClock(s.Now)
		ctx := context.Background()

		viaDefault, err := s.client.Transactions.Establish(ctx, disbursementParams("default-url", "", "5.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		rejected, err := s.client.Transactions.Establish(ctx, disbursementParams("rejected", bad.URL, "5.00", bankpaytest.AccountVerified))
		require.NoError(t, err)
		s.flush(t)
		assert.Equal(t, []models.EventType{models.EventAuthorize}, good.typesFor(viaDefault.TransactionID))
		assert.Empty(t, bad.all(), "the handler rejects a signature made with another key")

		s.Advance(bankpaytest.ResendWindow + time.Hour)
		s.flush(t)
		evs := s.EventsFor(rejected.TransactionID)
		require.Len(t, evs, 1)
		assert.True(t, !evs[0].Delivered)
		assert.Len(t, evs[0].Attempts, 1+int(bankpaytest.ResendWindow/bankpaytest.ResendInterval), "the first attempt and a re-send every 5 minutes for 12 hours")
		for _, a := range evs[0].Attempts {
			assert.Equal(t, http.StatusUnauthorized, a.StatusCode)
		}
		assert.Empty(t, bad.all())
		// The notifications verify with the right credentials.
		require.NoError(t, verifyErr(bankpay.VerifyNotification([]byte(evs[0].Body), evs[0].Authorization, itCreds)))
		assert.ErrorIs(t, verifyErr(bankpay.VerifyNotification([]byte(evs[0].Body), evs[0].Authorization, wrong)), bankpay.ErrInvalidSignature)
		ev, err := bankpay.ParseEvent([]byte(evs[0].Body), "application/x-www-form-urlencoded")
		require.NoError(t, err)
		assert.Equal(t, rejected.TransactionID, ev.TransactionID)
		assert.Equal(t, evs[0].EventID, ev.EventID)
	})
}

// verifyErr is the error of bankpay.VerifyNotification, for assertions.
func verifyErr(_ *bankpay.Event, err error) error { return err }
