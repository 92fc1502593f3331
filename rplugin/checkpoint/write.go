package checkpoint

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// Restore writes content to path atomically (a temporary file renamed over
// it, keeping its permissions). With remove, path is deleted instead (a
// file the turn created, all of whose lines were undone). A link, or
// anything that is not a regular file, is refused, as claude's own rewind
// refuses it.
func Restore(path, content string, remove bool) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("restore %s: not a regular file (a link is left alone)", path)
	}
	if remove {
		return os.Remove(path)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".claude-nova-restore-*")
	if err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.WriteString(content)
	cerr := tmp.Chmod(fi.Mode().Perm())
	if err := errors.Join(werr, cerr, tmp.Close()); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("restore %s: %w", path, err)
	}
	return nil
}
