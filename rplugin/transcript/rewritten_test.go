package transcript

import (
	"strings"
	"testing"
)

// tool_result_meta[].rewritten_by_plugin (2.1.332's schema: a plugin's
// session.append hook changed the tool_result after the tool made it; not
// produced on the wire here, the line follows the schema): the call's line
// says so, and draws nothing from tool_use_result, which is still the
// tool's own.
func TestResultRewrittenByPlugin(t *testing.T) {
	for _, c := range []struct {
		name, meta string
		want, not  string
	}{
		{"rewritten", `,"tool_result_meta":[{"id":"t1","rewritten_by_plugin":true}]`, "▸ Bash `ls` · result changed by a plugin ✓", ""},
		{"as the tool made it", `,"tool_result_meta":[{"id":"t1"}]`, "▸ Bash `ls` ✓", "changed by a plugin"},
		{"an older claude", ``, "▸ Bash `ls` ✓", "changed by a plugin"},
	} {
		t.Run(c.name, func(t *testing.T) {
			tr := newTestTranscript("/p")
			var buf []string
			buf = replay(t, buf, tr.Prompt("go"))
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"assistant","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"ls"}}]}}`)))
			buf = replay(t, buf, tr.Apply(msg(t, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"a.txt (b.txt hidden by a plugin)"}]}`+c.meta+`}`)))
			text := strings.Join(buf, "\n")
			if !strings.Contains(text, c.want) || (c.not != "" && strings.Contains(text, c.not)) {
				t.Fatalf("want %q (and no %q):\n%s", c.want, c.not, text)
			}
		})
	}
}
