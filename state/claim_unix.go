//go:build unix

package state

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this pid runs on this machine (signal 0 checks
// without sending anything; EPERM means it runs as another user). A reused pid reads as alive:
// the claim then lasts until its Until, which is safe.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
