package sanitize

import "encoding/json"

// JSON strips control characters from every string in a JSON value.
func JSON(raw json.RawMessage) json.RawMessage {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return json.RawMessage("{}")
	}
	b, err := json.Marshal(cleanValue(v))
	if err != nil {
		return json.RawMessage("{}")
	}
	return b
}

func cleanValue(v any) any {
	switch t := v.(type) {
	case string:
		return Text(t)
	case []any:
		for i := range t {
			t[i] = cleanValue(t[i])
		}
		return t
	case map[string]any:
		out := make(map[string]any, len(t))
		for k, x := range t {
			out[Text(k)] = cleanValue(x)
		}
		return out
	default:
		return v
	}
}
