package proposal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// Cell is the notebook cell of a NotebookEdit change. The Change's
// Original is the cell's source before the edit ("" for an insert) and
// Proposed its source after ("" for a delete): the proposal is the cell, not
// the notebook file.
//
// What the CLI does (checked on 2.1.328): the request carries notebook_path,
// cell_id, new_source and, optionally, cell_type and edit_mode (replace,
// the default; insert, after cell_id or at the start; delete); it does not
// carry the old source, which is read from the notebook here. The CLI
// writes new_source as the cell's source (one string) and answers "Updated
// cell c1 with …"; an allow whose updatedInput carries another new_source
// writes that one.
type Cell struct {
	ID       string // as the request names it ("" for an insert at the start)
	Mode     string // "replace", "insert" or "delete"
	Type     string // the cell's type after the edit: code, markdown or raw
	WasType  string // the cell's type before (replace, delete)
	Language string // the notebook's language, for code cells
	Notebook []byte // the whole notebook as read: what Stale compares
}

// Label says in words what the edit does, e.g. "cell c1 (python)",
// "a new markdown cell after c1", "delete cell c2 (markdown)".
func (c Cell) Label() string {
	kind := c.Type
	if kind == "code" && c.Language != "" {
		kind = c.Language
	}
	id := cleanDisplay(c.ID)
	switch c.Mode {
	case "insert":
		where := "at the start"
		if id != "" {
			where = "after " + id
		}
		return fmt.Sprintf("a new %s cell %s", kind, where)
	case "delete":
		return fmt.Sprintf("delete cell %s (%s)", id, c.WasType)
	}
	if c.WasType != "" && c.WasType != c.Type {
		return fmt.Sprintf("cell %s (%s, made %s)", id, c.WasType, kind)
	}
	return fmt.Sprintf("cell %s (%s)", id, kind)
}

type notebookInput struct {
	path, cellID, source, cellType, mode string
}

// notebookInputOf reads a NotebookEdit's input from its one decode; where
// that cannot tell (see parseInput) from its bytes, strictly.
func notebookInputOf(in toolcall.Input) (notebookInput, error) {
	str := func(k string, must bool) (string, bool) {
		switch v := in.Obj[k].(type) {
		case string:
			return v, !strings.Contains(v, "\uFFFD")
		case nil:
			return "", !must
		}
		return "", false
	}
	var nb notebookInput
	ok := in.Obj != nil
	for _, f := range []struct {
		key  string
		dst  *string
		must bool
	}{{"notebook_path", &nb.path, true}, {"new_source", &nb.source, true}, {"cell_id", &nb.cellID, false},
		{"cell_type", &nb.cellType, false}, {"edit_mode", &nb.mode, false}} {
		var good bool
		*f.dst, good = str(f.key, f.must)
		ok = ok && good
	}
	if !ok {
		return parseNotebookInput(in.Raw)
	}
	return nb.checked()
}

func parseNotebookInput(raw json.RawMessage) (notebookInput, error) {
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return notebookInput{}, failf("the NotebookEdit input is not a JSON object")
	}
	var in notebookInput
	var err error
	if in.path, err = requiredString(obj, "notebook_path", ""); err != nil {
		return in, err
	}
	if in.source, err = requiredString(obj, "new_source", ""); err != nil {
		return in, err
	}
	opt := func(key string) (string, error) {
		raw, ok := obj[key]
		if !ok || string(raw) == "null" {
			return "", nil
		}
		return requiredString(obj, key, "")
	}
	if in.cellID, err = opt("cell_id"); err != nil {
		return in, err
	}
	if in.cellType, err = opt("cell_type"); err != nil {
		return in, err
	}
	if in.mode, err = opt("edit_mode"); err != nil {
		return in, err
	}
	return in.checked()
}

