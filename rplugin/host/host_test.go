package host

import (
	"log/slog"
	"strings"
	"testing"

	"github.com/neovim/go-client/nvim/plugin"
)

func TestCallRejectsBadInput(t *testing.T) {
	h := Register(plugin.New(nil), slog.New(slog.DiscardHandler))
	tests := []struct {
		args []string
		want string
	}{
		{nil, "takes a method name"},
		{[]string{"a", "b", "c"}, "takes a method name"},
		{[]string{"no_such_method"}, `unknown method "no_such_method"`},
		{[]string{"decide", "{not json"}, "bad arguments"},
		{[]string{"new", `{"cwd": 12}`}, "bad arguments"},
	}
	for _, tt := range tests {
		_, err := h.call(tt.args)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("call(%q) = %v, want an error with %q", tt.args, err, tt.want)
		}
	}
	if v, err := h.request([]string{"version"}); err != nil || v != `"`+Version+`"` {
		t.Errorf("version = %q, %v", v, err)
	}
}

func TestManifestDeclaresTheEntryPoints(t *testing.T) {
	p := plugin.New(nil)
	Register(p, nil)
	m := string(p.Manifest(Name))
	for _, want := range []string{"'name': 'ClaudeNovaRequest', 'sync': 1", "'name': 'ClaudeNovaNotify', 'sync': 0"} {
		if !strings.Contains(m, want) {
			t.Errorf("manifest lacks %s:\n%s", want, m)
		}
	}
}
