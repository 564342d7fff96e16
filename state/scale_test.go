package state

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	"pixdash/api"
)

// TestScale measures issue 27's targets at a million charges and 100k events (`make scale`;
// skipped unless PIXDASH_SCALE=1) and fails when one is missed:
//
//  1. process start to the first frame of the charges list: ≤ 300 ms at 1M (and 10M), ≤ 100 ms empty;
//  2. the dashboard's RSS: ≤ 150 MB steady, VmHWM never above 300 MB;
//  3. every key repaints within 50 ms, idle; (3b) the dashboard's CPU at 100 events/s with no key
//     pressed ≤ 15% of a core; (3c) keys during a paced flood (HTTP, the sender on this machine):
//     p99 ≤ 30 ms and every key ≤ 50 ms at 500 events/s, p99 ≤ 50 ms at 1,000/s;
//  4. a filter keystroke (ChargeWindow with a text: 40 rows and the count): ≤ 16 ms median;
//  5. webhook intake over HTTP while the dashboard reads: ≥ 0.8× the durable baseline (the HMAC
//     check and a fsynced insert with group commit on the same driver: durableHMAC) on the same
//     server and load, at a small store and at the profile's size (slices of 5k events to
//     each in turn, the ratio of their summed times);
//  6. the database file ≤ 1 KB a charge;
//  7. the Sales view's 30-day figures for every wallet ≤ 20 ms at 1M (≤ 30 ms above), the day's
//     close ≤ 1 s;
//  8. `pixdash export` of every charge ≤ 2× `sqlite3 .dump charges` of the same file, its peak
//     memory ≤ 150 MB;
//  9. a profile whose charges are all pending (PIXDASH_SCALE_PENDING of them, default 1M; 0
//     skips): the first key after the first frame ≤ 50 ms, RSS ≤ 150 MB.
//
// The profile database is generated once per size (genDB) in $PIXDASH_SCALE_DIR (default
// /tmp/pixdash-scale; about 20 minutes for 1M on a 2-core machine) and copied for each run;
// PIXDASH_SCALE_CHARGES and PIXDASH_SCALE_EVENTS change its size (default 1000000 and 100000;
// the targets stay the issue's). Targets 1 to 3 and 9 run the real binary under a
// pseudo-terminal (script(1), 120x40), with a config whose service is a closed loopback port
// and whose webhook receiver listens on loopback; 4, 5 and 7 run in this process on the same
// database afterwards, 8 runs the binary and sqlite3(1). The machine's load is printed with the
// results: other work on the machine slows every figure. PIXDASH_SCALE_PERF=1 adds a perf(1)
// profile of the dashboard during the floods.

const (
	scaleProfile = "scale"
	emptyProfile = "empty"
	scaleCols    = 120
	scaleLines   = 40
	// scaleRuns is how many times each start is timed.
	scaleRuns = 5
)

const scaleWebhookSecret api.Secret = "whsec_pixdash-scale-s3cr3t"

// Targets.
const (
	targetFirstFrame      = 300 * time.Millisecond
	targetFirstFrameEmpty = 100 * time.Millisecond
	targetRSS             = 150 << 20
	targetHWM             = 300 << 20
	targetKey             = 50 * time.Millisecond
	targetKeystroke       = 16 * time.Millisecond
	targetIntakeRatio     = 0.8
)

// scaleReport collects the measured figures next to the targets.
type scaleReport struct {
	t     *testing.T
	rows  [][4]string // target, measured, needed, verdict
	fails []string
	notes []string
}

func (r *scaleReport) add(target, measured, need string, ok bool) {
	verdict := "ok"
	if !ok {
		verdict = "MISSED"
		r.fails = append(r.fails, target+": "+measured+" (needed "+need+")")
	}
	r.rows = append(r.rows, [4]string{target, measured, need, verdict})
}

func (r *scaleReport) info(target, measured string) {
	r.rows = append(r.rows, [4]string{target, measured, "", "info"})
}

func (r *scaleReport) skip(target, why string) {
	r.rows = append(r.rows, [4]string{target, why, "", "SKIPPED"})
}

