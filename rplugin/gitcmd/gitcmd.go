// Package gitcmd runs git: one place that starts it, names the command in
// its errors and keeps git's own message (stderr) with them.
package gitcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// waitDelay bounds the wait for git's output once its context ended.
const waitDelay = 2 * time.Second

// Run runs git in dir and returns its output, trimmed.
func Run(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := Bytes(ctx, dir, nil, args...)
	return strings.TrimSpace(string(out)), err
}

// Bytes runs git in dir with stdin (nil: none) and returns its output as
// it is.
func Bytes(ctx context.Context, dir string, stdin io.Reader, args ...string) ([]byte, error) {
	return BytesEnv(ctx, dir, nil, stdin, args...)
}

// BytesEnv is Bytes with env added to git's environment (e.g.
// GIT_INDEX_FILE: an index of the caller's own).
func BytesEnv(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, error) {
	out, _, err := run(ctx, dir, env, stdin, args...)
	return out, err
}

// Both runs git in dir and returns its output and its messages (stderr:
// what a push's remote says, e.g. where to open a pull request).
func Both(ctx context.Context, dir string, stdin io.Reader, args ...string) (stdout, stderr string, err error) {
	out, msg, err := run(ctx, dir, nil, stdin, args...)
	return strings.TrimSpace(string(out)), strings.TrimSpace(msg), err
}

// command is git in dir with env added, its messages kept in stderr. Ended
// with its context (the host going away): its children too, and what they
// hold of its output is not waited for.
func command(ctx context.Context, dir string, env []string, args []string) (cmd *exec.Cmd, stderr *bytes.Buffer) {
	cmd = exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	if len(env) > 0 {
		cmd.Env = append(os.Environ(), env...)
	}
	InGroup(cmd)
	cmd.WaitDelay = waitDelay
	stderr = &bytes.Buffer{}
	cmd.Stderr = stderr
	return cmd, stderr
}

func run(ctx context.Context, dir string, env []string, stdin io.Reader, args ...string) ([]byte, string, error) {
	cmd, stderr := command(ctx, dir, env, args)
	cmd.Stdin = stdin
	out, err := cmd.Output()
	if err != nil {
		return nil, stderr.String(), fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, stderr.String(), nil
}

// RemoteOf is the remote of the current branch of the repository at top,
// else its only remote, else origin when there is one ("": none).
func RemoteOf(ctx context.Context, top string) string {
	if b, err := Run(ctx, top, "symbolic-ref", "--quiet", "--short", "HEAD"); err == nil && b != "" {
		if rm, err := Run(ctx, top, "config", "branch."+b+".remote"); err == nil && rm != "" && rm != "." {
			return rm
		}
	}
	out, err := Run(ctx, top, "remote")
	if err != nil {
		return ""
	}
	remotes := strings.Fields(out)
	if len(remotes) == 1 {
		return remotes[0]
	}
	for _, rm := range remotes {
		if rm == "origin" {
			return rm
		}
	}
	return ""
}

// Head is BytesEnv reading at most max bytes of git's output: past them
// git is ended and cut is true.
func Head(ctx context.Context, dir string, env []string, max int64, args ...string) (out []byte, cut bool, err error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd, stderr := command(ctx, dir, env, args)
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return nil, false, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	if err := cmd.Start(); err != nil {
		return nil, false, fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	out, rerr := io.ReadAll(io.LimitReader(pipe, max+1))
	if cut = int64(len(out)) > max; cut {
		out = out[:max]
		cancel() // the rest is not wanted
	}
	werr := cmd.Wait()
	switch {
	case rerr != nil:
		return nil, false, fmt.Errorf("git %s: %w", strings.Join(args, " "), rerr)
	case werr != nil && !cut:
		return nil, false, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), werr, strings.TrimSpace(stderr.String()))
	}
	return out, cut, nil
}

// Objects reads many objects ("rev:path") through one git cat-file
// --batch: out[i] is specs[i]'s content, nil when git has no such object.
// A spec holding a newline cannot be asked this way and is read alone.
func Objects(ctx context.Context, dir string, specs []string) ([][]byte, error) {
	out := make([][]byte, len(specs))
	var batch []int
	var in strings.Builder
	for i, s := range specs {
		if strings.ContainsAny(s, "\n\r") {
			if b, err := Bytes(ctx, dir, nil, "cat-file", "blob", s); err == nil {
				out[i] = b
			}
			continue
		}
		batch = append(batch, i)
		in.WriteString(s + "\n")
	}
	if len(batch) == 0 {
		return out, nil
	}
	raw, err := Bytes(ctx, dir, strings.NewReader(in.String()), "cat-file", "--batch")
	if err != nil {
		return nil, err
	}
	for _, i := range batch {
		nl := bytes.IndexByte(raw, '\n')
		if nl < 0 {
			return nil, fmt.Errorf("git cat-file --batch: the answer for %q is cut", specs[i])
		}
		head := strings.Fields(string(raw[:nl]))
		raw = raw[nl+1:]
		if len(head) != 3 {
			continue // "<spec> missing", "ambiguous": nothing to read
		}
		size, err := strconv.Atoi(head[2])
		if err != nil || size > len(raw) {
			return nil, fmt.Errorf("git cat-file --batch: a bad header %q", head)
		}
		out[i] = raw[:size:size]
		raw = raw[min(size+1, len(raw)):]
	}
	return out, nil
}

// Short is a commit's name as git shows it in one line: its first 7 hex
// digits.
func Short(sha string) string {
	return sha[:min(7, len(sha))]
}
