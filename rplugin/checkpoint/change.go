package checkpoint

import (
	"crypto/sha256"
	"encoding/hex"
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
