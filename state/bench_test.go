package state

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"pixdash/api"
)

// Benchmarks of the SQLite store on a generated history (`make bench`). The history is built
// once per size and kept under os.TempDir()/pixdash-bench (see genDB), so a run only pays for
// it the first time. TestScale (scale_test.go) runs the same measurements at a million charges.
//
//   - BenchmarkChargeWindowKeystroke: one filter keystroke as the charges list does it (the
//     profile's wallet, the first 40 rows plus the count), by query length, a date and a miss.
//   - BenchmarkChargeWindowScroll: the window the list reads when the cursor leaves the rows
//     it holds, near the top, deep in the list and at the bottom.
//   - BenchmarkOpen: open the profile's database and read the first window, as the dashboard
//     starts.
//   - BenchmarkBareHMACHTTP and BenchmarkIntakeHTTP: distinct signed webhooks POSTed by 64
//     keep-alive clients to the same net/http server, whose handler is a bare HMAC check (the
//     yardstick) or the receiver with the store's intake (200 once the row is committed), while
//     a goroutine reads the store as the dashboard does. Compare the events/s metrics; the
//     intake's x-bare is its rate over the best bare rate of the same store size.
//   - BenchmarkDurableHTTP: the same, the handler the HMAC check plus a fsynced insert with
//     group commit on the same driver (issue 27's durable baseline); the intake's x-durable is
//     its rate over the best durable rate of the same store size (target 0.8).
//   - BenchmarkIntakeDurable: issue 27's intake target measured side by side in one run: the
//     durable baseline and the receiver with the store's intake take turns on the same store,
//     random UUID event ids; x-durable per run, and each side's CPU time and disk writes per
//     event.
//   - BenchmarkApplyEventsGroupCommit: ApplyEvent from concurrent callers (group commit) and
//     ApplyEvents in batches, on disk.

// Sizes of the benchmarks' generated history.
const (
	benchCharges = 100_000
	benchEvents  = 10_000
	// smallCharges and smallEvents are the "small store" of the intake comparisons.
	smallCharges = 1_000
	smallEvents  = 100
)

// Shape of the dashboard's reads: the first page the targets name; the rows the charges
// list shows in a 120x40 terminal (ui: the body is the screen less 4 lines, the list the body
// less 4: ui/charges.go setSize, the day's strip included); the window it reads
// (listWindow.need: the rows on screen, as many above and below). TestScale counts the rows on
// the screen the dashboard draws (scaleUI.screenRows) rather than trusting this figure.
const (
	benchPage   = 40
	uiListRows  = 40 - 4 - 4
	benchWindow = 3 * uiListRows
)

// ---- the generated history ----

// genVersion changes whenever the generator's output changes, so cached files are rebuilt.
const genVersion = 2

// genEnd is when the newest generated charge was created; the history spans the 3 years before.
var genEnd = time.Date(2025, 11, 30, 18, 0, 0, 0, time.UTC)

const genSpan = 3 * 365 * 24 * time.Hour

// genPending makes the generator build a history whose charges are all pending (TestScale's
// pending profile sets it around its genDB): created over the 7 days before genEnd with a
// 7-day expiry, never paid (an online shop's abandoned checkouts), but the newest (genSentinel).
var genPending bool

// genPendingSpan is the pending history's span.
const genPendingSpan = 7 * 24 * time.Hour

// genSentinel is the description of the newest charge (wallet principal, paid): the text that
// shows the charges list is on screen.
const genSentinel = "SENTINELA-NEWEST"

// genWallets are the generated wallets and their shares in percent.
var genWallets = []struct {
	name  string
	share int
}{{api.WalletPrincipal, 55}, {"loja-centro", 20}, {"loja-norte", 12}, {"ecommerce", 10}, {"quiosque-shopping", 3}}

var (
	genFirst = []string{"Maria", "José", "Ana", "João", "Antônio", "Francisca", "Carlos", "Paulo", "Adriana", "Lucas",
		"Juliana", "Marcos", "Fernanda", "Rafael", "Patrícia", "Luiz", "Aline", "Pedro", "Camila", "Gabriel",
		"Beatriz", "Bruno", "Larissa", "Rodrigo", "Letícia", "Felipe", "Mariana", "Thiago", "Vanessa", "Eduardo",
		"Joaquim", "Sandra", "Ricardo", "Helena", "Diego", "Renata", "Gustavo", "Cláudia", "Vinícius", "Débora"}
	genLast = []string{"Silva", "Santos", "Oliveira", "Souza", "Rodrigues", "Ferreira", "Alves", "Pereira", "Lima", "Gomes",
		"Costa", "Ribeiro", "Martins", "Carvalho", "Almeida", "Lopes", "Soares", "Fernandes", "Vieira", "Barbosa",
		"Rocha", "Dias", "Nascimento", "Andrade", "Moreira", "Nunes", "Marques", "Machado", "Mendes", "Freitas"}
	genDesc = []string{"Venda balcão", "Venda", "Pedido #%d", "Açaí 500ml", "Marmita executiva", "Mensalidade academia",
		"Corte de cabelo", "Consulta", "Frete", "Assinatura plano mensal", "Ingresso show", "Café e pão de queijo",
		"Pedido delivery #%d", "Aula particular", "Manutenção celular", "Camiseta tam. M", "Kit festa", "Revisão bicicleta",
		"Conserto notebook", "Doação", "Rifa beneficente nº %d", "Combo lanche", "Lavagem completa", "Hospedagem diária",
		"Mensalidade escola %d/12", "Taxa de entrega", "Encomenda bolo", "Sessão fotos", "Passeio barco", "Produto #%d"}
)

// genMix is a deterministic 64-bit hash (splitmix64): identifiers derived from a row's number
// are the same whenever they are computed.
func genMix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// genChargeID is the id of generated charge i: a random-looking UUID, as the service issues.
func genChargeID(i int) string {
	a, b := genMix(uint64(i)*2+1), genMix(uint64(i)*2+2)
	return fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", a>>32, a>>16&0xffff, a&0xfff, b>>48&0x3fff|0x8000, b&(1<<48-1))
}

