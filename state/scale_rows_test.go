package state

import "testing"

// TestListRowsShown counts the list's rows on a drawn screen: the rows that are there, in order,
// and not a row whose text only shows above the one before it (a later repaint of the top).
func TestListRowsShown(t *testing.T) {
	texts := []string{"R$ 1,00  a", "R$ 2,00  b", "R$ 3,00  c", "R$ 4,00  d"}
	for _, tc := range []struct {
		name, out string
		want      int
	}{
		{"all", "\x1b[H strip\r\n R$ 1,00  a \x1b[0m\r\n R$ 2,00  b\r\n R$ 3,00  c\r\n R$ 4,00  d\r\n", 4},
		{"the screen ends", "strip\r\nR$ 1,00  a\r\nR$ 2,00  b\r\nhelp", 2},
		{"out of order", "R$ 1,00  a\r\nR$ 3,00  c\r\nR$ 2,00  b\r\n", 2},
		{"nothing", "reading…", 0},
	} {
		if got := listRowsShown([]byte(tc.out), texts); got != tc.want {
			t.Errorf("%s: %d rows, want %d", tc.name, got, tc.want)
		}
	}
}
