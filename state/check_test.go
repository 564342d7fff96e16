package state

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"pixdash/api"
	"pixdash/state/statetest"
)

// checkDay is the day the damaged-index tests close.
var checkDay = time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)

// seedPaidOnDisk writes n charges paid on checkDay (two wallets) into a new profile "loja" in
// dir and returns the day's close totals.
func seedPaidOnDisk(t *testing.T, dir string, n int) CloseLine {
	t.Helper()
	s, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC), WithClock(func() time.Time { return checkDay.Add(20 * time.Hour) }))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range n {
		w := api.WalletPrincipal
		if i%4 == 1 {
			w = "loja-centro"
		}
		fee := api.Money(99)
		at := checkDay.Add(8*time.Hour + time.Duration(i)*7*time.Minute)
		if _, err := s.UpsertCharge(context.Background(), dayPaid(fmt.Sprintf("ch-%03d", i), w, api.Money(5000+137*i), at, at.Add(time.Minute), &fee)); err != nil {
			t.Fatal(err)
		}
	}
	return closeTotal(t, s)
}

func closeTotal(t *testing.T, s *Store) CloseLine {
	t.Helper()
	r, err := s.CloseDay(context.Background(), CloseQuery{Day: Days(checkDay.Add(12*time.Hour), 1, time.UTC), Wallets: []string{""}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Total
}

// TestDamagedPaidIndexIsFoundAndRepaired: one page of charges_paid rewritten empty used to make
// the day's close silently report fewer payments (issue 22 item 12). The check every Open starts
// now reports it (Damage), naming the file and the index, and so does the check of close and
// export; Repair copies the file aside, rebuilds the index and the close is whole again.
func TestDamagedPaidIndexIsFoundAndRepaired(t *testing.T) {
	dir := t.TempDir()
	want := seedPaidOnDisk(t, dir, 36)
	if want.Paid != 36 {
		t.Fatalf("seeded close: %+v", want)
	}
	file := filepath.Join(dir, DBFileName("loja"))
	statetest.EmptyIndexPage(t, file, "charges_paid")

	damaged, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	<-damaged.Checked()
	err = damaged.Damage()
	var de *DamageError
	if !errors.As(err, &de) || !errors.Is(err, ErrDamaged) {
		t.Fatalf("the check at open of a damaged database: %v", err)
	}
	if err := damaged.Check(context.Background(), CheckTables); !errors.Is(err, ErrDamaged) {
		t.Errorf("the check of close and export: %v", err)
	}
	_ = damaged.Close()
	if msg := err.Error(); !strings.Contains(msg, file) || !strings.Contains(msg, "charges_paid") || !strings.Contains(msg, "lists 0 paid charges where there are 36") {
		t.Errorf("message %q does not name the file and the damage", msg)
	}

	rep, err := Repair(context.Background(), dir, "loja")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Found) == 0 || rep.Backup == "" || rep.File != file {
		t.Errorf("report %+v", rep)
	}
	if fi, err := os.Stat(rep.Backup); err != nil || fi.Size() == 0 {
		t.Errorf("backup %s: %v", rep.Backup, err)
	}
	s, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatalf("open after the repair: %v", err)
	}
	defer s.Close()
	<-s.Checked()
	if err := s.Damage(); err != nil {
		t.Errorf("the check at open after the repair: %v", err)
	}
	if err := s.Check(context.Background(), CheckPages); err != nil {
		t.Errorf("full check after the repair: %v", err)
	}
	if got := closeTotal(t, s); got != want {
		t.Errorf("close after the repair:\n got %+v\nwant %+v", got, want)
	}
	// A second repair finds nothing to do.
	if rep, err := Repair(context.Background(), dir, "loja"); err != nil || len(rep.Found) != 0 || rep.Backup != "" {
		t.Errorf("second repair: %+v, %v", rep, err)
	}
}

