//go:build !unix

package state

import (
	"errors"
	"os"
)

// errLocked is never returned where flock is unavailable.
var errLocked = errors.New("locked by another process")

// tryLockFile is a no-op where flock is unavailable: two windows may then both try to receive
// a profile's webhooks (the second fails to listen on the address).
func tryLockFile(*os.File) error { return nil }
