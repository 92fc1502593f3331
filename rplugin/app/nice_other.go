//go:build !linux

package app

// backgroundThread is a no-op where threads cannot be given a priority.
func backgroundThread() {}