// genCreated is when generated charge i of n was created: spread evenly over genSpan with a
// random jitter, strictly increasing by at least a millisecond.
func genCreated(i, n int) time.Time {
	span := genSpan
	if genPending {
		span = genPendingSpan
	}
	step := span / time.Duration(n)
	start := genEnd.Add(-span)
	jitter := time.Duration(genMix(uint64(i)^0x5eed) % uint64(max(step-time.Millisecond, 1)))
	t := start.Add(step*time.Duration(i) + jitter).Truncate(time.Millisecond)
	if i == n-1 {
		t = genEnd
	}
	return t
}

const genAlnum = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// genCharge builds generated charge i of n (the same whenever it is built): several wallets,
// about 2% pending, 72% paid (with payer and e2eId), the rest expired, failed or cancelled;
// amounts from R$ 1 to a few thousand.
func genCharge(i, n int) Charge {
	r := rand.New(rand.NewPCG(2025, uint64(i)))
	created := genCreated(i, n)
	c := Charge{
		ID:        genChargeID(i),
		Wallet:    api.WalletPrincipal,
		CreatedAt: created,
		ExpiresAt: created.Add(time.Hour),
		Source:    SourceCreated,
	}
	w := r.IntN(100)
	for _, gw := range genWallets {
		if w < gw.share {
			c.Wallet = gw.name
			break
		}
		w -= gw.share
	}
	// Log-uniform from R$ 1 to R$ 5,000, rounded to a "price" most of the time.
	cents := int64(100 * math.Exp(r.Float64()*math.Log(5000)))
	if r.IntN(3) > 0 {
		cents = cents / 10 * 10
	}
	if r.IntN(4) == 0 {
		cents = cents/100*100 + 90
	}
	c.Amount = api.Money(max(cents, 100))
	d := genDesc[r.IntN(len(genDesc))]
	if strings.Contains(d, "%d") {
		d = fmt.Sprintf(d, 1+r.IntN(99999))
	}
	c.Description = d
	if r.IntN(10) < 6 {
		c.ExternalReference = fmt.Sprintf("PED-%07d", i)
	}
	key := fmt.Sprintf("%016x%016x", genMix(uint64(i)^0xabc), genMix(uint64(i)^0xdef))
	c.IdempotencyKey = key[:8] + "-" + key[8:12] + "-" + key[12:16] + "-" + key[16:20] + "-" + key[20:32]
	c.PixCopyPaste = "00020101021226880014br.gov.bcb.pix2566qrcodes-pix.example.com.br/v2/cobv/" + strings.ReplaceAll(c.ID, "-", "") +
		"5204000053039865802BR5913LOJA EXEMPLO6009SAO PAULO62070503***6304" + fmt.Sprintf("%04X", genMix(uint64(i))&0xffff)
	switch p := r.IntN(1000); {
	case p < 20:
		c.Status = api.StatusPending
		c.UpdatedAt = created
	case p < 740:
		c.Status = api.StatusCompleted
		paid := created.Add(time.Duration(10+r.IntN(1200)) * time.Second)
		c.PaidAt = &paid
		c.UpdatedAt = paid
		c.PayerName = genFirst[r.IntN(len(genFirst))] + " " + genLast[r.IntN(len(genLast))] + " " + genLast[r.IntN(len(genLast))]
		c.PayerDocument = fmt.Sprintf("***.%03d.%03d-**", r.IntN(1000), r.IntN(1000))
		b := make([]byte, 11)
		for k := range b {
			b[k] = genAlnum[r.IntN(len(genAlnum))]
		}
		c.E2EID = "E" + fmt.Sprintf("%08d", 18236120+r.IntN(8)*1111) + paid.Format("200601021504") + string(b)
	case p < 950:
		c.Status, c.Expired = api.StatusCancelled, true
		c.UpdatedAt = c.ExpiresAt
	case p < 975:
		c.Status = api.StatusFailed
		c.FailureReason = "payer bank refused the transfer"
		c.UpdatedAt = created.Add(time.Minute)
	default:
		c.Status = api.StatusCancelled
		c.UpdatedAt = created.Add(5 * time.Minute)
	}
	if genPending {
		c.Status, c.Expired, c.PaidAt, c.UpdatedAt, c.FailureReason = api.StatusPending, false, nil, created, ""
		c.PayerName, c.PayerDocument, c.E2EID = "", "", ""
		c.ExpiresAt = created.Add(genPendingSpan)
	}
	if i == n-1 {
		paid := created.Add(30 * time.Second)
		c.Wallet, c.Description, c.Status, c.Expired, c.PaidAt, c.UpdatedAt = api.WalletPrincipal, genSentinel, api.StatusCompleted, false, &paid, paid
		c.PayerName, c.E2EID = "Sentinela da Silva", "E18236120"+paid.Format("200601021504")+"SENTINEL000"
	}
	return c
}

// genEventKinds are the generated events' kinds, most of them payments.
var genEventKinds = []api.EventKind{
	api.EventPaymentCompleted, api.EventPaymentCompleted, api.EventPaymentCompleted, api.EventPaymentCompleted,
	api.EventPaymentCompleted, api.EventPaymentCompleted, api.EventPaymentExpired, api.EventPaymentExpired,
	api.EventPaymentFailed, api.EventRefundCompleted, api.EventWithdrawalCompleted, api.EventBalanceBlockCreated,
}

