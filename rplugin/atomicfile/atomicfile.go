// Package atomicfile writes a file so that a reader sees it whole, old or
// new, never half written: the content goes to a temporary file in the same
// folder, which is renamed over the file.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Options of a Write.
type Options struct {
	// Perm is the file's mode (default 0600).
	Perm fs.FileMode
	// Prefix names the temporary file (default ".claude-nova-"): a folder
	// sweep can tell it from the files it holds.
	Prefix string
	// Check runs once the content is written, just before the rename; an
	// error from it leaves the file as it was (a settings file that changed
	// meanwhile is not written over).
	Check func() error
}

// Write writes content to path (see the package comment). The folder must
// exist.
func Write(path string, content []byte, o Options) error {
	if o.Perm == 0 {
		o.Perm = 0o600
	}
	if o.Prefix == "" {
		o.Prefix = ".claude-nova-"
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), o.Prefix+"*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // nothing to remove after the rename
	_, werr := tmp.Write(content)
	cerr := tmp.Chmod(o.Perm)
	if err := errors.Join(werr, cerr, tmp.Close()); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if o.Check != nil {
		if err := o.Check(); err != nil {
			return err
		}
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
