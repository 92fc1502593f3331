//go:build !unix

package gitcmd

import "os/exec"

// inGroup: elsewhere the process alone is ended with its context.
func inGroup(*exec.Cmd) {}