func (r *scaleReport) note(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

func (r *scaleReport) print() {
	w := [3]int{}
	for _, row := range r.rows {
		for i := range w {
			w[i] = max(w[i], utf8.RuneCountInString(row[i]))
		}
	}
	pad := func(s string, n int) string { return s + strings.Repeat(" ", max(n-utf8.RuneCountInString(s), 0)) }
	var b strings.Builder
	b.WriteString("\n")
	b.WriteString(pad("target", w[0]) + " | " + pad("measured", w[1]) + " | " + pad("needed", w[2]) + " | verdict\n")
	b.WriteString(strings.Repeat("-", w[0]+w[1]+w[2]+17) + "\n")
	for _, row := range r.rows {
		b.WriteString(pad(row[0], w[0]) + " | " + pad(row[1], w[1]) + " | " + pad(row[2], w[2]) + " | " + row[3] + "\n")
	}
	for _, n := range r.notes {
		b.WriteString("note: " + n + "\n")
	}
	r.t.Log(b.String())
	for _, f := range r.fails {
		r.t.Errorf("target missed: %s", f)
	}
}

func TestScale(t *testing.T) {
	if os.Getenv("PIXDASH_SCALE") != "1" {
		t.Skip("the scale test builds a 1M-charge profile and runs the dashboard: set PIXDASH_SCALE=1 (make scale)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the scale test reads /proc")
	}
	dir := os.Getenv("PIXDASH_SCALE_DIR")
	if dir == "" {
		dir = "/tmp/pixdash-scale"
	}
	sz := scaleSize{charges: envInt(t, "PIXDASH_SCALE_CHARGES", 1_000_000), events: envInt(t, "PIXDASH_SCALE_EVENTS", 100_000)}
	t0 := time.Now()
	big := genDB(t, dir, sz.charges, sz.events)
	small := genDB(t, dir, smallCharges, smallEvents)
	t.Logf("profile databases ready in %v", time.Since(t0).Round(time.Millisecond))
	rep := &scaleReport{t: t}
	defer rep.print()
	rep.note("load average at start: %s (%d CPUs)", loadAvg(), runtime.NumCPU())
	if fi, err := os.Stat(big); err == nil {
		rep.note("profile database %s: %d MB", big, fi.Size()>>20)
	}

	work := t.TempDir()
	home := filepath.Join(work, "home")
	stateDir := filepath.Join(home, "state", "pixdash")
	copyDB(t, big, stateDir, scaleProfile)

	steps := scaleSteps(t)
	script, scriptErr := exec.LookPath("script")
	bin := buildPixdash(t)
	hookURL := writeScaleConfig(t, home)
	switch {
	case !steps["3"]:
	case scriptErr != nil:
		msg := "no script(1) on PATH (util-linux): the dashboard cannot run under a pseudo-terminal"
		t.Log(msg)
		for _, target := range []string{"1. first frame", "2. RSS", "3. key → repaint", "9. pending charges"} {
			rep.skip(target, msg)
		}
	default:
		scaleDashboard(t, rep, sz, script, bin, hookURL, home, stateDir)
	}
	if steps["4"] {
		scaleOpen(t, rep, sz, stateDir)
		scaleKeystrokes(t, rep, sz, stateDir)
	}
	if steps["5"] {
		scaleIntake(t, rep, sz, small, stateDir)
	}
	if steps["7"] {
		scaleDay(t, rep, sz, stateDir)
	}
	if steps["8"] {
		scaleExport(t, rep, sz, bin, home, filepath.Join(stateDir, DBFileName(scaleProfile)))
	}
	if steps["6"] {
		// The file as generated (the runs above add events and WAL to the copy).
		scaleStorage(t, rep, sz, big)
	}
	if n := envCount(t, "PIXDASH_SCALE_PENDING", 1_000_000); n > 0 && scriptErr == nil && steps["9"] {
		pendingHome := filepath.Join(work, "pending")
		writeScaleConfig(t, pendingHome)
		scalePending(t, rep, n, script, bin, dir, pendingHome)
	}
	rep.note("load average at end: %s", loadAvg())
}

// scaleSize is the size of the profile's history.
type scaleSize struct{ charges, events int }

// label names the size in the results: "1M", "100k".
func (s scaleSize) label() string { return countLabel(s.charges) }

func countLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1_000 && n%1_000 == 0:
		return fmt.Sprintf("%dk", n/1_000)
	}
	return strconv.Itoa(n)
}

// scaleSteps is the set of steps PIXDASH_SCALE_STEPS names ("3,4,7": the dashboard with its
// first frame, memory, keys and floods; the filter keystrokes; the Sales and close), every step
// (1 to 9) when it is empty. Steps 1 and 2 run with 3.
func scaleSteps(t *testing.T) map[string]bool {
	all := map[string]bool{}
	v := os.Getenv("PIXDASH_SCALE_STEPS")
	for _, n := range []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"} {
		all[n] = v == ""
	}
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if _, ok := all[f]; !ok {
			t.Fatalf("PIXDASH_SCALE_STEPS=%q: steps are 1 to 9", v)
		}
		all[f] = true
		if f == "1" || f == "2" {
			all["3"] = true
		}
	}
	return all
}

// envCount is envInt that also takes 0 (skip the step).
func envCount(t *testing.T, name string, def int) int {
	if os.Getenv(name) == "0" {
		return 0
	}
	return envInt(t, name, def)
}

func envInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		t.Fatalf("%s=%q: want a positive number", name, v)
	}
	return n
}

// loadAvg is the first three fields of /proc/loadavg.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// ---- the dashboard under a pseudo-terminal (targets 1 to 3) ----

// buildPixdash builds the dashboard binary from the module root (or takes PIXDASH_SCALE_BIN).
func buildPixdash(t *testing.T) string {
	t.Helper()
	if bin := os.Getenv("PIXDASH_SCALE_BIN"); bin != "" {
		return bin // a binary built elsewhere (another branch's, side by side)
	}
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("no go tool to build the dashboard: %v", err)
	}
	bin := filepath.Join(t.TempDir(), "pixdash")
	cmd := exec.Command(gobin, "build", "-o", bin, ".")
	cmd.Dir = ".."
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// freePort returns a loopback port nothing listens on (now).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	_ = ln.Close()
	return port
}

// scaleEnv is the dashboard's environment: its own config and state directories, UTC, the
// secrets in the variables the config names, and a terminal type.
func scaleEnv(home string) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"TERM=xterm-256color",
		"TZ=UTC",
		"LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"XDG_STATE_HOME=" + filepath.Join(home, "state"),
		"PIXDASH_SECRET=scale-client-secret",
		"PIXDASH_WEBHOOK_SECRET=" + scaleWebhookSecret.Reveal(),
	}
}

// writeScaleConfig writes the profiles' config: the service at a closed loopback port, sandbox,
// and a webhook receiver on loopback for each profile. It returns the scale profile's webhook URL.
func writeScaleConfig(t *testing.T, home string) string {
	t.Helper()
	closed := freePort(t)
	hook, emptyHook := freePort(t), freePort(t)
	var b strings.Builder
	fmt.Fprintf(&b, "default_profile = %q\n", scaleProfile)
	for _, p := range []struct {
		name string
		port int
	}{{scaleProfile, hook}, {emptyProfile, emptyHook}} {
		fmt.Fprintf(&b, "\n[profiles.%s]\nbase_url = \"http://127.0.0.1:%d/v2\"\nclient_id = \"mp_test_scale\"\nenvironment = \"sandbox\"\nclient_secret_env = \"PIXDASH_SECRET\"\n", p.name, closed)
		fmt.Fprintf(&b, "\n[profiles.%s.webhook]\nlisten = \"127.0.0.1:%d\"\nsecret_env = \"PIXDASH_WEBHOOK_SECRET\"\n", p.name, p.port)
	}
	cfg := filepath.Join(home, "config", "pixdash", "config.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("http://127.0.0.1:%d%s", hook, api.WebhookPath)
}

// ptyProc is a program run by script(1) under a pseudo-terminal: keys are written to script's
// stdin, the screen's bytes read from its stdout with the time each read returned. It answers
// the terminal queries a terminal emulator answers (background colour, cursor position), which
// the dashboard waits for at start.
type ptyProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	start time.Time

	inMu sync.Mutex
	in   io.WriteCloser

	mu      sync.Mutex
	out     []byte
	ends    []int       // out's length after each read
	ats     []time.Time // when each read returned
	wake    chan struct{}
	done    chan struct{} // the output ended
	scanned int           // out is scanned for terminal queries up to here
}

