//go:build unix

// These tests use symlinks, umask, FIFOs and process ids the Unix way.

package proposal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unicode"
	"unicode/utf8"
)

// realProposed is <storage>/proposed with storage resolved.
func realProposed(t testing.TB, storage string) string {
	t.Helper()
	real, err := filepath.EvalSymlinks(storage)
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(real, "proposed")
}

// checkStaged verifies that staged is <root>/<dir>/<name> with safe parts,
// the right modes and content.
func checkStaged(t testing.TB, root, staged string, content []byte) {
	t.Helper()
	rel, err := filepath.Rel(root, staged)
	if err != nil || !filepath.IsLocal(rel) {
		t.Fatalf("staged %q escapes %q (rel %q)", staged, root, rel)
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if len(parts) != 2 {
		t.Fatalf("staged %q is not two levels below %q", staged, root)
	}
	if !regexp.MustCompile(`^[A-Za-z0-9_-]{8}-[0-9a-f]{8}$`).MatchString(parts[0]) {
		t.Fatalf("dir name %q", parts[0])
	}
	name := parts[1]
	if name == "." || name == ".." || strings.Trim(name, ". ") == "" || len(name) > 255 || !utf8.ValidString(name) ||
		strings.ContainsAny(name, "/\\\x00\x1b") || strings.HasPrefix(name, reservedPrefix) {
		t.Fatalf("unsafe name %q", name)
	}
	for _, r := range name {
		if unicode.IsControl(r) || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069 || r >= 0x200B && r <= 0x200F || r == 0x061C {
			t.Fatalf("name %q has control character %U", name, r)
		}
	}
	for _, p := range []string{root, filepath.Dir(staged)} {
		fi, err := os.Lstat(p)
		if err != nil || !fi.IsDir() || fi.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v, mode %v; want a 0700 directory", p, err, fi.Mode())
		}
	}
	fi, err := os.Lstat(staged)
	if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
		t.Fatalf("%s: %v; want a 0600 regular file", staged, err)
	}
	got, err := os.ReadFile(staged)
	if err != nil || string(got) != string(content) {
		t.Fatalf("staged content %q, %v; want %q", got, err, content)
	}
}

