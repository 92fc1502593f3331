package worktree

import (
	"fmt"
	"slices"
	"testing"
)

func TestDecide(t *testing.T) {
	a := Version{Exists: true, Hash: "a", Mode: 0o644}
	aExec := Version{Exists: true, Hash: "a", Mode: 0o755}
	b := Version{Exists: true, Hash: "b", Mode: 0o644}
	dir := Version{Exists: true}
	for _, tc := range []struct {
		name          string
		e             Entry
		seen          *Seen
		named         bool
		lost, unnamed bool
	}{
		{name: "the checkout has it", e: Entry{"f", a, a}},
		{name: "deleted in the worktree", e: Entry{"f", Version{}, a}},
		{name: "only there, never shown", e: Entry{"f", a, Version{}}, lost: true, unnamed: true},
		{name: "only there, differs", e: Entry{"f", a, b}, lost: true, unnamed: true},
		{name: "mode differs", e: Entry{"f", aExec, a}, lost: true, unnamed: true},
		{name: "merged, then amended", e: Entry{"f", a, b}, seen: &Seen{a, true}},
		{name: "skipped", e: Entry{"f", a, b}, seen: &Seen{a, false}, lost: true},
		{name: "changed after it was merged", e: Entry{"f", b, Version{}}, seen: &Seen{a, true}, lost: true, unnamed: true},
		{name: "mode changed after it was merged", e: Entry{"f", aExec, a}, seen: &Seen{a, true}, lost: true, unnamed: true},
		{name: "named by hand", e: Entry{"f", b, Version{}}, named: true, lost: true},
		{name: "a folder, never the same", e: Entry{"d/", dir, dir}, lost: true, unnamed: true},
		{name: "a folder, shown is not enough", e: Entry{"d/", dir, dir}, seen: &Seen{dir, true}, lost: true, unnamed: true},
		{name: "a folder named", e: Entry{"d/", dir, Version{}}, named: true, lost: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			seen, named := map[string]Seen{}, map[string]bool{}
			if tc.seen != nil {
				seen[tc.e.Path] = *tc.seen
			}
			if tc.named {
				named[tc.e.Path] = true
			}
			d := Decide([]Entry{tc.e}, seen, named)
			if got := len(d.Lost) == 1; got != tc.lost {
				t.Fatalf("lost %v, want %v (%+v)", got, tc.lost, d)
			}
			if got := len(d.Unnamed) == 1; got != tc.unnamed {
				t.Fatalf("unnamed %v, want %v (%+v)", got, tc.unnamed, d)
			}
			if d.May(false) != !tc.lost || d.May(true) != !tc.unnamed {
				t.Fatalf("may(false)=%v may(true)=%v for %+v", d.May(false), d.May(true), d)
			}
		})
	}
}

// FuzzDecide: whatever the files, what was seen and what was named, a
// removal Decide allows never deletes a file that exists only in the
// worktree unless the user merged that very version or was told its name.
func FuzzDecide(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8, 9}, true)
	f.Add([]byte{0, 0, 0, 255, 255, 255}, false)
	f.Fuzz(func(t *testing.T, data []byte, force bool) {
		versions := []Version{{}, {Exists: true}, {Exists: true, Hash: "a", Mode: 0o644},
			{Exists: true, Hash: "a", Mode: 0o755}, {Exists: true, Hash: "b", Mode: 0o644}}
		var entries []Entry
		seen, named := map[string]Seen{}, map[string]bool{}
		for i := 0; i+2 < len(data); i += 3 {
			p := fmt.Sprint("f", i%7) // the same path twice now and then
			w, c := versions[int(data[i])%len(versions)], versions[int(data[i+1])%len(versions)]
			entries = append(entries, Entry{Path: p, Worktree: w, Checkout: c})
			switch data[i+2] % 4 {
			case 1:
				seen[p] = Seen{Version: versions[int(data[i+2]>>2)%len(versions)], Applied: data[i+2]&0x40 != 0}
			case 2:
				named[p] = true
			}
		}
		d := Decide(entries, seen, named)
		if !d.May(force) {
			return
		}
		for _, e := range entries {
			w := e.Worktree
			onlyThere := w.Exists && (w.Hash == "" || w != e.Checkout)
			if !onlyThere {
				continue
			}
			sn, ok := seen[e.Path]
			merged := ok && sn.Applied && w.Hash != "" && sn.Version == w
			if merged {
				continue
			}
			told := named[e.Path] || (ok && w.Hash != "" && sn.Version == w)
			if !force || !told {
				t.Fatalf("a removal allowed (force %v) deletes %s, only in the worktree, %s: %+v seen %+v named %v",
					force, e.Path, map[bool]string{true: "named", false: "never named"}[told], d, seen, named)
			}
			if !slices.Contains(d.Lost, e.Path) {
				t.Fatalf("%s is lost but not listed: %+v", e.Path, d)
			}
		}
	})
}
