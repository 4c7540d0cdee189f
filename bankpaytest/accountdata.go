package bankpaytest

import (
	"net/http"
	"sort"
	"time"

	"github.com/bankpay/bankpay-go/internal/wire"
	"github.com/bankpay/bankpay-go/models"
)

// The account data of a Retrieval authorization (balance, bank-held user,
// account summary) all come from one history of 90 days of activity that
// ends at the authorization, generated from the transaction id: the balance
// is the history's final balance, and each aggregation is computed over its
// last 7, 30 or 90 days, so the figures agree with each other.

const (
	historyDays    = 90
	overdraftLimit = 300_00 // a withdrawal beyond it is refused (NSF)
	nsfFee         = 35_00
)

type itemKind int

const (
	itemDeposit itemKind = iota
	itemWithdrawal
	itemNSFFee
)

type histItem struct {
	at        time.Time
	kind      itemKind
	cents     int64
	overdraft int64 // for a withdrawal: how far it took the balance below zero
}

// history is the generated activity of an account.
type history struct {
	anchor time.Time
	items  []histItem
	dayEnd [historyDays]int64 // balance at the end of each 24h slice; the last ends at anchor
}

func (h *history) final() int64 { return h.dayEnd[historyDays-1] }

func generateHistory(id string, anchor time.Time) *history {
	r := rngFor(id, 0x415)
	h := &history{anchor: anchor}
	bal := 50_00 + r.Int64N(1500_00)
	payday, rentDay := r.IntN(14), r.IntN(30)
	type planned struct {
		minute int
		kind   itemKind
		cents  int64
	}
	for day := 0; day < historyDays; day++ {
		start := anchor.Add(-time.Duration(historyDays-day) * 24 * time.Hour)
		var plan []planned
		add := func(k itemKind, c int64) { plan = append(plan, planned{1 + r.IntN(1438), k, c}) }
		if day%14 == payday {
			add(itemDeposit, 1800_00+r.Int64N(1400_00))
		}
		if r.IntN(100) < 8 {
			add(itemDeposit, 20_00+r.Int64N(380_00))
		}
		if day%30 == rentDay {
			add(itemWithdrawal, 900_00+r.Int64N(700_00))
		}
		for n := r.IntN(4); n > 0; n-- {
			add(itemWithdrawal, 5_00+r.Int64N(145_00))
		}
		sort.SliceStable(plan, func(i, j int) bool { return plan[i].minute < plan[j].minute })
		for _, p := range plan {
			at := start.Add(time.Duration(p.minute) * time.Minute)
			switch {
			case p.kind == itemDeposit:
				bal += p.cents
				h.items = append(h.items, histItem{at: at, kind: itemDeposit, cents: p.cents})
			case bal-p.cents < -overdraftLimit:
				bal -= nsfFee
				h.items = append(h.items, histItem{at: at, kind: itemNSFFee, cents: nsfFee})
			default:
				bal -= p.cents
				var od int64
				if bal < 0 {
					od = min(p.cents, -bal)
				}
				h.items = append(h.items, histItem{at: at, kind: itemWithdrawal, cents: p.cents, overdraft: od})
			}
		}
		if day == historyDays-1 && bal < 0 {
			// The user tops the account up before authorizing.
			top := -bal + 50_00
			bal += top
			h.items = append(h.items, histItem{at: anchor, kind: itemDeposit, cents: top})
		}
		h.dayEnd[day] = bal
	}
	return h
}

// aggregate computes the aggregation of the last days days of h.
func (h *history) aggregate(days int) models.Aggregation {
	from := h.anchor.Add(-time.Duration(days) * 24 * time.Hour)
	ag := models.Aggregation{Days: days}
	var dep, depMax, wd, wdMax, od, nsf int64
	for _, it := range h.items {
		if !it.at.After(from) || it.at.After(h.anchor) {
			continue
		}
		if ag.ActivityEarliestDate == 0 {
			ag.ActivityEarliestDate = epochMillis(it.at)
		}
		ag.ActivityLatestDate = epochMillis(it.at)
		switch it.kind {
		case itemDeposit:
			ag.DepositCount++
			dep += it.cents
			depMax = max(depMax, it.cents)
		case itemWithdrawal:
			ag.WithdrawalCount++
			wd += it.cents
			wdMax = max(wdMax, it.cents)
			if it.overdraft > 0 {
				ag.OverdraftCount++
				od += it.overdraft
			}
		case itemNSFFee:
			ag.NSFCount++
			nsf += it.cents
		}
	}
	bMin, bMax, sum := h.dayEnd[historyDays-days], h.dayEnd[historyDays-days], int64(0)
	for _, b := range h.dayEnd[historyDays-days:] {
		bMin, bMax, sum = min(bMin, b), max(bMax, b), sum+b
	}
	ag.BalanceMin, ag.BalanceMax = models.AmountFromCents(bMin), models.AmountFromCents(bMax)
	ag.BalanceAvg = models.AmountFromCents(sum / int64(days))
	ag.DepositAmountTotal, ag.DepositAmountMax = models.AmountFromCents(dep), models.AmountFromCents(depMax)
	ag.WithdrawalAmountTotal, ag.WithdrawalAmountMax = models.AmountFromCents(wd), models.AmountFromCents(wdMax)
	ag.OverdraftAmountTotal = models.AmountFromCents(od)
	ag.NSFFeeAmountTotal = models.AmountFromCents(nsf)
	return ag
}

