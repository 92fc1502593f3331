package proposal

import "unsafe"

// A change of a large file is megabytes in two forms: bytes (what is read
// and written) and a string (what is searched, edited and diffed). The two
// forms share their memory instead of being copied into each other: the
// bytes a Change holds (Original, Proposed) are never written to once
// Reconstruct made them, and the strings made from them live no longer
// than the Change. (A 100k-line proposal spent 40 % of the host's time
// copying its texts between the forms.)

// stringView is b as a string, without a copy; b must not change after.
func stringView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// bytesView is s as bytes, without a copy; they must never be written to.
func bytesView(s string) []byte {
	if s == "" {
		return nil
	}
	return unsafe.Slice(unsafe.StringData(s), len(s))
}
