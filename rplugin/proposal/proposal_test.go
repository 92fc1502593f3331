package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// fakeFS is an injected file system: files by absolute path, and directories.
type fakeFS struct {
	files map[string]string
	dirs  map[string]bool
	err   map[string]error
}

func (f fakeFS) read(p string) ([]byte, error) {
	if e, ok := f.err[p]; ok {
		return nil, e
	}
	if f.dirs[p] {
		return nil, &fs.PathError{Op: "read", Path: p, Err: syscall.EISDIR}
	}
	if s, ok := f.files[p]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: p, Err: fs.ErrNotExist}
}

func one(p, content string) fakeFS { return fakeFS{files: map[string]string{p: content}} }

func none() fakeFS { return fakeFS{} }

func js(t testing.TB, v any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

type obj = map[string]any

// ---- an independent model of the CLI (Claude Code 2.1.328) ----

// cliLineEnding: CRLF when CRLF line ends outnumber bare LF ones in the
// first 4096 UTF-16 units of the file.
func cliLineEnding(s string) string {
	crlf, lf, units := 0, 0, 0
	rs := []rune(s)
	for i, r := range rs {
		if units >= 4096 {
			break
		}
		if r == '\n' {
			if i > 0 && rs[i-1] == '\r' {
				crlf++
			} else {
				lf++
			}
		}
		units++
		if r > 0xFFFF {
			units++
		}
	}
	if crlf > lf {
		return "CRLF"
	}
	return "LF"
}

type cliEditOp struct {
	old, new   string
	replaceAll bool
}

// jsTrimIsEmpty is JavaScript's s.trim() === "".
func jsTrimIsEmpty(s string) bool {
	return strings.TrimFunc(s, func(r rune) bool {
		return strings.ContainsRune("\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff", r) || r >= 0x2000 && r <= 0x200a
	}) == ""
}

// cliEdit applies an Edit the way the CLI does: read the file with CRLF
// replaced by LF, find old_string (exactly once unless replaceAll; an empty
// old_string creates the file), replace, and write back with the file's own
// line endings (LF joined with CRLF for a CRLF file).
func cliEdit(file []byte, exists bool, old, new string, replaceAll bool) ([]byte, error) {
	return cliEdits(file, exists, []cliEditOp{{old, new, replaceAll}})
}

// cliEdits is cliEdit for a list of edits applied in order (MultiEdit): all
// on the LF-normalized text, written back once.
func cliEdits(file []byte, exists bool, ops []cliEditOp) ([]byte, error) {
	raw := string(file)
	content := strings.ReplaceAll(raw, "\r\n", "\n")
	result := content
	for i, op := range ops {
		old, new := op.old, op.new
		switch {
		case old == new:
			return nil, errors.New("No changes to make: old_string and new_string are exactly the same.")
		case old == "":
			if i > 0 || exists && !jsTrimIsEmpty(content) {
				return nil, errors.New("Cannot create new file - file already exists.")
			}
			if strings.HasPrefix(content, "\uFEFF") && new != "" && !strings.HasPrefix(new, "\uFEFF") {
				new = "\uFEFF" + new // the CLI keeps a byte order mark
			}
			result = new
		case !exists:
			return nil, errors.New("File does not exist.")
		default:
			n := strings.Count(result, old)
			if n == 0 {
				return nil, errors.New("String to replace not found in file.")
			}
			if n > 1 && !op.replaceAll {
				return nil, errors.New("Found multiple matches of the string to replace, but replace_all is false.")
			}
			// Deleting text that ends a line deletes the line end too.
			target := old
			if new == "" && !strings.HasSuffix(old, "\n") && strings.Contains(result, old+"\n") {
				target = old + "\n"
			}
			if op.replaceAll {
				result = strings.ReplaceAll(result, target, new)
			} else {
				result = strings.Replace(result, target, new, 1)
			}
		}
	}
	if exists && cliLineEnding(raw) == "CRLF" {
		result = strings.Join(strings.Split(strings.ReplaceAll(result, "\r\n", "\n"), "\n"), "\r\n")
	}
	return []byte(result), nil
}

// cliRun replays a tool input on a file the way the CLI would.
func cliRun(t testing.TB, tool string, input json.RawMessage, file []byte, exists bool) []byte {
	t.Helper()
	var in struct {
		Content    *string `json:"content"`
		OldString  string  `json:"old_string"`
		NewString  string  `json:"new_string"`
		ReplaceAll bool    `json:"replace_all"`
		Edits      []struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		} `json:"edits"`
	}
	if err := json.Unmarshal(input, &in); err != nil {
		t.Fatalf("amended input is not JSON: %v\n%s", err, input)
	}
	switch tool {
	case "Write":
		c := *in.Content
		if exists && strings.HasPrefix(string(file), "\uFEFF") && c != "" && !strings.HasPrefix(c, "\uFEFF") {
			c = "\uFEFF" + c
		}
		return []byte(c)
	case "MultiEdit":
		var ops []cliEditOp
		for _, e := range in.Edits {
			ops = append(ops, cliEditOp{e.OldString, e.NewString, e.ReplaceAll})
		}
		out, err := cliEdits(file, exists, ops)
		if err != nil {
			t.Fatalf("CLI would refuse %s: %v\n%s", tool, err, input)
		}
		return out
	default:
		out, err := cliEdit(file, exists, in.OldString, in.NewString, in.ReplaceAll)
		if err != nil {
			t.Fatalf("CLI would refuse %s: %v\n%s", tool, err, input)
		}
		return out
	}
}

