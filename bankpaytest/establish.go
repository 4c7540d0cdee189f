package bankpaytest

import (
	"net/http"
	"net/url"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// checkEstablishData checks the fields of establish data that both the
// establish endpoint and the user interface require.
func checkEstablishData(m *merchant, d *models.EstablishData) *Error {
	if d.MerchantReference == "" {
		return badRequest("merchantReference is required")
	}
	switch d.PaymentType {
	case models.PaymentTypeDeferred, models.PaymentTypeInstant, models.PaymentTypeDisbursement:
		if err := checkAmountField("amount", d.Amount, true); err != nil {
			return err
		}
		if err := checkCurrencyField("currency", d.Currency, true); err != nil {
			return err
		}
	case models.PaymentTypeRetrieval:
		if err := checkAmountField("amount", d.Amount, false); err != nil {
			return err
		}
		if err := checkCurrencyField("currency", d.Currency, false); err != nil {
			return err
		}
	case 0:
		return badRequest("paymentType is required")
	default:
		return badRequest("paymentType must be Deferred, Instant, Retrieval or Disbursement")
	}
	if d.KYCType != 0 && d.KYCType != models.KYCTypeIdentity {
		return badRequest("kycType must be 1 when given")
	}
	if err := checkURLField("notificationUrl", d.NotificationURL, false); err != nil {
		return err
	}
	if c := d.Customer; c != nil && c.VIP != nil {
		if *c.VIP < 0 {
			return badRequest("customer.vip must be 0 (not VIP) or a positive tier")
		}
		if !m.cfg.NoVIP && *c.VIP > 0 && c.Name == "" {
			return badRequest("customer.name is required with customer.vip")
		}
	}
	return nil
}

func checkAmountField(field string, a models.Amount, must bool) *Error {
	if a == "" {
		if must {
			return badRequest("%s is required", field)
		}
		return nil
	}
	if !validAmount(a) {
		return badRequest("%s must be a decimal with two places, like 10.00", field)
	}
	return nil
}

func checkCurrencyField(field string, c models.Currency, must bool) *Error {
	if c == "" {
		if must {
			return badRequest("%s is required", field)
		}
		return nil
	}
	if c != models.USD && c != models.CAD {
		return badRequest("%s must be USD or CAD", field)
	}
	return nil
}

func checkURLField(field, raw string, must bool) *Error {
	if raw == "" {
		if must {
			return badRequest("%s is required", field)
		}
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return badRequest("%s must be an absolute http(s) URL", field)
	}
	return nil
}

// handleEstablish serves POST /establish?createTransaction=true, the
// authorization by account and routing number (paymentType Disbursement);
// the other payment types are authorized by the user (Server.Authorize).
// Its response in the spec's shape shows status 0 with message Authorized,
// as the spec's abbreviated response does; the authorization itself is
// Authorized (2). In the OpenAPI's shape it is EstablishData
// (newEstablishAnswer).
func (s *Server) handleEstablish(r *http.Request, body []byte, m *merchant, _ string) (any, *Error) {
	if r.URL.Query().Get("createTransaction") != "true" {
		return nil, badRequest("createTransaction=true is required")
	}
	var d models.EstablishData
	if err := decodeJSON(body, &d); err != nil {
		return nil, err
	}
	if err := checkEstablishSignature(m, &d); err != nil {
		return nil, err
	}
	if err := checkEstablishData(m, &d); err != nil {
		return nil, err
	}
	if d.PaymentType != models.PaymentTypeDisbursement {
		return nil, badRequest("paymentType must be Disbursement here: the other payment types are authorized by the user")
	}
	a := d.Account
	if a == nil || a.AccountNumber == "" {
		return nil, badRequest("account.accountNumber is required")
	}
	if a.RoutingNumber == "" {
		return nil, badRequest("account.routingNumber is required")
	}
	sa, err := lookupSandboxAccount(a.AccountNumber, a.RoutingNumber)
	if err != nil {
		return nil, err
	}
	if m.usedRef(refEstablish, d.MerchantReference) {
		return nil, duplicate()
	}
	acct := &models.PaymentAccount{
		Name:          a.Name,
		Type:          a.Type,
		AccountNumber: a.AccountNumber,
		RoutingNumber: a.RoutingNumber,
		Verified:      sa.Verified,
	}
	t := s.createAuthorization(m, &d, acct, OutcomeAuthorize)
	t.ip = clientIP(r)
	// The spec: "The abbreviated Disbursement establish response shows
	// status 0 with message Authorized". The record, as GET
	// /transactions/{id} and the Authorize event show it, is Authorized (2).
	if s.bare {
		// The OpenAPI's establish response is EstablishData with its url.
		return newEstablishAnswer(&d, t.id(), s.ControlURL+"/authorize?transactionId="+t.id()), nil
	}
	v := t.view()
	v.Status, v.StatusMessage = models.StatusNew, models.StatusAuthorized.String()
	return wire.TransactionEnvelope{Transaction: v}, nil
}

// createAuthorization records an authorization for establish data d with
// account acct, Authorized or (OutcomeCancel) Canceled, and emits its event.
// The caller holds s.mu and has checked d.
func (s *Server) createAuthorization(m *merchant, d *models.EstablishData, acct *models.PaymentAccount, outcome Outcome) *txn {
	t := s.newTxn(m, models.TypeAuthorize)
	dc := *d
	t.data = &dc
	t.outcome = outcome
	t.notifyURL = d.NotificationURL
	t.timeZone = d.TimeZone
	if acct == nil {
		acct = demoAccount(t.id())
	}
	currency := d.Currency
	if currency == "" {
		currency = models.USD
	}
	amount := d.Amount
	if amount == "" {
		amount = "0.00"
	}
	t.rec.MerchantReference = d.MerchantReference
	t.rec.Currency = currency
	t.rec.Amount = amount
	t.rec.Payment = &models.Payment{
		PaymentID:       t.id(),
		PaymentType:     d.PaymentType,
		MerchantID:      m.cfg.MerchantID,
		ReturnURL:       d.ReturnURL,
		CancelURL:       d.CancelURL,
		Amount:          amount,
		Currency:        currency,
		Account:         acct,
		PaymentProvider: sandboxProvider(m),
	}
	m.refs[refKey{refEstablish, d.MerchantReference}] = true
	t.customerID = s.upsertCustomerFromEstablish(m, d.Customer).c.CustomerID

	if outcome == OutcomeCancel {
		acct.Verified = false
		s.mustMove(t, models.StatusCanceled)
		return t
	}
	if pt := d.PaymentType; pt == models.PaymentTypeDeferred || pt == models.PaymentTypeInstant || pt == models.PaymentTypeRecurring {
		t.splitToken = newSplitToken() // sent in the Authorize event
	}
	s.mustMove(t, models.StatusAuthorized)
	if d.KYCType == models.KYCTypeIdentity {
		t.kyc = true
		s.scheduleIdentity(t)
	}
	return t
}
