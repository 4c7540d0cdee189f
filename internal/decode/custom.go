package decode

import (
	"bytes"
	"errors"

	"github.com/bankpay/bankpay-go/internal/jsonr"
	"github.com/bankpay/bankpay-go/models"
)

// decodeVerifiedAttribute reads an identity attribute as
// models.VerifiedAttribute.UnmarshalJSON does: source is its name, or an
// object whose name is the source and whose type (when not 0) the
// sourceType; a source that cannot be read is "". Verified is its
// identity (wire:"zero"): when it cannot be read the attribute cannot.
func decodeVerifiedAttribute(d *Decoder, v *models.VerifiedAttribute) bool {
	if k := d.r.Peek(); k != jsonr.Object {
		return d.notKind(k, "an object")
	}
	failed := false
	var cause FieldError
	srcType := int64(0)
	v.Source = ""
	for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
		switch {
		case string(k) == "source" || (!bytes.Equal(k, []byte("sourceType")) && bytes.EqualFold(k, []byte("source"))):
			v.Source, srcType = d.attributeSource()
		default:
			if !memberVerifiedAttributePlain(d, v, k) && !failed {
				failed, cause = true, d.cause
			}
		}
	}
	if failed {
		d.cause = cause
		return false
	}
	if srcType != 0 {
		v.SourceType = int(srcType)
	}
	return true
}

// attributeSource reads an attribute's source: its name and type.
func (d *Decoder) attributeSource() (string, int64) {
	switch d.r.Peek() {
	case jsonr.Object:
		name, typ := "", int64(0)
		unread := false
		for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
			switch {
			case bytes.EqualFold(k, []byte("name")):
				s, r := d.str()
				if r == ok {
					name = s
				} else if r == bad {
					unread = true
				}
			case bytes.EqualFold(k, []byte("type")):
				n, r := d.integer("an integer", nil)
				if r == ok {
					typ = n
				} else if r == bad {
					unread = true
				}
			default:
				d.r.Skip()
			}
		}
		if unread {
			return "", 0
		}
		return name, typ
	case jsonr.Array:
		d.r.Skip()
		return "", 0
	}
	s, _ := d.str()
	return s, 0
}

// memberVerifiedAttributePlain reads a member of an attribute other than
// source.
func memberVerifiedAttributePlain(d *Decoder, v *models.VerifiedAttribute, k []byte) bool {
	switch {
	case bytes.EqualFold(k, []byte("name")):
		if s, r := d.str(); r == ok {
			v.Name = s
		}
	case bytes.EqualFold(k, []byte("sourceType")):
		if n, r := d.integer("an integer", nil); r == ok {
			v.SourceType = int(n)
		}
	case bytes.EqualFold(k, []byte("createdAt")):
		if n, r := d.integer("an integer", nil); r == ok {
			v.CreatedAt = models.EpochMillis(n)
		}
	case bytes.EqualFold(k, []byte("verified")):
		b, r := d.boolean()
		switch r {
		case ok:
			v.Verified = b
		case bad:
			return d.fail("verified", false)
		}
	case bytes.EqualFold(k, []byte("verification")):
		if d.r.Peek() == jsonr.Null {
			d.r.Null()
			v.Verification = nil
			break
		}
		d.push("verification")
		okk := slice(d, &v.Verification, decodeAttributeVerification)
		d.pop()
		if !okk {
			v.Verification = nil
		}
	default:
		d.r.Skip()
	}
	return true
}

// Tokenization reads a tokenize response in either shape: the spec's
// echoes merchantId and customer beside the account ({"account":{…}}); the
// OpenAPI's is the bare account. One pass: members of the echo are read as
// such, any other as the bare account's, and the shape is known at the end.
// A response with neither an account member nor a known field of an
// account is an error, as is an account without its token (required by
// the OpenAPI, and what the call is for).
func Tokenization(data []byte) (*models.Tokenization, []Unset, error) {
	return new(TokenizationBuf).Decode(data)
}

// TokenizationBuf is the storage of one tokenize result: the Tokenization,
// its account, the account's verification and that one's scores, in one
// allocation. A
// caller that allocates it with its own state (the call's result) reads a
// response without any further allocation for them.
type TokenizationBuf struct {
	tok  models.Tokenization
	acct models.Account
	ver  models.Verification
	// The verification's *int and *bool fields (score, thirdPartyScore,
	// hasEnoughFunds), lent to the decoder.
	ints  [2]int
	bools [1]bool

	acctUsed, verUsed bool // acct, ver hold (or held) a value read
	used              bool // Decode ran: b is to be cleared before the next
}

