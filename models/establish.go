package models

import (
	"encoding/json"

	"github.com/bankpay/bankpay-go/internal/paytype"
)

// EstablishData is the input of the front-end SDKs' selectBankWidget and
// establish methods, and (for Disbursement) of the establish endpoint. Its
// JSON form is what those methods take; PaymentType travels as its name.
//
// Sign it on the server with bankpay's Client.SignEstablishData, which fills
// AccessID, MerchantID and RequestSignature.
type EstablishData struct {
	AccessID          string      `json:"accessId,omitempty"`
	MerchantID        string      `json:"merchantId,omitempty"`
	RequestSignature  string      `json:"requestSignature,omitempty"`
	Description       string      `json:"description,omitempty"`
	Currency          Currency    `json:"currency,omitempty"`
	Amount            Amount      `json:"amount,omitempty"`
	DisplayAmount     Amount      `json:"displayAmount,omitempty"`
	MinimumBalance    Amount      `json:"minimumBalance,omitempty"`
	MerchantReference string      `json:"merchantReference,omitempty"`
	PaymentType       PaymentType `json:"paymentType,omitempty"`
	TimeZone          string      `json:"timeZone,omitempty"`
	ReturnURL         string      `json:"returnUrl,omitempty"`
	CancelURL         string      `json:"cancelUrl,omitempty"`
	NotificationURL   string      `json:"notificationUrl,omitempty"`
	// KYCType 1 requests identity verification.
	KYCType            int                 `json:"kycType,omitempty"`
	Metadata           *Metadata           `json:"metadata,omitempty"`
	Recurrence         *Recurrence         `json:"recurrence,omitempty"`
	Verification       *EstablishVerify    `json:"verification,omitempty"`
	Customer           *Customer           `json:"customer,omitempty"`
	Beneficiary        *Beneficiary        `json:"beneficiary,omitempty"`
	BeneficiaryAccount *BeneficiaryAccount `json:"beneficiaryAccount,omitempty"`
	Account            *Account            `json:"account,omitempty"`
	// DeviceType is "web" in the Disbursement establish request.
	DeviceType    string `json:"deviceType,omitempty"`
	TransactionID string `json:"transactionId,omitempty"`
}

// Metadata is the metadata object of establish data.
type Metadata struct {
	// FlowType is a preconfigured flow name supplied by the operator.
	FlowType   string      `json:"flowType,omitempty"`
	Remittance *Remittance `json:"remittance,omitempty"`
}

// Recurrence describes a recurring authorization.
type Recurrence struct {
	StartDate         EpochMillis `json:"startDate,omitempty"`
	EndDate           EpochMillis `json:"endDate,omitempty"`
	Frequency         int         `json:"frequency,omitempty"`
	FrequencyUnit     int         `json:"frequencyUnit,omitempty"`
	FrequencyUnitType int         `json:"frequencyUnitType,omitempty"`
	RecurringAmount   Amount      `json:"recurringAmount,omitempty"`
	AutomaticCapture  bool        `json:"automaticCapture,omitempty"`
}

// EstablishVerify is the verification object of establish data.
type EstablishVerify struct {
	Status         int  `json:"status,omitempty"`
	VerifyCustomer bool `json:"verifyCustomer,omitempty"`
}

type establishAlias EstablishData

// MarshalJSON writes PaymentType as its name ("Deferred"), as the service
// expects in establish data. Like the signature, the payload leaves out a
// customer.vip of 0 (a numeric zero is never sent in establish data; use
// the customer update call to remove a VIP tier).
func (d EstablishData) MarshalJSON() ([]byte, error) {
	if c := d.Customer; c != nil && c.VIP != nil && *c.VIP == 0 {
		cc := *c
		cc.VIP = nil
		d.Customer = &cc
	}
	return json.Marshal(struct {
		establishAlias
		PaymentType string `json:"paymentType,omitempty"`
	}{establishAlias(d), paytype.Name(d.PaymentType)})
}
