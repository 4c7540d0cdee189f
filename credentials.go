package bankpay

import (
	"encoding/json"
	"fmt"
	"log/slog"
)

// Credentials are what the operator issues to a merchant: the accessId and
// accessKey (HTTP Basic user and password of every REST call, and the key of
// every signature) and the merchantId carried in request bodies.
//
// Credentials never print their AccessKey: fmt's verbs (%v, %+v, %#v, %s…)
// and slog show it as [redacted].
type Credentials struct {
	AccessID   string
	AccessKey  string
	MerchantID string
}

const redacted = "[redacted]"

// String shows the accessId and merchantId and hides the accessKey.
func (c Credentials) String() string {
	return fmt.Sprintf("Credentials{AccessID:%s AccessKey:%s MerchantID:%s}", c.AccessID, keyMark(c.AccessKey), c.MerchantID)
}

// GoString is String, so %#v hides the accessKey too.
func (c Credentials) GoString() string { return "bankpay." + c.String() }

// Format makes every fmt verb print the redacted form.
func (c Credentials) Format(f fmt.State, verb rune) {
	if verb == 'v' && f.Flag('#') {
		_, _ = f.Write([]byte(c.GoString()))
		return
	}
	_, _ = f.Write([]byte(c.String()))
}

// LogValue shows the accessId and merchantId to slog and hides the accessKey.
func (c Credentials) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("accessId", c.AccessID),
		slog.String("accessKey", keyMark(c.AccessKey)),
		slog.String("merchantId", c.MerchantID),
	)
}

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
	case c.AccessKey == "":
		return invalid("accessKey", "must not be empty")
	case c.MerchantID == "":
		return invalid("merchantId", "must not be empty")
	}
	return nil
}

// MarshalJSON writes the redacted form, so that Credentials nested in a
// logged or serialised value never carry the accessKey.
func (c Credentials) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		AccessID   string `json:"accessId"`
		AccessKey  string `json:"accessKey"`
		MerchantID string `json:"merchantId"`
	}{c.AccessID, keyMark(c.AccessKey), c.MerchantID})
}
