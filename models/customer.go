package models

// Customer is the end user as the merchant knows them. It is sent in
// establish data and in customer updates; name and address are required for
// money transfer, externalId for VIP tiers.
type Customer struct {
	CustomerID    string         `json:"customerId,omitempty" url:"customerId,omitempty"`
	ExternalID    string         `json:"externalId,omitempty" url:"externalId,omitempty"`
	Name          string         `json:"name,omitempty" url:"name,omitempty"`
	Email         string         `json:"email,omitempty" url:"email,omitempty"`
	Phone         string         `json:"phone,omitempty" url:"phone,omitempty"`
	DateOfBirth   string         `json:"dateOfBirth,omitempty" url:"dateOfBirth,omitempty"`
	TaxID         string         `json:"taxId,omitempty" url:"taxId,omitempty"`
	DriverLicense *DriverLicense `json:"driverLicense,omitempty" url:"driverLicense,omitempty"`
	Address       *Address       `json:"address,omitempty" url:"address,omitempty"`
	// VIP is the VIP tier: nil leaves it unset, 0 means not VIP, 1 and up are tiers.
	// A response may write it as a number or a numeric string (whole floats
	// too); the OpenAPI types it as a free string.
	VIP *int `json:"vip,omitempty" url:"vip,omitempty"`
	// VIPText is customer.vip as received when a response writes it as a
	// value that is not a whole number ("gold", "low-risk", 2.5, true): VIP
	// is then nil (never a tier guessed from the text), and VIPText keeps
	// the text so that nothing the service sent is lost. It is empty when
	// VIP holds the value, and it is never sent.
	VIPText      string `json:"-" url:"-" wire:"text=vip"`
	Balance      Amount `json:"balance,omitempty" url:"balance,omitempty"`
	Currency     string `json:"currency,omitempty" url:"currency,omitempty"`
	EnrollDate   string `json:"enrollDate,omitempty" url:"enrollDate,omitempty"`
	ExternalTier string `json:"externalTier,omitempty" url:"externalTier,omitempty"`
	// MerchantID, CreatedAt and UpdatedAt are set in the responses of the
	// customer calls (OpenAPI); leave them empty in requests.
	MerchantID string      `json:"merchantId,omitempty" url:"-"`
	CreatedAt  EpochMillis `json:"createdAt,omitempty" url:"-"`
	UpdatedAt  EpochMillis `json:"updatedAt,omitempty" url:"-"`
}

// Beneficiary is the receiver of a money transfer (modelled on Customer):
// name and address.country are required.
type Beneficiary struct {
	Name        string   `json:"name,omitempty" url:"name,omitempty"`
	Address     *Address `json:"address,omitempty" url:"address,omitempty"`
	DateOfBirth string   `json:"dateOfBirth,omitempty" url:"dateOfBirth,omitempty"`
	TaxID       string   `json:"taxId,omitempty" url:"taxId,omitempty"`
}

// BeneficiaryAccount is the account a money transfer pays into. One of IBAN,
// PaymentProvider.RoutingNumber or PaymentProvider.Swift is recommended.
type BeneficiaryAccount struct {
	AccountNumber   string           `json:"accountNumber,omitempty" url:"accountNumber,omitempty"`
	IBAN            string           `json:"iban,omitempty" url:"iban,omitempty"`
	PaymentProvider *PaymentProvider `json:"paymentProvider,omitempty" url:"paymentProvider,omitempty"`
}

// Address is a postal address. Country is an ISO 3166 code.
type Address struct {
	Address1 string `json:"address1,omitempty" url:"address1,omitempty"`
	Address2 string `json:"address2,omitempty" url:"address2,omitempty"`
	City     string `json:"city,omitempty" url:"city,omitempty"`
	State    string `json:"state,omitempty" url:"state,omitempty"`
	Zip      string `json:"zip,omitempty" url:"zip,omitempty"`
	Country  string `json:"country,omitempty" url:"country,omitempty"`
}

// DriverLicense is a driver licence number and its issuing state.
type DriverLicense struct {
	Number string `json:"number,omitempty" url:"number,omitempty"`
	State  string `json:"state,omitempty" url:"state,omitempty"`
}

// Remittance is the remittance data of a money transfer (metadata.remittance).
type Remittance struct {
	// WithdrawalMethod is one of the Withdrawal* constants.
	WithdrawalMethod string `json:"withdrawalMethod,omitempty" url:"withdrawalMethod,omitempty"`
	// CountryCorridor is the destination country, ISO 3166 alpha-2.
	CountryCorridor string `json:"countryCorridor,omitempty" url:"countryCorridor,omitempty"`
	// AccountLastFour is the last four digits of the account for BankDeposit
	// and DebitCard withdrawals.
	AccountLastFour string `json:"accountLastFour,omitempty" url:"accountLastFour,omitempty"`
}

// Withdrawal methods of a remittance.
const (
	WithdrawalBankDeposit   = "BankDeposit"
	WithdrawalCash          = "Cash"
	WithdrawalDebitCard     = "DebitCard"
	WithdrawalDigitalWallet = "DigitalWallet"
	WithdrawalHomeDelivery  = "HomeDelivery"
)
