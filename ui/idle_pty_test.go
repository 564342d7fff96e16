package ui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// idleStep is one screen of TestIdleEveryView: the keys that lead to it from the screen before
// (each string written on its own, 0.4 s apart, so an esc is not read as alt+key).
type idleStep struct {
	name string
	keys []string
}

const (
	keyEsc   = "\x1b"
	keyEnter = "\r"
	keyTab   = "\t"
	keyLeft  = "\x1b[D"
	keyCtrlP = "\x10"
	keyCtrlS = "\x13"
)

// idleSteps visit every view and overlay of the demo (its six charges: a pending one first,
// the paid one third), the 5-minute charge (a countdown in seconds) last.
var idleSteps = []idleStep{
	{"charges", nil},
	{"qr pending (23 h left)", []string{keyEnter}},
	{"result screen (paid)", []string{keyEsc, "jj", keyEnter}},
	{"help", []string{keyEsc, "?"}},
	{"refund form", []string{keyEsc, "R"}},
	{"new charge form", []string{keyEsc, keyEsc, "n"}},
	{"split builder", []string{keyCtrlP}},
	{"search", []string{keyEsc, keyEsc, keyEsc, "S"}},
	{"wallet picker", []string{keyEsc, "w"}},
	{"inspector", []string{keyEsc, "2"}},
	{"inspector (a charge)", []string{"1", "i"}},
	{"wallets", []string{"3"}},
	{"withdrawal form", []string{"s"}},
	{"blocks", []string{keyEsc, keyEsc, "4"}},
	{"events", []string{"5"}},
	{"sales", []string{"6"}},
	{"day close", []string{"C"}},
	{"sales period form", []string{keyEsc, "p"}},
	{"qr pending (5 min left, seconds)", []string{keyEsc, keyEsc, "1", "n", "5", keyTab, keyTab, keyLeft, keyLeft, keyLeft, keyCtrlS}},
	{"charges (a countdown in seconds)", []string{keyEsc}},
}

// TestIdleEveryView (PIXDASH_IDLE=1; PIXDASH_IDLE_SECONDS per screen, 30 by default) runs the
// built dashboard (`pixdash --demo`, or PIXDASH_IDLE_BIN) in a real pseudo-terminal (script(1),
// 120x40 unless PIXDASH_IDLE_SIZE=COLSxROWS, TERM=xterm-256color, PIXDASH_IDLE_LANG, en by
// default) beside a bare Bubble Tea program with the same one-second tick (testdata/idlebare),
// visits every view and overlay, and after 3 s on each counts over the same seconds the bytes
// the dashboard wrote to the terminal and the CPU time (/proc/<pid>/stat utime+stime) of both.
// With PIXDASH_IDLE_BEFORE=<binary> a second dashboard (say, built from main) runs the same
// keys beside them. It asserts nothing about time: the figures go in README › Performance.
func TestIdleEveryView(t *testing.T) {
	if os.Getenv("PIXDASH_IDLE") == "" {
		t.Skip("set PIXDASH_IDLE=1 to measure every idle view in a pseudo-terminal")
	}
	script, err := exec.LookPath("script")
	if err != nil {
		t.Skip("no script(1) on PATH (util-linux)")
	}
	secs := 30
	if s, err := strconv.Atoi(os.Getenv("PIXDASH_IDLE_SECONDS")); err == nil && s > 0 {
		secs = s
	}
	cols, rows := 120, 40
	if s := os.Getenv("PIXDASH_IDLE_SIZE"); s != "" {
		if _, err := fmt.Sscanf(s, "%dx%d", &cols, &rows); err != nil {
			t.Fatalf("PIXDASH_IDLE_SIZE=%q: want COLSxROWS", s)
		}
	}
	lang := os.Getenv("PIXDASH_IDLE_LANG")
	if lang == "" {
		lang = "en"
	}
	dir := t.TempDir()
	bin := os.Getenv("PIXDASH_IDLE_BIN")
	if bin == "" {
		bin = filepath.Join(dir, "pixdash")
		idleBuild(t, bin, "pixdash")
	}
	bare := filepath.Join(dir, "idlebare")
	idleBuild(t, bare, "./testdata/idlebare")

	type proc struct {
		name string
		p    *idlePty
	}
	procs := []proc{{"after", nil}, {"bare", nil}}
	if b := os.Getenv("PIXDASH_IDLE_BEFORE"); b != "" {
		procs = append(procs, proc{"before", nil})
	}
	for i := range procs {
		home := filepath.Join(dir, "home-"+procs[i].name)
		if err := os.MkdirAll(home, 0o700); err != nil {
			t.Fatal(err)
		}
		env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share",
			"XDG_STATE_HOME=" + home + "/.local/state", "XDG_CACHE_HOME=" + home + "/.cache", "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
		command := bin + " --demo --lang " + lang
		switch procs[i].name {
		case "bare":
			command = bare
		case "before":
			command = os.Getenv("PIXDASH_IDLE_BEFORE") + " --demo --lang " + lang
		}
		procs[i].p = startIdlePty(t, script, command, cols, rows, env)
	}
	time.Sleep(3 * time.Second) // start-up, the first reads
	dash := []proc{procs[0]}
	if len(procs) == 3 {
		dash = append(dash, procs[2])
	}
	var total [3]float64
	t.Logf("%dx%d, %s, %d s a screen; B/s written and CPU ms/s (dashboard / bare = ratio)", cols, rows, lang, secs)
	for _, st := range idleSteps {
		for _, k := range st.keys {
			for _, d := range dash {
				d.p.write(k)
			}
			time.Sleep(400 * time.Millisecond)
		}
		time.Sleep(3 * time.Second)
		var b0 [3]int
		var c0 [3]time.Duration
		for i, pr := range procs {
			b0[i], c0[i] = pr.p.mark(), pr.p.cpu()
		}
		time.Sleep(time.Duration(secs) * time.Second)
		line := fmt.Sprintf("%-34s", st.name)
		var cpu [3]float64
		for i, pr := range procs {
			bps := float64(pr.p.mark()-b0[i]) / float64(secs)
			cpu[i] = float64(pr.p.cpu()-c0[i]) / float64(time.Millisecond) / float64(secs)
			total[i] += cpu[i]
			if pr.name != "bare" {
				line += fmt.Sprintf("  %s %6.1f B/s", pr.name, bps)
			}
		}
		line += fmt.Sprintf("  CPU ms/s: after %.2f", cpu[0])
		if len(procs) == 3 {
			line += fmt.Sprintf(", before %.2f", cpu[2])
		}
		line += fmt.Sprintf(", bare %.2f", cpu[1])
		t.Log(line)
	}
	ratio := func(i int) float64 { return total[i] / max(total[1], 1e-9) }
	summary := fmt.Sprintf("whole run: CPU after / bare = %.2fx", ratio(0))
	if len(procs) == 3 {
		summary += fmt.Sprintf(", before / bare = %.2fx", ratio(2))
	}
	t.Log(summary)
	for _, pr := range procs {
		pr.p.stop()
	}
}

