// Package proposal turns a Claude Code file-change permission request
// (Write, Edit, Update, MultiEdit) into an editable proposal: it
// reconstructs the file as it would be after the change (Reconstruct),
// stages it as a real file (Stage), and, once the user saved it, builds the
// tool input that makes the CLI write exactly the saved bytes (Amend).
//
// The reconstruction mirrors what the CLI itself does (checked against the
// FileEditTool and FileWriteTool code of @anthropic-ai/claude-code 2.1.328):
//
//   - the file is decoded as UTF-8 and CRLF is replaced by LF before any
//     matching; the line ending style is "CRLF" when, in the first 4096
//     UTF-16 units of the file, CRLF line ends outnumber bare LF ones, and
//     "LF" otherwise;
//   - Edit replaces the single occurrence of old_string (or every one with
//     replace_all) using plain substring matching (no "$&" patterns);
//     when new_string is empty and old_string does not end in "\n", the
//     CLI deletes old_string+"\n" if that occurs, so a deleted line leaves
//     no empty line behind;
//   - an empty old_string creates the file: allowed when the file does not
//     exist or holds only whitespace (JavaScript's trim()); the result is
//     new_string (a UTF-8 byte order mark of the old content is kept);
//   - MultiEdit applies its edits in order, each against the result of the
//     previous; an old_string that occurs in the new_string of an earlier
//     edit is refused, as the CLI refuses it;
//   - the result is written back with the file's line ending style: for
//     "CRLF", CRLF is normalized to LF and every LF then becomes CRLF; for
//     "LF" the text is written as is. A pure-LF or pure-CRLF file therefore
//     keeps every byte that the edit does not touch, and a file with mixed
//     line endings comes back normalized, exactly as the CLI would write it;
//   - Write writes content as is (no line ending conversion), except that a
//     UTF-8 byte order mark of an existing file is kept.
//
// Where the CLI would find a match only through its looser matching (curly
// versus straight quotes, \uXXXX escapes), Reconstruct reports old_string as
// not found: the request then goes to the action panel, where the original
// input is allowed unchanged and the CLI applies its own matching.
//
// Everything here is pure: the file system is reached through the read
// function passed in (Reconstruct, Stale) or through the storage directory
// (Stage, Unstage, CleanStale). There is no package state.
package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"unicode/utf8"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// MaxFileSize is the largest file, original or proposed, that is
// reconstructed: 64 MiB.
const MaxFileSize = 64 << 20

// binarySniff is how much of a file is searched for a NUL byte.
const binarySniff = 8 << 10

// Change is a reconstructed file change.
type Change struct {
	Tool     string // as given
	Path     string // absolute, cleaned file_path
	Exists   bool   // the file existed when reconstructed
	Original []byte // current bytes on disk (empty when !Exists)
	Proposed []byte // bytes after the change
	// Detached is set when Proposed is no longer the result of the tool
	// input applied to Original (the file changed on disk and Claude's
	// change stopped applying): Amend then never sends the input as it is.
	Detached bool
	// Claude is what Claude proposed, when Detached (Proposed otherwise):
	// what the user's changes are told against.
	Claude []byte
	// Reread is set on a Write whose file changed on disk after Claude read
	// it: the CLI refuses that Write whatever the answer, so the reviewed
	// content can only reach the file through a Write Claude makes after
	// reading the file again.
	Reread bool
	// Cell is set for a NotebookEdit: Original and Proposed are then the
	// cell's source, not the file (see Cell).
	Cell *Cell
	// Marks is set when a three-way merge wrote conflict markers into the
	// staged proposal: a save applies nothing while one is left.
	Marks *Marks
}

// ClaudeProposed is the file as Claude proposed it.
func (c Change) ClaudeProposed() []byte {
	if c.Detached && c.Claude != nil {
		return c.Claude
	}
	return c.Proposed
}

// Unreconstructable explains, in words meant for the user, why a change
// cannot be shown as an editable proposal (Reconstruct) or why the saved
// text cannot be sent back exactly (Amend).
type Unreconstructable struct{ Reason string }

func (e *Unreconstructable) Error() string { return e.Reason }

func failf(format string, args ...any) error {
	return &Unreconstructable{Reason: fmt.Sprintf(format, args...)}
}

// IsFileChange reports whether tool is one whose request Reconstruct
// handles: Write, Edit, Update (an alias of Edit), MultiEdit and
// NotebookEdit (a cell of a notebook).
func IsFileChange(tool string) bool {
	switch tool {
	case "Write", "Edit", "Update", "MultiEdit", "NotebookEdit":
		return true
	}
	return false
}

