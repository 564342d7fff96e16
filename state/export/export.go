// Package export writes a profile's charges as a spreadsheet: CSV (RFC 4180, UTF-8, "," and a
// decimal point, ISO 8601 dates) or the Brazilian dialect Excel and LibreOffice open as they
// are (UTF-8 with a byte-order mark, ";" and a decimal comma, dates dd/mm/aaaa hh:mm).
//
// Rows are read from the store a batch at a time (state.Store.ChargesBefore: each batch starts
// after the last charge of the previous one, so the time is linear in the rows) and streamed to the
// writer: an export never holds all of history in memory. Amounts are formatted from integer
// centavos, never through floats. Every text that came from outside is written as data: the CSV
// quoting handles separators, quotes and line breaks, and a cell that a spreadsheet would read
// as a formula (starting with =, +, -, @, a tab or a carriage return) gets a leading apostrophe.
// Payer documents are masked with state.MaskDocument; no secret is part of a charge.
package export

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"strconv"
	"strings"
	"time"

	"pixdash/api"
	"pixdash/api/atomicfile"
	"pixdash/api/safetext"
	"pixdash/state"
)

// Format is an export's dialect.
type Format string

// The dialects.
const (
	// CSV is RFC 4180: UTF-8, "," between fields, "." before the centavos, ISO 8601 dates.
	CSV Format = "csv"
	// BR is the Brazilian spreadsheet dialect: a UTF-8 byte-order mark, ";" between fields, ","
	// before the centavos, dates as dd/mm/aaaa hh:mm and the header and labels in Portuguese.
	BR Format = "br"
)

// ParseFormat reads "csv" or "br" (any case); "" is BR, the default.
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "br":
		return BR, nil
	case "csv":
		return CSV, nil
	}
	return "", fmt.Errorf("unknown export format %q: say csv or br", s)
}

// Ext is the file name extension of the format (both are .csv).
func (f Format) Ext() string { return ".csv" }

// Source reads windows of the charges list, newest first: *state.Store.
type Source interface {
	ChargeWindow(ctx context.Context, q state.ChargeQuery, offset, limit int) (state.ChargePage, error)
}

// KeysetSource is what a Source may also offer, and *state.Store does: the list read in
// batches that each start after the last charge of the previous one (state.Store.ChargesBefore),
// so an export's time grows linearly with the charges rather than as their square.
type KeysetSource interface {
	ChargesBefore(ctx context.Context, q state.ChargeQuery, before int64, limit int) ([]state.Charge, int64, error)
}

// KeysetRefundsSource is what a Source may also offer, and *state.Store does: ChargesBefore
// with the refunds of the batch's charges read in the same query (RefundsOf for the batch).
type KeysetRefundsSource interface {
	ChargesRefundsBefore(ctx context.Context, q state.ChargeQuery, before int64, limit int) ([]state.Charge, map[string]state.Refund, int64, error)
}

// RefundsSource is what a Source may also offer, and *state.Store does: the refunds of many
// charges in one read (one query for a batch of the list instead of one a charge).
type RefundsSource interface {
	RefundsOf(ctx context.Context, chargeIDs []string) (map[string]state.Refund, error)
}

// RefundSource is what a Source may also offer: the refund asked from the dashboard for a
// charge (*state.Store does). Without it, only a blocked deposit's return is a known refund.
type RefundSource interface {
	RefundOf(ctx context.Context, chargeID string) (state.Refund, bool, error)
}

// Options selects and shapes an export.
type Options struct {
	Format Format
	// Query is the list to export: wallet ("" for all), status filter and text filter.
	Query state.ChargeQuery
	// From and To bound the charges' creation time, From included and To excluded; a zero
	// bound is open.
	From, To time.Time
	// Location is the time zone dates are written in (time.Local when nil).
	Location *time.Location
	// PixFee is the profile's fee per paid charge, written as an estimate when the service did
	// not report the charge's own; meaningful when HasPixFee.
	PixFee    api.Money
	HasPixFee bool
	// PageSize is how many charges are read at a time (DefaultPageSize when 0).
	PageSize int
}

