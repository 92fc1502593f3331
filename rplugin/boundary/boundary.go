// Package boundary decides whether something the editor holds may reach
// Claude unasked: a path is inside the session's folders (its working
// directory and every folder added with --add-dir or the CLI's
// permissions.additionalDirectories), granted (by the user for the session,
// or by one of the CLI's own Read allow rules), refused (by a Read deny
// rule), or outside (the user is asked). Every path is resolved first:
// file:// URIs decoded, relative paths taken against the session's folder,
// ".." and symlinks followed as the file system follows them; a name that
// is not a file (term://…, claudenova://…, an unnamed buffer) is never
// inside.
//
// The package is pure: it reads the file system (to resolve links) and
// nothing else. The app gives it the folders, the CLI's rules (read through
// the CLI with get_settings) and the session's grants.
package boundary

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotFile is returned by Resolve for a name that is not a file path.
var ErrNotFile = errors.New("not a file")

// maxLinks bounds the symlinks one resolution follows (a loop ends there).
const maxLinks = 40

// Resolve returns the real, absolute, clean path that name reaches from cwd:
// a file:// URI is decoded, a relative name is taken against cwd, and each
// component is followed as the file system does (a symlink is replaced by
// its target, ".." goes to the parent of what was reached so far). The part
// of a path that does not exist (a new file) is appended as written,
// cleaned. A name with another scheme (term://, claudenova://…) or an empty
// name is ErrNotFile.
func Resolve(name, cwd string) (string, error) {
	p, err := filePath(name)
	if err != nil {
		return "", err
	}
	if !filepath.IsAbs(p) {
		if cwd == "" || !filepath.IsAbs(cwd) {
			return "", fmt.Errorf("%q is relative and there is no folder to take it against: %w", name, ErrNotFile)
		}
		p = cwd + string(filepath.Separator) + p
	}
	links := 0
	return walk("/", p, &links)
}

// filePath is the file path a name stands for.
func filePath(name string) (string, error) {
	if strings.TrimSpace(name) == "" || strings.ContainsRune(name, 0) {
		return "", ErrNotFile
	}
	if i := strings.Index(name, "://"); i > 0 && isScheme(name[:i]) {
		if !strings.EqualFold(name[:i], "file") {
			return "", fmt.Errorf("%q: %w", name, ErrNotFile)
		}
		u, err := url.Parse(name)
		if err != nil || (u.Host != "" && u.Host != "localhost") || u.Path == "" {
			return "", fmt.Errorf("%q is not a local file URI: %w", name, ErrNotFile)
		}
		return u.Path, nil
	}
	return name, nil
}

func isScheme(s string) bool {
	for i, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z':
		case i > 0 && (r >= '0' && r <= '9' || r == '+' || r == '-' || r == '.'):
		default:
			return false
		}
	}
	return s != ""
}

// walk resolves the components of p (absolute) starting from base, which is
// already real.
func walk(base, p string, links *int) (string, error) {
	cur := base
	parts := strings.Split(p, string(filepath.Separator))
	for i, part := range parts {
		switch part {
		case "", ".":
			continue
		case "..":
			cur = filepath.Dir(cur)
			continue
		}
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			// Not there (or not reachable): the rest is taken as written.
			rest := strings.Join(parts[i:], string(filepath.Separator))
			return filepath.Join(cur, filepath.Clean(string(filepath.Separator)+rest)), nil
		}
		if fi.Mode()&os.ModeSymlink == 0 {
			cur = next
			continue
		}
		*links++
		if *links > maxLinks {
			return "", fmt.Errorf("%s: too many levels of symbolic links", next)
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", fmt.Errorf("resolve %s: %w", next, err)
		}
		from := cur
		if filepath.IsAbs(target) {
			from = "/"
		}
		if cur, err = walk(from, target, links); err != nil {
			return "", err
		}
	}
	return cur, nil
}

// Within reports whether path is dir or below it (both real and clean).
func Within(dir, path string) bool {
	if dir == "" || path == "" {
		return false
	}
	if dir == "/" {
		return strings.HasPrefix(path, "/")
	}
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

// Folders are a session's folders, each resolved: the first is its working
// directory.
type Folders []string

// NewFolders resolves cwd and dirs (relative ones against cwd, "~/" against
// home); a folder that cannot be resolved is left out, and so is a repeat.
func NewFolders(cwd, home string, dirs ...string) Folders {
	var out Folders
	seen := map[string]bool{}
	for _, d := range append([]string{cwd}, dirs...) {
		d = expandHome(d, home)
		r, err := Resolve(d, cwd)
		if err != nil || seen[r] {
			continue
		}
		seen[r] = true
		out = append(out, r)
	}
	return out
}

// Holding returns the folder that holds real, "" when none does.
func (f Folders) Holding(real string) string {
	for _, d := range f {
		if Within(d, real) {
			return d
		}
	}
	return ""
}

func expandHome(p, home string) string {
	if home == "" {
		return p
	}
	if p == "~" {
		return home
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// Show is how a person reads a real path: relative to the session's folder
// when inside it, "~/…" under home, else absolute.
func Show(real, cwd, home string) string {
	if cwd != "" && Within(cwd, real) {
		if rel, err := filepath.Rel(cwd, real); err == nil {
			return rel
		}
	}
	if home != "" && home != "/" && Within(home, real) {
		if rel, err := filepath.Rel(home, real); err == nil {
			if rel == "." {
				return "~"
			}
			return "~/" + rel
		}
	}
	return real
}

// AddDirs are the folders given with --add-dir in claude's arguments
// (the flag takes one or more folders, up to the next option; also
// --add-dir=path).
func AddDirs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if v, ok := strings.CutPrefix(a, "--add-dir="); ok {
			if v != "" {
				out = append(out, v)
			}
			continue
		}
		if a != "--add-dir" {
			continue
		}
		for i+1 < len(args) && !strings.HasPrefix(args[i+1], "-") {
			i++
			out = append(out, args[i])
		}
	}
	return out
}
