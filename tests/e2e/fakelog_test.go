package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
)

// fakeAnswer is one control_response the fake claude received for a
// can_use_tool request.
type fakeAnswer struct {
	RequestID string
	Behavior  string
	Response  map[string]any // the PermissionResult
}

// fakeAnswers parses the fake claude log: every answer to can_use_tool, in order.
func fakeAnswers(path string) []fakeAnswer {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []fakeAnswer
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			T    string `json:"t"`
			Type string `json:"type"`
			Line string `json:"line"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.T != "recv" || ev.Type != "control_response" {
			continue
		}
		var cr struct {
			Response struct {
				RequestID string         `json:"request_id"`
				Response  map[string]any `json:"response"`
			} `json:"response"`
		}
		if json.Unmarshal([]byte(ev.Line), &cr) != nil || !strings.Contains(ev.Line, `"behavior"`) {
			continue
		}
		b, _ := cr.Response.Response["behavior"].(string)
		out = append(out, fakeAnswer{RequestID: cr.Response.RequestID, Behavior: b, Response: cr.Response.Response})
	}
	return out
}

// answersFor counts the answers to one request id.
func answersFor(path, id string) int {
	n := 0
	for _, a := range fakeAnswers(path) {
		if a.RequestID == id {
			n++
		}
	}
	return n
}
