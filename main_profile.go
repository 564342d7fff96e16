package main

import (
	"errors"
	"fmt"
	"os"
	"runtime"
	"runtime/pprof"
	"runtime/trace"
)

// The dashboard's developer profiling switch (hidden: no flag, no help line). Each variable
// names a file the dashboard writes: the CPU profile and the execution trace cover the whole
// run, the allocation profile is taken at exit. The files hold the program's stacks and
// allocation sites (function names and counts), never a value it handled, so no secret, token
// or webhook body can reach them; they are created 0600 and never overwritten (an existing
// file is an error).
const (
	envCPUProfile   = "PIXDASH_CPUPROFILE"
	envAllocProfile = "PIXDASH_ALLOCPROFILE"
	envTrace        = "PIXDASH_TRACE"
)

// startProfiling starts what the profiling variables ask for and returns the function that
// stops it and writes the files (call it once the program ended).
func startProfiling(getenv func(string) string) (stop func() error, err error) {
	var stops []func() error
	stop = func() error {
		var errs []error
		for i := len(stops) - 1; i >= 0; i-- {
			errs = append(errs, stops[i]())
		}
		return errors.Join(errs...)
	}
	create := func(name string) (*os.File, error) {
		path := getenv(name)
		if path == "" {
			return nil, nil
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return f, nil
	}
	fail := func(e error) (func() error, error) {
		_ = stop()
		return nil, e
	}
	if f, err := create(envCPUProfile); err != nil {
		return fail(err)
	} else if f != nil {
		if err := pprof.StartCPUProfile(f); err != nil {
			_ = f.Close()
			return fail(fmt.Errorf("%s: %w", envCPUProfile, err))
		}
		stops = append(stops, func() error { pprof.StopCPUProfile(); return f.Close() })
	}
	if f, err := create(envTrace); err != nil {
		return fail(err)
	} else if f != nil {
		if err := trace.Start(f); err != nil {
			_ = f.Close()
			return fail(fmt.Errorf("%s: %w", envTrace, err))
		}
		stops = append(stops, func() error { trace.Stop(); return f.Close() })
	}
	if f, err := create(envAllocProfile); err != nil {
		return fail(err)
	} else if f != nil {
		stops = append(stops, func() error {
			runtime.GC()
			err := pprof.Lookup("allocs").WriteTo(f, 0)
			return errors.Join(err, f.Close())
		})
	}
	return stop, nil
}
