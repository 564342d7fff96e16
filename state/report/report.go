// Package report renders a day's close (state.CloseReport, the fechamento de caixa) for people
// and for spreadsheets: Text is a plain-text report for the screen, a terminal or a receipt
// printer (48 columns fit one), in English or Portuguese; CSV is one row per wallet plus the
// total, in RFC 4180 or the Brazilian spreadsheet dialect of state/export.
//
// Amounts are integer centavos throughout and never go through a float. Every text that came
// from outside (the profile, wallet names, the reason a balance could not be read) loses its
// control characters and terminal escape sequences before it is written.
package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"pixdash/api/safetext"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	// The same width tables as github.com/charmbracelet/x/ansi's StringWidth, which state
	// packages may not import (TestArchitecture).
	"github.com/clipperhouse/displaywidth"

	"pixdash/api"
	"pixdash/api/i18n"
	"pixdash/state"
	"pixdash/state/export"
)

// The report's languages (the catalog's, pixdash/api/i18n).
const (
	LangEN = string(i18n.English)
	LangPT = string(i18n.Portuguese)
)

// Widths of the text report: a terminal and a receipt printer; anything from MinWidth works.
const (
	DefaultWidth = 80
	ReceiptWidth = 48
	MinWidth     = 40
)

// Options shape the text report.
type Options struct {
	// Width is the most display cells a line takes (DefaultWidth when 0; at least MinWidth).
	Width int
	// Lang is LangEN or LangPT, in any spelling i18n.Parse reads (anything else is English).
	Lang string
	// Loc is the time zone of the day and of the time the report was made (time.Local when nil).
	Loc *time.Location
}

// labels are the report's words in one language.
type labels struct {
	title, profile, day, period, periodTo, made, partial                     string
	wallet, total, wallets                                                   string
	created, paid, gross, fees, feesEstimate, feesEstimateNote, net          string
	unknown, feesUnknownNote, medReturned, medBlocked                        string
	refunds, refundedAmount, refundFees, afterRefunds                        string
	refundFeesReported                                                       string
	pending, expired, failed, cancelled, other                               string
	withdrawals, withdrawalsDone, withdrawalsFailed, withdrawnGross          string
	blocks, splitSent, splitReceived                                         string
	balance, available, held, balanceTotal, notRead, notReadTotal, noFigures string
	noWallets                                                                string
}

// labelsFor is the report's words in l, from the catalog (ids "report.*").
func labelsFor(l i18n.Lang) labels {
	tr := i18n.For(l)
	return labels{
		title:              tr.T("report.title"),
		profile:            tr.T("report.profile"),
		day:                tr.T("report.day"),
		period:             tr.T("report.period"),
		periodTo:           tr.T("report.period_to"),
		made:               tr.T("report.made"),
		partial:            tr.T("report.partial"),
		wallet:             tr.T("report.wallet"),
		total:              tr.T("report.total"),
		wallets:            tr.T("report.wallets"),
		created:            tr.T("report.created"),
		paid:               tr.T("report.paid"),
		gross:              tr.T("report.gross"),
		fees:               tr.T("report.fees"),
		feesEstimate:       tr.T("report.fees_estimate"),
		feesEstimateNote:   tr.T("report.fees_estimate_note"),
		net:                tr.T("report.net"),
		unknown:            tr.T("report.unknown"),
		feesUnknownNote:    tr.T("report.fees_unknown_note"),
		medReturned:        tr.T("report.med_returned"),
		medBlocked:         tr.T("report.med_blocked"),
		refunds:            tr.T("report.refunds"),
		refundedAmount:     tr.T("report.refunded_amount"),
		refundFees:         tr.T("report.refund_fees"),
		afterRefunds:       tr.T("report.after_refunds"),
		refundFeesReported: tr.T("report.refund_fees_reported"),
		pending:            tr.T("report.pending"),
		expired:            tr.T("report.expired"),
		failed:             tr.T("report.failed"),
		cancelled:          tr.T("report.cancelled"),
		other:              tr.T("report.other"),
		withdrawals:        tr.T("report.withdrawals"),
		withdrawalsDone:    tr.T("report.withdrawals_done"),
		withdrawalsFailed:  tr.T("report.withdrawals_failed"),
		withdrawnGross:     tr.T("report.withdrawn_gross"),
		blocks:             tr.T("report.blocks"),
		splitSent:          tr.T("report.split_sent"),
		splitReceived:      tr.T("report.split_received"),
		balance:            tr.T("report.balance"),
		available:          tr.T("report.available"),
		held:               tr.T("report.held"),
		balanceTotal:       tr.T("report.balance_total"),
		notRead:            tr.T("report.not_read"),
		notReadTotal:       tr.T("report.not_read_total"),
		noFigures:          tr.T("report.no_figures"),
		noWallets:          tr.T("report.no_wallets"),
	}
}