// Reconstruct computes the file after the change of a raw tool input (see
// ReconstructOf).
func Reconstruct(tool string, input json.RawMessage, cwd string, read func(string) ([]byte, error)) (Change, error) {
	return ReconstructOf(tool, toolcall.Decode(input), cwd, read)
}

// ReconstructOf computes the file after the change of a request's input,
// decoded once (claude decoded it). read reads a file (ReadFile or
// os.ReadFile in production; tests inject). cwd resolves a relative
// file_path. Errors are *Unreconstructable with a human reason.
func ReconstructOf(tool string, input toolcall.Input, cwd string, read func(string) ([]byte, error)) (Change, error) {
	if !IsFileChange(tool) {
		return Change{}, failf("%s is not a file change", cleanDisplay(tool))
	}
	if tool == "NotebookEdit" {
		return reconstructNotebook(input, cwd, read)
	}
	in, err := parseInput(tool, input)
	if err != nil {
		return Change{}, err
	}
	path, err := resolvePath(in.path, cwd)
	if err != nil {
		return Change{}, err
	}
	name := displayName(path)
	f, err := load(path, name, read)
	if err != nil {
		return Change{}, err
	}
	proposed, err := apply(tool, in, f, name)
	if err != nil {
		return Change{}, err
	}
	return Change{Tool: tool, Path: path, Exists: f.exists, Original: f.raw, Proposed: proposed}, nil
}

// WriteContent returns the file a Write input writes (absolute, cleaned, as
// Reconstruct resolves it) and its content; ok is false for anything else.
func WriteContent(tool string, input toolcall.Input, cwd string) (path, content string, ok bool) {
	if tool != "Write" {
		return "", "", false
	}
	in, err := parseInput(tool, input)
	if err != nil {
		return "", "", false
	}
	path, err = resolvePath(in.path, cwd)
	if err != nil {
		return "", "", false
	}
	return path, in.content, true
}

// Stale reports whether the file on disk no longer equals c.Original: it was
// deleted, created, or modified since c was reconstructed. An error (other
// than the file not existing) comes with changed == true: the caller must not
// write over a file it could not check.
func Stale(c Change, read func(string) ([]byte, error)) (changed bool, err error) {
	data, err := read(c.Path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return c.Exists, nil
		}
		return true, err
	}
	if !c.Exists {
		return true, nil
	}
	if c.Cell != nil {
		return !bytes.Equal(data, c.Cell.Notebook), nil
	}
	return !bytes.Equal(data, c.Original), nil
}

// ReadFile reads a file for Reconstruct and Stale the careful way: it
// refuses directories and anything that is not a regular file (a FIFO would
// block the caller forever) and files above MaxFileSize, without reading
// them.
func ReadFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: syscall.EISDIR}
	}
	if !fi.Mode().IsRegular() {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errNotRegular}
	}
	if fi.Size() > MaxFileSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errTooLarge}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// One buffer of the file's size: a large file is not copied over and
	// over while read. A file that grew meanwhile is read to its end.
	size := fi.Size()
	data := make([]byte, size)
	n, err := io.ReadFull(f, data)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return nil, err
	}
	data = data[:n]
	if int64(n) == size {
		more, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1-int64(n)))
		if err != nil {
			return nil, err
		}
		data = append(data, more...)
	}
	if len(data) > MaxFileSize {
		return nil, &fs.PathError{Op: "read", Path: path, Err: errTooLarge}
	}
	return data, nil
}

var (
	errNotRegular = errors.New("not a regular file")
	errTooLarge   = errors.New("file too large")
)

// ---- input ----

type edit struct {
	old, new   string
	replaceAll bool
}

type input struct {
	path    string
	content string // Write
	edits   []edit // Edit, Update, MultiEdit
	multi   bool
}

// parseInput reads a file change's input from its one decode. Where that
// cannot tell (a field is missing or of another type: the error's words;
// a U+FFFD, which Go also decodes from invalid UTF-8 and lone surrogates,
// which the CLI keeps and would match differently) the raw input is read
// strictly (parseRaw).
func parseInput(tool string, in toolcall.Input) (input, error) {
	if p, ok := parseObj(tool, in.Obj); ok && !p.replaced() {
		return p, nil
	}
	return parseRaw(tool, in.Raw)
}

