//go:build !unix

package state

import "os"

// lockFile is a no-op where flock is unavailable: two instances on one profile are then unsafe.
func lockFile(*os.File) error { return nil }

// unlockFile is a no-op where flock is unavailable.
func unlockFile(*os.File) error { return nil }

// inode is unknown where syscall.Stat_t is unavailable.
func inode(os.FileInfo) uint64 { return 0 }