// textWriter lays the report out in lines of at most width cells.
type textWriter struct {
	b     strings.Builder
	width int
	pt    bool
	l     *labels
}

// Text renders the close as plain text (no escape sequences), each line at most o.Width
// display cells: a header (profile, day, when it was made, PARTIAL while the day runs), one
// section per wallet and the TOTAL, with the figures right-aligned.
func Text(r state.CloseReport, o Options) string {
	lang, _ := i18n.Parse(o.Lang)
	l := labelsFor(lang)
	w := &textWriter{width: o.Width, l: &l, pt: lang == i18n.Portuguese}
	if w.width == 0 {
		w.width = DefaultWidth
	}
	w.width = max(w.width, MinWidth)
	loc := o.Loc
	if loc == nil {
		loc = time.Local
	}
	w.rule('=')
	w.text(0, strings.ToUpper(l.title))
	w.text(0, l.profile+": "+safetext.Clean(r.Profile))
	w.text(0, w.period(r.Day, loc))
	if !r.Made.IsZero() {
		w.text(0, l.made+" "+r.Made.In(loc).Format("15:04"))
	}
	if r.Partial {
		w.text(0, l.partial)
	}
	w.rule('=')
	if len(r.Wallets) == 0 {
		w.blank()
		w.text(0, l.noWallets)
	}
	for _, line := range r.Wallets {
		w.blank()
		w.text(0, l.wallet+": "+safetext.Clean(line.Wallet))
		w.rule('-')
		w.section(line, r, false)
	}
	w.blank()
	w.text(0, fmt.Sprintf("%s (%d %s)", l.total, len(r.Wallets), l.wallets))
	w.rule('=')
	w.section(r.Total, r, true)
	w.rule('=')
	return w.b.String()
}

// period is the header's day ("Day: 23/11/2026", dd/mm/yyyy in both languages, as the
// dashboard's screens write dates) or, for a longer period, its first and last day.
func (w *textWriter) period(p state.Period, loc *time.Location) string {
	const layout = "02/01/2006"
	if p.From.IsZero() {
		return w.l.day + ": " + w.l.noFigures
	}
	from := p.From.In(loc)
	if !p.Valid() || p.DayCount(loc) <= 1 {
		return w.l.day + ": " + from.Format(layout)
	}
	last := p.To.Add(-time.Nanosecond).In(loc)
	return fmt.Sprintf("%s: %s %s %s", w.l.period, from.Format(layout), w.l.periodTo, last.Format(layout))
}

