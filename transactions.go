package bankpay

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/bankpay/bankpay-go/internal/decode"
	"github.com/bankpay/bankpay-go/internal/ops"
	"github.com/bankpay/bankpay-go/internal/pipeline"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// TransactionsService establishes and reads authorizations and moves money
// against them: Capture charges the customer, Deposit pays the customer,
// Refund gives back a capture, Reclaim takes back a deposit, Cancel stops
// a transaction before it is processed; Preauthorize and Refresh serve
// later captures. Its lists and the reconciliation lookup are in
// transactions_list.go.
type TransactionsService service

// Get reads a transaction: GET /transactions/{transactionId}. This and every
// call whose response is a transaction read it wrapped {"transaction":…}
// (spec) or bare (OpenAPI).
func (s *TransactionsService) Get(ctx context.Context, transactionID string, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	return isThe(ops.TransactionsGet, transactionID, transactionIDField)(call[models.Transaction](ctx, s.client, ops.TransactionsGet, args{IDs: []string{transactionID}}, opts))
}

// madeFrom checks the answer of a call that makes a new transaction from
// original (Deposit, Capture, Preauthorize, Refund, Reclaim): one that is
// original itself (its id, in any case: a cached or misrouted read of it)
// is no new transaction, and one whose originalTransactionId names
// another transaction was made by another call (a cache or proxy mixing
// answers up); either is a *ResponseError (ErrInvalidResponse,
// OutcomeUnknown: reconcile), never a success that records the original's
// id, or another call's result, as the new one's. An answer without
// originalTransactionId is taken as the call's.
func madeFrom(op *operation, original string) func(*models.Transaction, error) (*models.Transaction, error) {
	return func(t *models.Transaction, err error) (*models.Transaction, error) {
		if err != nil {
			return t, err
		}
		if strings.EqualFold(strings.TrimSpace(t.TransactionID), original) {
			return nil, resultError(op, errors.New("the response is the transaction the call was made against, not the one it made"), original)
		}
		if from := strings.TrimSpace(t.OriginalTransactionID); from != "" && !strings.EqualFold(from, original) {
			return nil, resultError(op, errors.New("the response is a transaction made from another transaction than the one asked"), original)
		}
		return t, nil
	}
}

// transactionIDField is the id a Transaction answer is about (isThe).
var transactionIDField = idField[models.Transaction]{"transactionId", func(t *models.Transaction) string { return t.TransactionID }, true}

// Establish creates an authorization from establish data, signed with the
// client's credentials: POST /establish?createTransaction=true. Its main
// use is a Disbursement by account and routing number; keep the returned
// TransactionID for the Deposit. d is not modified (a copy is signed, with
// DeviceType "web" for a Disbursement without one). Invalid data is a
// *ValidationError and nothing is sent. A repeated merchantReference fails
// with ErrDuplicate; Establish is not retried once it may have reached the
// server, unless WithRetryNonIdempotent.
//
// The spec's answer is the authorization itself. The OpenAPI's (a bare
// EstablishData) reports no transaction state: TransactionID, Amount,
// Currency, MerchantReference and URL are set, and TransactionType and
// Status are models.TypeUnknown and models.StatusUnknown unless it gives
// them. Read the authorization's state with Transactions.Get.
func (s *TransactionsService) Establish(ctx context.Context, d *models.EstablishData, opts ...Option) (*models.Transaction, error) {
	if d == nil {
		return nil, invalid("establishData", "must not be nil")
	}
	cp := *d // a copy: the caller's struct is never written
	if cp.PaymentType == models.PaymentTypeDisbursement && cp.DeviceType == "" {
		cp.DeviceType = "web"
	}
	if err := s.client.signEstablishData(&cp); err != nil { // validates cp first
		return nil, err
	}
	r, err := call[establishResponse](ctx, s.client, ops.TransactionsEstablish, args{Query: url.Values{"createTransaction": {"true"}}, Body: &cp}, opts)
	if err != nil {
		return nil, err
	}
	return r.out, nil
}

// establishResponse reads Establish's response in either shape
// (decode.Establish): the spec's wrapped transaction, with a transaction's
// identity, or the OpenAPI's bare EstablishData, with its url (the one
// field the OpenAPI requires there).
type establishResponse struct{ out *models.Transaction }

// DecodeBody implements pipeline.Decoder.
func (r *establishResponse) DecodeBody(ctx context.Context, logger *slog.Logger, req *pipeline.Request, body []byte) error {
	out, unset, err := decode.Establish(body)
	if err != nil {
		return &ResponseError{StatusCode: http.StatusOK, Method: req.Method, Path: req.Path, Err: err}
	}
	pipeline.LogUnset(ctx, logger, req.Method, req.Path, unset)
	r.out = out
	return nil
}

// RefundParams is the input of Refund, sent as JSON. Both fields may be
// left empty: the remaining balance is then refunded.
type RefundParams struct {
	// MerchantReference is the merchant's reference for this refund
	// (optional; '&', '=', '%', '+' and control characters are refused).
	MerchantReference string `json:"merchantReference,omitempty"`
	// Amount is the amount to refund, N.NN, at least 0.99 and at most 10
	// characters; empty refunds what remains of the transaction's balance.
	Amount models.Amount `json:"amount,omitempty"`
}

