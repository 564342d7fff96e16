package ui

import (
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"pixdash/api"
	"pixdash/ui/common"
	"pixdash/ui/newcharge"
)

// formModel is a golden model in the given language with the new-charge form open.
func formModel(t *testing.T, s *Session, lang common.Lang) *Model {
	t.Helper()
	m := New(Options{Session: s, Lang: lang, CustomerLang: common.LangPT, Now: func() time.Time { return goldenNow }, Location: time.UTC})
	m.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	m.Update(runeKey("n"))
	if formOf(m) == nil {
		t.Fatal("n did not open the form")
	}
	return m
}

// submitted runs ctrl+s and returns the draft sent to the root, or the status shown instead.
func submitted(t *testing.T, m *Model) (*newcharge.ChargeDraft, string) {
	t.Helper()
	cmd := formOf(m).Update(tea.KeyMsg{Type: tea.KeyCtrlS})
	if cmd == nil {
		return nil, ""
	}
	switch msg := runReply(cmd).(type) {
	case newcharge.ChargeSubmitMsg:
		return &msg.Draft, ""
	case common.StatusMsg:
		return nil, msg.Text
	default:
		t.Fatalf("ctrl+s produced %#v", msg)
	}
	return nil, ""
}

func TestNewChargeDescriptionPrefilled(t *testing.T) {
	for _, tc := range []struct {
		name, sess, want string
	}{
		{"profile default", "Venda no balcão", "Venda no balcão"},
		{"none in the session", "", DefaultDescription},
		{"blank in the session", "   ", DefaultDescription},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := goldenSession(t, api.Sandbox)
			s.DefaultDescription = tc.sess
			m := formModel(t, s, common.LangEN)
			if got := formOf(m).Inputs[newcharge.FDescription].Value(); got != tc.want {
				t.Fatalf("description starts as %q, want %q", got, tc.want)
			}
			// At the counter: an amount and ctrl+s.
			walletsType(m, "12,34")
			d, status := submitted(t, m)
			if d == nil {
				t.Fatalf("an amount and ctrl+s sent nothing: %q", status)
			}
			if d.Req.Description != strings.TrimSpace(tc.want) || d.Req.Amount != 1234 {
				t.Fatalf("draft = %+v", d.Req)
			}
			if ps := api.CheckCreatePix(&d.Req); len(ps) != 0 {
				t.Fatalf("the client would refuse the draft: %v", ps)
			}
		})
	}
}

func TestNewChargeTypingReplacesDefaultDescription(t *testing.T) {
	m := formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
	walletsType(m, "7")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	if !strings.Contains(m.View(), "default · typing replaces it") {
		t.Fatal("the focused default does not say typing replaces it")
	}
	walletsType(m, "Cafe")
	if got := formOf(m).Inputs[newcharge.FDescription].Value(); got != "Cafe" {
		t.Fatalf("description = %q, want Cafe", got)
	}
	walletsType(m, " com leite")
	if d, _ := submitted(t, m); d == nil || d.Req.Description != "Cafe com leite" {
		t.Fatalf("draft = %+v", d)
	}

	// An arrow key keeps the default for editing: what is typed then is added to it.
	m = formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
	walletsType(m, "7")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	walletsType(m, " 2")
	if got := formOf(m).Inputs[newcharge.FDescription].Value(); got != "Venda 2" {
		t.Fatalf("description = %q, want Venda 2", got)
	}
}

func TestNewChargeClearedDescriptionIsRequired(t *testing.T) {
	for _, tc := range []struct {
		lang common.Lang
		want string
	}{
		{common.LangEN, "Description is required"},
		{common.LangPT, "Descrição é obrigatória"},
	} {
		t.Run(string(tc.lang), func(t *testing.T) {
			m := formModel(t, goldenSession(t, api.Sandbox), tc.lang)
			walletsType(m, "12,34")
			m.Update(tea.KeyMsg{Type: tea.KeyTab})
			m.Update(tea.KeyMsg{Type: tea.KeyBackspace})
			if got := formOf(m).Inputs[newcharge.FDescription].Value(); got != "" {
				t.Fatalf("backspace on the default left %q", got)
			}
			// The message is next to the field at once, before leaving it.
			line := formLine(t, m.View(), formOf(m).FieldLabel(newcharge.FDescription))
			if !strings.Contains(line, "✗ "+tc.want) {
				t.Fatalf("description line = %q, want the message %q", line, tc.want)
			}
			d, status := submitted(t, m)
			if d != nil {
				t.Fatalf("a charge without a description was sent: %+v", d.Req)
			}
			if status == "" || formOf(m).Field != newcharge.FDescription {
				t.Fatalf("status %q, focus %d", status, formOf(m).Field)
			}
			// Spaces only are no description either.
			walletsType(m, "   ")
			if d, _ := submitted(t, m); d != nil {
				t.Fatalf("a blank description was sent: %+v", d.Req)
			}
		})
	}
}

func TestNewChargeDescriptionTooLong(t *testing.T) {
	s := goldenSession(t, api.Sandbox)
	s.DefaultDescription = strings.Repeat("a", 250)
	m := formModel(t, s, common.LangEN)
	walletsType(m, "5")
	m.Update(tea.KeyMsg{Type: tea.KeyTab})
	m.Update(tea.KeyMsg{Type: tea.KeyEnd})
	walletsType(m, strings.Repeat("b", 6))
	if !strings.Contains(formOf(m).Errs[newcharge.FDescription], "at most 255 characters (now 256)") {
		t.Fatalf("message = %q", formOf(m).Errs[newcharge.FDescription])
	}
	if d, _ := submitted(t, m); d != nil {
		t.Fatal("a 256-character description was sent")
	}
}

func TestNewChargeServerMessageIsSanitized(t *testing.T) {
	m := formModel(t, goldenSession(t, api.Sandbox), common.LangEN)
	formOf(m).ServerError(&api.Error{HTTPStatus: 400, Kind: api.KindBadRequest, Message: "description \x1b[2Jbad\nvalue"})
	formOf(m).Tried = true
	view := m.View()
	if strings.ContainsAny(withoutSelection(view), "\x1b\u009b") { // the active tab's own reverse video aside
		t.Fatalf("a control character from the service reached the screen: %q", view)
	}
	if !strings.Contains(formLine(t, view, "Description"), "description  [2Jbad value") {
		t.Fatalf("the refusal is not next to the description:\n%s", view)
	}
}

// formLine returns the view's line for a field label.
func formLine(t *testing.T, view, label string) string {
	t.Helper()
	for _, l := range strings.Split(view, "\n") {
		if strings.Contains(l, "  "+label+" ") || strings.Contains(l, "› "+label+" ") {
			return l
		}
	}
	t.Fatalf("no line for %q in:\n%s", label, view)
	return ""
}
