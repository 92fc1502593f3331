package store

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// The folder names claude 2.1.328 chose for these paths (from runs).
func TestKey(t *testing.T) {
	long := "/tmp/cnres6"
	for i := 1; len(long) < 259; i++ {
		long += "/longdirectoryname" + string(rune('0'+i/10)) + string(rune('0'+i%10))
	}
	for _, tc := range []struct{ path, want string }{
		{"/tmp/cnres/my.proj_dir with space/sub", "-tmp-cnres-my-proj-dir-with-space-sub"},
		{"/tmp/cnres6/a.b_c d/é-ü/x", "-tmp-cnres6-a-b-c-d-----x"},
		{"/tmp/cnres6/emoji😀dir", "-tmp-cnres6-emoji--dir"},
		{"/", "-"},
	} {
		if got := Key(tc.path); got != tc.want {
			t.Errorf("Key(%q) = %q, want %q", tc.path, got, tc.want)
		}
	}
	k := Key(long)
	if len(k) <= maxKey || k[maxKey] != '-' || strings.Trim(k[maxKey+1:], "0123456789abcdefghijklmnopqrstuvwxyz") != "" {
		t.Errorf("long key %q: want 200 characters, '-', base36 hash", k)
	}
}

func copyFixture(t *testing.T, dir, name, id string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, id+".jsonl")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSummaries(t *testing.T) {
	dir := t.TempDir()
	copyFixture(t, dir, "basic.jsonl", "aaaaaaaa-0000-0000-0000-000000000001")
	copyFixture(t, dir, "renamed.jsonl", "aaaaaaaa-0000-0000-0000-000000000002")
	copyFixture(t, dir, "compact.jsonl", "aaaaaaaa-0000-0000-0000-000000000003")
	// A file in a format we do not know still lists, by id.
	if err := os.WriteFile(filepath.Join(dir, "bbbbbbbb-0000-0000-0000-000000000004.jsonl"), []byte("not json\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Summary{}
	for _, s := range list {
		got[s.ID[len(s.ID)-1:]] = s
	}
	for _, tc := range []struct {
		id, name, first, last string
		known                 bool
	}{
		{"1", "hello there", "hello there", "", true},
		{"2", "Host Title", "first prompt", "third prompt after resume", true},
		{"3", "fake", "first prompt", "after compact", true},
		{"4", "", "", "", false},
	} {
		s, ok := got[tc.id]
		if !ok {
			t.Fatalf("session %s not listed: %+v", tc.id, list)
		}
		if s.Name() != tc.name || s.FirstPrompt != tc.first || s.Known != tc.known || (tc.last != "" && s.LastPrompt != tc.last) {
			t.Errorf("session %s: %+v, want name %q first %q last %q known %v", tc.id, s, tc.name, tc.first, tc.last, tc.known)
		}
	}
	if list[0].Updated < list[len(list)-1].Updated {
		t.Errorf("not most recent first: %+v", list)
	}
	if l, err := List(filepath.Join(dir, "missing")); err != nil || len(l) != 0 {
		t.Errorf("a missing folder: %v %v", l, err)
	}
}

// A title in the tail of a long file (claude repeats it there) wins.
func TestSummaryReadsTheTail(t *testing.T) {
	dir := t.TempDir()
	p := copyFixture(t, dir, "basic.jsonl", "cccccccc-0000-0000-0000-000000000001")
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	pad := `{"type":"queue-operation","operation":"enqueue","content":"` + strings.Repeat("x", 1000) + `"}` + "\n"
	for i := 0; i < 200; i++ {
		f.WriteString(pad)
	}
	f.Close()
	if err := AppendTitle(p, "cccccccc-0000-0000-0000-000000000001", "Late title"); err != nil {
		t.Fatal(err)
	}
	s, err := Summarize(p)
	if err != nil || s.Title != "Late title" || s.FirstPrompt != "hello there" {
		t.Fatalf("%+v %v", s, err)
	}
}

func TestHistory(t *testing.T) {
	for _, tc := range []struct {
		file string
		want []string
	}{
		{"renamed.jsonl", []string{"prompt:first prompt", "assistant", "prompt:second prompt", "assistant", "prompt:third prompt after resume", "assistant"}},
		{"interrupt.jsonl", []string{"prompt:SEQ", "assistant", "user", "assistant", "user", "assistant", "prompt:SLOW 5000", "note:Interrupted.", "prompt:after interrupt", "assistant"}},
		{"compact.jsonl", []string{"prompt:first prompt", "assistant", "prompt:/rename My Nice Title", "note:Session renamed to: My Nice Title", "prompt:/nosuchcmd foo", "assistant", "note:The conversation was compacted here.", "prompt:/compact", "note:Compacted", "prompt:after compact", "assistant", "prompt:/recap"}},
	} {
		es, err := history(filepath.Join("testdata", tc.file))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range es {
			switch {
			case e.Prompt != "":
				p := e.Prompt
				if strings.HasPrefix(p, "SEQ") {
					p = "SEQ"
				}
				got = append(got, "prompt:"+p)
			case e.Note != "":
				got = append(got, "note:"+e.Note)
			default:
				got = append(got, e.Type)
			}
		}
		if n := len(tc.want); len(got) < n || strings.Join(got[:n], "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s:\n got %q\nwant %q…", tc.file, got, tc.want)
		}
	}
}

// Huge lines (claude's request caches) are skipped, not fatal; a torn last
// line is ignored.
func TestHistoryLongAndTornLines(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`{"type":"user","message":{"role":"user","content":"one"}}` + "\n")
	b.WriteString(`{"type":"api-request-blob","blob":"` + strings.Repeat("y", maxLine+10) + `"}` + "\n")
	b.WriteString(`{"type":"user","message":{"role":"user","content":"two"}}` + "\n")
	b.WriteString(`{"type":"user","message":{"role":"us`)
	es, err := readAll(&b)
	if err != nil || len(es) != 2 || es[0].Prompt != "one" || es[1].Prompt != "two" {
		t.Fatalf("%+v %v", es, err)
	}
}

