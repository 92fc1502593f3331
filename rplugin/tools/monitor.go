package tools

import "github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"

// Monitor: a command (or a websocket) watched in the background; its
// task shows what it reports.

var monitor = Tool{
	Target: func(in Input) string {
		t := in.Str("description")
		if c := in.Str("command"); c != "" {
			return joinDot(t, "`"+sanitize.Truncate(sanitize.Line(c), 60)+"`")
		}
		if ws, ok := in["ws"].(map[string]any); ok {
			if u, _ := ws["url"].(string); u != "" {
				return joinDot(t, u)
			}
		}
		return t
	},
	Details: func(in Input, add func(string, string)) {
		if c := in.Str("command"); c != "" {
			add("$ ", c)
		}
		if t, ok := in.Num("timeout_ms"); ok && t > 0 {
			add("for at most ", Delay(t/1000))
		}
	},
	Quiet: true,
}

// joinDot joins two parts with " · ", either of which may be empty.
func joinDot(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " · " + b
}