// Refund refunds all or part of a completed Capture or Pay transaction:
// POST /transactions/{transactionId}/refund (JSON). p may be nil (the whole
// remaining balance, no reference). The response is the refund transaction
// (type 4) whose originalTransactionId is transactionID; the refunded
// transaction becomes Partially refunded or Refunded and a Refund event
// follows. Refunds may be repeated until the whole amount is refunded.
//
// Refund moves money, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given. Give a
// merchantReference to make a retry safe: on an account configured for
// idempotency a repeated one responds code 210 (ErrDuplicate). An amount
// above the balance responds with an *APIError (code 331 in the sandbox).
func (s *TransactionsService) Refund(ctx context.Context, transactionID string, p *RefundParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		p = &RefundParams{}
	}
	if err := firstError(
		checkID("transactionId", transactionID),
		checkMerchantReference("merchantReference", p.MerchantReference, false),
		checkReturnAmount("amount", p.Amount, false),
	); err != nil {
		return nil, err
	}
	return madeFrom(ops.TransactionsRefund, transactionID)(call[models.Transaction](ctx, s.client, ops.TransactionsRefund, args{IDs: []string{transactionID}, Body: p}, opts))
}

// ReclaimParams is the input of Reclaim, sent as JSON.
type ReclaimParams struct {
	// MerchantReference is the merchant's reference for this reclaim
	// (optional; '&', '=', '%', '+' and control characters are refused).
	MerchantReference string `json:"merchantReference,omitempty"`
	// Amount is the amount to take back, N.NN, at least 0.99, at most 10
	// characters and at most the deposit's balance (required).
	Amount models.Amount `json:"amount"`
}

// Reclaim takes back all or part of a completed Deposit:
// POST /transactions/{transactionId}/reclaim (JSON). The response is the
// reclaim transaction (type 7) whose originalTransactionId is
// transactionID; the deposit's balance drops by the amount. Reclaims may be
// repeated until the whole deposit is reclaimed.
//
// Reclaim moves money, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given. A repeated
// merchantReference responds code 210 (ErrDuplicate) where the account is
// configured for idempotency.
func (s *TransactionsService) Reclaim(ctx context.Context, transactionID string, p *ReclaimParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		return nil, invalid("reclaimParams", "must not be nil")
	}
	if err := firstError(
		checkID("transactionId", transactionID),
		checkMerchantReference("merchantReference", p.MerchantReference, false),
		checkReturnAmount("amount", p.Amount, true),
	); err != nil {
		return nil, err
	}
	return madeFrom(ops.TransactionsReclaim, transactionID)(call[models.Transaction](ctx, s.client, ops.TransactionsReclaim, args{IDs: []string{transactionID}, Body: p}, opts))
}

// CancelParams is the input of Cancel, sent as JSON; every field is
// optional.
type CancelParams struct {
	// MerchantReference is the merchant's reference for this cancellation
	// ('&', '=', '%', '+' and control characters are refused).
	MerchantReference string `json:"merchantReference,omitempty"`
	// Message says why, at most 40 characters.
	Message string `json:"message,omitempty"`
	// Reason is the merchant's reason code (0: none sent).
	Reason int `json:"reason,omitempty"`
}

// maxCancelMessage is the OpenAPI's limit of a cancellation message.
const maxCancelMessage = 40

// Cancel cancels a transaction that has not been processed yet:
// POST /transactions/{transactionId}/cancel (JSON). p may be nil. Canceling
// an authorization (the user revoked access, say) refuses further deposits
// and captures from it; a deposit or capture can be canceled only before the
// network picks it up, and a refused Cancel calls for Refund instead. The
// response is the canceled transaction; a Cancel event follows.
//
// Cancel changes state, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given.
func (s *TransactionsService) Cancel(ctx context.Context, transactionID string, p *CancelParams, opts ...Option) (*models.Transaction, error) {
	if p == nil {
		p = &CancelParams{}
	}
	if err := firstError(
		checkID("transactionId", transactionID),
		checkMerchantReference("merchantReference", p.MerchantReference, false),
	); err != nil {
		return nil, err
	}
	if utf8.RuneCountInString(p.Message) > maxCancelMessage || !utf8.ValidString(p.Message) {
		return nil, invalid("message", "must be valid text of at most 40 characters")
	}
	if p.Reason < 0 {
		return nil, invalid("reason", "must not be negative")
	}
	return isThe(ops.TransactionsCancel, transactionID, transactionIDField)(call[models.Transaction](ctx, s.client, ops.TransactionsCancel, args{IDs: []string{transactionID}, Body: p}, opts))
}

