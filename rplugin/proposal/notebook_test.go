package proposal

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

const nbPath = "/p/n.ipynb"

func notebookFile(lang string) string {
	return `{"cells":[` +
		`{"cell_type":"code","id":"c1","metadata":{},"source":["x = 1\n","print(x)"],"outputs":[]},` +
		`{"cell_type":"markdown","id":"c2","metadata":{},"source":"# Title"},` +
		`{"cell_type":"code","metadata":{},"source":[]}` +
		`],"metadata":{"language_info":{"name":"` + lang + `"}},"nbformat":4,"nbformat_minor":5}`
}

func TestReconstructNotebook(t *testing.T) {
	tests := []struct {
		name       string
		input      obj
		lang       string
		orig, prop string
		label      string
		stage      string
		err        string
	}{
		{"replace", obj{"notebook_path": nbPath, "cell_id": "c1", "new_source": "x = 2\nprint(x)"}, "python",
			"x = 1\nprint(x)", "x = 2\nprint(x)", "cell c1 (python)", "n.c1.py", ""},
		{"replace markdown", obj{"notebook_path": nbPath, "cell_id": "c2", "new_source": "# New"}, "python",
			"# Title", "# New", "cell c2 (markdown)", "n.c2.md", ""},
		{"made markdown", obj{"notebook_path": nbPath, "cell_id": "c1", "new_source": "text", "cell_type": "markdown"}, "python",
			"x = 1\nprint(x)", "text", "cell c1 (code, made markdown)", "n.c1.md", ""},
		{"by position", obj{"notebook_path": nbPath, "cell_id": "cell-2", "new_source": "y"}, "julia",
			"", "y", "cell cell-2 (julia)", "n.cell-2.jl", ""},
		{"insert", obj{"notebook_path": nbPath, "cell_id": "c1", "new_source": "## new", "cell_type": "markdown", "edit_mode": "insert"}, "python",
			"", "## new", "a new markdown cell after c1", "n.new.md", ""},
		{"insert at the start", obj{"notebook_path": nbPath, "new_source": "import os", "edit_mode": "insert"}, "R",
			"", "import os", "a new r cell at the start", "n.new.r", ""},
		{"delete", obj{"notebook_path": nbPath, "cell_id": "c2", "new_source": "", "edit_mode": "delete"}, "python",
			"# Title", "", "delete cell c2 (markdown)", "n.c2.md", ""},
		{"no such cell", obj{"notebook_path": nbPath, "cell_id": "zz", "new_source": "x"}, "python", "", "", "", "", "has no cell zz"},
		{"insert after no cell", obj{"notebook_path": nbPath, "cell_id": "zz", "new_source": "x", "edit_mode": "insert"}, "python", "", "", "", "", "no cell zz to insert after"},
		{"unchanged", obj{"notebook_path": nbPath, "cell_id": "c2", "new_source": "# Title"}, "python", "", "", "", "", "unchanged"},
		{"bad mode", obj{"notebook_path": nbPath, "cell_id": "c2", "new_source": "x", "edit_mode": "append"}, "python", "", "", "", "", "not replace, insert or delete"},
		{"no source", obj{"notebook_path": nbPath, "cell_id": "c2"}, "python", "", "", "", "", "new_source is missing"},
		{"relative", obj{"notebook_path": "n.ipynb", "cell_id": "c1", "new_source": "z"}, "python", "x = 1\nprint(x)", "z", "cell c1 (python)", "n.c1.py", ""},
		{"missing notebook", obj{"notebook_path": "/p/other.ipynb", "cell_id": "c1", "new_source": "z"}, "python", "", "", "", "", "does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := one(nbPath, notebookFile(tt.lang))
			c, err := Reconstruct("NotebookEdit", js(t, tt.input), "/p", fs.read)
			if tt.err != "" {
				var u *Unreconstructable
				if err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if string(c.Original) != tt.orig || string(c.Proposed) != tt.prop || c.Cell.Label() != tt.label || filepath.Base(c.StagePath()) != tt.stage {
				t.Fatalf("got %q → %q, %q, %q", c.Original, c.Proposed, c.Cell.Label(), c.StagePath())
			}
			if c.Path != nbPath || filepath.Dir(c.StagePath()) != "/p" {
				t.Fatalf("paths %q %q", c.Path, c.StagePath())
			}
			if stale, err := Stale(c, fs.read); stale || err != nil {
				t.Fatalf("stale right away: %v %v", stale, err)
			}
			changed := one(nbPath, strings.Replace(notebookFile(tt.lang), "# Title", "# Other", 1))
			if stale, _ := Stale(c, changed.read); !stale {
				t.Fatal("a changed notebook is not stale")
			}
		})
	}
}

