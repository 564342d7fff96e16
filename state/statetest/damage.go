// Package statetest holds test helpers shared by the packages that test a profile's database.
package statetest

import (
	"database/sql"
	"os"
	"testing"

	_ "modernc.org/sqlite" // the project's SQLite driver, registered as "sqlite"
)

// EmptyIndexPage rewrites the first leaf page of index in the database file as a well-formed
// empty one: what a page zeroed on disk looks like once its type byte survives. PRAGMA
// quick_check finds nothing wrong with it; the index silently lists fewer rows.
func EmptyIndexPage(t testing.TB, file, index string) {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	var page, size int
	if err := db.QueryRow(`SELECT pageno FROM dbstat WHERE name = ? AND pagetype = 'leaf' ORDER BY pageno LIMIT 1`, index).Scan(&page); err != nil {
		t.Fatal(err)
	}
	if err := db.QueryRow(`PRAGMA page_size`).Scan(&size); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()
	p := make([]byte, size)
	p[0] = 0x0a // a leaf of an index b-tree, no cells
	p[5], p[6] = byte(size>>8), byte(size)
	f, err := os.OpenFile(file, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(p, int64(page-1)*int64(size)); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
