package bankpay

// AccountsService groups the accounts calls.
type AccountsService service
