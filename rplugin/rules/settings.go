package rules

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
)

// Source is one settings file claude reads, with its name in the protocol.
type Source struct {
	Name string `json:"source"` // userSettings, projectSettings, localSettings
	Path string `json:"path"`
}

// Sources are the settings files of a session in folder cwd, in the order
// claude merges them; configDir is claude's config folder (claude.Home.Dir:
// $CLAUDE_CONFIG_DIR, else ~/.claude), where the user's settings live.
func Sources(cwd, configDir string) []Source {
	return []Source{
		{"userSettings", filepath.Join(configDir, "settings.json")},
		{"projectSettings", filepath.Join(cwd, ".claude", "settings.json")},
		{"localSettings", filepath.Join(cwd, ".claude", "settings.local.json")},
	}
}

// PathOf is the settings file of destination d, "" for session.
func PathOf(d, cwd, configDir string) string {
	for _, s := range Sources(cwd, configDir) {
		if s.Name == d {
			return s.Path
		}
	}
	return ""
}

// Behaviors of rules, as the keys of "permissions".
var Behaviors = []string{"allow", "deny", "ask"}

// Permissions are the rule lists of a settings file.
type Permissions struct {
	Allow []string `json:"allow"`
	Deny  []string `json:"deny"`
	Ask   []string `json:"ask"`
	// DefaultMode is the permission mode the file starts sessions in.
	DefaultMode string `json:"defaultMode,omitempty"`
}

// maxSettings bounds the settings files read.
const maxSettings = 4 << 20