func startPty(t *testing.T, script, command string, env []string, dir string) *ptyProc {
	t.Helper()
	cmd := exec.Command(script, "-qfc", fmt.Sprintf("stty cols %d rows %d; exec %s", scaleCols, scaleLines, command), "/dev/null")
	cmd.Env = env
	cmd.Dir = dir
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	p := &ptyProc{t: t, cmd: cmd, in: in, wake: make(chan struct{}), done: make(chan struct{})}
	p.start = time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go p.read(out)
	return p
}

func (p *ptyProc) read(r io.Reader) {
	defer close(p.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		at := time.Now()
		if n > 0 {
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			p.ends = append(p.ends, len(p.out))
			p.ats = append(p.ats, at)
			replies := p.queriesLocked()
			close(p.wake)
			p.wake = make(chan struct{})
			p.mu.Unlock()
			if replies != "" {
				p.write(replies)
			}
		}
		if err != nil {
			return
		}
	}
}

// Terminal queries and the answers of a dark terminal.
var ptyQueries = []struct{ q, a string }{
	{"\x1b]11;?", "\x1b]11;rgb:1717/1717/1717\x1b\\"},
	{"\x1b[6n", "\x1b[1;1R"},
}

// queriesLocked returns the answers to the terminal queries in the output not scanned yet.
func (p *ptyProc) queriesLocked() string {
	from := max(p.scanned-8, 0) // a query may straddle two reads
	var replies string
	for {
		best, which := -1, -1
		for i, q := range ptyQueries {
			if j := bytes.Index(p.out[from:], []byte(q.q)); j >= 0 && (best < 0 || j < best) {
				best, which = j, i
			}
		}
		if best < 0 {
			break
		}
		end := from + best + len(ptyQueries[which].q)
		if end > p.scanned {
			replies += ptyQueries[which].a
		}
		from = end
	}
	p.scanned = len(p.out)
	return replies
}

// write sends keys to the program and returns when they were written.
func (p *ptyProc) write(s string) time.Time {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	_, _ = io.WriteString(p.in, s)
	return time.Now()
}

// snapshot is a copy of the output read so far.
func (p *ptyProc) snapshot() []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return bytes.Clone(p.out)
}

// mark is the length of the output so far.
func (p *ptyProc) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.out)
}

// waitText waits until text appears in the output after offset from and returns when the read
// that completed it returned.
func (p *ptyProc) waitText(from int, text string, timeout time.Duration) (time.Time, bool) {
	return p.waitRead(timeout, func() int {
		if i := bytes.Index(p.out[min(from, len(p.out)):], []byte(text)); i >= 0 {
			return from + i + len(text)
		}
		return -1
	})
}

// waitAny waits for the first read that returned output after offset from.
func (p *ptyProc) waitAny(from int, timeout time.Duration) (time.Time, bool) {
	return p.waitRead(timeout, func() int { return from + 1 })
}

// waitRead waits until the output reaches the offset need returns (-1: not yet; called with
// p.mu held) and returns when the read that reached it returned.
func (p *ptyProc) waitRead(timeout time.Duration, need func() int) (time.Time, bool) {
	deadline := time.After(timeout)
	for {
		p.mu.Lock()
		if end := need(); end >= 0 {
			for k, e := range p.ends {
				if e >= end {
					at := p.ats[k]
					p.mu.Unlock()
					return at, true
				}
			}
		}
		wake := p.wake
		p.mu.Unlock()
		select {
		case <-wake:
		case <-p.done:
			return time.Time{}, false
		case <-deadline:
			return time.Time{}, false
		}
	}
}

// tail is the end of the output, for failure messages.
func (p *ptyProc) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return strconv.Quote(string(p.out[max(len(p.out)-1500, 0):]))
}

// childPID is the pid of the program script runs (its child, once it exec'd bin).
func (p *ptyProc) childPID(bin string, timeout time.Duration) (int, bool) {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/children", p.cmd.Process.Pid))
		for _, f := range tasks {
			b, _ := os.ReadFile(f)
			for _, field := range strings.Fields(string(b)) {
				pid, err := strconv.Atoi(field)
				if err != nil {
					continue
				}
				if exe, err := os.Readlink(fmt.Sprintf("/proc/%d/exe", pid)); err == nil && exe == bin {
					return pid, true
				}
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	return 0, false
}

// quit asks the dashboard to quit (ctrl+c) and waits for script to end, killing what it
// started when it does not.
func (p *ptyProc) quit(child int) {
	p.write("\x03")
	exited := make(chan struct{})
	go func() { _ = p.cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		p.t.Logf("the dashboard did not quit within 15 s; killing it")
		if child > 0 {
			if proc, err := os.FindProcess(child); err == nil {
				_ = proc.Kill()
			}
		}
		_ = p.cmd.Process.Kill()
		<-exited
	}
	_ = p.in.Close()
}

// procMem reads a process's VmRSS and VmHWM in bytes.
func procMem(pid int) (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		fields := strings.Fields(v)
		if len(fields) == 0 {
			continue
		}
		n, _ := strconv.ParseInt(fields[0], 10, 64)
		switch k {
		case "VmRSS":
			rss = n << 10
		case "VmHWM":
			hwm = n << 10
		}
	}
	return rss, hwm, sc.Err()
}

// schedStat sums a process's threads' time on a CPU and time waiting for one (runnable but not
// running: what other work on the machine costs it).
func schedStat(pid int) (onCPU, waited time.Duration, ok bool) {
	files, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		fields := strings.Fields(string(b))
		if len(fields) < 2 {
			continue
		}
		run, err1 := strconv.ParseInt(fields[0], 10, 64)
		wait, err2 := strconv.ParseInt(fields[1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		onCPU += time.Duration(run)
		waited += time.Duration(wait)
		ok = true
	}
	return onCPU, waited, ok
}

// smapsAnon is a process's anonymous resident memory (Go heap, SQLite's allocations, stacks).
func smapsAnon(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Anonymous:"); ok {
			f := strings.Fields(v)
			if len(f) > 0 {
				n, _ := strconv.ParseInt(f[0], 10, 64)
				return n << 10
			}
		}
	}
	return 0
}