// section writes one wallet's figures (or the total's).
func (w *textWriter) section(c state.CloseLine, r state.CloseReport, total bool) {
	l := w.l
	w.kv(0, l.created, w.count(c.Created))
	w.kv(0, l.paid, w.count(c.Paid))
	w.kv(0, l.gross, w.money(c.Gross))
	// An unknown fee is unknown, never zero: so are the fees and the nets that depend on it.
	netOr := func(m api.Money) string {
		if !c.FeesKnown() {
			return l.unknown
		}
		return w.money(m)
	}
	if !c.FeesKnown() {
		w.kv(0, l.fees, l.unknown)
		w.text(2, fmt.Sprintf(l.feesUnknownNote, w.count(c.FeesUnknown), w.count(c.Paid)))
	} else if c.FeesEstimated > 0 {
		w.kv(0, l.feesEstimate, w.money(c.Fees))
		w.text(2, fmt.Sprintf(l.feesEstimateNote, w.count(c.FeesEstimated), w.count(c.Paid), keep(w.money(r.FeeEstimate))))
	} else {
		w.kv(0, l.fees, w.money(c.Fees))
	}
	w.kv(0, l.net, netOr(c.Net()))
	w.kv(0, l.refunds, w.count(c.Refunded))
	w.kv(2, l.refundedAmount, w.money(c.RefundedAmount))
	w.kv(2, l.refundFees, w.money(c.RefundFees))
	if c.RefundFeesReported > 0 {
		w.kv(2, l.refundFeesReported, w.money(c.RefundFeesReported))
	}
	w.kv(0, l.afterRefunds, netOr(c.AfterRefunds()))
	// Payments of the day whose money a MED block returned or holds (shown when there are).
	if c.Returned > 0 {
		w.kv(0, fmt.Sprintf("%s (%s)", l.medReturned, w.count(c.Returned)), w.money(c.ReturnedAmount))
	}
	if c.Blocked > 0 {
		w.kv(0, fmt.Sprintf("%s (%s)", l.medBlocked, w.count(c.Blocked)), w.money(c.BlockedAmount))
	}
	w.kv(0, l.pending, w.count(c.Pending))
	w.kv(0, l.expired, w.count(c.Expired))
	w.kv(0, l.failed, w.count(c.Failed))
	w.kv(0, l.cancelled, w.count(c.Cancelled))
	if c.Unknown > 0 {
		w.kv(0, l.other, w.count(c.Unknown))
	}
	w.kv(0, l.withdrawals, w.count(c.Withdrawals))
	w.kv(2, l.withdrawalsDone, w.count(c.WithdrawalsCompleted))
	w.kv(2, l.withdrawalsFailed, w.count(c.WithdrawalsFailed))
	w.kv(2, l.withdrawnGross, w.money(c.WithdrawnGross))
	w.kv(0, l.blocks, w.count(c.BlocksOpened)+" / "+w.count(c.BlocksResolved))
	w.kv(0, fmt.Sprintf("%s (%s)", l.splitSent, w.count(c.SplitSentN)), w.money(c.SplitSent))
	w.kv(0, fmt.Sprintf("%s (%s)", l.splitReceived, w.count(c.SplitReceivedN)), w.money(c.SplitReceived))
	switch b := c.Balance; {
	case b != nil:
		w.text(0, l.balance)
		w.kv(2, l.available, w.moneyPtr(b.Available))
		w.kv(2, l.held, w.moneyPtr(b.Held))
		w.kv(2, l.balanceTotal, w.moneyPtr(b.Total))
	case c.BalanceErr != "":
		w.text(0, l.balance)
		w.text(2, l.notRead+": "+safetext.Clean(c.BalanceErr))
	case total && len(r.Wallets) > 0:
		w.text(0, l.balance)
		w.text(2, l.notReadTotal)
	default:
		w.kv(0, l.balance, l.notRead)
	}
}

// money formats m in reais as the dashboard writes them in both languages ("R$ 1.234,56"):
// the currency is the Brazilian real, and the close must match the screens it is checked against.
func (w *textWriter) money(m api.Money) string { return m.BRL() }

func (w *textWriter) moneyPtr(m *api.Money) string {
	if m == nil {
		return w.l.noFigures
	}
	return w.money(*m)
}

// count writes n with the language's thousands separator.
func (w *textWriter) count(n int) string {
	sep := byte(',')
	if w.pt {
		sep = '.'
	}
	return group(strconv.Itoa(n), sep)
}

// group inserts sep between groups of three digits of a decimal integer ("-1234" → "-1,234").
func group(digits string, sep byte) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	b.WriteString(sign)
	for i := 0; i < len(digits); i++ {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(sep)
		}
		b.WriteByte(digits[i])
	}
	return b.String()
}

func (w *textWriter) blank() { w.b.WriteByte('\n') }

func (w *textWriter) rule(c byte) {
	w.b.WriteString(strings.Repeat(string(c), w.width))
	w.b.WriteByte('\n')
}

// text writes s indented, wrapped at spaces (a word wider than the line is cut); a no-break
// space (keep) holds its words together and is written as a space.
func (w *textWriter) text(indent int, s string) {
	pad := strings.Repeat(" ", indent)
	for _, line := range wrap(s, w.width-indent) {
		w.b.WriteString(pad + strings.ReplaceAll(line, nbsp, " ") + "\n")
	}
}

// nbsp joins words that wrap must not separate.
const nbsp = "\u00a0"

// keep joins s's words with no-break spaces, so that "R$ 0,99" stays on one line.
func keep(s string) string { return strings.ReplaceAll(s, " ", nbsp) }

