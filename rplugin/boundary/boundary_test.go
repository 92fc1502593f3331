package boundary

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// layout is a home folder with notes outside a project, and links from the
// project to them.
type layout struct {
	root, home, project, notes, todo string
}

func newLayout(t testing.TB) layout {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	l := layout{root: root, home: filepath.Join(root, "home")}
	l.project = filepath.Join(l.home, "project")
	l.notes = filepath.Join(l.home, "notes")
	l.todo = filepath.Join(l.notes, "todo.txt")
	for _, d := range []string{l.project + "/sub", l.notes} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{l.todo, l.project + "/a.txt", l.project + "/sub/b.txt", l.home + "/.env"} {
		if err := os.WriteFile(f, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	links := map[string]string{
		l.project + "/link.txt":     l.todo,
		l.project + "/linkdir":      l.notes,
		l.project + "/rel-link.txt": "../notes/todo.txt",
		l.project + "/inner.txt":    "sub/b.txt",
		l.project + "/loop":         "loop",
		l.notes + "/back":           l.project,
	}
	for from, to := range links {
		if err := os.Symlink(to, from); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

func TestResolve(t *testing.T) {
	l := newLayout(t)
	tests := []struct {
		name, in string
		want     string
		notFile  bool
		fails    bool
	}{
		{"relative", "a.txt", l.project + "/a.txt", false, false},
		{"absolute", l.project + "/sub/b.txt", l.project + "/sub/b.txt", false, false},
		{"dot dot leaves", "../notes/todo.txt", l.todo, false, false},
		{"dot dot inside", "sub/../a.txt", l.project + "/a.txt", false, false},
		{"symlink to a file outside", "link.txt", l.todo, false, false},
		{"relative symlink outside", "rel-link.txt", l.todo, false, false},
		{"symlink inside", "inner.txt", l.project + "/sub/b.txt", false, false},
		{"through a linked folder", "linkdir/todo.txt", l.todo, false, false},
		// linkdir is ~/notes: its parent is ~, not the project.
		{"dot dot after a linked folder", "linkdir/../.env", l.home + "/.env", false, false},
		{"back into the project", l.notes + "/back/a.txt", l.project + "/a.txt", false, false},
		{"a new file", "new/dir/c.txt", l.project + "/new/dir/c.txt", false, false},
		{"a new file under a link", "linkdir/new.txt", l.notes + "/new.txt", false, false},
		{"file uri", "file://" + l.todo, l.todo, false, false},
		{"file uri with localhost", "file://localhost" + l.project + "/a.txt", l.project + "/a.txt", false, false},
		{"file uri with escapes", "file://" + l.notes + "/todo%2Etxt", l.todo, false, false},
		{"terminal", "term://~/x//123:bash", "", true, true},
		{"claude-nova buffer", "claudenova://sidebar", "", true, true},
		{"unnamed buffer", "", "", true, true},
		{"file uri of another host", "file://server/share/x", "", true, true},
		{"a loop", "loop", "", false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.in, l.project)
			if tt.fails {
				if err == nil {
					t.Fatalf("Resolve(%q) = %q, want an error", tt.in, got)
				}
				if tt.notFile != (err != nil && isNotFile(err)) {
					t.Fatalf("Resolve(%q): err %v, not a file = %v", tt.in, err, tt.notFile)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("Resolve(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
}

func isNotFile(err error) bool {
	for e := err; e != nil; {
		if e == ErrNotFile {
			return true
		}
		u, ok := e.(interface{ Unwrap() error })
		if !ok {
			return false
		}
		e = u.Unwrap()
	}
	return false
}

func TestCheck(t *testing.T) {
	l := newLayout(t)
	b := Bases{Home: l.home, Project: l.project, Cwd: l.project}
	rule := func(r string) Pattern {
		p, ok := ParseRead(r, "userSettings", b)
		if !ok {
			t.Fatalf("ParseRead(%q) failed", r)
		}
		return p
	}
	plain := Policy{Cwd: l.project, Folders: NewFolders(l.project, l.home)}
	withNotes := Policy{Cwd: l.project, Folders: NewFolders(l.project, l.home, "~/notes")}
	allowNotes := plain
	allowNotes.Rules = Rules{Allow: []Pattern{rule("Read(~/notes/**)")}}
	denyNotes := withNotes
	denyNotes.Rules = Rules{Deny: []Pattern{rule("Read(//" + l.notes[1:] + "/**)")}}
	denyEnv := plain
	denyEnv.Rules = Rules{Deny: []Pattern{rule("Read(.env)")}}
	granted := plain
	granted.Grants = &Grants{}
	granted.Grants.AllowFile(l.todo)
	folder := plain
	folder.Grants = &Grants{}
	folder.Grants.AllowFolder(l.notes)

	tests := []struct {
		name   string
		pol    Policy
		in     string
		want   Place
		why    string
		isFile bool
	}{
		{"inside", plain, "a.txt", Inside, "", true},
		{"outside", plain, l.todo, Outside, "", true},
		{"outside by dot dot", plain, "sub/../../notes/todo.txt", Outside, "", true},
		{"outside through a symlink", plain, "link.txt", Outside, "", true},
		{"outside through a linked folder", plain, "linkdir/todo.txt", Outside, "", true},
		{"a file uri outside", plain, "file://" + l.todo, Outside, "", true},
		{"a terminal", plain, "term://bash", Outside, "", false},
		{"an unnamed buffer", plain, "", Outside, "", false},
		{"an added folder", withNotes, l.todo, Inside, "", true},
		{"an added folder through the link", withNotes, "link.txt", Inside, "", true},
		{"a Read allow rule", allowNotes, "link.txt", Granted, "Read(~/notes/**)", true},
		{"a Read deny rule beats an added folder", denyNotes, l.todo, Refused, "Read(//" + l.notes[1:] + "/**)", true},
		{"a deny rule inside, at any depth", denyEnv, "sub/.env", Refused, "Read(.env)", true},
		{"a file granted for the session", granted, l.todo, Granted, "you allowed " + l.todo + " for this session", true},
		{"another file is not", granted, l.notes + "/other.txt", Outside, "", true},
		{"a folder granted for the session", folder, "linkdir/new.txt", Granted, "you allowed " + l.notes + " for this session", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.pol.Check(tt.in)
			if c.Place != tt.want || c.Why != tt.why || c.NotFile == tt.isFile {
				t.Fatalf("Check(%q) = %+v; want %s, why %q, file %v", tt.in, c, tt.want, tt.why, tt.isFile)
			}
		})
	}
}

func TestParseRead(t *testing.T) {
	b := Bases{Home: "/h", Project: "/p", Cwd: "/p/c"}
	tests := []struct {
		rule    string
		match   []string
		nomatch []string
	}{
		{"Read", []string{"/anything"}, nil},
		{"Read(~/notes/**)", []string{"/h/notes/a", "/h/notes/d/e"}, []string{"/h/notesx/a", "/h/other"}},
		{"Read(//etc/hosts)", []string{"/etc/hosts"}, []string{"/etc/hostsx", "/p/etc/hosts"}},
		{"Read(/src/*.go)", []string{"/p/src/a.go"}, []string{"/p/src/d/a.go", "/p/c/src/a.go"}},
		{"Read(./x/*.txt)", []string{"/p/c/x/a.txt"}, []string{"/p/x/a.txt"}},
		{"Read(.env)", []string{"/p/c/.env", "/p/c/d/.env"}, []string{"/p/.env", "/p/c/.envrc"}},
		{"Read(secrets/)", []string{"/p/c/secrets", "/p/c/d/secrets/k"}, []string{"/p/c/secretsx"}},
		{"Read(~/notes)", []string{"/h/notes", "/h/notes/todo.txt"}, []string{"/h/notes2"}},
		{"Read(**/*.key)", []string{"/p/c/a.key", "/p/c/d/e/a.key"}, []string{"/p/a.key"}},
	}
	for _, tt := range tests {
		p, ok := ParseRead(tt.rule, "", b)
		if !ok {
			t.Fatalf("ParseRead(%q) failed", tt.rule)
		}
		for _, m := range tt.match {
			if !p.Match(m) {
				t.Errorf("%s does not match %s", tt.rule, m)
			}
		}
		for _, m := range tt.nomatch {
			if p.Match(m) {
				t.Errorf("%s matches %s", tt.rule, m)
			}
		}
	}
	for _, bad := range []string{"Bash(ls)", "Edit(x)", "Read(x", "Readx"} {
		if _, ok := ParseRead(bad, "", b); ok {
			t.Errorf("ParseRead(%q) accepted", bad)
		}
	}
}

func TestAddDirs(t *testing.T) {
	got := AddDirs([]string{"--model", "x", "--add-dir", "a", "b", "--verbose", "--add-dir=c", "--add-dir"})
	if want := []string{"a", "b", "c"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("AddDirs = %q, want %q", got, want)
	}
}

func TestShow(t *testing.T) {
	for _, tt := range []struct{ real, want string }{
		{"/h/p/a.txt", "a.txt"}, {"/h/notes/todo.txt", "~/notes/todo.txt"}, {"/etc/hosts", "/etc/hosts"}, {"/h", "~"},
	} {
		if got := Show(tt.real, "/h/p", "/h"); got != tt.want {
			t.Errorf("Show(%q) = %q, want %q", tt.real, got, tt.want)
		}
	}
}