// genEventPayload is the body of a webhook about charge ci (of nCharges), as the service sends it.
func genEventPayload(id string, kind api.EventKind, ci, nCharges int, at time.Time) []byte {
	c := genCharge(ci, nCharges)
	sub := ""
	if c.Wallet != api.WalletPrincipal {
		sub = fmt.Sprintf(`"subAccount":%q,`, c.Wallet)
	}
	data := fmt.Sprintf(`"id":%q,"transactionId":%q,"externalReference":%q,"amount":%s`, c.ID, c.ID, c.ExternalReference, c.Amount.Decimal())
	switch kind {
	case api.EventPaymentCompleted:
		data += fmt.Sprintf(`,"status":"completed","feeAmount":0.99,"netAmount":%s,"e2eId":"E18236120%sA1b2C3d4E5f","paidAt":%q,"counterpartName":"Maria da Silva","counterpartDocument":"***.456.789-**"`,
			(c.Amount - 99).Decimal(), at.Format("200601021504"), at.Format(time.RFC3339))
	case api.EventPaymentExpired:
		data += `,"status":"cancelled"`
	case api.EventPaymentFailed:
		data += `,"status":"failed","failureReason":"insufficient funds"`
	case api.EventRefundCompleted:
		data += `,"originalTransactionId":` + fmt.Sprintf("%q", c.ID) + `,"refundId":"ref_` + id + `"`
	case api.EventWithdrawalCompleted:
		data = fmt.Sprintf(`"id":"wd_%s","withdrawalId":"wd_%s","amount":%s,"status":"completed"`, id, id, c.Amount.Decimal())
	case api.EventBalanceBlockCreated:
		data = fmt.Sprintf(`"id":"blk_%s","amount":%s,"status":"awaiting_response","reason":"MED"`, id, c.Amount.Decimal())
	}
	return fmt.Appendf(nil, `{"event":%q,"eventId":%q,"timestamp":%q,%s"data":{%s}}`, kind, id, at.Format(time.RFC3339Nano), sub, data)
}

// genDBPath is the cached database of a generated history of the given size in dir; its name
// changes with the generator and with the schema (its version and its migrations' text), so an
// edited migration gets a new file.
func genDBPath(dir string, charges, events int) string {
	h := sha256.New()
	for _, name := range migrationFiles() {
		b, err := migrations.ReadFile(name)
		if err != nil {
			panic(err) // embedded at build time
		}
		h.Write(b)
	}
	kind := "gen"
	if genPending {
		kind = "genpending"
	}
	return filepath.Join(dir, fmt.Sprintf("%s%d-s%d-%x-%dc-%de.db", kind, genVersion, SchemaVersion(), h.Sum(nil)[:4], charges, events))
}

