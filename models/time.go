package models

import "time"

// EpochMillis is a point in time as the service writes it: milliseconds since
// the Unix epoch. Responses may carry it as a number, a numeric string or a
// whole-valued float; it encodes as a number. Zero means "not given".
type EpochMillis int64

// Time converts e to a time.Time in UTC; the zero EpochMillis gives the zero time.
func (e EpochMillis) Time() time.Time {
	if e == 0 {
		return time.Time{}
	}
	return time.UnixMilli(int64(e)).UTC()
}
