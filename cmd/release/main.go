// Command release cross-builds the host binary for every release platform
// into dist/ and writes the release manifest (lua/claudenova/core/release.lua:
// version, revision, and per asset its file name and SHA-256), to be
// committed with the release tag. `make release` runs it.
//
//	go run ./cmd/release [-dist dist] [-manifest lua/claudenova/core/release.lua]
//	                     [-targets linux/amd64,linux/arm64,darwin/amd64,darwin/arm64]
//	                     [-allow-dirty]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/host"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	dir := fs.String("C", ".", "the checkout (module root)")
	dist := fs.String("dist", "dist", "folder for the assets (relative to -C)")
	manifest := fs.String("manifest", filepath.Join("lua", "claudenova", "core", "release.lua"), "manifest to write (relative to -C)")
	targets := fs.String("targets", joinTargets(Targets), "platforms to build, os/arch separated by commas")
	allowDirty := fs.Bool("allow-dirty", false, "build even when the host's sources have uncommitted changes (the revision is marked -dirty)")
	goCmd := fs.String("go", "go", "the go command")
	if err := fs.Parse(args); err != nil {
		return err
	}
	ts, err := ParseTargets(*targets)
	if err != nil {
		return err
	}
	b := Builder{Dir: *dir, Go: *goCmd, Env: os.Environ()}
	version, err := b.LuaVersion()
	if err != nil {
		return err
	}
	if version != host.Version {
		return fmt.Errorf("lua/claudenova/core/version.lua says %s, the host %s: they must agree", version, host.Version)
	}
	rev, err := b.Revision(ctx, *allowDirty)
	if err != nil {
		return err
	}
	gov, err := b.GoVersion(ctx)
	if err != nil {
		return err
	}
	distDir := under(*dir, *dist)
	if err := os.MkdirAll(distDir, 0o755); err != nil {
		return err
	}
	m := Manifest{Version: version, Revision: rev, Go: gov}
	for _, t := range ts {
		if err := ctx.Err(); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "building %s (%s, %s)…\n", t.Asset(), t, gov)
		a, err := b.Build(ctx, t, version, rev, distDir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "  %s  %d bytes\n", a.SHA256, a.Size)
		m.Assets = append(m.Assets, a)
	}
	text, err := m.Lua()
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(distDir, "SHA256SUMS"), m.SumsFile()); err != nil {
		return err
	}
	if err := writeFile(under(*dir, *manifest), text); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s (v%s, revision %s) and %s/SHA256SUMS\n", *manifest, version, rev, *dist)
	return nil
}

// under is p relative to dir, unless p is absolute.
func under(dir, p string) string {
	if filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(dir, p)
}

func joinTargets(ts []Target) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = t.String()
	}
	return strings.Join(s, ",")
}

// writeFile replaces path atomically (a temp file beside it, renamed).
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".release-*")
	if err != nil {
		return err
	}
	_, werr := tmp.Write(data)
	cerr := tmp.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