// kv writes a label and its value right-aligned on one line; when both do not fit, the label
// takes its own lines and the value the next one, still right-aligned.
func (w *textWriter) kv(indent int, label, value string) {
	lw, vw := width(label), width(value)
	if indent+lw+1+vw <= w.width {
		w.b.WriteString(strings.Repeat(" ", indent) + label + strings.Repeat(" ", w.width-indent-lw-vw) + value + "\n")
		return
	}
	w.text(indent, label)
	if vw > w.width {
		w.text(0, value)
		return
	}
	w.b.WriteString(strings.Repeat(" ", w.width-vw) + value + "\n")
}

// width is s's display width in cells.
func width(s string) int { return displaywidth.String(s) }

// wrap breaks s into lines of at most max cells, at spaces where it can.
func wrap(s string, limit int) []string {
	limit = max(limit, 1)
	var lines []string
	var cur strings.Builder
	curW := 0
	flush := func() {
		lines = append(lines, cur.String())
		cur.Reset()
		curW = 0
	}
	for _, word := range strings.Split(s, " ") {
		if word == "" {
			continue
		}
		ww := width(word)
		if curW > 0 && curW+1+ww <= limit {
			cur.WriteByte(' ')
			cur.WriteString(word)
			curW += 1 + ww
			continue
		}
		if curW > 0 {
			flush()
		}
		for ww > limit { // a word wider than a line: cut it, rune by rune
			cut, cw := 0, 0
			for i, r := range word {
				rw := width(string(r))
				if cw+rw > limit {
					cut = i
					break
				}
				cw += rw
			}
			if cut == 0 {
				_, cut = utf8.DecodeRuneInString(word)
			}
			cur.WriteString(word[:cut])
			flush()
			word = word[cut:]
			ww = width(word)
		}
		cur.WriteString(word)
		curW = ww
	}
	if curW > 0 || len(lines) == 0 {
		flush()
	}
	return lines
}

// csvColumn is one field of the CSV: its header in each dialect and its cell.
type csvColumn struct {
	en, pt string
	cell   func(c *state.CloseLine, f export.Format) string
}

func intCell(n func(c *state.CloseLine) int) func(*state.CloseLine, export.Format) string {
	return func(c *state.CloseLine, _ export.Format) string { return strconv.Itoa(n(c)) }
}

func moneyCell(m func(c *state.CloseLine) api.Money) func(*state.CloseLine, export.Format) string {
	return func(c *state.CloseLine, f export.Format) string { return export.Amount(m(c), f) }
}

// feeCell is a figure that depends on the fees: empty (unknown) when a fee is unknown, never
// as if it were zero.
func feeCell(m func(c *state.CloseLine) api.Money) func(*state.CloseLine, export.Format) string {
	return func(c *state.CloseLine, f export.Format) string {
		if !c.FeesKnown() {
			return ""
		}
		return export.Amount(m(c), f)
	}
}

func balanceCell(m func(b *api.AccountBalance) *api.Money) func(*state.CloseLine, export.Format) string {
	return func(c *state.CloseLine, f export.Format) string {
		if c.Balance == nil || m(c.Balance) == nil {
			return ""
		}
		return export.Amount(*m(c.Balance), f)
	}
}

