// Package fakemodel is a fake Anthropic Messages API server that the real
// Claude Code CLI can run against (ANTHROPIC_BASE_URL=server.URL()).
//
// Answers are derived statelessly from the conversation in each request:
//
//   - "SEQ [[tool, input], ...]": one tool_use per response, step k+1 where k
//     is the number of tool_result blocks after the prompt; ids toolu_s<n>
//     (n = tool_results in the whole conversation; toolu_a<hash>_<n> in a
//     subagent's conversation); then text "all done" ("subagent done").
//   - "DEMO": the same with Options.DefaultScript (DemoScript by default).
//   - "STREAM n": one text block streamed as n text deltas of 40 bytes.
//   - "STREAMD n ms": the same, ms apart (a reply written slowly).
//   - "SEQD ms [...]": SEQ with the tool inputs streamed one delta every ms.
//   - "SLOW ms": waits ms (or until the client goes away), then "slow done".
//   - "OVERLOAD n text": 529 overloaded to the first n requests of this
//     prompt (the one state the server keeps), then "recovered: text".
//   - a turn claude starts when a background task ends: "Noted: <summary>".
//   - anything else: "You said: <text>" (Options.PlainReply when set, the
//     default script when Options.AlwaysScript is set).
//
// A script step may carry what Claude says before its call, and a script may
// end with what Claude says when done (see Step). A plan sent back to keep
// planning is proposed again, revised, while steps follow it.
//
// The prompt is the latest user text in the conversation, with the
// <system-reminder> blocks and other text the CLI injects removed.
// Requests without tools (the CLI's own helper queries) get short replies.
package fakemodel

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// Options configures a Server.
type Options struct {
	// Addr to listen on; default "127.0.0.1:0".
	Addr string
	// DefaultScript is used for the prompt "DEMO" (and for every plain
	// prompt when AlwaysScript is set). Nil means DemoScript().
	DefaultScript []Step
	// Scripts are named scripts: a prompt that is exactly one of the keys
	// runs its script (make demo's second part: "add a welcome()").
	Scripts map[string][]Step
	// AlwaysScript makes plain prompts run DefaultScript instead of "You said".
	AlwaysScript bool
	// PlainReply, when set, is the reply to a plain prompt instead of
	// "You said: …" (make demo: what the scripted model can do, and how
	// to script it).
	PlainReply string
	// Logger receives one line per request; nil discards.
	Logger *log.Logger
	// ChunkSize is the maximum size of a text/input_json delta; default 40.
	ChunkSize int
	// InputTokens is the input_tokens reported in usage; default 10. It is
	// kept small and constant so that long sessions (STREAM benchmarks)
	// never make the CLI auto-compact.
	InputTokens int
	// DumpDir, when set, receives every /v1/messages request body as
	// NNNN-<kind>.json (for debugging what the CLI sends).
	DumpDir string
}

// ToolResult is a tool_result block claude sent back to the model.
type ToolResult struct {
	ToolUseID string `json:"tool_use_id"`
	Content   string `json:"content"`
	IsError   bool   `json:"is_error"`
}

// RequestInfo summarizes one request the server received.
type RequestInfo struct {
	Method string `json:"method"`
	Path   string `json:"path"`
	Model  string `json:"model,omitempty"`
	Stream bool   `json:"stream,omitempty"`
	Tools  int    `json:"tools,omitempty"`
	Kind   string `json:"kind,omitempty"` // tool, text, stream, slow, side, error, overloaded, other
	Prompt string `json:"prompt,omitempty"`
	Note   string `json:"note,omitempty"`
}

// Server is a fake Anthropic API server. All methods are safe for
// concurrent use.
type Server struct {
	opts Options
	cwd  string

	mu      sync.Mutex
	srv     *http.Server
	ln      net.Listener
	addr    string
	nMsgs   int
	results []ToolResult
	seen    map[string]int
	loads   map[string]int // OVERLOAD prompt -> 529s answered
	log     []RequestInfo
	texts   []string      // the text of each /v1/messages request's messages (last 200)
	changed chan struct{} // closed and replaced on every recorded change
	msgSeq  int
	closed  bool
	done    chan struct{} // closed by Close
}

// New creates a server; call Start to listen.
func New(opts Options) *Server {
	if opts.Addr == "" {
		opts.Addr = "127.0.0.1:0"
	}
	if opts.DefaultScript == nil {
		opts.DefaultScript = DemoScript()
	}
	if opts.ChunkSize <= 0 {
		opts.ChunkSize = 40
	}
	if opts.InputTokens <= 0 {
		opts.InputTokens = 10
	}
	wd, _ := os.Getwd()
	return &Server{opts: opts, cwd: wd, seen: map[string]int{}, loads: map[string]int{}, changed: make(chan struct{}), done: make(chan struct{})}
}

