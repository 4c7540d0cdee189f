package bankpay

import (
	"cmp"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/internal/pipeline"
)

// Credentials are what the operator issues to a merchant: the accessId and
// accessKey (HTTP Basic user and password of every REST call, and the key of
// every signature) and the merchantId carried in request bodies.
//
// Credentials never print their AccessKey (a Secret).
type Credentials struct {
	AccessID   string
	AccessKey  Secret
	MerchantID string
}

const redacted = "[redacted]"

// Secret holds an access key (NewSecret; the zero Secret is empty). No fmt
// verb, slog, JSON or go-spew (testify's diffs) shows the key: String is
// [redacted], and the key is held by a function, which every printer shows
// as an address at most. Reveal returns the key.
//
// Compare Secrets by their Reveal: a copy of a Secret is equal to it under
// reflect.DeepEqual (testify's assert.Equal), but two Secrets made by
// separate NewSecret calls are not, whatever their keys.
type Secret struct {
	_ [0]func()  // not comparable: == would compare pointers, not keys
	p *secretBox // shared by copies
}

// secretBox keeps the key out of reach of printers that follow pointers
// and read unexported fields (go-spew): they print a func as an address.
type secretBox struct{ key func() string }

// NewSecret wraps key.
func NewSecret(key string) Secret {
	if key == "" {
		return Secret{}
	}
	return Secret{p: &secretBox{key: func() string { return key }}}
}

// Reveal returns the key.
func (s Secret) Reveal() string {
	if s.p == nil {
		return ""
	}
	return s.p.key()
}

// String is [redacted], or "" (quoted) for an empty key.
func (s Secret) String() string { return keyMark(s.Reveal()) }

func keyMark(k string) string {
	if k == "" {
		return `""`
	}
	return redacted
}

func (c Credentials) validate() error {
	switch {
	case c.AccessID == "":
		return invalid("accessId", "must not be empty")
	case c.AccessKey.Reveal() == "":
		return invalid("accessKey", "must not be empty")
	case c.MerchantID == "":
		return invalid("merchantId", "must not be empty")
	}
	return nil
}

// secrets are a Client's credentials, and, behind a function (see
// secretBox), the Authorization header made of them and every form in which
// a server or proxy could echo the key back.
type secrets struct {
	creds    Credentials
	material func() *secretMaterial
}

type secretMaterial struct {
	authValue []string // {"Basic …"}, capacity 1: shared by every request
	forms     []string // longest first
}

// AuthValue is the value of the Authorization header as a header's slice;
// net/http and RoundTrippers do not modify a request's headers, and its
// capacity is its length, so that an append copies.
func (s *secrets) AuthValue() []string { return s.material().authValue }

func newSecrets(creds Credentials) *secrets {
	key := creds.AccessKey.Reveal()
	pair := creds.AccessID + ":" + key
	m := &secretMaterial{authValue: []string{"Basic " + base64.StdEncoding.EncodeToString([]byte(pair))}}
	s := &secrets{creds: creds, material: func() *secretMaterial { return m }}
	// The raw and escaped forms of id:key contain those of the key; only
	// base64 hides the key inside the pair.
	forms := echoForms(key)
	forms = append(forms, hex.EncodeToString([]byte(key)), strings.ToUpper(hex.EncodeToString([]byte(key))))
	for _, v := range []string{key, pair} {
		for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
			forms = append(forms, enc.EncodeToString([]byte(v)))
		}
	}
	m.forms = sortForms(forms)
	return s
}

// echoForms are the forms in which a server or proxy could echo v back in
// text: as it is, URL-escaped (hex digits in either case), HTML-escaped
// and JSON-escaped.
func echoForms(v string) []string {
	forms := []string{v, url.QueryEscape(v), url.PathEscape(v), html.EscapeString(v),
		lowerEscapes(url.QueryEscape(v)), lowerEscapes(url.PathEscape(v))}
	if j, err := json.Marshal(v); err == nil {
		forms = append(forms, string(j[1:len(j)-1]))
	}
	return append(forms, asciiEscapes(v)...)
}

// asciiEscapes are the JSON forms of v that a server writing ASCII only
// (Python's json.dumps by default) echoes: every non-ASCII character as
// \uXXXX (a surrogate pair beyond the BMP), hex digits in lower and upper
// case. None for a v of ASCII only.
func asciiEscapes(v string) []string {
	if !strings.ContainsFunc(v, func(r rune) bool { return r >= utf8.RuneSelf }) {
		return nil
	}
	var lower, upper strings.Builder
	for _, r := range v {
		if r < utf8.RuneSelf {
			lower.WriteRune(r)
			upper.WriteRune(r)
			continue
		}
		units := []rune{r}
		if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
			units = []rune{r1, r2}
		}
		for _, u := range units {
			fmt.Fprintf(&lower, "\\u%04x", u)
			fmt.Fprintf(&upper, "\\u%04X", u)
		}
	}
	return []string{lower.String(), upper.String()}
}

