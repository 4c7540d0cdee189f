package bankpaytest

import (
	"bytes"
	"encoding/json"
	"net/http"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// The identity flow of an authorization with kycType 1: one
// IdentityVerificationDataRetrieved event per configured provider, one
// IdentityStep apart after the authorization, then CustomerIdentityVerified
// one step later. The identity user and detail reads respond with 400 until the
// first data-retrieved event; between it and CustomerIdentityVerified they
// show the data so far with eligible false.

// Verification results in the identity detail, with the meaning the
// OpenAPI gives them (the spec writes result as an integer and leaves its
// meaning unshown): 1 the verification was rejected or the attribute did
// not match, 3 it was approved or the attribute matched (2, inconclusive,
// is not played).
const (
	ResultNotVerified = 1
	ResultVerified    = 3
)

// scheduleIdentity schedules the identity steps of t. The caller holds s.mu.
func (s *Server) scheduleIdentity(t *txn) {
	for k := 1; k <= len(s.st.providers)+1; k++ {
		s.schedule(&timer{at: s.st.now.Add(time.Duration(k) * IdentityStep), kind: timerIdentity, t: t, step: k})
	}
}

// identityStep runs step k of t's identity verification. The caller holds s.mu.
func (s *Server) identityStep(t *txn, k int) {
	if k <= len(s.st.providers) {
		t.idStep = k
		s.emitIdentityEvent(t, models.EventIdentityVerificationDataRetrieved,
			pair{wire.EventFieldProviderReportStatus, "SUCCESS"},
			pair{wire.EventFieldProviderServiceName, "IdentityData"},
			pair{wire.EventFieldProviderUsedForValidation, s.st.providers[k-1]},
		)
		return
	}
	t.idVerified = true
	s.emitIdentityEvent(t, models.EventCustomerIdentityVerified,
		pair{wire.EventFieldIdentityVerified, "FINISHED"},
		pair{wire.EventFieldKYCResult, "FINISHED"},
	)
}

// identity finds id and checks that its identity data can be read.
func (s *Server) identity(m *merchant, id string) (*txn, *Error) {
	t, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	if !t.kyc {
		return nil, badRequest("identity verification was not requested for this transaction (kycType 1)")
	}
	if t.idStep == 0 {
		return nil, badRequest("identity data not available yet")
	}
	return t, nil
}

func (s *Server) handleIdentityUser(r *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	expand, err := checkExpand(r, map[string]bool{"segmentedName": true})
	if err != nil {
		return nil, err
	}
	t, err := s.identity(m, id)
	if err != nil {
		return nil, err
	}
	p := personFor(t.id())
	dl := p.license
	u := &models.IdentityUser{
		Name:          p.name(),
		Address:       []models.Address{p.address},
		Phone:         []string{p.phone},
		Email:         []string{p.email},
		DateOfBirth:   p.dateOfBirth,
		TaxID:         p.taxID,
		DriverLicense: &dl,
		Eligible:      t.idVerified && t.outcome != OutcomeNotEligible,
	}
	if expand["segmentedName"] {
		u.SegmentedName = &models.SegmentedName{FirstName: p.first, LastName: p.last}
	}
	return s.single(wire.IdentityUserEnvelope{User: u}, u), nil
}

// handleIdentityDetail serves GET /transactions/{id}/user/detail. Its one
// documented expand (OpenAPI), verification, adds the human-readable
// reasons of each verification result (code and text); any other expand is
// a 400.
func (s *Server) handleIdentityDetail(r *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	expand, err := checkExpand(r, map[string]bool{"verification": true})
	if err != nil {
		return nil, err
	}
	t, err := s.identity(m, id)
	if err != nil {
		return nil, err
	}
	created := t.rec.CreatedAt
	out := &detailOut{}
	d := &out.VerificationDetail
	// Attributes the user confirms or enters in the excess-data scenario,
	// and those that fail in the not-eligible one.
	userSourced := map[string]bool{}
	failing := map[string]bool{}
	switch t.outcome {
	case OutcomeExcessData:
		userSourced["address"], userSourced["phone"] = true, true
	case OutcomeNotEligible:
		failing["name"], failing["address"] = true, true
	}
	for k := 1; k <= t.idStep; k++ {
		res := ResultVerified
		if t.outcome == OutcomeNotEligible {
			res = ResultNotVerified
		}
		v := verificationOut{VerificationResult: models.VerificationResult{VerificationName: s.st.providers[k-1], Result: res}}
		if expand["verification"] {
			v.Reasons = []reasonOut{verificationReason(res)}
		}
		out.Verification = append(out.Verification, v)
	}
	for _, name := range []string{"name", "email", "phone", "address"} {
		a := models.VerifiedAttribute{Name: name, Source: "bank", SourceType: 1, CreatedAt: created}
		method := 1
		if userSourced[name] {
			a.Source, a.SourceType, method = "user", 2, 2
		}
		for k := 1; k <= t.idStep; k++ {
			res := ResultVerified
			if failing[name] {
				res = ResultNotVerified
			}
			a.Verification = append(a.Verification, models.AttributeVerification{
				TrustedEntity:      s.st.providers[k-1],
				VerificationType:   1,
				VerificationMethod: method,
				Result:             res,
				VerifiedAt:         epochMillis(created.Time().Add(time.Duration(k) * IdentityStep)),
			})
			a.Verified = a.Verified || res == ResultVerified
		}
		d.Attribute = append(d.Attribute, a)
	}
	body := struct {
		Detail *detailOut `json:"detail"`
	}{out}
	if !s.bare {
		return body, nil
	}
	return openAPIDetail(body), nil
}

// openAPIDetail is identity detail body in the OpenAPI's shape
// (UserVerificationDetail): each verification's result as its string code
// and no verificationName; each attribute's source as the object {name,
// type} (its sourceType), and no verified, which neither source documents.
func openAPIDetail(body any) any {
	tree, err := codesAsStrings(body, "detail.verification[].result")
	if err != nil {
		return body
	}
	detail, _ := tree.(map[string]any)["detail"].(map[string]any)
	list := func(k string) []any { l, _ := detail[k].([]any); return l }
	for _, v := range list("verification") {
		if o, ok := v.(map[string]any); ok {
			delete(o, "verificationName")
		}
	}
	for _, a := range list("attribute") {
		o, ok := a.(map[string]any)
		if !ok {
			continue
		}
		src := map[string]any{"name": o["source"]}
		if st, has := o["sourceType"]; has {
			src["type"] = st
		}
		o["source"] = src
		delete(o, "sourceType")
		delete(o, "verified")
	}
	return tree
}

// detailOut is the identity detail as the sandbox writes it: the spec's
// shape, with each verification's reasons (OpenAPI only) written as the
// OpenAPI types them.
type detailOut struct {
	models.VerificationDetail
	Verification []verificationOut `json:"verification"`
}

// verificationOut is a verification result with its reasons.
type verificationOut struct {
	models.VerificationResult
	Reasons []reasonOut `json:"reasons,omitempty"`
}

// reasonOut is a reason of a verification result: the OpenAPI's
// UserVerificationReason, whose code is a string of its enum
// (UserVerificationErrorCode, "-1" to "6").
type reasonOut struct {
	Code   string `json:"code"`
	Reason string `json:"reason,omitempty"`
}

// verificationReason is the reason the sandbox gives for a verification
// result when the detail is expanded with verification: the OpenAPI's code
// -1 (no error) for an approved one, 3 (attributes below the minimum
// verification criteria) for a rejected one.
func verificationReason(res int) reasonOut {
	if res == ResultVerified {
		return reasonOut{Code: "-1", Reason: "identity data matched the bank's records"}
	}
	return reasonOut{Code: "3", Reason: "identity data did not match the bank's records"}
}

// feedbackRequest is a feedback body in either shape: wrapped (the spec's
// {"feedback":{…}}) or flat (the OpenAPI's {status, subStatus,
// description}).
type feedbackRequest struct {
	Feedback    json.RawMessage `json:"feedback"`
	Status      *int            `json:"status"`
	SubStatus   *int            `json:"subStatus"`
	Description *string         `json:"description"`
}

// feedback reads the feedback of a body as the operator documents it: the
// spec's wrapper when it holds an object; otherwise the OpenAPI's flat
// fields, each missing one taking the OpenAPI's default (status 4,
// subStatus 559, description "Registered": a flat body that says nothing
// registers the user). Flat fields beside a wrapper must say the same.
func (b *feedbackRequest) feedback() (*wire.Feedback, *Error) {
	flat := wire.Feedback{Status: wire.FeedbackStatusRegistered, SubStatus: wire.FeedbackSubStatusRegistered, Description: "Registered"}
	if b.Status != nil {
		flat.Status = *b.Status
	}
	if b.SubStatus != nil {
		flat.SubStatus = *b.SubStatus
	}
	if b.Description != nil {
		flat.Description = *b.Description
	}
	if raw := bytes.TrimSpace(b.Feedback); len(raw) == 0 || string(raw) == "null" {
		return &flat, nil
	}
	var f wire.Feedback
	if err := decodeJSON(b.Feedback, &f); err != nil {
		return nil, err
	}
	if (b.Status != nil && *b.Status != f.Status) || (b.SubStatus != nil && *b.SubStatus != f.SubStatus) ||
		(b.Description != nil && *b.Description != f.Description) {
		return nil, badRequest("feedback: the wrapped and the flat fields disagree")
	}
	return &f, nil
}

// handleFeedback serves POST /transactions/{id}/feedback: Registered (4/559)
// keeps the authorization valid, Void (13/558) moves it to Voided. The body
// is read wrapped or flat (feedbackRequest.feedback). Feedback is accepted
// once the verification is complete.
func (s *Server) handleFeedback(_ *http.Request, body []byte, m *merchant, id string) (any, *Error) {
	t, err := s.authorization(m, id)
	if err != nil {
		return nil, err
	}
	if !t.kyc {
		return nil, badRequest("identity verification was not requested for this transaction (kycType 1)")
	}
	var req feedbackRequest
	if err := decodeJSON(body, &req); err != nil {
		return nil, err
	}
	f, err := req.feedback()
	if err != nil {
		return nil, err
	}
	register := f.Status == wire.FeedbackStatusRegistered && f.SubStatus == wire.FeedbackSubStatusRegistered
	void := f.Status == wire.FeedbackStatusVoid && f.SubStatus == wire.FeedbackSubStatusVoid
	if !register && !void {
		return nil, badRequest("feedback must be status 4 with subStatus 559 (Registered) or status 13 with subStatus 558 (Void)")
	}
	if !t.idVerified {
		return nil, badRequest("identity verification not finished")
	}
	if !t.can(models.StatusVoided) {
		return nil, badRequest("the transaction is %s", t.rec.Status)
	}
	t.feedback = append(t.feedback, *f)
	if void {
		s.mustMove(t, models.StatusVoided)
	}
	// The spec does not show the answer; the OpenAPI's is the
	// authorization itself, a bare Transaction, in either shape.
	return answerAs(t, t.view(), true), nil
}

// Feedback is identity feedback as the sandbox recorded it (POST
// /transactions/{id}/feedback): the status and sub-status codes (4 and 559
// registered, 13 and 558 void) and the description.
type Feedback struct {
	Status      int    `json:"status"`
	SubStatus   int    `json:"subStatus"`
	Description string `json:"description,omitempty"`
}

// Feedback returns the feedback recorded for transaction id, oldest first.
func (s *Server) Feedback(id string) []Feedback {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.st.txns[id]
	if t == nil {
		return nil
	}
	out := make([]Feedback, len(t.feedback))
	for i, f := range t.feedback {
		out[i] = Feedback(f)
	}
	return out
}
