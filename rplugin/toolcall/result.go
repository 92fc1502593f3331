package toolcall

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strings"
)

// Launched is what a call's structured result says it started in the
// background (an agent, a shell); a result of another shape is none.
type Launched struct {
	Status  string `json:"status"`
	AgentID string `json:"agentId"`
	TaskID  string `json:"backgroundTaskId"`
}

// LaunchedOf reads a structured result as Launched.
func LaunchedOf(structured json.RawMessage) Launched {
	var l Launched
	_ = json.Unmarshal(structured, &l)
	return l
}

// ResultText is a tool_result's content as text: a string, or the text of
// its parts joined by lines ("" for anything else).
func ResultText(content json.RawMessage) string {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return s
	}
	var parts []struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(content, &parts) == nil {
		out := make([]string, 0, len(parts))
		for _, p := range parts {
			out = append(out, p.Text)
		}
		return strings.Join(out, "\n")
	}
	return ""
}

// ResultImage is an image block of a tool result (a Read of a PNG, say),
// its data decoded.
type ResultImage struct {
	MediaType string
	Data      []byte
}

// ResultImages are the base64 image blocks of a tool_result's content.
func ResultImages(content json.RawMessage) []ResultImage {
	if !bytes.Contains(content, []byte(`"image"`)) {
		return nil
	}
	var blocks []struct {
		Type   string `json:"type"`
		Source struct {
			Type      string `json:"type"`
			MediaType string `json:"media_type"`
			Data      string `json:"data"`
		} `json:"source"`
	}
	if json.Unmarshal(content, &blocks) != nil {
		return nil
	}
	var out []ResultImage
	for _, b := range blocks {
		if b.Type != "image" || b.Source.Type != "base64" {
			continue
		}
		data, err := base64.StdEncoding.DecodeString(b.Source.Data)
		if err != nil {
			continue
		}
		out = append(out, ResultImage{MediaType: b.Source.MediaType, Data: data})
	}
	return out
}
