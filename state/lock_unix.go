//go:build unix

package state

import (
	"errors"
	"os"
	"syscall"
)

// errLocked reports a lock another process holds.
var errLocked = errors.New("locked by another process")

// tryLockFile takes an exclusive advisory lock on f without waiting (errLocked when held). The
// lock goes with the open file: closing it, or the process ending, releases it.
func tryLockFile(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return errLocked
		}
		if !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
