package models

import (
	"encoding/json"

	"github.com/bankpay/bankpay-go/internal/wire/tolerant"
)

// IdentityUser is the verified identity of a user, from the identity user call
// (authorizations created with kycType 1).
type IdentityUser struct {
	Name          string         `json:"name"`
	Address       []Address      `json:"address"`
	Phone         []string       `json:"phone"`
	Email         []string       `json:"email"`
	DateOfBirth   string         `json:"dateOfBirth,omitempty"` // YYYY-MM-DD
	TaxID         string         `json:"taxId,omitempty"`
	DriverLicense *DriverLicense `json:"driverLicense,omitempty"`
	Eligible      bool           `json:"eligible" wire:"zero"`
	// Deceased, SegmentedName, CreatedAt and UpdatedAt are shown by the
	// OpenAPI only.
	Deceased      bool           `json:"deceased,omitempty"`
	SegmentedName *SegmentedName `json:"segmentedName,omitempty"`
	CreatedAt     EpochMillis    `json:"createdAt,omitempty"`
	UpdatedAt     EpochMillis    `json:"updatedAt,omitempty"`
}

// VerificationDetail explains how each identity attribute was verified.
type VerificationDetail struct {
	Verification []VerificationResult `json:"verification"`
	Attribute    []VerifiedAttribute  `json:"attribute"`
}

// VerificationResult is the outcome of one named verification.
type VerificationResult struct {
	VerificationName string `json:"verificationName"`
	// Result is an integer in the spec, a numeric string in the OpenAPI.
	// The spec gives no meaning; the OpenAPI's: 1 rejected, 2
	// inconclusive, 3 approved.
	Result int `json:"result"`
	// Reasons explain the result (OpenAPI only; the detail read with
	// expand "verification").
	Reasons []VerificationReason `json:"reasons,omitempty"`
}

// VerificationReason is a reason code of a verification result with its
// text. The OpenAPI writes Code as a numeric string: -1 no error, 1
// internal error, 2 under the minimum age, 3 attributes below the minimum
// verification criteria, 4 mandatory attributes missing, 5 deceased, 6
// screening matches; a number or a numeric string decodes into Code.
type VerificationReason struct {
	Code   int    `json:"code"`
	Reason string `json:"reason,omitempty"`
}

// VerifiedAttribute is one identity attribute (name, email, phone, address…)
// with where it came from and how it was verified. The spec writes source
// as a string beside an integer sourceType; the OpenAPI writes source as an
// object {"name":…,"type":…}. Both decode into Source and SourceType; it
// encodes in the spec's shape.
type VerifiedAttribute struct {
	Name         string                  `json:"name"`
	Source       string                  `json:"source,omitempty"`
	SourceType   int                     `json:"sourceType,omitempty"`
	CreatedAt    EpochMillis             `json:"createdAt,omitempty"`
	Verified     bool                    `json:"verified" wire:"zero"`
	Verification []AttributeVerification `json:"verification"`
}

// AttributeVerification is one check of an attribute by a trusted entity.
type AttributeVerification struct {
	TrustedEntity      string `json:"trustedEntity,omitempty"`
	VerificationType   int    `json:"verificationType,omitempty"`
	VerificationMethod int    `json:"verificationMethod,omitempty"`
	// Result is, in the OpenAPI, 1 no match, 2 inconclusive, 3 match (the
	// spec gives no meaning).
	Result     int         `json:"result"`
	VerifiedAt EpochMillis `json:"verifiedAt,omitempty"`
}

// KYCTypeIdentity is the kycType that requests identity verification.
const KYCTypeIdentity = 1

// UnmarshalJSON reads source as a string (spec) or as an object with name
// and type (OpenAPI), and every other field as Decode does: a source of
// another shape is left unset, as any field the SDK can do without.
func (a *VerifiedAttribute) UnmarshalJSON(b []byte) error {
	type plain VerifiedAttribute
	var v struct {
		Source json.RawMessage `json:"source"` // first: it shadows plain's
		plain
	}
	if err := tolerant.Decode(b, &v); err != nil {
		return err
	}
	*a = VerifiedAttribute(v.plain)
	a.Source = ""
	switch src := v.Source; {
	case len(src) == 0 || string(src) == "null":
	case src[0] == '{':
		var o struct {
			Name string `json:"name"`
			Type int    `json:"type"`
		}
		if tolerant.DecodeAt(src, &o, "source") == nil {
			a.Source = o.Name
			if o.Type != 0 {
				a.SourceType = o.Type
			}
		}
	default:
		var s string
		if tolerant.DecodeAt(src, &s, "source") == nil {
			a.Source = s
		}
	}
	return nil
}
