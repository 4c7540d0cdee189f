package main

import (
	"context"

	"github.com/bankpay/bankpay-go/internal/paytype"
	"github.com/bankpay/bankpay-go/models"
)

// runPayments runs "payments get PAYMENT_ID": an authorization's payment and
// what was paid, pending, refunded and reversed under it (Payments.Get).
func runPayments(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] != "get" {
		return usagef("want a subcommand: get")
	}
	fs := e.flags("payments get")
	c, id, err := e.clientFor(fs, args[1:], "one payment id")
	if err != nil {
		return err
	}
	p, err := c.Payments.Get(ctx, id)
	if err != nil {
		return err
	}
	return e.printPayment(p)
}

// printPayment prints a payment, its account number masked to its last 4
// digits and its customer's tax id and date of birth redacted.
func (e *env) printPayment(p *models.Payment) error {
	cp := *masked(&models.Transaction{Payment: p}).Payment
	if e.json {
		return e.printJSON(&cp)
	}
	authStatus := "" // optional: a row only when the service sent it
	if st := cp.AuthorizationStatus; st != nil {
		authStatus = st.String()
	}
	rows := [][2]string{
		{"paymentId", cp.PaymentID},
		{"paymentType", paytype.Name(cp.PaymentType)},
		{"merchantReference", cp.MerchantReference},
		{"amount", string(cp.Amount) + " " + string(cp.Currency)},
		{"authorizationStatus", authStatus},
		{"paid", string(cp.Paid)},
		{"pending", string(cp.Pending)},
		{"refunded", string(cp.Refunded)},
		{"reversed", string(cp.Reversed)},
		{"balance", string(cp.Balance)},
	}
	if a := cp.Account; a != nil {
		rows = append(rows, [2]string{"account", a.AccountNumber})
	}
	return e.printRows(rows)
}
