package bankpay

// CustomersService groups the customers calls.
type CustomersService service