// sortForms sorts forms longest first, without duplicates or empty ones.
func sortForms(forms []string) []string {
	slices.SortFunc(forms, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	return slices.DeleteFunc(slices.Compact(forms), func(f string) bool { return f == "" })
}

// minEcho is how much of a secret form makes an echo: a form is redacted
// where its first or its last minEcho bytes appear, as far as the text goes
// on matching it, so that a form cut short at either end (by a server's
// clip, an excerpt, or a log line clipped from the left) goes too.
const minEcho = 8

// scrub redacts every echo of the key in text.
func (s *secrets) scrub(text string) string { return scrubForms(text, s.material().forms) }

// scrubForms redacts every echo of forms (longest first) in text, cut short
// or whole.
func scrubForms(text string, forms []string) string {
	for _, f := range forms {
		text = scrubHead(text, f)
		text = scrubTail(text, f)
	}
	return text
}

// scrubHeader returns a copy of h with every value scrubbed (nil for nil).
func (s *secrets) scrubHeader(h http.Header) http.Header {
	if h == nil {
		return nil
	}
	out := make(http.Header, len(h))
	for k, vs := range h {
		c := make([]string, len(vs))
		for i, v := range vs {
			c[i] = s.scrub(v)
		}
		out[k] = c
	}
	return out
}

// scrubHead redacts each run of text that starts like f (its first minEcho
// bytes at least).
func scrubHead(text, f string) string {
	probe := f[:min(len(f), minEcho)]
	for from := 0; ; {
		i := strings.Index(text[from:], probe)
		if i < 0 {
			return text
		}
		i += from
		n := len(probe)
		for n < len(f) && i+n < len(text) && text[i+n] == f[n] {
			n++
		}
		text = text[:i] + redacted + text[i+n:]
		from = i + len(redacted)
	}
}

// scrubTail redacts each run of text that ends like f (its last minEcho
// bytes at least).
func scrubTail(text, f string) string {
	probe := f[len(f)-min(len(f), minEcho):]
	for from := 0; ; {
		i := strings.Index(text[from:], probe)
		if i < 0 {
			return text
		}
		i += from
		start, n := i, len(probe)
		for n < len(f) && start > 0 && text[start-1] == f[len(f)-n-1] {
			start--
			n++
		}
		text = text[:start] + redacted + text[i+len(probe):]
		from = start + len(redacted)
	}
}

// lowerEscapes writes the hex digits of %XX escapes in lower case.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lowerHex(b[i+1]), lowerHex(b[i+2])
		}
	}
	return string(b)
}

func lowerHex(c byte) byte {
	if c >= 'A' && c <= 'F' {
		return c + 'a' - 'A'
	}
	return c
}

// callText cleans the text of one call's errors and log lines: no echo of
// the key, none of the call's query values (an email or a phone number of
// Customers.Lookup, which a gateway may quote with the request's URI), and
// digit runs that may be account numbers, tax ids or card numbers masked,
// except the ids the call sent (see maskKeeping).
type callText struct {
	s       *secrets
	private []string // echo forms of the query's values and the body's personal ones, longest first
	words   []string // short personal values and the words of personal values, redacted as whole words
	ids     []string // the ids the call sent, kept readable
}

// idFields are the query and body fields that carry an id the caller and
// the service's messages refer to: kept readable in errors and logs.
var idFields = []string{"transactionId", "originalTransactionId", "paymentId", "eventId", "parentObjectId", "merchantReference"}

// textOf is the cleaner of req's errors and log lines.
func (s *secrets) textOf(req *pipeline.Request) *callText {
	t := &callText{s: s}
	for _, seg := range strings.Split(req.Path, "/") {
		if id, err := url.PathUnescape(seg); err == nil && id != "" {
			t.ids = append(t.ids, id)
		}
	}
	for _, f := range idFields {
		if v := req.Query.Get(f); v != "" {
			t.ids = append(t.ids, v)
		}
	}
	t.ids = append(t.ids, req.BodyFields(idFields...)...)
	var private []string
	for _, vs := range req.Query {
		for _, v := range vs {
			if len(v) >= 4 && v != "true" && v != "false" && !slices.Contains(t.ids, v) {
				private = append(private, echoForms(v)...)
			}
		}
	}
	words, personal := personalValues(req)
	for _, v := range personal {
		if !slices.Contains(t.ids, v) {
			private = append(private, echoForms(v)...)
			private = append(private, echoForms(strings.ToLower(v))...)
			private = append(private, echoForms(strings.ToUpper(v))...)
		}
	}
	t.private = sortForms(private)
	t.words = slices.DeleteFunc(words, func(w string) bool { return slices.Contains(t.ids, w) })
	return t
}