// checked gives the mode its default and checks mode and cell type.
func (in notebookInput) checked() (notebookInput, error) {
	if in.mode == "" {
		in.mode = "replace"
	}
	switch in.mode {
	case "replace", "insert", "delete":
	default:
		return in, failf("edit_mode %s is not replace, insert or delete", cleanDisplay(in.mode))
	}
	switch in.cellType {
	case "", "code", "markdown":
	default:
		return in, failf("cell_type %s is not code or markdown", cleanDisplay(in.cellType))
	}
	return in, nil
}

// notebook is the part of an .ipynb file the proposal reads. Keys are
// matched exactly, as the CLI (JavaScript) reads them: encoding/json's
// case-insensitive field matching would read "Cells" as cells.
type notebook struct {
	Cells []nbCell
	Lang  []string // language_info.name, kernelspec.language
}

type nbCell struct {
	ID, Type string
	Source   json.RawMessage
}

func parseNotebook(b []byte) (notebook, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		return notebook{}, err
	}
	if top == nil {
		return notebook{}, errors.New("not a JSON object")
	}
	var cells []map[string]json.RawMessage
	if err := json.Unmarshal(top["cells"], &cells); err != nil || cells == nil {
		return notebook{}, errors.New("it has no list of cells")
	}
	str := func(m map[string]json.RawMessage, k string) string {
		var s string
		_ = json.Unmarshal(m[k], &s)
		return s
	}
	var nb notebook
	for _, c := range cells {
		nb.Cells = append(nb.Cells, nbCell{ID: str(c, "id"), Type: str(c, "cell_type"), Source: c["source"]})
	}
	var meta map[string]json.RawMessage
	_ = json.Unmarshal(top["metadata"], &meta)
	for _, k := range []struct{ obj, key string }{{"language_info", "name"}, {"kernelspec", "language"}} {
		var m map[string]json.RawMessage
		_ = json.Unmarshal(meta[k.obj], &m)
		nb.Lang = append(nb.Lang, str(m, k.key))
	}
	return nb, nil
}

// source decodes a cell's source: one string, or a list of lines.
func source(raw json.RawMessage) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s, nil
	}
	var lines []string
	if err := json.Unmarshal(raw, &lines); err != nil {
		return "", err
	}
	return strings.Join(lines, ""), nil
}

var indexID = regexp.MustCompile(`^cell-(\d+)$`)

// find is the index of the cell named id: by its id, else by a "cell-N"
// position (notebooks without cell ids); -1 when there is none.
func (nb notebook) find(id string) int {
	for i, c := range nb.Cells {
		if c.ID != "" && c.ID == id {
			return i
		}
	}
	if m := indexID.FindStringSubmatch(id); m != nil {
		if n, err := strconv.Atoi(m[1]); err == nil && n < len(nb.Cells) {
			return n
		}
	}
	return -1
}

func (nb notebook) language() string {
	for _, l := range nb.Lang {
		if l = strings.ToLower(strings.TrimSpace(l)); l != "" {
			return cleanDisplay(l)
		}
	}
	return "python"
}

// reconstructNotebook reads the notebook for the cell's current source.
func reconstructNotebook(input toolcall.Input, cwd string, read func(string) ([]byte, error)) (Change, error) {
	in, err := notebookInputOf(input)
	if err != nil {
		return Change{}, err
	}
	path, err := resolvePath(in.path, cwd)
	if err != nil {
		return Change{}, failf("notebook_path: %s", err.Error())
	}
	name := displayName(path)
	f, err := load(path, name, read)
	if err != nil {
		return Change{}, err
	}
	if !f.exists {
		return Change{}, failf("%s does not exist", name)
	}
	nb, err := parseNotebook(f.raw)
	if err != nil {
		return Change{}, failf("%s is not a notebook (%s)", name, cleanDisplay(err.Error()))
	}
	cell := Cell{ID: in.cellID, Mode: in.mode, Type: in.cellType, Language: nb.language(), Notebook: f.raw}
	c := Change{Tool: "NotebookEdit", Path: path, Exists: true, Cell: &cell}
	switch in.mode {
	case "insert":
		if in.cellID != "" && nb.find(in.cellID) < 0 {
			return Change{}, failf("%s has no cell %s to insert after", name, cleanDisplay(in.cellID))
		}
		if cell.Type == "" {
			cell.Type = "code"
		}
		c.Proposed = []byte(in.source)
	default:
		i := nb.find(in.cellID)
		if i < 0 {
			return Change{}, failf("%s has no cell %s", name, cleanDisplay(in.cellID))
		}
		old, err := source(nb.Cells[i].Source)
		if err != nil {
			return Change{}, failf("cell %s of %s has a source that is not text", cleanDisplay(in.cellID), name)
		}
		cell.WasType = cleanDisplay(nb.Cells[i].Type)
		if cell.Type == "" {
			cell.Type = cell.WasType
		}
		c.Original = []byte(old)
		if in.mode == "replace" {
			c.Proposed = []byte(in.source)
			if old == in.source && cell.Type == cell.WasType {
				return Change{}, failf("the edit leaves cell %s of %s unchanged", cleanDisplay(in.cellID), name)
			}
		}
	}
	if len(c.Original) > MaxFileSize || len(c.Proposed) > MaxFileSize {
		return Change{}, failf("the cell is too large (the limit is 64 MiB)")
	}
	return c, nil
}