// gcTrace reads a GODEBUG=gctrace=1 log: the live heap after the last GC, the largest, and the
// last goal ("A->B->C MB, D MB goal").
func gcTrace(path string) (last, largest, goal int64) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, 0, 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		i := strings.Index(line, " MB goal")
		if !strings.HasPrefix(line, "gc ") || i < 0 {
			continue
		}
		f := strings.Fields(line[:i])
		if len(f) < 3 {
			continue
		}
		heap := strings.Split(strings.TrimSuffix(f[len(f)-3], ","), "->")
		g, err1 := strconv.ParseInt(f[len(f)-1], 10, 64)
		l, err2 := strconv.ParseInt(heap[len(heap)-1], 10, 64)
		if err1 != nil || err2 != nil {
			continue
		}
		last, goal = l<<20, g<<20
		largest = max(largest, last)
	}
	return last, largest, goal
}

// perfProfile records the process with perf(1) for d and returns the top of its report (the
// symbols with the most time in them and their callees); "" without perf.
func perfProfile(t *testing.T, pid int, d time.Duration) string {
	perf, err := exec.LookPath("perf")
	if err != nil {
		return ""
	}
	data := filepath.Join(t.TempDir(), "perf.data")
	if out, err := exec.Command(perf, "record", "-F", "499", "-g", "-o", data, "-p", strconv.Itoa(pid), "--", "sleep", strconv.Itoa(int(d.Seconds()))).CombinedOutput(); err != nil {
		return fmt.Sprintf("perf record: %v: %s", err, out)
	}
	out, err := exec.Command(perf, "report", "-i", data, "--stdio", "--children", "--sort", "symbol").Output()
	if err != nil {
		return fmt.Sprintf("perf report: %v", err)
	}
	var lines []string
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasSuffix(f[0], "%") || !strings.Contains(line, "[.]") {
			continue
		}
		if !strings.Contains(line, "pixdash/") && !strings.Contains(line, "lipgloss") && !strings.Contains(line, "bubbletea") && !strings.Contains(line, "sqlite") && !strings.Contains(line, "colorful") && !strings.Contains(line, "runtime.gcBgMarkWorker") && !strings.Contains(line, "net/http.(*conn).serve") {
			continue
		}
		lines = append(lines, "      "+f[0]+" "+strings.TrimRight(strings.Join(f[3:], " "), " -"))
		if len(lines) == 30 {
			break
		}
	}
	return strings.Join(lines, "\n")
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }

