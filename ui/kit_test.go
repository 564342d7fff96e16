package ui

import (
	"reflect"
	"testing"

	"pixdash/ui/common"
	"pixdash/ui/refund"
)

// fixHighlighted, the forms' one answer to a submit with errors: the first field with a
// message, and a status line in the catalog's language owned by the form.
func TestFixHighlighted(t *testing.T) {
	for _, tc := range []struct {
		lang common.Lang
		want string
	}{{common.LangEN, "Fix the highlighted fields; nothing was sent."}, {common.LangPT, "Corrija os campos destacados; nada foi enviado."}} {
		c := &common.Common{Tr: common.Catalog{Lang: tc.lang}}
		i, cmd := common.FixHighlighted(c, []string{"", "required", "too long"}, refund.OwnerRefund)
		if i != 1 || cmd == nil {
			t.Fatalf("first field with a message = %d (cmd %v), want 1", i, cmd != nil)
		}
		msg, ok := cmd().(common.StatusMsg)
		if !ok || msg.Kind != common.StatusError || msg.Owner != refund.OwnerRefund {
			t.Fatalf("status = %#v", cmd())
		}
		if tc.lang == common.LangEN && msg.Text != tc.want {
			t.Errorf("text = %q, want %q", msg.Text, tc.want)
		}
		if tc.lang == common.LangPT && msg.Text == "Fix the highlighted fields; nothing was sent." {
			t.Errorf("pt-BR text left in English: %q", msg.Text)
		}
		if i, cmd := common.FixHighlighted(c, []string{"", ""}, refund.OwnerRefund); i != -1 || cmd != nil {
			t.Errorf("no message: %d, %v; want -1 and nothing", i, cmd != nil)
		}
	}
}

// packSegments, the one segment packer: n limits the lines, n <= 0 keeps all.
func TestPackSegments(t *testing.T) {
	segs := []string{"enter open", "c copy", "q quit"}
	if got, want := common.PackSegments(segs, " · ", 20, 0), []string{"enter open · c copy", "q quit"}; !reflect.DeepEqual(got, want) {
		t.Errorf("unlimited = %q, want %q", got, want)
	}
	if got, want := common.PackSegments(segs, " · ", 20, 1), []string{"enter open · c copy"}; !reflect.DeepEqual(got, want) {
		t.Errorf("one line = %q, want %q", got, want)
	}
	if got := common.PackSegments(segs, " · ", 0, 0); got != nil {
		t.Errorf("no width = %q", got)
	}
}
