package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The hidden profiling switch writes each file its variable names, 0600, once the run ends; no
// variable, no file and no cost; an existing file is refused, never overwritten.
func TestProfilingSwitch(t *testing.T) {
	dir := t.TempDir()
	env := map[string]string{
		envCPUProfile:   filepath.Join(dir, "cpu.pprof"),
		envAllocProfile: filepath.Join(dir, "allocs.pprof"),
		envTrace:        filepath.Join(dir, "trace.out"),
	}
	stop, err := startProfiling(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	busy := 0
	for i := range 200_000 {
		busy += len(strings.Repeat("x", i%7))
	}
	_ = busy
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	for _, path := range env {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() == 0 {
			t.Errorf("%s is empty", path)
		}
		if perm := fi.Mode().Perm(); perm != 0o600 {
			t.Errorf("%s: mode %o, want 600", path, perm)
		}
	}

	// The files exist now: a second run refuses them and starts nothing.
	if stop, err := startProfiling(func(k string) string { return env[k] }); err == nil || stop != nil {
		t.Fatalf("an existing profile file was accepted (err %v)", err)
	} else if !strings.Contains(err.Error(), envCPUProfile) {
		t.Errorf("the error does not name the variable: %v", err)
	}

	// No variable: nothing to stop, nothing written.
	stop, err = startProfiling(func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if err := stop(); err != nil {
		t.Fatal(err)
	}
}
