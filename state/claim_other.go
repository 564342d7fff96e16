//go:build !unix

package state

// processAlive cannot tell where signals are unavailable: a claim of another process then
// lasts until its Until.
func processAlive(int) bool { return true }
