package toolcall

import (
	"encoding/json"
	"reflect"
	"testing"
)

// Decode's fields are FieldsOf's, read from the one decode of the input.
func TestDecodeFieldsAreFieldsOf(t *testing.T) {
	for _, raw := range []string{
		`{}`,
		`{"file_path":"/a/b.txt","content":"x"}`,
		`{"notebook_path":"n.ipynb","new_source":"s"}`,
		`{"command":"ls -la","description":"list","timeout":1000}`,
		`{"url":"https://example.com","prompt":"read it"}`,
		`{"description":"d","prompt":"p","subagent_type":"Explore"}`,
		`{"plan":"# Plan\n1. do"}`,
		`{"file_path":null,"command":null}`,
		`{"questions":[{"question":"Which?","header":"H","multiSelect":true,"options":[{"label":"a","description":"first"},{"label":"b"}]}]}`,
		`{"questions":[{"question":"Q"}, null]}`,
		`{"questions":null}`,
		`{"questions":[]}`,
	} {
		want, err := FieldsOf(json.RawMessage(raw))
		if err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		in := Decode(json.RawMessage(raw))
		if in.Err != nil || in.FieldsErr != nil {
			t.Fatalf("%s: %v %v", raw, in.Err, in.FieldsErr)
		}
		if !reflect.DeepEqual(in.Fields, want) {
			t.Errorf("%s:\n got %+v\nwant %+v", raw, in.Fields, want)
		}
	}
}

// A field of another type empties the fields, as FieldsOf does; an input
// that is not an object has none at all.
func TestDecodeRefusesWhatFieldsOfRefuses(t *testing.T) {
	for _, raw := range []string{
		`{"file_path":3}`,
		`{"command":["ls"]}`,
		`{"questions":"which"}`,
		`{"questions":[{"question":1}]}`,
		`{"questions":[{"options":[{"label":true}]}]}`,
		`{"questions":[{"multiSelect":"yes"}]}`,
		`[1,2]`,
		`"text"`,
		`null`,
	} {
		if _, err := FieldsOf(json.RawMessage(raw)); err == nil && raw != "null" {
			t.Fatalf("%s: FieldsOf accepts it", raw)
		}
		in := Decode(json.RawMessage(raw))
		if in.FieldsErr == nil || !reflect.DeepEqual(in.Fields, Fields{}) {
			t.Errorf("%s: fields %+v, err %v", raw, in.Fields, in.FieldsErr)
		}
	}
	if in := Decode(json.RawMessage(`[1]`)); in.Err == nil || in.Obj != nil {
		t.Errorf("a list decoded as an object: %+v", in)
	}
}

// Input comes from claude: Decode never panics, and whatever it reads as
// fields FieldsOf reads the same (FieldsOf matches keys without case, so
// only inputs it refuses or reads alike are compared).
func FuzzDecode(f *testing.F) {
	f.Add(`{"file_path":"/a","content":"x"}`)
	f.Add(`{"questions":[{"question":"Q","options":[{"label":"a"}]}]}`)
	f.Add(`{"command":"ls","timeout":5}`)
	f.Fuzz(func(t *testing.T, raw string) {
		in := Decode(json.RawMessage(raw))
		if in.FieldsErr != nil {
			return
		}
		want, err := FieldsOf(json.RawMessage(raw))
		if err == nil && in.Obj != nil && lowerKeys(in.Obj) && !reflect.DeepEqual(in.Fields, want) {
			t.Fatalf("%s:\n got %+v\nwant %+v", raw, in.Fields, want)
		}
	})
}

// lowerKeys reports whether every key is one encoding/json matches only
// exactly (no key differs from a field's name by case alone).
func lowerKeys(m map[string]any) bool {
	names := map[string]bool{"file_path": true, "notebook_path": true, "command": true, "url": true, "description": true,
		"prompt": true, "subagent_type": true, "plan": true, "questions": true}
	for k := range m {
		if !names[k] {
			for n := range names {
				if len(n) == len(k) && equalFold(n, k) {
					return false
				}
			}
		}
	}
	return true
}

func equalFold(a, b string) bool {
	for i := 0; i < len(a); i++ {
		x, y := a[i]|0x20, b[i]|0x20
		if x != y {
			return false
		}
	}
	return true
}
