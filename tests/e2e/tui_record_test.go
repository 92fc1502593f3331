package e2e

import (
	"testing"
	"time"
)

// A proposal the TUI's session applied is recorded as a stream-json
// session's: blame marks Claude's and the amended lines, the review round
// holds the file, and the prompt's changes (its checkpoint) list it.
func TestTUIAppliedProposalIsRecorded(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.trustForTUI()
		f := e.WriteFile("f.txt", "one\ntwo\nthree\nfour\nfive\n")
		id, job := e.startTUI()
		e.typeIntoTUI(id, job, Seq(Step("Read", map[string]any{"file_path": f}),
			Step("Edit", map[string]any{"file_path": f, "old_string": "two\nthree", "new_string": "TWO\nTHREE"})), "SEQ")
		_, buf := e.WaitProposal()
		e.SetLineAndWrite(buf, 3, "THREE, amended")
		if r := e.WaitToolResult("toolu_s1"); r.IsError {
			t.Fatalf("tool result %+v", r)
		}
		e.WaitIdle(id)
		if got := e.ReadFile("f.txt"); got != "one\nTWO\nTHREE, amended\nfour\nfive\n" {
			t.Fatalf("f.txt = %q", got)
		}
		e.Cmd("tabnew " + f)
		e.Cmd("ClaudeNova blame")
		e.waitBlame(0, "ycayy")
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
