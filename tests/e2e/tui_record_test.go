package e2e

import (
	"strings"
	"testing"
	"time"
)

// A proposal the TUI's session applied is recorded as a stream-json
// session's: blame marks Claude's and the amended lines, the review round
// holds the file, and the prompt's changes (its checkpoint) list it.
func TestTUIAppliedProposalIsRecorded(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		f, edit := blameEdit(e)
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, edit, "SEQ")
		e.amendedThenBlamed(id, f)
		var files []roundFile
		e.Eventually(10*time.Second, "the round holds f.txt", func() bool {
			e.Lua(&files, "return require('claudenova.channel.host').request('review_round', { session = ... }).files", id)
			return len(files) == 1 && files[0].Rel == "f.txt"
		})
		var changes struct {
			Files []struct {
				Rel    string `msgpack:"rel"`
				Before string `msgpack:"before"`
			} `msgpack:"files"`
		}
		e.Lua(&changes, "return require('claudenova.channel.host').request('changes', { session = ... })", id)
		if len(changes.Files) != 1 || changes.Files[0].Rel != "f.txt" || changes.Files[0].Before != "one\ntwo\nthree\nfour\nfive\n" {
			t.Fatalf("the prompt's changes %+v", changes)
		}
	})
}

// A command the TUI's session ran (allowed in the editor's panel) is seen
// as a stream-json session's: its files under the prompt, the changes view
// naming the command.
func TestTUICommandsChangesAreSeen(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := tuiEnv(t, v, Options{})
		e.gitRepo(map[string]string{"a.txt": "one\ntwo\n"})
		id, job := e.startTUI()
		// Its window names the session, not the terminal's command line.
		var label string
		e.Lua(&label, "return require('claudenova.setup.labels').of(require('claudenova.frontend.tui').bufs[...])", id)
		if !strings.HasPrefix(label, "Claude's terminal UI · ") {
			t.Errorf("the TUI's window reads %q", label)
		}
		e.typeIntoTUI(id, job, Seq(bash("sed -i 's/two/TWO/' a.txt && echo new > n.txt", "edit a.txt, make n.txt")), "SEQ")
		p := e.WaitPending(1)[0]
		var ok bool
		e.Lua(&ok, "return require('claudenova').decide(..., 'allow')", p.ID)
		e.Eventually(60*time.Second, "the command ran", func() bool { return e.ReadFile("n.txt") == "new\n" })
		var changes struct {
			Files []struct {
				Rel string `msgpack:"rel"`
				By  string `msgpack:"by"`
			} `msgpack:"files"`
		}
		e.Eventually(20*time.Second, "the prompt's changes list the command's files", func() bool {
			e.Lua(&changes, `local ok, v = pcall(require('claudenova.channel.host').request, 'changes', { session = ... })
				return ok and v or { files = {} }`, id)
			return len(changes.Files) == 2
		})
		if changes.Files[0].Rel != "a.txt" || changes.Files[1].Rel != "n.txt" || !strings.HasPrefix(changes.Files[0].By, "sed -i") {
			t.Fatalf("the prompt's changes %+v", changes)
		}
	})
}