// personalFields are the body fields that carry a customer's personal data
// (as the last segment of a dotted form name, or a JSON name at any depth):
// their values are redacted from errors and log lines, as the query's are.
var personalFields = []string{"email", "phone", "name", "firstName", "middleName", "lastName", "nameOnAccount", "taxId",
	"dateOfBirth", "address", "address1", "address2", "city", "zip", "accountNumber", "iban"}

// personalValues returns the values of req's body's personal fields:
// those of 4 bytes or more whole (personal), and, as whole words, each
// word of 2 bytes or more of every value that is not all digits (words:
// "Jane" of "Jane Doe", "Al"; digit runs of 5 or more are masked anyway).
func personalValues(req *pipeline.Request) (words, personal []string) {
	add := func(name, v string) {
		if !slices.ContainsFunc(personalFields, func(f string) bool { return strings.EqualFold(f, name) }) {
			return
		}
		v = strings.TrimSpace(v)
		if len(v) >= 4 {
			personal = append(personal, v)
		}
		for _, w := range strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' }) {
			if len(w) >= 2 && strings.ContainsFunc(w, func(r rune) bool { return r < '0' || r > '9' }) {
				words = append(words, w)
				words = append(words, asciiEscapes(w)...)
			}
		}
	}
	switch req.ContentType {
	case pipeline.ContentTypeForm:
		if vals, err := url.ParseQuery(string(req.Body)); err == nil {
			for k, vs := range vals {
				for _, v := range vs {
					add(k[strings.LastIndexByte(k, '.')+1:], v)
				}
			}
		}
	case pipeline.ContentTypeJSON:
		var doc any
		if json.Unmarshal(req.Body, &doc) == nil {
			walkStrings("", doc, add)
		}
	}
	return words, personal
}

// walkStrings calls f with the name and value of every string in v (a
// decoded JSON value), the name being that of the member that holds it
// (or of the array that does).
func walkStrings(name string, v any, f func(name, value string)) {
	switch v := v.(type) {
	case string:
		f(name, v)
	case map[string]any:
		for k, e := range v {
			walkStrings(k, e, f)
		}
	case []any:
		for _, e := range v {
			walkStrings(name, e, f)
		}
	}
}

// scrubWords redacts each whole-word occurrence of words in text (no
// letter or digit on either side), ASCII case folded.
func scrubWords(text string, words []string) string {
	for _, w := range words {
		for from := 0; from+len(w) <= len(text); {
			i := indexFold(text[from:], w)
			if i < 0 {
				break
			}
			i += from
			end := i + len(w)
			if (i == 0 || !isAlnum(text[i-1])) && (end == len(text) || !isAlnum(text[end])) {
				text = text[:i] + redacted + text[end:]
				from = i + len(redacted)
				continue
			}
			from = i + 1
		}
	}
	return text
}

// indexFold is strings.Index under ASCII case folding.
func indexFold(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if strings.EqualFold(s[i:i+len(sub)], sub) {
			return i
		}
	}
	return -1
}

// scrub removes the key, the call's query values and its body's personal
// values from text.
func (t *callText) scrub(text string) string {
	return scrubWords(scrubForms(t.s.scrub(text), t.private), t.words)
}

// clean is scrub, and masks the digit runs that may be account numbers,
// tax ids or card numbers, keeping the call's ids.
func (t *callText) clean(text string) string { return maskKeeping(t.scrub(text), t.ids) }

// redactErr returns err, or, when its text echoes the key, one of the
// call's query values or a number clean masks (an account number or tax id
// of the request's body, echoed by a hostile server's bytes quoted by net/http:
// "malformed HTTP response \"…\"", or a middleware's error quoting the
// URL), an error of the scrubbed text that still matches what err matches
// (errors.Is, errors.As) but does not unwrap to it, so that a logger walking
// the chain does not print them.
func (t *callText) redactErr(err error) error {
	if err == nil {
		return nil
	}
	text := err.Error()
	if clean := t.clean(text); clean != text {
		return &redactedError{text: clean, err: err}
	}
	return err
}

// redactedError is an error whose text was scrubbed of the key.
type redactedError struct {
	text string
	err  error
}

func (e *redactedError) Error() string { return e.text }

// Is matches what the original error matches.
func (e *redactedError) Is(target error) bool { return errors.Is(e.err, target) }

// As finds what the original error holds.
func (e *redactedError) As(target any) bool { return errors.As(e.err, target) }
