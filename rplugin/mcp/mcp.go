// Package mcp is a small Model Context Protocol server for tools the host
// serves itself: the CLI reaches it over the control channel (control
// requests of subtype mcp_message), so there is no process and no port.
//
// It speaks JSON-RPC 2.0: initialize (with protocol version negotiation),
// notifications/initialized, ping, tools/list, tools/call and
// notifications/cancelled. Everything else is "method not found". A tool
// call runs on a goroutine of its own, bounded by a timeout; every request
// gets exactly one reply and so does every notification (an empty result:
// the CLI waits for one).
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Protocol versions this server speaks, newest first. The first is the one
// in the manifest (the version claude 2.1.328 asks for); an initialize that
// asks for another known one gets it, anything else gets the newest.
var Versions = []string{"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// JSON-RPC error codes.
const (
	CodeParse          = -32700
	CodeInvalidRequest = -32600
	CodeMethodNotFound = -32601
	CodeInvalidParams  = -32602
	CodeInternal       = -32603
)

// Message is one decoded JSON-RPC message. ID is nil for a notification.
type Message struct {
	ID     json.RawMessage
	Method string
	Params json.RawMessage
}

// Notification reports whether m expects no answer of its own.
func (m Message) Notification() bool { return len(m.ID) == 0 }

// ErrNotRequest is returned for a JSON-RPC response or a batch: the CLI never
// sends those to a server here.
var ErrNotRequest = errors.New("not a JSON-RPC request or notification")

// Decode parses one JSON-RPC message. It never panics; the error says what
// was wrong. A message with an id that is not a string or a number is
// invalid (the id is kept, as JSON, when it is usable for a reply).
func Decode(b []byte) (Message, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return Message{}, fmt.Errorf("decode: %w", ErrNotRequest)
	}
	var raw struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  *string         `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return Message{}, fmt.Errorf("decode: %w", err)
	}
	m := Message{Params: raw.Params}
	if id := bytes.TrimSpace(raw.ID); len(id) > 0 && string(id) != "null" {
		if id[0] != '"' && id[0] != '-' && (id[0] < '0' || id[0] > '9') {
			return Message{}, fmt.Errorf("decode: id must be a string or a number, got %s", clip(id))
		}
		m.ID = append(json.RawMessage(nil), id...)
	}
	if raw.Method == nil {
		return m, fmt.Errorf("decode: %w", ErrNotRequest)
	}
	if *raw.Method == "" {
		return m, errors.New("decode: empty method")
	}
	m.Method = *raw.Method
	return m, nil
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}

// Annotations are hints about a tool for the client.
type Annotations struct {
	Title          string `json:"title,omitempty"`
	ReadOnlyHint   bool   `json:"readOnlyHint"`
	OpenWorldHint  bool   `json:"openWorldHint"`
	IdempotentHint bool   `json:"idempotentHint,omitempty"`
}

// Tool is one tool as tools/list describes it.
type Tool struct {
	Name        string          `json:"name"`
	Title       string          `json:"title,omitempty"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations *Annotations    `json:"annotations,omitempty"`
}

// Content is one block of a tool's result.
type Content struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// Result is the result of tools/call. IsError marks a failure of the tool
// (shown to the model), as opposed to a protocol error.
type Result struct {
	Content []Content `json:"content"`
	IsError bool      `json:"isError,omitempty"`
}

// Text is a result of one text block.
func Text(s string) Result { return Result{Content: []Content{{Type: "text", Text: s}}} }

// Failure is an error result of one text block.
func Failure(s string) Result { r := Text(s); r.IsError = true; return r }

// Call is one tools/call.
type Call struct {
	Name      string
	Arguments json.RawMessage // a JSON object ("{}" when absent)
	ToolUseID string          // the model's tool_use id (claude's _meta), "" if not given
}

// Handler runs a tool. It returns a Result for anything the model should
// read (errors included); ctx ends at the server's timeout or when the call
// is cancelled.
type Handler func(ctx context.Context, c Call) Result

// Info names the server.
type Info struct {
	Name         string
	Version      string
	Instructions string
}

// Server answers the JSON-RPC messages of one client. Serve is safe for
// concurrent use.
type Server struct {
	info    Info
	tools   []Tool
	known   map[string]bool
	handle  Handler
	timeout time.Duration
	log     *slog.Logger

	mu      sync.Mutex
	running map[string]context.CancelFunc // request id -> cancel of a running call
	wg      sync.WaitGroup
}

// New returns a server offering tools, answered by handle, each call
// bounded by timeout (0: by nothing but a cancel; the handler bounds its
// own waits).
func New(info Info, tools []Tool, handle Handler, timeout time.Duration, log *slog.Logger) *Server {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	known := make(map[string]bool, len(tools))
	for _, t := range tools {
		known[t.Name] = true
	}
	return &Server{info: info, tools: tools, known: known, handle: handle, timeout: timeout, log: log,
		running: map[string]context.CancelFunc{}}
}

// Has reports whether the server offers tool name.
func (s *Server) Has(name string) bool { return s.known[name] }

// Manifest is the server's handshake output for initialize's
// sdkMcpServerManifests: the CLI answers its own MCP client from it and
// skips the initialize, notifications/initialized and tools/list round
// trips (checked on 2.1.328 with the protocol version it asks for; with
// another one it runs the handshake as usual).
func (s *Server) Manifest() map[string]any {
	return map[string]any{
		"initializeResult": s.initializeResult(Versions[0]),
		"toolsListResult":  map[string]any{"tools": s.tools},
	}
}

