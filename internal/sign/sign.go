// Package sign holds the service's signature algorithms, shared by the client
// and the sandbox: the request signature over establish data, the redirect
// signature, and the event notification signature. It has no I/O.
package sign

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/bankpay/bankpay-go/internal/paytype"
	"github.com/bankpay/bankpay-go/models"
)

// Algorithm is the HMAC an establish or redirect signature is made with.
type Algorithm int

const (
	// SHA1 is HMAC-SHA1, the default; its signature has no prefix.
	SHA1 Algorithm = iota
	// SHA512 is HMAC-SHA512; its signature is prefixed with SHA512Prefix.
	SHA512
)

// SHA512Prefix marks an HMAC-SHA512 signature.
const SHA512Prefix = "HmacSHA512:"

// Sign returns the Base64 HMAC of message keyed with key, prefixed for
// SHA512. It keys a fresh HMAC; an owner that signs often with the same key
// uses its own MACCache.
func Sign(alg Algorithm, key, message string) string {
	return (*MACCache)(nil).Sign(alg, key, message)
}

// Verify reports whether sig is the signature of message keyed with key,
// in the algorithm its prefix names. The comparison is constant-time.
func Verify(key, message, sig string) bool {
	return (*MACCache)(nil).Verify(key, message, sig)
}

// AlgorithmOf reads the algorithm a signature's prefix names: no prefix is
// SHA1, SHA512Prefix is SHA512. ok is false for any other prefix, that is
// for a signature with a ':' (which Base64 never contains) that does not
// start with SHA512Prefix.
func AlgorithmOf(sig string) (alg Algorithm, ok bool) {
	if strings.HasPrefix(sig, SHA512Prefix) {
		return SHA512, !strings.Contains(sig[len(SHA512Prefix):], ":")
	}
	return SHA1, !strings.Contains(sig, ":")
}

