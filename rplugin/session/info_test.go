package session

import "testing"

// Each snapshot of a session is newer than the one before it, whoever takes
// it: the front end keeps the newest when two arrive in the other order.
func TestInfoVersionsGrow(t *testing.T) {
	s := New(1, "/p/project", "", nil)
	first := s.Info()
	s.Prompted("first turn here")
	second := s.Info()
	if second.Version <= first.Version {
		t.Fatalf("versions %d then %d: the later snapshot is not newer", first.Version, second.Version)
	}
	if first.Name != "project" || second.Name != "first turn here" {
		t.Fatalf("names %q then %q", first.Name, second.Name)
	}
}
