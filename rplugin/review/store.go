package review

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// What is kept, per session folder, under <storage>/review/<folder key>/:
//
//	comments.json          the comments (unsent ones, and the last sent)
//	rounds/<claude id>.json a session's open round: its number, since
//	                       when, and each file's content at the baseline
//	blame/<path key>.json  who wrote each line of one file
//
// Every file is written atomically (a temporary file renamed over it) and
// read defensively: a regular file only, within a size cap, its version
// and invariants checked; a file that fails is reported and not used.
const (
	version         = 1
	MaxCommentsFile = 32 << 20
	MaxRoundFile    = RoundBudget + 16<<20
	MaxBlameFile    = 3 * MaxBlameContent
	// MaxBlameContent is the largest file whose blame is kept.
	MaxBlameContent = 8 << 20
)

// FolderDir is where the review of session folder cwd is kept.
func FolderDir(storage, cwd string) string {
	cwd = filepath.Clean(cwd)
	sum := sha256.Sum256([]byte(cwd))
	base := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || (r >= '0' && r <= '9') || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') {
			return r
		}
		return '_'
	}, filepath.Base(cwd))
	if len(base) > 40 {
		base = base[:40]
	}
	if base == "" || base == "." || base == ".." {
		base = "root"
	}
	return filepath.Join(storage, "review", base+"-"+hex.EncodeToString(sum[:8]))
}

// readCapped reads a regular file of at most max bytes (never a FIFO or a
// device: opening one does not wait). A missing file is fs.ErrNotExist.
func readCapped(path string, max int64) ([]byte, error) {
	fi, err := os.Lstat(path)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: not read", path)
	}
	if fi.Size() > max {
		return nil, fmt.Errorf("%s is %d bytes, more than the %d kept: not read", path, fi.Size(), max)
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file: not read", path)
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, fmt.Errorf("%s grew past %d bytes: not read", path, max)
	}
	return data, nil
}

func write(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return atomicfile.Write(path, data, atomicfile.Options{Prefix: ".claude-nova-review-"})
}

type commentsFile struct {
	Version  int       `json:"version"`
	Cwd      string    `json:"cwd"`
	Comments []Comment `json:"comments"`
}

// LoadComments reads the comments of the folder kept in dir (none yet: an
// empty list).
func LoadComments(dir string) (*Comments, error) {
	data, err := readCapped(filepath.Join(dir, "comments.json"), MaxCommentsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return &Comments{}, nil
	}
	if err != nil {
		return &Comments{}, err
	}
	return DecodeComments(data)
}

// DecodeComments decodes a comments file; comments that break the rules
// (no id, no path, no line, no text) are left out, and said so.
func DecodeComments(data []byte) (*Comments, error) {
	var f commentsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return &Comments{}, fmt.Errorf("comments file: %w", err)
	}
	if f.Version != version {
		return &Comments{}, fmt.Errorf("comments file: version %d, not %d", f.Version, version)
	}
	cs := &Comments{}
	bad := 0
	seen := map[string]bool{}
	for _, c := range f.Comments {
		if c.ID == "" || seen[c.ID] || !filepath.IsAbs(c.Path) || c.From < 1 || c.To < c.From ||
			strings.TrimSpace(c.Text) == "" || len(c.Text) > MaxCommentText || len(c.Code) > MaxCommentCode {
			bad++
			continue
		}
		seen[c.ID] = true
		c.Path = filepath.Clean(c.Path)
		cs.list = append(cs.list, c)
	}
	if bad > 0 {
		return cs, fmt.Errorf("comments file: %d comment(s) left out (malformed)", bad)
	}
	return cs, nil
}

// SaveComments keeps cs for folder cwd in dir.
func SaveComments(dir, cwd string, cs *Comments) error {
	list := cs.list
	if list == nil {
		list = []Comment{}
	}
	return write(filepath.Join(dir, "comments.json"), commentsFile{Version: version, Cwd: cwd, Comments: list})
}

var idRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$`)

type roundFile struct {
	Version int                 `json:"version"`
	N       int                 `json:"n"`
	Since   int64               `json:"since"`
	Files   map[string]Baseline `json:"files"`
	Order   []string            `json:"order"`
	Tracked map[string]Baseline `json:"tracked"`
}

func roundPath(dir, claudeID string) (string, error) {
	if !idRE.MatchString(claudeID) {
		return "", fmt.Errorf("%q is not a session id", claudeID)
	}
	return filepath.Join(dir, "rounds", claudeID+".json"), nil
}

// LoadRound reads the open round of claude session claudeID (nil, nil when
// none is kept).
func LoadRound(dir, claudeID string) (*Round, error) {
	p, err := roundPath(dir, claudeID)
	if err != nil {
		return nil, err
	}
	data, err := readCapped(p, MaxRoundFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return DecodeRound(data)
}

// DecodeRound decodes a round file.
func DecodeRound(data []byte) (*Round, error) {
	var f roundFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("round file: %w", err)
	}
	if f.Version != version || f.N < 1 {
		return nil, fmt.Errorf("round file: version %d, round %d", f.Version, f.N)
	}
	r := NewRound(f.N, time.Unix(f.Since, 0))
	seen := map[string]bool{}
	for _, p := range f.Order {
		b, ok := f.Files[p]
		if !ok || seen[p] || !filepath.IsAbs(p) {
			continue
		}
		seen[p] = true
		r.add(filepath.Clean(p), b)
	}
	for p, b := range f.Tracked {
		if filepath.IsAbs(p) {
			r.tracked[filepath.Clean(p)] = b
		}
	}
	return r, nil
}

// SaveRound keeps r as the open round of claude session claudeID.
func SaveRound(dir, claudeID string, r *Round) error {
	p, err := roundPath(dir, claudeID)
	if err != nil {
		return err
	}
	return write(p, roundFile{Version: version, N: r.N, Since: r.Since.Unix(), Files: r.files, Order: r.order, Tracked: r.tracked})
}

type blameFile struct {
	Version int      `json:"version"`
	Path    string   `json:"path"`
	Content string   `json:"content"`
	Authors []Author `json:"authors"`
	Runs    [][2]int `json:"runs"` // [author, lines]
}

func blamePath(dir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dir, "blame", hex.EncodeToString(sum[:12])+".json")
}

// HasBlame reports whether dir keeps a blame of path (no read).
func HasBlame(dir, path string) bool {
	fi, err := os.Lstat(blamePath(dir, path))
	return err == nil && fi.Mode().IsRegular()
}

// LoadBlame reads the blame of path kept in dir (nil, nil when none).
func LoadBlame(dir, path string) (*Blame, error) {
	data, err := readCapped(blamePath(dir, path), MaxBlameFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	b, err := DecodeBlame(data)
	if err != nil {
		return nil, err
	}
	if b.Path != path {
		return nil, fmt.Errorf("blame file of %s names %s", path, b.Path)
	}
	return b, nil
}

// DecodeBlame decodes a blame file and checks it: its runs cover every line
// of its content, each naming one of its authors, and its first author is
// You.
func DecodeBlame(data []byte) (*Blame, error) {
	var f blameFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("blame file: %w", err)
	}
	if f.Version != version {
		return nil, fmt.Errorf("blame file: version %d, not %d", f.Version, version)
	}
	if !filepath.IsAbs(f.Path) || len(f.Content) > MaxBlameContent || len(f.Authors) == 0 || f.Authors[0] != you {
		return nil, errors.New("blame file: malformed")
	}
	n := len(diff.SplitLines(f.Content))
	lines := make([]int, 0, n)
	for _, r := range f.Runs {
		a, k := r[0], r[1]
		if a < 0 || a >= len(f.Authors) || k < 1 || k > n-len(lines) {
			return nil, errors.New("blame file: its runs do not match its content")
		}
		for ; k > 0; k-- {
			lines = append(lines, a)
		}
	}
	if len(lines) != n {
		return nil, errors.New("blame file: its runs do not cover its content")
	}
	for _, a := range f.Authors[1:] {
		if a.Kind != Claude && a.Kind != Amended {
			return nil, fmt.Errorf("blame file: unknown author kind %q", a.Kind)
		}
	}
	b := &Blame{Path: filepath.Clean(f.Path), Content: f.Content, Authors: f.Authors, lines: lines}
	b.compact()
	return b, nil
}

// EncodeBlame is b as kept on disk.
func EncodeBlame(b *Blame) ([]byte, error) {
	return json.Marshal(blameFileOf(b))
}

func blameFileOf(b *Blame) blameFile {
	f := blameFile{Version: version, Path: b.Path, Content: b.Content, Authors: b.Authors, Runs: [][2]int{}}
	for i := 0; i < len(b.lines); {
		j := i
		for j < len(b.lines) && b.lines[j] == b.lines[i] {
			j++
		}
		f.Runs = append(f.Runs, [2]int{b.lines[i], j - i})
		i = j
	}
	return f
}

// SaveBlame keeps b in dir; a file too large to keep has its blame removed.
func SaveBlame(dir string, b *Blame) error {
	p := blamePath(dir, b.Path)
	if len(b.Content) > MaxBlameContent {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return fmt.Errorf("%s is larger than %d bytes: who wrote its lines is not kept", b.Path, MaxBlameContent)
	}
	return write(p, blameFileOf(b))
}
