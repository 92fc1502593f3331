package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"testing"
)

var fuzzTools = []string{"Write", "Edit", "Update", "MultiEdit"}

// FuzzReconstruct feeds random tools, inputs and file contents. Reconstruct
// must never panic and fail only with *Unreconstructable; a success must
// agree with the test's model of the CLI, Amend of the unchanged proposal
// must return the input byte for byte, and Amend of any other saved text
// must either refuse or produce an input with which the CLI writes exactly
// that text.
func FuzzReconstruct(f *testing.F) {
	f.Add(uint8(1), []byte("one\ntwo\n"), true, "two", "2", "", false, []byte(nil), uint8(0), []byte("one\n2 (amended)\n"))
	f.Add(uint8(1), []byte("one\r\ntwo\r\n"), true, "two", "2", "", false, []byte(nil), uint8(0), []byte("one\r\nTWO\r\n"))
	f.Add(uint8(1), []byte("one\r\ntwo"), true, "one\ntwo", "x", "", false, []byte(nil), uint8(0), []byte("x\r\ny"))
	f.Add(uint8(1), []byte("a\nb"), true, "b", "", "", false, []byte(nil), uint8(0), []byte("a"))
	f.Add(uint8(1), []byte("a a a"), true, "a", "bb", "", true, []byte(nil), uint8(0), []byte("bb"))
	f.Add(uint8(1), []byte(nil), false, "", "new\n", "", false, []byte(nil), uint8(0), []byte("new!\n"))
	f.Add(uint8(1), []byte(" \r\n"), true, "", "new\n", "", false, []byte(nil), uint8(0), []byte("\r\n"))
	f.Add(uint8(1), []byte("\ufeffa\n"), true, "a", "b", "", false, []byte(nil), uint8(0), []byte("b\n"))
	f.Add(uint8(0), []byte("old\n"), true, "new\n", "", "", false, []byte(nil), uint8(0), []byte("newer\n"))
	f.Add(uint8(0), []byte("\ufeffold\n"), true, "new\n", "", "", false, []byte(nil), uint8(0), []byte("\ufeffnewer\n"))
	f.Add(uint8(3), []byte("one two x x\n"), true, "one", "uno", "x", true, []byte(nil), uint8(1), []byte("uno y y\n"))
	f.Add(uint8(3), []byte("a\r\nb\nc\r\n"), true, "b", "B", "c", false, []byte(nil), uint8(1), []byte("\n"))
	f.Add(uint8(2), []byte("x"), true, "", "", "", false, []byte(`{"file_path":"/p/a.txt","old_string":"x","new_string":"\ud83d\ude00","replace_all":null,"k":[1]}`), uint8(3), []byte("y"))
	f.Add(uint8(3), []byte("x"), true, "", "", "", false, []byte(`{"file_path":"a.txt","edits":[{"old_string":"x","new_string":"y"},{"old_string":"y","new_string":"z"}]}`), uint8(3), []byte("y"))
	f.Add(uint8(1), []byte("a\x00b"), true, "a", "b", "", false, []byte(nil), uint8(0), []byte(""))
	f.Add(uint8(1), []byte("caf\xe9"), true, "caf", "b", "", false, []byte(nil), uint8(0), []byte(""))

	f.Fuzz(func(t *testing.T, toolN uint8, file []byte, exists bool, a, b, c string, replaceAll bool, raw []byte, mode uint8, saved []byte) {
		const p = "/p/a.txt"
		// Results of many megabytes (replace_all of a long new_string over a
		// long file) are covered by the unit tests; here they only slow the
		// search down.
		if n := int64(len(file) + len(raw) + len(a)); n*int64(len(b)+len(c)+1) > 4<<20 {
			return
		}
		tool := fuzzTools[int(toolN)%len(fuzzTools)]
		var input json.RawMessage
		built := mode%4 != 3
		switch {
		case !built:
			input = raw
		case tool == "Write":
			input = js(t, obj{"file_path": p, "content": a})
		case tool == "MultiEdit" && mode%4 == 1:
			input = js(t, obj{"file_path": p, "edits": []obj{
				{"old_string": a, "new_string": b, "replace_all": replaceAll},
				{"old_string": b, "new_string": c},
			}})
		case tool == "MultiEdit":
			input = js(t, obj{"file_path": p, "edits": []obj{{"old_string": a, "new_string": b, "replace_all": replaceAll}}})
		default:
			input = js(t, obj{"file_path": p, "old_string": a, "new_string": b, "replace_all": replaceAll})
		}
		read := func(string) ([]byte, error) {
			if !exists {
				return nil, os.ErrNotExist
			}
			return file, nil
		}
		ch, err := Reconstruct(tool, input, "/p", read)
		if err != nil {
			var u *Unreconstructable
			if !errors.As(err, &u) || u.Reason == "" {
				t.Fatalf("error %v (%T) is not an *Unreconstructable with a reason", err, err)
			}
			return
		}
		if len(ch.Proposed) > MaxFileSize || ch.Exists != exists || (exists && !bytes.Equal(ch.Original, file)) {
			t.Fatalf("bad change %+v", ch)
		}
		if built && ch.Path == p {
			var orig []byte
			if exists {
				orig = file
			}
			if got := cliRun(t, tool, input, orig, exists); !bytes.Equal(got, ch.Proposed) {
				t.Fatalf("CLI model writes %q, Reconstruct says %q", got, ch.Proposed)
			}
		}
		// Unchanged: the input itself comes back.
		same, err := Amend(ch, input, bytes.Clone(ch.Proposed))
		if err != nil || !bytes.Equal(same, input) {
			t.Fatalf("Amend(Proposed) = %s, %v; want the input %s", same, err, input)
		}
		// Changed: refused, or exact.
		out, err := Amend(ch, input, saved)
		if err != nil {
			var u *Unreconstructable
			if !errors.As(err, &u) && !errors.Is(err, ErrNoChange) {
				t.Fatalf("Amend error %v (%T)", err, err)
			}
			return
		}
		if bytes.Equal(saved, ch.Proposed) {
			return
		}
		var orig []byte
		if exists {
			orig = file
		}
		if got := cliRun(t, tool, out, orig, exists); !bytes.Equal(got, saved) {
			t.Fatalf("CLI would write %q for saved %q\ninput %s", got, saved, out)
		}
		again, err := Reconstruct(tool, out, "/p", read)
		if err != nil || !bytes.Equal(again.Proposed, saved) {
			t.Fatalf("Reconstruct(amended) = %q, %v; want %q", again.Proposed, err, saved)
		}
		// Every key of the input is still there.
		var before, after map[string]json.RawMessage
		if json.Unmarshal(input, &before) != nil || json.Unmarshal(out, &after) != nil {
			t.Fatalf("amended input is not an object: %s", out)
		}
		for k, v := range before {
			w, ok := after[k]
			if !ok {
				t.Fatalf("key %q lost: %s", k, out)
			}
			switch k {
			case "content", "old_string", "new_string", "replace_all", "edits":
			default:
				if !bytes.Equal(v, w) {
					t.Fatalf("key %q changed: %s -> %s", k, v, w)
				}
			}
		}
	})
}
