package attempts

import (
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/worktree"
)

func TestShortStem(t *testing.T) {
	for _, tc := range []struct{ prompt, want string }{
		{"fix the login check", "fix-login"},
		{"Fix the login bug, please", "fix-login"},
		{"refactor", "refactor"},
		{"internationalization everywhere", "internationa"},
		{"the a an", ""},
		{`SEQ [["Edit",{"file_path":"a.txt"}]]`, "seq-edit"},
		{"add a --count flag to new", "add-count"},
	} {
		if got := shortStem(worktree.Slug(tc.prompt)); got != tc.want {
			t.Errorf("shortStem(%q) = %q, want %q", tc.prompt, got, tc.want)
		}
		if got := shortStem(worktree.Slug(tc.prompt)); len(got) > maxStem {
			t.Errorf("shortStem(%q) = %q: longer than %d", tc.prompt, got, maxStem)
		}
	}
}

func TestStemOf(t *testing.T) {
	for label, want := range map[string]string{"fix-login #2": "fix-login", "fix-login-2 #10": "fix-login-2", "plain": "plain"} {
		if got := stemOf(label); got != want {
			t.Errorf("stemOf(%q) = %q, want %q", label, got, want)
		}
	}
}