// scaleDashboard measures targets 1 to 3 on the real binary.
func scaleDashboard(t *testing.T, rep *scaleReport, sz scaleSize, script, bin, hookURL, home, stateDir string) {
	at := "at " + sz.label()
	env := scaleEnv(home)
	// The empty profile's database exists, as after a first start.
	es, err := Open(context.Background(), stateDir, emptyProfile)
	if err != nil {
		t.Fatal(err)
	}
	_ = es.Close()

	// What script, sh and stty cost before the dashboard's exec.
	var overhead durations
	for range scaleRuns {
		p := startPty(t, script, "/bin/echo PIXDASH-READY", env, home)
		at, ok := p.waitText(0, "PIXDASH-READY", 10*time.Second)
		if !ok {
			t.Fatalf("script(1) does not run a command under a pseudo-terminal: %s", p.tail())
		}
		overhead = append(overhead, at.Sub(p.start))
		p.quit(0)
	}

	// Target 1: process start to the first frame that shows the charges list.
	firstFrame := func(profile, marker string) (ds, onCPU, waited durations) {
		for range scaleRuns {
			p := startPty(t, script, bin+" --profile "+profile, env, home)
			at, ok := p.waitText(0, marker, 60*time.Second)
			child, _ := p.childPID(bin, time.Second)
			if !ok {
				p.quit(child)
				t.Fatalf("profile %s: no frame showing %q within 60 s: %s", profile, marker, p.tail())
			}
			ds = append(ds, at.Sub(p.start))
			if cpu, wait, ok := schedStat(child); ok {
				onCPU, waited = append(onCPU, cpu), append(waited, wait)
			}
			p.quit(child)
		}
		return ds, onCPU, waited
	}
	ffBig, cpuBig, waitBig := firstFrame(scaleProfile, genSentinel)
	ffEmpty, cpuEmpty, waitEmpty := firstFrame(emptyProfile, "No charges yet")
	oh := overhead.median()
	rep.add(fmt.Sprintf("1. first frame, %s charges + %s events (median of %d)", sz.label(), countLabel(sz.events), scaleRuns),
		fmt.Sprintf("%s (runs %s; script+sh+stty %s of it)", ms(ffBig.median()), msList(ffBig), ms(oh)), "≤ "+ms(targetFirstFrame), ffBig.median() <= targetFirstFrame)
	rep.add(fmt.Sprintf("1. first frame, empty store (median of %d)", scaleRuns),
		fmt.Sprintf("%s (runs %s)", ms(ffEmpty.median()), msList(ffEmpty)), "≤ "+ms(targetFirstFrameEmpty), ffEmpty.median() <= targetFirstFrameEmpty)
	rep.info("1. the same, "+sz.label()+" vs empty, side by side", fmt.Sprintf("%s vs %s (+%s for the history)", ms(ffBig.median()), ms(ffEmpty.median()), ms(ffBig.median()-ffEmpty.median())))
	rep.info("1. dashboard CPU time to the first frame, "+sz.label()+" / empty",
		fmt.Sprintf("on a CPU %s / %s, waiting for a CPU %s / %s (medians; /proc/PID/task/*/schedstat)", ms(cpuBig.median()), ms(cpuEmpty.median()), ms(waitBig.median()), ms(waitEmpty.median())))

	// One session: memory and key → repaint, idle then under a webhook flood.
	// Its Go runtime traces each GC to a file (stderr), which tells the Go heap from the rest.
	gcLog := filepath.Join(home, "gctrace.log")
	p := startPty(t, script, bin+" --profile "+scaleProfile+" 2>"+gcLog, append(append(env, "GODEBUG=gctrace=1"), scaleProfiling()...), home)
	if _, ok := p.waitText(0, genSentinel, 60*time.Second); !ok {
		p.quit(0)
		t.Fatalf("no first frame: %s", p.tail())
	}
	child, ok := p.childPID(bin, 5*time.Second)
	if !ok {
		p.quit(0)
		t.Fatal("cannot find the dashboard's pid under script")
	}
	defer p.quit(child)
	time.Sleep(2 * time.Second) // start-up work (pending charges, first polls) settles
	rssStart, _, err := procMem(child)
	if err != nil {
		t.Fatal(err)
	}

	s, err := Open(context.Background(), stateDir, scaleProfile, WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	u := &scaleUI{t: t, p: p, s: s, flooding: func() bool { return false }}
	u.rows = u.screenRows()
	u.sync()
	var flooding atomic.Bool
	idle := u.session(false)
	u.flooding = flooding.Load
	time.Sleep(time.Second)
	rssIdle, _, _ := procMem(child)

	// Targets 3b and 3c: CPU at 100 events/s, keys during paced floods of 500 and 1,000/s.
	perfDone := make(chan string, 1)
	if os.Getenv("PIXDASH_SCALE_PERF") != "" {
		go func() { perfDone <- perfProfile(t, child, 10*time.Second) }()
	} else {
		perfDone <- ""
	}
	var sent int64
	if os.Getenv("PIXDASH_SCALE_FLOODS") != "0" { // 0: only the idle keys (a 10M run's memory and keys)
		sent = scaleFloods(t, rep, sz, u, child, hookURL, &flooding)
	}
	if perf := <-perfDone; perf != "" {
		rep.note("perf profile of the dashboard during the floods (children, top symbols):\n%s", perf)
	}
	// After the flood, memory is read again until it settles (the Go runtime returns freed
	// pages to the system over a few seconds): "steady" is 30 s later.
	var after [3]int64
	for i, wait := range []time.Duration{2 * time.Second, 8 * time.Second, 20 * time.Second} {
		time.Sleep(wait)
		after[i], _, _ = procMem(child)
	}
	_, hwm, _ := procMem(child)

	// Target 2.
	steady := max(rssStart, rssIdle, after[2])
	rep.add(fmt.Sprintf("2. RSS steady %s (2 s after start / after filter+scroll / 30 s after the floods' %d webhooks)", at, sent),
		fmt.Sprintf("%s / %s / %s", mb(rssStart), mb(rssIdle), mb(after[2])), "≤ "+mb(targetRSS), steady <= targetRSS)
	rep.add("2. VmHWM "+at+" (whole session)", mb(hwm), "≤ "+mb(targetHWM), hwm <= targetHWM)
	live, maxLive, goal := gcTrace(gcLog)
	rep.info("2. where the memory is, after the flood",
		fmt.Sprintf("RSS %s / %s / %s at +2 / +10 / +30 s; anonymous %s; Go heap live after the last GC %s (largest %s, goal %s)",
			mb(after[0]), mb(after[1]), mb(after[2]), mb(smapsAnon(child)), mb(live), mb(maxLive), mb(goal)))

	// Target 3.
	report := func(name string, ks []keyResult) {
		var shown, first, list durations
		var worst keyResult
		for _, k := range ks {
			shown = append(shown, k.shown)
			first = append(first, k.first)
			if k.list > 0 {
				list = append(list, k.list)
			}
			if k.shown > worst.shown {
				worst = k
			}
		}
		rep.add(fmt.Sprintf("3. key → repaint showing it %s, %s (%d keys)", at, name, len(ks)),
			fmt.Sprintf("max %s (%s), median %s, p90 %s", ms(shown.max()), worst.name, ms(shown.median()), ms(shown.quantile(0.9))), "≤ "+ms(targetKey)+" every key", shown.max() <= targetKey)
		rep.info(fmt.Sprintf("3. key → next output chunk, %s", name), fmt.Sprintf("max %s, median %s", ms(first.max()), ms(first.median())))
		if len(list) > 0 {
			rep.info(fmt.Sprintf("3. filter/status key → list rows updated, %s", name), fmt.Sprintf("max %s, median %s, p90 %s", ms(list.max()), ms(list.median()), ms(list.quantile(0.9))))
		}
		var slow []string
		for _, k := range ks {
			if k.shown > targetKey {
				slow = append(slow, fmt.Sprintf("%s %s", k.name, ms(k.shown)))
			}
		}
		if len(slow) > 0 {
			rep.note("keys over %s (%s): %s", ms(targetKey), name, strings.Join(slow, ", "))
		}
	}
	report("idle", idle)
	if n, err := s.LastEventSeq(context.Background()); err == nil {
		rep.note("events stored after the flood: up to seq %d", n)
	}
}

func msList(d durations) string {
	var parts []string
	for _, x := range d {
		parts = append(parts, strconv.FormatFloat(float64(x)/float64(time.Millisecond), 'f', 0, 64))
	}
	return strings.Join(parts, "/") + " ms"
}

// keyResult is one key pressed in the dashboard: from the write to the first output after it
// (first), to the repaint that shows the key's effect (shown: the row under the moved cursor,
// the echoed filter text), and for a key that changes the list's query, to the repaint that
// shows the new rows or count (list; 0 when the screen does not change).
type keyResult struct {
	name               string
	first, shown, list time.Duration
	during             bool // pressed while the webhook flood ran
}

// scaleUI presses keys in the dashboard's charges list and knows, from its own reads of the
// same database, what the screen must show after each.
type scaleUI struct {
	t        *testing.T
	p        *ptyProc
	s        *Store
	cursor   int
	text     string
	status   StatusFilter
	filterOn bool
	total    int
	rows     int      // how many rows the list shows (screenRows)
	top      []Charge // the rows of the current query the screen shows (from the top)
	flooding func() bool
}

func (u *scaleUI) query() ChargeQuery {
	return ChargeQuery{Wallet: api.WalletPrincipal, Status: u.status, Text: u.text}
}

// screenRows is how many rows the charges list shows, counted on the screen the dashboard
// drew (listRowsShown), not assumed from the layout: the day's strip above the list took one
// of the 33 rows a 120x40 terminal used to give it, and the key checks counted on 33.
func (u *scaleUI) screenRows() int {
	p, err := u.s.ChargeWindow(context.Background(), u.query(), 0, 2*uiListRows)
	if err != nil {
		u.t.Fatal(err)
	}
	texts := make([]string, len(p.Charges))
	for i, c := range p.Charges {
		texts[i] = rowText(c)
	}
	n := listRowsShown(u.p.snapshot(), texts)
	if n == 0 {
		u.t.Fatalf("the list's first row %q is not on the screen: %s", texts[0], u.p.tail())
	}
	if n != uiListRows {
		u.t.Logf("the list shows %d rows at %dx%d (the layout's figure is %d)", n, scaleCols, scaleLines, uiListRows)
	}
	return n
}

// listRowsShown counts how many of a list's first rows (texts, from the top, as rowText writes
// them) the terminal output out draws, each after the one above it: the rows on screen.
func listRowsShown(out []byte, texts []string) int {
	at := 0
	for i, text := range texts {
		j := bytes.Index(out[at:], []byte(text))
		if j < 0 {
			return i
		}
		at += j + len(text)
	}
	return len(texts)
}

// sync reads the current query's total and first screen of rows.
func (u *scaleUI) sync() {
	p, err := u.s.ChargeWindow(context.Background(), u.query(), 0, u.rows)
	if err != nil {
		u.t.Fatal(err)
	}
	u.total, u.top = p.Total, p.Charges
}

func (u *scaleUI) at(i int) Charge {
	p, err := u.s.ChargeWindow(context.Background(), u.query(), i, 1)
	if err != nil || len(p.Charges) == 0 {
		u.t.Fatalf("row %d of %+v: %v", i, u.query(), err)
	}
	return p.Charges[0]
}

// rowText is how a charge's row shows its amount and description.
func rowText(c Charge) string {
	d := c.Description
	if d == "" {
		d = "—"
	}
	if r := []rune(d); len(r) > 20 {
		d = string(r[:20])
	}
	return c.Amount.BRL() + "  " + d
}

// press writes keys and times the first output, the repaint containing shown and the one
// containing list ("" for none).
func (u *scaleUI) press(name, keys, shown, list string) keyResult {
	from := u.p.mark()
	during := u.flooding()
	at := u.p.write(keys)
	k := keyResult{name: name, during: during}
	const patience = 10 * time.Second
	if t, ok := u.p.waitAny(from, patience); ok {
		k.first = t.Sub(at)
	} else {
		k.first = patience
	}
	if t, ok := u.p.waitText(from, shown, patience); ok {
		k.shown = t.Sub(at)
	} else {
		u.t.Logf("key %s: %q not seen within %v", name, shown, patience)
		k.shown = patience
	}
	if list != "" {
		if t, ok := u.p.waitText(from, list, patience); ok {
			k.list = t.Sub(at)
		} else {
			u.t.Logf("key %s: list %q not seen within %v", name, list, patience)
			k.list = patience
		}
	}
	time.Sleep(30 * time.Millisecond) // a person's pace; lets the repaint finish
	return k
}

// move presses a navigation key that puts the cursor at to.
func (u *scaleUI) move(name, keys string, to int) (keyResult, bool) {
	to = max(min(to, u.total-1), 0)
	if to == u.cursor {
		return keyResult{}, false
	}
	c := u.at(to)
	k := u.press(name, keys, rowText(c), "")
	u.cursor = to
	return k, true
}

// requery presses a key that changes the query to (text, status) and returns what the screen
// must show for the list: the first row that differs from the rows shown before, or the count
// when the rows are the same.
func (u *scaleUI) requery(name, keys, shown string, text string, status StatusFilter) keyResult {
	before := u.top
	u.text, u.status = text, status
	u.sync()
	list := ""
	switch {
	case u.total == 0:
		list = "No charge matches the filter"
	default:
		for i, c := range u.top {
			if i >= len(before) || before[i].ID != c.ID {
				list = rowText(c)
				break
			}
		}
		if list == "" && !u.filterOn {
			list = fmt.Sprintf("%d charges", u.total)
		}
	}
	if len(before) == 0 && u.total == 0 {
		list = "" // the screen said so already
	}
	k := u.press(name, keys, shown, list)
	u.cursor = 0
	return k
}

// session presses a round of keys: moves, pages, the ends of the list, a filter typed and
// erased, a date filter, the status filter cycle. The short round (during the flood) leaves
// out the ends and the status cycle.
func (u *scaleUI) session(short bool) []keyResult {
	var out []keyResult
	add := func(k keyResult, ok bool) {
		if ok {
			out = append(out, k)
		}
	}
	for range 3 {
		add(u.move("j", "j", u.cursor+1))
	}
	add(u.move("k", "k", u.cursor-1))
	for range 3 {
		add(u.move("ctrl+d", "\x04", u.cursor+u.rows))
	}
	add(u.move("ctrl+u", "\x15", u.cursor-u.rows))
	if !short {
		add(u.move("G", "G", u.total-1))
	}
	add(u.move("g", "g", 0))
	typeFilter := func(text string) {
		u.filterOn = true
		out = append(out, u.press("/", "/", "ilter: id, description", ""))
		for _, r := range text {
			next := u.text + string(r)
			out = append(out, u.requery("type "+strconv.Quote(string(r)), string(r), "/ "+next+"\x1b[7m", next, u.status))
		}
	}
	typeFilter("joaqui")
	for range 3 {
		next := u.text[:len(u.text)-1]
		out = append(out, u.requery("backspace", "\x7f", "/ "+next+"\x1b[7m", next, u.status))
	}
	u.filterOn = false
	out = append(out, u.requery("esc", "\x1b", "· wallet principal", "", u.status))
	if !short {
		typeFilter("23/11")
		u.filterOn = false
		out = append(out, u.requery("esc", "\x1b", "· wallet principal", "", u.status))
		for range StatusFilters() {
			next := u.status.Next()
			shown := "status: "
			if next == FilterAll {
				shown = "· wallet principal"
			}
			out = append(out, u.requery("f", "f", shown, "", next))
		}
	}
	add(u.move("j", "j", u.cursor+1))
	return out
}

// scaleOpen times in process what the dashboard does before its first frame can show the list:
// Open (schema check, the pending charges loaded for polling) and the first window.
func scaleOpen(t *testing.T, rep *scaleReport, sz scaleSize, stateDir string) {
	bg := context.Background()
	var open, pending, window durations
	var n int
	for range 3 {
		t0 := time.Now()
		s, err := Open(bg, stateDir, scaleProfile, WithLocation(time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		open = append(open, time.Since(t0))
		t0 = time.Now()
		if err := s.loadPending(bg); err != nil {
			t.Fatal(err)
		}
		pending = append(pending, time.Since(t0))
		n = s.PendingCount()
		t0 = time.Now()
		if _, err := s.ChargeWindow(bg, ChargeQuery{Wallet: api.WalletPrincipal}, 0, benchWindow); err != nil {
			t.Fatal(err)
		}
		window = append(window, time.Since(t0))
		if len(open) == 3 {
			q := `SELECT doc FROM charges WHERE seq IN (SELECT seq FROM charges INDEXED BY charges_pending WHERE ` + pendingStates +
				` ORDER BY seq DESC LIMIT ` + strconv.Itoa(MaxPolled) + `)` // readPending
			plan, err := queryPlan(s, q, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep.note("Open loads the pending charges (%d) before the first frame: %s (median)\n      %s\n      QUERY PLAN\n%s", n, ms(pending.median()), q, plan)
		}
		_ = s.Close()
	}
	rep.info("1. in process at "+sz.label()+": Open / of it loading pending charges / first window",
		fmt.Sprintf("%s / %s (%d charges) / %s (medians of 3)", ms(open.median()), ms(pending.median()), n, ms(window.median())))
}

// ---- filter keystrokes in process (target 4) ----

// scaleKeystrokes times ChargeWindow as the filter calls it, per kind of keystroke, and explains
// the slow ones.
func scaleKeystrokes(t *testing.T, rep *scaleReport, sz scaleSize, stateDir string) {
	s, err := Open(context.Background(), stateDir, scaleProfile, WithLocation(time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	queries := append(append([]struct{ name, text string }(nil), keystrokeQueries...),
		struct{ name, text string }{"miss, 2 chars (row by row)", "qz"})
	const rounds = 15
	samples := make([]durations, len(queries))
	totals := make([]string, len(queries))
	for round := range rounds + 1 {
		for i, q := range queries {
			t0 := time.Now()
			p, err := keystroke(s, q.text)
			d := time.Since(t0)
			if err != nil {
				t.Fatal(err)
			}
			if round > 0 { // the first round warms the page cache
				samples[i] = append(samples[i], d)
			}
			totals[i] = strconv.Itoa(p.Total)
			if p.Capped {
				totals[i] += "+"
			}
		}
	}
	var all durations
	for i, q := range queries {
		all = append(all, samples[i]...)
		m := samples[i].median()
		line := fmt.Sprintf("median %s, max %s (%s matches)", ms(m), ms(samples[i].max()), totals[i])
		target := fmt.Sprintf("4. keystroke %s %q at %s", q.name, q.text, sz.label())
		if i < len(keystrokeQueries) {
			rep.add(target, line, "≤ "+ms(targetKeystroke)+" median", m <= targetKeystroke)
		} else {
			rep.info(target, line)
		}
		if m > targetKeystroke {
			explainChargeWindow(t, rep, s, ChargeQuery{Wallet: api.WalletPrincipal, Text: q.text}, 0, benchPage)
		}
	}
	rep.info("4. all keystrokes above", fmt.Sprintf("median %s, p90 %s, max %s", ms(all.median()), ms(all.quantile(0.9)), ms(all.max())))
	// The deepest window the list reads (the G key).
	p, err := s.ChargeWindow(context.Background(), ChargeQuery{Wallet: api.WalletPrincipal}, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	var bottom durations
	for range 5 {
		t0 := time.Now()
		if _, err := s.ChargeWindow(context.Background(), ChargeQuery{Wallet: api.WalletPrincipal}, p.Total-benchWindow, benchWindow); err != nil {
			t.Fatal(err)
		}
		bottom = append(bottom, time.Since(t0))
	}
	rep.info("4. the bottom window (G) at "+sz.label(), fmt.Sprintf("median %s (offset %d)", ms(bottom.median()), p.Total-benchWindow))
	if bottom.median() > targetKeystroke {
		explainChargeWindow(t, rep, s, ChargeQuery{Wallet: api.WalletPrincipal}, p.Total-benchWindow, benchWindow)
	}
}

// explainChargeWindow logs the statements ChargeWindow runs for q (as query.go builds them),
// each timed, with its query plan.
func explainChargeWindow(t *testing.T, rep *scaleReport, s *Store, q ChargeQuery, offset, limit int) {
	bg := context.Background()
	text := Fold(strings.TrimSpace(q.Text))
	exact, err := s.countSlice(bg, q.Wallet, q.Status)
	if err != nil {
		t.Fatal(err)
	}
	plan := planCharges(q, text, exact)
	from, where, order, args := plan.from, plan.where, plan.order, plan.args
	stmts := []struct {
		name, sql string
		args      []any
	}{{"page", `SELECT c.doc FROM ` + from + where + ` ORDER BY ` + order + ` LIMIT ? OFFSET ?`, append(append([]any(nil), args...), limit, offset)}}
	if text != "" {
		stmts = append(stmts, struct {
			name, sql string
			args      []any
		}{"count", `SELECT count(*) FROM (SELECT 1 FROM ` + from + where + ` LIMIT ?)`, append(append([]any(nil), args...), MaxCountedMatches+1)})
	}
	for _, st := range stmts {
		t0 := time.Now()
		rows, err := s.rdb.QueryContext(bg, st.sql, st.args...)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			n++
		}
		_ = rows.Close()
		took := time.Since(t0)
		plan, err := queryPlan(s, st.sql, st.args)
		if err != nil {
			t.Fatal(err)
		}
		rep.note("%+v offset %d, %s statement: %s (%d rows)\n      %s\n      args %v\n      QUERY PLAN\n%s", q, offset, st.name, ms(took), n, st.sql, st.args, plan)
	}
}

// queryPlan returns EXPLAIN QUERY PLAN of a statement, indented.
func queryPlan(s *Store, query string, args []any) (string, error) {
	rows, err := s.rdb.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	depth := map[int]int{}
	var b strings.Builder
	for rows.Next() {
		var id, parent, notused int
		var detail string
		if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
			return "", err
		}
		depth[id] = depth[parent] + 1
		b.WriteString(strings.Repeat("  ", depth[id]+2) + "|-- " + detail + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), rows.Err()
}

// ---- webhook intake over HTTP (target 5) ----

// scaleIntakeSlices and scaleIntakeSlice: step 5 delivers scaleIntakeSlices slices of
// scaleIntakeSlice events to each handler in turn (bare, durable, intake, bare, ...), so the
// durable baseline and the intake share the machine's load of each moment (a lone 20k run
// moved by ±15% on two shared cores), and judges the ratio of their summed times.
const (
	scaleIntakeSlices = 14
	scaleIntakeSlice  = 5000
)

// scaleIntake compares the receiver with the store's intake to the durable baseline and to a
// bare HMAC handler, each on a server of its own with 64 keep-alive senders, in alternating
// slices while a dashboard reader reads the store, at a small store and at the profile's size.
func scaleIntake(t *testing.T, rep *scaleReport, size scaleSize, small, stateDir string) {
	smallDir := t.TempDir()
	copyDB(t, small, smallDir, "small")
	for _, sz := range []struct {
		name, dir, profile string
		charges            int
	}{{"small store (" + countLabel(smallCharges) + " charges)", smallDir, "small", smallCharges}, {size.label() + " charges", stateDir, scaleProfile, size.charges}} {
		s, err := Open(context.Background(), sz.dir, sz.profile, WithLocation(time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		in, err := s.OpenIntake()
		if err != nil {
			t.Fatal(err)
		}
		// The dashboard has been open a while: its start-up reads and index check are done.
		<-s.Ready()
		<-s.checked
		bare := serveHTTP(t, bareHMAC(benchSecret))
		durable := serveHTTP(t, durableHMAC(benchSecret, openDurableSink(t)))
		intake := serveHTTP(t, api.NewReceiver(benchSecret, api.WithSink(in)))
		deliver := func(to *httpTarget, n int) time.Duration {
			took, err := deliverHTTP(to.url, benchDeliveries(n, sz.charges), benchClients)
			if err != nil {
				t.Fatal(err)
			}
			return took
		}
		rd := startDashboardReader(s)
		// A first, uncounted slice each: the pages a flood touches are warm, as in a dashboard
		// that has received before (the first round after the open was the slowest).
		deliver(durable, scaleIntakeSlice)
		deliver(intake, scaleIntakeSlice)
		rounds0 := rd.rounds.Load()
		var tBare, tDurable, tIntake time.Duration
		var ratios []float64
		for range scaleIntakeSlices {
			tBare += deliver(bare, scaleIntakeSlice)
			d := deliver(durable, scaleIntakeSlice)
			i := deliver(intake, scaleIntakeSlice)
			tDurable, tIntake = tDurable+d, tIntake+i
			ratios = append(ratios, float64(d)/float64(i))
		}
		rounds := rd.rounds.Load() - rounds0
		if err := rd.finish(); err != nil {
			t.Fatalf("dashboard reader: %v", err)
		}
		alone := deliver(intake, 4*scaleIntakeSlice)
		bare.close()
		durable.close()
		intake.close()
		_ = in.Close()
		_ = s.Close()
		n := float64(scaleIntakeSlices * scaleIntakeSlice)
		b, d, i := n/tBare.Seconds(), n/tDurable.Seconds(), n/tIntake.Seconds()
		slices.Sort(ratios)
		rep.add(fmt.Sprintf("5. webhook intake vs the durable baseline (HMAC + fsynced insert, group commit), %s (64 clients, %d × %s events each, alternately)", sz.name, scaleIntakeSlices, countLabel(scaleIntakeSlice)),
			fmt.Sprintf("%.2fx (intake %.0f events/s, durable %.0f events/s; slices %.2f–%.2fx, median %.2fx; reader rounds %d)", i/d, i, d, ratios[0], ratios[len(ratios)-1], ratios[len(ratios)/2], rounds),
			fmt.Sprintf("≥ %.1fx", targetIntakeRatio), i/d >= targetIntakeRatio)
		rep.info("5. the same against a bare HMAC handler that keeps nothing, "+sz.name, fmt.Sprintf("%.2fx (bare %.0f events/s)", i/b, b))
		rep.info("5. the same intake without the dashboard reader, "+sz.name, fmt.Sprintf("%.0f events/s (%.2fx durable)", 4*scaleIntakeSlice/alone.Seconds(), 4*scaleIntakeSlice/alone.Seconds()/d))
	}
}
