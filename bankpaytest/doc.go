// Package bankpaytest is a sandbox of the bank authorization, account data,
// identity verification and payout service: a real HTTP server with
// in-memory state that speaks the service's wire format and plays every
// sandbox behavior of its specification, for tests and examples that run
// with no account. Use it like net/http/httptest:
//
//	srv := bankpaytest.NewServer()
//	defer srv.Close()
//	c := srv.Client() // a *bankpay.Client of the default merchant at srv.URL
//	creds := srv.Credentials() // its bankpay.Credentials, for a webhook handler
//
// cmd/bankpay-sandbox runs the same server on an address.
//
// # Wire format
//
// Every API call takes HTTP Basic accessId:accessKey (401 with code 375
// otherwise). Errors are {"errors":[{"domain","code","message"}]} (but
// for the bare 400 of an unreadable JSON body, below): 400/200
// for a missing or invalid parameter (currency USD or CAD, amounts N.NN),
// 400/210 for a merchantReference used before by the same merchant (unless
// it has Merchant.NoReferenceIdempotency), 404/200
// for an unknown transaction (or another merchant's), 404/200 for an unknown
// path and 405/200 (with Allow) for a wrong method. Bodies above
// DefaultMaxBodyBytes respond with 413/200. Single objects come wrapped
// ({"transaction":{…}}, the spec's shape); tokenize and the account summary
// are bare. WithBareResponses returns them as the operator's OpenAPI shows
// them: a transaction (get, deposit, capture) bare, establish as its
// EstablishData (the data sent, with the authorization's transactionId and
// url; no status), and the bank and identity users bare, feedback as the authorization's bare
// Transaction; balance ({"accountBalance":…}), identity detail
// ({"detail":…}) and customer ({"customer":…}) stay wrapped.
// Establish, tokenize, customers and feedback take application/json bodies:
// another Content-Type, or none, responds with 415 with code 200, and a body that
// cannot be read as JSON of the expected shape (empty, malformed, a value
// of the wrong type, an unknown paymentType name) responds with 400 with the bare
// {"message":…} body some of the service's 400s have (an Error with Code
// 0). Deposit and capture take application/x-www-form-urlencoded bodies
// with dotted names; any other Content-Type (JSON included) responds with 400/200,
// as their parameters are then not found. Transaction responses show only the
// last 4 digits of the account number.
//
// # The user's side
//
// There is no browser: Authorize plays the user in the bank-selection
// interface for signed establish data (Deferred, Instant or Retrieval) and
// returns the signed redirect. Disbursement authorizations are created by
// the merchant with POST /establish?createTransaction=true, with a sandbox
// account number and SandboxRoutingNumber; its response in the spec's shape
// shows status 0 with statusMessage Authorized, as the spec's abbreviated
// establish response does (the OpenAPI's shape is EstablishData, with no
// status), while GET /transactions/{id} shows the authorization Authorized
// (2). Both check accessId (401/375 when missing or not the merchant's),
// merchantId (401/300 when it is another merchant's) and requestSignature
// (401/375 when missing or wrong).
//
// The redirect is returnUrl (cancelUrl when canceled) with the documented
// parameters and requestSignature over everything before it; when instant
// payout is available (always, unless Merchant.NoInstantPayout) the
// unsigned instantPayoutAvailable=true follows the signature, as the
// service sends it.
//
// # Provider statuses
//
// paymentProviderTransaction.status (in responses, events and, as
// payment.paymentProviderTransaction.status, redirects) is the operator's
// letter code of the state reached, from one table; statusMessage is the
// code's models.ProviderStatus.Meaning:
//
//	authorization by the user, Authorized       SW020 authorization received
//	authorization by the user, Canceled         UC01  user canceled at bank selection
//	Disbursement by POST /establish, Authorized SW010 established
//	authorization Voided (feedback Void)        SW013 canceled
//	deposit or capture Authorized               AC100 payment pending
//	deposit or capture Processed                AC105 payment processed
//	deposit or capture Completed                AC106 payment collected
//	instant payout deposit (RTP) Completed      AC118 payment settled
//	deposit or capture Denied                   AC101 payment declined
//	deposit or capture Reversed                 AC115 returned for another reason
//	authorization Canceled by the merchant      SW013 canceled
//	deposit or capture Canceled                 AC104 payment voided
//	capture Partially refunded or Refunded      AC106 payment collected
//	refund or reclaim Authorized                AC100 payment pending
//	refund or reclaim Processed                 AC105 payment processed
//	refund or reclaim Completed                 AC106 payment collected
//	preauthorization Authorized                 AC107 waiting for capture
//	preauthorization Expired                    AC117 payment expired
//	preauthorization Canceled                   SW013 canceled
//
// Identity verification leaves the authorization's code as it is; identity
// events carry none.
//
// # Sandbox behaviors
//
// Tokenize and the Disbursement establish know the sandbox account table
// (SandboxAccounts) and its error triggers (ErrorTriggers). A routing number
// other than SandboxRoutingNumber responds with 400/200; an account number outside
// the table responds with 400 with code 330 (invalid account). A token is stable
// per merchant and account for the server's life. Verification is returned
// only with verifyAccount=true.
//
// Deposits (type 6) need an Authorized Deferred or Disbursement
// authorization; amount is at least 0.99 (the OpenAPI's minimum), required
// when the authorization amount is 0.00, defaults to that amount
// otherwise, and the total of deposits and captures that are not
// Denied or Reversed cannot exceed a non-zero authorization amount.
// Deposits and captures (type 3, below) share one lifecycle, the spec's
// Disbursement transaction states: Authorized when created (no event),
// Processed when the clock first moves, Completed CompletionBankingDays
// banking days later unless Denied (Deny), and Completed ones can be
// Reversed (Reverse). Each of these transitions emits an event (Process,
// Complete, Deny, Reverse), as do authorizations (Authorize, Cancel).
// merchantReference is unique per merchant within each kind of call:
// establish and Authorize, deposit, capture, refund, reclaim,
// preauthorization (refunds and reclaims may leave it out).
//
// An instant payout deposit (instantPayoutRequest=true; its
// paymentProcessorType is PaymentProcessorInstant, RTP) settles in real
// time: it is Completed at its Processed step, in the same clock move, with
// both events, so once the clock has moved it can be Reversed but no longer
// Denied. This is the sandbox's choice: the spec states the 3-banking-day
// completion for Disbursement transactions and gives no delay for instant
// payouts, and a payout that waited as long as a standard one would not be
// instant, so the delay is read as that of standard deposits. It holds
// whatever the authorization (Deferred, the spec's payout use case, or
// Disbursement), as the sandbox bank shows instantPayoutAvailable true on
// both.
//
// Account data (balance, bank-held user, account summary) is served for
// Authorized Retrieval authorizations, from one 90-day history generated
// from the transaction id, so the balance and the 7, 30 and 90-day
// aggregations agree and never change.
//
// Identity verification (kycType 1): IdentityStep after the authorization
// and then every IdentityStep, one IdentityVerificationDataRetrieved event
// per provider (WithIdentityProviders), then CustomerIdentityVerified. The
// identity user and detail reads respond with 400/200 until the first
// data-retrieved event, then show the data so far with eligible false until
// the verification completes; the Outcome given to Authorize decides the
// result (eligible, excess data: still eligible with user-entered
// attributes, not eligible). Feedback is accepted once the
// verification is complete; Void moves the authorization to Voided (13),
// after which deposits and captures are refused. The feedback body is read
// wrapped ({"feedback":{…}}, the spec) or flat (the OpenAPI, each missing
// field taking its default: 4, 559, "Registered"); flat fields beside a
// wrapper must agree with it (400 otherwise).
//
// Customers are keyed by customerId and externalId per merchant.
// POST /customers?externalId=X creates the customer when it does not exist;
// POST /customers/{customerId} responds with 404 for an unknown one. A vip in
// those calls responds with 400/200 for a merchant not configured for VIP tiers
// (Merchant.NoVIP), while customer.vip in establish data is then ignored.
// POST /customers without externalId creates a customer (name, email, phone
// and address.country required) or updates the one its body names; GET
// /customers lists them (not paged), GET /customers/{customerId} reads one,
// and GET /customers/lookup says whether an email or phone belongs to a
// user who authorized a payment at any merchant of the sandbox (its errors
// are {"errorsList":[…]}). GET /transactions/{id}/payment/customer/verify
// compares the authorization's customer record, when read, with the bank's
// data.
//
// POST /accounts/verify answers from the sandbox account table (the last 4
// digits, a token shared with tokenize) and scores any IBAN with a valid
// checksum 6; POST /feedback with an ACH return that makes the account
// unusable (R02, R03, R04, R16, R20) makes later verifications of it score
// 2, unverified, and a Completed payment raises a verified score to 9.
// GET /transactions/{id}/payment/paymentProvider/accounts lists the account
// selected in a Retrieval authorization. The bank and identity user reads
// take expand (customer.segmentedName, segmentedName) and the identity
// detail takes verification (a reason added to each result, its code a
// string of the OpenAPI's enum: "-1" approved, "3" rejected); an unknown
// value responds with 400/200. Verification and attribute results carry
// the OpenAPI's meanings: 3 (ResultVerified) approved or matched, 1
// (ResultNotVerified) rejected or not matched.
// Capture charges the customer of a Deferred or Instant authorization. With
// the splitToken of the authorization's Authorize event (Deferred and
// Instant authorizations made in the bank interface carry one; a wrong
// token responds with 400/380) it is the payment of a Pay authorization.
// Without it, it is a money transfer for a merchant configured for one (the
// default: beneficiary fields required) and a plain charge otherwise
// (Merchant.NoMoneyTransfer; beneficiary fields then respond with 400/200);
// for a merchant configured for guaranteed payments
// (Merchant.GuaranteedPayments) it is accepted and then Failed, with a
// Failed event, as the operator documents. A capture is at least 0.99;
// without an amount it takes what remains of the authorization's.
//
// Refunds (POST /transactions/{id}/refund) return money of a Completed
// capture, reclaims (/reclaim) of a Completed deposit, in part or in full,
// at least 0.99 each, never more than the transaction's balance (400 with
// code 331); no amount takes the whole balance. Each creates a Refund (type
// 4) or Reclaim (type 7) transaction with originalTransactionId the capture
// or deposit, which follows the deposits' lifecycle (Process and Complete
// events). Each refund moves the capture to Partially refunded (11) or
// Refunded (12) with a Refund event; a reclaimed deposit stays Completed.
// Completed deposits and captures show paid, balance and (captures)
// refunded. Cancel (/cancel) moves an Authorized authorization none of
// whose deposits or captures has been processed, a deposit or capture not
// yet processed, or a preauthorization to Canceled with a Cancel event;
// anything later responds with 400/200 (refund instead). Refresh (/refresh,
// the authorization's splitToken) responds with a processId and sends a
// Refresh event RefreshDelay later. Preauthorize (/capture/preAuth) creates
// a preauthorization (type 10) of a Deferred authorization for period
// hours, then Expired with an Expire event.
//
// GET /countries and GET /paymentProviders list two fixed tables, the
// same for every merchant: the five supported countries (US, CA, UK, DE,
// AU; enabled=false adds MX, not supported) and ten providers, the sandbox
// bank first. Their filters work; a malformed one responds with 400 (the
// bare {"message":…} for countries, as the OpenAPI shows it). Providers
// page with startIndex and count (default 25); itemsPerPage is the count.
//
// Dispute plays the user's bank returning a Completed capture as not
// authorized (R10): the capture is Reversed and a Dispute event follows
// with the documented fields only (no status). POST
// /collections/recovery/dispute recovers up to the amount returned, as a
// new Representment transaction (type 8) with the lifecycle of deposits.
// It needs an Idempotency-Key (1 to 255 characters; 400/200 without): per
// merchant, a key seen with the same transactionId and amount responds
// with the first response again and creates nothing; with another body it
// responds with 422/200. Failed requests are not remembered.
//
// # Events and the clock
//
// The clock is fake (Now, Advance, AdvanceBankingDays, AdvanceTo), or, with
// WithWallClock (cmd/bankpay-sandbox's default), follows the real time and
// can still be moved ahead. Events
// are POSTed, form-encoded and signed (Authorization: Basic
// base64(accessId:HMAC-SHA1 of the URL-decoded body)), to the transaction's
// notificationUrl or the merchant's NotificationURL, by one background
// deliverer in order. An event not responded to with 200 is re-sent at every
// ResendInterval mark of the clock for ResendWindow. Events records every
// event with its attempts; Flush waits for queued attempts.
//
// # Control endpoints
//
// Below ControlURL (/sandbox, not /api/v1), with the same HTTP Basic
// credentials, these drive the sandbox over HTTP for programs in other
// languages; they are not part of the service and see only the
// authenticated merchant's transactions and events:
//
//	GET  /sandbox/now                          {"now":<epoch ms>,"time":"<RFC 3339>"}
//	POST /sandbox/advance?d=72h                Advance(72h); responds like /now
//	POST /sandbox/advance?bankingDays=3        AdvanceBankingDays(3); responds like /now
//	POST /sandbox/authorize?outcome=authorize  Authorize; body: the signed establish data as JSON;
//	                                           outcome: authorize, cancel, eligible, excess-data or
//	                                           not-eligible; responds with {"redirectUrl":…,"transaction":{…}}
//	POST /sandbox/transactions/{id}/deny       Deny; responds with {"transaction":{…}}
//	POST /sandbox/transactions/{id}/reverse    Reverse; responds with {"transaction":{…}}
//	POST /sandbox/transactions/{id}/dispute    Dispute; responds with {"transaction":{…}}
//	GET  /sandbox/transactions/{id}/feedback   {"feedback":[…]}
//	GET  /sandbox/events[?transactionId=…]     {"events":[…]}, each as Event encodes, oldest first; also
//	                                           type=EVENT_TYPE, after=EVENT_ID (only those recorded after
//	                                           it) and wait=10s (up to 30s: wait for one when none matches);
//	                                           listen=NAME registers a listener (bankpay listen) that has
//	                                           handled every event up to after (all, without after): for
//	                                           15 s after its last request, a clock move waits (10 s at
//	                                           most) for it to handle the events it fires before moving on
//	DELETE /sandbox/listeners/{name}           the listener stops; responds with {}
//	POST /sandbox/events/{id}/resend[?to=URL]  the event sent again as recorded (same body and
//	                                           Authorization) to URL or its notificationUrl, at once;
//	                                           responds with {"url":…,"statusCode":…,"event":{…}}; URL
//	                                           must be a loopback address (400 otherwise) unless
//	                                           WithResendToAnyAddress
//	POST /sandbox/trigger?event=Complete[&transactionId=…]
//	                                           runs the lifecycle that emits the event (TriggerEvents) on
//	                                           a new transaction or the given one, moving the clock as it
//	                                           needs; responds with {"transactionId":…,"events":[…]}
//	POST /sandbox/flush                        Flush; responds with {}
//	GET  /sandbox/customers?externalId=…       {"customer":{…}} (or ?customerId=…)
//	POST /sandbox/loseResponse?method=POST&path=/transactions/1002581234567/deposit
//	                                           LoseResponse: the next API request with that method
//	                                           and that literal path (the transaction's id in it,
//	                                           below /api/v1; no pattern) takes effect and its
//	                                           connection is reset; responds with {}
//
// # Lists
//
// GET /transactions and GET /payments list the merchant's records in
// creation order (orderBy and sortOrder asc or desc change it), paged by
// startIndex and count (1 to 1000, 100 by default; at most PageCap, 50,
// served a page, with nothing in a transactions page to say so: no
// itemsPerPage, no total), with the OpenAPI's filters (see lists.go):
// payment.merchantReference is the payment's (the authorization's)
// reference, as the operator documents it, not each transaction's own. A
// filter it cannot read responds with 400/200, one it does not know is
// ignored. A payment is an
// authorization with the totals of its transactions: pending and paid
// (deposits and captures), reversed, refunded (refunds and reclaims) and
// balance; GET /payments/{id} (the authorization's id) responds with it
// bare, as the OpenAPI shows it.
package bankpaytest
