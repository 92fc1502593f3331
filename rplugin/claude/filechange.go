package claude

import (
	"bytes"
	"encoding/json"
	"path/filepath"
)

// FileChangeOf reads, from a message's structured tool result, the file a
// Write, Edit or NotebookEdit changed (a relative path is of cwd) and its
// content before (nil: a new file).
func FileChangeOf(tr ToolResults, cwd string) (path string, orig *string, ok bool) {
	if !bytes.Contains(tr.Structured, []byte(`"originalFile"`)) && !bytes.Contains(tr.Structured, []byte(`"original_file"`)) {
		return "", nil, false
	}
	var r struct {
		FilePath     string          `json:"filePath"`
		OriginalFile json.RawMessage `json:"originalFile"`
		NotebookPath string          `json:"notebook_path"`
		NotebookOrig json.RawMessage `json:"original_file"`
		Error        string          `json:"error"`
	}
	if json.Unmarshal(tr.Structured, &r) != nil {
		return "", nil, false
	}
	if r.FilePath == "" && r.NotebookPath != "" && r.Error == "" {
		r.FilePath, r.OriginalFile = r.NotebookPath, r.NotebookOrig
	}
	if r.FilePath == "" || len(r.OriginalFile) == 0 {
		return "", nil, false
	}
	if string(r.OriginalFile) != "null" {
		var text string
		if json.Unmarshal(r.OriginalFile, &text) != nil {
			return "", nil, false
		}
		orig = &text
	}
	path = r.FilePath
	if !filepath.IsAbs(path) {
		path = filepath.Join(cwd, path)
	}
	return filepath.Clean(path), orig, true
}
