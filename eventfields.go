package bankpay

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/bankpay/bankpay-go/internal/wire"
)

// A notification's fields are read from the message its signature covers.
// For a form that is the URL-decoded body, never the raw body: every
// encoding of a signed form ("createdAt%3D…", "%65ventId", "&" sent as
// "%26") reads the same fields, so what is verified is what is read. A JSON
// object is read as sent when it has no "%" (its URL-decoding only turns a
// "+" into a space: one signed character; its eventId is read as signed) or
// when its signature covers it as sent; from its URL-decoded body otherwise
// (see signedBody.source in events.go).
//
// A message is a notification when it is form fields (nested names dotted)
// or a JSON object (nested objects flattened to the same dotted names) with
// no repeated name, every name in the notification alphabet, no field that
// only establish data or a redirect carries (nor transactionId with status,
// which every redirect has), and an eventId and a createdAt.
// The establish message the merchant signs and a signed redirect URL never
// are.

// maxJSONDepth bounds the nesting of a JSON notification (genuine ones
// nest once).
const maxJSONDepth = 16

// notificationFields reads the fields of msg, the signed message of a
// notification, as JSON when isJSON and as form fields otherwise, and checks
// that it is a notification.
func notificationFields(msg string, isJSON bool) (url.Values, error) {
	var v url.Values
	var err error
	if isJSON {
		v, err = jsonFields(msg)
	} else {
		v, err = formFields(msg)
	}
	if err != nil {
		return nil, err
	}
	for _, k := range [...]string{wire.EventFieldEventID, wire.EventFieldCreatedAt} {
		if vs := v[k]; len(vs) == 0 || strings.TrimSpace(vs[0]) == "" {
			return nil, fmt.Errorf("no %s", k)
		}
	}
	// Every redirect has transactionId and status (VerifyRedirect refuses
	// one without), and no notification has both (a Dispute's transactionId
	// comes without a status; a transaction event names its transaction
	// objectId). A query-only redirect signature over a returnUrl whose
	// query the user rewrote to carry event fields has both.
	if _, ok := v[wire.EventFieldTransactionID]; ok {
		if _, ok := v[wire.EventFieldStatus]; ok {
			return nil, errors.New("transactionId with status: the fields of a redirect, not of a notification")
		}
	}
	return v, nil
}

// formFields splits msg at each "&" into name=value fields, a value running
// to the next "&" that starts a field: a part without "=" belongs to the
// value before it ("fiName=Farmers & Merchants Bank"). Nothing is decoded
// again. The values are substrings of msg.
func formFields(msg string) (url.Values, error) {
	n := strings.Count(msg, "&") + 1
	m := make(url.Values, n)
	vals := make([]string, 0, n) // one array backs every field's value
	key, start, end := "", -1, 0 // the field being read: its name and value msg[start:end]
	add := func() error {
		if _, ok := m[key]; ok {
			return fmt.Errorf("%q: repeated", clipKey(key))
		}
		vals = append(vals, msg[start:end])
		m[key] = vals[len(vals)-1 : len(vals) : len(vals)]
		return nil
	}
	for pos := 0; pos <= len(msg); {
		stop := strings.IndexByte(msg[pos:], '&')
		if stop < 0 {
			stop = len(msg)
		} else {
			stop += pos
		}
		if eq := strings.IndexByte(msg[pos:stop], '='); eq >= 0 {
			if start >= 0 {
				if err := add(); err != nil {
					return nil, err
				}
			}
			key, start = msg[pos:pos+eq], pos+eq+1
			if err := checkFieldName(key); err != nil {
				return nil, err
			}
		} else if start < 0 {
			return nil, errors.New("not name=value fields")
		}
		end = stop
		pos = stop + 1
	}
	if err := add(); err != nil {
		return nil, err
	}
	return m, nil
}