// DefaultPageSize is how many charges an export reads from the store at a time.
const DefaultPageSize = 500

// column is one field of the export: its header in each dialect and its cell.
type column struct {
	en, pt string
	cell   func(r *row) string
}

// row is a charge on its way to a record.
type row struct {
	c   *state.Charge
	f   Format
	loc *time.Location
	o   *Options
	// rf is the refund asked from the dashboard for the charge, when hasRF.
	rf    state.Refund
	hasRF bool
	// out is c.Outcome(), and feeV, feeEst, feeOK are r.fee()'s results: each read by several
	// cells, worked out once (prepare).
	out           state.Outcome
	feeV          api.Money
	feeEst, feeOK bool
}

// prepare works out what several cells read.
func (r *row) prepare() {
	r.out = r.c.Outcome()
	r.feeV, r.feeEst, r.feeOK = r.fee()
}

// columns are the fields of an export, in order.
var columns = []column{
	{"id", "id", func(r *row) string { return Text(r.c.ID) }},
	{"created_at", "criada_em", func(r *row) string { return r.date(r.c.CreatedAt) }},
	{"paid_at", "paga_em", func(r *row) string {
		if r.c.PaidAt == nil {
			return ""
		}
		return r.date(*r.c.PaidAt)
	}},
	{"expires_at", "expira_em", func(r *row) string { return r.date(r.c.ExpiresAt) }},
	{"status", "status", func(r *row) string { return Text(string(r.c.Status)) }},
	{"status_label", "situacao", func(r *row) string { return Text(stateLabel(r.out.State, r.f)) }},
	{"amount", "valor", func(r *row) string { return Amount(r.c.Amount, r.f) }},
	{"fee", "tarifa", func(r *row) string {
		if r.feeOK {
			return Amount(r.feeV, r.f)
		}
		return ""
	}},
	{"fee_estimated", "tarifa_estimada", func(r *row) string {
		if r.feeOK {
			return yesNo(r.feeEst, r.f)
		}
		return ""
	}},
	{"net", "liquido", func(r *row) string {
		if r.feeOK {
			return Amount(r.c.Amount-r.feeV, r.f)
		}
		return ""
	}},
	{"wallet", "carteira", func(r *row) string { return Text(state.NormalizeWallet(r.c.Wallet)) }},
	{"description", "descricao", func(r *row) string { return Text(r.c.Description) }},
	{"external_reference", "referencia_externa", func(r *row) string { return Text(r.c.ExternalReference) }},
	{"payer_name", "pagador_nome", func(r *row) string { return Text(r.c.PayerName) }},
	{"payer_document", "pagador_documento", func(r *row) string {
		if strings.TrimSpace(r.c.PayerDocument) == "" {
			return ""
		}
		return Text(state.MaskDocument(r.c.PayerDocument))
	}},
	{"e2e_id", "e2e_id", func(r *row) string { return Text(r.c.E2EID) }},
	{"failure_reason", "motivo_falha", func(r *row) string { return Text(r.c.FailureReason) }},
	// The refunds the store knows: a payment's money that went back or is held (a confirmed
	// refund, a MED block), else one asked from the dashboard (its state, and its amount once
	// the service took it), else a blocked deposit returned to its payer (all of it).
	{"refund_status", "estorno_status", func(r *row) string {
		if st, _, ok := r.outcomeRefund(); ok {
			return Text(st)
		}
		if r.hasRF {
			return Text(string(r.rf.State))
		}
		if rf := r.blockedRefund(); rf != nil {
			return Text(string(rf.Status))
		}
		return ""
	}},
	{"refund_amount", "estorno_valor", func(r *row) string {
		if _, amount, ok := r.outcomeRefund(); ok {
			return amount
		}
		if r.hasRF {
			if r.rf.State.Taken() {
				return Amount(r.rf.Amount, r.f)
			}
			return ""
		}
		if r.blockedRefund() != nil {
			return Amount(r.c.Amount, r.f)
		}
		return ""
	}},
	{"split_requested", "split_solicitado", func(r *row) string { return r.split() }},
}

