//go:build !unix

package gitcmd

import "os/exec"

// InGroup: elsewhere the process alone is ended with its context.
func InGroup(*exec.Cmd) {}