// jsonFields flattens the JSON object msg: nested object names are joined
// with ".", array elements are values of their array's name, nulls are
// left out. A name given twice, directly or by flattening ("a.b" and
// {"a":{"b"}}), is refused.
func jsonFields(msg string) (url.Values, error) {
	w := jsonWalker{dec: json.NewDecoder(strings.NewReader(msg)), out: url.Values{}, names: map[string]bool{}}
	w.dec.UseNumber()
	if tok, err := w.dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errNotJSON
	}
	if err := w.object("", 1, false); err != nil {
		return nil, err
	}
	if _, err := w.dec.Token(); err != io.EOF {
		return nil, errors.New("data after the JSON object")
	}
	return w.out, nil
}

type jsonWalker struct {
	dec   *json.Decoder
	out   url.Values
	names map[string]bool // flattened names of members outside arrays
}

var errNotJSON = errors.New("body is not a JSON object")

// object reads the members of an object whose "{" was read.
func (w *jsonWalker) object(prefix string, depth int, inArray bool) error {
	if depth > maxJSONDepth {
		return errors.New("JSON nested too deep")
	}
	local := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return errNotJSON
		}
		k, _ := tok.(string)
		name := k
		if prefix != "" {
			name = prefix + "." + k
		}
		if err := checkFieldName(name); err != nil {
			return err
		}
		if local[k] {
			return fmt.Errorf("%q: repeated", clipKey(name))
		}
		local[k] = true
		if !inArray {
			if w.names[name] {
				return fmt.Errorf("%q: repeated", clipKey(name))
			}
			w.names[name] = true
		}
		if err := w.value(name, depth, inArray); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil { // "}"
		return errNotJSON
	}
	return nil
}

// value reads one value named name.
func (w *jsonWalker) value(name string, depth int, inArray bool) error {
	tok, err := w.dec.Token()
	if err != nil {
		return errNotJSON
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return w.object(name, depth+1, inArray)
		}
		if depth+1 > maxJSONDepth {
			return errors.New("JSON nested too deep")
		}
		for w.dec.More() { // '['
			if err := w.value(name, depth+1, true); err != nil {
				return err
			}
		}
		if _, err := w.dec.Token(); err != nil { // "]"
			return errNotJSON
		}
	case string:
		w.out[name] = append(w.out[name], t)
	case json.Number:
		w.out[name] = append(w.out[name], t.String())
	case bool:
		if t {
			w.out[name] = append(w.out[name], "true")
		} else {
			w.out[name] = append(w.out[name], "false")
		}
	}
	return nil
}

// checkFieldName refuses a name outside the notification alphabet (a letter,
// then letters, digits, spaces, ".", "_" and "-": the identity events' names
// have spaces) and the names only establish data or a redirect carries.
func checkFieldName(name string) error {
	// The name is not shown: it is not one.
	if name == "" || !isLetter(name[0]) {
		return errors.New("a part is not a field name=value")
	}
	for i := 1; i < len(name); i++ {
		if c := name[i]; !isLetter(c) && !('0' <= c && c <= '9') && c != ' ' && c != '.' && c != '_' && c != '-' {
			return errors.New("a part is not a field name=value")
		}
	}
	if foreignField(name) {
		return fmt.Errorf("%q: a field of establish data or a redirect, not of a notification", name)
	}
	return nil
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// foreignField reports whether name is a field that establish data or a
// redirect carries and no notification does. VerifyCustomer's customer.name
// is a notification field; customerId is Dispute's.
func foreignField(name string) bool {
	switch name {
	case "description", "currency", "amount", "displayAmount", "minimumBalance", "returnUrl", "cancelUrl",
		"notificationUrl", "requestSignature", "metadata", "panel", "instantPayoutAvailable":
		return true
	case wire.EventFieldCustomerName:
		return false
	}
	switch name[0] {
	case 'r':
		return strings.HasPrefix(name, "recurrence.")
	case 'v':
		return strings.HasPrefix(name, "verification.")
	case 'c':
		return strings.HasPrefix(name, "customer.")
	case 'a':
		return strings.HasPrefix(name, "account.")
	case 'p':
		return strings.HasPrefix(name, "payment.")
	case 'm':
		return strings.HasPrefix(name, "metadata.")
	}
	return false
}

// clipKey shortens a field name for an error message.
func clipKey(k string) string {
	if len(k) > 40 {
		return k[:40] + "…"
	}
	return k
}
