package wire

import (
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// The tables of values the service accepts that both the SDK (to refuse
// bad input before it sends it) and the bankpaytest sandbox (to answer as
// the service does) check against: written once, here.

// TransactionOrderFields are the orderBy values of GET /transactions.
func TransactionOrderFields() []string {
	return []string{"createdAt", "updatedAt", "processedAt", "completedAt", "amount", "transactionId"}
}

// PaymentOrderFields are the orderBy values of GET /payments.
func PaymentOrderFields() []string {
	return []string{"createdAt", "updatedAt", "amount", "paymentId"}
}

// WithdrawalMethod reports whether m is a remittance withdrawal method the
// service knows (metadata.remittance.withdrawalMethod).
func WithdrawalMethod(m string) bool {
	switch m {
	case models.WithdrawalBankDeposit, models.WithdrawalCash, models.WithdrawalDebitCard,
		models.WithdrawalDigitalWallet, models.WithdrawalHomeDelivery:
		return true
	}
	return false
}

// StatusDisputed is feedback status 9, Disputed: the OpenAPI's
// FeedbackStatus lists it, but its TransactionStatus does not (no
// transaction is ever in status 9), so models has no constant for it.
const StatusDisputed models.TransactionStatus = 9

// FeedbackStatuses are the statuses POST /feedback (account feedback)
// accepts, in order: the OpenAPI's FeedbackStatus.
func FeedbackStatuses() []models.TransactionStatus {
	return []models.TransactionStatus{
		models.StatusAuthorized, models.StatusProcessed, models.StatusCompleted,
		models.StatusFailed, models.StatusExpired, models.StatusCanceled,
		StatusDisputed, models.StatusReversed, models.StatusVoided,
	}
}

// FeedbackStatusList is FeedbackStatuses as a message lists them: "2, 3,
// 4, …".
func FeedbackStatusList() string {
	var b strings.Builder
	for i, st := range FeedbackStatuses() {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(int(st)))
	}
	return b.String()
}
