package proposal

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

const (
	// markerName is the file in each proposal directory that records the
	// request it belongs to and the process that staged it.
	markerName = ".claudenova-request"
	// reservedPrefix starts the names Stage uses for itself (the marker,
	// temporary files); a staged basename never starts with it.
	reservedPrefix = ".claudenova-"
	maxNameBytes   = 255
	maxExtBytes    = 32
	maxCollisions  = 100
)

// Stage writes content to <storage>/proposed/<dir>/<basename> and returns
// that path. Directories are 0700, the file 0600.
//
// Every call makes a directory of its own, created exclusively (mkdir), and
// the file in it is created exclusively too: a staged file is never one
// another request, session or Neovim sharing the storage staged, whatever
// their request ids (two merges of two repositories' worktrees of one name
// have the same one). Stage the same request again with Restage.
//
// storage must be an absolute path; it is created (0700) when missing and
// may itself be or lie under a symlink: it is resolved with EvalSymlinks.
// Below it nothing may be a symlink: a symlinked "proposed" directory is
// refused.
//
// <dir> is "<id>-<8 random hex>": <id> is the last 8 characters of
// requestID after dropping everything but [A-Za-z0-9_-]; a shorter
// remainder is padded with the hex SHA-256 of the raw requestID (so "" and
// "a/b" still get 8 characters, different from each other). The directory
// records a hash of the request id and the process that staged it.
//
// <basename> is filepath.Base(path) with terminal escape sequences, control
// and bidi characters, invalid UTF-8, path separators and the characters
// Windows forbids (:*?"<>|) removed, cut to 255 bytes keeping the extension
// (when it is at most 32 bytes); a name left empty, made only of dots and
// spaces, is replaced by "proposal", and one starting with ".claudenova-"
// gets a "_" prefix. The result is verified to be exactly two levels below
// <storage>/proposed.
func Stage(storage, requestID, path string, content []byte) (staged string, err error) {
	root, err := proposedRoot(storage, true)
	if err != nil {
		return "", err
	}
	base := stageName(path)
	id := dirID(requestID)
	marker := fmt.Sprintf("claudenova proposal\nrequest %s\npid %d\n", requestTag(requestID), os.Getpid())
	for range maxCollisions {
		dir := filepath.Join(root, id+"-"+Token())
		staged = filepath.Join(dir, base)
		if err := inside(root, staged); err != nil {
			return "", err
		}
		switch err := os.Mkdir(dir, 0o700); {
		case err == nil:
			if err := os.Chmod(dir, 0o700); err != nil {
				os.RemoveAll(dir)
				return "", err
			}
			if err := createExclusive(dir, markerName, []byte(marker)); err != nil {
				os.RemoveAll(dir)
				return "", err
			}
			if err := createExclusive(dir, base, content); err != nil {
				os.RemoveAll(dir)
				return "", err
			}
			return staged, nil
		case errors.Is(err, fs.ErrExist):
			// Taken (by anyone, or squatted by a file or a symlink): never
			// written into; another name.
		default:
			return "", err
		}
	}
	return "", fmt.Errorf("proposal: no free directory for request %q under %s", cleanDisplay(requestID), root)
}

// Restage replaces the content of staged, a file Stage returned for the
// same request (requestID) in this process and storage: a pending proposal
// staged again (rebased onto a file changed on disk). It is written to a
// temporary file renamed into place, so a reader never sees it half
// written and a symlink planted at its name is replaced, not followed.
// Anything else is refused and left as it is: a path that is not
// <storage>/proposed/<dir>/<file>, a directory that is a symlink, or whose
// marker names another request or another process.
func Restage(storage, requestID, staged string, content []byte) error {
	root, err := proposedRoot(storage, false)
	if err != nil {
		return err
	}
	staged = filepath.Clean(staged)
	rel, ok := relTwo(root, staged)
	if !ok {
		// Also accept a path built on the unresolved storage path.
		if rel, ok = relTwo(filepath.Join(filepath.Clean(storage), "proposed"), staged); !ok {
			return fmt.Errorf("proposal: %s is not a staged proposal under %s", cleanDisplay(staged), root)
		}
	}
	parts := strings.SplitN(rel, string(filepath.Separator), 2)
	dir := filepath.Join(root, parts[0])
	if err := inside(root, filepath.Join(dir, parts[1])); err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); err != nil {
		return err
	} else if !fi.IsDir() {
		return fmt.Errorf("proposal: %s is not a directory", cleanDisplay(dir))
	}
	m, ok := readMarker(dir)
	if !ok || m.request != requestTag(requestID) || m.pid != os.Getpid() {
		return fmt.Errorf("proposal: %s was not staged for request %q here: not written", cleanDisplay(staged), cleanDisplay(requestID))
	}
	return writeFileAtomic(dir, parts[1], content)
}