// Read returns the rules of a settings file. A missing file has none (and
// no error); a file that is not a JSON object with well-formed permission
// lists is an error naming the file.
func Read(path string) (Permissions, error) {
	b, err := readSmall(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Permissions{}, nil
	}
	if err != nil {
		return Permissions{}, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return Permissions{}, nil
	}
	var f struct {
		Permissions Permissions `json:"permissions"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return Permissions{}, fmt.Errorf("%s is not valid settings JSON: %v", path, err)
	}
	return f.Permissions, nil
}

func readSmall(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", path)
	}
	if fi.Size() > maxSettings {
		return nil, fmt.Errorf("%s is too large for a settings file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxSettings+1))
}

// Add appends rule to the behavior list of a settings file (creating the
// file, and its folder, if needed); a rule already there is not added again.
func Add(path, behavior, rule string) error {
	return edit(path, behavior, true, nil, func(list []string) []string {
		for _, r := range list {
			if r == rule {
				return list
			}
		}
		return append(list, rule)
	})
}

// Remove takes rule out of the behavior list of a settings file. It is an
// error if the file does not hold it.
func Remove(path, behavior, rule string) error {
	found := false
	err := edit(path, behavior, false, nil, func(list []string) []string {
		out := list[:0:0]
		for _, r := range list {
			if r == rule {
				found = true
				continue
			}
			out = append(out, r)
		}
		return out
	})
	if err == nil && !found {
		return fmt.Errorf("%s has no %s rule %s", path, behavior, rule)
	}
	return err
}

// ErrChanged is returned when a settings file changed on disk while it
// was being edited: nothing was written.
var ErrChanged = errors.New("it changed on disk while the rule was being saved; nothing was written: try again")

// edit rewrites one permission list of a settings file: every other key,
// in the file or in "permissions", keeps its value and its place, and the
// file keeps its indentation. A file that cannot be read or parsed is never
// rewritten. A symlink (a settings file kept with the user's dotfiles) is
// written through: its target gets the new content and the link stays.
// The write is atomic (a temporary file renamed over the target), and the
// target is read again just before the rename: if it changed meanwhile
// (the user, or claude, saved it), nothing is written.
//
// meanwhile, when not nil, runs between the read and the check (tests: a
// save by someone else).
func edit(path, behavior string, create bool, meanwhile func(), fn func([]string) []string) error {
	if behavior != "allow" && behavior != "deny" && behavior != "ask" {
		return fmt.Errorf("unknown rule behavior %q", behavior)
	}
	target, err := resolve(path)
	if err != nil {
		return fmt.Errorf("%s cannot be read: %w", path, err)
	}
	orig, err := readSmall(target)
	mode := fs.FileMode(0o644)
	exists := true
	b := orig
	switch {
	case errors.Is(err, fs.ErrNotExist) && create:
		exists, b = false, []byte("{}")
	case err != nil:
		return fmt.Errorf("%s cannot be read: %w", path, err)
	default:
		if fi, err := os.Stat(target); err == nil {
			mode = fi.Mode().Perm()
		}
		if len(bytes.TrimSpace(b)) == 0 {
			b = []byte("{}")
		}
	}
	top, err := parseObject(b)
	if err != nil {
		return fmt.Errorf("%s is not valid settings JSON (%v); it was left as it is", path, err)
	}
	perms := object{}
	if raw, ok := top.get("permissions"); ok {
		if perms, err = parseObject(raw); err != nil {
			return fmt.Errorf("%s: \"permissions\" is not an object (%v); the file was left as it is", path, err)
		}
	}
	var list []string
	if raw, ok := perms.get(behavior); ok {
		if err := json.Unmarshal(raw, &list); err != nil {
			return fmt.Errorf("%s: permissions.%s is not a list of rules; the file was left as it is", path, behavior)
		}
	}
	list = fn(list)
	if list == nil {
		list = []string{}
	}
	lb, _ := json.Marshal(list)
	perms.set(behavior, lb)
	top.set("permissions", perms.encode())
	var out bytes.Buffer
	if err := json.Indent(&out, top.encode(), "", indentOf(orig)); err != nil {
		return fmt.Errorf("encode %s: %w", path, err)
	}
	out.WriteByte('\n')
	dir := filepath.Dir(target)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.Write(target, out.Bytes(), atomicfile.Options{Perm: mode, Prefix: ".claude-nova-settings-", Check: func() error {
		if meanwhile != nil {
			meanwhile()
		}
		// Read again just before the rename: never write over a change made
		// meanwhile.
		now, err := readSmall(target)
		switch {
		case !exists && !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("%s: %w", path, ErrChanged)
		case exists && (err != nil || !bytes.Equal(now, orig)):
			return fmt.Errorf("%s: %w", path, ErrChanged)
		}
		return nil
	}})
}

// maxLinks bounds how many symlinks resolve follows.
const maxLinks = 40

// resolve follows path's symlinks to the file to write: the path itself
// when it is not a link, the link's target (which may not exist yet)
// otherwise.
func resolve(path string) (string, error) {
	p := path
	for i := 0; i < maxLinks; i++ {
		fi, err := os.Lstat(p)
		if errors.Is(err, fs.ErrNotExist) {
			return p, nil
		}
		if err != nil {
			return "", err
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil
		}
		to, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(to) {
			to = filepath.Join(filepath.Dir(p), to)
		}
		p = filepath.Clean(to)
	}
	return "", fmt.Errorf("too many symbolic links")
}

// indentOf is the indentation unit of a JSON text: the leading white space
// of its first indented line; two spaces for a new or compact file.
func indentOf(b []byte) string {
	for _, line := range bytes.Split(b, []byte("\n"))[1:] {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n > 0 && n < len(line) {
			return string(line[:n])
		}
	}
	return "  "
}

// object is a JSON object that keeps its members' order and bytes.
type object []member

type member struct {
	key string
	raw json.RawMessage
}

func parseObject(b []byte) (object, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	var o object
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := tok.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		o = append(o, member{key, raw})
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, errors.New("malformed object")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after the object")
	}
	return o, nil
}

func (o object) get(key string) (json.RawMessage, bool) {
	for _, m := range o {
		if m.key == key {
			return m.raw, true
		}
	}
	return nil, false
}

func (o *object) set(key string, raw json.RawMessage) {
	for i, m := range *o {
		if m.key == key {
			(*o)[i].raw = raw
			return
		}
	}
	*o = append(*o, member{key, raw})
}

func (o object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, m := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(m.key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(m.raw)
	}
	b.WriteByte('}')
	return b.Bytes()
}
