package bankpay

import (
	"context"
	"errors"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// IdentityService reads the verified identity of an authorization created
// with kycType 1 and sends the merchant's Registered or Void feedback; for
// any authorization, it compares the merchant's customer data with the
// bank's (CustomerVerification).
//
// Identity verification is a beta of the service: field names and types may
// change before general availability.
type IdentityService service

// User reads the verified identity of the user: GET /transactions/{transactionId}/user,
// read wrapped in {"user":{…}} (spec) or bare (OpenAPI).
//
// Before the IdentityVerificationDataRetrieved event the service responses
// 400: the error then matches both ErrIdentityNotReady and ErrBadRequest.
// Wait for the event (or CustomerIdentityVerified) and read again.
// WithExpand("segmentedName") also fills SegmentedName.
func (s *IdentityService) User(ctx context.Context, transactionID string, opts ...Option) (*models.IdentityUser, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return call[models.IdentityUser](ctx, s.client, ops.IdentityUser, args{IDs: []string{transactionID}}, opts)
}

// Detail reads how each identity attribute was verified, useful when the
// user is not eligible: GET /transactions/{transactionId}/user/detail,
// read wrapped in {"detail":{…}} or bare.
//
// Before the IdentityVerificationDataRetrieved event the service responses
// 400: the error then matches both ErrIdentityNotReady and ErrBadRequest.
// WithExpand("verification") asks for the human-readable reasons of each
// result (VerificationResult.Reasons), as the OpenAPI offers.
func (s *IdentityService) Detail(ctx context.Context, transactionID string, opts ...Option) (*models.VerificationDetail, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return call[models.VerificationDetail](ctx, s.client, ops.IdentityDetail, args{IDs: []string{transactionID}}, opts)
}

// CustomerVerification reads how the customer data the merchant holds for
// the authorization transactionID compares with the data of the user's
// bank, one match per attribute compared:
// GET /transactions/{transactionId}/payment/customer/verify, read from
// {"matches":[…]} (or a bare array). A response without a matches array is
// a *ResponseError, and so is one of more than 1,000 matches (refused
// before it is decoded); an empty array is a valid response with nothing
// compared. A read: retried on a network error or a 5xx response.
func (s *IdentityService) CustomerVerification(ctx context.Context, transactionID string, opts ...Option) ([]models.CustomerMatch, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	matches, err := listWhole[models.CustomerMatch](ctx, s.client, ops.IdentityCustomerVerification, args{IDs: []string{transactionID}}, opts)
	if err != nil {
		return nil, err
	}
	if matches == nil {
		return nil, resultError(ops.IdentityCustomerVerification, errors.New(`response has no "matches" array`), transactionID)
	}
	return matches, nil
}

// sendFeedback is Register and Void: POST /transactions/{transactionId}/feedback
// with {"feedback":{"status":…,"subStatus":…,"description":…}} (the spec's
// shape) and the same three fields flat beside it (the OpenAPI's shape,
// whose defaults are 4/559 "Registered"): whichever shape the service
// reads, it reads the merchant's choice, and no default can register a
// user the merchant voided (wire.FeedbackBody). Only the two documented
// pairs (4/559 and 13/558) and a description are accepted. Any 2xx
// response is success; its body (an echo) is not read.
func (s *IdentityService) sendFeedback(ctx context.Context, transactionID string, fb wire.Feedback, opts ...Option) error {
	if err := checkID("transactionId", transactionID); err != nil {
		return err
	}
	if err := checkFeedback(fb); err != nil {
		return err
	}
	_, err := call[noContent](ctx, s.client, ops.IdentityFeedback, args{IDs: []string{transactionID}, Body: wire.NewFeedbackBody(fb)}, opts)
	return err
}

// Register reports that the merchant registered the verified user (status
// 4, subStatus 559), which keeps the transaction valid for the other APIs.
// description is required.
func (s *IdentityService) Register(ctx context.Context, transactionID, description string, opts ...Option) error {
	return s.sendFeedback(ctx, transactionID, wire.Feedback{
		Status:      wire.FeedbackStatusRegistered,
		SubStatus:   wire.FeedbackSubStatusRegistered,
		Description: description,
	}, opts...)
}

// Void reports that the registration failed (status 13, subStatus 558), so
// that the identity user is not treated as active. description is required.
func (s *IdentityService) Void(ctx context.Context, transactionID, description string, opts ...Option) error {
	return s.sendFeedback(ctx, transactionID, wire.Feedback{
		Status:      wire.FeedbackStatusVoid,
		SubStatus:   wire.FeedbackSubStatusVoid,
		Description: description,
	}, opts...)
}

// checkFeedback accepts the Registered and Void pairs with a description.
func checkFeedback(fb wire.Feedback) error {
	switch {
	case fb.Status == wire.FeedbackStatusRegistered && fb.SubStatus == wire.FeedbackSubStatusRegistered,
		fb.Status == wire.FeedbackStatusVoid && fb.SubStatus == wire.FeedbackSubStatusVoid:
	default:
		return invalid("feedback.status", "must be 4 with subStatus 559 (Registered) or 13 with subStatus 558 (Void)")
	}
	return required("feedback.description", fb.Description)
}