// PreauthorizeParams is the input of Preauthorize, sent as JSON (the
// OpenAPI's encoding; the spec states none for it).
type PreauthorizeParams struct {
	// MerchantReference is the merchant's reference for this
	// preauthorization (required; '&', '=', '%', '+' and control
	// characters are refused).
	MerchantReference string `url:"merchantReference"`
	// Amount is the total the captures may reach, N.NN, greater than 0.00,
	// at most 10 characters (required).
	Amount models.Amount `url:"amount"`
	// Period is how many hours the preauthorization holds, 1 to 6
	// (required).
	Period int `url:"period"`
	// SplitToken is the token of the authorization's Authorize event.
	SplitToken string `url:"splitToken,omitempty"`
	// ExternalTier is the merchant's tier of the customer, such as "vip".
	ExternalTier string `url:"externalTier,omitempty"`
	// WithdrawalMethod is how the recipient receives the funds, one of the
	// models.Withdrawal* constants (metadata.remittance.withdrawalMethod).
	WithdrawalMethod string `url:"metadata.remittance.withdrawalMethod,omitempty"`
	// InteractionID ties the call to the consumer's interaction;
	// "consumerNotPresent" marks a merchant-initiated one. Empty: the
	// consumer is taken to be present.
	InteractionID string `url:"interactionId,omitempty"`
}

// Preauthorization periods the OpenAPI allows, in hours.
const (
	minPreauthHours = 1
	maxPreauthHours = 6
)

// Preauthorize preauthorizes captures from an authorization, up to Amount
// in total, for Period hours: POST /transactions/{transactionId}/capture/preAuth,
// a JSON body. The response is the preauthorization transaction (type 10)
// whose originalTransactionId is transactionID; its ExpiredAt is when it
// lapses, after which captures are treated as ordinary ones.
//
// Preauthorize changes state, so it is not retried once the request may
// have reached the server, unless WithRetryNonIdempotent is given. A
// repeated merchantReference responds code 210 (ErrDuplicate) where the
// account is configured for idempotency.
func (s *TransactionsService) Preauthorize(ctx context.Context, transactionID string, p *PreauthorizeParams, opts ...Option) (*models.Transaction, error) {
	if err := checkID("transactionId", transactionID); err != nil {
		return nil, err
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	return madeFrom(ops.TransactionsPreauthorize, transactionID)(call[models.Transaction](ctx, s.client, ops.TransactionsPreauthorize, args{IDs: []string{transactionID}, Body: p.body()}, opts))
}

// preauthBody is the JSON body of a preauthorization, as the OpenAPI
// writes it (the spec states no other encoding; bodies are JSON unless
// stated): the withdrawal method under its dotted name.
type preauthBody struct {
	MerchantReference string        `json:"merchantReference"`
	Amount            models.Amount `json:"amount"`
	Period            int           `json:"period"`
	SplitToken        string        `json:"splitToken,omitempty"`
	ExternalTier      string        `json:"externalTier,omitempty"`
	WithdrawalMethod  string        `json:"metadata.remittance.withdrawalMethod,omitempty"`
	InteractionID     string        `json:"interactionId,omitempty"`
}

func (p *PreauthorizeParams) body() *preauthBody {
	return &preauthBody{MerchantReference: p.MerchantReference, Amount: p.Amount, Period: p.Period, SplitToken: p.SplitToken,
		ExternalTier: p.ExternalTier, WithdrawalMethod: p.WithdrawalMethod, InteractionID: p.InteractionID}
}

func (p *PreauthorizeParams) validate() error {
	if p == nil {
		return invalid("preauthorizeParams", "must not be nil")
	}
	if err := firstError(
		checkMerchantReference("merchantReference", p.MerchantReference, true),
		checkMoneyAmount("amount", p.Amount, true),
	); err != nil {
		return err
	}
	switch {
	case p.Period == 0:
		return invalid("period", "is required")
	case p.Period < minPreauthHours || p.Period > maxPreauthHours:
		return invalid("period", "must be 1 to 6 (hours)")
	}
	if p.WithdrawalMethod != "" && !wire.WithdrawalMethod(p.WithdrawalMethod) {
		return invalid("metadata.remittance.withdrawalMethod", "must be BankDeposit, Cash, DebitCard, DigitalWallet or HomeDelivery")
	}
	return nil
}

// Refresh asks the service to update the data of an authorization (or a
// preauthorization) to the most recent the bank has:
// POST /transactions/{transactionId}/refresh (JSON {"splitToken":…}).
// splitToken is the token of the authorization's Authorize event
// (required). It returns the refresh's processId; the outcome arrives later
// in a Refresh event (Event.Transaction.Refresh).
//
// Refresh changes state, so it is not retried once the request may have
// reached the server, unless WithRetryNonIdempotent is given.
func (s *TransactionsService) Refresh(ctx context.Context, transactionID, splitToken string, opts ...Option) (processID string, err error) {
	if err := firstError(checkID("transactionId", transactionID), required("splitToken", splitToken)); err != nil {
		return "", err
	}
	r, err := call[wire.RefreshProcess](ctx, s.client, ops.TransactionsRefresh, args{IDs: []string{transactionID}, Body: &wire.RefreshRequest{SplitToken: splitToken}}, opts)
	if err != nil {
		return "", err
	}
	if r.ProcessID == "" {
		return "", resultError(ops.TransactionsRefresh, errors.New("response has no refresh.processId"), transactionID)
	}
	return r.ProcessID, nil
}