// genDB returns the path of a database holding a generated history (charges, events) in dir,
// building it on the first call. A file is built under a temporary name and renamed into place
// when complete, so a killed run never leaves a half-built one.
func genDB(tb testing.TB, dir string, charges, events int) string {
	tb.Helper()
	path := genDBPath(dir, charges, events)
	if _, err := os.Stat(path); err == nil {
		return path
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	t0 := time.Now()
	tmp, err := os.MkdirTemp(dir, ".building-*")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := genBuild(tmp, charges, events); err != nil {
		tb.Fatalf("generating %d charges and %d events: %v", charges, events, err)
	}
	if err := os.Rename(filepath.Join(tmp, DBFileName("gen")), path); err != nil {
		tb.Fatal(err)
	}
	tb.Logf("generated %s (%d charges, %d events) in %v", path, charges, events, time.Since(t0).Round(time.Millisecond))
	return path
}

// genBatch is how many rows one write transaction of the generator holds, genStmtRows how many
// one INSERT statement does.
const (
	genBatch    = 100_000
	genStmtRows = 5_000
	// genCacheKiB is the generator's page cache (the writer's connection only, while it builds).
	genCacheKiB = 2 << 20
)

// genBuild writes a generated history into a new profile "gen" in dir: rows written with
// direct SQL in large transactions through the store's writer, the FTS index filled by the
// schema's triggers, as the dashboard's own writes would fill it.
func genBuild(dir string, charges, events int) error {
	bg := context.Background()
	s, err := Open(bg, dir, "gen", WithLocation(time.UTC))
	if err != nil {
		return err
	}
	defer s.Close()
	// The generator's writes may use as much cache as the indexes they grow (random ids in a
	// unique index thrash the store's 8 MB at millions of rows); the file is checkpointed and
	// synced when complete, so nothing needs the WAL's fsync on the way.
	if _, err := s.wdb.ExecContext(bg, fmt.Sprintf("PRAGMA cache_size = -%d", genCacheKiB)); err != nil {
		return err
	}
	if _, err := s.wdb.ExecContext(bg, "PRAGMA synchronous = OFF"); err != nil {
		return err
	}
	r := rand.New(rand.NewPCG(2025, 11))
	type row struct {
		Seq     int64  `json:"s"`
		ID      string `json:"i"`
		Wallet  string `json:"w"`
		State   string `json:"t"`
		Amount  int64  `json:"a"`
		Ref     string `json:"r"`
		Created int64  `json:"c"`
		Paid    *int64 `json:"p"`
		Updated int64  `json:"u"`
		Hay     string `json:"h"`
		Doc     string `json:"d"`
		FTSID   int64  `json:"f"`
	}
	rows := make([]row, 0, genStmtRows)
	for lo := 0; lo < charges; lo += genBatch {
		hi := min(lo+genBatch, charges)
		err := s.write(bg, func(tx *sql.Tx) (func(), error) {
			// Many rows per statement (a JSON array): fewer statements to run, and FTS5
			// flushes its pending terms at each statement's savepoint, not at each row.
			for i := lo; i < hi; {
				rows = rows[:0]
				for ; i < hi && len(rows) < genStmtRows; i++ {
					c := genCharge(i, charges)
					c.dropSpentCode()
					doc := chargeDoc(&c)
					var paid *int64
					if c.PaidAt != nil {
						p := c.PaidAt.UnixMilli()
						paid = &p
					}
					st := c.State()
					rows = append(rows, row{
						Seq: c.CreatedAt.UnixMilli() << chargeSeqShift, // creation times are distinct milliseconds
						ID:  c.ID, Wallet: c.Wallet, State: string(st), Amount: int64(c.Amount), Ref: c.ExternalReference,
						Created: c.CreatedAt.UnixMilli(), Paid: paid, Updated: c.UpdatedAt.UnixMilli(),
						Hay: haystack(&c, st, time.UTC), Doc: hex.EncodeToString(doc), FTSID: int64(i+1) * searchGap, // in the list's order
					})
				}
				js, err := json.Marshal(rows)
				if err != nil {
					return nil, err
				}
				if _, err := tx.Exec(`INSERT INTO charges(seq, id, wallet, state, amount, external_reference, created_at, paid_at, updated_at, hay, doc, fts_id)
					SELECT value->>'s', value->>'i', value->>'w', value->>'t', value->>'a', value->>'r', value->>'c', value->>'p', value->>'u', value->>'h', unhex(value->>'d'), value->>'f'
					FROM json_each(?)`, string(js)); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			return err
		}
	}
	// Events arrive over the last year, about charges of that year.
	evStart := genEnd.Add(-365 * 24 * time.Hour)
	for lo := 0; lo < events && charges > 0; lo += genBatch {
		hi := min(lo+genBatch, events)
		err := s.write(bg, func(tx *sql.Tx) (func(), error) {
			for i := lo; i < hi; i++ {
				at := evStart.Add(time.Duration(i) * (365 * 24 * time.Hour / time.Duration(events)))
				ci := charges - 1 - r.IntN(max(charges/3, 1))
				id := fmt.Sprintf("evt_%016x", genMix(uint64(i)^0xe7e7))
				raw := genEventPayload(id, genEventKinds[r.IntN(len(genEventKinds))], ci, charges, at)
				ev, err := api.DecodeEvent(raw)
				if err != nil {
					return nil, err
				}
				if _, err := s.insertEventTx(tx, ev, at); err != nil {
					return nil, err
				}
			}
			return nil, nil
		})
		if err != nil {
			return err
		}
	}
	// Payment events were read back long ago, but for the last few.
	err = s.write(bg, func(tx *sql.Tx) (func(), error) {
		if _, err := tx.Exec(`UPDATE events SET verdict = 'confirmed' WHERE payment = 1 AND seq <= (SELECT coalesce(max(seq), 0) - 20 FROM events)`); err != nil {
			return nil, err
		}
		return nil, fillRefundLines(bg, tx) // the confirmed refunds' lines, as setVerdictTx writes them
	})
	if err != nil {
		return err
	}
	if _, err := s.wdb.ExecContext(bg, "PRAGMA synchronous = FULL"); err != nil {
		return err
	}
	if _, err := s.wdb.ExecContext(bg, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return err
	}
	return s.Close()
}

// copyDB copies a database file (no WAL: genDB's files are checkpointed) to dir as the
// profile's database and returns its path.
func copyDB(tb testing.TB, src, dir, profile string) string {
	tb.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		tb.Fatal(err)
	}
	dst := filepath.Join(dir, DBFileName(profile))
	in, err := os.Open(src)
	if err != nil {
		tb.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		tb.Fatal(err)
	}
	if err := out.Close(); err != nil {
		tb.Fatal(err)
	}
	return dst
}

// benchDir is where the benchmarks' generated histories are kept between runs.
func benchDir() string { return filepath.Join(os.TempDir(), "pixdash-bench") }

// openGen opens the generated history of the given size (built once and cached in benchDir)
// where it is cached, for benchmarks that only read it; it is closed when tb ends.
func openGen(tb testing.TB, charges, events int) *Store {
	tb.Helper()
	path := genDB(tb, benchDir(), charges, events)
	s, err := Open(context.Background(), filepath.Dir(path), strings.TrimSuffix(filepath.Base(path), ".db"), WithLocation(time.UTC))
	if err != nil {
		tb.Fatal(err)
	}
	if s.Path() != path {
		tb.Fatalf("opened %s, want %s", s.Path(), path)
	}
	tb.Cleanup(func() { _ = s.Close() })
	return s
}

// openCopyIn copies the generated history of the given size to dir as profile "bench" and opens
// it; the caller closes it.
func openCopyIn(tb testing.TB, dir string, charges, events int) *Store {
	tb.Helper()
	if charges > 0 || events > 0 {
		copyDB(tb, genDB(tb, benchDir(), charges, events), dir, "bench")
	}
	s, err := Open(context.Background(), dir, "bench", WithLocation(time.UTC))
	if err != nil {
		tb.Fatal(err)
	}
	return s
}

// ---- reads ----

// keystrokeQueries are the filter texts of BenchmarkChargeWindowKeystroke and TestScale: a payer
// name typed letter by letter (1 and 2 letters are checked row by row, 3 or more go through the
// trigram index), a date as the list shows it, and a text nothing contains.
var keystrokeQueries = []struct{ name, text string }{
	{"len=1", "j"},
	{"len=2", "jo"},
	{"len=3", "joa"},
	{"len=6", "joaqui"},
	{"date", "23/11"},
	{"miss", "kwyz"},
}

// keystroke is one filter keystroke as the charges list reads it: the profile's wallet, every
// state, the first page and the count.
func keystroke(s *Store, text string) (ChargePage, error) {
	return s.ChargeWindow(context.Background(), ChargeQuery{Wallet: api.WalletPrincipal, Text: text}, 0, benchPage)
}

func BenchmarkChargeWindowKeystroke(b *testing.B) {
	s := openGen(b, benchCharges, benchEvents)
	for _, q := range keystrokeQueries {
		b.Run(q.name, func(b *testing.B) {
			var p ChargePage
			var err error
			for b.Loop() {
				if p, err = keystroke(s, q.text); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(p.Total), "matches")
		})
	}
}

func BenchmarkChargeWindowScroll(b *testing.B) {
	s := openGen(b, benchCharges, benchEvents)
	q := ChargeQuery{Wallet: api.WalletPrincipal}
	p, err := s.ChargeWindow(context.Background(), q, 0, 1)
	if err != nil {
		b.Fatal(err)
	}
	total := p.Total
	for _, c := range []struct {
		name   string
		offset int
	}{{"top", 0}, {"offset=1k", 1_000}, {"offset=10k", 10_000}, {"bottom", total - benchWindow}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				p, err := s.ChargeWindow(context.Background(), q, c.offset, benchWindow)
				if err != nil || len(p.Charges) == 0 {
					b.Fatal(len(p.Charges), err)
				}
			}
		})
	}
	// Paging down through the first 10k rows, each page a read (the worst of pgdown).
	b.Run("pagedown", func(b *testing.B) {
		off := 0
		for b.Loop() {
			if _, err := s.ChargeWindow(context.Background(), q, off, benchWindow); err != nil {
				b.Fatal(err)
			}
			off = (off + benchWindow/3) % 10_000
		}
	})
}