func (s *Server) initializeResult(version string) map[string]any {
	r := map[string]any{
		"protocolVersion": version,
		"capabilities":    map[string]any{"tools": map[string]any{"listChanged": false}},
		"serverInfo":      map[string]any{"name": s.info.Name, "version": s.info.Version},
	}
	if s.info.Instructions != "" {
		r["instructions"] = s.info.Instructions
	}
	return r
}

type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

type response struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Result  any             `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

func encode(r response) json.RawMessage {
	r.JSONRPC = "2.0"
	b, err := json.Marshal(r)
	if err != nil {
		b, _ = json.Marshal(response{JSONRPC: "2.0", ID: r.ID, Error: &rpcError{Code: CodeInternal, Message: "encode result: " + err.Error()}})
	}
	return b
}

func errorReply(id json.RawMessage, code int, msg string) json.RawMessage {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	return encode(response{ID: id, Error: &rpcError{Code: code, Message: msg}})
}

// emptyResult is the answer to a notification.
var emptyResult = encode(response{Result: struct{}{}})

// Serve handles one JSON-RPC message and calls reply exactly once with the
// answer. Everything but tools/call is answered before Serve returns; a
// tool call runs on its own goroutine, so the caller (claude's reader) never
// waits for a tool.
func (s *Server) Serve(raw []byte, reply func(json.RawMessage)) {
	s.ServeContext(context.Background(), raw, reply)
}

// ServeContext is Serve with a parent context for a tool call (its values
// reach the handler; its end cancels the call).
func (s *Server) ServeContext(parent context.Context, raw []byte, reply func(json.RawMessage)) {
	m, err := Decode(raw)
	if err != nil {
		code := CodeInvalidRequest
		var se *json.SyntaxError
		if errors.As(err, &se) {
			code = CodeParse
		}
		s.log.Warn("mcp: bad message", "err", err)
		reply(errorReply(m.ID, code, err.Error()))
		return
	}
	if m.Notification() {
		if m.Method == "notifications/cancelled" {
			s.cancel(m.Params)
		}
		reply(emptyResult)
		return
	}
	switch m.Method {
	case "initialize":
		var p struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		_ = json.Unmarshal(m.Params, &p)
		version := Versions[0]
		for _, v := range Versions {
			if v == p.ProtocolVersion {
				version = v
			}
		}
		reply(encode(response{ID: m.ID, Result: s.initializeResult(version)}))
	case "ping":
		reply(encode(response{ID: m.ID, Result: struct{}{}}))
	case "tools/list":
		reply(encode(response{ID: m.ID, Result: map[string]any{"tools": s.tools}}))
	case "tools/call":
		s.call(parent, m, reply)
	default:
		reply(errorReply(m.ID, CodeMethodNotFound, "method not found: "+m.Method))
	}
}

func (s *Server) call(parent context.Context, m Message, reply func(json.RawMessage)) {
	var p struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
		Meta      struct {
			ToolUseID string `json:"claudecode/toolUseId"`
		} `json:"_meta"`
	}
	if err := json.Unmarshal(m.Params, &p); err != nil {
		reply(errorReply(m.ID, CodeInvalidParams, "tools/call: "+err.Error()))
		return
	}
	if !s.known[p.Name] {
		reply(errorReply(m.ID, CodeInvalidParams, "unknown tool: "+p.Name))
		return
	}
	args := bytes.TrimSpace(p.Arguments)
	switch {
	case len(args) == 0 || string(args) == "null":
		args = json.RawMessage("{}")
	case args[0] != '{':
		reply(errorReply(m.ID, CodeInvalidParams, "tools/call: arguments must be an object"))
		return
	}
	var ctx context.Context
	var cancel context.CancelFunc
	if s.timeout > 0 {
		ctx, cancel = context.WithTimeout(parent, s.timeout)
	} else {
		ctx, cancel = context.WithCancel(parent)
	}
	key := string(m.ID)
	s.mu.Lock()
	s.running[key] = cancel
	s.mu.Unlock()
	c := Call{Name: p.Name, Arguments: args, ToolUseID: p.Meta.ToolUseID}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		defer func() {
			s.mu.Lock()
			delete(s.running, key)
			s.mu.Unlock()
			cancel()
		}()
		res := s.run(ctx, c)
		reply(encode(response{ID: m.ID, Result: res}))
	}()
}

// run calls the handler; a panic in a tool is an error result, never a
// dead host.
func (s *Server) run(ctx context.Context, c Call) (res Result) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("mcp: tool panicked", "tool", c.Name, "panic", r)
			res = Failure(fmt.Sprintf("the %s tool failed inside the editor plugin (%v)", c.Name, r))
		}
	}()
	res = s.handle(ctx, c)
	if res.Content == nil {
		res.Content = []Content{}
	}
	return res
}

func (s *Server) cancel(params json.RawMessage) {
	var p struct {
		RequestID json.RawMessage `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.RequestID) == 0 {
		return
	}
	s.mu.Lock()
	cancel, ok := s.running[string(bytes.TrimSpace(p.RequestID))]
	s.mu.Unlock()
	if ok {
		cancel()
	}
}

// Wait returns once every running tool call has replied.
func (s *Server) Wait() { s.wg.Wait() }