// amendNotebook is Amend for a NotebookEdit: {...input, new_source: saved}.
func amendNotebook(c Change, in json.RawMessage, saved []byte) (json.RawMessage, error) {
	if c.Cell.Mode == "delete" {
		return nil, failf("a cell deletion has no source to amend")
	}
	if len(saved) > MaxFileSize {
		return nil, failf("the saved cell is too large (the limit is 64 MiB)")
	}
	if !utf8.Valid(saved) {
		return nil, failf("the saved cell is not valid UTF-8, which a tool input cannot carry")
	}
	if c.Cell.Mode == "replace" && bytes.Equal(saved, c.Original) && c.Cell.Type == c.Cell.WasType {
		return nil, ErrNoChange
	}
	out, err := setKeys(in, []keyValue{{"new_source", string(saved)}})
	if err != nil {
		return nil, failf("the NotebookEdit input cannot be amended: %s", err.Error())
	}
	return out, nil
}

// cellExt is the file extension a cell is staged with, so that the editor
// highlights it as the notebook's language.
func cellExt(cell Cell) string {
	switch cell.Type {
	case "markdown":
		return "md"
	case "raw":
		return "txt"
	}
	switch cell.Language {
	case "python", "python3", "ipython", "ipython3", "sage":
		return "py"
	case "r":
		return "r"
	case "julia":
		return "jl"
	case "javascript", "node":
		return "js"
	case "typescript":
		return "ts"
	case "scala":
		return "scala"
	case "ruby":
		return "rb"
	case "go":
		return "go"
	case "rust":
		return "rs"
	case "bash", "sh", "shell", "zsh":
		return "sh"
	case "c":
		return "c"
	case "c++", "cpp", "c++11", "c++14", "c++17", "c++20":
		return "cpp"
	case "c#", "csharp":
		return "cs"
	case "f#", "fsharp":
		return "fs"
	case "java":
		return "java"
	case "kotlin":
		return "kt"
	case "lua":
		return "lua"
	case "sql":
		return "sql"
	case "haskell":
		return "hs"
	case "perl":
		return "pl"
	case "php":
		return "php"
	case "matlab", "octave":
		return "m"
	case "swift":
		return "swift"
	case "powershell":
		return "ps1"
	}
	return "txt"
}

// StagePath is the path whose base name the proposal is staged under: the
// file itself, or for a notebook cell <notebook>.<cell>.<ext> beside the
// notebook, e.g. analysis.c1.py.
func (c Change) StagePath() string {
	if c.Cell == nil {
		return c.Path
	}
	base := strings.TrimSuffix(filepath.Base(c.Path), filepath.Ext(c.Path))
	id := c.Cell.ID
	if c.Cell.Mode == "insert" {
		id = "new"
	}
	if id == "" {
		id = "cell"
	}
	return filepath.Join(filepath.Dir(c.Path), base+"."+id+"."+cellExt(*c.Cell))
}
