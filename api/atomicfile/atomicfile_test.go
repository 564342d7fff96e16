package atomicfile

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestReplaceAndCreate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.csv")
	text := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	if err := Create(path, 0o600, text("one")); err != nil {
		t.Fatal(err)
	}
	if err := Create(path, 0o600, text("two")); !errors.Is(err, fs.ErrExist) {
		t.Fatalf("Create over a file: %v, want fs.ErrExist", err)
	}
	if err := Replace(path, 0o600, text("three")); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	if err := Replace(path, 0o600, func(w io.Writer) error { _, _ = io.WriteString(w, "half"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("fill's error: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil || string(b) != "three" {
		t.Fatalf("file = %q, %v; want the last complete write", b, err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", fi.Mode(), err)
	}
	// A file created while fill runs is kept: Create never overwrites.
	other := filepath.Join(dir, "race.toml")
	err = Create(other, 0o600, func(w io.Writer) error {
		if err := os.WriteFile(other, []byte("theirs"), 0o600); err != nil {
			return err
		}
		_, err := io.WriteString(w, "ours")
		return err
	})
	if b, _ := os.ReadFile(other); !errors.Is(err, fs.ErrExist) || string(b) != "theirs" {
		t.Fatalf("Create during a race: %v, file %q", err, b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 2 {
		t.Errorf("temporary files left: %v", ents)
	}
}
