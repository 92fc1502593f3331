package transcript

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
)

// CleanSpills removes the transcript folders (dir/<pid>) of host processes
// that are gone. A missing dir is not an error.
func CleanSpills(dir string) (removed int, err error) {
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var errs []error
	for _, e := range ents {
		pid, perr := strconv.Atoi(e.Name())
		if perr != nil || !e.IsDir() || pid == os.Getpid() || alive(pid) {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dir, e.Name())); err != nil {
			errs = append(errs, err)
			continue
		}
		removed++
	}
	return removed, errors.Join(errs...)
}

func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// Spill makes the transcript keep about keep lines in memory and append
// older ones to path; whole tool results that were cut go next to it.
func (t *Transcript) Spill(path string, keep int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.page.spill, t.page.keep = path, max(keep, 100)
}

// trim moves the oldest lines to the spill file once a quarter more than
// keep are in memory. Callers hold mu.
func (pg *page) trim(t *Transcript) {
	if pg.spill == "" || pg.spillErr != nil || len(pg.lines) <= pg.keep+pg.keep/4 {
		return
	}
	n := len(pg.lines) - pg.keep
	// Never spill a draft being streamed, which still changes, unless it
	// is large: then its finished lines go (its last line stays), and the
	// finished block keeps the draft instead of replacing it (keepDraft).
	// Nor the block of an agent at work (its lines go beneath its call),
	// unless it is huge.
	for _, d := range t.streaming.drafts {
		if d.done > pg.keep/4 {
			d.spilled = true
			n = min(n, d.start+d.done-pg.base)
			continue
		}
		n = min(n, d.start-pg.base)
	}
	for _, tc := range t.calling.tools {
		if tc.live && tc.depth == 0 && tc.details < pg.keep/2 {
			n = min(n, tc.line-pg.base)
		}
	}
	if n <= 0 {
		return
	}
	if err := appendFile(pg.spill, pg.lines[:n]); err != nil {
		pg.spillErr = err // keep everything in memory from now on
		return
	}
	rest := make([]string, len(pg.lines)-n, pg.keep+pg.keep/4+1)
	copy(rest, pg.lines[n:])
	pg.lines = rest
	pg.base += n
}

func appendFile(path string, lines []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for _, l := range lines {
		w.WriteString(l)
		w.WriteByte('\n')
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
