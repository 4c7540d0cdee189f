package models

// Account is a bank account as sent to and returned by tokenize and the
// Disbursement establish call, and as returned by the balance, account
// verify and selected-accounts calls. Type and Profile are -1 (Unknown),
// 0 (Other), 1 (Checking; Personal) or 2 (Savings; Business): since 0 is a
// value, a type or profile the SDK cannot read leaves the whole account
// unset in a response (wire:"zero").
type Account struct {
	NameOnAccount   string           `json:"nameOnAccount,omitempty"`
	Name            string           `json:"name,omitempty"`
	Type            int              `json:"type,omitempty" wire:"zero"`
	Profile         int              `json:"profile,omitempty" wire:"zero"`
	AccountNumber   string           `json:"accountNumber,omitempty"`
	RoutingNumber   string           `json:"routingNumber,omitempty"`
	IBAN            string           `json:"iban,omitempty"`
	ProviderID      string           `json:"providerId,omitempty"`
	PaymentProvider *PaymentProvider `json:"paymentProvider,omitempty"`
	Verified        bool             `json:"verified,omitempty"`
	Token           string           `json:"token,omitempty"`
	Verification    *Verification    `json:"verification,omitempty"`
	// AccountID and Country are shown by the OpenAPI in tokenize and
	// balance responses.
	AccountID string `json:"accountId,omitempty"`
	Country   string `json:"country,omitempty"`
	// AccountNumberLastFour is the last 4 digits of the real account
	// number, and VirtualAccountRoutingPair whether AccountNumber and
	// RoutingNumber are virtual (tokenized) numbers; both are shown by the
	// OpenAPI in the selected-accounts response.
	AccountNumberLastFour     string `json:"accountNumberLastFour,omitempty"`
	VirtualAccountRoutingPair bool   `json:"virtualAccountRoutingPair,omitempty"`
}

// Verification is the result of an account verification. The spec writes
// type, score and thirdPartyScore as integers, the OpenAPI as numeric
// strings ("3"); both decode into the integers here.
//
// Verified false means "not verified": a value the SDK cannot read leaves
// the whole verification unset (wire:"zero").
type Verification struct {
	Verified bool `json:"verified" wire:"zero"`
	// Type is 3 (Database) for tokenize.
	Type int `json:"type,omitempty"`
	// Score is 0 to 10.
	Score *int `json:"score,omitempty"`
	// ThirdPartyScore is 0 to 999, present only when a third-party
	// verification service was used.
	ThirdPartyScore  *int        `json:"thirdPartyScore,omitempty"`
	VerificationDate EpochMillis `json:"verificationDate,omitempty"`
	HasEnoughFunds   *bool       `json:"hasEnoughFunds,omitempty"`
}

// AccountBalance is the response of the account balance call.
type AccountBalance struct {
	Account *Account `json:"account"`
	// Amount is the current balance of the account.
	Amount Amount `json:"amount,omitempty"`
	// Available is the balance available for withdrawal (after pending
	// transactions).
	Available Amount `json:"available,omitempty"`
	// Currency is the currency of Amount and Available.
	Currency Currency `json:"currency,omitempty"`
}

// BankUser is the personal data the user's bank holds, from the account-level
// user call: every field is a list because banks hold several. The
// OpenAPI gives the items of name, phone and email no type: each item is
// kept as text whatever its shape, a string as is, a number or boolean as
// written, an object or array as its compact JSON
// (`{"value":"jane@example.com","type":"home"}`).
type BankUser struct {
	Name    []string  `json:"name" wire:"anytext"`
	Address []Address `json:"address"`
	Phone   []string  `json:"phone" wire:"anytext"`
	Email   []string  `json:"email" wire:"anytext"`
	// SegmentedName, CreatedAt and UpdatedAt are shown by the OpenAPI
	// (segmentedName when the call expands it).
	SegmentedName *SegmentedName `json:"segmentedName,omitempty"`
	CreatedAt     EpochMillis    `json:"createdAt,omitempty"`
	UpdatedAt     EpochMillis    `json:"updatedAt,omitempty"`
}

// SegmentedName is a name split into its parts.
type SegmentedName struct {
	Title      string   `json:"title,omitempty"`
	FirstName  string   `json:"firstName,omitempty"`
	MiddleName []string `json:"middleName,omitempty"`
	LastName   string   `json:"lastName,omitempty"`
	Suffix     string   `json:"suffix,omitempty"`
}

// AccountSummary is the cash-flow response: one entry per account, each with
// aggregations over 7, 30 and 90 days. It is not wrapped on the wire.
type AccountSummary struct {
	CustomerID  string         `json:"customerId"`
	LastUpdated EpochMillis    `json:"lastUpdated"`
	Summary     []AccountEntry `json:"summary"`
}

// AccountEntry is one account of an account summary.
type AccountEntry struct {
	SelectedAccount bool          `json:"selectedAccount"`
	Currency        Currency      `json:"currency"`
	NameOnAccount   string        `json:"nameOnAccount"`
	AccountNumber   string        `json:"accountNumber"`
	RoutingNumber   string        `json:"routingNumber"`
	Aggregations    []Aggregation `json:"aggregations"`
}

// Aggregation is the activity of one account over Days days (7, 30 or 90).
type Aggregation struct {
	Days                  int         `json:"days"`
	ActivityEarliestDate  EpochMillis `json:"activityEarliestDate"`
	ActivityLatestDate    EpochMillis `json:"activityLatestDate"`
	BalanceMax            Amount      `json:"balanceMax"`
	BalanceMin            Amount      `json:"balanceMin"`
	BalanceAvg            Amount      `json:"balanceAvg"`
	DepositCount          int         `json:"depositCount"`
	DepositAmountTotal    Amount      `json:"depositAmountTotal"`
	DepositAmountMax      Amount      `json:"depositAmountMax"`
	WithdrawalCount       int         `json:"withdrawalCount"`
	WithdrawalAmountTotal Amount      `json:"withdrawalAmountTotal"`
	WithdrawalAmountMax   Amount      `json:"withdrawalAmountMax"`
	OverdraftCount        int         `json:"overdraftCount"`
	OverdraftAmountTotal  Amount      `json:"overdraftAmountTotal"`
	NSFCount              int         `json:"nsfCount"`
	NSFFeeAmountTotal     Amount      `json:"nsfFeeAmountTotal"`
}

// Aggregation returns the entry's aggregation over days days, or nil.
func (e *AccountEntry) Aggregation(days int) *Aggregation {
	for i := range e.Aggregations {
		if e.Aggregations[i].Days == days {
			return &e.Aggregations[i]
		}
	}
	return nil
}

// Tokenization is the wire shape of the tokenize request and response (not wrapped): the
// submitted data echoed, with account.token and account.verification added.
type Tokenization struct {
	MerchantID string    `json:"merchantId"`
	Account    *Account  `json:"account"`
	Customer   *Customer `json:"customer,omitempty"`
}
