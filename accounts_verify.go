package bankpay

// Account verification without an authorization: Accounts.Verify checks an
// account, Accounts.Feedback reports how an ACH payment with it ended.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// AccountVerifyParams is the input of AccountsService.Verify: the account
// as an account number with a routing number, or as an IBAN.
type AccountVerifyParams struct {
	// AccountNumber is the bank account number: 4 to 17 digits. Required
	// unless IBAN is given.
	AccountNumber string
	// RoutingNumber is the 9-digit routing number, required with
	// AccountNumber.
	RoutingNumber string
	// IBAN is the International Bank Account Number in electronic form
	// (upper case, no spaces), instead of AccountNumber and RoutingNumber.
	IBAN string
	// NameOnAccount is the account owner's name, for name verification.
	// Optional.
	NameOnAccount string
}

// accountRef is the account object of the verify and feedback bodies.
type accountRef struct {
	AccountNumber string `json:"accountNumber,omitempty"`
	RoutingNumber string `json:"routingNumber,omitempty"`
	IBAN          string `json:"iban,omitempty"`
	NameOnAccount string `json:"nameOnAccount,omitempty"`
	Token         string `json:"token,omitempty"`
}

// verifyBody is the body of POST /accounts/verify.
type verifyBody struct {
	MerchantID any         `json:"merchantId"`
	Account    *accountRef `json:"account"`
}

// Verify checks an account without an authorization:
// POST /accounts/verify with {"merchantId":…,"account":{…}}. The account
// number, routing number and IBAN are checked before sending (see
// AccountVerifyParams); WithExpand("account.paymentProvider") asks for the
// bank's details. The response is the account with its verification, a
// token and the last 4 digits of the account number, read bare or wrapped
// in {"account":{…}}; one without a verification is a *ResponseError.
//
// Verify is a POST: it is not retried once the request may have reached
// the server, unless WithRetryNonIdempotent is given. Errors never contain
// the account number or the IBAN.
func (s *AccountsService) Verify(ctx context.Context, p *AccountVerifyParams, opts ...Option) (*models.Account, error) {
	if p == nil {
		return nil, invalid("params", "must not be nil")
	}
	if err := firstError(
		checkBankAccount("account.", p.AccountNumber, p.RoutingNumber, p.IBAN),
		checkText("account.nameOnAccount", p.NameOnAccount),
	); err != nil {
		return nil, err
	}
	const path = "/accounts/verify"
	body := &verifyBody{
		MerchantID: s.client.merchantIDNumber(),
		Account: &accountRef{AccountNumber: p.AccountNumber, RoutingNumber: p.RoutingNumber,
			IBAN: p.IBAN, NameOnAccount: p.NameOnAccount},
	}
	acct, err := call[models.Account](ctx, s.client, ops.AccountsVerify, args{Body: body}, opts)
	if err != nil {
		return nil, err
	}
	if acct.Verification == nil {
		return nil, &ResponseError{StatusCode: http.StatusOK, Method: http.MethodPost, Path: path,
			Err: errors.New(`response has no "verification" object`)}
	}
	return acct, nil
}

// merchantIDNumber is the client's merchantId as a JSON number, as the
// OpenAPI types it in the verify and feedback bodies; an id that is not a
// plain decimal number is sent as a string.
func (c *caller) merchantIDNumber() any {
	id := c.secrets.creds.MerchantID
	if len(id) == 0 || len(id) > 15 || (id[0] == '0' && id != "0") {
		return id
	}
	for i := 0; i < len(id); i++ {
		if !isDigit(id[i]) {
			return id
		}
	}
	return json.Number(id)
}

// AccountFeedbackParams is the input of AccountsService.Feedback: the
// outcome of an ACH payment made with an account the service verified.
type AccountFeedbackParams struct {
	// Token (from Tokenize or Verify) names the account; or AccountNumber
	// with RoutingNumber instead. One of the two is required.
	Token         string
	AccountNumber string
	RoutingNumber string

	// ExternalID is the merchant's reference of the payment. Optional.
	ExternalID string
	// Status is the final status of the payment: StatusAuthorized,
	// StatusProcessed, StatusCompleted, StatusFailed, StatusExpired,
	// StatusCanceled, 9 (Disputed), StatusReversed or StatusVoided.
	// Required.
	Status models.TransactionStatus
	// SubStatus is the ACH return code, such as R01 (insufficient funds),
	// R04 (invalid account number) or R16 (account frozen). Required.
	SubStatus string
	// Description is free text about the payment. Optional.
	Description string
	// SubmissionDate is when the payment was sent to ACH, ReturnDate when
	// ACH returned it (not before SubmissionDate). Optional; sent as epoch
	// milliseconds.
	SubmissionDate time.Time
	ReturnDate     time.Time
	// Amount is the amount of the payment, N.NN. Optional.
	Amount models.Amount
	// Currency is the currency of Amount; the service supports USD only.
	// Optional.
	Currency models.Currency
}

