package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// ErrNoChange is returned by Amend for Edit, Update and MultiEdit when the
// saved text equals the file on disk: the CLI refuses an edit whose
// old_string equals its new_string, so there is nothing to allow (the user
// reverted the change; answer with a deny).
var ErrNoChange = errors.New("the saved file equals the file on disk: there is no change to apply")

// Amend builds the updatedInput that makes the CLI write saved to the file.
// It returns input itself (byte-identical) when saved equals c.Proposed
// (unless c is Detached).
// Otherwise the change becomes a whole-file replacement:
//
//	Write:        {...input, content: saved}
//	Edit/Update:  {...input, old_string: <original>, new_string: <saved>, replace_all: false}
//	MultiEdit:    {...input, edits: [{old_string: <original>, new_string: <saved>}]}
//
// Every other key of input keeps its bytes and its place; replaced values
// are spliced in where they were, missing keys are appended.
//
// <original> and <saved> are what the CLI matches and writes: the CLI
// replaces CRLF by LF in the file before matching and writes the result
// back with the file's own line endings, so for a CRLF file both are
// LF-normalized (a CRLF old_string would not be found), while for an LF
// file <saved> is the saved text as is.
//
// When the file does not exist (an Edit that creates it) or exists and is
// empty, old_string is "" and new_string the saved text. The whole empty
// file as old_string would be "" anyway, and the CLI reads an empty
// old_string as "create the file", which it allows over a file that holds
// only whitespace and which then writes new_string as the whole file:
// exactly a Write of the saved text. A non-empty file always uses the
// whole file as old_string: it occurs exactly once in itself.
//
// Amend checks its own result by replaying the CLI's edit on c.Original and
// refuses (*Unreconstructable) when the CLI would not write saved byte for
// byte: saved text that is not UTF-8; a CRLF file saved with bare LF line
// ends (or mixed ones), which the CLI would turn into CRLF; a file with a
// UTF-8 byte order mark saved without it, which Write would put back; a
// change of line endings alone, which an Edit cannot express; an Edit
// creating an empty file. It returns ErrNoChange for an Edit, Update or
// MultiEdit whose saved text equals the original file.
func Amend(c Change, in json.RawMessage, saved []byte) (json.RawMessage, error) {
	if !c.Detached && bytes.Equal(saved, c.Proposed) {
		return in, nil
	}
	if !IsFileChange(c.Tool) {
		return nil, failf("%s is not a file change", cleanDisplay(c.Tool))
	}
	if c.Cell != nil {
		return amendNotebook(c, in, saved)
	}
	name := displayName(c.Path)
	if len(saved) > MaxFileSize {
		return nil, failf("the saved %s is too large (the limit is 64 MiB)", name)
	}
	if !utf8.Valid(saved) {
		return nil, failf("the saved %s is not valid UTF-8, which a tool input cannot carry", name)
	}
	var f file
	if c.Exists {
		var err error
		if f, err = classify(c.Original, name); err != nil {
			return nil, err
		}
	}
	if c.Tool == "Write" {
		return amendWith(c, in, f, name, saved, []keyValue{{"content", string(saved)}}, input{content: string(saved)})
	}
	if c.Exists && bytes.Equal(saved, c.Original) {
		return nil, ErrNoChange
	}
	whole, next := f.content, string(saved)
	if f.crlf {
		next = toLF(next)
	}
	if whole == next {
		if !c.Exists {
			return nil, failf("an edit cannot create an empty %s", name)
		}
		return nil, failf("the saved %s differs from the file on disk only in line endings, which an edit cannot change", name)
	}
	edit := func(oldS, newS string) ([]keyValue, input) {
		if c.Tool == "MultiEdit" {
			type one struct {
				Old string `json:"old_string"`
				New string `json:"new_string"`
			}
			return []keyValue{{"edits", []one{{oldS, newS}}}}, input{multi: true, edits: []edit{{old: oldS, new: newS}}}
		}
		return []keyValue{{"old_string", oldS}, {"new_string", newS}, {"replace_all", false}},
			input{edits: []edit{{old: oldS, new: newS}}}
	}
	// The smallest edit first; the whole file when that is not smaller or
	// would not reproduce the saved text exactly.
	if oldS, newS, ok := minimalEdit(whole, next); ok {
		set, replay := edit(oldS, newS)
		if out, err := amendWith(c, in, f, name, saved, set, replay); err == nil {
			return out, nil
		}
	}
	set, replay := edit(whole, next)
	return amendWith(c, in, f, name, saved, set, replay)
}

