// Package models holds the wire types of the bank authorization service: the
// resources the REST API returns, the establish data the front-end SDKs take,
// and the event notification fields. The types are shared by the bankpay
// client and by the bankpaytest sandbox, and hold no HTTP code.
//
// Money is never a float: amounts are [Amount], a decimal string with two
// places. Times on the wire are epoch milliseconds, decoded by [EpochMillis]
// from a JSON number or a numeric string. Codes with a meaning (transaction
// status, transaction type, payment type) are named constants with a String
// method. Where zero means something (VIP tier 0 removes VIP) the field is a
// pointer, so that "unset" and "zero" differ.
//
// The client reads responses in both the service spec's and the operator's
// OpenAPI encodings (codes as numbers, numeric strings or whole-valued
// floats; unknown fields and enum values kept or ignored); encoding follows
// the spec. docs/wire.md lists the differences.
package models
