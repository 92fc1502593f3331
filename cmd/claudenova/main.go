// Command claudenova is the Neovim remote plugin host of claude-nova.nvim.
//
//	claudenova                 serve msgpack-rpc on stdin/stdout (started by Neovim)
//	claudenova -manifest NAME  print the remote#host#RegisterPlugin manifest
//	claudenova -version        print the version
//	claudenova -build-info     print how the binary was built (JSON: go version, revision)
//	claudenova -split-cmd CMD  print CMD split into words as the host runs it (JSON)
//	claudenova -claude-home    print claude's config folder and global config file for this environment (JSON)
//	claudenova diff [-cap N] [-U N] A B   unified diff of two files, like diff -u
//	claudenova hook            claude's PermissionRequest hook for a TUI session (reads the hook's input on
//	                           stdin, asks the editor, prints its decision; nothing when there is none)
//	claudenova mcp             the editor's MCP server "nvim" for a TUI session (JSON-RPC on stdio, each
//	                           message answered by the editor)
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/host"
	"github.com/claude-nova/claude-nova.nvim/rplugin/logging"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tuihook"
	"github.com/neovim/go-client/nvim"
	"github.com/neovim/go-client/nvim/plugin"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "diff" {
		os.Exit(runDiff(os.Args[2:], os.Stdout, os.Stderr))
	}
	if len(os.Args) > 1 && os.Args[1] == "hook" {
		os.Exit(tuihook.Run(context.Background(), os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	if len(os.Args) > 1 && os.Args[1] == "mcp" {
		os.Exit(tuihook.RunMCP(context.Background(), os.Stdin, os.Stdout, os.Stderr, os.Getenv))
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout *os.File, stderr io.Writer) int {
	fs := flag.NewFlagSet("claudenova", flag.ContinueOnError)
	fs.SetOutput(stderr)
	manifest := fs.String("manifest", "", "print the plugin manifest for remote host `name` and exit")
	version := fs.Bool("version", false, "print the version and exit")
	buildInfo := fs.Bool("build-info", false, "print how this binary was built (JSON) and exit")
	splitCmd := fs.String("split-cmd", "", "print `cmd` split into words as the host would run it (a JSON list) and exit")
	claudeHome := fs.Bool("claude-home", false, "print where claude keeps its state in this environment ($CLAUDE_CONFIG_DIR, else ~/.claude; a JSON object) and exit")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case *claudeHome:
		h := claude.HomeFor(os.Getenv)
		b, _ := json.Marshal(map[string]string{"dir": h.Dir, "global": h.Global})
		fmt.Fprintln(stdout, string(b))
		return 0
	case *splitCmd != "":
		words, err := claude.SplitCommand(*splitCmd)
		if err != nil {
			fmt.Fprintln(stderr, "claudenova:", err)
			return 1
		}
		b, _ := json.Marshal(words)
		fmt.Fprintln(stdout, string(b))
		return 0
	case *version:
		fmt.Fprintln(stdout, host.Version)
		return 0
	case *buildInfo:
		b, _ := json.Marshal(readBuildInfo())
		fmt.Fprintln(stdout, string(b))
		return 0
	case *manifest != "":
		p := plugin.New(nil)
		host.Register(p, nil)
		_, _ = stdout.Write(p.Manifest(*manifest))
		return 0
	}
	if err := serve(stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "claudenova:", err)
		return 1
	}
	return 0
}

// Stamped by `make release` (cmd/release) with -ldflags -X: the version of
// the release and the revision its host sources were committed at. A plain
// go build leaves them empty and the Go toolchain's own vcs stamp (when
// there is one) says the revision.
var (
	releaseVersion  string
	releaseRevision string
)

// BuildInfo is how the binary was built, for :checkhealth and for the
// front end to tell a binary built from another revision of the plugin.
type BuildInfo struct {
	Version   string `json:"version"`
	GoVersion string `json:"go"`
	Revision  string `json:"revision,omitempty"`
	Time      string `json:"time,omitempty"`
	Modified  bool   `json:"modified,omitempty"`
	// Release is the release version a `make release` build was stamped
	// with ("" for other builds).
	Release string `json:"release,omitempty"`
}

func readBuildInfo() BuildInfo {
	out := BuildInfo{Version: host.Version, Release: releaseVersion, Revision: releaseRevision}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return out
	}
	out.GoVersion = bi.GoVersion
	if releaseRevision != "" {
		return out
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			out.Revision = s.Value
		case "vcs.time":
			out.Time = s.Value
		case "vcs.modified":
			out.Modified = s.Value == "true"
		}
	}
	return out
}

