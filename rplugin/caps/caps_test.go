package caps

import "testing"

func TestLearnReplaces(t *testing.T) {
	c := New()
	if c.Has(AskUnanswered) {
		t.Fatal("known before system/init")
	}
	c.Learn([]string{"ui_surface_v1", AskUnanswered})
	if !c.Has(AskUnanswered) || !c.Has("ui_surface_v1") {
		t.Fatal("listed capabilities not known")
	}
	c.Learn([]string{"ui_surface_v1"})
	if c.Has(AskUnanswered) {
		t.Fatal("a capability the newest init does not list is still known")
	}
}
