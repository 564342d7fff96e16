// Package atomicfile is the one way pixdash writes a file others may read (the config, an
// export, a day's close): the content goes into a temporary file in the same directory, is
// synced, and only then takes the final name, so a reader never sees half a file and a
// failure leaves what was there before.
package atomicfile

import (
	"bufio"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// Replace writes the file at path with what fill writes (buffered), mode perm, replacing a file
// already there. On any failure, fill's included, the temporary file is removed and path is as
// it was; fill's error is returned as is.
func Replace(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	return write(path, perm, fill, false)
}

// Create is Replace for a file that must not exist yet: it never overwrites one, even one
// created by someone else while fill runs, and then fails with an error matching fs.ErrExist.
func Create(path string, perm fs.FileMode, fill func(io.Writer) error) error {
	if _, err := os.Lstat(path); err == nil {
		return &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return write(path, perm, fill, true)
}

func write(path string, perm fs.FileMode, fill func(io.Writer) error, exclusive bool) (err error) {
	dir := filepath.Dir(path)
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			_ = f.Close()
		}
		_ = os.Remove(tmp) // after a link or a rename this is a no-op (or drops the spare name)
	}()
	if err = f.Chmod(perm); err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 64<<10)
	if err = fill(bw); err != nil {
		return err
	}
	if err = bw.Flush(); err != nil {
		return err
	}
	if err = f.Sync(); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	if !exclusive {
		return os.Rename(tmp, path)
	}
	// A hard link never replaces an existing file, so a file created meanwhile is kept.
	if err = os.Link(tmp, path); err == nil || errors.Is(err, fs.ErrExist) {
		return err
	}
	// File systems without hard links: rename after one more check.
	if _, lerr := os.Lstat(path); lerr == nil {
		return &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
	}
	return os.Rename(tmp, path)
}
