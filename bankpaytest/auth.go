package bankpaytest

import (
	"crypto/subtle"
	"net/http"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// authenticate checks the HTTP Basic credentials of r and returns their
// merchant. The caller holds s.mu.
func (s *Server) authenticate(r *http.Request) (*merchant, *Error) {
	id, key, ok := r.BasicAuth()
	if !ok {
		return nil, accessDenied("missing credentials")
	}
	m := s.st.byAccess[id]
	if m == nil || subtle.ConstantTimeCompare([]byte(key), []byte(m.key)) != 1 {
		return nil, accessDenied("invalid accessId or accessKey")
	}
	return m, nil
}

// checkMerchantID checks the merchantId a body carries against the
// authenticated merchant: required, and 401/300 when it is another one.
func checkMerchantID(m *merchant, merchantID string) *Error {
	if merchantID == "" {
		return badRequest("merchantId is required")
	}
	if merchantID != m.cfg.MerchantID {
		return &Error{Status: http.StatusUnauthorized, Code: codeSecurity, Message: "merchantId does not match the credentials"}
	}
	return nil
}

// checkEstablishSignature checks the accessId, merchantId and
// requestSignature of establish data for merchant m, as the service and its
// user interface do. A missing accessId or signature is refused like a
// wrong one.
func checkEstablishSignature(m *merchant, d *models.EstablishData) *Error {
	if d.AccessID == "" {
		return accessDenied("accessId is required")
	}
	if d.AccessID != m.cfg.AccessID {
		return accessDenied("accessId does not match the credentials")
	}
	if err := checkMerchantID(m, d.MerchantID); err != nil {
		return err
	}
	if d.RequestSignature == "" {
		return accessDenied("requestSignature is required")
	}
	if !sign.Verify(m.key, sign.EstablishMessage(d), d.RequestSignature) {
		return accessDenied("invalid requestSignature")
	}
	return nil
}
