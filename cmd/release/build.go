package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// hostSources are the paths whose content makes the host binary: the
// revision a release names is the last commit that changed one of them, so
// committing the manifest (or any Lua, docs) does not change it.
var hostSources = []string{"cmd/claudenova", "rplugin", "go.mod", "go.sum"}

// Builder cross-builds the host in a checkout.
type Builder struct {
	Dir string // the checkout (module root)
	Go  string // the go command
	// Env is the environment of every command (os.Environ() plus overrides).
	Env []string
}

func (b Builder) run(ctx context.Context, env []string, name string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = b.Dir
	cmd.Env = append(append([]string(nil), b.Env...), env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Revision is the last commit that changed the host's sources. With dirty
// false, uncommitted changes to them are an error (the assets would not be
// what that revision builds).
func (b Builder) Revision(ctx context.Context, allowDirty bool) (string, error) {
	out, err := b.run(ctx, nil, "git", append([]string{"log", "-1", "--format=%H", "--"}, hostSources...)...)
	if err != nil {
		return "", err
	}
	rev := strings.TrimSpace(string(out))
	if rev == "" {
		return "", errors.New("git log finds no commit of the host's sources")
	}
	st, err := b.run(ctx, nil, "git", append([]string{"status", "--porcelain", "--untracked-files=no", "--"}, hostSources...)...)
	if err != nil {
		return "", err
	}
	if s := strings.TrimSpace(string(st)); s != "" {
		if !allowDirty {
			return "", fmt.Errorf("the host's sources have uncommitted changes (commit them first: the manifest names the revision its assets are built from):\n%s", s)
		}
		rev += "-dirty"
	}
	return rev, nil
}

// GoVersion is the toolchain's version ("go1.24.4").
func (b Builder) GoVersion(ctx context.Context) (string, error) {
	out, err := b.run(ctx, nil, b.Go, "env", "GOVERSION")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

var luaVersion = regexp.MustCompile(`(?m)^return "([^"]+)"\s*$`)

// LuaVersion is the version of the plugin's Lua side (lua/claudenova/core/version.lua).
func (b Builder) LuaVersion() (string, error) {
	text, err := os.ReadFile(filepath.Join(b.Dir, "lua", "claudenova", "core", "version.lua"))
	if err != nil {
		return "", err
	}
	m := luaVersion.FindSubmatch(text)
	if m == nil {
		return "", errors.New("lua/claudenova/core/version.lua does not return a version string")
	}
	return string(m[1]), nil
}

// Flags are the go build arguments of a release build: no cgo, no local
// paths, no build id, stripped, the version and revision stamped. The same
// toolchain gives the same bytes for the same revision.
func Flags(version, revision, out string) []string {
	ld := fmt.Sprintf("-s -w -buildid= -X main.releaseVersion=%s -X main.releaseRevision=%s", version, revision)
	return []string{"build", "-trimpath", "-buildvcs=false", "-ldflags=" + ld, "-o", out, "./cmd/claudenova"}
}

// Build builds target's asset into dist and returns it (name, sum, size).
func (b Builder) Build(ctx context.Context, t Target, version, revision, dist string) (Asset, error) {
	out := filepath.Join(dist, t.Asset())
	// GOFLAGS is cleared: a -mod or -tags of the environment would change the bytes.
	env := []string{"CGO_ENABLED=0", "GOOS=" + t.OS, "GOARCH=" + t.Arch, "GOFLAGS=", "GOTOOLCHAIN=local"}
	if _, err := b.run(ctx, env, b.Go, Flags(version, revision, out)...); err != nil {
		return Asset{}, fmt.Errorf("build %s: %w", t, err)
	}
	sum, size, err := Hash(out)
	if err != nil {
		return Asset{}, err
	}
	return Asset{Key: t.Key(), File: t.Asset(), SHA256: sum, Size: size}, nil
}

// Hash is the file's SHA-256 (hex) and size.
func Hash(path string) (string, int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("hash %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
