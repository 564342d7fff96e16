package state

import (
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

// fixtureRow is a charge of bigStore as the row-by-row filter sees it.
type fixtureRow struct{ id, wallet, state, hay string }

// bigStoreRows reads bigStore's charges, newest first, once.
var bigStoreRows = sync.OnceValues(func() ([]fixtureRow, error) {
	s, err := bigStore()
	if err != nil {
		return nil, err
	}
	rows, err := s.rdb.QueryContext(ctx, `SELECT id, wallet, state, hay FROM charges ORDER BY seq DESC`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []fixtureRow
	for rows.Next() {
		var r fixtureRow
		if err := rows.Scan(&r.id, &r.wallet, &r.state, &r.hay); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
})

// rowByRow is the meaning of a charge query, as the row-by-row path (instr) has it: the first
// limit matches, newest first, and how many there are.
func rowByRow(t *testing.T, q ChargeQuery, limit int) ([]string, int) {
	rows, err := bigStoreRows()
	if err != nil {
		t.Fatal(err)
	}
	needle := Fold(strings.TrimSpace(q.Text)) // the filter ignores case and accents
	var ids []string
	n := 0
	for _, r := range rows {
		if (q.Wallet == "" || r.wallet == q.Wallet) && (q.Status == FilterAll || r.state == string(q.Status)) && strings.Contains(r.hay, needle) {
			if n++; len(ids) < limit {
				ids = append(ids, r.id)
			}
		}
	}
	return ids, n
}

var fuzzWallets = []string{"", "principal", "zz-fill", "loja-b", "loja-centro", "nowhere"}

// FuzzChargeFilter: any filter text, status and wallet is answered without an error, and the
// answer (first window, total, capped) is the row-by-row one, whichever path ChargeWindow
// takes (bigStore holds enough charges for the full-text one on the whole list and on the
// failed ones).
func FuzzChargeFilter(f *testing.F) {
	for _, q := range []string{"", "7F3A", "pão de q", "1.234,56", "1234.56", "23/11", "14:05", "fill-0", "fill-00", "água", "AÇAÍ",
		`"`, `"oi"`, `""`, `*`, `2*3`, `AND`, `NEAR(`, `near(a b)`, `col:val`, `-x ^y`, `{z}`, `'q'`, `50%`, `a_b`, `c\d`, `OR`, `)`,
		"ǅungla", "İstanbul", "ΣΑΣ", "ẞ", "\x1f", "a\x1fb", "bolo\x1fsuco", "a\x00b", "\xff\xfe", "  misto  "} {
		f.Add(q, uint8(0), uint8(0))
	}
	f.Add("suco", uint8(3), uint8(2)) // failed, zz-fill
	f.Add("ref-1", uint8(3), uint8(0))
	f.Add("paid", uint8(2), uint8(1))
	f.Fuzz(func(t *testing.T, text string, status, wallet uint8) {
		s := bigStoreT(t)
		filters := StatusFilters()
		q := ChargeQuery{Text: text, Status: filters[int(status)%len(filters)], Wallet: fuzzWallets[int(wallet)%len(fuzzWallets)]}
		const limit = 20
		p, err := s.ChargeWindow(ctx, q, 0, limit)
		if err != nil {
			t.Fatalf("%+v: %v", q, err)
		}
		want, n := rowByRow(t, q, limit)
		_, slice := rowByRow(t, ChargeQuery{Wallet: q.Wallet, Status: q.Status}, 0)
		needle := Fold(strings.TrimSpace(text))
		total, capped := n, false // without text, counted exactly
		switch {
		case needle == "":
		case slice > smallSlice && (utf8.RuneCountInString(needle) < 3 || strings.ContainsRune(needle, 0)):
			// Checked row by row on a large list, not counted: "this window, and more".
			total, capped = len(want), len(want) == limit
		default:
			total, capped = min(n, MaxCountedMatches), n > MaxCountedMatches
		}
		got := chargeIDs(p.Charges)
		if strings.Join(got, ",") != strings.Join(want, ",") || p.Total != total || p.Capped != capped {
			t.Fatalf("%+v: %v (total %d, capped %v), row by row %v (%d matches)", q, got, p.Total, p.Capped, want, n)
		}
	})
}