// Decode is Tokenization, reading into b (which it clears first): the
// result points into b. b must not be used for another response while the
// result is in use.
func (b *TokenizationBuf) Decode(data []byte) (*models.Tokenization, []Unset, error) {
	if b.used { // a new one is zero: no need to write it again
		*b = TokenizationBuf{}
	}
	b.used = true
	d := get(data)
	defer put(d)
	d.ints, d.bools = b.ints[:], b.bools[:]
	if k := d.r.Peek(); k != jsonr.Object {
		d.notKind(k, "an object")
		if err := d.r.End(); err != nil {
			return nil, nil, err
		}
		c := d.cause
		return nil, nil, &c
	}
	tok := &b.tok
	var acct *models.Account // the bare account, made on its first member
	var cause *FieldError
	echo := false
	for k, more := d.r.FirstKey(); more; k, more = d.r.NextKey() {
		var held bool
		switch i, ai := b.echoMember(k); {
		case i == echoAccount:
			echo = true
			held = b.echoAccount(d, tok)
		case i >= 0:
			held = memberTokenization(d, tok, k)
		default:
			if acct == nil {
				acct = b.account()
			}
			held = b.accountAt(d, acct, ai)
		}
		if !held && cause == nil {
			c := d.cause
			cause = &c
		}
	}
	if err := d.r.End(); err != nil {
		return nil, nil, err
	}
	if cause != nil {
		return nil, nil, cause
	}
	return b.result(d, echo, acct)
}

// result is the Tokenization read, once the shape is known (echo: the
// spec's; acct: the bare account, nil when no member of it came).
func (b *TokenizationBuf) result(d *Decoder, echo bool, acct *models.Account) (*models.Tokenization, []Unset, error) {
	tok := &b.tok
	if echo {
		if tok.Account == nil {
			return nil, nil, errNoAccount
		}
		if tok.Account.Token == "" { // the OpenAPI requires it: the result of the call
			return nil, nil, &FieldError{Path: "account.token", Want: "a string", Required: true}
		}
		return tok, d.unset, nil
	}
	if acct == nil || zeroAccount(acct) {
		return nil, nil, errNoAccount
	}
	if acct.Token == "" {
		return nil, nil, &FieldError{Path: "token", Want: "a string", Required: true}
	}
	tok.Account = acct
	return tok, d.unset, nil
}

// echoAccount is the index of "account" in namesTokenization.
const echoAccount = 1

// echoMember is indexTokenization(k), or -1 for a member of the bare
// account, whose indexAccount is ai: tried after the account's exact
// names, so that the bare account's members, the many, are told without a
// case-insensitive search of the echo's names. No name of one folds to a
// name of the other (TestTokenizationNames).
func (b *TokenizationBuf) echoMember(k []byte) (i, ai int) {
	switch string(k) {
	case "merchantId":
		return 0, -1
	case "account":
		return echoAccount, -1
	case "customer":
		return 2, -1
	}
	ai = indexAccount(k)
	if ai >= 0 && namesAccount[ai] == string(k) {
		return -1, ai
	}
	if i = indexTokenization(k); i >= 0 {
		return i, -1
	}
	return -1, ai
}

// account is b.acct the first time, a new Account after.
func (b *TokenizationBuf) account() *models.Account {
	if b.acctUsed {
		return new(models.Account)
	}
	b.acctUsed = true
	return &b.acct
}

// echoAccount reads the echo's account member into tok, as
// memberTokenization does, into b's storage when it is free.
func (b *TokenizationBuf) echoAccount(d *Decoder, tok *models.Tokenization) bool {
	if d.r.Peek() == jsonr.Null {
		d.r.Null()
		tok.Account = nil
		return true
	}
	if tok.Account == nil {
		tok.Account = b.account()
	}
	mark := len(d.unset)
	d.push("account")
	held := object(d, tok.Account, b.memberAccount, finishAccount)
	d.pop()
	if !held {
		d.unset = d.unset[:mark]
		tok.Account = nil
		d.leftUnset("account")
	}
	return true
}

// memberAccount is memberAccount, reading the first verification into b's
// storage.
func (b *TokenizationBuf) memberAccount(d *Decoder, v *models.Account, k []byte) bool {
	return b.accountAt(d, v, indexAccount(k))
}

// accountAt is memberAccountAt (i: the member's indexAccount), reading the
// first verification into b's storage.
func (b *TokenizationBuf) accountAt(d *Decoder, v *models.Account, i int) bool {
	if i >= 0 && v.Verification == nil && !b.verUsed && namesAccount[i] == "verification" {
		b.verUsed = true
		v.Verification = &b.ver
	}
	return memberAccountAt(d, v, i)
}

var errNoAccount = errors.New(`response has no "account" object`)

// Establish reads an establish response: the spec's wrapped transaction
// ({"transaction":{…}}), whose identity is a transaction's (id, type,
// status and amount), or the OpenAPI's bare EstablishData, which has no
// type or status. A bare response without its url (the one property the
// OpenAPI requires) or without a transactionId (the authorization it
// made, which the schema leaves optional but the call exists for) is an
// error. A type or status the bare response does not give is
// models.TypeUnknown or models.StatusUnknown, never External or New.
func Establish(data []byte) (*models.Transaction, []Unset, error) {
	return value(data, "transaction", func(t *models.Transaction, seen uint64) error {
		if t.URL == "" {
			return &FieldError{Path: "url", Want: "a string", Required: true}
		}
		if seen&seenTransactionTransactionID == 0 {
			return &FieldError{Path: "transactionId", Want: "a string", Required: true}
		}
		if seen&seenTransactionTransactionType == 0 {
			t.TransactionType = models.TypeUnknown
		}
		if seen&seenTransactionStatus == 0 {
			t.Status = models.StatusUnknown
		}
		return nil
	})
}