// outcomeRefund is the refund columns of a payment whose money went back or is held
// (state.Charge.Outcome, confirmed facts only): "completed" and the amount a confirmed refund
// returned, "med_returned" and the amount an approved MED block returned to the payer,
// "med_blocked" and the amount an open one holds; ok is false for any other charge.
func (r *row) outcomeRefund() (status, amount string, ok bool) {
	o := r.out
	switch o.State {
	case state.StateRefunded:
		status = string(state.RefundCompleted)
	case state.StateReturned:
		status = "med_returned"
	case state.StateBlocked:
		status = "med_blocked"
	default:
		return "", "", false
	}
	return status, Amount(o.Amount, r.f), true
}

// Header is the export's first record in format f.
func Header(f Format) []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c.en
		if f == BR {
			out[i] = c.pt
		}
	}
	return out
}

// record is the charge's fields in column order.
func (r *row) record(dst []string) []string {
	dst = dst[:0]
	for _, c := range columns {
		dst = append(dst, c.cell(r))
	}
	return dst
}

// date writes t in the export's zone: ISO 8601 with the offset (CSV) or dd/mm/aaaa hh:mm (BR).
func (r *row) date(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	t = t.In(r.loc)
	if r.f == BR {
		return t.Format("02/01/2006 15:04")
	}
	return t.Format(time.RFC3339)
}

// fee is the charge's fee, whether it is an estimate, and whether there is one: only a paid
// charge has a fee. It is the fee the service reported for the payment (Charge.Fee) when it
// did, else the profile's pix_fee, marked as an estimate, and none when the profile has none.
func (r *row) fee() (fee api.Money, estimate, ok bool) {
	if !r.out.State.Received() {
		return 0, false, false
	}
	if r.c.Fee != nil {
		return *r.c.Fee, false, true
	}
	if !r.o.HasPixFee {
		return 0, false, false
	}
	return r.o.PixFee, true, true
}

// blockedRefund is the return of the charge's blocked deposit to its payer; nil for none.
func (r *row) blockedRefund() *api.Refund {
	if r.c.BlockedDeposit == nil {
		return nil
	}
	return r.c.BlockedDeposit.Refund
}

// split is the requested split as "wallet amount" pairs separated by " | ".
func (r *row) split() string {
	parts := make([]string, 0, len(r.c.SplitRequested))
	for _, s := range r.c.SplitRequested {
		parts = append(parts, s.SubAccount+" "+Amount(s.Amount, r.f))
	}
	return Text(strings.Join(parts, " | "))
}

// Amount writes m in reais with exactly two decimals: "1234.56" (CSV) or "1234,56" (BR), with
// no thousands separator so that spreadsheets read it as a number. It never goes through a float.
func Amount(m api.Money, f Format) string {
	var buf [24]byte
	return string(appendAmount(buf[:0], m, f))
}

// appendAmount appends Amount(m, f) to b: m.Decimal(), with a decimal comma for BR, written
// without fmt (an export writes up to three a charge).
func appendAmount(b []byte, m api.Money, f Format) []byte {
	u := uint64(m)
	if m < 0 {
		b = append(b, '-')
		u = -u // two's complement: the magnitude, math.MinInt64's included
	}
	b = strconv.AppendUint(b, u/100, 10)
	sep := byte('.')
	if f == BR {
		sep = ','
	}
	return append(b, sep, byte('0'+u%100/10), byte('0'+u%10))
}

// Text is a text cell: cleaned by api/safetext (control characters such as ESC, TAB and the
// C1 set become spaces, bidi controls and zero-width characters are removed; a line break is
// data, kept and quoted by the CSV writer), and
// neutralised when a spreadsheet would run it as a formula: one starting with =, +, -, @, a tab
// or a carriage return, before or after cleaning, gets a leading apostrophe. The CSV writer
// quotes the rest.
func Text(s string) string {
	if s == "" {
		return s
	}
	c := s
	if !printableASCII(s) { // CleanText leaves such a text as it is
		c = safetext.CleanText(s)
	}
	if formulaStart(s) || formulaStart(c) {
		return "'" + c
	}
	return c
}