// A prompt keeps its uuid (the checkpoint id of its turn) and time.
func TestHistoryPromptUUID(t *testing.T) {
	es, err := readAll(strings.NewReader(`{"type":"user","uuid":"2e8f0c1a-0000-4000-8000-000000000001","timestamp":"2026-11-30T20:38:50.464Z","message":{"role":"user","content":"one"}}` + "\n"))
	if err != nil || len(es) != 1 || es[0].UUID != "2e8f0c1a-0000-4000-8000-000000000001" || es[0].Time.Unix() != 1796071130 {
		t.Fatalf("%+v %v", es, err)
	}
}

func TestFind(t *testing.T) {
	cfg := t.TempDir()
	cwd := t.TempDir()
	other := filepath.Join(cfg, "projects", "-elsewhere")
	if err := os.MkdirAll(other, 0o700); err != nil {
		t.Fatal(err)
	}
	copyFixture(t, other, "basic.jsonl", "dddddddd-0000-0000-0000-000000000001")
	if p, err := Find(cfg, cwd, "dddddddd-0000-0000-0000-000000000001"); err != nil || filepath.Dir(p) != other {
		t.Fatalf("found %q %v", p, err)
	}
	for _, id := range []string{"../../etc/passwd", "", "a/b"} {
		if _, err := Find(cfg, cwd, id); err == nil {
			t.Errorf("Find(%q) did not refuse", id)
		}
	}
}

func FuzzReadHistory(f *testing.F) {
	for _, name := range []string{"basic.jsonl", "interrupt.jsonl"} {
		b, _ := os.ReadFile(filepath.Join("testdata", name))
		f.Add(b)
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"text","text":"<command-name>/x</command-name><command-args>"}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		es, _ := readAll(bytes.NewReader(b))
		for _, e := range es {
			if e.Message != nil && e.Type != "assistant" && e.Type != "user" {
				t.Fatalf("message of type %q", e.Type)
			}
		}
		var sc scan
		sc.feed(b, true)
		var s Summary
		sc.fill(&s)
		if strings.Contains(s.Title, "\n") || strings.Contains(s.FirstPrompt, "\n") {
			t.Fatalf("multi-line name %q", s.Title)
		}
	})
}