// ---- Reconstruct ----

func TestReconstruct(t *testing.T) {
	const p = "/home/dev/project/a.txt"
	big := strings.Repeat("x", MaxFileSize+1)
	tests := []struct {
		name    string
		tool    string
		input   any
		fs      fakeFS
		cwd     string
		want    string
		exists  bool
		path    string
		wantErr string
	}{
		{name: "write new file", tool: "Write", input: obj{"file_path": p, "content": "new\n"}, fs: none(), want: "new\n"},
		{name: "write over file", tool: "Write", input: obj{"file_path": p, "content": "b"}, fs: one(p, "a\r\n"), want: "b", exists: true},
		{name: "write keeps CRLF as sent", tool: "Write", input: obj{"file_path": p, "content": "x\r\ny\n"}, fs: one(p, "a\n"), want: "x\r\ny\n", exists: true},
		{name: "write keeps BOM", tool: "Write", input: obj{"file_path": p, "content": "b\n"}, fs: one(p, "\uFEFFa\n"), want: "\uFEFFb\n", exists: true},
		{name: "write empty content", tool: "Write", input: obj{"file_path": p, "content": ""}, fs: one(p, "a\n"), want: "", exists: true},
		{name: "write relative path", tool: "Write", input: obj{"file_path": "sub/../b.txt", "content": "z"}, cwd: "/home/dev/project", fs: none(), want: "z", path: "/home/dev/project/b.txt"},
		{name: "write over binary", tool: "Write", input: obj{"file_path": p, "content": "z"}, fs: one(p, "a\x00b"), wantErr: "a.txt is a binary file"},

		{name: "edit", tool: "Edit", input: obj{"file_path": p, "old_string": "two", "new_string": "2"}, fs: one(p, "one\ntwo\nthree\n"), want: "one\n2\nthree\n", exists: true},
		{name: "update alias", tool: "Update", input: obj{"file_path": p, "old_string": "two", "new_string": "2"}, fs: one(p, "one\ntwo\n"), want: "one\n2\n", exists: true},
		{name: "edit replace_all", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "bb", "replace_all": true}, fs: one(p, "a-a-a"), want: "bb-bb-bb", exists: true},
		{name: "edit replace_all null", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b", "replace_all": nil}, fs: one(p, "xay"), want: "xby", exists: true},
		{name: "edit ambiguous", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: one(p, "a-a-a"), wantErr: "old_string occurs 3 times in a.txt and replace_all is false"},
		{name: "edit ambiguous replace_all false", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b", "replace_all": false}, fs: one(p, "aa"), wantErr: "old_string occurs 2 times in a.txt and replace_all is false"},
		{name: "edit not found", tool: "Edit", input: obj{"file_path": p, "old_string": "zzz", "new_string": "b"}, fs: one(p, "abc"), wantErr: "old_string not found in a.txt"},
		{name: "edit missing file", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: none(), wantErr: "a.txt does not exist"},
		{name: "edit creates missing file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "hello\n"}, fs: none(), want: "hello\n"},
		{name: "edit empty old on content", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x"}, fs: one(p, "abc"), wantErr: "old_string is empty and a.txt already has content"},
		{name: "edit empty old on empty file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x\n"}, fs: one(p, ""), want: "x\n", exists: true},
		{name: "edit empty old on blank CRLF file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x\ny\n"}, fs: one(p, "\r\n \r\n"), want: "x\r\ny\r\n", exists: true},
		{name: "edit same strings", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "a"}, fs: one(p, "a"), wantErr: "old_string and new_string are the same"},
		{name: "edit dollar patterns are literal", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "$&$1$$"}, fs: one(p, "xay"), want: "x$&$1$$y", exists: true},
		{name: "edit deleting a line takes its newline", tool: "Edit", input: obj{"file_path": p, "old_string": "two", "new_string": ""}, fs: one(p, "one\ntwo\nthree\n"), want: "one\nthree\n", exists: true},
		{name: "edit deleting at end without newline", tool: "Edit", input: obj{"file_path": p, "old_string": "\nthree", "new_string": ""}, fs: one(p, "one\nthree"), want: "one", exists: true},

		{name: "CRLF file stays CRLF", tool: "Edit", input: obj{"file_path": p, "old_string": "one\ntwo", "new_string": "one\n2\nextra"}, fs: one(p, "one\r\ntwo\r\nthree\r\n"), want: "one\r\n2\r\nextra\r\nthree\r\n", exists: true},
		{name: "CRLF file without final newline", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "B"}, fs: one(p, "a\r\nb"), want: "a\r\nB", exists: true},
		{name: "no final newline preserved", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, fs: one(p, "a\nb"), want: "a\nc", exists: true},
		{name: "mixed LF majority normalized like the CLI", tool: "Edit", input: obj{"file_path": p, "old_string": "c", "new_string": "C"}, fs: one(p, "a\r\nb\nc\n"), want: "a\nb\nC\n", exists: true},
		{name: "mixed CRLF majority normalized like the CLI", tool: "Edit", input: obj{"file_path": p, "old_string": "c", "new_string": "C"}, fs: one(p, "a\r\nb\r\nc\n"), want: "a\r\nb\r\nC\r\n", exists: true},
		{name: "BOM file edit", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: one(p, "\uFEFFa\n"), want: "\uFEFFb\n", exists: true},

		{name: "multiedit sequencing", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{
			{"old_string": "one", "new_string": "uno"},
			{"old_string": "uno two", "new_string": "uno dos"},
			{"old_string": "x", "new_string": "y", "replace_all": true},
		}}, fs: one(p, "one two x x\n"), want: "uno dos y y\n", exists: true},
		{name: "multiedit creates file", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{
			{"old_string": "", "new_string": "a b\n"},
		}}, fs: none(), want: "a b\n"},
		{name: "multiedit cannot edit what it creates", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{
			{"old_string": "", "new_string": "a b\n"},
			{"old_string": "b", "new_string": "c"},
		}}, fs: none(), wantErr: "edits[1].old_string is part of the new_string of an earlier edit"},
		{name: "multiedit empty old later", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{
			{"old_string": "a", "new_string": "b"},
			{"old_string": "", "new_string": "c"},
		}}, fs: one(p, "a"), wantErr: "edits[1].old_string is empty"},
		{name: "multiedit second not found", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{
			{"old_string": "one", "new_string": "uno"},
			{"old_string": "one", "new_string": "eins"},
		}}, fs: one(p, "one\n"), wantErr: "edits[1].old_string not found in a.txt after the earlier edits"},
		{name: "multiedit substring of earlier new", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{
			{"old_string": "a", "new_string": "xyz"},
			{"old_string": "y", "new_string": "Y"},
		}}, fs: one(p, "a y\n"), wantErr: "edits[1].old_string is part of the new_string of an earlier edit"},
		{name: "multiedit empty", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{}}, fs: one(p, "a"), wantErr: "edits is empty"},
		{name: "multiedit ambiguous", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{{"old_string": "a", "new_string": "b"}}}, fs: one(p, "aa"), wantErr: "edits[0].old_string occurs 2 times in a.txt and replace_all is false"},
		{name: "multiedit CRLF", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{{"old_string": "a\nb", "new_string": "a\nB"}}}, fs: one(p, "a\r\nb\r\n"), want: "a\r\nB\r\n", exists: true},

		{name: "binary", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: one(p, "a\x00b"), wantErr: "a.txt is a binary file"},
		{name: "NUL after 8 KiB is text", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: one(p, "a"+strings.Repeat(" ", 9000)+"\x00"), want: "b" + strings.Repeat(" ", 9000) + "\x00", exists: true},
		{name: "not UTF-8", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: one(p, "a\xff\xfe\xfd"), wantErr: "a.txt is not valid UTF-8"},
		{name: "latin-1", tool: "Write", input: obj{"file_path": p, "content": "x"}, fs: one(p, "caf\xe9\n"), wantErr: "a.txt is not valid UTF-8"},
		{name: "UTF-16", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: one(p, "\xff\xfea\x00"), wantErr: "a.txt is UTF-16 encoded"},
		{name: "directory", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: fakeFS{dirs: map[string]bool{p: true}}, wantErr: "file_path is a directory"},
		{name: "write to directory", tool: "Write", input: obj{"file_path": p, "content": "b"}, fs: fakeFS{dirs: map[string]bool{p: true}}, wantErr: "file_path is a directory"},
		{name: "too large file", tool: "Edit", input: obj{"file_path": p, "old_string": "x", "new_string": "y"}, fs: one(p, big), wantErr: "a.txt is too large"},
		{name: "too large result", tool: "Edit", input: obj{"file_path": p, "old_string": "x", "new_string": strings.Repeat("y", 1<<20), "replace_all": true}, fs: one(p, strings.Repeat("x", 100)), wantErr: "too large"},
		{name: "too large write", tool: "Write", input: obj{"file_path": p, "content": big}, fs: none(), wantErr: "too large"},
		{name: "permission denied", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, fs: fakeFS{err: map[string]error{p: fs.ErrPermission}}, wantErr: "a.txt cannot be read: permission denied"},

		{name: "tilde", tool: "Write", input: obj{"file_path": "~/a.txt", "content": "b"}, fs: none(), wantErr: "starts with ~"},
		{name: "relative without cwd", tool: "Write", input: obj{"file_path": "a.txt", "content": "b"}, fs: none(), wantErr: "is relative"},
		{name: "empty path", tool: "Write", input: obj{"file_path": "", "content": "b"}, fs: none(), wantErr: "file_path is empty"},
		{name: "missing content", tool: "Write", input: obj{"file_path": p}, fs: none(), wantErr: "content is missing"},
		{name: "content not a string", tool: "Write", input: obj{"file_path": p, "content": 3}, fs: none(), wantErr: "content is not a string"},
		{name: "missing old_string", tool: "Edit", input: obj{"file_path": p, "new_string": "b"}, fs: one(p, "a"), wantErr: "old_string is missing"},
		{name: "replace_all not bool", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b", "replace_all": "yes"}, fs: one(p, "a"), wantErr: "replace_all is not a boolean"},
		{name: "not an object", tool: "Edit", input: []int{1}, fs: none(), wantErr: "not a JSON object"},
		{name: "not a file change", tool: "Bash", input: obj{"command": "ls"}, fs: none(), wantErr: "Bash is not a file change"},
		{name: "hostile name is shown safely in reasons (escapes gone, controls marked)", tool: "Edit", input: obj{"file_path": "/x/\x1b[31mevil\x07.txt", "old_string": "a", "new_string": "b"}, fs: none(), wantErr: "evil^G.txt does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Reconstruct(tt.tool, js(t, tt.input), tt.cwd, tt.fs.read)
			if tt.wantErr != "" {
				var u *Unreconstructable
				if !errors.As(err, &u) {
					t.Fatalf("err = %v (%T), want *Unreconstructable", err, err)
				}
				if !strings.Contains(u.Reason, tt.wantErr) {
					t.Fatalf("reason = %q, want it to contain %q", u.Reason, tt.wantErr)
				}
				if strings.ContainsAny(u.Reason, "\x1b\x07") {
					t.Fatalf("reason carries control characters: %q", u.Reason)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(c.Proposed) != tt.want {
				t.Errorf("Proposed = %q, want %q", c.Proposed, tt.want)
			}
			if c.Exists != tt.exists {
				t.Errorf("Exists = %v, want %v", c.Exists, tt.exists)
			}
			want := tt.path
			if want == "" {
				want = p
			}
			if c.Path != want {
				t.Errorf("Path = %q, want %q", c.Path, want)
			}
			if c.Tool != tt.tool {
				t.Errorf("Tool = %q", c.Tool)
			}
			if orig := tt.fs.files[want]; string(c.Original) != orig {
				t.Errorf("Original = %q, want %q", c.Original, orig)
			}
			// The independent model of the CLI agrees.
			var f []byte
			if c.Exists {
				f = c.Original
			}
			if got := cliRun(t, tt.tool, js(t, tt.input), f, c.Exists); !bytes.Equal(got, c.Proposed) {
				t.Errorf("CLI model writes %q, Reconstruct says %q", got, c.Proposed)
			}
		})
	}
}

