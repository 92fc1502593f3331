// Package toolcall is what the plugin reads of a tool call: of its input
// (a can_use_tool request's, a tool_use block's, a hook's tool_input) the
// fields it reads by name, and a request's input decoded once into one
// typed value (Decode) that every room reads instead of the raw bytes; of
// its result, the text, the images and what it started.
package toolcall

import (
	"encoding/json"
	"errors"
	"fmt"
)

// Input is a tool call's input, decoded once (Decode). Raw still travels
// whole: it is what an allow answer gives back to claude and what a saved
// proposal amends.
type Input struct {
	Raw json.RawMessage
	// Obj is every field as it came (numbers as float64); nil when the
	// input is not an object (Err says why).
	Obj map[string]any
	// Fields are the fields read by name; empty when one of them has
	// another type (FieldsErr says which).
	Fields    Fields
	FieldsErr error
	Err       error
}

// Decode decodes a tool input once. An input that is not an object has no
// fields (Err).
func Decode(raw json.RawMessage) Input {
	in := Input{Raw: raw}
	m, err := Object(raw)
	if err != nil {
		in.Err, in.FieldsErr = err, err
		return in
	}
	in.Obj = m
	in.Fields, in.FieldsErr = fieldsFrom(m)
	return in
}

// Str is the string field k ("" when it is absent or not a string).
func (in Input) Str(k string) string {
	s, _ := in.Obj[k].(string)
	return s
}

// Flag is the boolean field k (false when it is absent or not a boolean).
func (in Input) Flag(k string) bool {
	b, _ := in.Obj[k].(bool)
	return b
}

// Fields are the fields of a tool's input that the plugin reads by name,
// for whichever tool has them.
type Fields struct {
	FilePath     string     `json:"file_path"`
	NotebookPath string     `json:"notebook_path"`
	Command      string     `json:"command"`
	URL          string     `json:"url"`
	Description  string     `json:"description"`
	Prompt       string     `json:"prompt"`
	SubagentType string     `json:"subagent_type"`
	Plan         string     `json:"plan"`
	Questions    []Question `json:"questions"`
}

// Path is the file a call works on (a notebook's path for NotebookEdit).
func (f Fields) Path() string {
	if f.FilePath != "" {
		return f.FilePath
	}
	return f.NotebookPath
}

// Question is one question of AskUserQuestion.
type Question struct {
	Question    string   `json:"question"`
	Header      string   `json:"header"`
	Options     []Option `json:"options"`
	MultiSelect bool     `json:"multiSelect"`
}

// Option is one option of a Question.
type Option struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// FieldsOf decodes a tool input's fields; an input that is not an object
// (or has a field of another type) is an error and its fields are empty.
func FieldsOf(input json.RawMessage) (Fields, error) {
	var f Fields
	if err := json.Unmarshal(input, &f); err != nil {
		return Fields{}, fmt.Errorf("tool input: %w", err)
	}
	return f, nil
}

// Object decodes a tool input as an object of any fields (for a tool
// whose fields are shown as they come).
func Object(input json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(input, &m); err != nil {
		return nil, fmt.Errorf("tool input: %w", err)
	}
	if m == nil {
		return nil, errors.New("tool input: not an object")
	}
	return m, nil
}

// fieldsFrom reads Fields from an input decoded as an object, with
// FieldsOf's rules: a field of another type empties them all.
func fieldsFrom(m map[string]any) (Fields, error) {
	var f Fields
	var bad error
	str := func(k string, dst *string) {
		switch v := m[k].(type) {
		case string:
			*dst = v
		case nil:
		default:
			if bad == nil {
				bad = fmt.Errorf("tool input: field %s is not a string", k)
			}
		}
	}
	str("file_path", &f.FilePath)
	str("notebook_path", &f.NotebookPath)
	str("command", &f.Command)
	str("url", &f.URL)
	str("description", &f.Description)
	str("prompt", &f.Prompt)
	str("subagent_type", &f.SubagentType)
	str("plan", &f.Plan)
	qs, err := questionsFrom(m["questions"])
	if bad == nil {
		bad = err
	}
	if bad != nil {
		return Fields{}, bad
	}
	f.Questions = qs
	return f, nil
}

var errQuestions = errors.New("tool input: questions is not a list of questions")

func questionsFrom(v any) ([]Question, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errQuestions
	}
	out := make([]Question, 0, len(list))
	for _, e := range list {
		if e == nil {
			out = append(out, Question{})
			continue
		}
		m, ok := e.(map[string]any)
		if !ok {
			return nil, errQuestions
		}
		var q Question
		var good bool
		if q.Question, good = optString(m["question"]); !good {
			return nil, errQuestions
		}
		if q.Header, good = optString(m["header"]); !good {
			return nil, errQuestions
		}
		switch ms := m["multiSelect"].(type) {
		case bool:
			q.MultiSelect = ms
		case nil:
		default:
			return nil, errQuestions
		}
		opts, err := optionsFrom(m["options"])
		if err != nil {
			return nil, err
		}
		q.Options = opts
		out = append(out, q)
	}
	return out, nil
}

func optionsFrom(v any) ([]Option, error) {
	if v == nil {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok {
		return nil, errQuestions
	}
	out := make([]Option, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok && e != nil {
			return nil, errQuestions
		}
		var o Option
		var good bool
		if o.Label, good = optString(m["label"]); !good {
			return nil, errQuestions
		}
		if o.Description, good = optString(m["description"]); !good {
			return nil, errQuestions
		}
		out = append(out, o)
	}
	return out, nil
}

// optString reads a string that may be absent or null.
func optString(v any) (string, bool) {
	switch s := v.(type) {
	case string:
		return s, true
	case nil:
		return "", true
	}
	return "", false
}