// idleBuild builds the package pkg into bin.
func idleBuild(t *testing.T, bin, pkg string) {
	t.Helper()
	out, err := exec.Command("go", "build", "-o", bin, pkg).CombinedOutput()
	if err != nil {
		t.Fatalf("go build %s: %v\n%s", pkg, err, out)
	}
}

// idlePty is a program run by script(1) under a pseudo-terminal: keys go to script's stdin,
// the screen's bytes are counted from its stdout; terminal queries (background colour, cursor
// position) are answered as a dark terminal answers them.
type idlePty struct {
	t   *testing.T
	cmd *exec.Cmd

	inMu sync.Mutex
	in   io.WriteCloser

	mu   sync.Mutex
	out  []byte
	done chan struct{}
}

func startIdlePty(t *testing.T, script, command string, cols, rows int, env []string) *idlePty {
	t.Helper()
	cmd := exec.Command(script, "-qfc", fmt.Sprintf("stty cols %d rows %d; exec %s", cols, rows, command), "/dev/null")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	p := &idlePty{t: t, cmd: cmd, in: in, done: make(chan struct{})}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.stop)
	go p.read(out)
	return p
}

func (p *idlePty) read(r io.Reader) {
	defer close(p.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := r.Read(buf)
		if n > 0 {
			p.mu.Lock()
			from := max(len(p.out)-8, 0)
			p.out = append(p.out, buf[:n]...)
			var replies string
			for _, q := range []struct{ q, a string }{
				{"\x1b]11;?", "\x1b]11;rgb:1717/1717/1717\x1b\\"},
				{"\x1b[6n", "\x1b[1;1R"},
			} {
				replies += strings.Repeat(q.a, bytes.Count(p.out[from:], []byte(q.q)))
			}
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

func (p *idlePty) write(s string) {
	p.inMu.Lock()
	defer p.inMu.Unlock()
	_, _ = io.WriteString(p.in, s)
}

// mark is the number of bytes written to the terminal so far.
func (p *idlePty) mark() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.out)
}

// cpu is the user and system CPU time of the program script(1) runs (its child, which the
// shell's exec made the program itself).
func (p *idlePty) cpu() time.Duration {
	pid := p.cmd.Process.Pid
	kids, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%d/children", pid, pid))
	if err != nil {
		p.t.Fatalf("children of script(1): %v", err)
	}
	f := strings.Fields(string(kids))
	if len(f) == 0 {
		p.t.Fatal("script(1) has no child")
	}
	stat, err := os.ReadFile("/proc/" + f[0] + "/stat")
	if err != nil {
		p.t.Fatal(err)
	}
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // after "pid (comm) ": state is fields[0]
	utime, _ := strconv.ParseInt(fields[11], 10, 64)
	stime, _ := strconv.ParseInt(fields[12], 10, 64)
	return time.Duration(utime+stime) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}

// stop ends the program (ctrl+c) and waits for script(1), killing it after 5 s.
func (p *idlePty) stop() {
	select {
	case <-p.done:
		return
	default:
	}
	p.write("\x03")
	select {
	case <-p.done:
	case <-time.After(5 * time.Second):
		_ = p.cmd.Process.Kill()
		<-p.done
	}
	_ = p.cmd.Wait()
}
