package ahead

import (
	"github.com/claude-nova/claude-nova.nvim/rplugin/approval"
	"github.com/claude-nova/claude-nova.nvim/rplugin/proposal"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// PrepareSize is the size from which the editor is asked to read a file's
// original side while its proposal is staged: a file of megabytes takes
// Neovim about as long to read as the host takes to stage the change (at
// 100k lines, 5 of the 9 ms). Under it the extra call to Neovim costs what
// the overlap saves.
const PrepareSize = 1 << 20

// ReadAhead reads the file a change of request id is reconstructed from
// when claude asks for a change nothing made ahead; a large one the editor
// is asked to read too (ui.EvProposalPrepare) while the host goes on with
// the change, when it will be shown as a proposal.
func ReadAhead(id, tool, review string, send func(string, any)) func(string) ([]byte, error) {
	if tool == "NotebookEdit" || approval.ReviewEdits(review) == approval.ReviewPanel {
		return proposal.ReadFile // a cell, or no proposal: nothing to read ahead
	}
	return readTelling(proposal.ReadFile, send, id, nil)
}

// readTelling reads a file with read and asks the editor to read a large
// one too, under id; told, when given, is set once it was asked.
func readTelling(read func(string) ([]byte, error), send func(string, any), id string, told *bool) func(string) ([]byte, error) {
	return func(path string) ([]byte, error) {
		data, err := read(path)
		if err == nil && len(data) >= PrepareSize {
			send(ui.EvProposalPrepare, map[string]string{"id": id, "path": path})
			if told != nil {
				*told = true
			}
		}
		return data, err
	}
}
