package proposal

import (
	"runtime"
	"strings"
	"sync"
)

// searchSplit is the file size from which an edit's old_string is searched
// for in parts at once, one per CPU: on a file of megabytes the search is
// most of the time between claude's request and the proposal on screen,
// and Neovim waits idle for it.
const searchSplit = 1 << 20

// findUnique is where sub first occurs in s (-1 when it does not) and
// whether it occurs again after that occurrence (not overlapping it): an
// edit's old_string must occur once. It is strings.Index followed by
// strings.Contains on the rest, done in parts at once on a large s.
func findUnique(s, sub string) (at int, again bool) {
	parts := min(runtime.GOMAXPROCS(0), 4)
	if len(s) < searchSplit || parts < 2 || sub == "" {
		return sequential(s, sub)
	}
	// Part i reports the occurrences that start in [lo, hi): its first one,
	// and the first that starts after that one ends.
	type found struct{ first, next int }
	res := make([]found, parts)
	size := (len(s) + parts - 1) / parts
	var wg sync.WaitGroup
	for i := range parts {
		lo := min(i*size, len(s))
		hi := min(lo+size, len(s))
		wg.Add(1)
		go func() {
			defer wg.Done()
			res[i] = found{-1, -1}
			end := min(hi+len(sub)-1, len(s)) // an occurrence may run past hi
			k := strings.Index(s[lo:end], sub)
			if k < 0 {
				return
			}
			res[i].first = lo + k
			from := lo + k + len(sub)
			if from < hi {
				if j := strings.Index(s[from:end], sub); j >= 0 {
					res[i].next = from + j
				}
			}
		}()
	}
	wg.Wait()
	at = -1
	for _, r := range res {
		switch {
		case r.first < 0:
			continue
		case at < 0:
			at = r.first
			if r.next >= 0 {
				return at, true
			}
		case r.first >= at+len(sub):
			return at, true
		default:
			// This part's first occurrence overlaps the first one: whether
			// another starts after that one ends is searched again.
			return at, strings.Contains(s[at+len(sub):], sub)
		}
	}
	return at, false
}

// sequential is findUnique in one pass.
func sequential(s, sub string) (int, bool) {
	at := strings.Index(s, sub)
	if at < 0 {
		return -1, false
	}
	return at, strings.Contains(s[at+len(sub):], sub)
}
