package bankpaytest

import (
	"fmt"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// flow is the kind of transaction a state change depends on.
type flow int

const (
	flowUser      flow = iota // an authorization the user made in the bank interface
	flowEstablish             // a Disbursement authorization made by POST /establish
	flowMovement              // a deposit or capture (ACH)
	flowInstant               // an instant payout deposit (RTP)
	flowReturn                // a refund of a capture or a reclaim of a deposit
	flowPreauth               // a preauthorization of captures
)

type flowState struct {
	flow flow
	to   models.TransactionStatus
}

// transition is one allowed state change: the states it comes from (New
// is creation), the event it emits ("" for none) and the provider status
// (paymentProviderTransaction.status) the transaction then shows. The
// provider codes and meanings are the operator's documented ones
// (models.ProviderStatus); the package documentation lists them.
type transition struct {
	from     []models.TransactionStatus
	event    models.EventType
	provider models.ProviderStatus
}

var (
	fromNew        = []models.TransactionStatus{models.StatusNew}
	fromAuthorized = []models.TransactionStatus{models.StatusAuthorized}
	fromProcessed  = []models.TransactionStatus{models.StatusProcessed}
	fromCompleted  = []models.TransactionStatus{models.StatusCompleted}
	fromNotSettled = []models.TransactionStatus{models.StatusAuthorized, models.StatusProcessed}
	fromPaid       = []models.TransactionStatus{models.StatusCompleted, models.StatusPartiallyRefunded}

	fromNewOrAuthorized = []models.TransactionStatus{models.StatusNew, models.StatusAuthorized}
)

// providerFrom overrides a row's provider status for a move from a given
// state: the user cancels a New authorization in the bank interface (UC01),
// the merchant an Authorized one with Cancel (SW013).
var providerFrom = map[flowState]map[models.TransactionStatus]models.ProviderStatus{
	{flowUser, models.StatusCanceled}: {models.StatusAuthorized: "SW013"},
}

// transitions is the one table every state change goes through (move).
var transitions = map[flowState]transition{
	{flowUser, models.StatusAuthorized}:            {fromNew, models.EventAuthorize, models.ProviderStatus("SW020")},         // SW020
	{flowUser, models.StatusCanceled}:              {fromNewOrAuthorized, models.EventCancel, models.ProviderStatus("UC01")}, // UC01, or SW013 (providerFrom)
	{flowUser, models.StatusVoided}:                {fromAuthorized, "", models.ProviderStatus("SW013")},                     // SW013
	{flowEstablish, models.StatusAuthorized}:       {fromNew, models.EventAuthorize, models.ProviderStatus("SW010")},         // SW010
	{flowEstablish, models.StatusVoided}:           {fromAuthorized, "", models.ProviderStatus("SW013")},                     // SW013
	{flowEstablish, models.StatusCanceled}:         {fromAuthorized, models.EventCancel, models.ProviderStatus("SW013")},     // SW013
	{flowMovement, models.StatusAuthorized}:        {fromNew, "", models.ProviderStatus("AC100")},                            // AC100
	{flowMovement, models.StatusProcessed}:         {fromAuthorized, models.EventProcess, models.ProviderStatus("AC105")},    // AC105
	{flowMovement, models.StatusCompleted}:         {fromProcessed, models.EventComplete, models.ProviderStatus("AC106")},    // AC106
	{flowMovement, models.StatusDenied}:            {fromNotSettled, models.EventDeny, models.ProviderStatus("AC101")},       // AC101
	{flowMovement, models.StatusFailed}:            {fromAuthorized, models.EventFailed, models.ProviderStatus("SW051")},     // SW051
	{flowMovement, models.StatusReversed}:          {fromCompleted, models.EventReverse, models.ProviderStatus("AC115")},     // AC115
	{flowMovement, models.StatusCanceled}:          {fromAuthorized, models.EventCancel, models.ProviderStatus("AC104")},     // AC104
	{flowMovement, models.StatusPartiallyRefunded}: {fromPaid, models.EventRefund, models.ProviderStatus("AC106")},           // AC106
	{flowMovement, models.StatusRefunded}:          {fromPaid, models.EventRefund, models.ProviderStatus("AC106")},           // AC106
	{flowInstant, models.StatusAuthorized}:         {fromNew, "", models.ProviderStatus("AC100")},                            // AC100
	{flowInstant, models.StatusProcessed}:          {fromAuthorized, models.EventProcess, models.ProviderStatus("AC105")},    // AC105
	{flowInstant, models.StatusCompleted}:          {fromProcessed, models.EventComplete, models.ProviderStatus("AC118")},    // AC118
	{flowInstant, models.StatusDenied}:             {fromNotSettled, models.EventDeny, models.ProviderStatus("AC101")},       // AC101
	{flowInstant, models.StatusReversed}:           {fromCompleted, models.EventReverse, models.ProviderStatus("AC115")},     // AC115
	{flowInstant, models.StatusCanceled}:           {fromAuthorized, models.EventCancel, models.ProviderStatus("AC104")},     // AC104
	{flowReturn, models.StatusAuthorized}:          {fromNew, "", models.ProviderStatus("AC100")},                            // AC100
	{flowReturn, models.StatusProcessed}:           {fromAuthorized, models.EventProcess, models.ProviderStatus("AC105")},    // AC105
	{flowReturn, models.StatusCompleted}:           {fromProcessed, models.EventComplete, models.ProviderStatus("AC106")},    // AC106
	{flowPreauth, models.StatusAuthorized}:         {fromNew, "", models.ProviderStatus("AC107")},                            // AC107
	{flowPreauth, models.StatusExpired}:            {fromAuthorized, models.EventExpire, models.ProviderStatus("AC117")},     // AC117
	{flowPreauth, models.StatusCanceled}:           {fromAuthorized, models.EventCancel, models.ProviderStatus("SW013")},     // SW013
}

// flow returns the kind of t for transitions.
func (t *txn) flow() flow {
	switch {
	case t.rec.TransactionType == models.TypeRefund || t.rec.TransactionType == models.TypeReclaim:
		return flowReturn
	case t.rec.TransactionType == models.TypePreauthorization:
		return flowPreauth
	case t.instant():
		return flowInstant
	case isMovement(t):
		return flowMovement
	case t.data != nil && t.data.PaymentType == models.PaymentTypeDisbursement:
		return flowEstablish
	}
	return flowUser
}

// transition returns the table's row for moving t to status to, and
// whether t's current state allows it.
func (t *txn) transition(to models.TransactionStatus) (transition, bool) {
	tr, ok := transitions[flowState{t.flow(), to}]
	if !ok {
		return tr, false
	}
	for _, f := range tr.from {
		if t.rec.Status == f {
			return tr, true
		}
	}
	return tr, false
}

// can reports whether t may move to status to.
func (t *txn) can(to models.TransactionStatus) bool {
	_, ok := t.transition(to)
	return ok
}

// move is the only way a transaction changes state: it checks the move
// against transitions, sets the status, its message and the provider
// status (a change after creation also bumps updatedAt and recordVersion)
// and emits the move's event. A move the table does not allow is an
// ErrInvalidTransition. The caller holds s.mu.
func (s *Server) move(t *txn, to models.TransactionStatus) error {
	tr, ok := t.transition(to)
	if !ok {
		return fmt.Errorf("%w: %s %s is %s; it becomes %s only from %s",
			ErrInvalidTransition, kindName(t), t.id(), t.rec.Status, to, statusList(tr.from))
	}
	from := t.rec.Status
	if t.rec.Status != models.StatusNew {
		t.rec.UpdatedAt = epochMillis(s.st.now)
		t.rec.RecordVersion++
	}
	t.rec.Status, t.rec.StatusMessage = to, to.String()
	if t.rec.PaymentProviderTransaction == nil {
		t.rec.PaymentProviderTransaction = &models.PaymentProviderTransaction{PaymentProviderTransactionID: "P" + t.id()}
	}
	provider := tr.provider
	if p, ok := providerFrom[flowState{t.flow(), to}][from]; ok {
		provider = p
	}
	t.rec.PaymentProviderTransaction.Status = provider
	t.rec.PaymentProviderTransaction.StatusMessage = provider.Meaning()
	if tr.event != "" {
		s.emitTxnEvent(t, tr.event)
	}
	return nil
}

// mustMove moves t at its creation, a move the table always allows.
func (s *Server) mustMove(t *txn, to models.TransactionStatus) {
	if err := s.move(t, to); err != nil {
		panic(err) // the transitions table lacks a creation row
	}
}

func statusList(ss []models.TransactionStatus) string {
	if len(ss) == 0 {
		return "no state"
	}
	names := make([]string, len(ss))
	for i, st := range ss {
		names[i] = st.String()
	}
	return strings.Join(names, " or ")
}

// kindName names t's kind in messages.
func kindName(t *txn) string {
	switch t.rec.TransactionType {
	case models.TypeCapture:
		return "capture"
	case models.TypeDeposit:
		return "deposit"
	case models.TypeRefund:
		return "refund"
	case models.TypeReclaim:
		return "reclaim"
	case models.TypePreauthorization:
		return "preauthorization"
	case models.TypeRepresentment:
		return "dispute recovery"
	}
	return "authorization"
}