// BenchmarkOpen opens the profile's database and reads the first window, as the dashboard
// starts, then closes it.
func BenchmarkOpen(b *testing.B) {
	for _, c := range []struct {
		name            string
		charges, events int
	}{{"empty", 0, 0}, {"100k", benchCharges, benchEvents}} {
		b.Run(c.name, func(b *testing.B) {
			dir := b.TempDir()
			if c.charges > 0 {
				copyDB(b, genDB(b, benchDir(), c.charges, c.events), dir, "bench")
			}
			for b.Loop() {
				s, err := Open(context.Background(), dir, "bench", WithLocation(time.UTC))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.ChargeWindow(context.Background(), ChargeQuery{Wallet: api.WalletPrincipal}, 0, benchWindow); err != nil {
					b.Fatal(err)
				}
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// ---- webhook intake ----

const benchSecret api.Secret = "whsec_pixdash-bench-s3cr3t"

// benchClients is how many senders deliver at once, each over its own keep-alive connection.
const benchClients = 64

// lazyGenCopy returns a function that opens a copy of a generated history on its first call,
// from a sub-benchmark of owner, and keeps it open until owner ends: the rounds of a
// sub-benchmark share it, and a size the -bench pattern leaves out is never copied.
func lazyGenCopy(owner testing.TB, charges, events int) func(b *testing.B) *Store {
	var s *Store
	return func(b *testing.B) *Store {
		b.Helper()
		if s == nil {
			s = openCopyIn(b, owner.TempDir(), charges, events)
			st := s
			owner.Cleanup(func() { _ = st.Close() })
		}
		return s
	}
}

// benchDelivery is one signed delivery, built before the clock starts.
type benchDelivery struct {
	body []byte
	sig  string
}

// benchEventSeq numbers the benchmarks' deliveries: every eventId is new, across runs too.
var benchEventSeq atomic.Int64

// benchDeliveries builds n distinct signed payment_completed deliveries about charges of a
// generated history of nCharges.
func benchDeliveries(n, nCharges int) []benchDelivery {
	base := benchEventSeq.Add(int64(n)) - int64(n)
	ds := make([]benchDelivery, n)
	now := time.Now().UTC()
	for i := range ds {
		k := base + int64(i)
		id := fmt.Sprintf("evt_bench_%d_%010d", os.Getpid(), k)
		body := genEventPayload(id, api.EventPaymentCompleted, int(genMix(uint64(k))%uint64(max(nCharges, 1))), max(nCharges, 1), now)
		ds[i] = benchDelivery{body: body, sig: api.Sign(body, benchSecret)}
	}
	return ds
}

// bareHMAC is the yardstick: read the body, verify its signature, answer 200, keep nothing.
func bareHMAC(secret api.Secret) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, api.DefaultWebhookMaxBody))
		if err != nil || api.VerifySignature(body, req.Header.Get(api.SignatureHeader), secret) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

// httpTarget serves a handler at api.WebhookPath on a loopback port with the receiver's server
// settings; both sides of a comparison use it.
type httpTarget struct {
	url string
	srv *http.Server
}

func serveHTTP(tb testing.TB, h http.Handler) *httpTarget {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	mux := http.NewServeMux()
	mux.Handle(api.WebhookPath, h)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second, MaxHeaderBytes: 64 << 10}
	go func() { _ = srv.Serve(ln) }()
	return &httpTarget{url: "http://" + ln.Addr().String() + api.WebhookPath, srv: srv}
}

func (t *httpTarget) close() { _ = t.srv.Close() }

// deliverHTTP POSTs every delivery to url from clients goroutines over keep-alive connections
// (a 503 is retried after a short pause, as the service would) and returns how long it took
// until the last 200.
func deliverHTTP(url string, ds []benchDelivery, clients int) (time.Duration, error) {
	tr := &http.Transport{MaxIdleConns: clients, MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients, DisableCompression: true}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: time.Minute}
	var next atomic.Int64
	var wg sync.WaitGroup
	var errOnce sync.Once
	var first error
	fail := func(err error) { errOnce.Do(func() { first = err }) }
	t0 := time.Now()
	for range clients {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= len(ds) {
					return
				}
				for {
					req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(ds[i].body))
					if err != nil {
						fail(err)
						return
					}
					req.Header.Set(api.SignatureHeader, ds[i].sig)
					req.Header.Set(api.TimestampHeader, strconv.FormatInt(time.Now().UnixMilli(), 10))
					req.Header.Set("Content-Type", "application/json")
					resp, err := client.Do(req)
					if err != nil {
						fail(fmt.Errorf("delivery %d: %w", i, err))
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode == http.StatusServiceUnavailable {
						time.Sleep(time.Millisecond)
						continue
					}
					if resp.StatusCode != http.StatusOK {
						fail(fmt.Errorf("delivery %d: status %d", i, resp.StatusCode))
						return
					}
					break
				}
			}
		})
	}
	wg.Wait()
	return time.Since(t0), first
}

// dashboardReader reads the store as the dashboard does while events arrive: each change wakes
// it, it reads the new events (EventsAfter, decoded) and the charges list's first window.
type dashboardReader struct {
	stop, done chan struct{}
	rounds     atomic.Int64
	events     atomic.Int64
	err        atomic.Pointer[error]
}

