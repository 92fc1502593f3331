package boundary

import (
	"errors"
	"path/filepath"
	"sort"
	"sync"
)

// Place is where a path stands for a session.
type Place int

// The places, from most to least open.
const (
	Inside  Place = iota // in one of the session's folders
	Granted              // outside, but the user or a Read allow rule lets it through
	Outside              // outside: the user is asked
	Refused              // a Read deny rule of the user's covers it
)

func (p Place) String() string {
	return [...]string{"inside", "granted", "outside", "refused"}[p]
}

// Open reports whether what comes from the path may reach Claude unasked.
func (p Place) Open() bool { return p == Inside || p == Granted }

// Check is what Policy.Check found out about one name.
type Check struct {
	Place Place
	// Real is the resolved path ("" when the name is not a file).
	Real string
	// NotFile: the name is not a file (a terminal, a claude-nova buffer, an
	// unnamed buffer); it is never inside.
	NotFile bool
	// Why names what decided a Granted or Refused place: the rule as
	// written, or "you allowed it for this session".
	Why string
}

// Policy is one session's boundary at one moment.
type Policy struct {
	Cwd     string
	Folders Folders
	Rules   Rules
	Grants  *Grants // nil: none
}

// Check resolves name (as the model or the editor gave it; relative names
// are taken against the session's folder) and says where it stands. A deny
// rule refuses whatever the name reaches, also through a symlink, also
// inside; the rest is inside a folder, granted, or outside.
func (p Policy) Check(name string) Check {
	real, err := Resolve(name, p.Cwd)
	if err != nil {
		if errors.Is(err, ErrNotFile) {
			return Check{Place: Outside, NotFile: true}
		}
		return Check{Place: Outside}
	}
	lexical := ""
	if fp, ferr := filePath(name); ferr == nil {
		if !filepath.IsAbs(fp) && p.Cwd != "" {
			fp = filepath.Join(p.Cwd, fp)
		}
		lexical = filepath.Clean(fp)
	}
	c := Check{Real: real}
	if d, ok := p.Rules.Denying(real, lexical); ok {
		c.Place, c.Why = Refused, d.Rule
		return c
	}
	switch {
	case p.Folders.Holding(real) != "":
		c.Place = Inside
	case p.Grants.Covers(real) != "":
		c.Place, c.Why = Granted, p.Grants.Covers(real)
	default:
		if a, ok := p.Rules.Allowing(real); ok {
			c.Place, c.Why = Granted, a.Rule
		} else {
			c.Place = Outside
		}
	}
	return c
}

// Grants are what the user allowed a session to read outside its folders:
// single files and whole folders. Safe for concurrent use.
type Grants struct {
	mu      sync.Mutex
	files   map[string]bool
	folders map[string]bool
}

// AllowFile lets real through for the rest of the session.
func (g *Grants) AllowFile(real string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.files == nil {
		g.files = map[string]bool{}
	}
	g.files[filepath.Clean(real)] = true
}

// AllowFolder lets everything under dir through for the rest of the session.
func (g *Grants) AllowFolder(dir string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.folders == nil {
		g.folders = map[string]bool{}
	}
	g.folders[filepath.Clean(dir)] = true
}

// Covers says why real is granted ("" when it is not).
func (g *Grants) Covers(real string) string {
	if g == nil {
		return ""
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.files[real] {
		return "you allowed " + real + " for this session"
	}
	for d := range g.folders {
		if Within(d, real) {
			return "you allowed " + d + " for this session"
		}
	}
	return ""
}

// List returns the granted files and folders, sorted (folders end in "/").
func (g *Grants) List() []string {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for f := range g.files {
		out = append(out, f)
	}
	for d := range g.folders {
		out = append(out, d+"/")
	}
	sort.Strings(out)
	return out
}
