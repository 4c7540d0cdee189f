package contract

import (
	"fmt"
	"regexp"

	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// Where a difference is seen.
const (
	InRequest = "request" // a request the SDK sends
	InAnswer  = "answer"  // how generated answers are made or read
	InSandbox = "sandbox" // an answer or a notification of bankpaytest
	InWebhook = "webhook" // a notification
)

// Difference is one deliberate difference between the SDK (or its sandbox)
// and the operator's OpenAPI. Each is written in docs/wire.md, in the table
// row whose first cell is Wire.
type Difference struct {
	// ID names the difference in test output.
	ID string
	// Wire is the first cell of its docs/wire.md row, as written there
	// ("Deposit request body").
	Wire string
	// Where is InRequest, InAnswer, InSandbox or InWebhook.
	Where string
	// Ops are the operationIds (or webhook event names) it applies to; "*"
	// is every one.
	Ops []string
	// Match is matched against a validation error as Describe writes it.
	Match *regexp.Regexp
	// Reshape, for an answer, names an object the SDK reads into fields of
	// the object holding it: at the (generalised) JSON path Path, the
	// object's field k is compared with the holder's field Into[k].
	Reshape *Reshape
}

// Reshape is where the SDK puts the fields of an object it flattens.
type Reshape struct {
	Path string
	Into map[string]string
}

// formBody is a form-encoded body where the OpenAPI says JSON.
var formBody = regexp.MustCompile(`^requestBody/contentType: POST operation request content type 'application/x-www-form-urlencoded' does not exist`)

// AllowList is every deliberate difference. A validation error is excused
// only by a row of this table; a row no run uses is stale.
var AllowList = []Difference{
	// Requests: what the SDK writes (the spec's shape) where the OpenAPI says otherwise.
	{ID: "deposit-form", Wire: "Deposit request body", Where: InRequest,
		Ops: []string{"transactions_post-transactions-deposit"}, Match: formBody},
	{ID: "capture-form", Wire: "Capture request body", Where: InRequest,
		Ops: []string{"transactions_post-transactions-transactionId-capture"}, Match: formBody},
	{ID: "preauth-form", Wire: "PreAuthorize request body", Where: InRequest,
		Ops: []string{"transactions_post-transactions-transactionId-capture-preauth"}, Match: formBody},
	{ID: "capture-splittoken-optional", Wire: "Capture `splitToken`, `interactionId`", Where: InRequest,
		Ops:   []string{"transactions_post-transactions-transactionId-capture"},
		Match: regexp.MustCompile(`^form body as JSON: schema/ at : missing property 'splitToken'$`)},
	{ID: "capture-remittance", Wire: "Capture `metadata.remittance.countryCorridor`, `accountLastFour`", Where: InRequest,
		Ops:   []string{"transactions_post-transactions-transactionId-capture"},
		Match: regexp.MustCompile(`^form body as JSON: strict/undeclared-property: form field "metadata\.remittance\.(countryCorridor|accountLastFour)" at `)},
	{ID: "vip-integer", Wire: "`customer.vip` (customer update, tokenize, establish requests)", Where: InRequest,
		Ops:   []string{"transactions_post-establish", "customers_post-customers", "customers_post-customers-customerId"},
		Match: regexp.MustCompile(`^requestBody/schema at \$(\.customer)?\.vip: got number, want string$`)},
	{ID: "kyctype-integer", Wire: "Establish `kycType` (request)", Where: InRequest,
		Ops: []string{"transactions_post-establish"}, Match: regexp.MustCompile(`^requestBody/schema at \$\.kycType: got number, want string$`)},
	{ID: "account-type-integer", Wire: "Establish `account.type` (request)", Where: InRequest,
		Ops: []string{"transactions_post-establish"}, Match: regexp.MustCompile(`^requestBody/schema at \$\.account\.type: got number, want string$`)},
	{ID: "tokenize-account-type", Wire: "Tokenize request `account.type`", Where: InRequest,
		Ops:   []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Match: regexp.MustCompile(`^strict/undeclared-property: request property 'type' at '\$\.body\.account\.type' is not declared`)},
	{ID: "tokenize-customer", Wire: "Tokenize request `customer`", Where: InRequest,
		Ops:   []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Match: regexp.MustCompile(`^strict/undeclared-property: request property 'customer' at '\$\.body\.customer' is not declared`)},
	{ID: "establish-devicetype", Wire: "Establish `deviceType` (request)", Where: InRequest,
		Ops:   []string{"transactions_post-establish"},
		Match: regexp.MustCompile(`^strict/undeclared-property: request property 'deviceType' at '\$\.body\.deviceType' is not declared`)},
	{ID: "customer-update-vip-only", Wire: "Customer update with `vip` and not the whole record", Where: InRequest,
		Ops:   []string{"customers_post-customers", "customers_post-customers-customerId"},
		Match: regexp.MustCompile(`^requestBody/schema at : missing properties ('name', )?'address', 'phone', 'email'$`)},
	{ID: "feedback-wrapped", Wire: "Feedback request body (Identity Register, Void)", Where: InRequest,
		Ops:   []string{"identity_post-transaction-feedback"},
		Match: regexp.MustCompile(`^strict/undeclared-property: request property 'feedback' at '\$\.body\.feedback' is not declared`)},

	// Webhooks.
	{ID: "webhook-numeric-codes", Wire: "`paymentType`, `transactionType`, `status`", Where: InWebhook, Ops: []string{"*"},
		Match: regexp.MustCompile(`^codes: `)},
	{ID: "webhook-json-escapes", Wire: "Body", Where: InWebhook, Ops: []string{"*"},
		Match: regexp.MustCompile(`^json: a body holding "%" whose signature covers it URL-decoded is read URL-decoded$`)},
	{ID: "webhook-json-eventid-plus", Wire: "Body", Where: InWebhook, Ops: []string{"*"},
		Match: regexp.MustCompile(`^json: eventId read as signed \("\+" as a space\)$`)},
	{ID: "webhook-form-ampersand", Wire: "Body", Where: InWebhook, Ops: []string{"*"},
		Match: regexp.MustCompile(`^form: a value holds "&" then "=": the URL-decoded body the signature covers reads it as two fields$`)},

	// The sandbox's answers (array indexes written []), in both shapes.
	{ID: "sandbox-integer-codes", Wire: "Sandbox: codes and tiers as integers", Where: InSandbox, Ops: []string{"*"},
		Match: regexp.MustCompile(`^response/schema at \$[\w.\[\]]*\.(status|transactionType|paymentType|type|profile|score|result|source|vip): got number, want string$`)},
	{ID: "sandbox-transaction-fields", Wire: "Sandbox: `Transaction` fields left out", Where: InSandbox, Ops: transactionOps,
		Match: regexp.MustCompile(`^response/schema at (\$\.transactions\[\])?: missing properties 'pending', ('paid', )?'refunded', 'reversed', ('balance', )?'ip'(, 'processedAt', 'completedAt')?$`)},
	{ID: "sandbox-payment-fields", Wire: "Sandbox: `Payment` fields left out", Where: InSandbox,
		Ops: append([]string{"payments_get-payments", "payments_list-payments"}, transactionOps...),
		Match: regexp.MustCompile(`^response/schema at ` +
			`((\$(\.transactions\[\])?\.payment): missing properties 'merchant', 'merchantReference', 'fingerprint', 'verification', 'allowedPaymentProviderType', 'auth', 'authorization', 'authorizationStatus', 'authorizationStatusMessage', 'pending', 'paid', 'refunded', 'reversed', 'balance', 'createdAt', 'updatedAt', 'recordVersion', 'paymentFlow'` +
			`|(\$\.payments\[\])?: missing properties 'merchant', 'fingerprint', 'verification', 'allowedPaymentProviderType', 'auth', 'authorization', 'paymentFlow'` +
			`|\$(\.payments\[\])?\.customer: missing properties 'name', 'address', 'phone', 'email')$`)},
	{ID: "sandbox-has-enough-funds", Wire: "Sandbox: `verification.hasEnoughFunds` left out", Where: InSandbox,
		Ops:   []string{"accounts_get-accounts-verify", "accountData_list-selected-accounts"},
		Match: regexp.MustCompile(`^response/schema at \$(\.accounts\[\])?\.verification: missing property 'hasEnoughFunds'$`)},
	{ID: "sandbox-tokenize-echo", Wire: "Tokenize response", Where: InSandbox, Ops: []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Match: regexp.MustCompile(`^response/schema at : missing properties 'name', 'type', 'profile', 'verification', 'accountNumber', 'token', 'verified'$`)},
	{ID: "sandbox-establish-transaction", Wire: "Establish response", Where: InSandbox, Ops: []string{"transactions_post-establish"},
		Match: regexp.MustCompile(`^(strict/undeclared-property: response property '(createdAt|payment|paymentProviderTransaction|ppTrxId|recordVersion|status|statusMessage|transactionType|updatedAt)' at '\$\.body\.\w+' is not declared` +
			`|response/schema at : missing property 'url'$)`)},
	{ID: "sandbox-feedback-echo", Wire: "Feedback response", Where: InSandbox, Ops: []string{"identity_post-transaction-feedback"},
		Match: regexp.MustCompile(`^response/schema at : missing properties 'transactionId', 'transactionType', 'payment', 'currency', 'amount', 'pending', 'paid', 'refunded', 'reversed', 'balance', 'paymentProviderTransaction', 'statusMessage', 'ip', 'createdAt', 'processedAt', 'completedAt', 'updatedAt', 'merchantReference', 'recordVersion'$`)},
	{ID: "sandbox-attribute-source", Wire: "`detail.attribute[].source`", Where: InSandbox, Ops: []string{"identity_get-trustly-id-user-details"},
		Match: regexp.MustCompile(`^response/schema at \$\.detail\.attribute\[\]\.source: got string, want object$`)},
	{ID: "sandbox-errors", Wire: "Sandbox: statuses and error bodies the OpenAPI does not declare", Where: InSandbox, Ops: []string{"*"},
		Match: regexp.MustCompile(`^(response/statusCode: GET operation request response code '404' does not exist` +
			`|strict/undeclared-property: response property 'errors' at '\$\.body\.errors' is not declared)`)},

	{ID: "sandbox-event-types", Wire: "Types", Where: InSandbox, Ops: []string{"*"},
		Match: regexp.MustCompile(`^event type "(Process|Refund|Reverse|Cancel|Deny|Reconcile|IdentityVerificationDataRetrieved|CustomerIdentityVerified)" is not in the OpenAPI$`)},
	{ID: "sandbox-event-fields", Wire: "Sandbox: notification fields the OpenAPI's event schema does not list", Where: InSandbox, Ops: []string{"*"},
		Match: regexp.MustCompile(`^strict/undeclared-property: event field "(accessId|merchantReference|parentObjectId|paymentProviderTransaction\.status|paymentProviderTransaction\.statusMessage)" at `)},

	// Answers: how the SDK reads what the OpenAPI allows.
	{ID: "number-whole", Wire: "whole numbers generally", Where: InAnswer, Ops: []string{"*"}},
	{ID: "attribute-source", Wire: "`detail.attribute[].source`", Where: InAnswer,
		Ops:     []string{"identity_get-trustly-id-user-details"},
		Reshape: &Reshape{Path: "detail.attribute[].source", Into: map[string]string{"name": "source", "type": "sourceType"}}},
}

// transactionOps answer a Transaction.
var transactionOps = []string{"transactions_get-transaction", "transactions_list-transactions", "transactions_post-transactions-deposit",
	"transactions_post-transactions-transactionId-capture", "transactions_post-transactions-transactionId-capture-preauth",
	"transactions_post-transactions-refund", "transactions_post-transactions-cancel", "transactions_post-transactions-transactionId-reclaim",
	"disputeManagement_post-dispute-recovery", "identity_post-transaction-feedback"}

// Row returns the row of AllowList with the given ID, or nil.
func Row(id string) *Difference {
	for i := range AllowList {
		if AllowList[i].ID == id {
			return &AllowList[i]
		}
	}
	return nil
}

// Describe writes a validation error as one line per difference: its kind
// and message, or, for a schema failure, its kind, the field's JSON path and
// the reason ("requestBody/schema at $.kycType: got number, want string").
func Describe(e *verrors.ValidationError) []string {
	kind := e.ValidationType + "/" + e.ValidationSubType
	if len(e.SchemaValidationErrors) == 0 {
		line := kind + ": " + e.Message
		if e.Reason != "" {
			line += "; " + e.Reason
		}
		return []string{line}
	}
	out := make([]string, 0, len(e.SchemaValidationErrors))
	for _, f := range e.SchemaValidationErrors {
		out = append(out, fmt.Sprintf("%s at %s: %s", kind, f.FieldPath, f.Reason))
	}
	return out
}

// Excuse returns the row of AllowList that excuses the difference described
// by desc, seen where in operation op, or nil.
func Excuse(where, op, desc string) *Difference {
	for i := range AllowList {
		d := &AllowList[i]
		if d.Where != where || d.Match == nil || !d.Match.MatchString(desc) {
			continue
		}
		for _, o := range d.Ops {
			if o == op || o == "*" {
				return d
			}
		}
	}
	return nil
}
