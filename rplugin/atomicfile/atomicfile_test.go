package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.json")
	stop := errors.New("changed meanwhile")
	tests := []struct {
		name    string
		o       Options
		want    string
		wantErr error
		perm    os.FileMode
	}{
		{"default mode", Options{}, "one", nil, 0o600},
		{"a mode", Options{Perm: 0o644}, "two", nil, 0o644},
		{"a refusing check leaves it", Options{Check: func() error { return stop }}, "two", stop, 0o644},
		{"a passing check", Options{Check: func() error { return nil }, Prefix: ".x-"}, "three", nil, 0o600},
	}
	for _, tt := range tests {
		content := tt.want
		if tt.wantErr != nil {
			content = "never"
		}
		err := Write(p, []byte(content), tt.o)
		if !errors.Is(err, tt.wantErr) {
			t.Fatalf("%s: err %v", tt.name, err)
		}
		b, _ := os.ReadFile(p)
		fi, _ := os.Stat(p)
		if string(b) != tt.want || fi.Mode().Perm() != tt.perm {
			t.Fatalf("%s: %q %v", tt.name, b, fi.Mode())
		}
		if left, _ := filepath.Glob(filepath.Join(dir, ".*")); len(left) != 0 {
			t.Fatalf("%s: temporary files left: %v", tt.name, left)
		}
	}
	if err := Write(filepath.Join(dir, "no", "such"), nil, Options{}); err == nil {
		t.Fatal("wrote into a missing folder")
	}
}
