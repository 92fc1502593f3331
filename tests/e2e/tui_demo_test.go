package e2e

import (
	"strings"
	"testing"
	"time"
)

// make demo's TUI step (:DemoTUI), at 80 and 200 columns: claude's own
// terminal UI with no dialog of its own to pass first (the demo's HOME
// trusts the project); its new file is a proposal (:w writes it), its
// command is in the panel (allowed, it runs); the TUI closes with the
// step's words.
func TestDemoTUIStep(t *testing.T) {
	for _, cols := range []int{80, 200} {
		t.Run(itoa(cols), func(t *testing.T) {
			eachNvim(t, func(t *testing.T, v nvimVersion) {
				e, _ := demoEnv(t, v)
				e.AttachUI(cols, 40)
				e.Cmd("DemoTUI")
				var id int
				e.Eventually(30*time.Second, "the TUI session", func() bool {
					e.Lua(&id, "return require('claudenova.frontend.tui').latest() or 0")
					return id != 0
				})
				t.Cleanup(func() { t.Logf("the TUI at %d columns:\n%s", cols, e.tuiScreen(id)) })
				p, buf := e.WaitProposal()
				if p.Target != "notes/tui.md" || p.Session != id {
					t.Fatalf("the proposal %+v", p)
				}
				focusBuf(e, buf)
				e.Cmd("write")
				e.Eventually(20*time.Second, "notes/tui.md written", func() bool { return e.fileExists("notes/tui.md") })
				b := e.waitPanel()
				if b.Tool != "Bash" || b.Session != id {
					t.Fatalf("the command %+v", b)
				}
				if ok, why := e.decideAPI(b.ID, "allow"); !ok {
					t.Fatalf("allow: %s", why)
				}
				e.Eventually(30*time.Second, "the command ran, the TUI says the step's last words", func() bool {
					return e.fileExists("notes/tui-listing.txt") && strings.Contains(e.tuiScreen(id), "That was claude's own terminal UI")
				})
				// Named for a person, not by its first prompt (the scripted
				// model's steps, "SEQ [[…"), which came after the name.
				var name string
				e.Lua(&name, "return require('claudenova.store.state').label(...)", id)
				if name != itoa(id)+" · the TUI tour" {
					t.Errorf("the TUI session is %q", name)
				}
			})
		})
	}
}
