package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// The baseline's types for the OpenAPI's shape: what a merchant writes by
// hand from the OpenAPI for encoding/json, the SDK's models with each field
// typed as the OpenAPI types it (codes as strings, account and provider
// types, recordVersion and authorizationStatus as doubles). They carry the
// fields the SDK's models carry, no more.
type (
	oaTransaction struct {
		TransactionID              string                             `json:"transactionId"`
		TransactionType            string                             `json:"transactionType"`
		OriginalTransactionID      string                             `json:"originalTransactionId,omitempty"`
		Payment                    *oaPayment                         `json:"payment,omitempty"`
		Currency                   string                             `json:"currency,omitempty"`
		Amount                     string                             `json:"amount,omitempty"`
		PaymentProviderTransaction *models.PaymentProviderTransaction `json:"paymentProviderTransaction,omitempty"`
		Status                     string                             `json:"status"`
		StatusMessage              string                             `json:"statusMessage,omitempty"`
		StatusCode                 string                             `json:"statusCode,omitempty"`
		CreatedAt                  int64                              `json:"createdAt,omitempty"`
		ProcessedAt                int64                              `json:"processedAt,omitempty"`
		CompletedAt                int64                              `json:"completedAt,omitempty"`
		UpdatedAt                  int64                              `json:"updatedAt,omitempty"`
		PPTrxID                    string                             `json:"ppTrxId,omitempty"`
		MerchantReference          string                             `json:"merchantReference,omitempty"`
		PaymentProcessorType       string                             `json:"paymentProcessorType,omitempty"`
		RecordVersion              float64                            `json:"recordVersion,omitempty"`
		Paid                       string                             `json:"paid,omitempty"`
		Refunded                   string                             `json:"refunded,omitempty"`
		Balance                    string                             `json:"balance,omitempty"`
		ExpiredAt                  int64                              `json:"expiredAt,omitempty"`
		PreAuthorized              bool                               `json:"preAuthorized,omitempty"`
		URL                        string                             `json:"url,omitempty"`
	}
	oaPayment struct {
		PaymentID                  string             `json:"paymentId,omitempty"`
		PaymentType                string             `json:"paymentType,omitempty"`
		MerchantID                 string             `json:"merchantId,omitempty"`
		ReturnURL                  string             `json:"returnUrl,omitempty"`
		CancelURL                  string             `json:"cancelUrl,omitempty"`
		Amount                     string             `json:"amount,omitempty"`
		Currency                   string             `json:"currency,omitempty"`
		Account                    *oaPaymentAccount  `json:"account,omitempty"`
		PaymentProvider            *oaPaymentProvider `json:"paymentProvider,omitempty"`
		MerchantReference          string             `json:"merchantReference,omitempty"`
		Description                string             `json:"description,omitempty"`
		AuthorizationStatus        float64            `json:"authorizationStatus,omitempty"`
		AuthorizationStatusMessage string             `json:"authorizationStatusMessage,omitempty"`
		Pending                    string             `json:"pending,omitempty"`
		Paid                       string             `json:"paid,omitempty"`
		Refunded                   string             `json:"refunded,omitempty"`
		Reversed                   string             `json:"reversed,omitempty"`
		Balance                    string             `json:"balance,omitempty"`
		Customer                   *models.Customer   `json:"customer,omitempty"`
		CreatedAt                  int64              `json:"createdAt,omitempty"`
		UpdatedAt                  int64              `json:"updatedAt,omitempty"`
		RecordVersion              float64            `json:"recordVersion,omitempty"`
	}
	oaPaymentAccount struct {
		Name          string  `json:"name,omitempty"`
		Type          float64 `json:"type,omitempty"`
		AccountNumber string  `json:"accountNumber,omitempty"`
		RoutingNumber string  `json:"routingNumber,omitempty"`
		Verified      bool    `json:"verified,omitempty"`
	}
	oaPaymentProvider struct {
		PaymentProviderID      string  `json:"paymentProviderId,omitempty"`
		Type                   float64 `json:"type,omitempty"`
		InstantPayoutAvailable bool    `json:"instantPayoutAvailable,omitempty"`
		Name                   string  `json:"name,omitempty"`
		Country                string  `json:"country,omitempty"`
		Swift                  string  `json:"swift,omitempty"`
		SubType                string  `json:"subType,omitempty"`
		InstantPayment         bool    `json:"instantPayment,omitempty"`
	}
	// oaAccount is the tokenize answer: the account, bare.
	oaAccount struct {
		NameOnAccount             string             `json:"nameOnAccount,omitempty"`
		Name                      string             `json:"name,omitempty"`
		Type                      string             `json:"type,omitempty"`
		Profile                   string             `json:"profile,omitempty"`
		AccountNumber             string             `json:"accountNumber,omitempty"`
		RoutingNumber             string             `json:"routingNumber,omitempty"`
		IBAN                      string             `json:"iban,omitempty"`
		ProviderID                string             `json:"providerId,omitempty"`
		PaymentProvider           *oaPaymentProvider `json:"paymentProvider,omitempty"`
		Verified                  bool               `json:"verified,omitempty"`
		Token                     string             `json:"token,omitempty"`
		Verification              *oaVerification    `json:"verification,omitempty"`
		AccountID                 string             `json:"accountId,omitempty"`
		Country                   string             `json:"country,omitempty"`
		AccountNumberLastFour     string             `json:"accountNumberLastFour,omitempty"`
		VirtualAccountRoutingPair bool               `json:"virtualAccountRoutingPair,omitempty"`
	}
	oaVerification struct {
		Verified         bool   `json:"verified"`
		Type             string `json:"type,omitempty"`
		Score            string `json:"score,omitempty"`
		ThirdPartyScore  string `json:"thirdPartyScore,omitempty"`
		VerificationDate int64  `json:"verificationDate,omitempty"`
		HasEnoughFunds   *bool  `json:"hasEnoughFunds,omitempty"`
	}
	// oaPage is one page of GET /transactions.
	oaPage struct {
		Transactions []oaTransaction `json:"transactions"`
	}
)

