package bankpaytest

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"strings"

	"github.com/bankpay/bankpay-go/models"
)

// person is the fictional user behind an authorization, generated from the
// transaction id: the same id always gives the same person, account and
// history.
type person struct {
	first, last string
	address     models.Address
	phone       string
	email       string
	dateOfBirth string
	taxID       string
	license     models.DriverLicense
	account     string
}

var (
	firstNames = []string{"Jane", "John", "Alex", "Maria", "Sam", "Priya", "Chen", "Olivia", "Diego", "Amara"}
	lastNames  = []string{"Doe", "Smith", "Garcia", "Nguyen", "Patel", "Brown", "Okafor", "Kowalski"}
	streets    = []string{"Main St", "Oak Ave", "Maple Dr", "Pine Rd", "Cedar Ln", "Elm St"}
	places     = []struct{ city, state, zip string }{
		{"Springfield", "IL", "62701"}, {"Austin", "TX", "73301"}, {"Portland", "OR", "97201"},
		{"Columbus", "OH", "43004"}, {"Raleigh", "NC", "27601"}, {"Denver", "CO", "80201"},
	}
)

// seedOf derives the generator seed of a transaction id.
func seedOf(id string) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(id))
	return h.Sum64()
}

func rngFor(id string, stream uint64) *rand.Rand {
	seed := seedOf(id)
	return rand.New(rand.NewPCG(seed, seed^stream))
}

func personFor(id string) person {
	r := rngFor(id, 0x5eed)
	p := person{
		first: firstNames[r.IntN(len(firstNames))],
		last:  lastNames[r.IntN(len(lastNames))],
	}
	pl := places[r.IntN(len(places))]
	p.address = models.Address{
		Address1: fmt.Sprintf("%d %s", 100+r.IntN(9800), streets[r.IntN(len(streets))]),
		City:     pl.city, State: pl.state, Zip: pl.zip, Country: "US",
	}
	p.phone = fmt.Sprintf("+1555555%04d", 100+r.IntN(100)) // fictional 555-01xx range
	p.email = strings.ToLower(p.first+"."+p.last) + "@example.com"
	p.dateOfBirth = fmt.Sprintf("%d-%02d-%02d", 1950+r.IntN(55), 1+r.IntN(12), 1+r.IntN(28))
	p.taxID = fmt.Sprintf("999-00-%04d", r.IntN(10000)) // never a valid SSN
	p.license = models.DriverLicense{Number: fmt.Sprintf("D%07d", r.IntN(10000000)), State: pl.state}
	p.account = fmt.Sprintf("20%08d", r.IntN(100000000))
	return p
}

func (p person) name() string { return p.first + " " + p.last }

// demoAccount is the sandbox bank account the user of authorization id
// selects in the interface.
func demoAccount(id string) *models.PaymentAccount {
	p := personFor(id)
	return &models.PaymentAccount{
		Name:          "Demo Checking",
		Type:          1,
		AccountNumber: p.account,
		RoutingNumber: SandboxRoutingNumber,
		Verified:      true,
	}
}
