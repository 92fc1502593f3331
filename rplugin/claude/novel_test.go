package claude

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestNoveltiesLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(slog.NewTextHandler(&buf, nil))
	n := NewNovelties()
	for _, line := range []string{
		`{"type":"assistant","message":{}}`,
		`{"type":"future_thing","x":1}`,
		`{"type":"future_thing","x":2}`,
		`{"type":"system","subtype":"init","session_id":"s","tools":[],"brand_new":true}`,
		`{"type":"system","subtype":"init","session_id":"s","brand_new":false}`,
		`{"type":"system","subtype":"galaxy_brain"}`,
		`{"type":"system","subtype":"status","permissionMode":"default"}`,
	} {
		m, err := ParseLine([]byte(line))
		if err != nil {
			t.Fatal(err)
		}
		n.Note(m, log)
	}
	out := buf.String()
	for _, want := range []string{"type=future_thing", "field=brand_new", "subtype=galaxy_brain"} {
		if strings.Count(out, want) != 1 {
			t.Errorf("%q logged %d times:\n%s", want, strings.Count(out, want), out)
		}
	}
	if strings.Count(out, "\n") != 3 {
		t.Errorf("logged:\n%s", out)
	}
}