// csvColumns are the CSV's fields after date and wallet, in order.
var csvColumns = []csvColumn{
	{"created", "criadas", intCell(func(c *state.CloseLine) int { return c.Created })},
	{"paid", "pagas", intCell(func(c *state.CloseLine) int { return c.Paid })},
	{"gross", "bruto", moneyCell(func(c *state.CloseLine) api.Money { return c.Gross })},
	{"fees", "tarifas", feeCell(func(c *state.CloseLine) api.Money { return c.Fees })},
	{"fees_estimated", "tarifas_estimadas", intCell(func(c *state.CloseLine) int { return c.FeesEstimated })},
	{"net", "liquido", feeCell(func(c *state.CloseLine) api.Money { return c.Net() })},
	{"refunded", "estornos", intCell(func(c *state.CloseLine) int { return c.Refunded })},
	{"refunded_amount", "valor_estornado", moneyCell(func(c *state.CloseLine) api.Money { return c.RefundedAmount })},
	{"refund_fees", "tarifas_estorno", moneyCell(func(c *state.CloseLine) api.Money { return c.RefundFees })},
	{"net_after_refunds", "liquido_apos_estornos", feeCell(func(c *state.CloseLine) api.Money { return c.AfterRefunds() })},
	{"pending", "pendentes", intCell(func(c *state.CloseLine) int { return c.Pending })},
	{"expired", "expiradas", intCell(func(c *state.CloseLine) int { return c.Expired })},
	{"failed", "com_falha", intCell(func(c *state.CloseLine) int { return c.Failed })},
	{"cancelled", "canceladas", intCell(func(c *state.CloseLine) int { return c.Cancelled })},
	{"withdrawals", "saques", intCell(func(c *state.CloseLine) int { return c.Withdrawals })},
	{"withdrawals_completed", "saques_concluidos", intCell(func(c *state.CloseLine) int { return c.WithdrawalsCompleted })},
	{"withdrawn_gross", "sacado_bruto", moneyCell(func(c *state.CloseLine) api.Money { return c.WithdrawnGross })},
	{"blocks_opened", "bloqueios_abertos", intCell(func(c *state.CloseLine) int { return c.BlocksOpened })},
	{"blocks_resolved", "bloqueios_resolvidos", intCell(func(c *state.CloseLine) int { return c.BlocksResolved })},
	{"split_sent_n", "split_enviado_qtd", intCell(func(c *state.CloseLine) int { return c.SplitSentN })},
	{"split_sent", "split_enviado", moneyCell(func(c *state.CloseLine) api.Money { return c.SplitSent })},
	{"split_received_n", "split_recebido_qtd", intCell(func(c *state.CloseLine) int { return c.SplitReceivedN })},
	{"split_received", "split_recebido", moneyCell(func(c *state.CloseLine) api.Money { return c.SplitReceived })},
	{"balance_available", "saldo_disponivel", balanceCell(func(b *api.AccountBalance) *api.Money { return b.Available })},
	{"balance_held", "saldo_bloqueado", balanceCell(func(b *api.AccountBalance) *api.Money { return b.Held })},
	{"balance_total", "saldo_total", balanceCell(func(b *api.AccountBalance) *api.Money { return b.Total })},
}

// CSVHeader is the CSV's first record: English names, or Portuguese ones for the Brazilian dialect.
func CSVHeader(brazilian bool) []string {
	out := []string{"date", "wallet"}
	if brazilian {
		out = []string{"data", "carteira"}
	}
	for _, c := range csvColumns {
		if brazilian {
			out = append(out, c.pt)
		} else {
			out = append(out, c.en)
		}
	}
	return out
}

// TotalWallet is the wallet cell of the CSV's total row.
const TotalWallet = "TOTAL"

// CSV writes the close as a header, one row per wallet and a TOTAL row: RFC 4180 (",", amounts
// like 1234.56, the day as 2006-01-02) or, when brazilian, the dialect of state/export's BR
// format (a UTF-8 byte-order mark, ";", amounts like 1234,56, the day as dd/mm/aaaa, Portuguese
// headers). Counts are integers and amounts have exactly two decimals with no thousands
// separator; a balance that was not read is an empty cell. Wallet names are written as data
// (state/export's formula guard).
func CSV(w io.Writer, r state.CloseReport, brazilian bool) error {
	f, day := export.CSV, r.Day.From.Format("2006-01-02")
	if brazilian {
		f, day = export.BR, r.Day.From.Format("02/01/2006")
		if _, err := io.WriteString(w, "\uFEFF"); err != nil {
			return err
		}
	}
	if r.Day.From.IsZero() {
		day = ""
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if brazilian {
		cw.Comma = ';'
	}
	if err := cw.Write(CSVHeader(brazilian)); err != nil {
		return err
	}
	row := func(wallet string, c *state.CloseLine) error {
		rec := make([]string, 0, 2+len(csvColumns))
		rec = append(rec, day, wallet)
		for _, col := range csvColumns {
			rec = append(rec, col.cell(c, f))
		}
		return cw.Write(rec)
	}
	for i := range r.Wallets {
		if err := row(export.Text(safetext.Clean(r.Wallets[i].Wallet)), &r.Wallets[i]); err != nil {
			return err
		}
	}
	if err := row(TotalWallet, &r.Total); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}