// TestFullCheckFindsBrokenPages: a page zeroed outright is found by the full check (and the
// quick one, since the index can no longer be read).
func TestFullCheckFindsBrokenPages(t *testing.T) {
	dir := t.TempDir()
	seedPaidOnDisk(t, dir, 400)
	file := filepath.Join(dir, DBFileName("loja"))
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	var page, size int
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'charges_wallet' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	_ = db.QueryRow(`PRAGMA page_size`).Scan(&size)
	_ = db.Close()
	f, _ := os.OpenFile(file, os.O_RDWR, 0)
	_, _ = f.WriteAt(make([]byte, size), int64(page-1)*int64(size))
	_ = f.Close()
	// charges_wallet is no money index: the open goes on, the full check finds the page.
	s, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	err = s.Check(context.Background(), CheckPages)
	_ = s.Close()
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), file) {
		t.Fatalf("full check: %v", err)
	}
	if _, err := Repair(context.Background(), dir, "loja"); err != nil {
		t.Fatalf("repair: %v", err)
	}
	s, err = Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if err := s.Check(context.Background(), CheckPages); err != nil {
		t.Errorf("after the repair: %v", err)
	}
}

// TestEmptyDatabaseFileIsReported: a zero-length database file is reported, not taken for a
// new profile (issue 22 item 12).
func TestEmptyDatabaseFileIsReported(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, DBFileName("loja"))
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err := Open(context.Background(), dir, "loja")
	if !errors.Is(err, ErrEmptyDatabase) || !strings.Contains(err.Error(), file) {
		t.Fatalf("open of an empty file: %v", err)
	}
	if fi, _ := os.Stat(file); fi.Size() != 0 {
		t.Error("the empty file was written to")
	}
	if d := time.Since(start); d > emptyFilePatience+time.Second {
		t.Errorf("took %s", d)
	}
	if _, err := Repair(context.Background(), dir, "loja"); !errors.Is(err, ErrEmptyDatabase) {
		t.Errorf("repair of an empty file: %v", err)
	}
	// A new profile (no file) still opens.
	s, err := Open(context.Background(), dir, "nova")
	if err != nil {
		t.Fatal(err)
	}
	_ = s.Close()
}

// TestTableCheckFindsMissingRows: a page of the charges table rewritten empty (its rows gone,
// its indexes intact) passes the open's index check but not the one close and export run.
func TestTableCheckFindsMissingRows(t *testing.T) {
	dir := t.TempDir()
	seedPaidOnDisk(t, dir, 400)
	file := filepath.Join(dir, DBFileName("loja"))
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	var page, size int
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = 'charges' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1`).Scan(&page); err != nil {
		t.Fatal(err)
	}
	_ = db.QueryRow(`PRAGMA page_size`).Scan(&size)
	_ = db.Close()
	p := make([]byte, size)
	p[0] = 0x0d // a leaf of a table b-tree, no cells
	p[5], p[6] = byte(size>>8), byte(size)
	f, _ := os.OpenFile(file, os.O_RDWR, 0)
	_, _ = f.WriteAt(p, int64(page-1)*int64(size))
	_ = f.Close()
	s, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	defer s.Close()
	err = s.Check(context.Background(), CheckTables)
	if !errors.Is(err, ErrDamaged) || !strings.Contains(err.Error(), "table charges") {
		t.Fatalf("table check: %v", err)
	}
}

// TestCheckWhileAnotherWindowWrites: the counts a check compares are read in one snapshot, so a
// window writing paid charges meanwhile never makes a sound database look damaged.
func TestCheckWhileAnotherWindowWrites(t *testing.T) {
	dir := t.TempDir()
	seedPaidOnDisk(t, dir, 10)
	writer, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer writer.Close()
	reader, err := Open(context.Background(), dir, "loja", WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	done := make(chan error, 1)
	go func() {
		for i := range 200 {
			at := checkDay.Add(time.Duration(i) * time.Second)
			fee := api.Money(1)
			if _, err := writer.UpsertCharge(context.Background(), dayPaid(fmt.Sprintf("w-%03d", i), api.WalletPrincipal, 100, at, at, &fee)); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	for {
		if err := reader.Check(context.Background(), CheckTables); err != nil {
			t.Fatalf("a sound database found damaged while another window writes: %v", err)
		}
		select {
		case err := <-done:
			if err != nil {
				t.Fatal(err)
			}
			return
		default:
		}
	}
}
