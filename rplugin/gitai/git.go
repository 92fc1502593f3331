package gitai

import (
	"context"
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/gitcmd"
)

// Show returns the note of commit rev in the repository at dir (found
// false when it has none).
func Show(ctx context.Context, dir, rev string) (text string, found bool, err error) {
	list, err := gitcmd.Run(ctx, dir, "notes", "--ref="+Ref, "list", rev)
	if err != nil {
		if strings.Contains(err.Error(), "no note found") {
			return "", false, nil
		}
		return "", false, fmt.Errorf("find the note of %s: %w", rev, err)
	}
	out, err := gitcmd.Bytes(ctx, dir, nil, "cat-file", "blob", list)
	if err != nil {
		return "", false, fmt.Errorf("read the note of %s: %w", rev, err)
	}
	return string(out), true, nil
}

// Add writes text as the note of commit sha. It fails when the commit
// has one, unless replace (another tool's note with ours added to it, see
// AddTo: never a note written over). The notes ref's own commit is
// made as who (name, email), when given: the commit's committer, so a
// note is written where git knows no identity of its own.
func Add(ctx context.Context, dir, sha, text string, replace bool, who ...string) error {
	var args []string
	if len(who) == 2 && who[0] != "" && who[1] != "" {
		args = append(args, "-c", "user.name="+who[0], "-c", "user.email="+who[1])
	}
	args = append(args, "notes", "--ref="+Ref, "add")
	if replace {
		args = append(args, "-f")
	}
	args = append(args, "-F", "-", sha)
	if _, err := gitcmd.Bytes(ctx, dir, strings.NewReader(text), args...); err != nil {
		return fmt.Errorf("write the note of %s: %w", sha, err)
	}
	return nil
}
