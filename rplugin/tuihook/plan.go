package tuihook

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// claude strips the plan from ExitPlanMode's hook input (tool_input is {}
// on 2.1.328, in PreToolUse too); the plan is in the model's tool_use,
// which the TUI writes to its transcript (transcript_path) about a second
// after the hook starts (checked on 2.1.328), later on a loaded machine
// (over 5 s at a load of 24 on 2 cores). planWait bounds how long the host
// looks for it (it stops as soon as the plan is there); the plan surface
// then falls back to what it knows.
const (
	planWait = 30 * time.Second
	planPoll = 100 * time.Millisecond
	// planTail is how much of the transcript's end is read: the newest
	// ExitPlanMode call is near it.
	planTail = 8 << 20
)

// planCall is one ExitPlanMode call of the transcript.
type planCall struct {
	ID   string
	Plan string
}

// newestPlan is the last ExitPlanMode call of the transcript at path
// (main conversation, not a subagent's) that is not in taken.
func newestPlan(path string, taken map[string]bool) (planCall, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return planCall{}, false, fmt.Errorf("the TUI's transcript: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		return planCall{}, false, fmt.Errorf("the TUI's transcript %q is not a file", path)
	}
	if st.Size() > planTail {
		if _, err := f.Seek(st.Size()-planTail, io.SeekStart); err != nil {
			return planCall{}, false, fmt.Errorf("the TUI's transcript: %w", err)
		}
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	var last planCall
	found := false
	for sc.Scan() {
		line := sc.Bytes()
		if !bytes.Contains(line, []byte(`"ExitPlanMode"`)) {
			continue
		}
		var entry struct {
			Type        string `json:"type"`
			IsSidechain bool   `json:"isSidechain"`
			Message     struct {
				Content []struct {
					Type  string `json:"type"`
					ID    string `json:"id"`
					Name  string `json:"name"`
					Input struct {
						Plan string `json:"plan"`
					} `json:"input"`
				} `json:"content"`
			} `json:"message"`
		}
		if json.Unmarshal(line, &entry) != nil || entry.Type != "assistant" || entry.IsSidechain {
			continue
		}
		for _, b := range entry.Message.Content {
			if b.Type == "tool_use" && b.Name == "ExitPlanMode" && b.ID != "" && !taken[b.ID] {
				last, found = planCall{ID: b.ID, Plan: b.Input.Plan}, true
			}
		}
	}
	if err := sc.Err(); err != nil {
		return planCall{}, false, fmt.Errorf("read the TUI's transcript: %w", err)
	}
	return last, found, nil
}

// waitPlan looks for the newest ExitPlanMode call not taken until one is
// written, gone or done closes, or planWait passed.
func waitPlan(path string, taken map[string]bool, gone, done <-chan struct{}) (planCall, bool) {
	if path == "" {
		return planCall{}, false
	}
	deadline := time.NewTimer(planWait)
	defer deadline.Stop()
	tick := time.NewTicker(planPoll)
	defer tick.Stop()
	for {
		if c, ok, err := newestPlan(path, taken); err == nil && ok {
			return c, true
		}
		select {
		case <-deadline.C:
			return planCall{}, false
		case <-tick.C:
		case <-gone:
			return planCall{}, false
		case <-done:
			return planCall{}, false
		}
	}
}

// planMiss says, for the log, where an ExitPlanMode call was looked for
// and not found: the transcript's size and whether it holds a call now,
// and which other transcripts of its folder written to lately do (claude
// may have written the call to another session's file). Each is read as
// newestPlan reads one (its last planTail bytes).
func planMiss(path string) string {
	has := func(p string) bool {
		_, ok, err := newestPlan(p, nil)
		return err == nil && ok
	}
	size := int64(-1)
	if fi, err := os.Stat(path); err == nil {
		size = fi.Size()
	}
	var others []string
	dir := filepath.Dir(path)
	if ents, err := os.ReadDir(dir); err == nil {
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if p == path || filepath.Ext(p) != ".jsonl" {
				continue
			}
			if fi, err := e.Info(); err != nil || time.Since(fi.ModTime()) > 2*planWait {
				continue
			}
			if has(p) {
				others = append(others, e.Name())
			}
		}
	}
	return fmt.Sprintf("transcript %d bytes, names ExitPlanMode: %v; other transcripts of its folder that do: %v", size, has(path), others)
}
