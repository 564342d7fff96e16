//go:build unix

package state_test

import (
	"syscall"
	"testing"
	"time"
)

// Whose CPU time cpuTime reads: this process's, or its children's waited for.
const (
	cpuSelf     = syscall.RUSAGE_SELF
	cpuChildren = syscall.RUSAGE_CHILDREN
)

// cpuTime is the user and system CPU time of this process (cpuSelf) or of its children waited
// for (cpuChildren) so far: on a shared machine, what a run itself cost, however long it
// waited for a CPU (BenchmarkExport).
func cpuTime(tb testing.TB, who int) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(who, &ru); err != nil {
		tb.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
