package wire

// RefreshRequest is the body of POST /transactions/{id}/refresh.
type RefreshRequest struct {
	SplitToken string `json:"splitToken"`
}

// RefreshProcess is the refresh a POST /transactions/{id}/refresh started.
type RefreshProcess struct {
	ProcessID string `json:"processId" wire:"required"`
}

// RefreshEnvelope is the wire wrapping of a refresh, as the OpenAPI shows
// the response: {"refresh":{"processId":…}}.
type RefreshEnvelope struct {
	Refresh *RefreshProcess `json:"refresh"`
}
