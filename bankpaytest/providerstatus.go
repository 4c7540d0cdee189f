package bankpaytest

import "github.com/bankpay/bankpay-go/models"

// flow is the kind of transaction a provider status code depends on.
type flow int

const (
	flowUser      flow = iota // an authorization the user made in the bank interface
	flowEstablish             // a Disbursement authorization made by POST /establish
	flowMovement              // a deposit or capture (ACH)
	flowInstant               // an instant payout deposit (RTP)
)

type flowState struct {
	flow   flow
	status models.TransactionStatus
}

// providerStatuses is the one table of the paymentProviderTransaction.status
// each transition writes (answers, events and redirects read the record).
// The codes and meanings are the operator's documented ones
// (models.ProviderStatus); the doc comment of the package lists them.
var providerStatuses = map[flowState]models.ProviderStatus{
	{flowUser, models.StatusAuthorized}:      models.ProviderAuthorizationReceived,       // SW020
	{flowUser, models.StatusCanceled}:        models.ProviderUserCanceledAtBankSelection, // UC01
	{flowUser, models.StatusVoided}:          models.ProviderCanceled,                    // SW013
	{flowEstablish, models.StatusAuthorized}: models.ProviderEstablished,                 // SW010
	{flowEstablish, models.StatusVoided}:     models.ProviderCanceled,                    // SW013
	{flowMovement, models.StatusAuthorized}:  models.ProviderACPending,                   // AC100
	{flowMovement, models.StatusProcessed}:   models.ProviderACProcessed,                 // AC105
	{flowMovement, models.StatusCompleted}:   models.ProviderACCollected,                 // AC106
	{flowMovement, models.StatusDenied}:      models.ProviderACDeclined,                  // AC101
	{flowMovement, models.StatusReversed}:    models.ProviderACOtherReturn,               // AC115
	{flowInstant, models.StatusAuthorized}:   models.ProviderACPending,                   // AC100
	{flowInstant, models.StatusProcessed}:    models.ProviderACProcessed,                 // AC105
	{flowInstant, models.StatusCompleted}:    models.ProviderACSettled,                   // AC118
	{flowInstant, models.StatusDenied}:       models.ProviderACDeclined,                  // AC101
	{flowInstant, models.StatusReversed}:     models.ProviderACOtherReturn,               // AC115
}

// flow returns the kind of t for providerStatuses.
func (t *txn) flow() flow {
	switch {
	case t.instant():
		return flowInstant
	case isMovement(t):
		return flowMovement
	case t.data != nil && t.data.PaymentType == models.PaymentTypeDisbursement:
		return flowEstablish
	}
	return flowUser
}

// setProviderStatus writes the provider status of t's current state from
// providerStatuses; a state the table has no code for keeps the previous
// one.
func (t *txn) setProviderStatus() {
	code, ok := providerStatuses[flowState{t.flow(), t.rec.Status}]
	if !ok {
		return
	}
	if t.rec.PaymentProviderTransaction == nil {
		t.rec.PaymentProviderTransaction = &models.PaymentProviderTransaction{PaymentProviderTransactionID: "P" + t.id()}
	}
	t.rec.PaymentProviderTransaction.Status = code
	t.rec.PaymentProviderTransaction.StatusMessage = code.Meaning()
}
