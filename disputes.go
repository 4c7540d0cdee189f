package bankpay

import (
	"context"
	"crypto/rand"
	"fmt"
	"strings"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/models"
)

// DisputesService recovers disputed payments.
type DisputesService service

// DisputeParams is the input of Disputes.Create: the body
// {"transactionId","amount"} as JSON, and the Idempotency-Key header.
type DisputeParams struct {
	// TransactionID is the disputed transaction, as the Dispute event
	// names it (transactionId; required).
	TransactionID string `json:"transactionId"`
	// Amount is the amount to recover, N.NN, greater than 0.00 and at most
	// 10 characters (required).
	Amount models.Amount `json:"amount"`
	// IdempotencyKey is sent as the Idempotency-Key header: 1 to 255
	// printable ASCII characters, no leading or trailing space. Leave it
	// empty to have Create generate one (a random UUID) for this call;
	// give one to make a later call (after a restart, say) the same
	// request.
	IdempotencyKey string `json:"-"`
}

// maxIdempotencyKey is the longest Idempotency-Key the SDK sends.
const maxIdempotencyKey = 255

// Create recovers a retail dispute: POST /collections/recovery/dispute,
// with the Idempotency-Key header. The response is the recovery
// transaction. Invalid params are a *ValidationError and nothing is sent.
//
// The service processes one request per key and responds to the same key
// with the same body with the first response, so Create, unlike other
// state-changing calls, is retried like a read (connection errors, 429,
// 5xx), every attempt with the same key. The same key with another body is
// an *APIError. A generated key lives for one call: to be able to repeat a
// call whose outcome is unknown (a *NetworkError, say), give your own
// IdempotencyKey and call again with it.
func (s *DisputesService) Create(ctx context.Context, p *DisputeParams, opts ...Option) (*models.Transaction, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	key := p.IdempotencyKey
	if key == "" {
		key = newIdempotencyKey()
	}
	return call[models.Transaction](ctx, s.client, ops.DisputesCreate, args{Body: p, IdempotencyKey: key}, opts)
}

func (p *DisputeParams) validate() error {
	if p == nil {
		return invalid("disputeParams", "must not be nil")
	}
	if err := firstError(
		checkID("transactionId", p.TransactionID),
		checkPositiveAmount("amount", p.Amount, true),
	); err != nil {
		return err
	}
	if len(p.Amount) > 10 {
		return invalid("amount", "must be at most 10 characters")
	}
	return checkIdempotencyKey(p.IdempotencyKey)
}

// checkIdempotencyKey accepts "" (a key is generated) and 1 to 255
// printable ASCII characters that are not all spaces and neither start
// nor end with one (HTTP would strip those, and the service would see
// another key).
func checkIdempotencyKey(key string) error {
	const field = "Idempotency-Key"
	switch {
	case key == "":
		return nil
	case strings.TrimSpace(key) == "":
		return invalid(field, "must not be blank")
	case len(key) > maxIdempotencyKey:
		return invalid(field, fmt.Sprintf("must be at most %d characters", maxIdempotencyKey))
	case strings.ContainsFunc(key, func(r rune) bool { return r < 0x20 || r > 0x7e }):
		return invalid(field, "must be printable ASCII")
	case key[0] == ' ' || key[len(key)-1] == ' ':
		return invalid(field, "must not start or end with a space")
	}
	return nil
}

// newIdempotencyKey returns a random (version 4) UUID.
func newIdempotencyKey() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("bankpay: reading random bytes: " + err.Error()) // crypto/rand does not fail on supported platforms
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
