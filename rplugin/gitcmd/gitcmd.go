// Package gitcmd runs git: one place that starts it, names the command in
// its errors and keeps git's own message (stderr) with them.
package gitcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
)

// Run runs git in dir and returns its output, trimmed.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := Bytes(ctx, dir, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// Bytes runs git in dir with stdin (nil: none) and returns its output as
// it is.
func Bytes(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}
