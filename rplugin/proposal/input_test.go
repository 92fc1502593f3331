package proposal

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// A file change's input read from its one decode is what the strict read
// of its bytes gives, error words included.
func FuzzParseInputMatchesRaw(f *testing.F) {
	for _, s := range []string{
		`{"file_path":"/a","content":"x"}`,
		`{"file_path":"/a","content":null}`,
		`{"file_path":"/a","old_string":"a","new_string":"b","replace_all":true}`,
		`{"file_path":"/a","old_string":"a","new_string":"b","replace_all":"yes"}`,
		`{"file_path":"/a","edits":[{"old_string":"a","new_string":"b"},null]}`,
		`{"file_path":"/a","edits":[]}`,
		`{"file_path":"/a","content":"\ud800"}`,
		`{"file_path":"/a","content":"\ufffd"}`,
		"{\"file_path\":\"/a\",\"content\":\"\xff\"}",
		`[1]`,
	} {
		for _, tool := range []string{"Write", "Edit", "MultiEdit"} {
			f.Add(tool, s)
		}
	}
	f.Fuzz(func(t *testing.T, tool, raw string) {
		switch tool {
		case "Write", "Edit", "Update", "MultiEdit":
		default:
			return
		}
		got, gerr := parseInput(tool, toolcall.Decode(json.RawMessage(raw)))
		want, werr := parseRaw(tool, json.RawMessage(raw))
		if (gerr == nil) != (werr == nil) || (gerr != nil && gerr.Error() != werr.Error()) {
			t.Fatalf("%s %s: error %v, strictly %v", tool, raw, gerr, werr)
		}
		if gerr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%s %s:\n got %+v\nwant %+v", tool, raw, got, want)
		}
	})
}