// parseObj reads a file change's input from the object decoded; ok is
// false where parseRaw must tell why (or check what it holds).
func parseObj(tool string, obj map[string]any) (in input, ok bool) {
	if obj == nil {
		return input{}, false
	}
	if in.path, ok = obj["file_path"].(string); !ok {
		return input{}, false
	}
	switch tool {
	case "Write":
		in.content, ok = obj["content"].(string)
		return in, ok
	case "Edit", "Update":
		e, ok := editOf(obj)
		in.edits = []edit{e}
		return in, ok
	}
	in.multi = true
	list, _ := obj["edits"].([]any)
	if len(list) == 0 {
		return input{}, false
	}
	for _, v := range list {
		m, _ := v.(map[string]any)
		e, ok := editOf(m)
		if !ok {
			return input{}, false
		}
		in.edits = append(in.edits, e)
	}
	return in, true
}

func editOf(obj map[string]any) (e edit, ok bool) {
	if e.old, ok = obj["old_string"].(string); !ok {
		return e, false
	}
	if e.new, ok = obj["new_string"].(string); !ok {
		return e, false
	}
	switch r := obj["replace_all"].(type) {
	case bool:
		e.replaceAll = r
	case nil:
	default:
		return e, false
	}
	return e, true
}

// replaced reports whether a string of in holds U+FFFD.
func (in input) replaced() bool {
	// strings.ContainsRune(s, utf8.RuneError) would also look for invalid
	// UTF-8, rune by rune: a decoded string has none.
	has := func(s string) bool { return strings.Contains(s, "\uFFFD") }
	if has(in.path) || has(in.content) {
		return true
	}
	for _, e := range in.edits {
		if has(e.old) || has(e.new) {
			return true
		}
	}
	return false
}

// parseRaw reads a file change's input strictly, from its bytes.
func parseRaw(tool string, raw json.RawMessage) (input, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return input{}, failf("the %s input is not a JSON object", tool)
	}
	var in input
	var err error
	if in.path, err = requiredString(obj, "file_path", ""); err != nil {
		return input{}, err
	}
	switch tool {
	case "Write":
		in.content, err = requiredString(obj, "content", "")
		return in, err
	case "Edit", "Update":
		e, err := parseEdit(obj, "")
		if err != nil {
			return input{}, err
		}
		in.edits = []edit{e}
		return in, nil
	default: // MultiEdit
		in.multi = true
		rawEdits, ok := obj["edits"]
		var list []map[string]json.RawMessage
		if !ok || json.Unmarshal(rawEdits, &list) != nil {
			return input{}, failf("edits is not a list of edits")
		}
		if len(list) == 0 {
			return input{}, failf("edits is empty")
		}
		for i, m := range list {
			if m == nil {
				return input{}, failf("edits[%d] is not an object", i)
			}
			e, err := parseEdit(m, fmt.Sprintf("edits[%d].", i))
			if err != nil {
				return input{}, err
			}
			in.edits = append(in.edits, e)
		}
		return in, nil
	}
}

func parseEdit(obj map[string]json.RawMessage, prefix string) (edit, error) {
	var e edit
	var err error
	if e.old, err = requiredString(obj, "old_string", prefix); err != nil {
		return e, err
	}
	if e.new, err = requiredString(obj, "new_string", prefix); err != nil {
		return e, err
	}
	if raw, ok := obj["replace_all"]; ok && string(raw) != "null" {
		if json.Unmarshal(raw, &e.replaceAll) != nil {
			return e, failf("%sreplace_all is not a boolean", prefix)
		}
	}
	return e, nil
}

// requiredString decodes obj[key]; prefix (such as "edits[2].") labels
// messages only.
func requiredString(obj map[string]json.RawMessage, key, prefix string) (string, error) {
	raw, ok := obj[key]
	if !ok {
		return "", failf("%s%s is missing", prefix, key)
	}
	s, err := decodeString(raw)
	if err != nil {
		return "", failf("%s%s %s", prefix, key, err.Error())
	}
	return s, nil
}

// decodeString decodes a JSON string strictly: Go would silently turn
// invalid UTF-8 and unpaired UTF-16 surrogates into U+FFFD, while the CLI
// (JavaScript) keeps surrogates and would then match differently.
func decodeString(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", errors.New("is not a string")
	}
	if !utf8.Valid(raw) {
		return "", errors.New("is not valid UTF-8")
	}
	if loneSurrogate(raw) {
		return "", errors.New("contains an unpaired UTF-16 surrogate")
	}
	return s, nil
}

