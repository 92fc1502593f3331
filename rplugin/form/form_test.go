package form

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
)

const person = `{"type":"object","properties":{
 "name":{"type":"string","title":"Name"},
 "age":{"type":"integer","minimum":0},
 "color":{"type":"string","enum":["r","g"],"enumNames":["Red","Green"]}},
 "required":["name"]}`

func request(s string) claude.ElicitationRequest {
	return claude.ElicitationRequest{Server: "docs", Message: "who?", Mode: "form", RequestedSchema: json.RawMessage(s)}
}

func TestOfReadsTheFields(t *testing.T) {
	f := Of(request(person))
	if f.Unsupported != "" || len(f.Fields) != 3 {
		t.Fatalf("form %+v", f)
	}
	byName := map[string]Field{}
	for _, x := range f.Fields {
		byName[x.Name] = x
	}
	if !byName["name"].Required || byName["age"].Type != "integer" || strings.Join(byName["color"].Labels, ",") != "Red,Green" {
		t.Errorf("fields %+v", f.Fields)
	}
}

func TestCheckRefusesWhatDoesNotFit(t *testing.T) {
	for _, tc := range []struct {
		in   map[string]any
		want string // "" : accepted
	}{
		{map[string]any{"name": "ada", "age": 36.0, "color": "g"}, ""},
		{map[string]any{"age": 3.0}, "name"},
		{map[string]any{"name": "ada", "age": 2.5}, "age"},
		{map[string]any{"name": "ada", "color": "blue"}, "color"},
	} {
		_, err := Check(request(person), tc.in)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%v: %v", tc.in, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%v: %v, want an error naming %q", tc.in, err, tc.want)
		}
	}
}

// A schema comes from an MCP server: whatever it is, reading it and
// checking an answer against it return (never panic).
func FuzzForm(f *testing.F) {
	f.Add(person, `{"name":"x"}`)
	f.Add(`{"properties":{"a":{"type":"array","items":{"enum":[1,2]}}}}`, `{"a":[1]}`)
	f.Add(`[]`, `{}`)
	f.Fuzz(func(t *testing.T, s, answer string) {
		er := request(s)
		form := Of(er)
		var in map[string]any
		if json.Unmarshal([]byte(answer), &in) != nil {
			return
		}
		if out, err := Check(er, in); err == nil && form.Unsupported == "" {
			if _, err := json.Marshal(out); err != nil {
				t.Fatalf("accepted content does not encode: %v", err)
			}
		}
	})
}
