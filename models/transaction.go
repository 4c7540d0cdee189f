package models

// Transaction is a transaction record as the service returns it: wrapped as
// {"transaction":…} in the spec, bare in the operator's OpenAPI (the SDK
// reads both; see docs/wire.md). An authorization (type 1), a deposit
// (type 6) or another kind. Codes are read from numbers, numeric strings
// or whole-valued floats.
//
// A response is read whatever the fields it cannot hold: its identity
// (TransactionID, TransactionType, Status, Amount: tagged wire:"required")
// must decode, and any other field whose value the Go type cannot hold is
// left unset, as if not sent (logged at debug level with its JSON path,
// never its value); a field whose zero is a value either can say unset (a
// pointer) or leaves the object holding it unset (wire:"zero"). See
// docs/wire.md, "How responses are read".
type Transaction struct {
	TransactionID              string                      `json:"transactionId" wire:"required"`
	TransactionType            TransactionType             `json:"transactionType" wire:"required"`
	OriginalTransactionID      string                      `json:"originalTransactionId,omitempty"`
	Payment                    *Payment                    `json:"payment,omitempty"`
	Currency                   Currency                    `json:"currency,omitempty"`
	Amount                     Amount                      `json:"amount,omitempty" wire:"required"`
	PaymentProviderTransaction *PaymentProviderTransaction `json:"paymentProviderTransaction,omitempty"`
	Status                     TransactionStatus           `json:"status" wire:"required"`
	StatusMessage              string                      `json:"statusMessage,omitempty"`
	StatusCode                 string                      `json:"statusCode,omitempty"`
	CreatedAt                  EpochMillis                 `json:"createdAt,omitempty"`
	ProcessedAt                EpochMillis                 `json:"processedAt,omitempty"`
	CompletedAt                EpochMillis                 `json:"completedAt,omitempty"`
	UpdatedAt                  EpochMillis                 `json:"updatedAt,omitempty"`
	PPTrxID                    string                      `json:"ppTrxId,omitempty"`
	MerchantReference          string                      `json:"merchantReference,omitempty"`
	PaymentProcessorType       string                      `json:"paymentProcessorType,omitempty"`
	RecordVersion              int                         `json:"recordVersion,omitempty"`
	// Paid, Refunded and Balance are the OpenAPI's running totals of a
	// payment: what was collected, what was refunded of it, and what is
	// left (paid minus refunded, reclaimed or reversed), the most a Refund
	// or Reclaim may still take. Empty when the service does not send them.
	Paid     Amount `json:"paid,omitempty"`
	Refunded Amount `json:"refunded,omitempty"`
	Balance  Amount `json:"balance,omitempty"`
	// ExpiredAt is when a preauthorization (type 10) lapses.
	ExpiredAt EpochMillis `json:"expiredAt,omitempty"`
	// PreAuthorized reports a preauthorization in force.
	PreAuthorized bool `json:"preAuthorized,omitempty"`
	// URL is the address of the bank authorization flow for the user; the
	// OpenAPI shows it in the establish response only.
	URL string `json:"url,omitempty"`
}

