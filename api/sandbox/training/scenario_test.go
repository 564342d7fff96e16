package training

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestParseRefusesBadScenarios: a shop's own scenario file gets a specific message.
func TestParseRefusesBadScenarios(t *testing.T) {
	head := "name = \"x\"\ntitle = \"X\"\n"
	step := func(body string) string { return head + "[[steps]]\nlabel = \"l\"\ntext = \"t\"\n" + body }
	charge := "kind = \"charge\"\ncustomer = \"Ana\"\namount = \"10.00\"\npays = \"cpf\"\n"
	cases := []struct{ name, toml, want string }{
		{"no title", "name = \"x\"\n", "name and title are required"},
		{"no steps", head, "no steps"},
		{"unknown key", head + "colour = 1\n", "unknown key colour"},
		{"unknown kind", step("kind = \"dance\"\n"), "unknown kind"},
		{"bad amount", step("kind = \"charge\"\ncustomer = \"Ana\"\namount = \"10,001\"\npays = \"cpf\"\n"), "amount \"10,001\""},
		{"bad pays", step("kind = \"charge\"\ncustomer = \"Ana\"\namount = \"10.00\"\npays = \"card\"\n"), "say cpf, cnpj or never"},
		{"never without gives_up", step("kind = \"charge\"\ncustomer = \"Ana\"\namount = \"10.00\"\npays = \"never\"\n"), "needs gives_up"},
		{"handover before charge", step("kind = \"handover\"\ncustomer = \"Ana\"\n"), "has no charge step before it"},
		{"refuse a payer", step(charge) + "[[steps]]\nlabel = \"l\"\ntext = \"t\"\nkind = \"refuse\"\ncustomer = \"Ana\"\n", "refuse is for a payment that does not come"},
		{"outage without duration", step("kind = \"outage\"\n"), "duration (seconds) is required"},
		{"no label", head + "[[steps]]\nkind = \"close\"\n", "label and text are required"},
		{"twice the same customer", step(charge) + "[[steps]]\nlabel = \"l\"\ntext = \"t\"\n" + charge, "already has a charge"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.toml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
		})
	}
	if _, err := Parse([]byte(step(charge))); err != nil {
		t.Fatalf("a good scenario: %v", err)
	}
	if _, err := Builtin("nope"); err == nil || !strings.Contains(err.Error(), "basico, dia-cheio, problemas") {
		t.Fatalf("unknown built-in: %v", err)
	}
}

// TestBuiltinTextsFitTheStrip: at 80x24 the strip under the dashboard has three lines of 79
// cells for what to do now and one for the step's label: every built-in step fits whole, in
// both languages.
func TestBuiltinTextsFitTheStrip(t *testing.T) {
	for _, name := range Builtins() {
		sc, err := Builtin(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, st := range sc.Steps {
			for _, text := range []string{st.Text, st.TextEN} {
				if text == "" {
					t.Errorf("%s step %d: no English text", name, i+1)
					continue
				}
				if n := len(strings.Split(ansi.Wrap(text, 78, ""), "\n")); n > 3 {
					t.Errorf("%s step %d: %d lines at 78 cells: %q", name, i+1, n, text)
				}
			}
			// "TREINAMENTO passo 10/10 " and "T lista" leave 80-13-12-8 cells for the label.
			for _, l := range []string{st.Label, st.LabelEN} {
				if ansi.StringWidth(l) > 46 {
					t.Errorf("%s step %d: label %q is wider than 46 cells", name, i+1, l)
				}
			}
		}
	}
}

// FuzzParse: no scenario file panics the parser, and what it accepts is complete.
func FuzzParse(f *testing.F) {
	for _, name := range Builtins() {
		b, _ := builtin.ReadFile("scenarios/" + name + ".toml")
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := Parse(data)
		if err != nil {
			return
		}
		if sc.Title == "" || len(sc.Steps) == 0 {
			t.Fatalf("accepted an empty scenario: %+v", sc)
		}
	})
}