func TestStageTwoProposalsSameBasename(t *testing.T) {
	storage := filepath.Join(t.TempDir(), "state", "claudenova") // created on demand
	root := ""
	a, err := Stage(storage, "fe1bfa43-065e-4fae-93f5-c6e183b85495", "/home/dev/p/main.go", []byte("package a\n"))
	if err != nil {
		t.Fatal(err)
	}
	root = realProposed(t, storage)
	b, err := Stage(storage, "e2301f1a-5b44-47cf-97d7-39c9b6c9ed01", "/home/dev/q/main.go", []byte("package b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a == b || filepath.Dir(a) == filepath.Dir(b) {
		t.Fatalf("proposals share a place: %s %s", a, b)
	}
	if filepath.Base(a) != "main.go" || filepath.Base(b) != "main.go" {
		t.Fatalf("basenames %s %s", a, b)
	}
	if !strings.HasPrefix(filepath.Base(filepath.Dir(a)), "c6e183b85495"[4:]+"-") {
		t.Fatalf("id dir of %s", a)
	}
	checkStaged(t, root, a, []byte("package a\n"))
	checkStaged(t, root, b, []byte("package b\n"))
}

func TestStageModesIgnoreUmask(t *testing.T) {
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, mask := range []int{0, 0o022, 0o277} {
		syscall.Umask(mask)
		storage := t.TempDir()
		s, err := Stage(storage, fmt.Sprintf("umask-%04o-request", mask), "/x/a.txt", []byte("x"))
		syscall.Umask(0)
		if err != nil {
			t.Fatalf("umask %04o: %v", mask, err)
		}
		checkStaged(t, realProposed(t, storage), s, []byte("x"))
	}
}

func TestStageHostileRequestIDs(t *testing.T) {
	storage := t.TempDir()
	root := realProposed(t, storage)
	ids := []string{"../../x", "a/b", "ab", "", ".", "..", "/", "\x00", "ünïcødé-ïd", "日本語", "-rf", "$(rm -rf ~)",
		strings.Repeat("../", 2000), strings.Repeat("x", 100000), "\x1b[31mred", "C:\\Windows\\x"}
	dirs := map[string]string{}
	for _, id := range ids {
		s, err := Stage(storage, id, "/p/a.txt", []byte(id))
		if err != nil {
			t.Fatalf("id %q: %v", id, err)
		}
		checkStaged(t, root, s, []byte(id))
		d := filepath.Base(filepath.Dir(s))
		if other, ok := dirs[d]; ok {
			t.Fatalf("ids %q and %q share dir %s", id, other, d)
		}
		dirs[d] = id
	}
	if dirID("") == dirID("..") || dirID("a/b") == dirID("ab") {
		t.Fatal("ids that sanitize alike must still differ (hash padding)")
	}
	if got := dirID("fe1bfa43-065e-4fae-93f5-c6e183b85495"); got != "e183b85495"[2:] {
		t.Fatalf("dirID = %q", got)
	}
}

func TestStageHostileBasenames(t *testing.T) {
	storage := t.TempDir()
	root := realProposed(t, storage)
	long := strings.Repeat("a", 1000) + ".go"
	tests := []struct {
		path string
		want string // "" = only check safety
	}{
		{"../../x", "x"},
		{"..", "proposal"},
		{".", "proposal"},
		{"", "proposal"},
		{"/", "proposal"},
		{"/etc/..", "proposal"},
		{"...", "proposal"},
		{" . ", "proposal"},
		{"/p/.env", ".env"},
		{"/p/..foo", "..foo"},
		{"/p/a\nb\r\t.txt", "ab.txt"},
		{"/p/\x1b[31mred\x1b[0m.go", "red.go"},
		{"/p/\x1b]0;pwned\x07title.md", "title.md"},
		{"/p/\x1b]8;;id=1\x1b\\link.md", "link.md"},
		{"/p/\x1b]8;;http://x\x1b\\link.md", "xlink.md"}, // Base cuts at the URL's slash
		{"/p/\u009b31mcsi.txt", "csi.txt"},
		{"/p/evil\u202Etxt.exe", "eviltxt.exe"},
		{"/p/a:b*c?\"<d>|.txt", "abcd.txt"},
		{"/p/back\\slash\\..\\x.txt", "backslash..x.txt"},
		{"/p/\xff\xfebad.txt", "bad.txt"},
		{"/p/\x00nul.txt", "nul.txt"},
		{"/p/.claudenova-request", "_.claudenova-request"},
		{"/p/.claudenova-stage-123", "_.claudenova-stage-123"},
		{"/p/" + long, strings.Repeat("a", 252) + ".go"},
		{"/p/" + strings.Repeat("é", 500) + ".tar.gz", strings.Repeat("é", 126) + ".gz"},
		{"/p/" + strings.Repeat("x", 300) + "." + strings.Repeat("e", 100), strings.Repeat("x", 255)},
		{"/p/" + strings.Repeat(".", 300) + "." + strings.Repeat("e", 40), ""},
		{"/p/" + strings.Repeat(".", 300), "proposal"},
		{"/p/" + strings.Repeat("\x1b", 1000), "proposal"},
		{"/p/" + strings.Repeat("😀", 300), strings.Repeat("😀", 63)},
	}
	for i, tt := range tests {
		s, err := Stage(storage, fmt.Sprintf("request-%08d", i), tt.path, []byte("x"))
		if err != nil {
			t.Fatalf("%q: %v", tt.path, err)
		}
		checkStaged(t, root, s, []byte("x"))
		if tt.want != "" && filepath.Base(s) != tt.want {
			t.Errorf("%q staged as %q, want %q", tt.path, filepath.Base(s), tt.want)
		}
	}
}

func TestStageCollisionAndRestage(t *testing.T) {
	storage := t.TempDir()
	root := realProposed(t, storage)
	a, err := Stage(storage, "first-12345678", "/p/a.txt", []byte("a"))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Stage(storage, "second-12345678", "/p/a.txt", []byte("b"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := Stage(storage, "third-12345678", "/p/a.txt", []byte("c"))
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, p := range []string{a, b, c} {
		d := filepath.Base(filepath.Dir(p))
		if !strings.HasPrefix(d, "12345678-") || dirs[d] {
			t.Fatalf("dir %s of %s (have %v)", d, p, dirs)
		}
		dirs[d] = true
	}
	// Staging the same request again rewrites its own file.
	if err := Restage(storage, "second-12345678", b, []byte("b2")); err != nil {
		t.Fatalf("restage: %v", err)
	}
	checkStaged(t, root, a, []byte("a"))
	checkStaged(t, root, b, []byte("b2"))
	checkStaged(t, root, c, []byte("c"))
}

func TestStageSymlinks(t *testing.T) {
	// storage itself may be a symlink: it is resolved.
	realDir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(realDir, link); err != nil {
		t.Fatal(err)
	}
	s, err := Stage(link, "req-aaaaaaaa", "/p/a.txt", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	checkStaged(t, realProposed(t, realDir), s, []byte("x"))
	if !strings.HasPrefix(s, realProposed(t, realDir)+string(filepath.Separator)) {
		t.Fatalf("staged %s not under the resolved storage", s)
	}

	// storage/proposed as a symlink is refused, and nothing is written there.
	storage := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(storage, "proposed")); err != nil {
		t.Fatal(err)
	}
	if _, err := Stage(storage, "req-bbbbbbbb", "/p/a.txt", []byte("x")); err == nil {
		t.Fatal("Stage accepted a symlinked proposed dir")
	}
	if err := Unstage(storage, filepath.Join(storage, "proposed", "bbbbbbbb", "a.txt")); err == nil {
		t.Fatal("Unstage accepted a symlinked proposed dir")
	}
	if _, err := CleanStale(storage, nil); err == nil {
		t.Fatal("CleanStale accepted a symlinked proposed dir")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("wrote outside: %v", entries)
	}

	// A symlink planted at the staged name is replaced, its target untouched.
	storage = t.TempDir()
	s, err = Stage(storage, "req-cccccccc", "/p/a.txt", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Remove(s)
	if err := os.Symlink(target, s); err != nil {
		t.Fatal(err)
	}
	if err := Restage(storage, "req-cccccccc", s, []byte("two")); err != nil {
		t.Fatalf("restage: %v", err)
	}
	checkStaged(t, realProposed(t, storage), s, []byte("two"))
	if got, _ := os.ReadFile(target); string(got) != "keep" {
		t.Fatalf("symlink target overwritten: %q", got)
	}

	if _, err := Stage("relative/dir", "r", "/p/a.txt", nil); err == nil {
		t.Fatal("relative storage accepted")
	}
	if _, err := Stage("", "r", "/p/a.txt", nil); err == nil {
		t.Fatal("empty storage accepted")
	}
}

func TestUnstage(t *testing.T) {
	storage := t.TempDir()
	root := realProposed(t, storage)
	s, err := Stage(storage, "req-11111111", "/p/a.txt", []byte("x"))
	if err != nil {
		t.Fatal(err)
	}
	// Editor leftovers in the directory go too.
	os.WriteFile(filepath.Join(filepath.Dir(s), "a.txt~"), nil, 0o600)
	if err := Unstage(storage, s); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Dir(s)); !os.IsNotExist(err) {
		t.Fatalf("dir still there: %v", err)
	}
	if err := Unstage(storage, s); err != nil {
		t.Fatalf("second Unstage: %v", err)
	}
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("proposed dir removed: %v", err)
	}

	// Everything that is not <proposed>/<dir>/<file> is refused and kept.
	victim := t.TempDir()
	os.WriteFile(filepath.Join(victim, "f"), []byte("keep"), 0o600)
	other, _ := Stage(storage, "req-22222222", "/p/b.txt", []byte("y"))
	for _, bad := range []string{
		root,
		filepath.Dir(other),
		filepath.Join(victim, "f"),
		filepath.Join(root, "..", "x", "y"),
		filepath.Join(root, "22222222", "..", "..", filepath.Base(victim)),
		filepath.Join(other, "extra"),
		"relative/x/y",
		"",
	} {
		if err := Unstage(storage, bad); err == nil {
			t.Errorf("Unstage(%q) accepted", bad)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Fatalf("other proposal removed: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(victim, "f")); string(got) != "keep" {
		t.Fatal("outside file touched")
	}
	// A path built on the unresolved storage is accepted.
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(storage, link)
	lexical := filepath.Join(link, "proposed", filepath.Base(filepath.Dir(other)), filepath.Base(other))
	if err := Unstage(link, lexical); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("not removed: %v", err)
	}
	// Missing storage: nothing to do.
	if err := Unstage(filepath.Join(t.TempDir(), "none"), "/x/y/z"); err != nil {
		t.Fatal(err)
	}
}

func writeMarker(t *testing.T, dir, request string, pid int) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	m := fmt.Sprintf("claudenova proposal\nrequest %s\npid %d\n", requestTag(request), pid)
	if err := os.WriteFile(filepath.Join(dir, markerName), []byte(m), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func deadPID(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func TestCleanStale(t *testing.T) {
	if n, err := CleanStale(filepath.Join(t.TempDir(), "missing"), nil); n != 0 || err != nil {
		t.Fatalf("missing storage: %d %v", n, err)
	}
	storage := t.TempDir()
	root := realProposed(t, storage)
	live, _ := Stage(storage, "live-aaaaaaaa", "/p/a.txt", []byte("a"))
	stale1, _ := Stage(storage, "old-bbbbbbbb", "/p/a.txt", []byte("b"))
	stale2, _ := Stage(storage, "old-cccccccc", "/p/b.txt", []byte("c"))

	// Another live process's proposal (pid 1 always exists) is kept, a dead
	// process's one and one without a marker go.
	writeMarker(t, filepath.Join(root, "otherliv"), "x", 1)
	writeMarker(t, filepath.Join(root, "otherdea"), "y", deadPID(t))
	os.MkdirAll(filepath.Join(root, "nomarker", "sub"), 0o700)
	// Junk at the top level, and a symlink to a directory outside.
	os.WriteFile(filepath.Join(root, "junk"), nil, 0o600)
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "precious"), []byte("keep"), 0o600)
	os.Symlink(outside, filepath.Join(root, "link"))
	// Something next to proposed/ in storage.
	os.WriteFile(filepath.Join(storage, "sessions.json"), []byte("{}"), 0o600)

	keep := map[string]bool{filepath.Base(filepath.Dir(live)): true}
	n, err := CleanStale(storage, keep)
	if err != nil {
		t.Fatal(err)
	}
	if n != 6 {
		t.Errorf("removed %d, want 6", n)
	}
	for _, p := range []string{live, filepath.Join(root, "otherliv", "f.txt"), filepath.Join(outside, "precious"), filepath.Join(storage, "sessions.json")} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
	for _, p := range []string{stale1, stale2, filepath.Join(root, "otherdea"), filepath.Join(root, "nomarker"), filepath.Join(root, "junk"), filepath.Join(root, "link")} {
		if _, err := os.Lstat(p); !os.IsNotExist(err) {
			t.Errorf("%s kept: %v", p, err)
		}
	}
	entries, _ := os.ReadDir(root)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, ",") != filepath.Base(filepath.Dir(live))+",otherliv" {
		t.Errorf("left: %v", names)
	}
	// Our own proposals are not protected by our pid: not in keep, removed.
	n, err = CleanStale(storage, nil)
	if err != nil || n != 1 {
		t.Fatalf("second clean: %d %v", n, err)
	}
	if _, err := os.Stat(live); !os.IsNotExist(err) {
		t.Fatal("own proposal not in keep survived")
	}
	if _, err := os.Stat(filepath.Join(root, "otherliv")); err != nil {
		t.Fatal("live process's proposal removed")
	}
	fi, err := os.Stat(root)
	if err != nil || !fi.IsDir() {
		t.Fatal("proposed dir itself removed")
	}
}

func TestReadFileFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip(err)
	}
	// Must not block on open.
	if _, err := Reconstruct("Write", js(t, obj{"file_path": fifo, "content": "x"}), "", ReadFile); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("fifo: %v", err)
	}
}