// softMemoryLimit is the host's soft memory limit (runtime/debug). An idle
// host holds about 9 MB; 8 sessions streaming long replies while Neovim is
// blocked hold about 26 MB live at the highest (their waiting transcript
// updates merged as they queue). Past the limit the collector runs more
// often (never more than half the CPU: the runtime caps it), rather than
// letting garbage take the heap to twice what is live: the back-pressure
// bench's peak RSS went from 44–47 MB at 36 MiB to 41–43 MB at 32 MiB.
const softMemoryLimit = 32 << 20

// serve runs the host until Neovim closes the channel or a signal arrives.
func serve(stdin io.Reader, stdout *os.File) error {
	log, closer, err := logging.Open(os.Getenv("CLAUDENOVA_LOG"), os.Getenv("CLAUDENOVA_LOG_LEVEL"))
	if err != nil {
		return err
	}
	defer closer.Close()
	// stdout is the RPC stream: anything else printing there would corrupt it.
	os.Stdout = os.Stderr
	// The host lives as long as the editor: a soft memory limit makes the
	// collector work harder under a burst (8 sessions streaming while
	// Neovim is blocked) instead of letting garbage double the heap. A
	// GOMEMLIMIT the user set wins.
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(softMemoryLimit)
	}

	// CLAUDENOVA_CPUPROFILE=file: a CPU profile of this host, for `go tool
	// pprof` (how the bench's figures are taken apart).
	if path := os.Getenv("CLAUDENOVA_CPUPROFILE"); path != "" {
		stop, err := startCPUProfile(path)
		if err != nil {
			return err
		}
		defer stop()
	}

	// CLAUDENOVA_HEAPPROFILE=file: the heap's profile at its highest (for
	// the back-pressure bench's peak RSS).
	if path := os.Getenv("CLAUDENOVA_HEAPPROFILE"); path != "" {
		stop := watchHeapPeak(path)
		defer stop()
	}

	v, err := nvim.New(stdin, stdout, stdout, func(format string, a ...any) { log.Debug(fmt.Sprintf(format, a...)) })
	if err != nil {
		return fmt.Errorf("connect to neovim: %w", err)
	}
	p := plugin.New(v)
	h := host.Register(p, log)
	log.Info("host started", "version", host.Version, "pid", os.Getpid())

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	done := make(chan error, 1)
	go func() { done <- v.Serve() }()
	select {
	case err = <-done:
		log.Info("neovim closed the channel", "err", err)
	case s := <-sig:
		log.Info("signal", "sig", s.String())
	}
	h.Close()
	_ = v.Close()
	log.Info("host stopped")
	return nil
}

// startCPUProfile writes a CPU profile to path until the returned stop is
// called.
func startCPUProfile(path string) (stop func(), err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, fmt.Errorf("cpu profile: %w", err)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

// watchHeapPeak writes the heap's profile to path each time the heap in
// use passed its last high, checked every 100 ms, until stop.
func watchHeapPeak(path string) (stop func()) {
	done := make(chan struct{})
	go func() {
		var high uint64
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			var m runtime.MemStats
			runtime.ReadMemStats(&m)
			if m.HeapInuse <= high {
				continue
			}
			high = m.HeapInuse
			if f, err := os.Create(path); err == nil {
				_ = pprof.WriteHeapProfile(f)
				f.Close()
			}
		}
	}()
	return func() { close(done) }
}
