package ui

import (
	"reflect"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"

	"pixdash/api"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
)

// Issue 14 #17: esc on a filled form asks before throwing it away; n keeps what was typed,
// y closes it. An untouched form closes at once.
func TestNewChargeEscAsksBeforeDiscarding(t *testing.T) {
	for _, lang := range []common.Lang{common.LangEN, common.LangPT} {
		t.Run(string(lang), func(t *testing.T) {
			m := formModel(t, goldenSession(t, api.Sandbox), lang)
			keyPress(t, m, tea.KeyMsg{Type: tea.KeyEsc})
			if formOf(m) != nil {
				t.Fatal("esc on an untouched form did not close it")
			}

			m = formModel(t, goldenSession(t, api.Sandbox), lang)
			walletsType(m, "12,34")
			question := formOf(m).QuitQuestion()
			if question == "" {
				t.Fatal("a filled form has no question")
			}
			keyPress(t, m, tea.KeyMsg{Type: tea.KeyEsc})
			if formOf(m) == nil {
				t.Fatal("esc threw a filled form away without asking")
			}
			screen := ansi.Strip(m.View())
			discard := map[common.Lang]string{common.LangEN: "Discard", common.LangPT: "Descartar"}[lang]
			if !strings.Contains(screen, discard) {
				t.Fatalf("no question on screen:\n%s", screen)
			}
			keyPress(t, m, runeKey("n"))
			if f := formOf(m); f == nil || f.Inputs[newcharge.FAmount].Value() != "12,34" {
				t.Fatal("n did not keep the form as typed")
			}
			if strings.Contains(ansi.Strip(m.View()), discard) {
				t.Fatalf("the question stays after n:\n%s", ansi.Strip(m.View()))
			}
			// Typing goes to the form again.
			walletsType(m, "5")
			if got := formOf(m).Inputs[newcharge.FAmount].Value(); got != "12,345" {
				t.Fatalf("amount = %q after n and a key", got)
			}
			keyPress(t, m, tea.KeyMsg{Type: tea.KeyEsc})
			keyPress(t, m, runeKey("y"))
			if formOf(m) != nil {
				t.Fatal("y did not discard the form")
			}
		})
	}
}

// Issue 14 #17: ctrl+c in a filled form asks (the root's quit guard); in an empty one it quits.
func TestNewChargeCtrlCAsksWhenFilled(t *testing.T) {
	m := formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
	if q := formOf(m).QuitQuestion(); q != "" {
		t.Fatalf("an untouched form asks %q", q)
	}
	walletsType(m, "7")
	if keyPress(t, m, tea.KeyMsg{Type: tea.KeyCtrlC}) {
		t.Fatal("ctrl+c quit a filled form without asking")
	}
	if !strings.Contains(ansi.Strip(m.View()), "(y/N)") {
		t.Fatalf("no question:\n%s", ansi.Strip(m.View()))
	}
	if !keyPress(t, m, runeKey("y")) {
		t.Fatal("y did not quit")
	}

	m = formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
	if !keyPress(t, m, tea.KeyMsg{Type: tea.KeyCtrlC}) {
		t.Fatal("ctrl+c on an untouched form did not quit")
	}
	// Each field counts: a changed description, a payer, metadata, another expiry.
	for name, edit := range map[string]func(f *newcharge.ChargeForm){
		"description": func(f *newcharge.ChargeForm) { f.Inputs[newcharge.FDescription].SetValue("Outra coisa") },
		"payer":       func(f *newcharge.ChargeForm) { f.Inputs[newcharge.FName].SetValue("Maria") },
		"metadata":    func(f *newcharge.ChargeForm) { f.Meta.SetValue("mesa=4") },
		"expiry":      func(f *newcharge.ChargeForm) { f.Preset = 0 },
	} {
		m := formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
		edit(formOf(m))
		if formOf(m).QuitQuestion() == "" {
			t.Errorf("%s: a changed form has no question", name)
		}
	}
}

// Issue 14 #10: pairs are separated by spaces, ";" or new lines; a value runs to the next
// key=, so it may hold spaces; quotes keep anything.
func TestParseMetadataPairs(t *testing.T) {
	tr := common.Catalog{Lang: common.LangEN}
	for _, tc := range []struct {
		in   string
		want map[string]any
	}{
		{"mesa=4 garcom=Joao", map[string]any{"mesa": "4", "garcom": "Joao"}},
		{"mesa=4;garcom=Joao", map[string]any{"mesa": "4", "garcom": "Joao"}},
		{"mesa=4 ; garcom=Joao;", map[string]any{"mesa": "4", "garcom": "Joao"}},
		{"mesa=4\ngarcom=Joao\n\n", map[string]any{"mesa": "4", "garcom": "Joao"}},
		{"garcom=João da Silva mesa=4", map[string]any{"garcom": "João da Silva", "mesa": "4"}},
		{"obs=sem cebola; mesa=12", map[string]any{"obs": "sem cebola", "mesa": "12"}},
		{`obs="leve 2 x=3" mesa=1`, map[string]any{"obs": "leve 2 x=3", "mesa": "1"}},
		{"cupom=A=B", map[string]any{"cupom": "A=B"}},
		{"mesa=", map[string]any{"mesa": ""}},
		{"  ", nil},
		{"order=1234", map[string]any{"order": "1234"}},
	} {
		got, err := common.ParseMetadata(tr, tc.in)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q = %#v, want %#v", tc.in, got, tc.want)
		}
	}
	for in, want := range map[string]string{
		"mesa 4":           `"mesa 4": write key=value`,
		"mesa=4 mesa=5":    `key "mesa" appears twice`,
		"=4":               `"=4": write key=value`,
		`obs="sem fim`:     "closing quote",
		"mesa=1;;garcom 2": `"garcom 2": write key=value`,
	} {
		if _, err := common.ParseMetadata(tr, in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", in, err, want)
		}
	}
}

// Issue 14 #10: the form says how to separate pairs and shows the pairs it will send.
func TestNewChargeMetadataPreview(t *testing.T) {
	for _, size := range goldenSizes {
		m := formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
		send(t, m, tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		walletsType(m, "12,34")
		for formOf(m).Field != newcharge.FMetadata {
			m.Update(tea.KeyMsg{Type: tea.KeyTab})
		}
		screen := ansi.Strip(m.View())
		if !strings.Contains(screen, "separate pairs with a space, ; or a new line") {
			t.Fatalf("%dx%d: no hint on how to separate pairs:\n%s", size[0], size[1], screen)
		}
		m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("mesa=4 garcom=João Silva"), Paste: true})
		screen = ansi.Strip(m.View())
		if !strings.Contains(screen, `sends 2 pairs: mesa=4 · garcom="João Silva"`) {
			t.Fatalf("%dx%d: no preview of the pairs:\n%s", size[0], size[1], screen)
		}
		d, status := submitted(t, m)
		if d == nil {
			t.Fatalf("not sent: %s", status)
		}
		if want := map[string]any{"mesa": "4", "garcom": "João Silva"}; !reflect.DeepEqual(d.Req.Metadata, want) {
			t.Fatalf("metadata sent = %#v", d.Req.Metadata)
		}
		if lines := strings.Split(m.View(), "\n"); len(lines) != size[1] {
			t.Fatalf("%dx%d: the form drew %d lines", size[0], size[1], len(lines))
		}
	}
}
