//go:build !unix

package state

import (
	"errors"
	"os"
)

// lockFile is a no-op where flock is unavailable: two instances on one profile are then unsafe.
func lockFile(*os.File) error { return nil }

// unlockFile is a no-op where flock is unavailable.
func unlockFile(*os.File) error { return nil }

// inode is unknown where syscall.Stat_t is unavailable.
func inode(os.FileInfo) uint64 { return 0 }

// errLocked is never returned where flock is unavailable.
var errLocked = errors.New("locked by another process")

// tryLockFile is a no-op where flock is unavailable.
func tryLockFile(*os.File) error { return nil }