// Start listens on Options.Addr and serves in the background. It returns
// the address (host:port). The server is closed when ctx is done.
func (s *Server) Start(ctx context.Context) (string, error) {
	ln, err := net.Listen("tcp", s.opts.Addr)
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	s.mu.Lock()
	s.srv, s.ln, s.addr = srv, ln, ln.Addr().String()
	s.mu.Unlock()
	go srv.Serve(ln)
	go func() {
		select {
		case <-ctx.Done():
			s.Close()
		case <-s.done:
		}
	}()
	s.logf("listening on %s", s.addr)
	return s.addr, nil
}

// URL returns "http://host:port" (empty before Start).
func (s *Server) URL() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.addr == "" {
		return ""
	}
	return "http://" + s.addr
}

// Close stops the server and drops open connections (ending SLOW waits).
// It may be called more than once (e.g. directly and via t.Cleanup).
func (s *Server) Close() {
	s.mu.Lock()
	srv := s.srv
	already := s.closed
	s.closed = true
	if !already {
		close(s.done)
	}
	s.mu.Unlock()
	if srv == nil || already {
		return
	}
	srv.Close()
}

// Requests returns the number of POST /v1/messages requests received.
func (s *Server) Requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nMsgs
}

// RequestLog returns a summary of every request received, in order.
func (s *Server) RequestLog() []RequestInfo {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]RequestInfo(nil), s.log...)
}

// RequestTexts returns, for each of the last 200 /v1/messages requests, the
// text of all its messages (every role; text blocks and tool_result
// contents), so a test can check what the model was told.
func (s *Server) RequestTexts() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.texts...)
}

// ToolResults returns the tool_result blocks seen so far, deduplicated by
// tool_use_id, in the order first seen.
func (s *Server) ToolResults() []ToolResult {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]ToolResult(nil), s.results...)
}

// ToolResult returns the recorded result for id, if any.
func (s *Server) ToolResult(id string) (ToolResult, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if i, ok := s.seen[id]; ok {
		return s.results[i], true
	}
	return ToolResult{}, false
}