// amendWith puts set into the input and checks, by replaying the CLI's edit
// on the original (replay is what the CLI will read from the amended input),
// that the CLI would write saved byte for byte.
func amendWith(c Change, in json.RawMessage, f file, name string, saved []byte, set []keyValue, replay input) (json.RawMessage, error) {
	out, err := setKeys(in, set)
	if err != nil {
		return nil, failf("the %s input cannot be amended: %s", c.Tool, err.Error())
	}
	// setKeys writes exactly these values (TestAmend and FuzzReconstruct
	// decode every amended input again and check it), so the large input
	// is not decoded a second time here.
	got, err := apply(c.Tool, replay, f, name)
	if err != nil {
		return nil, failf("the saved %s cannot be sent as a %s: %s", name, c.Tool, err.Error())
	}
	if !bytes.Equal(got, saved) {
		switch {
		case f.crlf:
			return nil, failf("%s has CRLF line endings and the CLI writes every line with CRLF, but the saved text has other line endings (keep 'fileformat' at dos)", name)
		case strings.HasPrefix(f.content, bom) && !bytes.HasPrefix(saved, []byte(bom)):
			return nil, failf("%s starts with a UTF-8 byte order mark, which the CLI keeps, but the saved text has none (keep 'bomb' set)", name)
		}
		return nil, failf("the CLI would not write the saved %s exactly", name)
	}
	return out, nil
}

// minimalEdit returns the smallest old_string → new_string that turns orig
// into next (both LF-normalized): the lines from the first to the last that
// differ, widened a line at a time on both sides until old_string occurs
// exactly once in orig. ok is false when that is the whole file (or orig is
// empty): the caller then sends the whole file.
func minimalEdit(orig, next string) (oldS, newS string, ok bool) {
	a, b := splitKeep(orig), splitKeep(next)
	pre := 0
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	suf := 0
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	lo, hiA, hiB := pre, len(a)-suf, len(b)-suf
	for {
		if lo == 0 && hiA == len(a) {
			return "", "", false
		}
		oldS = strings.Join(a[lo:hiA], "")
		if oldS != "" && strings.Count(orig, oldS) == 1 {
			return oldS, strings.Join(b[lo:hiB], ""), true
		}
		if lo > 0 {
			lo--
		}
		if hiA < len(a) {
			hiA++
			hiB++
		}
	}
}

// splitKeep splits s into lines that keep their "\n"; a last line without
// one is kept as it is, and "" gives no lines.
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

type keyValue struct {
	key   string
	value any
}

// setKeys returns the JSON object obj with each key of set given its value:
// the value of an existing key (of every occurrence, if the key is
// duplicated) is replaced in place, a missing key is appended. All other
// bytes are kept.
func setKeys(obj json.RawMessage, set []keyValue) (json.RawMessage, error) {
	type span struct{ start, end int }
	dec := json.NewDecoder(bytes.NewReader(obj))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	found := map[string][]span{}
	members := 0
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("malformed object")
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		end := int(dec.InputOffset())
		found[key] = append(found[key], span{end - len(raw), end})
		members++
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("malformed object")
	}
	closing := int(dec.InputOffset()) - 1
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the object")
	}

	type splice struct {
		start, end int
		text       []byte
	}
	var splices []splice
	var appended []byte
	for _, kv := range set {
		v, err := marshal(kv.value)
		if err != nil {
			return nil, err
		}
		if spans, ok := found[kv.key]; ok {
			for _, s := range spans {
				splices = append(splices, splice{s.start, s.end, v})
			}
			continue
		}
		k, _ := marshal(kv.key)
		if members > 0 || len(appended) > 0 {
			appended = append(appended, ',')
		}
		appended = append(appended, k...)
		appended = append(appended, ':')
		appended = append(appended, v...)
	}
	splices = append(splices, splice{closing, closing, appended})
	// Spans are disjoint; apply them in order of position.
	for i := 1; i < len(splices); i++ {
		for j := i; j > 0 && splices[j].start < splices[j-1].start; j-- {
			splices[j], splices[j-1] = splices[j-1], splices[j]
		}
	}
	var out bytes.Buffer
	grow := len(obj)
	for _, s := range splices {
		grow += len(s.text)
	}
	out.Grow(grow)
	pos := 0
	for _, s := range splices {
		out.Write(obj[pos:s.start])
		out.Write(s.text)
		pos = s.end
	}
	out.Write(obj[pos:])
	return json.RawMessage(out.Bytes()), nil
}

// marshal encodes v as JSON without HTML escaping (so "<" stays "<").
func marshal(v any) ([]byte, error) {
	if s, ok := v.(string); ok {
		// Strings are the file contents: encoded in one exactly sized
		// buffer, not grown (and copied) step by step.
		return AppendJSONString(make([]byte, 0, len(s)+len(s)/16+2), s), nil
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// AppendJSONString appends s as a JSON string literal: quotes, backslashes
// and control characters escaped (\n, \t, … and \u00XX), U+2028 and
// U+2029 escaped like encoding/json does, "<" ">" "&" kept. s must be valid
// UTF-8 (invalid bytes are replaced by U+FFFD, as encoding/json does).
func AppendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
