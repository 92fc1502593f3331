package session

import (
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
