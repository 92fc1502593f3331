package claude

import (
	"encoding/json"
	"testing"
)

// What the plugin writes itself is marked isSynthetic (claude then hands
// it to the model as "[MESSAGE FROM NON-USER SOURCE - NOT USER INPUT]":
// 2.1.300, 2.1.328, 2.1.332 with tests/cmd/capture -synthetic); a prompt the
// user typed is not.
func TestNotesAreSynthetic(t *testing.T) {
	for _, c := range []struct {
		name      string
		line      func() ([]byte, error)
		synthetic bool
	}{
		{"a prompt", func() ([]byte, error) { return userLine("u1", "fix it") }, false},
		{"a prompt with notes", func() ([]byte, error) { return userLine("", "fix it", "a note") }, false},
		{"a note", func() ([]byte, error) { return noteLine("the user changed a.go") }, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, err := c.line()
			if err != nil {
				t.Fatal(err)
			}
			var v map[string]any
			if err := json.Unmarshal(b, &v); err != nil {
				t.Fatal(err)
			}
			if got, _ := v["isSynthetic"].(bool); got != c.synthetic {
				t.Fatalf("isSynthetic %v in %s", v["isSynthetic"], b)
			}
			if _, present := v["isSynthetic"]; present != c.synthetic {
				t.Fatalf("a typed prompt carries isSynthetic: %s", b)
			}
		})
	}
}
