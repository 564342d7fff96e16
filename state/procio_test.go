package state

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// procIO is what the process used so far: the bytes it had written to storage
// (/proc/self/io; ok is false where there is none) and its CPU time.
type procIO struct {
	writeBytes int64         // bytes the process caused to be written to storage
	cpu        time.Duration // user and system CPU time of the process
	ok         bool
}

// readProcIO reads the counters now.
func readProcIO() procIO {
	p := procIO{cpu: processCPU()}
	b, err := os.ReadFile("/proc/self/io")
	if err != nil {
		return p
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "write_bytes: "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			p.writeBytes, p.ok = n, err == nil
		}
	}
	return p
}

func (p procIO) sub(q procIO) procIO {
	return procIO{p.writeBytes - q.writeBytes, p.cpu - q.cpu, p.ok && q.ok}
}

func (p procIO) add(q procIO) procIO {
	return procIO{p.writeBytes + q.writeBytes, p.cpu + q.cpu, (p.ok || p == procIO{}) && q.ok}
}
