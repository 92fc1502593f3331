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