// loneSurrogate reports whether the JSON string literal raw (already known
// to be valid) has a \uD800-\uDFFF escape that is not part of a pair.
func loneSurrogate(raw []byte) bool {
	hex4 := func(i int) (rune, bool) {
		if i+6 > len(raw) || raw[i] != '\\' || raw[i+1] != 'u' {
			return 0, false
		}
		var r rune
		for _, c := range raw[i+2 : i+6] {
			switch {
			case c >= '0' && c <= '9':
				r = r<<4 | rune(c-'0')
			case c >= 'a' && c <= 'f':
				r = r<<4 | rune(c-'a'+10)
			case c >= 'A' && c <= 'F':
				r = r<<4 | rune(c-'A'+10)
			default:
				return 0, false
			}
		}
		return r, true
	}
	for i := 0; i < len(raw); {
		if raw[i] != '\\' {
			i++
			continue
		}
		if i+1 < len(raw) && raw[i+1] != 'u' {
			i += 2
			continue
		}
		r, ok := hex4(i)
		if !ok {
			i += 2
			continue
		}
		switch {
		case r >= 0xD800 && r <= 0xDBFF:
			if lo, ok := hex4(i + 6); ok && lo >= 0xDC00 && lo <= 0xDFFF {
				i += 12
				continue
			}
			return true
		case r >= 0xDC00 && r <= 0xDFFF:
			return true
		}
		i += 6
	}
	return false
}

func resolvePath(p, cwd string) (string, error) {
	switch {
	case p == "":
		return "", failf("file_path is empty")
	case strings.IndexByte(p, 0) >= 0:
		return "", failf("file_path contains a NUL byte")
	case p == "~" || strings.HasPrefix(p, "~/"):
		// The CLI expands ~ with its own HOME, which need not be ours.
		return "", failf("file_path %s starts with ~, which this client does not expand", cleanDisplay(p))
	}
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return "", failf("file_path %s is relative and the session has no absolute working directory", cleanDisplay(p))
		}
		p = filepath.Join(cwd, p)
	}
	return filepath.Clean(p), nil
}

// ---- the file as the CLI sees it ----

type file struct {
	exists  bool
	raw     []byte // bytes on disk
	content string // raw with CRLF replaced by LF
	crlf    bool   // line ending style used when writing back
}

func load(path, name string, read func(string) ([]byte, error)) (file, error) {
	data, err := read(path)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return file{}, nil
		case errors.Is(err, syscall.EISDIR):
			return file{}, failf("file_path is a directory")
		case errors.Is(err, errTooLarge):
			return file{}, failf("%s is too large (the limit is 64 MiB)", name)
		case errors.Is(err, errNotRegular):
			return file{}, failf("%s is not a regular file", name)
		case errors.Is(err, fs.ErrPermission):
			return file{}, failf("%s cannot be read: permission denied", name)
		}
		return file{}, failf("%s cannot be read: %s", name, cleanDisplay(err.Error()))
	}
	return classify(data, name)
}

// classify checks that data is text the proposal can show and computes the
// CLI's view of it.
func classify(data []byte, name string) (file, error) {
	if len(data) > MaxFileSize {
		return file{}, failf("%s is too large (the limit is 64 MiB)", name)
	}
	if bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF}) {
		return file{}, failf("%s is UTF-16 encoded; only UTF-8 files can be proposed", name)
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return file{}, failf("%s is a binary file", name)
	}
	if !utf8.Valid(data) {
		return file{}, failf("%s is not valid UTF-8", name)
	}
	s := stringView(data) // data is the file's, read for this change
	return file{exists: true, raw: data, content: toLF(s), crlf: detectCRLF(s)}, nil
}

