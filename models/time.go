package models

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"
)

// EpochMillis is a point in time as the service writes it: milliseconds since
// the Unix epoch. It decodes from a JSON number or a numeric string (events
// carry strings) and encodes as a number. Zero means "not given".
type EpochMillis int64

// NewEpochMillis returns t as epoch milliseconds.
func NewEpochMillis(t time.Time) EpochMillis { return EpochMillis(t.UnixMilli()) }

// Time converts e to a time.Time in UTC; the zero EpochMillis gives the zero time.
func (e EpochMillis) Time() time.Time {
	if e == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(e)).UTC()
}

// IsZero reports whether e was not given.
func (e EpochMillis) IsZero() bool { return e == 0 }

// String formats e as RFC 3339 with milliseconds, or "" when zero.
func (e EpochMillis) String() string {
	if e == 0 {
		return ""
	}
	return e.Time().Format("2006-01-02T15:04:05.000Z07:00")
}

// UnmarshalJSON accepts 1700000000000, "1700000000000", "" and null.
func (e *EpochMillis) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		return e.parse(s)
	}
	if string(b) == "null" {
		return nil
	}
	return e.parse(string(b))
}

// UnmarshalText accepts a decimal number of milliseconds (form-encoded events).
func (e *EpochMillis) UnmarshalText(b []byte) error { return e.parse(string(b)) }

func (e *EpochMillis) parse(s string) error {
	if s == "" {
		*e = 0
		return nil
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		// Some producers write a float (1.7e12); accept it when it is integral.
		f, ferr := strconv.ParseFloat(s, 64)
		if ferr != nil || f != float64(int64(f)) {
			return fmt.Errorf("epoch milliseconds: invalid value %q", clip(s))
		}
		n = int64(f)
	}
	*e = EpochMillis(n)
	return nil
}
