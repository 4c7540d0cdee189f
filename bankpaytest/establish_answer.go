package bankpaytest

import (
	"encoding/json"
	"strconv"

	"github.com/bankpay/bankpay-go/models"
)

// establishAnswer is the OpenAPI's answer to POST /establish
// (WithBareResponses): its EstablishData schema, which is the establish
// data the merchant sent, typed as that schema types each property, with
// the transactionId of the authorization created and url, the one property
// it requires. A property of the establish data the schema does not have
// (timeZone, recurrence, beneficiary, deviceType…), or whose value the
// schema cannot hold (metadata, whose schema is a {name, value} Attribute),
// is left out; no property is given a value the merchant did not send.
type establishAnswer struct {
	MerchantID        string                 `json:"merchantId,omitempty"`
	PaymentType       int                    `json:"paymentType,omitempty"` // a double in the OpenAPI
	ReturnURL         string                 `json:"returnUrl,omitempty"`
	CancelURL         string                 `json:"cancelUrl,omitempty"`
	NotificationURL   string                 `json:"notificationUrl,omitempty"`
	AccessID          string                 `json:"accessId,omitempty"`
	RequestSignature  string                 `json:"requestSignature,omitempty"`
	TransactionID     string                 `json:"transactionId"`
	MerchantReference string                 `json:"merchantReference,omitempty"`
	Description       string                 `json:"description,omitempty"`
	Currency          models.Currency        `json:"currency,omitempty"`
	KYCType           string                 `json:"kycType,omitempty"`
	Amount            models.Amount          `json:"amount,omitempty"`
	Verification      *establishVerification `json:"verification,omitempty"`
	Customer          map[string]any         `json:"customer,omitempty"`
	Account           *establishAccount      `json:"account,omitempty"`
	URL               string                 `json:"url"`
}

// establishVerification is the OpenAPI's Verification: status a string
// enum ("1" to "4").
type establishVerification struct {
	Status         string `json:"status,omitempty"`
	VerifyCustomer bool   `json:"verifyCustomer,omitempty"`
}

// establishAccount is the OpenAPI's Account of establish data: type a
// double; the account number, as in every transaction answer, its last 4
// digits only.
type establishAccount struct {
	Name          string `json:"name,omitempty"`
	Type          int    `json:"type,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
	RoutingNumber string `json:"routingNumber,omitempty"`
}

// newEstablishAnswer is the OpenAPI's establish answer for establish data d
// (checked), authorization id and url.
func newEstablishAnswer(d *models.EstablishData, id, url string) *establishAnswer {
	a := &establishAnswer{
		MerchantID: d.MerchantID, PaymentType: int(d.PaymentType), ReturnURL: d.ReturnURL, CancelURL: d.CancelURL,
		NotificationURL: d.NotificationURL, AccessID: d.AccessID, RequestSignature: d.RequestSignature,
		TransactionID: id, MerchantReference: d.MerchantReference, Description: d.Description,
		Currency: d.Currency, Amount: d.Amount, Customer: establishCustomer(d.Customer), URL: url,
	}
	if d.KYCType == models.KYCTypeIdentity {
		a.KYCType = "OnlineBanking" // EstablishDataKycType: 1 is OnlineBanking
	}
	if v := d.Verification; v != nil {
		a.Verification = &establishVerification{VerifyCustomer: v.VerifyCustomer}
		if v.Status >= 1 && v.Status <= 4 {
			a.Verification.Status = strconv.Itoa(v.Status)
		}
	}
	if ac := d.Account; ac != nil {
		a.Account = &establishAccount{Name: ac.Name, Type: ac.Type, AccountNumber: lastFour(ac.AccountNumber), RoutingNumber: ac.RoutingNumber}
	}
	return a
}

// establishCustomer is customer c of establish data as the OpenAPI's
// Customer types it (vip a string, enrollDate an integer, left out when it
// is not one), or nil when c lacks a property that schema requires (name,
// address with its country, phone, email): the sandbox invents none. Its
// tax id and driver's license are never echoed.
func establishCustomer(c *models.Customer) map[string]any {
	if c == nil || c.Name == "" || c.Address == nil || c.Address.Country == "" || c.Phone == "" || c.Email == "" {
		return nil
	}
	cc := *c
	cc.TaxID, cc.DriverLicense = "", nil
	b, err := json.Marshal(cc)
	if err != nil {
		return nil
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		return nil
	}
	if c.VIP != nil {
		out["vip"] = strconv.Itoa(*c.VIP)
	}
	if c.EnrollDate != "" {
		delete(out, "enrollDate")
		if n, err := strconv.ParseInt(c.EnrollDate, 10, 64); err == nil {
			out["enrollDate"] = n
		}
	}
	return out
}
