package common

import (
	"fmt"

	"pixdash/api"
)

// Change is "+12%" / "−5%" between two amounts, or a word when there is nothing to compare with.
func Change(tr Catalog, now, before api.Money) string {
	switch {
	case before == 0 && now == 0:
		return tr.T("day.no_change")
	case before == 0:
		return tr.T("day.none_before")
	}
	pct := float64(now-before) * 100 / float64(before)
	switch {
	case pct >= 0.5:
		return fmt.Sprintf("+%.0f%%", pct)
	case pct <= -0.5:
		return fmt.Sprintf("−%.0f%%", -pct)
	}
	return "±0%"
}
