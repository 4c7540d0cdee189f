package form

import (
	"errors"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codes is a query.Encoder of numeric codes, as the SDK's code filters are.
type codes struct{ v []int }

var errBadCode = errors.New("bad code")

func (c codes) EncodeValues(key string, q *url.Values) error {
	for _, n := range c.v {
		if n < 0 {
			return errBadCode
		}
		q.Add(key, strconv.Itoa(n))
	}
	return nil
}

type amount string

type listRange struct {
	Min   amount    `url:"amount.min,omitempty"`
	Start time.Time `url:"createdAt.start,omitempty,unixmilli"`
	End   time.Time `url:"createdAt.end,omitempty,unixmilli"`
	Order string    `url:"orderBy,omitempty"`
	Index int       `url:"startIndex"`
	Count int       `url:"count,omitempty"`
}

type listParams struct {
	Types []int  `url:"-"`
	Ref   string `url:"ref,omitempty"`
	Tags  []string
	Note  string `url:"note"`
	listRange
}

type listQuery struct {
	Types codes `url:"type"`
	*listParams
	hidden string // an unexported field is skipped
}

// Query gives what go-querystring gives (Values), from a plan when it can.
func TestQueryMatchesValues(t *testing.T) {
	full := &listParams{Ref: "a&b", Tags: []string{"x", "y z"}, Note: "n",
		listRange: listRange{Min: "1.00", Start: time.UnixMilli(1700000000123), End: time.UnixMilli(5), Order: "amount", Index: 3, Count: 7}}
	for _, tc := range []struct {
		name    string
		v       any
		planned bool
	}{
		{"full", &listQuery{Types: codes{[]int{4, 2}}, listParams: full, hidden: "h"}, true},
		{"empty", &listQuery{listParams: &listParams{}}, true},
		{"nil embedded pointer", &listQuery{Types: codes{[]int{1}}}, true},
		{"a range alone", &full.listRange, true},
		{"a Stringer field", &struct {
			D time.Duration `url:"d"`
		}{time.Second}, false},
		{"a time without unixmilli", &struct {
			T time.Time `url:"t"`
		}{time.UnixMilli(5)}, false},
		{"a time without omitempty", &struct {
			T time.Time `url:"t,unixmilli"`
		}{time.UnixMilli(5)}, false},
		{"a nested struct", &struct {
			R listRange `url:"r"`
		}{}, false},
		{"not a pointer", *full, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := Values(tc.v)
			require.NoError(t, err)
			got, err := Query(tc.v)
			require.NoError(t, err)
			assert.Equal(t, want, got)
			assert.Equal(t, tc.planned, QueryPlanned(tc.v))
		})
	}
	t.Run("an encoder's error", func(t *testing.T) {
		_, err := Query(&listQuery{Types: codes{[]int{-1}}, listParams: full})
		assert.ErrorIs(t, err, errBadCode)
	})
}