// NotificationMessage is the message an event notification's signature is
// made over: the URL-decoded body ("+" and %XX decoded). It fails for a body
// that is not URL-decodable (a stray "%"), which no signature can cover.
func NotificationMessage(body []byte) (string, error) {
	// url.QueryUnescape(string(body)) in one pass and one allocation.
	var b strings.Builder
	b.Grow(len(body))
	for i := 0; i < len(body); i++ {
		switch c := body[i]; c {
		case '%':
			if i+2 >= len(body) || !isHex(body[i+1]) || !isHex(body[i+2]) {
				return url.QueryUnescape(string(body)) // its *url.EscapeError
			}
			b.WriteByte(unhex(body[i+1])<<4 | unhex(body[i+2]))
			i += 2
		case '+':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// NotificationAuthorization returns the Authorization header value the
// service sends with an event notification: "Basic " + Base64(accessID +
// ":" + Sign(SHA1, key, NotificationMessage(body))).
func NotificationAuthorization(accessID, key string, body []byte) (string, error) {
	msg, err := NotificationMessage(body)
	if err != nil {
		return "", err
	}
	cred := accessID + ":" + Sign(SHA1, key, msg)
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(cred)), nil
}

// SignRedirect appends "&requestSignature=" and the URL-escaped signature to
// a return or cancel URL that already carries its parameters. The signature
// covers the whole URL, or with queryOnly its query string alone (the older
// API versions); see RedirectMessage.
func SignRedirect(alg Algorithm, key, unsignedURL string, queryOnly bool) string {
	msg := unsignedURL
	if queryOnly {
		if _, q, ok := strings.Cut(unsignedURL, "?"); ok {
			msg = q
		}
	}
	return unsignedURL + redirectMarker + url.QueryEscape(Sign(alg, key, msg))
}

// Pair is one key=value of a signed message.
type Pair struct{ Key, Value string }

// Canonical joins pairs as key=value with "&", values not URL-encoded.
func Canonical(pairs []Pair) string {
	var b strings.Builder
	for i, p := range pairs {
		if i > 0 {
			b.WriteByte('&')
		}
		b.WriteString(p.Key)
		b.WriteByte('=')
		b.WriteString(p.Value)
	}
	return b.String()
}

// EstablishPairs lists the signed fields that d carries, in the fixed order
// of the service: empty strings, false and numeric zero are left out.
func EstablishPairs(d *models.EstablishData) []Pair {
	ps := make([]Pair, 0, 16)
	establishFields(d, pairSink{&ps})
	return ps
}

// EstablishMessage is the canonical string an establish signature is made
// over: Canonical(EstablishPairs(d)), written in one buffer.
func EstablishMessage(d *models.EstablishData) string {
	msg, _ := establishMessage(d)
	return msg
}

// EstablishMessageChecked is EstablishMessage plus the key of the first
// field whose value SplitsPair, as EstablishFieldSplittingPair gives it ("",
// the usual case, costs no second pass over d).
func EstablishMessageChecked(d *models.EstablishData) (msg, splitKey string) {
	msg, pairs := establishMessage(d)
	// pairs-1 separators: no value holds an '&', and none a ';'.
	if strings.Count(msg, "&") >= pairs || strings.IndexByte(msg, ';') >= 0 {
		splitKey = EstablishFieldSplittingPair(d)
	}
	return msg, splitKey
}

func establishMessage(d *models.EstablishData) (string, int) {
	bp := messagePool.Get().(*[]byte)
	*bp = (*bp)[:0]
	var pairs int
	establishFields(d, messageSink{bp, &pairs})
	msg := string(*bp)
	if cap(*bp) <= maxPooledMessage {
		messagePool.Put(bp)
	}
	return msg, pairs
}

// messagePool holds the buffers EstablishMessage writes in.
var messagePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledMessage = 16 << 10

// A fieldSink receives the signed fields. The sinks are small structs, not
// pointers, so that establishFields is compiled for each of them and calls
// their add directly.
type fieldSink interface{ add(k, v string) }

type pairSink struct{ ps *[]Pair }

func (s pairSink) add(k, v string) { *s.ps = append(*s.ps, Pair{k, v}) }

type messageSink struct {
	b     *[]byte
	pairs *int
}

func (s messageSink) add(k, v string) {
	*s.pairs++
	b := *s.b
	if len(b) > 0 {
		b = append(b, '&')
	}
	b = append(b, k...)
	b = append(b, '=')
	*s.b = append(b, v...)
}

// SplitsPair reports whether v, written as a value of a canonical string,
// could be read as extra key=value pairs: it holds an '&' (or a ';', which
// some form parsers also split on) with an '=' anywhere after it. A value
// such as "Barnes & Noble" or "a=b" does not.
func SplitsPair(v string) bool {
	j := strings.LastIndexByte(v, '=')
	if j < 0 {
		return false // most values: no '=' at all
	}
	return strings.IndexByte(v[:j], '&') >= 0 || strings.IndexByte(v[:j], ';') >= 0
}

// EstablishFieldSplittingPair returns the key of the first signed field of d
// whose value SplitsPair, and "" when there is none. accessId and merchantId
// are not looked at: the signer fills them from its credentials.
func EstablishFieldSplittingPair(d *models.EstablishData) string {
	var key string
	establishFields(d, splitSink{&key})
	return key
}

type splitSink struct{ key *string }

func (s splitSink) add(k, v string) {
	if *s.key == "" && k != "accessId" && k != "merchantId" && SplitsPair(v) {
		*s.key = k
	}
}

// IsEstablishKey reports whether k is a key of the establish canonical
// string that a redirect never carries: every signed establish key except
// merchantReference and transactionId, which both have.
func IsEstablishKey(k string) bool {
	switch k {
	case "accessId", "merchantId", "description", "currency", "amount", "displayAmount",
		"minimumBalance", "paymentType", "timeZone":
		return true
	}
	for _, p := range [...]string{"customer.", "account.", "recurrence.", "verification."} {
		if strings.HasPrefix(k, p) {
			return true
		}
	}
	return false
}

// establishFields gives s each signed field that d carries, in the fixed
// order of the service: empty strings, false and numeric zero are left out.
func establishFields[S fieldSink](d *models.EstablishData, s S) {
	str := func(k, v string) {
		if v != "" {
			s.add(k, v)
		}
	}
	num := func(k string, n int64) {
		if n != 0 {
			s.add(k, strconv.FormatInt(n, 10))
		}
	}
	flag := func(k string, b bool) {
		if b {
			s.add(k, "true")
		}
	}
	str("accessId", d.AccessID)
	str("merchantId", d.MerchantID)
	str("description", d.Description)
	str("currency", string(d.Currency))
	str("amount", string(d.Amount))
	str("displayAmount", string(d.DisplayAmount))
	str("minimumBalance", string(d.MinimumBalance))
	str("merchantReference", d.MerchantReference)
	str("paymentType", paytype.Name(d.PaymentType))
	str("timeZone", d.TimeZone)
	if r := d.Recurrence; r != nil {
		num("recurrence.startDate", int64(r.StartDate))
		num("recurrence.endDate", int64(r.EndDate))
		num("recurrence.frequency", int64(r.Frequency))
		num("recurrence.frequencyUnit", int64(r.FrequencyUnit))
		num("recurrence.frequencyUnitType", int64(r.FrequencyUnitType))
		str("recurrence.recurringAmount", string(r.RecurringAmount))
		flag("recurrence.automaticCapture", r.AutomaticCapture)
	}
	if v := d.Verification; v != nil {
		num("verification.status", int64(v.Status))
		flag("verification.verifyCustomer", v.VerifyCustomer)
	}
	if c := d.Customer; c != nil {
		str("customer.customerId", c.CustomerID)
		str("customer.externalId", c.ExternalID)
		str("customer.name", c.Name)
		if c.VIP != nil {
			num("customer.vip", int64(*c.VIP))
		}
		str("customer.taxId", c.TaxID)
		if dl := c.DriverLicense; dl != nil {
			str("customer.driverLicense.number", dl.Number)
			str("customer.driverLicense.state", dl.State)
		}
		if a := c.Address; a != nil {
			str("customer.address.address1", a.Address1)
			str("customer.address.address2", a.Address2)
			str("customer.address.city", a.City)
			str("customer.address.state", a.State)
			str("customer.address.zip", a.Zip)
			str("customer.address.country", a.Country)
		}
		str("customer.phone", c.Phone)
		str("customer.email", c.Email)
		str("customer.balance", string(c.Balance))
		str("customer.currency", c.Currency)
		str("customer.enrollDate", c.EnrollDate)
		str("customer.externalTier", c.ExternalTier)
		str("customer.dateOfBirth", c.DateOfBirth)
	}
	if a := d.Account; a != nil {
		str("account.nameOnAccount", a.NameOnAccount)
		str("account.name", a.Name)
		num("account.type", int64(a.Type))
		num("account.profile", int64(a.Profile))
		str("account.accountNumber", a.AccountNumber)
		str("account.routingNumber", a.RoutingNumber)
	}
	str("transactionId", d.TransactionID)
}

// redirectMarker starts the signature parameter of a redirect URL.
const redirectMarker = "&requestSignature="

// RedirectMessage splits a return or cancel URL into the signed message, the
// (still URL-encoded) signature and the unsigned rest. The message is
// everything before the first "&requestSignature="; with queryOnly it is the
// query string alone (the older API versions). The signature runs to the
// next "&"; what follows that "&" is unsigned (the service appends
// parameters such as instantPayoutAvail after the signature). ok is false
// when the URL carries no signature.
func RedirectMessage(rawURL string, queryOnly bool) (message, encodedSig, unsigned string, ok bool) {
	i := strings.Index(rawURL, redirectMarker)
	if i < 0 {
		return "", "", "", false
	}
	message, encodedSig = rawURL[:i], rawURL[i+len(redirectMarker):]
	if j := strings.IndexByte(encodedSig, '&'); j >= 0 {
		encodedSig, unsigned = encodedSig[:j], encodedSig[j+1:]
	}
	if queryOnly {
		q := strings.IndexByte(message, '?')
		if q < 0 {
			return "", "", "", false
		}
		message = message[q+1:]
	}
	return message, encodedSig, unsigned, true
}
