// Package form reads what an MCP server asks the user (an elicitation's
// restricted JSON schema) into a form the front end can ask field by field,
// and checks the user's answers against it before they are sent.
package form

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Field is one field of an elicitation form, for the front end to ask
// (vim.ui.input, or vim.ui.select for choices). Every string is sanitized.
type Field struct {
	Name        string   `json:"name"`
	Title       string   `json:"title"`
	Description string   `json:"description,omitempty"`
	Type        string   `json:"type"` // string, number, integer, boolean, or array (of choices)
	Choices     []string `json:"choices,omitempty"`
	Labels      []string `json:"labels,omitempty"` // how each choice reads (enumNames)
	Required    bool     `json:"required"`
	Default     any      `json:"default,omitempty"`
	Format      string   `json:"format,omitempty"`
}

// Form is what an MCP server asks the user, as the front end shows it.
type Form struct {
	Server  string  `json:"server"`
	Message string  `json:"message"`
	Mode    string  `json:"mode"` // form or url
	URL     string  `json:"url,omitempty"`
	Fields  []Field `json:"fields,omitempty"`
	// Unsupported names what the form asks that this client cannot ask
	// (the user can only decline then).
	Unsupported string `json:"unsupported,omitempty"`
}

// schemaProperty is what the plugin reads of one property of an
// elicitation's requested_schema (MCP's restricted JSON schema).
type schemaProperty struct {
	Type        string   `json:"type"`
	Title       string   `json:"title"`
	Description string   `json:"description"`
	Enum        []any    `json:"enum"`
	EnumNames   []string `json:"enumNames"`
	OneOf       []struct {
		Const any    `json:"const"`
		Title string `json:"title"`
	} `json:"oneOf"`
	Items *struct {
		Type  string `json:"type"`
		Enum  []any  `json:"enum"`
		AnyOf []struct {
			Const any    `json:"const"`
			Title string `json:"title"`
		} `json:"anyOf"`
	} `json:"items"`
	Default   any      `json:"default"`
	Format    string   `json:"format"`
	MinLength *int     `json:"minLength"`
	MaxLength *int     `json:"maxLength"`
	Minimum   *float64 `json:"minimum"`
	Maximum   *float64 `json:"maximum"`
}

type schema struct {
	order    []string
	props    map[string]schemaProperty
	required map[string]bool
}

// parseSchema reads the form's fields in the order the server listed them
// (property_order, else the order of the properties object).
func parseSchema(raw json.RawMessage, order []string) (schema, error) {
	sc := schema{props: map[string]schemaProperty{}, required: map[string]bool{}}
	if len(raw) == 0 || string(raw) == "null" {
		return sc, nil
	}
	var top struct {
		Properties json.RawMessage `json:"properties"`
		Required   []string        `json:"required"`
	}
	if err := json.Unmarshal(raw, &top); err != nil {
		return sc, fmt.Errorf("the form's schema is not an object: %w", err)
	}
	for _, r := range top.Required {
		sc.required[r] = true
	}
	if len(top.Properties) == 0 {
		return sc, nil
	}
	dec := json.NewDecoder(bytes.NewReader(top.Properties))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return sc, errors.New("the form's properties are not an object")
	}
	var listed []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return sc, err
		}
		name, _ := tok.(string)
		var p schemaProperty
		if err := dec.Decode(&p); err != nil {
			return sc, fmt.Errorf("the form's field %q: %w", name, err)
		}
		if _, dup := sc.props[name]; !dup {
			listed = append(listed, name)
		}
		sc.props[name] = p
	}
	seen := map[string]bool{}
	for _, n := range order {
		if _, ok := sc.props[n]; ok && !seen[n] {
			sc.order, seen[n] = append(sc.order, n), true
		}
	}
	for _, n := range listed {
		if !seen[n] {
			sc.order = append(sc.order, n)
		}
	}
	return sc, nil
}

func (p schemaProperty) choices() (values []string, labels []string) {
	add := func(v any, label string) {
		s := fmt.Sprint(v)
		values = append(values, s)
		if label == "" {
			label = s
		}
		labels = append(labels, sanitize.Line(label))
	}
	for i, v := range p.Enum {
		label := ""
		if i < len(p.EnumNames) {
			label = p.EnumNames[i]
		}
		add(v, label)
	}
	for _, o := range p.OneOf {
		add(o.Const, o.Title)
	}
	if p.Items != nil {
		for _, v := range p.Items.Enum {
			add(v, "")
		}
		for _, o := range p.Items.AnyOf {
			add(o.Const, o.Title)
		}
	}
	return values, labels
}

