package bankpaytest

import (
	"errors"

	"github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/internal/sign"
)

// SignNotification returns the Authorization header value the service sends
// with an event notification body, signed with creds: use it to post events
// of your own to your webhook handler in tests. The sandbox signs the events
// it delivers the same way. It fails for empty credentials and for a body
// that is not URL-decodable (the service signs the decoded body).
func SignNotification(body []byte, creds bankpay.Credentials) (string, error) {
	if creds.AccessID == "" || creds.AccessKey.Reveal() == "" {
		return "", errors.New("bankpaytest: sign notification: accessId and accessKey are required")
	}
	h, err := sign.NotificationAuthorization(creds.AccessID, creds.AccessKey.Reveal(), body)
	if err != nil {
		return "", errors.New("bankpaytest: sign notification: body is not URL-decodable")
	}
	return h, nil
}