// feedbackBody is the body of POST /feedback.
type feedbackBody struct {
	MerchantID any         `json:"merchantId"`
	Account    *accountRef `json:"account"`
	Feedback   achFeedback `json:"feedback"`
}

type achFeedback struct {
	ExternalID     string          `json:"externalId,omitempty"`
	Status         string          `json:"status"`
	SubStatus      string          `json:"subStatus"`
	Description    string          `json:"description,omitempty"`
	SubmissionDate int64           `json:"submissionDate,omitempty"`
	ReturnDate     int64           `json:"returnDate,omitempty"`
	Amount         models.Amount   `json:"amount,omitempty"`
	Currency       models.Currency `json:"currency,omitempty"`
}

func (p *AccountFeedbackParams) validate() error {
	if p == nil {
		return invalid("params", "must not be nil")
	}
	if p.Token != "" {
		if p.AccountNumber != "" || p.RoutingNumber != "" {
			return invalid("account.token", "give either a token or an account and routing number, not both")
		}
		if err := checkText("account.token", p.Token); err != nil {
			return err
		}
	} else if err := firstError(
		checkDigitString("account.accountNumber", p.AccountNumber, 4, 17),
		checkDigitString("account.routingNumber", p.RoutingNumber, 9, 9),
	); err != nil {
		return err
	}
	if !slices.Contains(wire.FeedbackStatuses(), p.Status) {
		return invalid("feedback.status", "must be one of "+wire.FeedbackStatusList())
	}
	if err := firstError(
		required("feedback.subStatus", p.SubStatus),
		checkText("feedback.subStatus", p.SubStatus),
		checkText("feedback.externalId", p.ExternalID),
		checkText("feedback.description", p.Description),
		checkAmount("feedback.amount", p.Amount, false),
	); err != nil {
		return err
	}
	if p.Currency != "" && p.Currency != models.USD {
		return invalid("feedback.currency", "must be USD")
	}
	if !p.SubmissionDate.IsZero() && !p.ReturnDate.IsZero() && p.ReturnDate.Before(p.SubmissionDate) {
		return invalid("feedback.returnDate", "must not be before feedback.submissionDate")
	}
	return nil
}

// Feedback reports the outcome of an ACH payment made with an account the
// service verified, which improves its later verification scores:
// POST /feedback with {"merchantId":…,"account":{…},"feedback":{…}}. (For
// the feedback of an identity authorization, see IdentityService.Register
// and Void.) Any 2xx response is success; its body is not read.
//
// Feedback is a POST: it is not retried once the request may have reached
// the server, unless WithRetryNonIdempotent is given. Errors never contain
// the account number.
func (s *AccountsService) Feedback(ctx context.Context, p *AccountFeedbackParams, opts ...Option) error {
	if err := p.validate(); err != nil {
		return err
	}
	body := &feedbackBody{
		MerchantID: s.client.merchantIDNumber(),
		Account:    &accountRef{AccountNumber: p.AccountNumber, RoutingNumber: p.RoutingNumber, Token: p.Token},
		Feedback: achFeedback{
			ExternalID:  p.ExternalID,
			Status:      strconv.Itoa(int(p.Status)),
			SubStatus:   p.SubStatus,
			Description: p.Description,
			Amount:      p.Amount,
			Currency:    p.Currency,
		},
	}
	if !p.SubmissionDate.IsZero() {
		body.Feedback.SubmissionDate = p.SubmissionDate.UnixMilli()
	}
	if !p.ReturnDate.IsZero() {
		body.Feedback.ReturnDate = p.ReturnDate.UnixMilli()
	}
	_, err := call[noContent](ctx, s.client, ops.AccountsFeedback, args{Body: body}, opts)
	return err
}
