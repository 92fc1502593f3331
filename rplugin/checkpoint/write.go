package checkpoint

import (
	"fmt"
	"os"

	"github.com/claude-nova/claude-nova.nvim/rplugin/atomicfile"
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
	if err := atomicfile.Write(path, []byte(content), atomicfile.Options{Perm: fi.Mode().Perm(), Prefix: ".claude-nova-restore-"}); err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	return nil
}