// FuzzStage feeds random request ids and paths: the staged file is always
// two levels inside <storage>/proposed with safe names and modes, or Stage
// fails.
func FuzzStage(f *testing.F) {
	for _, s := range [][2]string{
		{"fe1bfa43-065e-4fae-93f5-c6e183b85495", "/home/dev/project/a.txt"},
		{"../../x", "../../x"},
		{"a/b", ".."},
		{"", "."},
		{"ünï", "/p/\x1b[31mred\x1b[0m.go"},
		{strings.Repeat("x", 300), "/p/" + strings.Repeat("a", 1000) + ".go"},
		{"\x00", "/p/.claudenova-request"},
		{"r", "/p/\u202egnp.exe"},
	} {
		f.Add(s[0], s[1], []byte("content"))
	}
	storage := f.TempDir()
	f.Fuzz(func(t *testing.T, requestID, path string, content []byte) {
		root := filepath.Join(storage, "proposed")
		staged, err := Stage(storage, requestID, path, content)
		if err != nil {
			t.Fatalf("Stage(%q, %q): %v", requestID, path, err)
		}
		real, _ := filepath.EvalSymlinks(storage)
		checkStaged(t, filepath.Join(real, "proposed"), staged, content)
		if err := Unstage(storage, staged); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Lstat(filepath.Dir(staged)); !os.IsNotExist(err) {
			t.Fatalf("Unstage left %s: %v", filepath.Dir(staged), err)
		}
		if entries, err := os.ReadDir(root); err != nil || len(entries) != 0 {
			t.Fatalf("proposed not empty after Unstage: %v %v", entries, err)
		}
		if entries, err := os.ReadDir(storage); err != nil || len(entries) != 1 {
			t.Fatalf("storage holds more than proposed/: %v %v", entries, err)
		}
	})
}