func toLF(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// writeBack is the CLI's writeTextContent: for CRLF files, CRLF is
// normalized to LF and every LF becomes CRLF; LF files are written as is.
func writeBack(s string, crlf bool) string {
	if !crlf {
		return s
	}
	return strings.ReplaceAll(toLF(s), "\n", "\r\n")
}

// detectCRLF mirrors the CLI: among the first 4096 UTF-16 units, count line
// ends preceded by "\r" and bare ones; CRLF wins only with a strict
// majority.
func detectCRLF(s string) bool {
	units, crlf, lf := 0, 0, 0
	prev := rune(-1)
	for _, r := range s {
		if units >= 4096 {
			break
		}
		if r == '\n' {
			if prev == '\r' {
				crlf++
			} else {
				lf++
			}
		}
		prev = r
		if r >= 0x10000 {
			units += 2
		} else {
			units++
		}
	}
	return crlf > lf
}

const bom = "\uFEFF"

// keepBOM is the CLI's rule for whole-content writes: when the old content
// starts with a UTF-8 byte order mark and the new, non-empty content does
// not, the mark is put back.
func keepBOM(old, s string) string {
	if s != "" && strings.HasPrefix(old, bom) && !strings.HasPrefix(s, bom) {
		return bom + s
	}
	return s
}

// jsBlank reports whether JavaScript's s.trim() === "".
func jsBlank(s string) bool {
	for _, r := range s {
		switch {
		case r == '\t', r == '\n', r == '\v', r == '\f', r == '\r', r == ' ',
			r == 0xA0, r == 0x1680, r >= 0x2000 && r <= 0x200A,
			r == 0x2028, r == 0x2029, r == 0x202F, r == 0x205F, r == 0x3000, r == 0xFEFF:
		default:
			return false
		}
	}
	return true
}

// apply computes the bytes the CLI would write.
func apply(tool string, in input, f file, name string) ([]byte, error) {
	if tool == "Write" {
		if len(in.content) > MaxFileSize {
			return nil, failf("the proposed %s is too large (the limit is 64 MiB)", name)
		}
		return []byte(keepBOM(f.content, in.content)), nil
	}
	r := f.content
	var earlier []string
	for i, e := range in.edits {
		label := "old_string"
		if in.multi {
			label = fmt.Sprintf("edits[%d].old_string", i)
		}
		if e.old == e.new {
			return nil, failf("%s and new_string are the same", label)
		}
		if l := strings.TrimRight(e.old, "\n"); l != "" {
			for _, g := range earlier {
				if strings.Contains(g, l) {
					return nil, failf("%s is part of the new_string of an earlier edit", label)
				}
			}
		}
		if e.old == "" {
			switch {
			case i > 0:
				return nil, failf("%s is empty", label)
			case f.exists && !jsBlank(f.content):
				return nil, failf("%s is empty and %s already has content", label, name)
			}
			if len(e.new) > MaxFileSize {
				return nil, failf("the proposed %s is too large (the limit is 64 MiB)", name)
			}
			r = keepBOM(f.content, e.new)
		} else {
			if !f.exists {
				return nil, failf("%s does not exist", name)
			}
			// One pass over the file (in parts at once on a large one)
			// finds the first occurrence and whether there is another (the
			// count is needed only to say how many).
			at, again := findUnique(r, e.old)
			switch {
			case at < 0 && i > 0:
				return nil, failf("%s not found in %s after the earlier edits", label, name)
			case at < 0:
				return nil, failf("%s not found in %s", label, name)
			case !e.replaceAll && again:
				return nil, failf("%s occurs %d times in %s and replace_all is false", label, strings.Count(r, e.old), name)
			}
			target := e.old
			if e.new == "" && !strings.HasSuffix(e.old, "\n") && strings.Contains(r, e.old+"\n") {
				target = e.old + "\n"
				at = strings.Index(r, target)
			}
			times := 1
			if e.replaceAll {
				times = strings.Count(r, target)
			}
			if int64(len(r))+int64(times)*(int64(len(e.new))-int64(len(target))) > MaxFileSize {
				return nil, failf("the proposed %s is too large (the limit is 64 MiB)", name)
			}
			var next string
			same := false
			if times == 1 {
				// One place replaced: the text is the same exactly when
				// what goes in is what comes out (no pass over megabytes).
				next, same = r[:at]+e.new+r[at+len(target):], e.new == target
			} else {
				next = strings.Replace(r, target, e.new, times)
				same = next == r
			}
			if same {
				return nil, failf("%s: the edit does not change %s", label, name)
			}
			r = next
		}
		earlier = append(earlier, e.new)
	}
	// One replacement that changed the text cannot leave it as it was
	// (checked above, without a pass over the file); several edits may
	// undo each other, and a blank file may be given its own content.
	if f.exists && (len(in.edits) != 1 || in.edits[0].old == "") && r == f.content {
		return nil, failf("the edits leave %s unchanged", name)
	}
	out := writeBack(r, f.crlf)
	if len(out) > MaxFileSize {
		return nil, failf("the proposed %s is too large (the limit is 64 MiB)", name)
	}
	return bytesView(out), nil
}

// displayName is the base name of path, safe to show.
func displayName(path string) string {
	if n := cleanDisplay(filepath.Base(path)); n != "" && n != "." && n != string(filepath.Separator) {
		return n
	}
	return cleanDisplay(path)
}

// cleanDisplay is s as a message shows it (sanitize.Line: escapes removed,
// control, bidi and zero-width characters shown as marks), at most 200
// bytes.
func cleanDisplay(s string) string {
	s = sanitize.Line(s)
	if len(s) > 200 {
		s = truncUTF8(s, 200) + "…"
	}
	return s
}

// ReadNow reads a file as it is now: its text and whether it exists.
func ReadNow(path string) (string, bool, error) {
	data, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return string(data), true, nil
}
