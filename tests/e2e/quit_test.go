package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// :qa while the authorship notes are pushed to a remote that takes its
// time: Neovim exits at once, the push is ended with the host (it held the
// editor for as long as the push took, up to two minutes).
func TestQuitDuringAPushDoesNotWait(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\n"})
		e.gitIn(e.Project, "notes", "--ref=ai", "add", "-m", "a note", "HEAD")
		remote := filepath.Join(t.TempDir(), "remote.git")
		e.gitIn(filepath.Dir(remote), "init", "-q", "--bare", remote)
		started := filepath.Join(t.TempDir(), "hook-pid")
		// The remote takes 60 s to accept anything; the hook says its pid,
		// so that the test ends what it started.
		hook := "#!/bin/sh\necho $$ > " + started + "\nexec sleep 60\n"
		if err := os.WriteFile(filepath.Join(remote, "hooks", "pre-receive"), []byte(hook), 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() {
			if b, err := os.ReadFile(started); err == nil {
				if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
					_ = syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
		e.gitIn(e.Project, "remote", "add", "origin", remote)
		e.Cmd("ClaudeNova provenance push")
		e.Eventually(20*time.Second, "the push under way (the remote's hook runs)", func() bool {
			_, err := os.Stat(started)
			return err == nil
		})
		pid := e.nvimPid()
		// The :qa call itself returns only once Neovim is done with it:
		// typed, as a person does, it is not waited for here.
		go func() { _ = e.CmdErr("qa") }()
		// A bound for a hang, not a measure: the push would hold it 60 s.
		if !waitGone(pid, 20*time.Second) {
			t.Fatal("Neovim is still there 20 s after :qa: it waits for the push")
		}
	})
}