// Token returns 8 random hex characters: a part of a name that no other
// request, session or Neovim sharing the storage has.
func Token() string {
	b := make([]byte, 4)
	_, _ = rand.Read(b) // never fails (crypto/rand panics instead)
	return hex.EncodeToString(b)
}

// Unstage removes a staged file and its directory (with anything else in
// it, such as an editor's backup file). staged must be a path returned by
// Stage for the same storage: exactly two levels below
// <storage>/proposed, the directory not a symlink; anything else is refused.
// Removing what is already gone is not an error.
func Unstage(storage, staged string) error {
	root, err := proposedRoot(storage, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	}
	staged = filepath.Clean(staged)
	rel, ok := relTwo(root, staged)
	if !ok {
		// Also accept a path built on the unresolved storage path.
		if rel, ok = relTwo(filepath.Join(filepath.Clean(storage), "proposed"), staged); !ok {
			return fmt.Errorf("proposal: %s is not a staged proposal under %s", cleanDisplay(staged), root)
		}
	}
	dir := filepath.Join(root, strings.SplitN(rel, string(filepath.Separator), 2)[0])
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("proposal: %s is not a directory", cleanDisplay(dir))
	}
	return os.RemoveAll(dir)
}

// CleanStale removes every entry of <storage>/proposed whose name is not in
// keep (keep holds the names of live proposal directories,
// filepath.Base(filepath.Dir(staged))), except directories staged by
// another process that is still running (another Neovim's host sharing the
// storage: its proposals are live, only it knows). Directories staged by
// this process, by a process that has exited, or without a marker go.
// Symlinks are removed themselves, never followed; nothing outside
// <storage>/proposed is touched. A missing storage is not an error.
//
// Callers must not run CleanStale concurrently with their own Stage: a
// directory being staged is not yet in keep.
func CleanStale(storage string, keep map[string]bool) (removed int, err error) {
	root, err := proposedRoot(storage, false)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return 0, nil
		}
		return 0, err
	}
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0, err
	}
	self := os.Getpid()
	var errs []error
	for _, e := range entries {
		if keep[e.Name()] {
			continue
		}
		p := filepath.Join(root, e.Name())
		if err := inside(root, p); err != nil {
			errs = append(errs, err)
			continue
		}
		if e.Type().IsDir() {
			if m, ok := readMarker(p); ok && m.pid != self && m.pid > 0 && processAlive(m.pid) {
				continue
			}
			err = os.RemoveAll(p)
		} else {
			err = os.Remove(p)
		}
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

// proposedRoot returns the resolved <storage>/proposed, creating storage and
// it (0700) when create is set. It refuses a relative storage and a
// "proposed" that is a symlink or not a directory.
func proposedRoot(storage string, create bool) (string, error) {
	if storage == "" || !filepath.IsAbs(storage) {
		return "", fmt.Errorf("proposal: storage %q is not an absolute path", cleanDisplay(storage))
	}
	if create {
		if err := os.MkdirAll(storage, 0o700); err != nil {
			return "", err
		}
	}
	real, err := filepath.EvalSymlinks(storage)
	if err != nil {
		return "", err
	}
	root := filepath.Join(real, "proposed")
	fi, err := os.Lstat(root)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err = os.Mkdir(root, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return "", err
		}
		fi, err = os.Lstat(root)
	}
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "", fmt.Errorf("proposal: %s is a symlink", root)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("proposal: %s is not a directory", root)
	}
	if create && fi.Mode().Perm() != 0o700 {
		if err := os.Chmod(root, 0o700); err != nil {
			return "", err
		}
	}
	return root, nil
}