// Of turns an elicitation into the form the front end asks.
func Of(er claude.ElicitationRequest) Form {
	f := Form{Server: sanitize.Line(er.Server), Message: sanitize.Text(er.Message), Mode: er.Mode}
	if er.Mode == "url" {
		f.URL = sanitize.Line(er.URL)
		return f
	}
	sc, err := parseSchema(er.RequestedSchema, er.PropertyOrder)
	if err != nil {
		f.Unsupported = sanitize.Line(err.Error())
		return f
	}
	for _, name := range sc.order {
		p := sc.props[name]
		ff := Field{Name: sanitize.Line(name), Title: sanitize.Line(p.Title), Description: sanitize.Text(p.Description),
			Type: p.Type, Required: sc.required[name], Default: p.Default, Format: sanitize.Line(p.Format)}
		if ff.Title == "" {
			ff.Title = ff.Name
		}
		ff.Choices, ff.Labels = p.choices()
		switch p.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if len(ff.Choices) == 0 {
				f.Unsupported = "field " + ff.Name + " is a list without choices"
			}
		default:
			f.Unsupported = fmt.Sprintf("field %s has type %q", ff.Name, sanitize.Line(p.Type))
		}
		if ff.Name != name {
			f.Unsupported = "a field name holds control characters"
		}
		f.Fields = append(f.Fields, ff)
	}
	return f
}

// Check validates the user's answers against the schema and gives
// each its JSON type (the front end sends what was typed).
func Check(er claude.ElicitationRequest, in map[string]any) (map[string]any, error) {
	sc, err := parseSchema(er.RequestedSchema, er.PropertyOrder)
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	for _, name := range sc.order {
		p := sc.props[name]
		v, ok := in[name]
		if !ok || v == nil || v == "" {
			if sc.required[name] {
				return nil, fmt.Errorf("%s is required", name)
			}
			continue
		}
		text := strings.TrimSpace(fmt.Sprint(v))
		choices, _ := p.choices()
		oneOf := func(s string) bool {
			if len(choices) == 0 {
				return true
			}
			for _, c := range choices {
				if c == s {
					return true
				}
			}
			return false
		}
		switch p.Type {
		case "boolean":
			switch b := v.(type) {
			case bool:
				out[name] = b
			default:
				switch strings.ToLower(text) {
				case "true", "yes", "y":
					out[name] = true
				case "false", "no", "n":
					out[name] = false
				default:
					return nil, fmt.Errorf("%s must be yes or no, got %q", name, text)
				}
			}
		case "number", "integer":
			var n float64
			if _, err := fmt.Sscan(text, &n); err != nil || math.IsNaN(n) || math.IsInf(n, 0) {
				return nil, fmt.Errorf("%s must be a number, got %q", name, text)
			}
			if p.Type == "integer" && n != math.Trunc(n) {
				return nil, fmt.Errorf("%s must be a whole number, got %q", name, text)
			}
			if (p.Minimum != nil && n < *p.Minimum) || (p.Maximum != nil && n > *p.Maximum) {
				return nil, fmt.Errorf("%s is out of range", name)
			}
			if p.Type == "integer" {
				out[name] = int64(n)
			} else {
				out[name] = n
			}
		case "array":
			var items []string
			switch l := v.(type) {
			case []any:
				for _, x := range l {
					items = append(items, strings.TrimSpace(fmt.Sprint(x)))
				}
			default:
				for _, x := range strings.Split(text, ",") {
					if x = strings.TrimSpace(x); x != "" {
						items = append(items, x)
					}
				}
			}
			for _, x := range items {
				if !oneOf(x) {
					return nil, fmt.Errorf("%s: %q is not one of the choices", name, x)
				}
			}
			out[name] = items
		default:
			s := fmt.Sprint(v)
			if !oneOf(s) {
				return nil, fmt.Errorf("%s: %q is not one of the choices", name, s)
			}
			n := len([]rune(s))
			if (p.MinLength != nil && n < *p.MinLength) || (p.MaxLength != nil && n > *p.MaxLength) {
				return nil, fmt.Errorf("%s has the wrong length", name)
			}
			out[name] = s
		}
	}
	return out, nil
}