func TestIsFileChange(t *testing.T) {
	for tool, want := range map[string]bool{"Write": true, "Edit": true, "Update": true, "MultiEdit": true, "Bash": false, "NotebookEdit": true, "edit": false, "": false} {
		if got := IsFileChange(tool); got != want {
			t.Errorf("IsFileChange(%q) = %v", tool, got)
		}
	}
}

func TestReadFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("a\r\nb"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Reconstruct("Edit", js(t, obj{"file_path": "a.txt", "old_string": "b", "new_string": "c"}), dir, ReadFile)
	if err != nil || string(c.Proposed) != "a\r\nc" {
		t.Fatalf("Reconstruct = %q, %v", c.Proposed, err)
	}
	if _, err := Reconstruct("Edit", js(t, obj{"file_path": dir, "old_string": "b", "new_string": "c"}), "", ReadFile); err == nil || err.Error() != "file_path is a directory" {
		t.Fatalf("directory: %v", err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
}

// ---- Stale ----

func TestStale(t *testing.T) {
	const p = "/p/a.txt"
	existing := Change{Tool: "Edit", Path: p, Exists: true, Original: []byte("a\n")}
	created := Change{Tool: "Write", Path: p}
	tests := []struct {
		name string
		c    Change
		fs   fakeFS
		want bool
		err  bool
	}{
		{"unchanged", existing, one(p, "a\n"), false, false},
		{"modified", existing, one(p, "a\r\n"), true, false},
		{"deleted", existing, none(), true, false},
		{"still missing", created, none(), false, false},
		{"created meanwhile", created, one(p, ""), true, false},
		{"unreadable", existing, fakeFS{err: map[string]error{p: fs.ErrPermission}}, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Stale(tt.c, tt.fs.read)
			if got != tt.want || (err != nil) != tt.err {
				t.Fatalf("Stale = %v, %v; want %v, err %v", got, err, tt.want, tt.err)
			}
		})
	}
}

// ---- Amend ----

func TestAmend(t *testing.T) {
	const p = "/home/dev/project/a.txt"
	type tc struct {
		name    string
		tool    string
		input   any
		file    *string // nil: missing
		saved   string
		wantErr string
		noCR    bool // the amended old_string/new_string must carry no CR
	}
	s := func(v string) *string { return &v }
	tests := []tc{
		{name: "write edited", tool: "Write", input: obj{"file_path": p, "content": "x\n"}, file: s("old\n"), saved: "x\ny\n"},
		{name: "write new file edited", tool: "Write", input: obj{"file_path": p, "content": "x\n"}, saved: "x"},
		{name: "write back to original", tool: "Write", input: obj{"file_path": p, "content": "x\n"}, file: s("old\n"), saved: "old\n"},
		{name: "write CRLF saved", tool: "Write", input: obj{"file_path": p, "content": "x\n"}, file: s("a\r\n"), saved: "x\r\ny\r\n"},
		{name: "write BOM kept", tool: "Write", input: obj{"file_path": p, "content": "x\n"}, file: s("\uFEFFa\n"), saved: "\uFEFFz\n"},
		{name: "write BOM dropped", tool: "Write", input: obj{"file_path": p, "content": "x\n"}, file: s("\uFEFFa\n"), saved: "z\n", wantErr: "byte order mark"},

		{name: "edit ordinary", tool: "Edit", input: obj{"file_path": p, "old_string": "two", "new_string": "2"}, file: s("one\ntwo\n"), saved: "one\n2 (amended by user)\n"},
		{name: "update ordinary", tool: "Update", input: obj{"file_path": p, "old_string": "two", "new_string": "2"}, file: s("one\ntwo\n"), saved: "one\n2!\n"},
		{name: "edit no final newline", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, file: s("a\nb"), saved: "a\nc and more"},
		{name: "edit adds final newline", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, file: s("a\nb"), saved: "a\nc\n"},
		{name: "edit CRLF", tool: "Edit", input: obj{"file_path": p, "old_string": "two", "new_string": "2"}, file: s("one\r\ntwo\r\nthree\r\n"), saved: "one\r\n2\r\nuser\r\nthree\r\n", noCR: true},
		{name: "edit CRLF no final newline", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, file: s("a\r\nb"), saved: "a\r\nc\r\nd", noCR: true},
		{name: "edit CRLF saved with LF", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, file: s("a\r\nb\r\n"), saved: "a\nz\n", wantErr: "CRLF line endings"},
		{name: "edit CRLF saved mixed", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, file: s("a\r\nb\r\n"), saved: "a\r\nz\n", wantErr: "CRLF line endings"},
		{name: "edit LF only line endings changed", tool: "Edit", input: obj{"file_path": p, "old_string": "b", "new_string": "c"}, file: s("a\r\nb\nc\n"), saved: "a\nb\nc\n", wantErr: "only in line endings"},
		{name: "edit whitespace-only file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x"}, file: s("\n\n"), saved: "y\n"},
		{name: "edit empty existing file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x"}, file: s(""), saved: "user text\n"},
		{name: "edit creates file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x"}, saved: "user text"},
		{name: "edit creates empty file", tool: "Edit", input: obj{"file_path": p, "old_string": "", "new_string": "x"}, saved: "", wantErr: "cannot create an empty"},
		{name: "edit reverted", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, file: s("a\n"), saved: "a\n", wantErr: ErrNoChange.Error()},
		{name: "edit emptied", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, file: s("a\nb"), saved: ""},
		{name: "edit BOM", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, file: s("\uFEFFa\n"), saved: "\uFEFFb\nc\n"},
		{name: "edit BOM removed by user", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, file: s("\uFEFFa\n"), saved: "b\n"},
		{name: "edit repeated content", tool: "Edit", input: obj{"file_path": p, "old_string": "x", "new_string": "y", "replace_all": true}, file: s("x x x"), saved: "x x x x x x"},
		{name: "edit saved not UTF-8", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, file: s("a"), saved: "\xff", wantErr: "not valid UTF-8"},
		{name: "edit HTML chars", tool: "Edit", input: obj{"file_path": p, "old_string": "a", "new_string": "b"}, file: s("<a>&"), saved: "<b>&amp;"},

		{name: "multiedit", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{{"old_string": "a", "new_string": "b"}, {"old_string": "c", "new_string": "d"}}}, file: s("a c\n"), saved: "b d e\n"},
		{name: "multiedit CRLF", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{{"old_string": "a", "new_string": "b"}}}, file: s("a\r\nc\r\n"), saved: "b\r\nC\r\n", noCR: true},
		{name: "multiedit creates file", tool: "MultiEdit", input: obj{"file_path": p, "edits": []obj{{"old_string": "", "new_string": "b"}}}, saved: "bb"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := none()
			if tt.file != nil {
				f = one(p, *tt.file)
			}
			input := js(t, tt.input)
			c, err := Reconstruct(tt.tool, input, "", f.read)
			if err != nil {
				t.Fatalf("Reconstruct: %v", err)
			}
			// Unchanged proposal: the very input comes back.
			same, err := Amend(c, input, bytes.Clone(c.Proposed))
			if err != nil || !bytes.Equal(same, input) {
				t.Fatalf("Amend(unchanged) = %s, %v; want the input", same, err)
			}
			out, err := Amend(c, input, []byte(tt.saved))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("Amend err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("Amend: %v", err)
			}
			// Simulate the CLI on the amended input: it writes saved, byte for byte.
			var file []byte
			if tt.file != nil {
				file = []byte(*tt.file)
			}
			if got := cliRun(t, tt.tool, out, file, tt.file != nil); string(got) != tt.saved {
				t.Fatalf("CLI would write %q, saved %q\ninput %s", got, tt.saved, out)
			}
			// Reconstructing the amended input gives the saved text too.
			c2, err := Reconstruct(tt.tool, out, "", f.read)
			if err != nil || string(c2.Proposed) != tt.saved {
				t.Fatalf("Reconstruct(amended) = %q, %v", c2.Proposed, err)
			}
			var m map[string]any
			if err := json.Unmarshal(out, &m); err != nil {
				t.Fatal(err)
			}
			if m["file_path"] != p {
				t.Errorf("file_path = %v", m["file_path"])
			}
			switch tt.tool {
			case "Edit", "Update":
				if m["replace_all"] != false {
					t.Errorf("replace_all = %v", m["replace_all"])
				}
				if tt.noCR && strings.Contains(m["old_string"].(string)+m["new_string"].(string), "\r") {
					t.Errorf("CRLF file: amended strings carry CR: %s", out)
				}
				if whole := strings.ReplaceAll(derefOr(tt.file), "\r\n", "\n"); whole != "" {
					// The smallest edit: old_string occurs once in the
					// original and is no longer than the whole file.
					old := m["old_string"].(string)
					if strings.Count(whole, old) != 1 || len(old) > len(whole) {
						t.Errorf("old_string = %q in %q", old, whole)
					}
				}
			case "MultiEdit":
				edits := m["edits"].([]any)
				if len(edits) != 1 {
					t.Fatalf("edits = %v", edits)
				}
				if tt.noCR && strings.Contains(edits[0].(map[string]any)["old_string"].(string), "\r") {
					t.Errorf("CRLF file: amended old_string carries CR: %s", out)
				}
			}
		})
	}
}