// inside verifies that p is root/<dir> or root/<dir>/<file>, with no
// component escaping root.
func inside(root, p string) error {
	rel, err := filepath.Rel(root, p)
	if err != nil || rel == "." || !filepath.IsLocal(rel) || strings.Count(rel, string(filepath.Separator)) > 1 {
		return fmt.Errorf("proposal: %s is outside %s", cleanDisplay(p), root)
	}
	return nil
}

// relTwo returns p relative to root when it is exactly root/<dir>/<file>.
func relTwo(root, p string) (string, bool) {
	rel, err := filepath.Rel(root, p)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	if len(parts) != 2 || parts[0] == "" || parts[1] == "" {
		return "", false
	}
	return rel, true
}

// writeFileAtomic writes dir/name (0600) through a temporary file renamed
// into place. dir must not be a symlink.
func writeFileAtomic(dir, name string, content []byte) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("proposal: %s is not a directory", dir)
	}
	return atomicfile.Write(filepath.Join(dir, name), content, atomicfile.Options{Perm: 0o600, Prefix: reservedPrefix + "stage-"})
}

// createExclusive creates dir/name (0600), failing when anything exists
// there (a symlink included: it is not followed), and writes content.
func createExclusive(dir, name string, content []byte) error {
	p := filepath.Join(dir, name)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	err = f.Chmod(0o600) // whatever the umask
	if err == nil {
		_, err = f.Write(content)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(p)
	}
	return err
}

type marker struct {
	request string
	pid     int
}

func readMarker(dir string) (marker, bool) {
	p := filepath.Join(dir, markerName)
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return marker{}, false
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return marker{}, false
	}
	var m marker
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		switch k {
		case "request":
			m.request = v
		case "pid":
			m.pid, _ = strconv.Atoi(v)
		}
	}
	return m, m.request != ""
}

func requestTag(requestID string) string {
	sum := sha256.Sum256([]byte(requestID))
	return hex.EncodeToString(sum[:])
}

// dirID is the last 8 characters of requestID among [A-Za-z0-9_-], padded
// with its hash when fewer remain.
func dirID(requestID string) string {
	var b strings.Builder
	for i := 0; i < len(requestID); i++ {
		c := requestID[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' {
			b.WriteByte(c)
		}
	}
	s := b.String()
	if len(s) >= 8 {
		return s[len(s)-8:]
	}
	return s + requestTag(requestID)[:8-len(s)]
}

// stageName turns the base name of path into a safe file name that keeps
// the extension.
func stageName(path string) string {
	name := dropUnsafe(filepath.Base(path), true)
	if len(name) > maxNameBytes {
		ext := filepath.Ext(name)
		if len(ext) > maxExtBytes || len(ext) == len(name) {
			ext = ""
		}
		name = truncUTF8(name[:len(name)-len(ext)], maxNameBytes-len(ext)) + ext
	}
	if strings.Trim(name, ". ") == "" {
		return "proposal"
	}
	if strings.HasPrefix(name, reservedPrefix) {
		name = truncUTF8("_"+name, maxNameBytes)
	}
	return name
}

// dropUnsafe is s without escapes, control, bidi and zero-width characters
// and invalid UTF-8 (sanitize.Strip); for a file name also without path
// separators and the characters Windows forbids.
func dropUnsafe(s string, fileName bool) string {
	s = sanitize.Strip(s)
	if !fileName {
		return s
	}
	return strings.Map(func(r rune) rune {
		if strings.ContainsRune(`/\:*?"<>|`, r) {
			return -1
		}
		return r
	}, s)
}

// truncUTF8 cuts s to at most n bytes without splitting a character.
func truncUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}