// Wait blocks until cond returns true (evaluated now and after every
// recorded request) or ctx is done.
func (s *Server) Wait(ctx context.Context, cond func(s *Server) bool) error {
	for {
		s.mu.Lock()
		ch := s.changed
		s.mu.Unlock()
		if cond(s) {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// WaitToolResult waits until a tool_result for toolUseID has been received.
func (s *Server) WaitToolResult(ctx context.Context, toolUseID string) (ToolResult, error) {
	var tr ToolResult
	err := s.Wait(ctx, func(s *Server) bool {
		var ok bool
		tr, ok = s.ToolResult(toolUseID)
		return ok
	})
	if err != nil {
		return tr, fmt.Errorf("waiting for tool_result %s: %w", toolUseID, err)
	}
	return tr, nil
}

func (s *Server) logf(format string, args ...any) {
	if s.opts.Logger != nil {
		s.opts.Logger.Printf(format, args...)
	}
}

// record stores request info and tool results and wakes waiters.
// It returns the sequence number of the request (1-based).
func (s *Server) record(info RequestInfo, r *request) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = append(s.log, info)
	if r != nil {
		s.nMsgs++
		s.texts = append(s.texts, r.allText())
		if len(s.texts) > 200 {
			s.texts = s.texts[len(s.texts)-200:]
		}
		for _, b := range r.toolResults(0) {
			tr := ToolResult{ToolUseID: b.ToolUseID, Content: contentText(b.Content), IsError: b.IsError}
			if _, ok := s.seen[tr.ToolUseID]; ok {
				continue
			}
			s.seen[tr.ToolUseID] = len(s.results)
			s.results = append(s.results, tr)
		}
	}
	close(s.changed)
	s.changed = make(chan struct{})
	return len(s.log)
}

// overloaded counts a request of an OVERLOAD prompt and reports whether it
// is one of the first n (answered 529).
func (s *Server) overloaded(key string, n int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.loads[key] >= n {
		return false
	}
	s.loads[key]++
	return true
}

func (s *Server) nextID() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.msgSeq++
	return fmt.Sprintf("msg_fake%06d", s.msgSeq)
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	switch {
	case r.Method == http.MethodPost && path == "/v1/messages":
		s.handleMessages(w, r)
	case r.Method == http.MethodPost && path == "/v1/messages/count_tokens":
		body, _ := io.ReadAll(r.Body)
		s.record(RequestInfo{Method: r.Method, Path: path, Kind: "other"}, nil)
		s.logf("POST %s (%d bytes)", path, len(body))
		writeJSON(w, map[string]any{"input_tokens": len(body)/4 + 1})
	case r.Method == http.MethodGet && path == "/_fake/tool_results":
		res := s.ToolResults()
		if res == nil {
			res = []ToolResult{}
		}
		writeJSON(w, res)
	case r.Method == http.MethodGet && path == "/_fake/requests":
		writeJSON(w, map[string]any{"requests": s.Requests(), "log": s.RequestLog()})
	case path == "/v1/models" || strings.HasPrefix(path, "/v1/models/"):
		s.record(RequestInfo{Method: r.Method, Path: path, Kind: "other"}, nil)
		s.logf("%s %s", r.Method, r.URL.RequestURI())
		writeJSON(w, map[string]any{"data": []any{
			map[string]any{"type": "model", "id": "claude-sonnet-4-5", "display_name": "Claude Sonnet 4.5 (fake)", "created_at": "2025-01-01T00:00:00Z"},
		}, "has_more": false, "first_id": "claude-sonnet-4-5", "last_id": "claude-sonnet-4-5"})
	default:
		body, _ := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		s.record(RequestInfo{Method: r.Method, Path: path, Kind: "other", Note: "unknown path"}, nil)
		s.logf("unknown request %s %s (%d bytes body) %.200s", r.Method, r.URL.RequestURI(), len(body), body)
		writeJSON(w, map[string]any{})
	}
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(map[string]any{"type": "error",
		"error": map[string]any{"type": "invalid_request_error", "message": msg}})
}

func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	var req request
	if err := json.Unmarshal(body, &req); err != nil {
		s.record(RequestInfo{Method: r.Method, Path: r.URL.Path, Kind: "error", Note: err.Error()}, nil)
		s.logf("bad /v1/messages body: %v", err)
		apiError(w, http.StatusBadRequest, "fakemodel: bad JSON: "+err.Error())
		return
	}
	p := decide(&req, scriptConfig{DefaultScript: s.opts.DefaultScript, AlwaysScript: s.opts.AlwaysScript, FallbackCwd: s.cwd,
		PlainReply: s.opts.PlainReply, Scripts: s.opts.Scripts})
	if p.Kind == "overload" {
		if s.overloaded(p.Key, p.Overload) {
			s.record(RequestInfo{Method: r.Method, Path: r.URL.Path, Kind: "overloaded", Note: p.Note}, nil)
			s.logf("POST %s -> 529 overloaded (%s)", r.URL.RequestURI(), p.Note)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(529)
			json.NewEncoder(w).Encode(map[string]any{"type": "error",
				"error": map[string]any{"type": "overloaded_error", "message": "Overloaded"}})
			return
		}
		p.Kind = "text"
	}
	prompt, _ := req.prompt()
	if p.Kind == "side" {
		prompt = lastText(&req)
	}
	info := RequestInfo{Method: r.Method, Path: r.URL.Path, Model: req.Model, Stream: req.Stream,
		Tools: len(req.Tools), Kind: p.Kind, Prompt: clip(prompt, 200), Note: p.Note}
	n := s.record(info, &req)
	if s.opts.DumpDir != "" {
		os.WriteFile(filepath.Join(s.opts.DumpDir, fmt.Sprintf("%04d-%s.json", n, p.Kind)), body, 0o644)
	}
	s.logf("POST %s model=%s stream=%v tools=%d msgs=%d max_tokens=%d -> %s %s | prompt=%q",
		r.URL.RequestURI(), req.Model, req.Stream, len(req.Tools), len(req.Messages), req.MaxTokens,
		p.Kind, p.Note, clip(prompt, 120))
	if hs := claudeHeaders(r.Header); hs != "" {
		s.logf("  headers: %s", hs)
	}
	if p.Kind == "side" {
		s.logf("  side request system=%q last=%q -> %q", clip(req.systemText(), 300), clip(lastText(&req), 300), clip(p.Reply.Blocks[0].fullText(), 100))
	}

	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	inTok := s.opts.InputTokens
	id := s.nextID()
	w.Header().Set("request-id", "req_"+id)

	if !req.Stream {
		if p.Delay > 0 && !sleepCtx(r.Context(), p.Delay) {
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write(MessageJSON(id, model, inTok, p.Reply))
		return
	}

	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.Header().Set("Cache-Control", "no-cache")
	w.Header().Set("Connection", "keep-alive")
	w.WriteHeader(http.StatusOK)
	rc := http.NewResponseController(w)
	sw := &SSEWriter{W: w, Flush: func() { rc.Flush() }}
	sw.MessageStart(id, model, inTok)
	if p.Delay > 0 {
		if !sleepCtx(r.Context(), p.Delay) {
			s.logf("  %s: client went away during SLOW wait", id)
			return
		}
	}
	sw.Blocks(p.Reply, s.opts.ChunkSize)
	if err := sw.MessageEnd(p.Reply, inTok); err != nil {
		s.logf("  %s: write error: %v", id, err)
	}
}

// sleepCtx sleeps d or until ctx is done; it reports whether d elapsed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// claudeHeaders renders the x-claude-code-* and anthropic-beta headers.
func claudeHeaders(h http.Header) string {
	var parts []string
	for k, v := range h {
		lk := strings.ToLower(k)
		if strings.HasPrefix(lk, "x-claude") || lk == "anthropic-beta" || lk == "x-app" {
			parts = append(parts, lk+"="+strings.Join(v, ","))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

func lastText(r *request) string {
	if len(r.Messages) == 0 {
		return ""
	}
	var parts []string
	for _, b := range r.Messages[len(r.Messages)-1].blocks() {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
