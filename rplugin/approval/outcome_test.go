package approval

import (
	"os"
	"regexp"
	"testing"
)

// The front end words a gesture's result with the same outcomes.
func TestOutcomesAgreeWithTheFrontEnd(t *testing.T) {
	b, err := os.ReadFile("../../lua/claudenova/frontend/gestures.lua")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)local verbs = \{(.*?)\n\}`).FindSubmatch(b)
	if m == nil {
		t.Fatal("gestures.lua has no verbs list")
	}
	lua := map[string]string{}
	for _, kv := range regexp.MustCompile(`(\w+) = "([^"]+)"`).FindAllSubmatch(m[1], -1) {
		lua[string(kv[1])] = string(kv[2])
	}
	if len(lua) != len(outcomes) {
		t.Fatalf("gestures.lua has %d verbs, the host %d outcomes", len(lua), len(outcomes))
	}
	for b, w := range outcomes {
		if lua[b] != w {
			t.Errorf("%s: gestures.lua says %q, the host %q", b, lua[b], w)
		}
	}
}

func TestOutcome(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{Allow, "allowed"}, {AllowSession, "allowed for the session"}, {Deny, "denied"}, {"shrug", "shrug"},
	} {
		if got := Outcome(c.in); got != c.want {
			t.Errorf("Outcome(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
