// Package store reads claude's own session store: one JSON-lines file per
// session, <config>/projects/<key>/<id>.jsonl (config is claude.Home.Dir:
// $CLAUDE_CONFIG_DIR, or ~/.claude),
// where key is the folder's real path with every character that is not a
// letter or digit replaced by '-'. The format is claude's, not ours (checked
// on 2.1.328): lines we do not know are skipped, a torn last line (claude is
// writing) is ignored, and a file we cannot make sense of still lists by id.
package store

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf16"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// maxKey is where claude cuts a long key (and appends a hash).
const maxKey = 200

// Key is the name of the folder holding the sessions of path (a real path).
func Key(path string) string {
	units := utf16.Encode([]rune(path))
	var b strings.Builder
	for _, c := range units {
		if c < 128 && (c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			b.WriteByte(byte(c))
		} else {
			b.WriteByte('-')
		}
	}
	key := b.String()
	if len(key) <= maxKey {
		return key
	}
	var h int32
	for _, c := range units {
		h = h*31 + int32(c)
	}
	n := int64(h)
	if n < 0 {
		n = -n
	}
	return key[:maxKey] + "-" + strconv.FormatInt(n, 36)
}

// Dir is the folder of cwd's sessions.
func Dir(configDir, cwd string) string {
	if real, err := filepath.EvalSymlinks(cwd); err == nil {
		cwd = real
	}
	return filepath.Join(configDir, "projects", Key(cwd))
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

// ValidID reports whether id can name a session file.
func ValidID(id string) bool { return idRE.MatchString(id) }

// Find returns the file of session id: in cwd's folder, else in any
// project's (claude resumes a session from any folder).
func Find(configDir, cwd, id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("%q is not a session id", id)
	}
	p := filepath.Join(Dir(configDir, cwd), id+".jsonl")
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	matches, _ := filepath.Glob(filepath.Join(configDir, "projects", "*", id+".jsonl"))
	if len(matches) > 0 {
		return matches[0], nil
	}
	return "", fmt.Errorf("session %s is not in claude's session store", id)
}

// Summary describes one stored session for a picker.
type Summary struct {
	ID          string    `json:"id"`
	Cwd         string    `json:"cwd,omitempty"`
	Start       time.Time `json:"-"`
	End         time.Time `json:"-"`
	Updated     int64     `json:"updated"` // unix seconds
	Title       string    `json:"title,omitempty"`
	FirstPrompt string    `json:"first_prompt,omitempty"`
	LastPrompt  string    `json:"last_prompt,omitempty"`
	// Known is false when nothing in the file was recognised: the session
	// lists by its id only.
	Known bool `json:"known"`
}

// Name is how the session is called: its title, else its first prompt.
func (s Summary) Name() string {
	if s.Title != "" {
		return s.Title
	}
	return s.FirstPrompt
}

// window is how much of each end of a file List reads (claude's own picker
// reads 64 KiB of each end too: titles are repeated near the end).
const window = 64 << 10

// List summarises the sessions in dir, most recently updated first. A
// missing folder is an empty list.
func List(dir string) ([]Summary, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read claude's session store: %w", err)
	}
	var out []Summary
	for _, e := range entries {
		name := e.Name()
		if e.IsDir() || !strings.HasSuffix(name, ".jsonl") || !ValidID(strings.TrimSuffix(name, ".jsonl")) ||
			(!e.Type().IsRegular() && e.Type()&os.ModeSymlink == 0) {
			continue
		}
		s, err := Summarize(filepath.Join(dir, name))
		if err != nil {
			continue
		}
		out = append(out, s)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated > out[j].Updated })
	return out, nil
}

// openRegular opens a store file for reading, and only a regular file: a
// FIFO or device named like a session (which would block the reader
// forever, or never end) is refused, and opening never waits for one.
func openRegular(path string) (*os.File, os.FileInfo, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil || !st.Mode().IsRegular() {
		f.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", path)
	}
	return f, st, nil
}

// Summarize reads the head and tail of one session file.
func Summarize(path string) (Summary, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return Summary{}, err
	}
	defer f.Close()
	s := Summary{ID: strings.TrimSuffix(filepath.Base(path), ".jsonl"), Updated: st.ModTime().Unix()}
	head := make([]byte, min(st.Size(), window))
	// The file may change while it is read (a resumed claude writes to
	// it): what could be read is summarized.
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	tail := head
	if st.Size() > window {
		tail = make([]byte, window)
		if _, err := f.ReadAt(tail, st.Size()-window); err != nil {
			tail = nil
		}
	}
	var sc scan
	sc.feed(head, true)
	if st.Size() > window {
		// The first line of the tail is most likely cut: skip it.
		if i := bytes.IndexByte(tail, '\n'); i >= 0 {
			sc.feed(tail[i+1:], false)
		}
	}
	sc.fill(&s)
	if sc.custom == "" {
		if b, err := readSmall(filepath.Join(filepath.Dir(path), s.ID, "custom-title.json")); err == nil {
			var ct struct {
				CustomTitle string `json:"customTitle"`
			}
			if json.Unmarshal(b, &ct) == nil && ct.CustomTitle != "" {
				s.Title, s.Known = oneLine(ct.CustomTitle), true
			}
		}
	}
	return s, nil
}

