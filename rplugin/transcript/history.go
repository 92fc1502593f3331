package transcript

import "github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"

// BeginHistory starts the earlier conversation of a resumed session (read
// from claude's session store): its headings say "earlier" and its tool
// calls carry no times, until EndHistory.
func (t *Transcript) BeginHistory(claudeID string) []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	ops := t.note("Earlier in this session (" + sanitize.Line(claudeID) + "), from claude's session store:")
	t.history = true
	t.speaker = ""
	return ops
}

// EndHistory marks where the live conversation starts.
func (t *Transcript) EndHistory() []Op {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.history = false
	return t.note("End of the earlier conversation: live from here.")
}
