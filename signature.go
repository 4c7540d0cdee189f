package bankpay

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/models"
)

// ErrInvalidSignature is the error of every failed signature check
// (VerifyRedirect, VerifyRedirectRequest, VerifyNotification, the webhook
// handler): missing, malformed, wrong accessId, unsupported algorithm or
// forged. The message says which; none carries key material. Reject the
// request.
var ErrInvalidSignature = errors.New("bankpay: invalid signature")

// The reasons of ErrInvalidSignature; each matches it with errors.Is.
var (
	errMissingSignature       = fmt.Errorf("%w: missing", ErrInvalidSignature)
	errUnsupportedAlgorithm   = fmt.Errorf("%w: unsupported algorithm", ErrInvalidSignature)
	errWrongAccessID          = fmt.Errorf("%w: wrong accessId", ErrInvalidSignature)
	errMalformedAuthorization = fmt.Errorf("%w: malformed Authorization header", ErrInvalidSignature)
)

// errEmptyCredentials: the accessId or accessKey to check with is empty, so
// nothing can be verified (a configuration error).
var errEmptyCredentials = &ValidationError{Field: "credentials", Reason: "accessId and accessKey are required"}

// signatureAlgorithm is the HMAC of the request and redirect signatures.
type signatureAlgorithm int

// Signature algorithms.
const (
	// hmacSHA1 is the service's default: Base64(HMAC-SHA1), no prefix.
	hmacSHA1 signatureAlgorithm = iota
	// hmacSHA512 is the opt-in alternative: "HmacSHA512:" + Base64(HMAC-SHA512).
	hmacSHA512
)

// name is "HMAC-SHA1" or "HMAC-SHA512".
func (a signatureAlgorithm) name() string {
	switch a {
	case hmacSHA1:
		return "HMAC-SHA1"
	case hmacSHA512:
		return "HMAC-SHA512"
	}
	return fmt.Sprintf("signatureAlgorithm(%d)", int(a))
}

func (a signatureAlgorithm) internal() (sign.Algorithm, bool) {
	switch a {
	case hmacSHA1:
		return sign.SHA1, true
	case hmacSHA512:
		return sign.SHA512, true
	}
	return 0, false
}

// WithHMACSHA512 makes SignEstablishData and Establish sign with
// HMAC-SHA512 ("HmacSHA512:" + Base64) instead of the service's default
// HMAC-SHA1; the merchant account must be configured for it. Client only.
func WithHMACSHA512() Option { return withSignatureAlgorithm(hmacSHA512) }

// withSignatureAlgorithm sets the algorithm of the client's signatures.
func withSignatureAlgorithm(a signatureAlgorithm) Option {
	return option("WithHMACSHA512", forClient, func(cfg *config) {
		alg, ok := a.internal()
		if !ok {
			cfg.fail(invalid("signatureAlgorithm", "must be HMAC-SHA1 or HMAC-SHA512"))
			return
		}
		cfg.signAlg = alg
	})
}

// signEstablishData is Client.SignEstablishData.
func (c *caller) signEstablishData(d *models.EstablishData) error {
	if err := validateEstablishFields(d); err != nil {
		return err
	}
	id, merchant := d.AccessID, d.MerchantID
	d.AccessID = c.secrets.creds.AccessID
	d.MerchantID = c.secrets.creds.MerchantID
	msg, split := sign.EstablishMessageChecked(d)
	if split != "" {
		d.AccessID, d.MerchantID = id, merchant // d left unchanged
		return splitError(split)
	}
	d.RequestSignature = c.macs.Sign(c.cfg.signAlg, c.secrets.creds.AccessKey.Reveal(), msg)
	return nil
}

// FlattenEstablishData returns the establish data as flat keys, the form the
// iOS and Android SDKs take: nested fields are dotted ("metadata.flowType",
// "customer.address.city"), paymentType is its name ("Deferred"), numbers
// and booleans are written as in JSON ("1", "true"), and fields the JSON
// form leaves out (empty, false, zero, a customer.vip of 0) are absent: the
// keys are exactly the leaves of d's JSON. Sign d first.
func FlattenEstablishData(d *models.EstablishData) map[string]string {
	out := map[string]string{}
	if d == nil {
		return out
	}
	buf, err := json.Marshal(d)
	if err != nil {
		// EstablishData holds only strings, numbers, booleans and structs
		// of them: it always marshals.
		return out
	}
	dec := json.NewDecoder(bytes.NewReader(buf))
	dec.UseNumber()
	var doc map[string]any
	if err := dec.Decode(&doc); err != nil {
		return out
	}
	flattenJSON("", doc, func(k, v string) { out[k] = v })
	return out
}

// flattenJSON calls add for every leaf of v (a document decoded with
// UseNumber), with nested object keys joined by "." and array elements
// added under their array's key. Nulls are skipped.
func flattenJSON(prefix string, v any, add func(k, v string)) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := k
			if prefix != "" {
				name = prefix + "." + k
			}
			flattenJSON(name, x[k], add)
		}
	case []any:
		for _, e := range x {
			flattenJSON(prefix, e, add)
		}
	case string:
		add(prefix, x)
	case json.Number:
		add(prefix, x.String())
	case bool:
		if x {
			add(prefix, "true")
		} else {
			add(prefix, "false")
		}
	case nil:
	}
}

// checkSignature verifies sig over message with key in constant time. want,
// when not nil, is the only algorithm accepted; macs may be nil (a fresh
// HMAC is keyed).
func checkSignature(macs *sign.MACCache, key, message, sig string, want *sign.Algorithm) error {
	if sig == "" {
		return errMissingSignature
	}
	alg, ok := sign.AlgorithmOf(sig)
	if !ok {
		return errUnsupportedAlgorithm
	}
	if want != nil && alg != *want {
		return fmt.Errorf("%w: not the required algorithm", errUnsupportedAlgorithm)
	}
	if strings.TrimPrefix(sig, sign.SHA512Prefix) == "" {
		return errMissingSignature
	}
	if !macs.Verify(key, message, sig) {
		return ErrInvalidSignature
	}
	return nil
}

// opError names the operation an error of the signature checks came from,
// with a single "bankpay: " prefix: "bankpay: verify redirect: invalid
// signature". errors.Is sees the wrapped sentinel.
type opError struct {
	op  string
	err error
}

func opErr(op string, err error) error { return &opError{op: op, err: err} }

func (e *opError) Error() string {
	return "bankpay: " + e.op + ": " + strings.TrimPrefix(e.err.Error(), "bankpay: ")
}

func (e *opError) Unwrap() error { return e.err }
