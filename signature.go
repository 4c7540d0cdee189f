package bankpay

import (
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// SignEstablishData fills d's AccessID and MerchantID from the client's
// credentials and sets RequestSignature over the signed fields d carries.
// The JSON of d is then what the front-end SDKs' selectBankWidget and
// establish methods take.
func (c *Client) SignEstablishData(d *models.EstablishData) error {
	if d == nil {
		return invalid("establishData", "must not be nil")
	}
	d.AccessID = c.secrets.creds.AccessID
	d.MerchantID = c.secrets.creds.MerchantID
	d.RequestSignature = sign.Sign(c.signAlg, c.secrets.creds.AccessKey, sign.EstablishMessage(d))
	return nil
}
