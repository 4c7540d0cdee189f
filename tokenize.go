package bankpay

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/models"
)

// TokenizeParams is the input of AccountsService.Tokenize: the account as
// an account number with a routing number, or as an IBAN.
type TokenizeParams struct {
	// AccountNumber is the bank account number: 4 to 17 digits, nothing
	// else. Required unless IBAN is given.
	AccountNumber string
	// RoutingNumber is the 9-digit routing number. Required with
	// AccountNumber. The ABA check digit is not checked by the SDK (the
	// service is the authority, and Canadian 9-digit routing numbers do not
	// follow it).
	RoutingNumber string
	// IBAN is the International Bank Account Number, in electronic form
	// (upper case, no spaces), instead of AccountNumber and RoutingNumber.
	// Its checksum is checked before sending.
	IBAN string
	// NameOnAccount is the account owner's name, for name verification.
	// Optional.
	NameOnAccount string
	// AccountType is the numeric account type (the service's examples use
	// 1). Optional: 0 leaves it out.
	AccountType int
	// Customer is optional customer data sent along; Customer.VIP must not
	// be negative.
	Customer *models.Customer
	// VerifyAccount asks the service to verify the account as well
	// (?verifyAccount=true); the response then carries account.verification.
	VerifyAccount bool
}

// validate checks p without repeating any value in its errors: the account
// number is personal data.
func (p *TokenizeParams) validate() error {
	if p == nil {
		return invalid("params", "must not be nil")
	}
	if err := checkBankAccount("account.", p.AccountNumber, p.RoutingNumber, p.IBAN); err != nil {
		return err
	}
	if p.AccountType < 0 {
		return invalid("account.type", "must not be negative")
	}
	if p.Customer != nil {
		if err := checkVIP("customer.vip", p.Customer.VIP); err != nil {
			return err
		}
	}
	return nil
}

// Tokenize exchanges an account number and routing number, or an IBAN, for
// a token that is unique per merchant and account, optionally verifying the
// account:
// POST /accounts/tokenize[?verifyAccount=true] with the JSON body
// {"merchantId":…,"account":{…},"customer":{…}}. The merchantId is the
// client's.
//
// The spec's response echoes the submitted data with account.token and, when
// verification was asked, account.verification; the OpenAPI's is the bare
// account. Both are read. A response without an account is a *ResponseError
// (ErrInvalidResponse).
//
// Tokenize changes state: it is retried only when the request provably
// never reached the server, unless WithRetryNonIdempotent is given. Errors
// never contain the account number or the IBAN.
func (s *AccountsService) Tokenize(ctx context.Context, p *TokenizeParams, opts ...Option) (*models.Tokenization, error) {
	if err := p.validate(); err != nil {
		return nil, err
	}
	// The body and its account in one allocation.
	b := &tokenizeBody{
		account: models.Account{
			NameOnAccount: p.NameOnAccount,
			AccountNumber: p.AccountNumber,
			RoutingNumber: p.RoutingNumber,
			IBAN:          p.IBAN,
			Type:          p.AccountType,
		},
	}
	b.body = models.Tokenization{MerchantID: s.client.secrets.creds.MerchantID, Account: &b.account, Customer: p.Customer}
	body := &b.body
	var query url.Values
	if p.VerifyAccount {
		query = verifyAccountQuery
	}
	r, err := call[tokenizeResponse](ctx, s.client, ops.AccountsTokenize, args{Query: query, Body: body}, opts)
	if err != nil {
		return nil, err
	}
	return r.out, nil
}

// verifyAccountQuery is the query of a Tokenize that verifies the account.
// It is never written: the request pipeline only reads a request's query
// (internal/pipeline's expandQuery copies it before adding to it), so that
// every call can share this one instead of allocating its own.
var verifyAccountQuery = url.Values{"verifyAccount": {"true"}}

// tokenizeBody is Tokenize's request body with its account, allocated
// together.
type tokenizeBody struct {
	body    models.Tokenization
	account models.Account
}

// tokenizeResponse reads Tokenize's response in either shape: the spec's
// echoes merchantId and customer beside the account; the OpenAPI's is the
// bare account, which has neither. The result is read into buf, which the
// call allocates with the response: one allocation for both.
type tokenizeResponse struct {
	buf decode.TokenizationBuf
	out *models.Tokenization
}

// DecodeBody implements pipeline.Decoder.
func (r *tokenizeResponse) DecodeBody(ctx context.Context, logger *slog.Logger, req *pipeline.Request, body []byte) error {
	out, unset, err := r.buf.Decode(body)
	if err != nil {
		return &ResponseError{StatusCode: http.StatusOK, Method: req.Method, Path: req.Path, Err: err}
	}
	pipeline.LogUnset(ctx, logger, req.Method, req.Path, unset)
	r.out = out
	return nil
}
