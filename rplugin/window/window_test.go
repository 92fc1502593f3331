package window

import (
	"os"
	"regexp"
	"testing"
)

// The front end's :checkhealth names the same window.
func TestWindowAgreesWithTheFrontEnd(t *testing.T) {
	b, err := os.ReadFile("../../lua/claudenova/core/window.lua")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`oldest = "([^"]+)", newest = "([^"]+)"`).FindSubmatch(b)
	if m == nil || string(m[1]) != OldestSupported || string(m[2]) != NewestTested {
		t.Fatalf("lua/claudenova/core/window.lua says %q; the host says %s to %s", m, OldestSupported, NewestTested)
	}
}

func TestPlace(t *testing.T) {
	for s, want := range map[string]int{
		"2.1.300 (Claude Code)": 0, "2.1.332": 0, "2.1.263": 0, "2.1.299": 0, "2.1.262": -1, "2.0.0 (Claude Code)": -1,
		"2.1.333": 1, "3.0.0": 1, "2.2.0": 1, "1.99.999": -1,
	} {
		if got, ok := Place(s); !ok || got != want {
			t.Errorf("Place(%q) = %d, %v; want %d", s, got, ok, want)
		}
	}
	if _, ok := Place("not a version"); ok {
		t.Error("Place of no version")
	}
}
