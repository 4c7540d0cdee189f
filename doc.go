// Package bankpay is the Go SDK of the bank authorization service: establish
// and read authorizations, charge customers with captures (and capture money
// transfers), pay out with deposits, give money back with refunds and
// reclaims, read account, user and cash-flow data, verify identity, tokenize accounts,
// update VIP customers, sign establish data for the front-end SDKs, verify
// redirects and receive event notifications.
//
// One Option type configures a client (NewClient), one call (the last
// arguments of every service method: WithMaxRetries(0) on a call, say), the
// webhook handler (NewWebhookHandler) and a redirect check (VerifyRedirect);
// each With… says what it configures.
//
// Every call goes through one pipeline: build the request (JSON or dotted
// form body, HTTP Basic auth), send it through a retrying transport that
// never sends a money-moving request twice unless told to, check the status
// (every non-2xx response is an *APIError matchable with errors.Is), and
// decode the typed result. Responses are read in both shapes the service is
// documented with (single objects wrapped, as in {"transaction":{…}}, or
// bare) and with numbers written as numbers or strings; requests are
// written as the service specification shows them (docs/wire.md).
//
// # Lists
//
// A list the service pages (startIndex and count in the operator's OpenAPI:
// Transactions, Payments, PaymentProviders) is read with List, an iterator
// (iter.Seq2) that reads one page at a time as the loop asks for more, or
// with ListPage, one Page. A list the service returns whole, with no paging
// (Customers.List, Countries.List, Accounts.ListSelected), is returned as a
// slice. The params of a list are <Resource>ListParams; the amount and date
// ranges, the order and the page of the transactions and payments lists are
// the embedded ListRange.
//
// # Retries
//
// Reads (GET) are retried on connection errors and on 429, 500, 502, 503 and
// 504, with capped, jittered exponential backoff and a capped Retry-After.
// A call that moves money or changes state is sent again only when the
// request provably never reached the service (the connection was refused),
// unless the caller opts in with WithRetryNonIdempotent (on the client or
// on one call) because the account treats merchantReference as an
// idempotency key; the opt-in is ignored for a call that carries no
// merchantReference (nothing to recognize a repeat by). Neither Go's HTTP/2
// transport, a keep-alive race nor a retrying middleware given to
// WithTransport can re-send such a request below this rule: a guard below
// every layer sends each attempt once ("second send of one attempt refused"). Disputes.Create is the
// exception: it sends an Idempotency-Key, the same on every attempt, and is
// retried like a read. When OutcomeUnknown(err) holds (a *NetworkError
// with Sent, a 5xx, or a 2xx response the SDK could not read, of a call
// that moves money or changes state) the money may have moved: do not pay
// again; find the transaction with Transactions.FindByMerchantReference
// (what the call was made against and its merchantReference). Only
// ErrNotFound means it was not made; ErrIncomplete means the lookup could
// not tell (OutcomeUnknown still holds).
//
// # Security
//
// One accessKey authenticates every call and keys every signature: keep it
// on the server. A Secret holds it behind a function, so Credentials, Client
// and Secret print no key with any fmt verb, slog, JSON or go-spew
// (testify's diffs); error texts and log lines never carry the key, the
// Authorization header, full account numbers, a request's query (an email,
// a phone number) or bodies, while the ids the call sent stay readable. A
// response handed back by WithResponseInto carries no credentials.
//
// A verified notification (NewWebhookHandler, VerifyNotification) proves
// that its fields, read from exactly the message the signature covers, were
// signed with your accessKey as a notification. It does not prove that the
// event is new: a signed notification never expires, so the handler refuses
// events older than the max age (WithMaxEventAge) or dated over 5 minutes
// ahead of its clock and processes each eventId once (in its own memory, or
// a shared store given with WithDeduplicator). The memory is the process's:
// a restart empties it, so a signed notification captured before a restart
// (a deploy) and replayed after it, within the max age, runs the callback
// again; keep the callback idempotent, or give replicas and restarts a
// shared store. Nor does it prove that you receive every
// event: the notificationUrl is not signed and travels through the user's
// browser with the establish data, so the user can redirect, withhold or
// time the notifications of their own transaction. Before acting on an event
// that moves money, reconcile the transaction's state with Transactions.Get,
// and do not take a missing event as "nothing happened".
//
// A JSON notification is read as sent (a "+" in a value, such as a Base64
// splitToken, stays a "+"), and may be signed as sent when URL-decoding
// would change it; a "+" and a space are then one signed character, so do
// not rely on the difference in a value (the eventId is read as signed).
//
// The signature covers the URL-decoded body, not field boundaries: a signed
// value that decodes to "&name=" reads as a field of its own
// ("merchantReference=ord-1%26errorCode%3D330" carries an errorCode). The
// SDK refuses such characters in every merchantReference it sends, and
// repeated fields; values the service generates cannot be fixed from the
// merchant's side, so never act on an unexpected errorCode or status alone.
//
// A verified redirect (VerifyRedirect, VerifyRedirectRequest) proves that
// the service sent the user back with the signed transactionId,
// merchantReference and status. It never expires and can be loaded again:
// bind it to the order of the user's session (RedirectExpectReference) and
// act on each transactionId once. Parameters after the signature
// (Redirect.Unsigned) prove nothing.
//
// The service signs establish data, redirects and notifications with the
// same key and algorithm. So that a signature made for one is never accepted
// as another, SignEstablishData refuses a value that would change the
// structure of the signed string, and verification refuses a notification
// or redirect whose signed content has the wrong shape.
package bankpay
