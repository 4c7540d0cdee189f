package main

import (
	"context"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
)

// One span per HTTP attempt: the tokenize POST, then the GET responded to with 503
// and its retry responded to with 404 by the sandbox.
func TestOneSpanPerAttempt(t *testing.T) {
	spans, err := run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var statuses []int64
	for _, s := range spans {
		for _, a := range s.Attributes {
			if a.Key == attribute.Key("http.response.status_code") {
				statuses = append(statuses, a.Value.AsInt64())
			}
		}
	}
	want := []int64{200, 503, 404}
	if len(spans) != 3 || len(statuses) != 3 {
		t.Fatalf("%d spans with statuses %v, want 3 with %v", len(spans), statuses, want)
	}
	for i := range want {
		if statuses[i] != want[i] {
			t.Fatalf("statuses %v, want %v", statuses, want)
		}
	}
	if spans[1].Status.Code != codes.Error {
		t.Errorf("the 503 attempt's span status is %v, want Error", spans[1].Status.Code)
	}
}
