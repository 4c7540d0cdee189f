package main

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// One span per HTTP attempt: the tokenize POST, then the GET responded to with 503
// and its retry responded to with 404 by the sandbox.
func TestOneSpanPerAttempt(t *testing.T) {
	spans, err := run(context.Background())
	require.NoError(t, err)
	var statuses []int64
	for _, s := range spans {
		for _, a := range s.Attributes {
			if a.Key == attribute.Key("http.response.status_code") {
				statuses = append(statuses, a.Value.AsInt64())
			}
		}
	}
	want := []int64{200, 503, 404}
	require.Len(t, spans, 3, "%d spans with statuses %v, want 3 with %v", len(spans), statuses, want)
	require.Len(t, statuses, 3, "%d spans with statuses %v, want 3 with %v", len(spans), statuses, want)
	for i := range want {
		require.Equal(t, want[i], statuses[i], "statuses %v, want %v", statuses, want)
	}
	assert.Equal(t, codes.Error, spans[1].Status.Code, "the 503 attempt's span status is %v, want Error", spans[1].Status.Code)
}