// line is the part of a store line that summaries and history read.
type line struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	Timestamp        string          `json:"timestamp"`
	Cwd              string          `json:"cwd"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	CustomTitle      string          `json:"customTitle"`
	AITitle          string          `json:"aiTitle"`
	Summary          string          `json:"summary"`
	LastPrompt       string          `json:"lastPrompt"`
	Content          json.RawMessage `json:"content"`
	Message          struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
	Origin struct {
		Kind string `json:"kind"`
	} `json:"origin"`
}

type scan struct {
	known                    bool
	cwd, custom, ai, summary string
	firstPrompt, lastPrompt  string
	start, end               time.Time
}

func (sc *scan) feed(b []byte, head bool) {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		raw := b
		if i >= 0 {
			raw, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		var l line
		if len(bytes.TrimSpace(raw)) == 0 || json.Unmarshal(raw, &l) != nil || l.Type == "" {
			continue
		}
		sc.known = true
		if t, err := time.Parse(time.RFC3339Nano, l.Timestamp); err == nil {
			if sc.start.IsZero() {
				sc.start = t
			}
			sc.end = t
		}
		if l.IsSidechain {
			continue
		}
		if sc.cwd == "" {
			sc.cwd = l.Cwd
		}
		switch l.Type {
		case "custom-title":
			sc.custom = l.CustomTitle
		case "ai-title":
			sc.ai = l.AITitle
		case "summary":
			sc.summary = l.Summary
		case "last-prompt":
			sc.lastPrompt = l.LastPrompt
		case "user":
			if head && sc.firstPrompt == "" {
				sc.firstPrompt = promptOf(l)
			}
		}
	}
}

func (sc *scan) fill(s *Summary) {
	s.Known = sc.known
	s.Cwd = sc.cwd
	s.Start, s.End = sc.start, sc.end
	if !sc.end.IsZero() {
		s.Updated = sc.end.Unix()
	}
	for _, t := range []string{sc.custom, sc.ai, sc.summary} {
		if t != "" {
			s.Title = oneLine(t)
			break
		}
	}
	s.FirstPrompt = oneLine(sc.firstPrompt)
	s.LastPrompt = oneLine(sc.lastPrompt)
}

var commandRE = regexp.MustCompile(`(?s)<command-name>(.*?)</command-name>.*?<command-args>(.*?)</command-args>`)

// promptOf is the text a user line shows as a prompt ("" when it is not
// one: tool results, meta lines, command output, an interrupt marker).
func promptOf(l line) string {
	if l.Type != "user" || l.IsMeta || l.IsCompactSummary || l.IsSidechain {
		return ""
	}
	text, ok := textOf(l.Message.Content)
	if !ok {
		return ""
	}
	text = strings.TrimSpace(text)
	if strings.HasPrefix(text, "<command-") {
		if m := commandRE.FindStringSubmatch(text); m != nil {
			return strings.TrimSpace(m[1] + " " + strings.TrimSpace(m[2]))
		}
		return ""
	}
	if strings.HasPrefix(text, "<") || strings.HasPrefix(text, "[Request interrupted") {
		return ""
	}
	return text
}

// textOf is the text of a message content: a string, or its text blocks
// (false when it holds anything else, such as tool results).
func textOf(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil || len(blocks) == 0 {
		return "", false
	}
	var parts []string
	for _, b := range blocks {
		if b.Type != "text" {
			return "", false
		}
		parts = append(parts, b.Text)
	}
	return strings.Join(parts, "\n"), true
}

// maxName bounds a title or prompt in a summary.
const maxName = 120

func oneLine(s string) string { return sanitize.FirstLine(s, maxName) }

// Entry is one step of a stored conversation, in file order.
type Entry struct {
	// Prompt is set for a prompt the user typed (or a slash command).
	Prompt string
	// UUID and Time of a prompt: claude keys the file checkpoint of the
	// turn it started by the uuid (it survives a resume).
	UUID string
	Time time.Time
	// Note is set for what is neither: command output, a compaction, an
	// interrupt.
	Note string
	// Message is an assistant line or a user line of tool results, in the
	// shape claude prints them on stdout.
	Message json.RawMessage
	// Type is "assistant" or "user" for a Message.
	Type string
	// Parent is set on a subagent's Message: the tool_use_id of the call
	// (Task, Agent) that started the subagent.
	Parent string
	// Notified is set for the notification that a task ended (claude's
	// own turn follows it): the tool_use_id of the call that started the
	// task, and how it ended (Status: completed, failed, stopped).
	Notified, Status string
}

// maxLine bounds one line of the store read for history (claude's request
// caches can be large; they are skipped).
const maxLine = 16 << 20

// MaxHistory is how much of a session file History reads: the
// conversation of a larger file is read from its last MaxHistory bytes
// (the most recent part; nothing is held whole in memory either way). A
// subagent's file is read the same way.
const MaxHistory = 64 << 20

// History streams the conversation of a session file to fn, in file
// order, with the work of its subagents (claude keeps each in
// <id>/subagents/agent-<agent>.jsonl, the call that started it in a
// .meta.json beside it) right after the call that started each. An error
// from fn stops it. Of a file larger than MaxHistory only the end is read,
// and the first entry is a note that says so; a subagent's file that
// cannot be read is left out.
func History(path string, fn func(Entry) error) error {
	subs := subagents(filepath.Join(strings.TrimSuffix(path, ".jsonl"), "subagents"))
	seen := map[string]bool{}
	var emit func(e Entry) error
	emit = func(e Entry) error {
		if err := fn(e); err != nil {
			return err
		}
		if e.Type != "assistant" || len(subs) == 0 {
			return nil
		}
		for _, id := range toolUseIDs(e.Message) {
			file, ok := subs[id]
			if !ok || seen[id] {
				continue
			}
			seen[id] = true
			err := readFile(file, true, func(se Entry) error {
				if se.Message != nil {
					se.Parent = id
				}
				return emit(se)
			})
			var fe fnError
			if errors.As(err, &fe) {
				return fe.err
			}
		}
		return nil
	}
	err := readFile(path, false, emit)
	var fe fnError
	if errors.As(err, &fe) {
		return fe.err
	}
	return err
}

// fnError carries an error of the caller's fn through the readers (to tell
// it from an error reading the store).
type fnError struct{ err error }

func (e fnError) Error() string { return e.err.Error() }

// readFile streams the conversation of one store file (see History);
// sidechain reads a subagent's, whose lines are all marked isSidechain.
func readFile(path string, sidechain bool, fn func(Entry) error) error {
	f, st, err := openRegular(path)
	if err != nil {
		return fmt.Errorf("read session history: %w", err)
	}
	defer f.Close()
	var r io.Reader = f
	if st.Size() > MaxHistory {
		skipped := st.Size() - MaxHistory
		if _, err := f.Seek(skipped, io.SeekStart); err != nil {
			return fmt.Errorf("read session history: %w", err)
		}
		note := fmt.Sprintf("The earlier conversation is long: its first %d MiB are not shown.", (skipped+(1<<20)-1)>>20)
		if err := fn(Entry{Note: note}); err != nil {
			return fnError{err}
		}
		br := bufio.NewReaderSize(f, 64<<10)
		// The first line is most likely cut: skip to the next one.
		_, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			_, err = br.ReadSlice('\n')
		}
		if err != nil {
			return nil
		}
		r = br
	}
	return readEntries(io.LimitReader(r, MaxHistory), sidechain, fn)
}

// subagents finds the conversations of a session's subagents: their files
// by the tool_use_id of the call that started each. What cannot be read is
// left out.
func subagents(dir string) map[string]string {
	metas, _ := filepath.Glob(filepath.Join(dir, "agent-*.meta.json"))
	out := map[string]string{}
	for _, m := range metas {
		b, err := readSmall(m)
		if err != nil {
			continue
		}
		var meta struct {
			ToolUseID string `json:"toolUseId"`
		}
		if json.Unmarshal(b, &meta) != nil || meta.ToolUseID == "" {
			continue
		}
		out[meta.ToolUseID] = strings.TrimSuffix(m, ".meta.json") + ".jsonl"
	}
	return out
}

// toolUseIDs are the ids of the tool_use blocks of an assistant line.
func toolUseIDs(raw json.RawMessage) []string {
	if !bytes.Contains(raw, []byte(`"tool_use"`)) {
		return nil
	}
	var l struct {
		Message struct {
			Content []struct {
				Type string `json:"type"`
				ID   string `json:"id"`
			} `json:"content"`
		} `json:"message"`
	}
	_ = json.Unmarshal(raw, &l)
	var ids []string
	for _, b := range l.Message.Content {
		if b.Type == "tool_use" && b.ID != "" {
			ids = append(ids, b.ID)
		}
	}
	return ids
}

// ReadHistory streams a conversation from r to fn.
func ReadHistory(r io.Reader, fn func(Entry) error) error {
	err := readEntries(r, false, fn)
	var fe fnError
	if errors.As(err, &fe) {
		return fe.err
	}
	return err
}

// readEntries streams the entries of r to fn; an error of fn comes back as
// an fnError.
func readEntries(r io.Reader, sidechain bool, fn func(Entry) error) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		raw, err := readLine(br)
		if len(raw) > 0 {
			if e, ok := entryOf(raw, sidechain); ok {
				if ferr := fn(e); ferr != nil {
					return fnError{ferr}
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read session history: %w", err)
		}
	}
}

// readSmall reads a small regular file (a title beside the session).
func readSmall(path string) ([]byte, error) {
	f, st, err := openRegular(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st.Size() > 1<<20 {
		return nil, fmt.Errorf("%s is too large", path)
	}
	return io.ReadAll(io.LimitReader(f, 1<<20))
}

// readLine returns one line; a line longer than maxLine is returned empty.
func readLine(br *bufio.Reader) ([]byte, error) {
	var buf []byte
	long := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(buf)+len(chunk) > maxLine {
				long, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			return nil, err
		}
		return bytes.TrimRight(buf, "\r\n"), err
	}
}

var stdoutRE = regexp.MustCompile(`(?s)<local-command-stdout>(.*?)</local-command-stdout>`)

var (
	notifiedRE = regexp.MustCompile(`<tool-use-id>([^<]*)</tool-use-id>`)
	statusRE   = regexp.MustCompile(`<status>([^<]*)</status>`)
)

func entryOf(raw []byte, sidechain bool) (Entry, bool) {
	var l line
	if json.Unmarshal(raw, &l) != nil || l.IsSidechain != sidechain {
		return Entry{}, false
	}
	if l.Type == "user" && l.Origin.Kind == "task-notification" {
		text, _ := textOf(l.Message.Content)
		if m := notifiedRE.FindStringSubmatch(text); m != nil {
			st := "completed"
			if s := statusRE.FindStringSubmatch(text); s != nil {
				st = s[1]
			}
			return Entry{Notified: m[1], Status: st}, true
		}
		return Entry{}, false
	}
	switch l.Type {
	case "assistant":
		return Entry{Type: "assistant", Message: append(json.RawMessage(nil), raw...)}, true
	case "user":
		if l.IsCompactSummary {
			return Entry{Note: "The conversation was compacted here."}, true
		}
		if l.IsMeta {
			return Entry{}, false
		}
		if p := promptOf(l); p != "" {
			at, _ := time.Parse(time.RFC3339Nano, l.Timestamp)
			return Entry{Prompt: p, UUID: l.UUID, Time: at}, true
		}
		text, isText := textOf(l.Message.Content)
		switch {
		case !isText:
			return Entry{Type: "user", Message: append(json.RawMessage(nil), raw...)}, true
		case strings.HasPrefix(strings.TrimSpace(text), "[Request interrupted"):
			return Entry{Note: "Interrupted."}, true
		}
		if m := stdoutRE.FindStringSubmatch(text); m != nil && strings.TrimSpace(m[1]) != "" {
			return Entry{Note: strings.TrimSpace(m[1])}, true
		}
	case "system":
		if l.Subtype == "local_command" {
			var s string
			if json.Unmarshal(l.Content, &s) == nil {
				if m := stdoutRE.FindStringSubmatch(s); m != nil && strings.TrimSpace(m[1]) != "" {
					return Entry{Note: strings.TrimSpace(m[1])}, true
				}
			}
		}
	}
	return Entry{}, false
}

// AppendTitle renames a stored session the way claude does (a custom-title
// line and its agent-name twin). Only for a session no claude is running:
// a live one is renamed with claude's rename_session.
func AppendTitle(path, id, title string) error {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return fmt.Errorf("rename in claude's session store: %s is not a regular file", path)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|syscall.O_NONBLOCK, 0)
	if err != nil {
		return fmt.Errorf("rename in claude's session store: %w", err)
	}
	a, _ := json.Marshal(map[string]string{"type": "custom-title", "customTitle": title, "sessionId": id})
	b, _ := json.Marshal(map[string]string{"type": "agent-name", "agentName": title, "sessionId": id})
	_, werr := f.Write(append(append(append(a, '\n'), b...), '\n'))
	cerr := f.Close()
	if werr != nil {
		return fmt.Errorf("rename in claude's session store: %w", werr)
	}
	if cerr != nil {
		return fmt.Errorf("rename in claude's session store: %w", cerr)
	}
	return nil
}