func startDashboardReader(s *Store) *dashboardReader {
	d := &dashboardReader{stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(d.done)
		bg := context.Background()
		last, err := s.LastEventSeq(bg)
		if err != nil {
			d.err.Store(&err)
			return
		}
		seenCharges, _ := s.Versions()
		var lastView time.Time
		for {
			// As the dashboard does: the feed reads the new events 25 ms after a change
			// (workflow.WaitEvents), and at most every 100 ms while they keep coming
			// (workflow.FeedGap);
			// the list on screen (here the events view, the busier one during a flood) reads
			// its window at most every 100 ms (waitChange); the charges list only when charges
			// changed.
			changed := s.Changed()
			readAt := time.Now()
			es, err := s.EventsAfter(bg, last, 1024)
			if err == nil && len(es) > 0 {
				last = es[len(es)-1].Seq
				d.events.Add(int64(len(es)))
			}
			if err == nil && time.Since(lastView) >= 100*time.Millisecond {
				lastView = time.Now()
				if _, err = s.EventWindow(bg, EventQuery{}, 0, benchWindow); err == nil {
					_, err = s.Facets(bg)
				}
				if cv, _ := s.Versions(); err == nil && cv != seenCharges {
					seenCharges = cv
					_, err = s.ChargeWindow(bg, ChargeQuery{Wallet: api.WalletPrincipal}, 0, benchWindow)
				}
				d.rounds.Add(1)
			}
			if err != nil {
				d.err.Store(&err)
				return
			}
			if len(es) >= 1024 {
				continue // a full batch: the feed reads the next at once
			}
			if len(es) > 0 {
				// The feed reads a stream at most every FeedGap (workflow.FeedGap).
				select {
				case <-d.stop:
					return
				case <-time.After(benchFeedGap - time.Since(readAt)):
				}
				continue
			}
			select {
			case <-d.stop:
				return
			case <-changed:
			}
			// The dashboard's feed lets a flood gather before it reads it (workflow.WaitEvents).
			select {
			case <-d.stop:
				return
			case <-time.After(benchFeedCoalesce):
			}
		}
	}()
	return d
}

// benchFeedCoalesce is workflow.EventFeedCoalesce (state cannot import workflow): how long the
// dashboard's event feed lets new events gather after a change before it reads them.
const benchFeedCoalesce = 25 * time.Millisecond

// benchFeedGap is workflow.FeedGap: how often at most the feed reads while events keep coming.
const benchFeedGap = 100 * time.Millisecond

// finish stops the reader and returns its error.
func (d *dashboardReader) finish() error {
	close(d.stop)
	<-d.done
	if p := d.err.Load(); p != nil {
		return *p
	}
	return nil
}

// intakeSizes are the store sizes of the intake comparisons in `make bench`; each top-level run
// gets a fresh copy, and the events of its rounds stay in it, as they would in a profile.
var intakeSizes = []struct {
	name            string
	charges, events int
}{{"store=small", smallCharges, smallEvents}, {"store=100k", benchCharges, benchEvents}}

// bareBest is the best bare-HMAC rate of each store size in this process, for x-bare.
var (
	bareBestMu sync.Mutex
	bareBest   = map[string]float64{}
)

// BenchmarkBareHMACHTTP is the yardstick of BenchmarkIntakeHTTP: the same server, deliveries
// and senders, and the same dashboard reader on the same store (idle here: nothing is stored).
func BenchmarkBareHMACHTTP(b *testing.B) {
	for _, sz := range intakeSizes {
		s := lazyGenCopy(b, sz.charges, sz.events) // the events of earlier rounds stay, as in a profile
		b.Run(sz.name, func(b *testing.B) {
			rate := benchHTTPRun(b, s(b), bareHMAC(benchSecret), sz.charges)
			bareBestMu.Lock()
			bareBest[sz.name] = max(bareBest[sz.name], rate)
			bareBestMu.Unlock()
		})
	}
}

// durableBest is the best durable-baseline rate of each store size in this process, for x-durable.
var (
	durableBestMu sync.Mutex
	durableBest   = map[string]float64{}
)

// durableSink is the durable yardstick: each verified body is inserted into a table of its own
// database file (the same driver and settings as the store: WAL, synchronous=FULL, so a commit
// returns once the WAL is fsynced), and answered 200 once its row is committed; the bodies that
// arrive while a commit is under way share the next one (group commit). It keeps no index, no
// count, decodes nothing and wakes nobody: the least a receiver that never acknowledges an
// unsaved event can do.
type durableSink struct {
	db      *sql.DB
	commits atomic.Uint64
	mu      sync.Mutex
	queue   []durableJob
	active  bool
}

type durableJob struct {
	raw  []byte
	done chan error
}

