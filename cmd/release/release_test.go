package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/host"
)

const root = "../.."

func sum(c byte) string { return strings.Repeat(string(c), 64) }

func TestParseTargets(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []Target
		err  bool
	}{
		{in: "linux/amd64", want: []Target{{"linux", "amd64"}}},
		{in: "linux/amd64, darwin/arm64", want: []Target{{"linux", "amd64"}, {"darwin", "arm64"}}},
		{in: "", err: true},
		{in: "linux", err: true},
		{in: "linux/", err: true},
		{in: "linux-amd64/x", err: true},
	} {
		got, err := ParseTargets(c.in)
		if (err != nil) != c.err {
			t.Errorf("ParseTargets(%q) error %v, want error %v", c.in, err, c.err)
			continue
		}
		if !c.err && !equalTargets(got, c.want) {
			t.Errorf("ParseTargets(%q) = %v, want %v", c.in, got, c.want)
		}
	}
}

func equalTargets(a, b []Target) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestManifestRoundTrip(t *testing.T) {
	good := Asset{Key: "linux-amd64", File: "claudenova-linux-amd64", SHA256: sum('a'), Size: 10}
	for _, c := range []struct {
		name string
		m    Manifest
		err  string
	}{
		{name: "one asset", m: Manifest{Version: "0.1.0", Revision: "abc", Go: "go1.24.4", Assets: []Asset{good}}},
		{name: "sorted on output", m: Manifest{Version: "0.1.0", Revision: "abc", Go: "go1.24.4", Assets: []Asset{
			{Key: "linux-arm64", File: "claudenova-linux-arm64", SHA256: sum('b'), Size: 2}, good}}},
		{name: "no assets", m: Manifest{Version: "0.1.0", Revision: "abc"}, err: "no assets"},
		{name: "no version", m: Manifest{Revision: "abc", Assets: []Asset{good}}, err: "bad version"},
		{name: "quote in revision", m: Manifest{Version: "0.1.0", Revision: `a"b`, Assets: []Asset{good}}, err: "bad revision"},
		{name: "short sum", m: Manifest{Version: "0.1.0", Revision: "abc", Assets: []Asset{{Key: "linux-amd64", File: "claudenova-linux-amd64", SHA256: "abc", Size: 1}}}, err: "64 lowercase hex"},
		{name: "upper-case sum", m: Manifest{Version: "0.1.0", Revision: "abc", Assets: []Asset{{Key: "linux-amd64", File: "claudenova-linux-amd64", SHA256: strings.Repeat("A", 64), Size: 1}}}, err: "64 lowercase hex"},
		{name: "file not named for key", m: Manifest{Version: "0.1.0", Revision: "abc", Assets: []Asset{{Key: "linux-amd64", File: "claudenova", SHA256: sum('c'), Size: 1}}}, err: "want claudenova-linux-amd64"},
		{name: "twice", m: Manifest{Version: "0.1.0", Revision: "abc", Assets: []Asset{good, good}}, err: "twice"},
		{name: "empty file", m: Manifest{Version: "0.1.0", Revision: "abc", Assets: []Asset{{Key: "linux-amd64", File: "claudenova-linux-amd64", SHA256: sum('c')}}}, err: "size 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			text, err := c.m.Lua()
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Lua() error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			back, err := ParseManifest(text)
			if err != nil {
				t.Fatalf("ParseManifest: %v\n%s", err, text)
			}
			if back.Version != c.m.Version || back.Revision != c.m.Revision || back.Go != c.m.Go || len(back.Assets) != len(c.m.Assets) {
				t.Fatalf("round trip: %+v, want %+v", back, c.m)
			}
			if !sort.SliceIsSorted(back.Assets, func(i, j int) bool { return back.Assets[i].Key < back.Assets[j].Key }) {
				t.Errorf("assets not sorted: %+v", back.Assets)
			}
		})
	}
}

func TestParseManifestRefusesHandEdits(t *testing.T) {
	m := Manifest{Version: "0.1.0", Revision: "abc", Go: "go1.24.4", Assets: []Asset{{Key: "linux-amd64", File: "claudenova-linux-amd64", SHA256: sum('a'), Size: 10}}}
	text, err := m.Lua()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to string }{
		{"header gone", "-- GENERATED", "-- generated"},
		{"extra line", "  assets = {\n", "  assets = {\n    -- mine\n"},
		{"spacing", "size = 10 }", "size = 10}"},
		{"sum edited to upper case", sum('a'), strings.Repeat("A", 64)},
	} {
		t.Run(c.name, func(t *testing.T) {
			edited := bytes.Replace(text, []byte(c.from), []byte(c.to), 1)
			if bytes.Equal(edited, text) {
				t.Fatalf("the edit %q did not apply", c.from)
			}
			if _, err := ParseManifest(edited); err == nil {
				t.Fatalf("an edited manifest parsed:\n%s", edited)
			}
		})
	}
}

