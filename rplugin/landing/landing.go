// Package landing writes a change into the user's files: a merged file, a
// rewound one. It is the one way the host itself writes a file of the
// user's (claude writes the files of applied proposals): atomically, with
// the mode the change carries, never through a link out of the project.
// Telling the editor (buffers follow the disk) is the desk's Landed.
package landing

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
)

// File is one file's new state.
type File struct {
	Path    string // absolute
	Content []byte
	Remove  bool        // delete it instead (no error when it is gone)
	Mode    os.FileMode // its mode; 0: as it is now (0o644 for a new file)
	// Root is the project's top folder: the file's folder must resolve
	// inside it ("" : not checked).
	Root string
	// Prefix names the temporary file (".claude-nova-" when "").
	Prefix string
}

// ErrOutside says a file's folder leads out of the project (a link).
var ErrOutside = errors.New("its folder leads out of the project")

// Write gives f.Path its new state.
func Write(f File) error {
	if f.Root != "" {
		if err := inside(f.Root, filepath.Dir(f.Path)); err != nil {
			return fmt.Errorf("write %s: %w", f.Path, err)
		}
	}
	if f.Remove {
		if err := os.Remove(f.Path); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("delete %s: %w", f.Path, err)
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o755); err != nil {
		return fmt.Errorf("create the folder of %s: %w", f.Path, err)
	}
	perm := f.Mode
	if perm == 0 {
		perm = 0o644
		if st, err := os.Stat(f.Path); err == nil {
			perm = st.Mode().Perm()
		}
	}
	prefix := f.Prefix
	if prefix == "" {
		prefix = ".claude-nova-"
	}
	if err := atomicfile.Write(f.Path, f.Content, atomicfile.Options{Perm: perm, Prefix: prefix}); err != nil {
		return err
	}
	if f.Mode != 0 {
		// The mode is the change's own, whatever the umask says.
		if err := os.Chmod(f.Path, f.Mode); err != nil {
			return fmt.Errorf("chmod %s: %w", f.Path, err)
		}
	}
	return nil
}

// inside checks that dir (or the part of it that exists) resolves inside
// root.
func inside(root, dir string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return fmt.Errorf("the project folder %s: %w", root, err)
	}
	d := dir
	for {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			break
		}
		d = parent
	}
	rd, err := filepath.EvalSymlinks(d)
	if err != nil {
		return fmt.Errorf("resolve %s: %w", d, err)
	}
	if rd != r && !strings.HasPrefix(rd, r+string(filepath.Separator)) {
		return ErrOutside
	}
	return nil
}