func openDurableSink(tb testing.TB) *durableSink {
	tb.Helper()
	db, err := sql.Open("sqlite", dsn(filepath.Join(tb.TempDir(), "durable.db"), false))
	if err != nil {
		tb.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE events(seq INTEGER PRIMARY KEY, raw BLOB NOT NULL)`); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return &durableSink{db: db}
}

// Accept returns once raw's row is committed.
func (d *durableSink) Accept(raw []byte) error {
	j := durableJob{raw: raw, done: make(chan error, 1)}
	d.mu.Lock()
	d.queue = append(d.queue, j)
	lead := !d.active
	d.active = true
	d.mu.Unlock()
	if lead {
		go d.commitAll()
	}
	return <-j.done
}

func (d *durableSink) commitAll() {
	for {
		d.mu.Lock()
		batch := d.queue
		d.queue = nil
		if len(batch) == 0 {
			d.active = false
			d.mu.Unlock()
			return
		}
		d.mu.Unlock()
		err := func() error {
			tx, err := d.db.Begin()
			if err != nil {
				return err
			}
			defer func() { _ = tx.Rollback() }()
			st, err := tx.Prepare(`INSERT INTO events(raw) VALUES (?)`)
			if err != nil {
				return err
			}
			for _, j := range batch {
				if _, err := st.Exec(j.raw); err != nil {
					return err
				}
			}
			return tx.Commit()
		}()
		d.commits.Add(1)
		for _, j := range batch {
			j.done <- err
		}
	}
}

// durableHMAC is the durable baseline's handler: the bare HMAC check, then durableSink.
func durableHMAC(secret api.Secret, sink *durableSink) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, api.DefaultWebhookMaxBody))
		if err != nil || api.VerifySignature(body, req.Header.Get(api.SignatureHeader), secret) != nil {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		if err := sink.Accept(body); err != nil {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusOK)
	})
}

// BenchmarkDurableHTTP is issue 27's yardstick for the intake: the same server, deliveries,
// senders and dashboard reader as BenchmarkIntakeHTTP, the handler the bare HMAC check plus a
// fsynced insert with group commit on the same driver (durableSink). The intake's x-durable is
// its rate over the best durable rate of the same store size (target 0.8).
func BenchmarkDurableHTTP(b *testing.B) {
	for _, sz := range intakeSizes {
		s := lazyGenCopy(b, sz.charges, sz.events)
		b.Run(sz.name, func(b *testing.B) {
			sink := openDurableSink(b)
			rate := benchHTTPRun(b, s(b), durableHMAC(benchSecret, sink), sz.charges)
			durableBestMu.Lock()
			durableBest[sz.name] = max(durableBest[sz.name], rate)
			durableBestMu.Unlock()
		})
	}
}

// BenchmarkIntakeHTTP is the webhook receiver as the dashboard runs it (api.NewReceiver with
// the store's intake as sink: 200 once the event's row is committed, concurrent deliveries
// sharing a commit) while the dashboard reads the store.
func BenchmarkIntakeHTTP(b *testing.B) {
	for _, sz := range intakeSizes {
		store := lazyGenCopy(b, sz.charges, sz.events)
		b.Run(sz.name, func(b *testing.B) {
			s := store(b)
			in, err := s.OpenIntake()
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			r := api.NewReceiver(benchSecret, api.WithSink(in))
			v0 := s.Version()
			rate := benchHTTPRun(b, s, r, sz.charges)
			if st := r.Stats(); st.Accepted != uint64(b.N) {
				b.Fatalf("receiver stats %+v after %d deliveries", st, b.N)
			}
			b.ReportMetric(float64(b.N)/float64(max(s.Version()-v0, 1)), "events/commit")
			bareBestMu.Lock()
			bare := bareBest[sz.name]
			bareBestMu.Unlock()
			if bare > 0 {
				b.ReportMetric(rate/bare, "x-bare")
			}
			durableBestMu.Lock()
			durable := durableBest[sz.name]
			durableBestMu.Unlock()
			if durable > 0 {
				b.ReportMetric(rate/durable, "x-durable")
			}
		})
	}
}

// BenchmarkIntakeDurable is issue 27's intake target, measured side by side: b.N distinct
// signed deliveries to the durable baseline (HMAC + a fsynced insert with group commit on the
// same driver: durableSink) and as many to the receiver with the store's intake (200 once the
// row is committed and fsynced, the read-back scheduled, the counts kept), on the same store
// while the same dashboard reader runs. The two servers take turns, intakeSlices slices each
// (durable, intake, durable, ...), so a machine whose load changes slows both alike;
// x-durable is the intake's rate over the durable one of the same run (target ≥ 0.8), and
// -count repeats the run: compare medians. Event ids are random UUIDs, as the service mints
// them (a sequential id would keep the dedupe index's inserts on one page). The 1M history
// runs only with PIXDASH_SCALE=1 (see dayScaleDB).
//
//	go test -run '^$' -bench IntakeDurable -benchtime 20000x -count 5 ./state/
func BenchmarkIntakeDurable(b *testing.B) {
	sizes := slices.Clone(intakeSizes)
	if os.Getenv("PIXDASH_SCALE") == "1" {
		sizes = append(sizes, intakeSizes[0])
		sizes[len(sizes)-1].name, sizes[len(sizes)-1].charges, sizes[len(sizes)-1].events = "store=1M", dayScaleCharges, dayScaleEvents
	}
	for _, sz := range sizes {
		store := lazyGenCopy(b, sz.charges, sz.events) // the events of earlier runs stay, as in a profile
		if sz.charges == dayScaleCharges {
			store = lazyScaleCopy(b)
		}
		b.Run(sz.name, func(b *testing.B) {
			s := store(b)
			in, err := s.OpenIntake()
			if err != nil {
				b.Fatal(err)
			}
			defer in.Close()
			sink := openDurableSink(b)
			r := api.NewReceiver(benchSecret, api.WithSink(in))
			durable, intake := serveHTTP(b, durableHMAC(benchSecret, sink)), serveHTTP(b, r)
			defer durable.close()
			defer intake.close()
			dds, ids := benchDeliveriesUUID(b.N, sz.charges), benchDeliveriesUUID(b.N, sz.charges)
			rd := startDashboardReader(s)
			var tDurable, tIntake time.Duration
			var ioDurable, ioIntake procIO
			c0, v0 := sink.commits.Load(), s.Version()
			b.ResetTimer()
			b.StopTimer()
			for i := range intakeSlices {
				lo, hi := i*b.N/intakeSlices, (i+1)*b.N/intakeSlices
				io0 := readProcIO()
				d, err := deliverHTTP(durable.url, dds[lo:hi], benchClients)
				if err != nil {
					b.Fatal(err)
				}
				io1 := readProcIO()
				b.StartTimer() // ns/op is the intake's
				t, err := deliverHTTP(intake.url, ids[lo:hi], benchClients)
				b.StopTimer()
				// The store's log is checkpointed in the background: what this turn left to
				// copy is copied now, on the intake's side, not during the baseline's turn.
				settleCheckpoints(b, s)
				if err != nil {
					b.Fatal(err)
				}
				io2 := readProcIO()
				tDurable, tIntake = tDurable+d, tIntake+t
				ioDurable, ioIntake = ioDurable.add(io1.sub(io0)), ioIntake.add(io2.sub(io1))
			}
			if err := rd.finish(); err != nil {
				b.Fatalf("dashboard reader: %v", err)
			}
			if st := r.Stats(); st.Accepted != uint64(b.N) {
				b.Fatalf("receiver stats %+v after %d deliveries", st, b.N)
			}
			rateD, rateI := float64(b.N)/tDurable.Seconds(), float64(b.N)/tIntake.Seconds()
			b.ReportMetric(rateI, "events/s")
			b.ReportMetric(rateD, "durable-events/s")
			b.ReportMetric(rateI/rateD, "x-durable")
			b.ReportMetric(float64(b.N)/float64(max(s.Version()-v0, 1)), "events/commit")
			// The CPU time the whole process spent per event (senders, server, store, reader).
			b.ReportMetric(float64(ioIntake.cpu.Microseconds())/float64(b.N), "cpu-µs/event")
			b.ReportMetric(float64(ioDurable.cpu.Microseconds())/float64(b.N), "durable-cpu-µs/event")
			if ioIntake.ok {
				// What the disk is asked to write per event, the log and the checkpoints' copies
				// into the database file (the HTTP sockets' writes are in neither).
				b.ReportMetric(float64(ioIntake.writeBytes)/float64(b.N), "disk-B/event")
				b.ReportMetric(float64(ioDurable.writeBytes)/float64(b.N), "durable-disk-B/event")
			}
			b.ReportMetric(float64(b.N)/float64(max(sink.commits.Load()-c0, 1)), "durable-events/commit")
		})
	}
}

// intakeSlices is how many turns each server of BenchmarkIntakeDurable takes.
const intakeSlices = 8

// lazyScaleCopy is lazyGenCopy for the 1M history of dayScaleDB.
func lazyScaleCopy(owner testing.TB) func(b *testing.B) *Store {
	var s *Store
	return func(b *testing.B) *Store {
		b.Helper()
		if s == nil {
			dir := owner.TempDir()
			copyDB(b, dayScaleDB(b), dir, "bench")
			st, err := Open(context.Background(), dir, "bench", WithLocation(time.UTC))
			if err != nil {
				b.Fatal(err)
			}
			s = st
			owner.Cleanup(func() { _ = st.Close() })
		}
		return s
	}
}

// benchDeliveriesUUID is benchDeliveries with random UUIDs (version 4) for event ids, as the
// service mints them.
func benchDeliveriesUUID(n, nCharges int) []benchDelivery {
	ds := make([]benchDelivery, n)
	now := time.Now().UTC()
	for i := range ds {
		var u [16]byte
		for j := 0; j < 16; j += 8 {
			binary.LittleEndian.PutUint64(u[j:], rand.Uint64())
		}
		u[6], u[8] = u[6]&0x0f|0x40, u[8]&0x3f|0x80
		id := fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:])
		k := rand.Uint64()
		body := genEventPayload(id, api.EventPaymentCompleted, int(k%uint64(max(nCharges, 1))), max(nCharges, 1), now)
		ds[i] = benchDelivery{body: body, sig: api.Sign(body, benchSecret)}
	}
	return ds
}

// benchHTTPRun delivers b.N distinct deliveries to h behind serveHTTP while a dashboard reader
// runs on s, reports events/s and returns it.
func benchHTTPRun(b *testing.B, s *Store, h http.Handler, nCharges int) float64 {
	ds := benchDeliveries(b.N, nCharges)
	t := serveHTTP(b, h)
	defer t.close()
	rd := startDashboardReader(s)
	b.ResetTimer()
	elapsed, err := deliverHTTP(t.url, ds, benchClients)
	b.StopTimer()
	if rerr := rd.finish(); rerr != nil {
		b.Fatalf("dashboard reader: %v", rerr)
	}
	if err != nil {
		b.Fatal(err)
	}
	rate := float64(b.N) / elapsed.Seconds()
	b.ReportMetric(rate, "events/s")
	b.ReportMetric(float64(rd.rounds.Load()), "reader-rounds")
	return rate
}

// BenchmarkApplyEventsGroupCommit records decoded events on disk: one ApplyEvent per event from
// 1 or 64 concurrent callers (the intake's pattern: callers queued during a commit share the
// next one), and ApplyEvents in batches of 512. events/commit shows the grouping.
func BenchmarkApplyEventsGroupCommit(b *testing.B) {
	run := func(b *testing.B, callers, batch int) {
		s, err := Open(context.Background(), b.TempDir(), "group", WithLocation(time.UTC))
		if err != nil {
			b.Fatal(err)
		}
		defer s.Close()
		ds := benchDeliveries(b.N, 1000)
		evs := make([]*api.Event, len(ds))
		for i, d := range ds {
			if evs[i], err = api.DecodeEvent(d.body); err != nil {
				b.Fatal(err)
			}
		}
		v0 := s.Version()
		var next atomic.Int64
		var wg sync.WaitGroup
		b.ResetTimer()
		for range callers {
			wg.Go(func() {
				for {
					lo := int(next.Add(int64(batch)) - int64(batch))
					if lo >= len(evs) {
						return
					}
					if _, err := s.ApplyEvents(context.Background(), evs[lo:min(lo+batch, len(evs))]); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		b.StopTimer()
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		b.ReportMetric(float64(b.N)/float64(max(s.Version()-v0, 1)), "events/commit")
	}
	b.Run("callers=1", func(b *testing.B) { run(b, 1, 1) })
	b.Run("callers=64", func(b *testing.B) { run(b, 64, 1) })
	b.Run("batch=512", func(b *testing.B) { run(b, 1, 512) })
}

// ---- small helpers shared with TestScale ----

// durations summarizes a sample of durations.
type durations []time.Duration

func (d durations) sorted() durations {
	s := append(durations(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s
}

// quantile returns the q-quantile (nearest rank) of d; 0 when empty.
func (d durations) quantile(q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := d.sorted()
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(min(i, len(s)-1), 0)]
}

func (d durations) median() time.Duration { return d.quantile(0.5) }
func (d durations) max() time.Duration    { return d.quantile(1) }

// ms formats a duration in milliseconds with two decimals.
func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }
