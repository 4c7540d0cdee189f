package contract

import (
	"fmt"
	"slices"
	"strings"

	verrors "github.com/pb33f/libopenapi-validator/errors"
)

// Where a difference is seen.
const (
	InRequest = "request" // a request the SDK sends
	InAnswer  = "answer"  // how generated answers are made or read
	InSandbox = "sandbox" // an answer or a notification of bankpaytest
	// InSandboxSpec is an answer of bankpaytest in the spec's shape (its
	// default) only: with WithBareResponses, the OpenAPI's shape, it must
	// not occur.
	InSandboxSpec = "sandbox (spec's shape)"
	InWebhook     = "webhook" // a notification
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
	// Where is InRequest, InAnswer, InSandbox, InSandboxSpec or InWebhook.
	Where string
	// Ops are the operationIds (or webhook event names) it applies to
	// (none for a number-whole row: it names a property of a schema,
	// wherever the schema is used).
	Ops []string
	// Line is the one difference it excuses, exactly as Describe writes
	// it (array indexes written []): one property or one value, never a
	// pattern.
	Line string
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

// AllowList is every deliberate difference, one row per difference: a
// validation error is excused only by the row whose Line is that error
// exactly; a row no run uses is stale.
var AllowList = []Difference{
	{ID: "establish-devicetype/deviceType", Wire: "Establish `deviceType` (request)", Where: InRequest,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: request property 'deviceType' at '$.body.deviceType' is not declared in schema`},

	{ID: "account-type-integer/account.type", Wire: "Establish `account.type` (request)", Where: InRequest,
		Ops:  []string{"transactions_post-establish"},
		Line: `requestBody/schema at $.account.type: got number, want string`},

	{ID: "kyctype-integer/kycType", Wire: "Establish `kycType` (request)", Where: InRequest,
		Ops:  []string{"transactions_post-establish"},
		Line: `requestBody/schema at $.kycType: got number, want string`},

	{ID: "vip-integer/customer.vip", Wire: "`customer.vip` (customer update, tokenize, establish requests)", Where: InRequest,
		Ops:  []string{"transactions_post-establish"},
		Line: `requestBody/schema at $.customer.vip: got number, want string`},

	{ID: "deposit-form", Wire: "Deposit request body", Where: InRequest,
		Ops:  []string{"transactions_post-transactions-deposit"},
		Line: `requestBody/contentType: POST operation request content type 'application/x-www-form-urlencoded' does not exist; The content type 'application/x-www-form-urlencoded' of the POST request submitted has not been defined, it's an unknown type`},

	{ID: "capture-form", Wire: "Capture request body", Where: InRequest,
		Ops:  []string{"transactions_post-transactions-transactionId-capture"},
		Line: `requestBody/contentType: POST operation request content type 'application/x-www-form-urlencoded' does not exist; The content type 'application/x-www-form-urlencoded' of the POST request submitted has not been defined, it's an unknown type`},

	{ID: "capture-splittoken-optional/splitToken", Wire: "Capture `splitToken`, `interactionId`", Where: InRequest,
		Ops:  []string{"transactions_post-transactions-transactionId-capture"},
		Line: `form body as JSON: schema/ at : missing property 'splitToken'`},

	{ID: "capture-remittance/metadata.remittance.accountLastFour", Wire: "Capture `metadata.remittance.countryCorridor`, `accountLastFour`", Where: InRequest,
		Ops:  []string{"transactions_post-transactions-transactionId-capture"},
		Line: `form body as JSON: strict/undeclared-property: form field "metadata.remittance.accountLastFour" at $.body['metadata.remittance.accountLastFour'] is not declared`},
	{ID: "capture-remittance/metadata.remittance.countryCorridor", Wire: "Capture `metadata.remittance.countryCorridor`, `accountLastFour`", Where: InRequest,
		Ops:  []string{"transactions_post-transactions-transactionId-capture"},
		Line: `form body as JSON: strict/undeclared-property: form field "metadata.remittance.countryCorridor" at $.body['metadata.remittance.countryCorridor'] is not declared`},

	{ID: "tokenize-customer/customer", Wire: "Tokenize request `customer`", Where: InRequest,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `strict/undeclared-property: request property 'customer' at '$.body.customer' is not declared in schema`},

	{ID: "tokenize-account-type/account.type", Wire: "Tokenize request `account.type`", Where: InRequest,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `strict/undeclared-property: request property 'type' at '$.body.account.type' is not declared in schema`},

	{ID: "feedback-wrapped/feedback", Wire: "Feedback request body (Identity Register, Void)", Where: InRequest,
		Ops:  []string{"identity_post-transaction-feedback"},
		Line: `strict/undeclared-property: request property 'feedback' at '$.body.feedback' is not declared in schema`},

	{ID: "customer-update-vip-only/name", Wire: "Customer update with `vip` and not the whole record", Where: InRequest,
		Ops:  []string{"customers_post-customers", "customers_post-customers-customerId"},
		Line: `requestBody/schema at : missing property 'name'`},
	{ID: "customer-update-vip-only/address", Wire: "Customer update with `vip` and not the whole record", Where: InRequest,
		Ops:  []string{"customers_post-customers", "customers_post-customers-customerId"},
		Line: `requestBody/schema at : missing property 'address'`},
	{ID: "customer-update-vip-only/phone", Wire: "Customer update with `vip` and not the whole record", Where: InRequest,
		Ops:  []string{"customers_post-customers", "customers_post-customers-customerId"},
		Line: `requestBody/schema at : missing property 'phone'`},
	{ID: "customer-update-vip-only/email", Wire: "Customer update with `vip` and not the whole record", Where: InRequest,
		Ops:  []string{"customers_post-customers", "customers_post-customers-customerId"},
		Line: `requestBody/schema at : missing property 'email'`},

	{ID: "vip-integer/vip", Wire: "`customer.vip` (customer update, tokenize, establish requests)", Where: InRequest,
		Ops:  []string{"customers_post-customers", "customers_post-customers-customerId"},
		Line: `requestBody/schema at $.vip: got number, want string`},

	{ID: "sandbox-tokenize-echo/name", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'name'`},
	{ID: "sandbox-tokenize-echo/type", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'type'`},
	{ID: "sandbox-tokenize-echo/profile", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'profile'`},
	{ID: "sandbox-tokenize-echo/verification", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'verification'`},
	{ID: "sandbox-tokenize-echo/accountNumber", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'accountNumber'`},
	{ID: "sandbox-tokenize-echo/token", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'token'`},
	{ID: "sandbox-tokenize-echo/verified", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at : missing property 'verified'`},

	{ID: "sandbox-integer-codes/profile", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"accounts_get-accounts-verify"},
		Line: `response/schema at $.profile: got number, want string`},
	{ID: "sandbox-integer-codes/type", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"accounts_get-accounts-verify"},
		Line: `response/schema at $.type: got number, want string`},

	{ID: "sandbox-has-enough-funds/verification.hasEnoughFunds", Wire: "Sandbox: `verification.hasEnoughFunds` left out", Where: InSandbox,
		Ops:  []string{"accounts_get-accounts-verify", "accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `response/schema at $.verification: missing property 'hasEnoughFunds'`},

	{ID: "sandbox-integer-codes/verification.type", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"accounts_get-accounts-verify"},
		Line: `response/schema at $.verification.type: got number, want string`},
	{ID: "sandbox-integer-codes/verification.score", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"accounts_get-accounts-verify"},
		Line: `response/schema at $.verification.score: got number, want string`},

	{ID: "sandbox-establish-transaction/url", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `response/schema at : missing property 'url'`},
	{ID: "sandbox-establish-transaction/createdAt", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'createdAt' at '$.body.createdAt' is not declared in schema`},
	{ID: "sandbox-establish-transaction/payment", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'payment' at '$.body.payment' is not declared in schema`},
	{ID: "sandbox-establish-transaction/paymentProviderTransaction", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'paymentProviderTransaction' at '$.body.paymentProviderTransaction' is not declared in schema`},
	{ID: "sandbox-establish-transaction/ppTrxId", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'ppTrxId' at '$.body.ppTrxId' is not declared in schema`},
	{ID: "sandbox-establish-transaction/recordVersion", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'recordVersion' at '$.body.recordVersion' is not declared in schema`},
	{ID: "sandbox-establish-transaction/status", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'status' at '$.body.status' is not declared in schema`},
	{ID: "sandbox-establish-transaction/statusMessage", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'statusMessage' at '$.body.statusMessage' is not declared in schema`},
	{ID: "sandbox-establish-transaction/transactionType", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'transactionType' at '$.body.transactionType' is not declared in schema`},
	{ID: "sandbox-establish-transaction/updatedAt", Wire: "Establish response", Where: InSandboxSpec,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: response property 'updatedAt' at '$.body.updatedAt' is not declared in schema`},

	{ID: "sandbox-integer-codes/transactionType", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"disputeManagement_post-dispute-recovery", "identity_post-transaction-feedback", "transactions_get-transaction", "transactions_post-transactions-cancel", "transactions_post-transactions-deposit", "transactions_post-transactions-refund", "transactions_post-transactions-transactionId-capture", "transactions_post-transactions-transactionId-capture-preauth", "transactions_post-transactions-transactionId-reclaim"},
		Line: `response/schema at $.transactionType: got number, want string`},

	{ID: "sandbox-payment-fields/payment.paymentFlow", Wire: "Sandbox: `Payment.paymentFlow` left out", Where: InSandbox,
		Ops:  []string{"disputeManagement_post-dispute-recovery", "identity_post-transaction-feedback", "transactions_get-transaction", "transactions_post-transactions-cancel", "transactions_post-transactions-deposit", "transactions_post-transactions-refund", "transactions_post-transactions-transactionId-capture", "transactions_post-transactions-transactionId-capture-preauth", "transactions_post-transactions-transactionId-reclaim"},
		Line: `response/schema at $.payment: missing property 'paymentFlow'`},

	{ID: "sandbox-integer-codes/payment.paymentType", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"disputeManagement_post-dispute-recovery", "identity_post-transaction-feedback", "transactions_get-transaction", "transactions_post-transactions-cancel", "transactions_post-transactions-deposit", "transactions_post-transactions-refund", "transactions_post-transactions-transactionId-capture", "transactions_post-transactions-transactionId-capture-preauth", "transactions_post-transactions-transactionId-reclaim"},
		Line: `response/schema at $.payment.paymentType: got number, want string`},
	{ID: "sandbox-integer-codes/status", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"disputeManagement_post-dispute-recovery", "identity_post-transaction-feedback", "transactions_get-transaction", "transactions_post-transactions-cancel", "transactions_post-transactions-deposit", "transactions_post-transactions-refund", "transactions_post-transactions-transactionId-capture", "transactions_post-transactions-transactionId-capture-preauth", "transactions_post-transactions-transactionId-reclaim"},
		Line: `response/schema at $.status: got number, want string`},

	{ID: "sandbox-payment-fields/transactions[].payment.paymentFlow", Wire: "Sandbox: `Payment.paymentFlow` left out", Where: InSandbox,
		Ops:  []string{"transactions_list-transactions"},
		Line: `response/schema at $.transactions[].payment: missing property 'paymentFlow'`},

	{ID: "sandbox-integer-codes/transactions[].payment.paymentType", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"transactions_list-transactions"},
		Line: `response/schema at $.transactions[].payment.paymentType: got number, want string`},
	{ID: "sandbox-integer-codes/transactions[].transactionType", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"transactions_list-transactions"},
		Line: `response/schema at $.transactions[].transactionType: got number, want string`},
	{ID: "sandbox-integer-codes/transactions[].status", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"transactions_list-transactions"},
		Line: `response/schema at $.transactions[].status: got number, want string`},

	{ID: "sandbox-payment-fields/paymentFlow", Wire: "Sandbox: `Payment.paymentFlow` left out", Where: InSandbox,
		Ops:  []string{"payments_get-payments"},
		Line: `response/schema at : missing property 'paymentFlow'`},

	{ID: "sandbox-integer-codes/paymentType", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"payments_get-payments"},
		Line: `response/schema at $.paymentType: got number, want string`},

	{ID: "sandbox-payment-fields/payments[].paymentFlow", Wire: "Sandbox: `Payment.paymentFlow` left out", Where: InSandbox,
		Ops:  []string{"payments_list-payments"},
		Line: `response/schema at $.payments[]: missing property 'paymentFlow'`},

	{ID: "sandbox-integer-codes/payments[].paymentType", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"payments_list-payments"},
		Line: `response/schema at $.payments[].paymentType: got number, want string`},

	{ID: "sandbox-integer-codes/accountBalance.account.verification.type", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"accountData_get-transactions-account-balance"},
		Line: `response/schema at $.accountBalance.account.verification.type: got number, want string`},

	{ID: "sandbox-integer-codes/accounts[].verification.type", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"accountData_list-selected-accounts"},
		Line: `response/schema at $.accounts[].verification.type: got number, want string`},

	{ID: "sandbox-attribute-source/detail.attribute[].source", Wire: "`detail.attribute[].source`", Where: InSandboxSpec,
		Ops:  []string{"identity_get-trustly-id-user-details"},
		Line: `response/schema at $.detail.attribute[].source: got string, want object`},

	{ID: "sandbox-integer-codes/detail.verification[].result", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"identity_get-trustly-id-user-details"},
		Line: `response/schema at $.detail.verification[].result: got number, want string`},

	{ID: "sandbox-integer-codes/customer.vip", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"customers_post-customers", "customers_post-customers-customerId"},
		Line: `response/schema at $.customer.vip: got number, want string`},
	{ID: "sandbox-integer-codes/customers[].vip", Wire: "Sandbox: codes and tiers as integers", Where: InSandboxSpec,
		Ops:  []string{"customers_get-customers"},
		Line: `response/schema at $.customers[].vip: got number, want string`},

	{ID: "sandbox-errors", Wire: "Sandbox: statuses and error bodies the OpenAPI does not declare", Where: InSandbox,
		Ops:  []string{"transactions_get-transaction"},
		Line: `response/statusCode: GET operation request response code '404' does not exist; The response code '404' of the GET request submitted has not been defined, it's an unknown type`},
	{ID: "sandbox-errors/errors", Wire: "Sandbox: statuses and error bodies the OpenAPI does not declare", Where: InSandbox,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `strict/undeclared-property: response property 'errors' at '$.body.errors' is not declared in schema`},

	{ID: "sandbox-event-fields/accessId", Wire: "Sandbox: notification fields the OpenAPI's event schema does not list", Where: InSandbox,
		Ops:  []string{"Authorize", "Complete", "Refresh"},
		Line: `strict/undeclared-property: event field "accessId" at $.body.accessId is not declared`},
	{ID: "sandbox-event-fields/merchantReference", Wire: "Sandbox: notification fields the OpenAPI's event schema does not list", Where: InSandbox,
		Ops:  []string{"Authorize", "Complete", "Refresh"},
		Line: `strict/undeclared-property: event field "merchantReference" at $.body.merchantReference is not declared`},
	{ID: "sandbox-event-fields/paymentProviderTransaction.status", Wire: "Sandbox: notification fields the OpenAPI's event schema does not list", Where: InSandbox,
		Ops:  []string{"Authorize"},
		Line: `strict/undeclared-property: event field "paymentProviderTransaction.status" at $.body['paymentProviderTransaction.status'] is not declared`},
	{ID: "sandbox-event-fields/paymentProviderTransaction.statusMessage", Wire: "Sandbox: notification fields the OpenAPI's event schema does not list", Where: InSandbox,
		Ops:  []string{"Authorize"},
		Line: `strict/undeclared-property: event field "paymentProviderTransaction.statusMessage" at $.body['paymentProviderTransaction.statusMessage'] is not declared`},

	{ID: "sandbox-event-types/Process", Wire: "Types", Where: InSandbox,
		Ops:  []string{"Process"},
		Line: `event type "Process" is not in the OpenAPI`},

	{ID: "sandbox-event-fields/parentObjectId", Wire: "Sandbox: notification fields the OpenAPI's event schema does not list", Where: InSandbox,
		Ops:  []string{"Complete"},
		Line: `strict/undeclared-property: event field "parentObjectId" at $.body.parentObjectId is not declared`},

	{ID: "sandbox-event-types/Refund", Wire: "Types", Where: InSandbox,
		Ops:  []string{"Refund"},
		Line: `event type "Refund" is not in the OpenAPI`},
	{ID: "sandbox-event-types/Reverse", Wire: "Types", Where: InSandbox,
		Ops:  []string{"Reverse"},
		Line: `event type "Reverse" is not in the OpenAPI`},
	{ID: "sandbox-event-types/IdentityVerificationDataRetrieved", Wire: "Types", Where: InSandbox,
		Ops:  []string{"IdentityVerificationDataRetrieved"},
		Line: `event type "IdentityVerificationDataRetrieved" is not in the OpenAPI`},
	{ID: "sandbox-event-types/CustomerIdentityVerified", Wire: "Types", Where: InSandbox,
		Ops:  []string{"CustomerIdentityVerified"},
		Line: `event type "CustomerIdentityVerified" is not in the OpenAPI`},

	{ID: "webhook-numeric-codes/paymentType", Wire: "`paymentType`, `transactionType`, `status`", Where: InWebhook,
		Ops:  webhookCodeEvents,
		Line: `codes: the event schema types paymentType as a free string; the service sends a numeric code`},
	{ID: "webhook-numeric-codes/transactionType", Wire: "`paymentType`, `transactionType`, `status`", Where: InWebhook,
		Ops:  webhookCodeEvents,
		Line: `codes: the event schema types transactionType as a free string; the service sends a numeric code`},
	{ID: "webhook-numeric-codes/status", Wire: "`paymentType`, `transactionType`, `status`", Where: InWebhook,
		Ops:  webhookCodeEvents,
		Line: `codes: the event schema types status as a free string; the service sends a numeric code`},

	{ID: "webhook-json-eventid-plus", Wire: "Body", Where: InWebhook,
		Ops:  webhookEventTypes,
		Line: `json: eventId read as signed ("+" as a space)`},

	{ID: "webhook-json-escapes", Wire: "Body", Where: InWebhook,
		Ops:  webhookEventTypes,
		Line: `json: a body holding "%" whose signature covers it URL-decoded is read URL-decoded`},

	{ID: "establish-metadata-flowtype", Wire: "Establish `metadata.flowType` (request)", Where: InRequest,
		Ops:  []string{"transactions_post-establish"},
		Line: `strict/undeclared-property: request property 'flowType' at '$.body.metadata.flowType' is not declared in schema`},

	// Found by the strict walk of every body (before it, the validator's
	// other errors hid them).
	{ID: "sandbox-tokenize-echo/merchantId", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `strict/undeclared-property: response property 'merchantId' at '$.body.merchantId' is not declared in schema`},
	{ID: "sandbox-tokenize-echo/account", Wire: "Tokenize response", Where: InSandboxSpec,
		Ops:  []string{"accounts_post-accounts-tokenize?-verifyAccount"},
		Line: `strict/undeclared-property: response property 'account' at '$.body.account' is not declared in schema`},
	{ID: "sandbox-attribute-source/sourceType", Wire: "`detail.attribute[].source`", Where: InSandboxSpec,
		Ops:  []string{"identity_get-trustly-id-user-details"},
		Line: `strict/undeclared-property: response property 'sourceType' at '$.body.detail.attribute[].sourceType' is not declared in schema`},
	{ID: "sandbox-detail-verification-name", Wire: "`detail.verification[]`", Where: InSandboxSpec,
		Ops:  []string{"identity_get-trustly-id-user-details"},
		Line: `strict/undeclared-property: response property 'verificationName' at '$.body.detail.verification[].verificationName' is not declared in schema`},
	{ID: "sandbox-detail-attribute-verified", Wire: "Identity.Detail response", Where: InSandboxSpec,
		Ops:  []string{"identity_get-trustly-id-user-details"},
		Line: `strict/undeclared-property: response property 'verified' at '$.body.detail.attribute[].verified' is not declared in schema`},

	// Answers: how the SDK reads what the OpenAPI allows.
	// Doubles the SDK reads into integers (counts, codes, ids, epoch
	// times): the generator writes them whole ("7.0"), each where its row
	// names the property (its JSON path in an answer); a fraction there is
	// an error (TestXCheckWrongTypes).
	{ID: "number-whole/account.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: account.type"},
	{ID: "number-whole/accountBalance.account.paymentProvider.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: accountBalance.account.paymentProvider.type"},
	{ID: "number-whole/accountBalance.account.profile", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: accountBalance.account.profile"},
	{ID: "number-whole/accountBalance.account.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: accountBalance.account.type"},
	{ID: "number-whole/accounts[].paymentProvider.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: accounts[].paymentProvider.type"},
	{ID: "number-whole/accounts[].profile", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: accounts[].profile"},
	{ID: "number-whole/accounts[].type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: accounts[].type"},
	{ID: "number-whole/authorizationStatus", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: authorizationStatus"},
	{ID: "number-whole/itemsPerPage", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: itemsPerPage"},
	{ID: "number-whole/payment.account.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payment.account.type"},
	{ID: "number-whole/payment.authorizationStatus", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payment.authorizationStatus"},
	{ID: "number-whole/payment.paymentProvider.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payment.paymentProvider.type"},
	{ID: "number-whole/payment.recordVersion", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payment.recordVersion"},
	{ID: "number-whole/paymentProvider.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: paymentProvider.type"},
	{ID: "number-whole/paymentProviders[].type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: paymentProviders[].type"},
	{ID: "number-whole/payments[].account.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payments[].account.type"},
	{ID: "number-whole/payments[].authorizationStatus", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payments[].authorizationStatus"},
	{ID: "number-whole/payments[].paymentProvider.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payments[].paymentProvider.type"},
	{ID: "number-whole/payments[].recordVersion", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: payments[].recordVersion"},
	{ID: "number-whole/recordVersion", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: recordVersion"},
	{ID: "number-whole/startIndex", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: startIndex"},
	{ID: "number-whole/transactions[].payment.account.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: transactions[].payment.account.type"},
	{ID: "number-whole/transactions[].payment.authorizationStatus", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: transactions[].payment.authorizationStatus"},
	{ID: "number-whole/transactions[].payment.paymentProvider.type", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: transactions[].payment.paymentProvider.type"},
	{ID: "number-whole/transactions[].payment.recordVersion", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: transactions[].payment.recordVersion"},
	{ID: "number-whole/transactions[].recordVersion", Wire: "whole numbers generally", Where: InAnswer, Line: "whole: transactions[].recordVersion"},
	// An answer the SDK refuses (ErrInvalidResponse) when it lacks one
	// property the schema leaves optional: generated answers without it
	// must fail so, and no other.
	{ID: "establish-transactionid-required", Wire: "Establish response", Where: InAnswer,
		Ops:  []string{"transactions_post-establish"},
		Line: "refused without: transactionId"},
	{ID: "attribute-source", Wire: "`detail.attribute[].source`", Where: InAnswer,
		Ops:     []string{"identity_get-trustly-id-user-details"},
		Reshape: &Reshape{Path: "detail.attribute[].source", Into: map[string]string{"name": "source", "type": "sourceType"}}},
}

// webhookCodeEvents are the OpenAPI's events whose schema has paymentType,
// transactionType and status, each a free string.
var webhookCodeEvents = []string{"Authorize", "Completed", "DataReady", "Establish", "Expired", "Failed", "Refresh", "Update", "VerifyCustomer"}

// webhookEventTypes are every event type the webhook tests post.
var webhookEventTypes = []string{"Authorize", "Cancel", "Cancelled", "Complete", "Completed", "CustomerIdentityVerified", "DataReady", "Deny", "Dispute", "Establish", "Expire", "Expired", "Failed", "IdentityVerificationDataRetrieved", "Process", "Reconcile", "Refresh", "Refund", "Reverse", "Update", "VerifyCustomer"}

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
		// One line per missing property, so that a row names one.
		if list, ok := strings.CutPrefix(f.Reason, "missing properties "); ok {
			for _, p := range strings.Split(list, ", ") {
				out = append(out, fmt.Sprintf("%s at %s: missing property %s", kind, f.FieldPath, p))
			}
			continue
		}
		out = append(out, fmt.Sprintf("%s at %s: %s", kind, f.FieldPath, f.Reason))
	}
	return out
}

// Excuse returns the row of AllowList that excuses the difference described
// by desc, seen where in operation op, or nil.
func Excuse(where, op, desc string) *Difference {
	for i := range AllowList {
		d := &AllowList[i]
		if d.Where != where || d.Line == "" || d.Line != desc {
			continue
		}
		for _, o := range d.Ops {
			if o == op {
				return d
			}
		}
	}
	return nil
}

// RefusedWithout returns the "refused without: …" row of operation op
// whose property the answer object gen lacks (absent, or not a non-blank
// string): the SDK must refuse that answer with ErrInvalidResponse. Nil
// when no row applies.
func RefusedWithout(op string, gen any) *Difference {
	obj, _ := gen.(map[string]any)
	for i := range AllowList {
		d := &AllowList[i]
		prop, ok := strings.CutPrefix(d.Line, "refused without: ")
		if d.Where != InAnswer || !ok || !slices.Contains(d.Ops, op) {
			continue
		}
		if v, isString := obj[prop].(string); !isString || strings.TrimSpace(v) == "" {
			return d
		}
	}
	return nil
}