// The committed manifest is in the generated format, for this version,
// and names exactly the four release assets.
func TestCommittedManifest(t *testing.T) {
	text, err := os.ReadFile(filepath.Join(root, "lua", "claudenova", "core", "release.lua"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := ParseManifest(text)
	if err != nil {
		t.Fatal(err)
	}
	if m.Version != host.Version {
		t.Errorf("manifest version %s, host %s: run make release", m.Version, host.Version)
	}
	var got, want []string
	for _, a := range m.Assets {
		got = append(got, a.File)
	}
	for _, tg := range Targets {
		want = append(want, tg.Asset())
	}
	sort.Strings(want)
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("manifest assets %v, want %v", got, want)
	}
	if len(m.Revision) != 40 {
		t.Errorf("manifest revision %q is not a commit id", m.Revision)
	}
}

// What `make release` runs, for this machine's platform only (the four
// targets take minutes on two cores; their flags are the same): the
// manifest it writes names the sum of the file it built, the build is
// reproducible, the binary is stamped. Where the committed manifest was
// made from the same revision of the host's sources with the same
// toolchain, the sum is the committed one too.
func TestReleaseBuildMatchesItsManifest(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Fatal("git is needed:", err)
	}
	here := Target{runtime.GOOS, runtime.GOARCH}
	tmp := t.TempDir()
	build := func(name string) Manifest {
		dist, manifest := filepath.Join(tmp, name), filepath.Join(tmp, name+".lua")
		if err := run(context.Background(), []string{"-C", root, "-dist", dist, "-manifest", manifest, "-targets", here.String(), "-allow-dirty"}, io.Discard); err != nil {
			t.Fatal(err)
		}
		text, err := os.ReadFile(manifest)
		if err != nil {
			t.Fatal(err)
		}
		m, err := ParseManifest(text)
		if err != nil {
			t.Fatal(err)
		}
		if len(m.Assets) != 1 || m.Assets[0].File != here.Asset() {
			t.Fatalf("manifest assets %+v, want %s", m.Assets, here.Asset())
		}
		s, size, err := Hash(filepath.Join(dist, here.Asset()))
		if err != nil {
			t.Fatal(err)
		}
		if s != m.Assets[0].SHA256 || size != m.Assets[0].Size {
			t.Fatalf("manifest says %s (%d bytes), the file is %s (%d bytes)", m.Assets[0].SHA256, m.Assets[0].Size, s, size)
		}
		sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
		if err != nil || string(sums) != s+"  "+here.Asset()+"\n" {
			t.Fatalf("SHA256SUMS = %q (%v)", sums, err)
		}
		return m
	}
	a, b := build("a"), build("b")
	if a.Assets[0].SHA256 != b.Assets[0].SHA256 {
		t.Fatalf("two builds differ: %s and %s", a.Assets[0].SHA256, b.Assets[0].SHA256)
	}
	bin := filepath.Join(tmp, "a", here.Asset())
	out, err := exec.Command(bin, "-version").Output()
	if err != nil || strings.TrimSpace(string(out)) != host.Version {
		t.Fatalf("%s -version = %q (%v)", bin, out, err)
	}
	out, err = exec.Command(bin, "-build-info").Output()
	if err != nil {
		t.Fatal(err)
	}
	var bi struct{ Release, Revision string }
	if err := json.Unmarshal(out, &bi); err != nil || bi.Release != host.Version || bi.Revision != a.Revision {
		t.Fatalf("-build-info = %s (%v), want release %s revision %s", out, err, host.Version, a.Revision)
	}
	// The committed manifest, when it is of these sources.
	text, err := os.ReadFile(filepath.Join(root, "lua", "claudenova", "core", "release.lua"))
	if err != nil {
		t.Fatal(err)
	}
	committed, err := ParseManifest(text)
	if err != nil {
		t.Fatal(err)
	}
	if committed.Revision != a.Revision || committed.Go != a.Go {
		t.Logf("the committed manifest is of revision %s (%s), these sources are %s (%s): its sums are not rebuilt here", committed.Revision, committed.Go, a.Revision, a.Go)
		return
	}
	for _, c := range committed.Assets {
		if c.Key == here.Key() && c.SHA256 != a.Assets[0].SHA256 {
			t.Fatalf("the committed manifest says %s for %s, make release builds %s", c.SHA256, c.File, a.Assets[0].SHA256)
		}
	}
}

// The revision a release names is the last commit of the host's sources:
// committing the manifest (or Lua, docs) leaves it; uncommitted changes to
// the sources are refused unless allowed (then marked -dirty).
func TestRevisionIsTheHostSources(t *testing.T) {
	dir := t.TempDir()
	git := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@localhost"}, args...)...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "--quiet")
	write("go.mod", "module x\n")
	write("rplugin/host/host.go", "package host\n")
	git("add", ".")
	git("commit", "--quiet", "-m", "host")
	hostRev := git("rev-parse", "HEAD")
	write("lua/claudenova/core/release.lua", "return {}\n")
	git("add", ".")
	git("commit", "--quiet", "-m", "manifest")
	b := Builder{Dir: dir, Go: "go", Env: os.Environ()}
	ctx := context.Background()
	for _, c := range []struct {
		name       string
		change     func()
		allowDirty bool
		want       string
		err        string
	}{
		{name: "a manifest commit keeps the host's revision", want: hostRev},
		{name: "a Lua change keeps it", change: func() { write("lua/claudenova/init.lua", "x") }, want: hostRev},
		{name: "a host change is refused", change: func() { write("rplugin/host/host.go", "package host // x\n") }, err: "uncommitted changes"},
		{name: "or marked", allowDirty: true, want: hostRev + "-dirty"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.change != nil {
				c.change()
			}
			got, err := b.Revision(ctx, c.allowDirty)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("Revision error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil || got != c.want {
				t.Fatalf("Revision = %q, %v; want %q", got, err, c.want)
			}
		})
	}
}
