package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// FileChange is one file a turn changed: before the turn and now.
type FileChange struct {
	Path    string `json:"path"`
	Rel     string `json:"rel"`
	Before  string `json:"before"`
	Now     string `json:"now"`
	Sum     string `json:"sum"` // of Now: an undo checks the disk still holds it
	Existed bool   `json:"existed"`
	Exists  bool   `json:"exists"`
	Hunks   []Hunk `json:"hunks"`
	// By is the command that changed the file ("" for a file tool).
	By string `json:"by,omitempty"`
	// Authors names, per hunk, who wrote its lines when it is not the
	// session ("session 2 at 14:02 (“fix greet”)", "you"; "" for its own).
	Authors []string `json:"authors"`
	// Others are the changed lines of Now that someone other than the
	// session wrote, as runs: the front end marks the blocks its own diff
	// shows with them.
	Others []Span `json:"others"`
	Error  string `json:"error,omitempty"`
}

// Span is lines From-To (1-based) of a file, and who wrote them.
type Span struct {
	From int    `json:"from"`
	To   int    `json:"to"`
	Who  string `json:"who"`
}

// With is fc with the file as it is now (exists false: not on disk).
func (fc FileChange) With(now string, exists bool) FileChange {
	fc.Now, fc.Exists = now, exists
	sum := sha256.Sum256([]byte(now))
	fc.Sum = hex.EncodeToString(sum[:])
	fc.Hunks = Hunks(fc.Before, now)
	return fc
}

// WhoWrote names who, other than the session, wrote the lines of block h
// of the file now ("" for the session's own).
func (fc FileChange) WhoWrote(h Hunk) string {
	seen := map[string]bool{}
	var out []string
	for _, o := range fc.Others {
		if o.To >= h.B && o.From <= h.B+h.Ins-1 && !seen[o.Who] {
			seen[o.Who] = true
			out = append(out, o.Who)
		}
	}
	return strings.Join(out, " and ")
}

// Mark is how a prompt's heading names its checkpoint.
func Mark(n int, at time.Time) string {
	return fmt.Sprintf("checkpoint %d · %s", n, at.Format("15:04"))
}
