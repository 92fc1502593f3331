package gitcmd

import (
	"context"
	"strings"
	"testing"
)

// Head reads what was asked of git's output and no more.
func TestHead(t *testing.T) {
	dir := t.TempDir()
	full, err := Bytes(context.Background(), dir, nil, "help", "-a")
	if err != nil || len(full) < 100 {
		t.Fatalf("git help -a: %d bytes, %v", len(full), err)
	}
	cases := []struct {
		name    string
		max     int64
		args    []string
		want    string
		cut     bool
		wantErr string
	}{
		{"all of it", int64(len(full)), []string{"help", "-a"}, string(full), false, ""},
		{"cut", 10, []string{"help", "-a"}, string(full[:10]), true, ""},
		{"git's failure named", 100, []string{"no-such-command"}, "", false, "git no-such-command"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, cut, err := Head(context.Background(), dir, nil, tc.max, tc.args...)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || string(out) != tc.want || cut != tc.cut {
				t.Fatalf("Head = %d bytes, cut %v, %v; want %d bytes, cut %v", len(out), cut, err, len(tc.want), tc.cut)
			}
		})
	}
}
