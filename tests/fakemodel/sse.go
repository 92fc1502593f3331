package fakemodel

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// Block is one content block of a fake assistant message.
type Block struct {
	// Type is "text" or "tool_use".
	Type string
	// Text is the full text of a text block.
	Text string
	// TextChunks, when set, is streamed as one text_delta per element
	// (Text is then ignored; the full text is the concatenation).
	TextChunks []string
	// ID, Name and Input describe a tool_use block. Input is a JSON object.
	ID    string
	Name  string
	Input json.RawMessage
}

// Reply is a complete fake assistant message.
type Reply struct {
	Blocks     []Block
	StopReason string        // "end_turn" or "tool_use"
	ChunkDelay time.Duration // STREAMD: the pause between two text deltas
}

// TextReply is an end_turn reply with a single text block.
func TextReply(text string) Reply {
	return Reply{Blocks: []Block{{Type: "text", Text: text}}, StopReason: "end_turn"}
}

// ToolUseReply is a tool_use reply with a single tool_use block.
func ToolUseReply(id, name string, input json.RawMessage) Reply {
	return Reply{Blocks: []Block{{Type: "tool_use", ID: id, Name: name, Input: input}}, StopReason: "tool_use"}
}

// fullText returns the complete text of a text block.
func (b Block) fullText() string {
	if b.TextChunks == nil {
		return b.Text
	}
	return strings.Join(b.TextChunks, "")
}

func (b Block) input() json.RawMessage {
	if len(b.Input) == 0 {
		return json.RawMessage(`{}`)
	}
	return b.Input
}

// outputTokens is a rough token estimate (4 chars per token, at least 1).
func (r Reply) outputTokens() int {
	n := 0
	for _, b := range r.Blocks {
		if b.Type == "tool_use" {
			n += len(b.input()) + len(b.Name)
		} else if b.TextChunks != nil {
			for _, c := range b.TextChunks {
				n += len(c)
			}
		} else {
			n += len(b.Text)
		}
	}
	if n/4 < 1 {
		return 1
	}
	return n / 4
}

type usage struct {
	InputTokens              int `json:"input_tokens"`
	OutputTokens             int `json:"output_tokens"`
	CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
	CacheReadInputTokens     int `json:"cache_read_input_tokens"`
}

type messageJSON struct {
	ID           string            `json:"id"`
	Type         string            `json:"type"`
	Role         string            `json:"role"`
	Model        string            `json:"model"`
	Content      []json.RawMessage `json:"content"`
	StopReason   *string           `json:"stop_reason"`
	StopSequence *string           `json:"stop_sequence"`
	Usage        usage             `json:"usage"`
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// blockJSON renders a content block as it appears in a complete message
// (non-streaming) or, with empty=true, in content_block_start.
func (b Block) blockJSON(empty bool) json.RawMessage {
	switch b.Type {
	case "tool_use":
		in := b.input()
		if empty {
			in = json.RawMessage(`{}`)
		}
		return mustJSON(struct {
			Type  string          `json:"type"`
			ID    string          `json:"id"`
			Name  string          `json:"name"`
			Input json.RawMessage `json:"input"`
		}{"tool_use", b.ID, b.Name, in})
	default:
		t := ""
		if !empty {
			t = b.fullText()
		}
		return mustJSON(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{"text", t})
	}
}

// MessageJSON renders reply as a non-streaming Messages API response body.
func MessageJSON(id, model string, inputTokens int, r Reply) []byte {
	m := messageJSON{ID: id, Type: "message", Role: "assistant", Model: model,
		Content: []json.RawMessage{}, StopReason: &r.StopReason,
		Usage: usage{InputTokens: inputTokens, OutputTokens: r.outputTokens()}}
	for _, b := range r.Blocks {
		m.Content = append(m.Content, b.blockJSON(false))
	}
	return mustJSON(m)
}

// SSEWriter writes Anthropic Messages API server-sent events.
type SSEWriter struct {
	W     io.Writer
	Flush func() // called after every event when non-nil
	err   error
}

// Event writes one SSE event whose data is the JSON encoding of v.
func (s *SSEWriter) Event(name string, v any) error {
	if s.err != nil {
		return s.err
	}
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, s.err = fmt.Fprintf(s.W, "event: %s\ndata: %s\n\n", name, data)
	if s.err == nil && s.Flush != nil {
		s.Flush()
	}
	return s.err
}

// Err returns the first write error, if any.
func (s *SSEWriter) Err() error { return s.err }

// MessageStart writes message_start (and a ping, as the real API does).
func (s *SSEWriter) MessageStart(id, model string, inputTokens int) error {
	m := messageJSON{ID: id, Type: "message", Role: "assistant", Model: model,
		Content: []json.RawMessage{}, Usage: usage{InputTokens: inputTokens, OutputTokens: 1}}
	s.Event("message_start", map[string]any{"type": "message_start", "message": m})
	return s.Event("ping", map[string]any{"type": "ping"})
}

// Blocks writes content_block_start/delta/stop for every block of r.
// chunk is the maximum size of one text or input_json delta (<=0: 40).
func (s *SSEWriter) Blocks(r Reply, chunk int) error {
	if chunk <= 0 {
		chunk = 40
	}
	for i, b := range r.Blocks {
		s.Event("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": b.blockJSON(true)})
		var deltas []map[string]any
		switch b.Type {
		case "tool_use":
			for _, p := range splitString(string(b.input()), chunk) {
				deltas = append(deltas, map[string]any{"type": "input_json_delta", "partial_json": p})
			}
		default:
			parts := b.TextChunks
			if parts == nil {
				parts = splitString(b.Text, chunk)
			}
			for _, p := range parts {
				deltas = append(deltas, map[string]any{"type": "text_delta", "text": p})
			}
		}
		for k, d := range deltas {
			if k > 0 && r.ChunkDelay > 0 {
				if s.err != nil {
					return s.err
				}
				time.Sleep(r.ChunkDelay)
			}
			s.Event("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": d})
		}
		s.Event("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	return s.err
}

// MessageEnd writes message_delta (stop reason and usage) and message_stop.
func (s *SSEWriter) MessageEnd(r Reply, inputTokens int) error {
	s.Event("message_delta", map[string]any{
		"type":  "message_delta",
		"delta": map[string]any{"stop_reason": r.StopReason, "stop_sequence": nil},
		"usage": map[string]any{"input_tokens": inputTokens, "output_tokens": r.outputTokens(),
			"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0},
	})
	return s.Event("message_stop", map[string]any{"type": "message_stop"})
}

// WriteStream writes a whole reply as an SSE stream.
func (s *SSEWriter) WriteStream(id, model string, inputTokens int, r Reply, chunk int) error {
	s.MessageStart(id, model, inputTokens)
	s.Blocks(r, chunk)
	return s.MessageEnd(r, inputTokens)
}

// splitString splits s into pieces of at most n bytes without breaking
// UTF-8 sequences. An empty string yields no pieces.
func splitString(s string, n int) []string {
	var out []string
	for len(s) > 0 {
		if len(s) <= n {
			out = append(out, s)
			break
		}
		cut := n
		for cut > 0 && cut < len(s) && s[cut]&0xC0 == 0x80 {
			cut--
		}
		if cut == 0 {
			cut = n
		}
		out = append(out, s[:cut])
		s = s[cut:]
	}
	return out
}
