package pr

import (
	"reflect"
	"testing"
)

func TestMessage(t *testing.T) {
	cases := []struct {
		prompts, files []string
		want           string
	}{
		{[]string{"fix the login page\nand its test", "also the logout"}, []string{"a.txt"},
			"fix the login page\n\nPrompts:\n- fix the login page and its test\n- also the logout\n\nFiles:\n- a.txt\n"},
		{nil, nil, "Changes made in a Claude session\n"},
		{[]string{"  ", "\x1b[31mred\x1b[0m"}, nil, "red\n\nPrompts:\n- red\n"},
	}
	for _, c := range cases {
		if got := Message(c.prompts, c.files); got != c.want {
			t.Errorf("Message(%q, %q) = %q, want %q", c.prompts, c.files, got, c.want)
		}
	}
}

func TestClean(t *testing.T) {
	cases := map[string]string{
		"Title\n\nbody\n# :w commits\n#   a.txt\n": "Title\n\nbody",
		"# only comments\n\n":                      "",
		"\n\nTitle  \r\n":                          "Title",
		"Title\n #not a comment":                   "Title\n #not a comment",
	}
	for in, want := range cases {
		if got := Clean(in); got != want {
			t.Errorf("Clean(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDirtyFiles(t *testing.T) {
	got := dirtyFiles(" M a.txt\x00?? new dir/b.txt\x00R  c.txt\x00old.txt\x00D  gone.txt\x00")
	want := []string{"a.txt", "new dir/b.txt", "c.txt", "gone.txt"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("dirtyFiles = %q, want %q", got, want)
	}
}

func TestPushURL(t *testing.T) {
	cases := map[string]string{
		"remote: \nremote: Create a pull request for 'x' on GitHub by visiting:\nremote:      https://github.com/o/r/pull/new/x\nremote: \nTo github.com:o/r.git": "https://github.com/o/r/pull/new/x",
		"To /tmp/remote.git\n * [new branch]      x -> x": "",
	}
	for in, want := range cases {
		if got := pushURL(in); got != want {
			t.Errorf("pushURL(%q) = %q, want %q", in, got, want)
		}
	}
}