func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// The amendment recorded with the real CLI 2.1.328 (edit-allow-amended.jsonl)
// sent the whole file; the smallest edit that writes the same bytes is sent
// now.
func TestAmendMatchesRecordedTranscript(t *testing.T) {
	const p = "/home/dev/project/a.txt"
	input := json.RawMessage(`{"file_path":"/home/dev/project/a.txt","old_string":"line two","new_string":"line 2","replace_all":false}`)
	c, err := Reconstruct("Edit", input, "/home/dev/project", one(p, "line one\nline two\n").read)
	if err != nil {
		t.Fatal(err)
	}
	if string(c.Proposed) != "line one\nline 2\n" {
		t.Fatalf("Proposed = %q", c.Proposed)
	}
	out, err := Amend(c, input, []byte("line one\nline 2 (amended by user)\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"file_path":"/home/dev/project/a.txt","old_string":"line two\n","new_string":"line 2 (amended by user)\n","replace_all":false}`
	if string(out) != want {
		t.Fatalf("amended\n got %s\nwant %s", out, want)
	}
}

func TestAmendKeepsOtherKeys(t *testing.T) {
	const p = "/p/a.txt"
	f := one(p, "a\n")
	tests := []struct {
		tool, input, saved, want string
	}{
		{"Edit",
			`{ "future" : {"x": [1, 2.50]}, "file_path":"/p/a.txt",  "old_string" : "a", "new_string":"b" , "z":"<&>" }`,
			"c\n",
			`{ "future" : {"x": [1, 2.50]}, "file_path":"/p/a.txt",  "old_string" : "a\n", "new_string":"c\n" , "z":"<&>" ,"replace_all":false}`},
		{"Edit",
			`{"replace_all":true,"file_path":"/p/a.txt","old_string":"a","new_string":"b","n":1e3}`,
			"<c>\n",
			`{"replace_all":false,"file_path":"/p/a.txt","old_string":"a\n","new_string":"<c>\n","n":1e3}`},
		{"Write",
			`{"file_path":"/p/a.txt","content":"x","extra":null}`,
			"y",
			`{"file_path":"/p/a.txt","content":"y","extra":null}`},
		{"MultiEdit",
			`{"file_path":"/p/a.txt","edits":[{"old_string":"a","new_string":"b","replace_all":false}],"k":"v"}`,
			"q\n",
			`{"file_path":"/p/a.txt","edits":[{"old_string":"a\n","new_string":"q\n"}],"k":"v"}`},
	}
	for _, tt := range tests {
		c, err := Reconstruct(tt.tool, json.RawMessage(tt.input), "", f.read)
		if err != nil {
			t.Fatal(err)
		}
		out, err := Amend(c, json.RawMessage(tt.input), []byte(tt.saved))
		if err != nil {
			t.Fatal(err)
		}
		if string(out) != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.tool, out, tt.want)
		}
	}
}

