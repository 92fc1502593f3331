package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/neovim/go-client/nvim"
)

// listen starts Neovim as a headless server on a socket (what runs on the
// other machine of a --remote-ui setup) and connects to it; cleanup quits
// it and ends its process group, which the test started.
func (e *Env) listen(v nvimVersion, args, env []string) {
	t := e.t
	t.Helper()
	// The socket's path must be short (sun_path): under the temp dir's root.
	dir, err := os.MkdirTemp("", "cn-sock-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	e.Socket = filepath.Join(dir, "nvim.sock")
	var sargs []string
	for _, a := range args {
		if a != "--embed" {
			sargs = append(sargs, a)
		}
	}
	sargs = append(sargs, "--listen", e.Socket)
	cmd := exec.Command(v.bin, sargs...)
	cmd.Env = env
	cmd.Dir = e.Project
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s --listen: %v", v.bin, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	var nv *nvim.Nvim
	deadline := time.Now().Add(30 * time.Second)
	for {
		if _, err := os.Stat(e.Socket); err == nil {
			if nv, err = nvim.Dial(e.Socket, nvim.DialServe(true), nvim.DialLogf(func(string, ...any) {})); err == nil {
				break
			}
		}
		select {
		case <-exited:
			t.Fatalf("%s --listen exited at startup", v.bin)
		default:
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Fatalf("%s --listen: no socket at %s", v.bin, e.Socket)
		}
		time.Sleep(20 * time.Millisecond)
	}
	e.V = nv
	t.Cleanup(func() {
		_ = nv.Command("qall!")
		_ = nv.Close()
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("the Neovim server did not quit: ending its process group")
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		e.assertNoOrphans(30 * time.Second)
		if t.Failed() {
			e.dumpLog()
		}
	})
}
