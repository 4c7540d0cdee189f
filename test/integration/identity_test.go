package integration

import (
	"context"
	"net/http"
	"slices"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	bankpay "github.com/bankpay/bankpay-go"
	"github.com/bankpay/bankpay-go/bankpaytest"
	"github.com/bankpay/bankpay-go/models"
)

func TestIdentity(t *testing.T) {
	eachShape(t, func(t *testing.T, sh shape) {
		for _, tc := range []struct {
			outcome      bankpaytest.Outcome
			eligible     bool
			userSourced  []string // attributes the user confirmed or entered
			unverified   []string
			resultsOfAll int
		}{
			{bankpaytest.OutcomeEligible, true, nil, nil, bankpaytest.ResultVerified},
			{bankpaytest.OutcomeAuthorize, true, nil, nil, bankpaytest.ResultVerified}, // kycType 1: the demo password
			{bankpaytest.OutcomeExcessData, true, []string{"address", "phone"}, nil, bankpaytest.ResultVerified},
			{bankpaytest.OutcomeNotEligible, false, nil, []string{"address", "name"}, bankpaytest.ResultNotVerified},
		} {
			t.Run(tc.outcome.String(), func(t *testing.T) {
				const providers = 3
				s, in := startWithInbox(t, sh, bankpaytest.WithIdentityProviders(providers))
				ctx := context.Background()
				d := deferredData("kyc-"+tc.outcome.String(), in.URL)
				d.Amount = "0.00"
				d.KYCType = models.KYCTypeIdentity
				r := s.authorize(t, d, tc.outcome)
				id := r.TransactionID

				// Before the data-retrieved event: 400, ErrIdentityNotReady.
				_, err := s.client.Identity.User(ctx, id)
				requireAPIError(t, err, http.StatusBadRequest, codeInvalidParameter, bankpay.ErrIdentityNotReady)
				assert.ErrorIs(t, err, bankpay.ErrBadRequest)
				_, err = s.client.Identity.Detail(ctx, id)
				assert.ErrorIs(t, err, bankpay.ErrIdentityNotReady)
				// Feedback waits for the end of the verification.
				err = s.client.Identity.Register(ctx, id, "too early")
				assert.ErrorIs(t, err, bankpay.ErrBadRequest)

				// One data-retrieved event per provider, then the verified one.
				for i := 1; i <= providers; i++ {
					s.Advance(bankpaytest.IdentityStep)
					s.flush(t)
					u, err := s.client.Identity.User(ctx, id)
					require.NoError(t, err, "after provider %d", i)
					assert.True(t, !u.Eligible, "not eligible before the verification completes")
					det, err := s.client.Identity.Detail(ctx, id)
					require.NoError(t, err)
					assert.Len(t, det.Verification, i)
				}
				s.Advance(bankpaytest.IdentityStep)
				s.flush(t)
				types := in.typesFor(id)
				want := []models.EventType{models.EventAuthorize}
				for i := 0; i < providers; i++ {
					want = append(want, models.EventIdentityVerificationDataRetrieved)
				}
				want = append(want, models.EventCustomerIdentityVerified)
				assert.Equal(t, want, types)
				in.mu.Lock()
				typed := append([]string(nil), in.typed...)
				in.mu.Unlock()
				assert.Equal(t, []string{"transaction", "identityData", "identityData", "identityData", "identityVerified"}, typed)
				seen := map[string]bool{}
				for _, ev := range in.all() {
					if ev.EventType == models.EventIdentityVerificationDataRetrieved {
						assert.Equal(t, "SUCCESS", ev.Identity.ProviderReportStatus)
						seen[ev.Identity.ProviderUsedForValidation] = true
					}
					if ev.EventType == models.EventIdentityVerificationDataRetrieved || ev.EventType == models.EventCustomerIdentityVerified {
						assert.Equal(t, "performKycVerification", ev.Message)
						assert.Equal(t, models.PaymentTypeDeferred, ev.PaymentType)
						assert.Equal(t, models.TypeAuthorize, ev.TransactionType)
					}
					if ev.EventType == models.EventCustomerIdentityVerified {
						assert.Equal(t, "FINISHED", ev.Identity.IdentityVerified)
						assert.Equal(t, "FINISHED", ev.Identity.KYCResult)
					}
				}
				assert.Len(t, seen, providers, "one event per provider")

				u, err := s.client.Identity.User(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, tc.eligible, u.Eligible)
				assert.NotEmpty(t, u.Name)
				assert.Regexp(t, `^\d{4}-\d{2}-\d{2}$`, u.DateOfBirth)
				assert.NotEmpty(t, u.TaxID)
				require.NotNil(t, u.DriverLicense)
				det, err := s.client.Identity.Detail(ctx, id)
				require.NoError(t, err)
				require.Len(t, det.Verification, providers)
				for _, v := range det.Verification {
					assert.Equal(t, tc.resultsOfAll, v.Result, v.VerificationName)
				}
				var sourced, unverified []string
				for _, a := range det.Attribute {
					assert.Len(t, a.Verification, providers, a.Name)
					if a.Source == "user" {
						sourced = append(sourced, a.Name)
					}
					// Verified when a check approved it: the spec's shape also
					// says so in verified; the OpenAPI's has no such field.
					verified := slices.ContainsFunc(a.Verification, func(v models.AttributeVerification) bool {
						return v.Result == bankpaytest.ResultVerified
					})
					if !sh.bare {
						assert.Equal(t, verified, a.Verified, a.Name)
					}
					if !verified {
						unverified = append(unverified, a.Name)
					}
				}
				sort.Strings(sourced)
				sort.Strings(unverified)
				assert.Equal(t, tc.userSourced, sourced)
				assert.Equal(t, tc.unverified, unverified)

				// The merchant's feedback.
				if tc.eligible {
					require.NoError(t, s.client.Identity.Register(ctx, id, "registered"))
					assert.Equal(t, []bankpaytest.Feedback{{Status: 4, SubStatus: 559, Description: "registered"}}, s.Feedback(id))
					assert.Equal(t, models.StatusAuthorized, getStatus(t, s.client, id), "Registered keeps the transaction valid")
				} else {
					require.NoError(t, s.client.Identity.Void(ctx, id, "registration failed"))
					assert.Equal(t, []bankpaytest.Feedback{{Status: 13, SubStatus: 558, Description: "registration failed"}}, s.Feedback(id))
					assert.Equal(t, models.StatusVoided, getStatus(t, s.client, id))
				}
			})
		}
	})
}