func TestSetKeys(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{}`, `{"k":1}`},
		{` { } `, ` { "k":1} `},
		{`{"k":0}`, `{"k":1}`},
		{`{"k":0,"k":{"a":"}"}}`, `{"k":1,"k":1}`},
		{`{"a":"k"}`, `{"a":"k","k":1}`},
	}
	for _, tt := range tests {
		got, err := setKeys(json.RawMessage(tt.in), []keyValue{{"k", 1}})
		if err != nil || string(got) != tt.want {
			t.Errorf("setKeys(%s) = %s, %v; want %s", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{``, `[]`, `{"a":1} x`, `{"a"`, `"s"`} {
		if _, err := setKeys(json.RawMessage(bad), []keyValue{{"k", 1}}); err == nil {
			t.Errorf("setKeys(%q) accepted", bad)
		}
	}
}

func TestLoneSurrogateRefused(t *testing.T) {
	const p = "/p/a.txt"
	for _, in := range []string{
		`{"file_path":"/p/a.txt","old_string":"\ud83d","new_string":"x"}`,
		`{"file_path":"/p/a.txt","old_string":"a","new_string":"\ude00"}`,
		`{"file_path":"/p/a.txt","old_string":"a","new_string":"\ud83d\u0041"}`,
	} {
		if _, err := Reconstruct("Edit", json.RawMessage(in), "", one(p, "a \uFFFD \U0001F600").read); err == nil || !strings.Contains(err.Error(), "surrogate") {
			t.Errorf("%s: err = %v", in, err)
		}
	}
	ok := `{"file_path":"/p/a.txt","old_string":"\ud83d\ude00","new_string":"\\ud800"}`
	c, err := Reconstruct("Edit", json.RawMessage(ok), "", one(p, "a \U0001F600").read)
	if err != nil || string(c.Proposed) != `a \ud800` {
		t.Fatalf("paired surrogate: %q, %v", c.Proposed, err)
	}
}

func TestDetectCRLFWindow(t *testing.T) {
	// Only the first 4096 UTF-16 units count, as in the CLI.
	head := strings.Repeat("a\r\n", 1000) // 3000 units, 1000 CRLF
	tail := strings.Repeat("b\n", 3000)
	if !detectCRLF(head + tail) {
		t.Error("CRLF majority in the window not seen")
	}
	// Astral characters count twice.
	if detectCRLF(strings.Repeat("\U0001F600", 2048) + "a\r\n") {
		t.Error("line end beyond the window counted")
	}
	if !detectCRLF(strings.Repeat("\U0001F600", 2046) + "a\r\n") {
		t.Error("line end inside the window missed")
	}
	if detectCRLF("a\r\nb\n") {
		t.Error("a tie is LF")
	}
}

// AppendJSONString encodes like encoding/json (without HTML escaping).
func TestAppendJSONString(t *testing.T) {
	for _, s := range []string{"", "plain", "a\"b\\c", "tab\tnl\ncr\r", "\x00\x01\x1f\x7f", "é ✓ 😀", "\u2028\u2029", "<&>", "bad \xff utf8"} {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		want := strings.TrimSuffix(b.String(), "\n")
		if got := string(AppendJSONString(nil, s)); got != want {
			t.Errorf("%q: got %s want %s", s, got, want)
		}
	}
}

func FuzzAppendJSONString(f *testing.F) {
	f.Add("a\"b\\\n\u2028\x00")
	f.Fuzz(func(t *testing.T, s string) {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(s)
		if got, want := string(AppendJSONString(nil, s)), strings.TrimSuffix(b.String(), "\n"); got != want {
			t.Fatalf("%q: got %s want %s", s, got, want)
		}
	})
}

// The amendment is the smallest edit: a one-line change in a 5,000-line
// file sends that line, not the file.
func TestAmendIsMinimal(t *testing.T) {
	const p = "/p/big.txt"
	var b strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&b, "line %d: some text of the file\n", i)
	}
	orig := b.String()
	input := json.RawMessage(`{"file_path":"/p/big.txt","old_string":"line 100: some","new_string":"LINE 100: some"}`)
	c, err := Reconstruct("Edit", input, "", one(p, orig).read)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line int // the user edits this line too
		max  int // bytes of amended input at most
	}{{102, 400}, {4000, 2 * len(orig)}} {
		saved := strings.Replace(string(c.Proposed), fmt.Sprintf("line %d: some text", tc.line), fmt.Sprintf("line %d: the user's text", tc.line), 1)
		out, err := Amend(c, input, []byte(saved))
		if err != nil {
			t.Fatal(err)
		}
		if got := cliRun(t, "Edit", out, []byte(orig), true); string(got) != saved {
			t.Fatal("the CLI would not write the saved text")
		}
		var m map[string]any
		_ = json.Unmarshal(out, &m)
		if len(out) > tc.max || m["old_string"] == orig {
			t.Fatalf("user edit at %d: amended input is %d bytes (old_string %d bytes) for a %d-byte file", tc.line, len(out), len(m["old_string"].(string)), len(orig))
		}
		t.Logf("user edit at line %d: amended input %d bytes (whole-file: %d)", tc.line, len(out), 2*len(orig)+len(input))
	}
	// A repeated line is widened until it is unique.
	orig = "x\nsame\ny\nsame\nz\n"
	input = json.RawMessage(`{"file_path":"/p/big.txt","old_string":"x\n","new_string":"X\n"}`)
	c, _ = Reconstruct("Edit", input, "", one(p, orig).read)
	out, err := Amend(c, input, []byte("X\nsame\ny\nSAME\nz\n"))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	_ = json.Unmarshal(out, &m)
	if old := m["old_string"].(string); strings.Count(orig, old) != 1 {
		t.Fatalf("old_string %q is not unique", old)
	}
	if got := cliRun(t, "Edit", out, []byte(orig), true); string(got) != "X\nsame\ny\nSAME\nz\n" {
		t.Fatalf("CLI writes %q", got)
	}
}