// printableASCII reports whether s holds only the printable ASCII characters (space to ~).
func printableASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			return false
		}
	}
	return true
}

// formulaStart reports whether s starts like a formula (or a cell a spreadsheet trims into one).
func formulaStart(s string) bool {
	if s == "" {
		return false
	}
	switch s[0] {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

func yesNo(b bool, f Format) string {
	switch {
	case b && f == BR:
		return "sim"
	case b:
		return "yes"
	case f == BR:
		return "não"
	}
	return "no"
}

// stateLabel is the state as the dashboard names it, in English (CSV) or Portuguese (BR).
func stateLabel(s state.ChargeState, f Format) string {
	if f != BR {
		return string(s)
	}
	switch s {
	case state.StatePending:
		return "pendente"
	case state.StatePaid:
		return "paga"
	case state.StateExpired:
		return "expirada"
	case state.StateFailed:
		return "falhou"
	case state.StateCancelled:
		return "cancelada"
	case state.StateRefunded:
		return "estornada"
	case state.StateReturned:
		return "devolvida (MED)"
	case state.StateBlocked:
		return "bloqueada (MED)"
	case state.StateNotFound:
		return "não encontrada no serviço"
	}
	return "desconhecido"
}

// bom is the UTF-8 byte-order mark the BR dialect starts with.
const bom = "\uFEFF"

// Write streams the charges o selects to w, newest first, header included, and returns how
// many charges it wrote. It reads the store a page at a time under ctx. A charge that moves to
// the next page while the export runs (a newer one arrived above it) is written once.
func Write(ctx context.Context, w io.Writer, src Source, o Options) (int, error) {
	if o.Format == "" {
		o.Format = BR
	}
	if o.Format != BR && o.Format != CSV {
		return 0, fmt.Errorf("export: unknown format %q", o.Format)
	}
	loc := o.Location
	if loc == nil {
		loc = time.Local
	}
	size := o.PageSize
	if size <= 0 {
		size = DefaultPageSize
	}
	if o.Format == BR {
		if _, err := io.WriteString(w, bom); err != nil {
			return 0, err
		}
	}
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	if o.Format == BR {
		cw.Comma = ';'
	}
	if err := cw.Write(Header(o.Format)); err != nil {
		return 0, err
	}
	n := 0
	var rec []string
	r := new(row) // one for every charge: the cells take it by pointer
	// emit writes one page's charges; it reports whether the rest of the list is older than
	// the period (so the export is done).
	emit := func(cs []state.Charge, refunds map[string]state.Refund, skip map[string]bool, seen map[string]bool) (done bool, err error) {
		// refunds are the page's refunds when the source read them with the page; else they
		// are read now when it reads them at once.
		if rs, ok := src.(RefundsSource); ok && refunds == nil {
			var ids []string
			for i := range cs {
				if cs[i].Status == api.StatusCompleted {
					ids = append(ids, cs[i].ID)
				}
			}
			if refunds, err = rs.RefundsOf(ctx, ids); err != nil {
				return false, fmt.Errorf("export: reading the refunds: %w", err)
			}
		}
		for i := range cs {
			c := &cs[i]
			if seen != nil {
				seen[c.ID] = true
			}
			if skip[c.ID] {
				continue
			}
			if !o.To.IsZero() && !c.CreatedAt.Before(o.To) {
				continue
			}
			if !o.From.IsZero() && c.CreatedAt.Before(o.From) {
				// The list is in creation order: everything after this is older still.
				done = true
				break
			}
			*r = row{c: c, f: o.Format, loc: loc, o: &o}
			r.prepare()
			if refunds != nil {
				if c.Status == api.StatusCompleted { // only a completed payment can be refunded from the dashboard
					r.rf, r.hasRF = refunds[c.ID]
				}
			} else if rs, ok := src.(RefundSource); ok && c.Status == api.StatusCompleted {
				// Only a completed payment can be refunded from the dashboard.
				if r.rf, r.hasRF, err = rs.RefundOf(ctx, c.ID); err != nil {
					return false, fmt.Errorf("export: reading the refund of %s: %w", c.ID, err)
				}
			}
			rec = r.record(rec)
			if err := cw.Write(rec); err != nil {
				return false, err
			}
			n++
		}
		cw.Flush()
		return done, cw.Error()
	}
	if ks, ok := src.(KeysetSource); ok {
		// Each batch starts after the last charge of the previous one: the same cost however
		// deep, and a charge that arrives above the list while the export runs is not read.
		// The next batch is read and decoded while this one is written (at most two in memory).
		type batch struct {
			cs      []state.Charge
			refunds map[string]state.Refund
			err     error
		}
		read := func(ctx context.Context, before int64) (b batch, last int64) {
			if krs, ok := src.(KeysetRefundsSource); ok {
				b.cs, b.refunds, last, b.err = krs.ChargesRefundsBefore(ctx, o.Query, before, size)
			} else {
				b.cs, last, b.err = ks.ChargesBefore(ctx, o.Query, before, size)
			}
			return b, last
		}
		rctx, cancel := context.WithCancel(ctx)
		batches := make(chan batch, 1)
		go func() {
			defer close(batches)
			for before := int64(math.MaxInt64); ; {
				b, last := read(rctx, before)
				select {
				case batches <- b:
				case <-rctx.Done():
					return
				}
				if b.err != nil || len(b.cs) < size {
					return
				}
				before = last
			}
		}()
		defer func() {
			cancel()
			for range batches { // the reader has stopped when Write returns
			}
		}()
		for b := range batches {
			if err := ctx.Err(); err != nil {
				return n, err
			}
			if b.err != nil {
				return n, fmt.Errorf("export: reading the charges: %w", b.err)
			}
			done, err := emit(b.cs, b.refunds, nil, nil)
			if err != nil || done {
				return n, err
			}
		}
		return n, ctx.Err()
	}
	prev := map[string]bool{} // the previous page's ids
	for offset := 0; ; {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		page, err := src.ChargeWindow(ctx, o.Query, offset, size)
		if err != nil {
			return n, fmt.Errorf("export: reading the charges: %w", err)
		}
		seen := make(map[string]bool, len(page.Charges))
		done, err := emit(page.Charges, nil, prev, seen)
		if err != nil || done || len(page.Charges) < size {
			return n, err
		}
		prev = seen
		offset += len(page.Charges)
	}
}

// WriteFile writes the export to path atomically (see WriteAtomic).
func WriteFile(ctx context.Context, path string, src Source, o Options) (n int, err error) {
	err = WriteAtomic(path, func(w io.Writer) error {
		var werr error
		n, werr = Write(ctx, w, src, o)
		return werr
	})
	return n, err
}

// WriteAtomic writes a file at path with what fill writes (mode 0600) through api/atomicfile,
// the one atomic writer: a failure leaves path as it was.
func WriteAtomic(path string, fill func(io.Writer) error) error {
	err := atomicfile.Replace(path, 0o600, fill)
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Errorf("export: cannot write %s: %w", path, pe.Err)
	}
	return err
}

// FileName is the dashboard's name for an export of profile at t: <profile>-<yyyymmdd-hhmmss>.csv
// (see FileStem).
func FileName(profile string, t time.Time, f Format) string {
	return FileStem(profile) + "-" + t.Format("20060102-150405") + f.Ext()
}

// FileStem is how a profile's name starts a file name: reduced to letters, digits, "-" and "_"
// ("demo" when empty).
func FileStem(profile string) string {
	var b strings.Builder
	for _, r := range profile {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "demo"
	}
	return b.String()
}

// ErrNoDir reports that there is nowhere to write an export (no $XDG_DATA_HOME nor $HOME).
var ErrNoDir = errors.New("export: no directory for exports ($XDG_DATA_HOME and $HOME are unset)")
