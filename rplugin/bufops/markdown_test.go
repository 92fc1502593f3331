package bufops

import "testing"

func TestHighlight(t *testing.T) {
	lines := []string{"## Claude", "# Title", "- item with `code` and **bold**", "```lua", "local x = 1", "```", "▸ Bash `ls` ✓ 0.1 s", "  │ $ ls", "*done · 1.0 s · $0.0000*"}
	var st HighlightState
	marks, code := Highlight(lines, &st)
	has := func(line int, group string) bool {
		for _, m := range marks {
			if m.Line == line && m.Group == group {
				return true
			}
		}
		return false
	}
	for _, w := range []struct {
		line  int
		group string
	}{{0, "ClaudeNovaHeading"}, {1, "ClaudeNovaMdHeading"}, {2, "ClaudeNovaListMarker"}, {2, "ClaudeNovaInlineCode"}, {2, "ClaudeNovaBold"},
		{3, "ClaudeNovaFence"}, {4, "ClaudeNovaCode"}, {6, "ClaudeNovaTool"}, {6, "ClaudeNovaOk"}, {7, "ClaudeNovaDetail"}, {8, "ClaudeNovaFooter"}} {
		if !has(w.line, w.group) {
			t.Errorf("line %d %q lacks %s", w.line, lines[w.line], w.group)
		}
	}
	if len(code) != 1 || code[0] != (Code{Line: 4, Count: 1, Lang: "lua"}) {
		t.Fatalf("code %+v", code)
	}
}
