// Package training runs a training scenario against the in-process emulator: simulated
// customers pay, refuse, claim, ask for refunds; the network drops; a MED block opens. It
// watches what the trainee does (through the emulator and the actions the dashboard reports)
// and ends with what was done right and what was missed. Nothing touches a real account.
package training

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"pixdash/api"
)

//go:embed scenarios/*.toml
var builtin embed.FS

// Step kinds.
const (
	KindCharge   = "charge"   // a customer wants to pay: the trainee creates the charge
	KindHandover = "handover" // hand the goods over once the customer's charge shows PAGO
	KindRefuse   = "refuse"   // the customer's payment does not come: do not hand anything over
	KindOutage   = "outage"   // the network drops for duration seconds
	KindBlock    = "block"    // a MED block opens on the customer's paid charge
	KindRefund   = "refund"   // the customer asks for their money back
	KindClose    = "close"    // the day's close
)

// How a customer pays (Step.Pays).
const (
	PaysCPF   = "cpf"   // a person's CPF: the payment goes through
	PaysCNPJ  = "cnpj"  // a company's CNPJ: the account refuses it and the bank returns it
	PaysNever = "never" // says they paid and did not; gives up after GivesUp seconds
)

// Scenario is a training day: steps the trainee goes through in order.
type Scenario struct {
	Name    string `toml:"name"`
	Title   string `toml:"title"`
	TitleEN string `toml:"title_en"`
	Steps   []Step `toml:"steps"`
}

// Step is one item of the checklist.
type Step struct {
	Kind     string `toml:"kind"`
	Customer string `toml:"customer"`
	Amount   string `toml:"amount"`   // charge: the amount asked, "25.00"
	Pays     string `toml:"pays"`     // charge: cpf, cnpj or never
	After    int    `toml:"after"`    // charge: seconds after the charge appears that the customer pays
	GivesUp  int    `toml:"gives_up"` // charge with pays = never: seconds until the charge is dropped
	Duration int    `toml:"duration"` // outage: seconds without network
	Label    string `toml:"label"`    // the checklist line (pt-BR)
	LabelEN  string `toml:"label_en"`
	Text     string `toml:"text"` // what to do now (pt-BR)
	TextEN   string `toml:"text_en"`

	amount api.Money
}

// Builtins names the built-in scenarios, in the order a new employee takes them.
func Builtins() []string { return []string{"basico", "dia-cheio", "problemas"} }

// Builtin loads built-in scenario name.
func Builtin(name string) (*Scenario, error) {
	if !slices.Contains(Builtins(), name) {
		return nil, fmt.Errorf("no built-in scenario %q (there are: %s)", name, strings.Join(Builtins(), ", "))
	}
	b, err := builtin.ReadFile(path.Join("scenarios", name+".toml"))
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse reads and checks a scenario file.
func Parse(data []byte) (*Scenario, error) {
	var sc Scenario
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(&sc)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	if un := md.Undecoded(); len(un) > 0 {
		return nil, fmt.Errorf("scenario: unknown key %s", un[0])
	}
	if err := sc.validate(); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return &sc, nil
}

func (sc *Scenario) validate() error {
	if strings.TrimSpace(sc.Name) == "" || strings.TrimSpace(sc.Title) == "" {
		return errors.New("name and title are required")
	}
	if len(sc.Steps) == 0 {
		return errors.New("no steps")
	}
	charged := map[string]int{} // customer → index of their charge step
	for i := range sc.Steps {
		st := &sc.Steps[i]
		where := fmt.Sprintf("step %d (%s)", i+1, st.Kind)
		if strings.TrimSpace(st.Label) == "" || strings.TrimSpace(st.Text) == "" {
			return fmt.Errorf("%s: label and text are required", where)
		}
		needCustomer := func() error {
			if st.Customer == "" {
				return fmt.Errorf("%s: customer is required", where)
			}
			if _, ok := charged[st.Customer]; !ok {
				return fmt.Errorf("%s: customer %q has no charge step before it", where, st.Customer)
			}
			return nil
		}
		switch st.Kind {
		case KindCharge:
			if st.Customer == "" {
				return fmt.Errorf("%s: customer is required", where)
			}
			if _, dup := charged[st.Customer]; dup {
				return fmt.Errorf("%s: customer %q already has a charge", where, st.Customer)
			}
			m, err := api.ParseDecimal(st.Amount)
			if err != nil || m <= 0 {
				return fmt.Errorf("%s: amount %q: a positive amount in reais, like \"25.00\"", where, st.Amount)
			}
			st.amount = m
			switch st.Pays {
			case PaysCPF, PaysCNPJ:
			case PaysNever:
				if st.GivesUp <= 0 {
					return fmt.Errorf("%s: pays = \"never\" needs gives_up (seconds)", where)
				}
			default:
				return fmt.Errorf("%s: pays %q: say cpf, cnpj or never", where, st.Pays)
			}
			if st.After < 0 || st.GivesUp < 0 {
				return fmt.Errorf("%s: after and gives_up are seconds, not negative", where)
			}
			charged[st.Customer] = i
		case KindHandover, KindRefuse, KindBlock, KindRefund:
			if err := needCustomer(); err != nil {
				return err
			}
			c := sc.Steps[charged[st.Customer]]
			paying := c.Pays == PaysCPF
			if st.Kind == KindRefuse && paying {
				return fmt.Errorf("%s: customer %q pays: refuse is for a payment that does not come", where, st.Customer)
			}
			if st.Kind != KindRefuse && !paying {
				return fmt.Errorf("%s: customer %q never pays", where, st.Customer)
			}
		case KindOutage:
			if st.Duration <= 0 {
				return fmt.Errorf("%s: duration (seconds) is required", where)
			}
		case KindClose:
		default:
			return fmt.Errorf("%s: unknown kind; say charge, handover, refuse, outage, block, refund or close", where)
		}
	}
	return nil
}