// A subagent's conversation (a file of its own in the store) comes right
// after the call that started it, each message naming that call; depth 2
// too. The notification that started claude's own turn is an entry.
func TestHistoryWithSubagents(t *testing.T) {
	es, err := history(filepath.Join("testdata", "agents", "29efbea0-9d66-4713-bc7e-bda34cca77d6.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range es {
		switch {
		case e.Prompt != "":
			got = append(got, "prompt")
		case e.Notified != "":
			got = append(got, "notified "+e.Notified+" "+e.Status)
		case e.Message != nil:
			s := e.Type
			if e.Parent != "" {
				s += " in " + e.Parent
			}
			got = append(got, s)
		}
	}
	want := []string{
		"prompt",
		"assistant",                      // the Task call toolu_s0
		"assistant in toolu_s0",          // its Agent call
		"assistant in toolu_ac3057c75_0", // the depth 2 agent's Bash
		"user in toolu_ac3057c75_0",      // its result
		"assistant in toolu_ac3057c75_0", // its text
		"user in toolu_s0",               // the Agent call's result
		"assistant in toolu_s0",          // Bash echo mid
		"user in toolu_s0",               //
		"assistant in toolu_s0",          // its text
		"user",                           // the Task's launch result
		"assistant",                      // all done
		"notified toolu_s0 completed",    //
		"assistant",                      // all done, claude's own turn
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("history:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func history(path string) ([]Entry, error) {
	var es []Entry
	err := History(path, func(e Entry) error { es = append(es, e); return nil })
	return es, err
}

func readAll(r io.Reader) ([]Entry, error) {
	var es []Entry
	err := ReadHistory(r, func(e Entry) error { es = append(es, e); return nil })
	return es, err
}

// A FIFO (or anything but a regular file) named like a session is refused
// at once, never opened for a read that would block: the picker lists the
// other sessions, a resume of it says so.
func TestNonRegularFilesRefused(t *testing.T) {
	dir := t.TempDir()
	copyFixture(t, dir, "basic.jsonl", "aaaaaaaa-0000-0000-0000-000000000001")
	fifo := filepath.Join(dir, "bbbbbbbb-0000-0000-0000-000000000002.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := os.Mkdir(filepath.Join(dir, "cccccccc-0000-0000-0000-000000000003.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	list, err := List(dir)
	if err != nil || len(list) != 1 || list[0].ID != "aaaaaaaa-0000-0000-0000-000000000001" {
		t.Fatalf("List = %+v, %v", list, err)
	}
	if _, err := Summarize(fifo); err == nil {
		t.Fatal("Summarize read a FIFO")
	}
	if _, err := history(fifo); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("History of a FIFO: %v", err)
	}
	if err := AppendTitle(fifo, "x", "y"); err == nil {
		t.Fatal("AppendTitle wrote to a FIFO")
	}
}

// History streams: an error from the callback stops it; a file over the
// cap is read from its end, after a note saying so.
func TestHistoryStreamsWithACap(t *testing.T) {
	stop := errors.New("enough")
	n := 0
	err := History(filepath.Join("testdata", "renamed.jsonl"), func(Entry) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Fatalf("stopped after %d entries: %v", n, err)
	}
	p := filepath.Join(t.TempDir(), "big.jsonl")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	line := func(text string) string {
		return `{"type":"user","message":{"role":"user","content":"` + text + `"}}` + "\n"
	}
	f.WriteString(line("the very first prompt"))
	pad := `{"type":"queue-operation","content":"` + strings.Repeat("x", 1<<20) + `"}` + "\n"
	for written := int64(0); written <= MaxHistory; written += int64(len(pad)) {
		f.WriteString(pad)
	}
	f.WriteString(line("the last prompt"))
	f.Close()
	es, err := history(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || !strings.Contains(es[0].Note, "MiB are not shown") || es[1].Prompt != "the last prompt" {
		t.Fatalf("entries %+v", es)
	}
}