func TestAmendNotebook(t *testing.T) {
	fs := one(nbPath, notebookFile("python"))
	in := js(t, obj{"notebook_path": nbPath, "cell_id": "c1", "new_source": "x = 2\nprint(x)", "extra": []int{1}})
	c, err := Reconstruct("NotebookEdit", in, "/p", fs.read)
	if err != nil {
		t.Fatal(err)
	}
	if out, err := Amend(c, in, c.Proposed); err != nil || string(out) != string(in) {
		t.Fatalf("unchanged: %s %v", out, err)
	}
	out, err := Amend(c, in, []byte("x = 3\nprint(x)  # mine\n"))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil || got["new_source"] != "x = 3\nprint(x)  # mine\n" || got["cell_id"] != "c1" || got["extra"] == nil {
		t.Fatalf("amended %s %v", out, err)
	}
	if _, err := Amend(c, in, c.Original); !errors.Is(err, ErrNoChange) {
		t.Fatalf("put back: %v", err)
	}
	if _, err := Amend(c, in, []byte("\xff")); err == nil {
		t.Fatal("invalid UTF-8 accepted")
	}
	del := js(t, obj{"notebook_path": nbPath, "cell_id": "c2", "new_source": "", "edit_mode": "delete"})
	d, _ := Reconstruct("NotebookEdit", del, "/p", fs.read)
	if _, err := Amend(d, del, []byte("x")); err == nil {
		t.Fatal("a deletion was amended")
	}
}

// FuzzReconstructNotebook: any notebook file and input; never a panic,
// only *Unreconstructable errors, and Amend of any text sets exactly that
// new_source.
func FuzzReconstructNotebook(f *testing.F) {
	f.Add([]byte(notebookFile("python")), "c1", "x = 2", "", "", []byte("y"))
	f.Add([]byte(notebookFile("r")), "cell-1", "", "markdown", "insert", []byte(""))
	f.Add([]byte(`{"cells":[{"id":"a","source":7}]}`), "a", "s", "", "delete", []byte("s"))
	f.Add([]byte(`[]`), "a", "s", "", "", []byte("s"))
	f.Add([]byte(`{"Cells":[{"id":"c1"}]}`), "c1", "s", "", "", []byte("s"))
	f.Fuzz(func(t *testing.T, file []byte, cellID, src, cellType, mode string, saved []byte) {
		in := js(t, obj{"notebook_path": nbPath, "cell_id": cellID, "new_source": src, "cell_type": cellType, "edit_mode": mode})
		c, err := Reconstruct("NotebookEdit", in, "/p", fakeFS{files: map[string]string{nbPath: string(file)}}.read)
		if err != nil {
			var u *Unreconstructable
			if !errors.As(err, &u) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			return
		}
		var sent struct {
			Src string `json:"new_source"`
		}
		_ = json.Unmarshal(in, &sent)
		src = sent.Src
		if c.Cell == nil || string(c.Proposed) != map[bool]string{true: "", false: src}[c.Cell.Mode == "delete"] {
			t.Fatalf("change %+v", c)
		}
		out, err := Amend(c, in, saved)
		if err != nil {
			return
		}
		var got map[string]any
		if json.Unmarshal(out, &got) != nil {
			t.Fatalf("amended input is not JSON: %s", out)
		}
		if s, _ := got["new_source"].(string); s != string(saved) && !(string(saved) == string(c.Proposed) && s == src) {
			t.Fatalf("new_source %q for saved %q", s, saved)
		}
	})
}