// retrieval finds id and checks that it is an Authorized Retrieval
// authorization; it returns the authorization and its history.
func (s *Server) retrieval(m *merchant, id string) (*txn, *history, *Error) {
	t, err := s.authorization(m, id)
	if err != nil {
		return nil, nil, err
	}
	if t.rec.Payment.PaymentType != models.PaymentTypeRetrieval {
		return nil, nil, badRequest("account data needs a Retrieval authorization")
	}
	if t.rec.Status != models.StatusAuthorized {
		return nil, nil, badRequest("the authorization is %s, not Authorized", t.rec.Status)
	}
	if t.hist == nil {
		t.hist = generateHistory(t.id(), t.rec.CreatedAt.Time())
	}
	return t, t.hist, nil
}

func (s *Server) handleBalance(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t, h, err := s.retrieval(m, id)
	if err != nil {
		return nil, err
	}
	acct := t.rec.Payment.Account
	bal := h.final()
	need, _ := t.rec.Amount.Cents()
	enough := bal >= need
	p := personFor(t.id())
	return s.openAPICodes(wire.AccountBalanceEnvelope{AccountBalance: &models.AccountBalance{
		Account: &models.Account{
			ProviderID:      SandboxProviderID,
			PaymentProvider: sandboxProvider(t.m),
			NameOnAccount:   p.name(),
			Name:            acct.Name,
			Type:            acct.Type,
			AccountNumber:   acct.AccountNumber,
			RoutingNumber:   acct.RoutingNumber,
			Verified:        true,
			Verification: &models.Verification{
				Verified:         true,
				Type:             2, // Online Banking
				VerificationDate: t.rec.CreatedAt,
				HasEnoughFunds:   &enough,
			},
		},
		Amount:    models.AmountFromCents(bal),
		Available: models.AmountFromCents(bal),
		Currency:  t.rec.Currency,
	}}, "accountBalance.account.verification.type"), nil
}

// bankUserExpansions are the expand values of the bank-held user read
// (OpenAPI); customer.segmentedName adds segmentedName, the others change
// nothing in the sandbox.
var bankUserExpansions = map[string]bool{"customer.segmentedName": true, "names": true, "contact": true,
	"account.paymentProvider.routinginfo": true, "account.paymentProvider.address": true}

func (s *Server) handleBankUser(r *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	expand, err := checkExpand(r, bankUserExpansions)
	if err != nil {
		return nil, err
	}
	t, _, err := s.retrieval(m, id)
	if err != nil {
		return nil, err
	}
	p := personFor(t.id())
	u := &models.BankUser{
		Name:    []string{p.name()},
		Address: []models.Address{p.address},
		Phone:   []string{p.phone},
		Email:   []string{p.email},
	}
	if expand["customer.segmentedName"] {
		u.SegmentedName = &models.SegmentedName{FirstName: p.first, LastName: p.last}
	}
	return s.single(wire.BankUserEnvelope{User: u}, u), nil
}

func (s *Server) handleSummary(_ *http.Request, _ []byte, m *merchant, id string) (any, *Error) {
	t, h, err := s.retrieval(m, id)
	if err != nil {
		return nil, err
	}
	acct := t.rec.Payment.Account
	return models.AccountSummary{
		CustomerID:  t.customerID,
		LastUpdated: t.rec.CreatedAt,
		Summary: []models.AccountEntry{{
			SelectedAccount: true,
			Currency:        t.rec.Currency,
			NameOnAccount:   personFor(t.id()).name(),
			AccountNumber:   acct.AccountNumber,
			RoutingNumber:   acct.RoutingNumber,
			Aggregations:    []models.Aggregation{h.aggregate(7), h.aggregate(30), h.aggregate(90)},
		}},
	}, nil
}
