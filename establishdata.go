package bankpay

import (
	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// validateEstablishData checks establish data before it is signed or sent:
// the checks the SDK can make without asking the service. It returns a
// *ValidationError naming the first bad field by its dotted wire name
// ("account.routingNumber"), and never the value, which may be personal data.
//
// It does not look at accessId, merchantId or requestSignature: the client
// fills those from its credentials.
func validateEstablishData(d *models.EstablishData) error {
	if err := validateEstablishFields(d); err != nil {
		return err
	}
	return checkCanonicalStructure(d)
}

// validateEstablishFields is validateEstablishData without the check of the
// canonical string's structure, which SignEstablishData makes while it
// writes the string.
func validateEstablishFields(d *models.EstablishData) error {
	if d == nil {
		return invalid("establishData", "must not be nil")
	}
	disbursement := d.PaymentType == models.PaymentTypeDisbursement
	// A Retrieval authorization moves no money: its currency and amount are
	// optional (still well formed when given).
	moneyMoving := d.PaymentType != models.PaymentTypeRetrieval
	if err := firstError(
		checkMerchantReference("merchantReference", d.MerchantReference, false),
		checkCurrency("currency", d.Currency, moneyMoving),
		checkAmount("amount", d.Amount, moneyMoving),
		checkEstablishPaymentType(d.PaymentType),
		checkAmount("displayAmount", d.DisplayAmount, false),
		checkAmount("minimumBalance", d.MinimumBalance, false),
		// returnUrl and cancelUrl are unused for Disbursement: optional there,
		// but still well formed when given.
		checkRedirectURL("returnUrl", d.ReturnURL, !disbursement),
		checkRedirectURL("cancelUrl", d.CancelURL, !disbursement),
		checkURL("notificationUrl", d.NotificationURL, false),
	); err != nil {
		return err
	}
	if r := d.Recurrence; r != nil {
		if err := checkAmount("recurrence.recurringAmount", r.RecurringAmount, false); err != nil {
			return err
		}
	}
	if c := d.Customer; c != nil {
		if err := checkVIP("customer.vip", c.VIP); err != nil {
			return err
		}
	}
	if disbursement {
		if d.Account == nil {
			return invalid("account.accountNumber", "is required for a Disbursement")
		}
		if err := firstError(
			requiredFor("account.accountNumber", d.Account.AccountNumber, "a Disbursement"),
			requiredFor("account.routingNumber", d.Account.RoutingNumber, "a Disbursement"),
		); err != nil {
			return err
		}
	}
	if err := checkBeneficiary("beneficiary", d.Beneficiary); err != nil {
		return err
	}
	if d.Metadata != nil {
		if err := checkRemittance("metadata.remittance", d.Metadata.Remittance); err != nil {
			return err
		}
	}
	return nil
}

// checkCanonicalStructure refuses establish data whose canonical string
// would read as more pairs than it has fields. The rule: a signed value may
// not contain '&' or ';' with an '=' anywhere after it. The access key signs
// establish data, redirects and notifications alike, so a value such as
// "x&eventId=e&eventType=Completed&…" typed by a user into a name or an
// address would make SignEstablishData sign, for the user, a message that
// reads as a notification or a redirect. "Barnes & Noble" and "a=b" pass.
func checkCanonicalStructure(d *models.EstablishData) error {
	return splitError(sign.EstablishFieldSplittingPair(d))
}

// splitError is the error of checkCanonicalStructure for the field named
// key, nil for "".
func splitError(key string) error {
	if key == "" {
		return nil
	}
	return invalid(key, "must not contain '&' or ';' followed later by '=': it would add fields to the signed message")
}

// checkEstablishPaymentType accepts the payment types establish data may
// carry: Deferred, Instant, Retrieval and Disbursement.
func checkEstablishPaymentType(p models.PaymentType) error {
	switch p {
	case models.PaymentTypeDeferred, models.PaymentTypeInstant,
		models.PaymentTypeRetrieval, models.PaymentTypeDisbursement:
		return nil
	case 0:
		return invalid("paymentType", "is required")
	}
	return invalid("paymentType", "must be Deferred, Instant, Retrieval or Disbursement")
}

// requiredFor rejects an empty string that the given case needs.
func requiredFor(field, v, what string) error {
	if v == "" {
		return invalid(field, "is required for "+what)
	}
	return nil
}

// checkBeneficiary checks the money-transfer fields of a beneficiary, when
// one is given: name and address.country are required. prefix is the wire
// name of the beneficiary object.
func checkBeneficiary(prefix string, b *models.Beneficiary) error {
	if b == nil {
		return nil
	}
	if err := requiredFor(prefix+".name", b.Name, "a money transfer"); err != nil {
		return err
	}
	if b.Address == nil || b.Address.Country == "" {
		return invalid(prefix+".address.country", "is required for a money transfer")
	}
	return nil
}

// checkRemittance checks remittance data, when given: withdrawalMethod is
// one of the five methods, countryCorridor is two upper-case ASCII letters
// (an ISO 3166 alpha-2 code, as the service and the sandbox want it: "MX",
// not "mx"), accountLastFour is four digits. All three are optional. prefix
// is the wire name of the remittance object.
func checkRemittance(prefix string, r *models.Remittance) error {
	if r == nil {
		return nil
	}
	if r.WithdrawalMethod != "" && !wire.WithdrawalMethod(r.WithdrawalMethod) {
		return invalid(prefix+".withdrawalMethod", "must be BankDeposit, Cash, DebitCard, DigitalWallet or HomeDelivery")
	}
	if r.CountryCorridor != "" && !allOf(r.CountryCorridor, 2, isUpperASCII) {
		return invalid(prefix+".countryCorridor", "must be a two-letter upper-case ISO 3166 country code, like MX")
	}
	if r.AccountLastFour != "" && !allOf(r.AccountLastFour, 4, isDigit) {
		return invalid(prefix+".accountLastFour", "must be exactly four digits")
	}
	return nil
}

// allOf reports whether s has exactly n bytes, each accepted by ok.
func allOf(s string, n int, ok func(byte) bool) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			return false
		}
	}
	return true
}

func isUpperASCII(c byte) bool { return c >= 'A' && c <= 'Z' }
