package transcript

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
	"github.com/claude-nova/claude-nova.nvim/rplugin/window"
	"github.com/claude-nova/claude-nova.nvim/rplugin/world"
)

// Streams recorded from the window's claude versions (testdata/versions:
// one flow of Read, Edit, Bash, a subagent and a question, through
// tests/cmd/capture, paths rewritten): the plugin reads each the same way,
// and stays whole when messages and fields are added, removed or
// reordered, as the next release may do.

// streamLines are the lines claude wrote in a recorded stream.
func streamLines(t testing.TB, path string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var out []string
	for sc.Scan() {
		if l, ok := strings.CutPrefix(sc.Text(), "<< "); ok {
			out = append(out, l)
		}
	}
	return out
}

// consume reads lines as the host does (decode once, then the transcript,
// the tasks, the world, the tool results) and applies the transcript's ops
// as the front end does; it fails when an op does not fit the buffer or
// the buffer differs from the transcript. Lines that are not messages are
// skipped, as the reader skips them.
func consume(lines []string) (*Transcript, error) {
	tr, ts, w := newTestTranscript("/home/dev/project"), tasks.NewTasks(1), world.NewWorld()
	var buf []string
	apply := func(ops []Op) error {
		for _, op := range ops {
			if op.Op != "set" || op.Index < 0 || op.Count < 0 || op.Index+op.Count > len(buf) {
				return fmt.Errorf("bad op %+v on %d lines", op, len(buf))
			}
			rest := append(append([]string(nil), op.Lines...), buf[op.Index+op.Count:]...)
			buf = append(buf[:op.Index], rest...)
		}
		return nil
	}
	if err := apply(tr.Prompt("(prompt)")); err != nil {
		return nil, err
	}
	for _, l := range lines {
		m, err := claude.ParseLine([]byte(l))
		if err != nil {
			continue
		}
		_ = claude.ToolResultsOf(m).Results
		_ = window.VersionIn(m.Raw)
		switch {
		case tasks.IsTaskMessage(m):
			ch := ts.Apply(m)
			for _, task := range ch.Tasks {
				if err := apply(tr.TaskChanged(task)); err != nil {
					return nil, err
				}
			}
			for _, task := range ch.Notified {
				if err := apply(tr.Notified(task.ToolUseID, task.Status)); err != nil {
					return nil, err
				}
			}
			continue
		case m.Type == "system" && m.Subtype == "init":
			w.FromInit(m.System.Init)
		case m.Type == "result":
			if err := apply(tr.Result(m, false)); err != nil {
				return nil, err
			}
			continue
		}
		if err := apply(tr.Apply(m)); err != nil {
			return nil, err
		}
	}
	if got, want := strings.Join(buf, "\n"), strings.Join(tr.Lines(), "\n"); got != want {
		return nil, fmt.Errorf("replayed ops differ from the transcript:\n%s\n---\n%s", got, want)
	}
	return tr, nil
}

func versionStreams(t testing.TB) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", "versions", "*.jsonl"))
	if err != nil || len(files) < 3 {
		t.Fatalf("recorded streams: %v %v", files, err)
	}
	return files
}

// Every version's stream reads as the same transcript: each call on its
// line with its outcome, the subagent's call beneath its Task.
func TestVersionStreamsReadAlike(t *testing.T) {
	for _, f := range versionStreams(t) {
		t.Run(filepath.Base(f), func(t *testing.T) {
			lines := streamLines(t, f)
			tr, err := consume(lines)
			if err != nil {
				t.Fatal(err)
			}
			text := strings.Join(tr.Lines(), "\n")
			for _, want := range []string{"▸ Read a.txt ✓", "▸ Edit a.txt ✓", "▸ Bash `ls -la` ✓", "▸ Task probe sub", "▸ AskUserQuestion"} {
				if !strings.Contains(text, want) {
					t.Errorf("transcript lacks %q:\n%s", want, text)
				}
			}
			// Since 2.1.300 the results say what let each call run.
			meta := 0
			for _, l := range lines {
				m, err := claude.ParseLine([]byte(l))
				if err != nil {
					continue
				}
				for _, r := range claude.ToolResultsOf(m).Results {
					if r.Decision.Decision != "" {
						meta++
					}
				}
			}
			if meta == 0 {
				t.Error("no tool_result_meta read")
			}
		})
	}
}

// mutations of a stream, as another release might send it.
func mutations(lines []string) map[string][]string {
	out := map[string][]string{}
	var added, typed, stripped, swapped, dropped []string
	for i, l := range lines {
		var m map[string]json.RawMessage
		if json.Unmarshal([]byte(l), &m) != nil {
			continue
		}
		// A field no release has sent yet, and an unknown message type
		// between every two.
		m["zz_new_field"] = json.RawMessage(`{"nested":[1,2,3]}`)
		b, _ := json.Marshal(m)
		added = append(added, string(b))
		typed = append(typed, l, fmt.Sprintf(`{"type":"future_%d","payload":{"x":%d}}`, i%3, i))
		// Every field but type and subtype gone from one message in five.
		if i%5 == 0 {
			lean := map[string]json.RawMessage{"type": m["type"]}
			if st, ok := m["subtype"]; ok {
				lean["subtype"] = st
			}
			b, _ = json.Marshal(lean)
			stripped = append(stripped, string(b))
		} else {
			stripped = append(stripped, l)
		}
		// One message in seven lost.
		if i%7 != 3 {
			dropped = append(dropped, l)
		}
	}
	swapped = append(swapped, lines...)
	for i := 1; i+1 < len(swapped); i += 4 {
		swapped[i], swapped[i+1] = swapped[i+1], swapped[i]
	}
	out["fields added"], out["types added"], out["fields removed"], out["reordered"], out["messages lost"] = added, typed, stripped, swapped, dropped
	return out
}

// Whatever another release adds, removes or reorders, the transcript stays
// whole and nothing panics.
func TestVersionStreamsMutated(t *testing.T) {
	for _, f := range versionStreams(t) {
		for name, lines := range mutations(streamLines(t, f)) {
			t.Run(filepath.Base(f)+"/"+name, func(t *testing.T) {
				if _, err := consume(lines); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}

// FuzzVersionStreams feeds the consumers streams grown from the recorded
// ones: go test -fuzz FuzzVersionStreams ./rplugin/transcript/
func FuzzVersionStreams(f *testing.F) {
	// Windows of a few messages: the fuzzer minimizes what it finds, which
	// on a whole 45 kB stream takes longer than it fuzzes.
	for _, file := range versionStreams(f) {
		lines := streamLines(f, file)
		for i := 0; i < len(lines); i += 6 {
			f.Add([]byte(strings.Join(lines[i:min(i+10, len(lines))], "\n")))
		}
	}
	f.Fuzz(func(t *testing.T, stream []byte) {
		if len(stream) > 64<<10 {
			return
		}
		if _, err := consume(strings.Split(string(stream), "\n")); err != nil {
			t.Fatal(err)
		}
	})
}
