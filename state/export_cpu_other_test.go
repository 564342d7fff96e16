//go:build !unix

package state_test

import (
	"testing"
	"time"
)

// Whose CPU time cpuTime reads (not measured on this system).
const (
	cpuSelf     = 0
	cpuChildren = 1
)

// cpuTime is not measured on this system: 0.
func cpuTime(testing.TB, int) time.Duration { return 0 }
