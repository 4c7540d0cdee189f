package pipeline

import (
	"net/http"
	"testing"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRequest_Prepare(t *testing.T) {
	read := &ops.Op{Name: "T.Get", Method: http.MethodGet, Path: "/t/{id}", Expand: true, NotReady: true}
	r, err := prepared(read, Args{IDs: []string{"a b/1"}})
	require.NoError(t, err)
	assert.Equal(t, "/t/a%20b%2F1", r.Path, "the id is path-escaped")
	assert.False(t, r.StateChanging)
	assert.True(t, r.Expand)
	assert.True(t, r.NotReady)
	_, err = prepared(read, Args{IDs: []string{"1"}, Body: struct{}{}})
	assert.ErrorContains(t, err, "takes no body", "a body for an operation that sends none")
	_, err = prepared(read, Args{})
	assert.ErrorContains(t, err, "no value for {id}")

	form := &ops.Op{Name: "T.Deposit", Method: http.MethodPost, Path: "/t", Body: ops.BodyForm, Retry: ops.RetryUnlessSent}
	r, err = prepared(form, Args{Body: &struct {
		Ref string `url:"merchantReference"`
	}{"R1"}})
	require.NoError(t, err)
	assert.True(t, r.StateChanging)
	assert.False(t, r.Idempotent)
	assert.False(t, r.NotReady)
	assert.Equal(t, ContentTypeForm, r.ContentType)
	assert.Equal(t, "merchantReference=R1", string(r.Body))

	keyed := &ops.Op{Name: "D.Create", Method: http.MethodPost, Path: "/d", Body: ops.BodyJSON, Retry: ops.RetryKeyed}
	_, err = prepared(keyed, Args{Body: map[string]string{}})
	assert.ErrorIs(t, err, ErrNoIdempotencyKey, "a keyed operation without its key")
	r, err = prepared(keyed, Args{Body: map[string]string{"a": "b"}, IdempotencyKey: "K1"})
	require.NoError(t, err)
	assert.True(t, r.Idempotent)
	assert.Equal(t, "K1", r.Header.Get("Idempotency-Key"))
	assert.Equal(t, ContentTypeJSON, r.ContentType)
	assert.JSONEq(t, `{"a":"b"}`, string(r.Body))
}

// prepared is the request op prepares with a.
func prepared(op *ops.Op, a Args) (*Request, error) {
	r := new(Request)
	if err := r.Prepare(op, a); err != nil {
		return nil, err
	}
	return r, nil
}