// The baseline's calls in the OpenAPI's shape: the same requests as in the
// spec's shape (bareClient), the answers read into the types above.

func (c *bareClient) oaGetTransaction(ctx context.Context, id string) (*oaTransaction, error) {
	var t oaTransaction
	if err := c.do(ctx, http.MethodGet, "/transactions/"+url.PathEscape(id), "", nil, &t); err != nil {
		return nil, err
	}
	if t.TransactionID == "" {
		return nil, fmt.Errorf("no transaction")
	}
	return &t, nil
}

func (c *bareClient) oaDeposit(ctx context.Context, id, ref string, amount models.Amount) (*oaTransaction, error) {
	form := url.Values{"merchantReference": {ref}, "amount": {string(amount)}}
	var t oaTransaction
	if err := c.do(ctx, http.MethodPost, "/transactions/"+url.PathEscape(id)+"/deposit",
		"application/x-www-form-urlencoded", strings.NewReader(form.Encode()), &t); err != nil {
		return nil, err
	}
	if t.TransactionID == "" {
		return nil, fmt.Errorf("no transaction")
	}
	return &t, nil
}

func (c *bareClient) oaListTransactions(ctx context.Context, startIndex, count int) (*oaPage, error) {
	q := url.Values{"startIndex": {strconv.Itoa(startIndex)}, "count": {strconv.Itoa(count)}}
	var page oaPage
	if err := c.do(ctx, http.MethodGet, "/transactions?"+q.Encode(), "", nil, &page); err != nil {
		return nil, err
	}
	if page.Transactions == nil {
		return nil, fmt.Errorf("no transactions")
	}
	return &page, nil
}

func (c *bareClient) oaTokenize(ctx context.Context, accountNumber, routingNumber string) (*oaAccount, error) {
	body, err := json.Marshal(&models.Tokenization{
		MerchantID: creds.MerchantID,
		Account:    &models.Account{AccountNumber: accountNumber, RoutingNumber: routingNumber, Type: 1},
	})
	if err != nil {
		return nil, err
	}
	var a oaAccount
	if err := c.do(ctx, http.MethodPost, "/accounts/tokenize?verifyAccount=true", "application/json", bytes.NewReader(body), &a); err != nil {
		return nil, err
	}
	return &a, nil
}
