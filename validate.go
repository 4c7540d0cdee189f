package bankpay

import (
	"net/url"
	"strconv"
	"strings"
	"unicode"

	"github.com/bankpay/bankpay-go/internal/sign"
	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// Validators shared by the service methods. Each returns a *ValidationError
// naming the wire field (dotted for nested fields); none repeats the value,
// which may be personal data.

// required rejects an empty string.
func required(field, v string) error {
	if v == "" {
		return invalid(field, "is required")
	}
	return nil
}

// absent handles a value that may be left out: it reports whether the value
// is empty, with an "is required" error when must is set.
func absent(field string, empty, must bool) (bool, error) {
	if empty && must {
		return true, invalid(field, "is required")
	}
	return empty, nil
}

// checkMerchantReference checks a merchantReference the SDK sends (establish
// data, deposit, capture); an empty one is an error only when must is set.
//
// The service signs an event notification over its URL-decoded body, so a
// merchantReference that decodes to "&" or "=" could be re-encoded by an
// attacker into extra fields that still verify: the signed
// "merchantReference=ord-1%26errorCode%3D330" is the same message as
// "merchantReference=ord-1&errorCode=330". "%" and "+" are refused because
// they change meaning under that decoding, and control characters because
// they have no place in a reference (and break logs and headers).
func checkMerchantReference(field, ref string, must bool) error {
	if empty, err := absent(field, ref == "", must); empty {
		return err
	}
	if strings.ContainsFunc(ref, isUnsafeReferenceRune) {
		return invalid(field, "must not contain '&', '=', '%', '+' or control characters")
	}
	return nil
}

func isUnsafeReferenceRune(r rune) bool {
	switch r {
	case '&', '=', '%', '+':
		return true
	}
	return unicode.IsControl(r)
}

// zeroAmount is the amount of an authorization without a fixed amount.
const zeroAmount models.Amount = "0.00"

// checkAmount checks an amount; an empty one is an error only when must is set.
func checkAmount(field string, a models.Amount, must bool) error {
	if empty, err := absent(field, a == "", must); empty {
		return err
	}
	if _, err := models.ParseAmount(string(a)); err != nil {
		if negativeAmount(a) {
			return invalid(field, "must not be negative")
		}
		return &ValidationError{Field: field, Reason: "must be a decimal with two places, like 10.00"}
	}
	return nil
}

// negativeAmount reports whether a is a well-formed amount with a minus
// sign ("-1.00"), which ParseAmount refuses as it refuses any malformed one.
func negativeAmount(a models.Amount) bool {
	rest, neg := strings.CutPrefix(string(a), "-")
	if !neg {
		return false
	}
	_, err := models.ParseAmount(rest)
	return err == nil
}

// checkPositiveAmount is checkAmount for an amount that moves money: it must
// also be above zero (the service refuses a deposit or capture of 0.00,
// which ParseAmount accepts; ParseAmount already refuses a minus sign).
func checkPositiveAmount(field string, a models.Amount, must bool) error {
	if negativeAmount(a) {
		return invalid(field, "must be positive (greater than 0.00), like 10.00")
	}
	if err := checkAmount(field, a, must); err != nil {
		return err
	}
	if a == zeroAmount {
		return invalid(field, "must be greater than 0.00")
	}
	return nil
}

// checkCurrency accepts USD and CAD; an empty currency is an error only when must is set.
func checkCurrency(field string, c models.Currency, must bool) error {
	if empty, err := absent(field, c == "", must); empty {
		return err
	}
	if c != models.USD && c != models.CAD {
		return invalid(field, "must be USD or CAD")
	}
	return nil
}

// checkVIP accepts nil (unset), 0 (not VIP) and positive tiers.
func checkVIP(field string, vip *int) error {
	if vip != nil && *vip < 0 {
		return invalid(field, "must be 0 (not VIP) or a positive tier")
	}
	return nil
}

// checkURL accepts an absolute http(s) URL; an empty one is an error only when must is set.
func checkURL(field, raw string, must bool) error {
	_, err := httpURLQuery(field, raw, must)
	return err
}

// httpURLQuery is checkURL returning the URL's raw query ("" when it has
// none or raw is empty).
func httpURLQuery(field, raw string, must bool) (string, error) {
	if empty, err := absent(field, raw == "", must); empty {
		return "", err
	}
	if q, ok := plainHTTPURL(raw); ok {
		return q, nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return "", invalid(field, "must be an absolute http(s) URL")
	}
	return u.RawQuery, nil
}

// plainHTTPURL recognises, in one pass and without allocating, the URLs
// merchants give (https://shop.example/bankpay/return?x=1): a lower-case
// http or https scheme, a host of letters, digits, '.' and '-' with an
// optional numeric port, then printable ASCII without '%', '#', a space or a
// second '?'. Each such URL is one url.Parse accepts with that scheme and a
// non-empty host, and q is its RawQuery (FuzzPlainHTTPURL checks both); ok
// is false for anything else, which url.Parse then judges.
func plainHTTPURL(raw string) (q string, ok bool) {
	rest, found := strings.CutPrefix(raw, "https://")
	if !found {
		if rest, found = strings.CutPrefix(raw, "http://"); !found {
			return "", false
		}
	}
	i, hostEnd, port := 0, -1, false
	for ; i < len(rest); i++ {
		c := rest[i]
		if c == '/' || c == '?' {
			break
		}
		switch {
		case c == ':' && !port && i > 0:
			port, hostEnd = true, i
		case '0' <= c && c <= '9':
		case port:
			return "", false // a port is digits only
		case 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '.' || c == '-':
		default:
			return "", false
		}
	}
	if i == 0 || (port && (hostEnd == i-1 || i-hostEnd > 6)) {
		return "", false // no host, or an empty or over-long port
	}
	query := -1
	for j := i; j < len(rest); j++ {
		switch c := rest[j]; {
		case c <= ' ' || c >= 0x7f || c == '%' || c == '#':
			return "", false
		case c == '?':
			if query >= 0 {
				return "", false
			}
			query = j + 1
		}
	}
	if query < 0 {
		return "", true
	}
	return rest[query:], true
}

// checkRedirectURL is checkURL for a returnUrl or cancelUrl: its own query
// must be readable and must not repeat a parameter or use a name that
// VerifyRedirect refuses or fills from the service's parameters (see
// Redirect), or every redirect to it would be refused.
func checkRedirectURL(field, raw string, must bool) error {
	rawQuery, err := httpURLQuery(field, raw, must)
	if err != nil || rawQuery == "" {
		return err
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return invalid(field, "must have a well-formed query")
	}
	for k, vs := range q {
		if len(vs) > 1 || reservedRedirectKey(k) {
			return invalid(field, "must not repeat a query parameter nor use a name of the redirect, establish data or notifications (see Redirect)")
		}
	}
	return nil
}

// firstError returns the first non-nil error.
func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// checkEmail requires an address of the form local@domain, with no spaces
// or control characters, at most 254 bytes.
func checkEmail(field, v string) error {
	if v == "" {
		return invalid(field, "is required")
	}
	at := strings.LastIndexByte(v, '@')
	if at < 1 || at == len(v)-1 || len(v) > 254 || strings.ContainsFunc(v, func(r rune) bool { return r <= ' ' || r == 0x7f }) {
		return invalid(field, "must be an email address (local@domain)")
	}
	return nil
}

// checkPhone accepts an empty number or one in E.164 form: '+', then 2 to
// 15 digits, the first not 0.
func checkPhone(field, v string) error {
	if v == "" {
		return nil
	}
	if len(v) < 3 || len(v) > 16 || v[0] != '+' || v[1] == '0' {
		return invalid(field, "must be in E.164 form, like +15125550100")
	}
	for i := 1; i < len(v); i++ {
		if !isDigit(v[i]) {
			return invalid(field, "must be in E.164 form, like +15125550100")
		}
	}
	return nil
}

// checkIBAN requires an IBAN in its electronic form: 15 to 34 upper-case
// letters and digits, no spaces, a country code, two check digits and a
// valid ISO 13616 checksum (mod 97). The error never repeats the value.
func checkIBAN(field, v string) error {
	if v == "" {
		return invalid(field, "is required")
	}
	const form = "must be an IBAN of 15 to 34 upper-case letters and digits, without spaces"
	if len(v) < 15 || len(v) > 34 || !isUpper(v[0]) || !isUpper(v[1]) || !isDigit(v[2]) || !isDigit(v[3]) {
		return invalid(field, form)
	}
	rem := 0
	for i := range len(v) {
		c := v[(i+4)%len(v)] // the country code and check digits go last
		switch {
		case isDigit(c):
			rem = (rem*10 + int(c-'0')) % 97
		case isUpper(c):
			rem = (rem*100 + int(c-'A'+10)) % 97
		default:
			return invalid(field, form)
		}
	}
	if rem != 1 {
		return invalid(field, "fails the IBAN checksum")
	}
	return nil
}

// isUpper reports whether c is an ASCII capital letter.
func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

// checkBankAccount checks an account given as an account number with a
// routing number, or as an IBAN (prefix is the wire path of the account
// object, like "account."). One of the two forms is required. The field
// names are joined to prefix only for an error: a valid account costs no
// allocation.
func checkBankAccount(prefix, number, routing, iban string) error {
	var err error
	switch {
	case iban != "" && (number != "" || routing != ""):
		err = invalid("iban", "give either an IBAN or an account and routing number, not both")
	case iban != "":
		err = checkIBAN("iban", iban)
	default:
		if err = checkDigitString("accountNumber", number, 4, 17); err == nil {
			err = checkDigitString("routingNumber", routing, 9, 9)
		}
	}
	if ve, ok := err.(*ValidationError); ok { // the only error the checks return
		ve.Field = prefix + ve.Field
	}
	return err
}

// checkDigitString requires v to be lo to hi ASCII digits.
func checkDigitString(field, v string, lo, hi int) error {
	if v == "" {
		return invalid(field, "is required")
	}
	for i := 0; i < len(v); i++ {
		if !isDigit(v[i]) {
			return invalid(field, "must contain digits only")
		}
	}
	if len(v) < lo || len(v) > hi {
		if lo == hi {
			return invalid(field, "must be exactly "+strconv.Itoa(lo)+" digits")
		}
		return invalid(field, "must be "+strconv.Itoa(lo)+" to "+strconv.Itoa(hi)+" digits")
	}
	return nil
}

// checkText refuses control characters in a free-text field.
func checkText(field, v string) error {
	if strings.ContainsFunc(v, unicode.IsControl) {
		return invalid(field, "must not contain control characters")
	}
	return nil
}

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
		checkAmountChars("amount", d.Amount),
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
	if r.CountryCorridor != "" && !allOf(r.CountryCorridor, 2, isUpper) {
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

// maxAmountChars is the OpenAPI's limit of an amount the merchant sends
// (deposit, capture, refund, reclaim, preauthorization: "maximum of 10
// characters"; establish: "10 characters").
const maxAmountChars = 10

// checkMoneyAmount is checkPositiveAmount within the 10 characters the
// service reads.
func checkMoneyAmount(field string, a models.Amount, must bool) error {
	if err := checkPositiveAmount(field, a, must); err != nil {
		return err
	}
	return checkAmountChars(field, a)
}

// checkAmountChars refuses an amount longer than the 10 characters the
// service reads.
func checkAmountChars(field string, a models.Amount) error {
	if len(a) > maxAmountChars {
		return invalid(field, "must be at most 10 characters, like 9999999.99")
	}
	return nil
}

// minReturnCents is the smallest refund or reclaim the OpenAPI allows
// ("minimum of 0.99").
const minReturnCents = 99

// checkReturnAmount is checkMoneyAmount for a refund or reclaim: at least
// 0.99.
func checkReturnAmount(field string, a models.Amount, must bool) error {
	if err := checkMoneyAmount(field, a, must); err != nil || a == "" {
		return err
	}
	if cents, err := a.Cents(); err != nil || cents < minReturnCents {
		return invalid(field, "must be at least 0.99")
	}
	return nil
}

// reservedRedirectKey reports whether k may not be a query parameter of a
// returnUrl or cancelUrl: a redirect parameter, the signature, or a key
// VerifyRedirect refuses.
func reservedRedirectKey(k string) bool {
	switch k {
	case "transactionId", "merchantReference", "transactionType", "status", "payment.paymentType",
		"payment.paymentProvider.type", "panel", "payment.paymentProviderTransaction.status",
		"payment.account.verified", "payment.paymentProvider.instantPayoutAvailable",
		"instantPayoutAvailable", "instantPayoutAvail":
		return true
	}
	return notRedirectKey(k)
}

// notRedirectKey reports whether k never belongs to a redirect's signed
// part: the signature itself, a key of establish data or of notifications.
func notRedirectKey(k string) bool {
	return k == "requestSignature" || sign.IsEstablishKey(k) || isNotificationKey(k)
}

// isNotificationKey reports whether k is a field of event notifications
// that redirects never carry.
func isNotificationKey(k string) bool {
	switch k {
	case wire.EventFieldEventID, wire.EventFieldEventType, wire.EventFieldObjectID,
		wire.EventFieldObjectType, wire.EventFieldParentObjectID, wire.EventFieldCreatedAt,
		wire.EventFieldSplitToken, wire.EventFieldProviderTransactionStatus,
		wire.EventFieldProviderTransactionStatusMsg:
		return true
	}
	return false
}

// checkID rejects an id that is empty, "." or "..", or has control characters.
func checkID(field, id string) error {
	switch {
	case id == "":
		return invalid(field, "must not be empty")
	case id == "." || id == "..":
		return invalid(field, `must not be "." or ".."`)
	case strings.ContainsFunc(id, func(r rune) bool { return r < 0x20 || r == 0x7f }):
		return invalid(field, "must not contain control characters")
	}
	return nil
}
