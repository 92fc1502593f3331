package prepare

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, p, text string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

func TestRun(t *testing.T) {
	cases := []struct {
		name    string
		cfg     Config
		worktre map[string]string // files the worktree has already
		wantErr string
		want    map[string]string // files of the worktree after
		absent  []string
		out     []string // in the output
	}{
		{name: "copies the listed files, not the others, keeping the mode",
			cfg:    Config{Copy: []string{".env.local", "config/*.yml"}},
			want:   map[string]string{".env.local": "SECRET=1\n", "config/db.yml": "db: x\n"},
			absent: []string{".env"}, out: []string{"copied .env.local", "copied config/db.yml"}},
		{name: "never over a file the worktree has",
			cfg: Config{Copy: []string{"a.txt"}}, worktre: map[string]string{"a.txt": "tracked\n"},
			want: map[string]string{"a.txt": "tracked\n"}, out: []string{"not copied: a.txt (the worktree has it)"}},
		{name: "not a symbolic link nor a folder",
			cfg:    Config{Copy: []string{"link", "config"}},
			out:    []string{"not copied: link (not a regular file)", "not copied: config (not a regular file)"},
			absent: []string{"link", "config"}},
		{name: "a pattern outside the project is refused",
			cfg: Config{Copy: []string{"../outside"}}, wantErr: "must stay inside the project"},
		{name: "commands run in the worktree in order, with the folders named",
			cfg:  Config{Setup: []string{`printf '%s\n' "$CLAUDENOVA_ROOT" > root.txt`, "echo ran; cat root.txt >&2"}},
			want: map[string]string{"root.txt": "ROOT\n"}, out: []string{"$ echo ran", "ran\n", "ROOT\n"}},
		{name: "a failing command stops the setup with its status",
			cfg:     Config{Setup: []string{"echo broken >&2; exit 3", "touch never"}},
			wantErr: `"echo broken >&2; exit 3": exit status 3`, absent: []string{"never"}, out: []string{"broken"}},
		{name: "a script of the project runs in the worktree",
			cfg: Config{Script: "setup.sh"}, want: map[string]string{"by-script": "yes\n"}},
		{name: "a script outside the project is refused",
			cfg: Config{Script: "/bin/true"}, wantErr: "relative to the project"},
		{name: "a script that cannot run says why",
			cfg: Config{Script: "plain.sh"}, wantErr: "permission denied"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			root, dir := t.TempDir(), t.TempDir()
			write(t, filepath.Join(root, ".env.local"), "SECRET=1\n", 0o600)
			write(t, filepath.Join(root, ".env"), "OTHER=1\n", 0o600)
			write(t, filepath.Join(root, "config", "db.yml"), "db: x\n", 0o644)
			write(t, filepath.Join(root, "a.txt"), "checkout\n", 0o644)
			write(t, filepath.Join(root, "setup.sh"), "#!/bin/sh\necho yes > by-script\n", 0o755)
			write(t, filepath.Join(root, "plain.sh"), "#!/bin/sh\n", 0o644)
			if err := os.Symlink("/etc/passwd", filepath.Join(root, "link")); err != nil {
				t.Fatal(err)
			}
			for f, text := range c.worktre {
				write(t, filepath.Join(dir, f), text, 0o644)
			}
			var out bytes.Buffer
			_, err := Run(context.Background(), c.cfg, root, dir, "worktree-x", &out)
			if c.wantErr == "" && err != nil || c.wantErr != "" && (err == nil || !strings.Contains(err.Error(), c.wantErr)) {
				t.Fatalf("err %v, want %q\noutput:\n%s", err, c.wantErr, out.String())
			}
			for f, text := range c.want {
				if f == "root.txt" {
					text = root + "\n"
				}
				b, err := os.ReadFile(filepath.Join(dir, f))
				if err != nil || string(b) != text {
					t.Errorf("%s: %q %v, want %q", f, b, err, text)
				}
			}
			if fi, err := os.Stat(filepath.Join(dir, ".env.local")); err == nil && fi.Mode().Perm() != 0o600 {
				t.Errorf(".env.local's mode %v", fi.Mode().Perm())
			}
			for _, f := range c.absent {
				if _, err := os.Lstat(filepath.Join(dir, f)); err == nil {
					t.Errorf("%s is in the worktree", f)
				}
			}
			for _, w := range c.out {
				w = strings.ReplaceAll(w, "ROOT", root)
				if !strings.Contains(out.String(), w) {
					t.Errorf("output lacks %q:\n%s", w, out.String())
				}
			}
		})
	}
}

// A command that hangs is ended with its context, its children too (the
// process group), and the setup says so.
func TestRunEndsAHangingCommand(t *testing.T) {
	root, dir := t.TempDir(), t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(dir, "child.pid")
	done := make(chan error, 1)
	go func() {
		_, err := Run(ctx, Config{Setup: []string{"sleep 600 & echo $! > child.pid; wait"}}, root, dir, "b", &bytes.Buffer{})
		done <- err
	}()
	for {
		if b, err := os.ReadFile(pidFile); err == nil && len(bytes.TrimSpace(b)) > 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	var err error
	select {
	case err = <-done:
	case <-time.After(30 * time.Second): // only against a hang
		t.Fatal("Run did not return after its context ended")
	}
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	b, _ := os.ReadFile(pidFile)
	pid := strings.TrimSpace(string(b))
	for i := 0; ; i++ {
		st, err := os.ReadFile("/proc/" + pid + "/stat")
		if err != nil || strings.Contains(string(st), ") Z ") {
			break // gone with its group
		}
		if i > 1500 {
			t.Fatalf("the command's child %s outlived the setup", pid)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