// Payment is a payment: the authorization a user gave and what was paid
// under it. It is the payment part of a transaction, and the resource
// Payments.Get and Payments.List read (GET /payments). The fields after
// PaymentProvider are the OpenAPI's Payment schema; the service fills them
// on the payments resource (a transaction's payment may leave them empty).
type Payment struct {
	PaymentID       string           `json:"paymentId,omitempty"`
	PaymentType     PaymentType      `json:"paymentType,omitempty"`
	MerchantID      string           `json:"merchantId,omitempty"`
	ReturnURL       string           `json:"returnUrl,omitempty"`
	CancelURL       string           `json:"cancelUrl,omitempty"`
	Amount          Amount           `json:"amount,omitempty"`
	Currency        Currency         `json:"currency,omitempty"`
	Account         *PaymentAccount  `json:"account,omitempty"`
	PaymentProvider *PaymentProvider `json:"paymentProvider,omitempty"`

	// MerchantReference is the merchant's reference of the authorization.
	MerchantReference string `json:"merchantReference,omitempty"`
	// Description is the order description of the establish data.
	Description string `json:"description,omitempty"`
	// AuthorizationStatus and AuthorizationStatusMessage are the status of
	// the payment's bank authorization (a transaction status code); nil
	// when the service does not send it (a status 0 is New).
	AuthorizationStatus        *TransactionStatus `json:"authorizationStatus,omitempty"`
	AuthorizationStatusMessage string             `json:"authorizationStatusMessage,omitempty"`
	// Pending is the total still pending completion, Paid the total paid,
	// Refunded and Reversed the totals refunded and reversed, and Balance
	// what was paid minus what was reversed or refunded.
	Pending  Amount `json:"pending,omitempty"`
	Paid     Amount `json:"paid,omitempty"`
	Refunded Amount `json:"refunded,omitempty"`
	Reversed Amount `json:"reversed,omitempty"`
	Balance  Amount `json:"balance,omitempty"`
	// Customer is the customer of the payment.
	Customer      *Customer   `json:"customer,omitempty"`
	CreatedAt     EpochMillis `json:"createdAt,omitempty"`
	UpdatedAt     EpochMillis `json:"updatedAt,omitempty"`
	RecordVersion int         `json:"recordVersion,omitempty"`
}

// PaymentAccount is the bank account of a payment. In the get-transaction
// response AccountNumber holds the last 4 digits only. Type 0 is Other:
// a type the SDK cannot read leaves the whole account unset (wire:"zero").
type PaymentAccount struct {
	Name          string `json:"name,omitempty"`
	Type          int    `json:"type,omitempty" wire:"zero"`
	AccountNumber string `json:"accountNumber,omitempty"`
	RoutingNumber string `json:"routingNumber,omitempty"`
	Verified      bool   `json:"verified,omitempty"`
}

// PaymentProvider is the financial institution of a payment or of a
// beneficiary account. The service fills the first four fields on
// transactions; a merchant fills the next four for a money transfer. The
// last three come with the list of payment providers only.
type PaymentProvider struct {
	PaymentProviderID      string `json:"paymentProviderId,omitempty" url:"-"`
	Type                   int    `json:"type,omitempty" url:"-"` // 1: Online Banking
	InstantPayoutAvailable bool   `json:"instantPayoutAvailable,omitempty" url:"-"`
	Name                   string `json:"name,omitempty" url:"name,omitempty"`
	Country                string `json:"country,omitempty" url:"country,omitempty"`
	Swift                  string `json:"swift,omitempty" url:"swift,omitempty"`
	RoutingNumber          string `json:"routingNumber,omitempty" url:"routingNumber,omitempty"`
	// SubType is "1000" (online banking), "2000" (manual entry) or "2001"
	// (manual entry with challenge deposit).
	SubType string `json:"subType,omitempty" url:"-"`
	// InstantPayment reports whether the provider supports instant payments.
	InstantPayment bool     `json:"instantPayment,omitempty" url:"-"`
	Address        *Address `json:"address,omitempty" url:"-"`
}

// PaymentProviderTransaction is the bank-side part of a transaction.
type PaymentProviderTransaction struct {
	PaymentProviderTransactionID string            `json:"paymentProviderTransactionId,omitempty"`
	Status                       ProviderStatus    `json:"status,omitempty"` // SW010 Established, AC100…; the spec shows 10
	StatusMessage                string            `json:"statusMessage,omitempty"`
	InstantSettle                *bool             `json:"instantSettle,omitempty"`
	PaymentProcessor             *PaymentProcessor `json:"paymentProcessor,omitempty"`
}

// PaymentProcessor names the processor of a provider transaction.
type PaymentProcessor struct {
	PaymentProcessorID string `json:"paymentProcessorId,omitempty"`
}
