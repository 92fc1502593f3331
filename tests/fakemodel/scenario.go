package fakemodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Step is one scripted tool call. In JSON it is the array [toolName,
// inputObject] or [toolName, inputObject, "text"], the same shape as the
// elements of a SEQ prompt; the text is what Claude says before the call
// (a guided tour explains each step with it).
//
// The step ["say", {"text": "…"}], only as the last of a script, is what
// Claude says when the script is done (instead of "all done").
//
// String values of Input may contain the placeholder {{cwd}}; it is replaced
// by claude's working directory as announced in the request's system prompt
// (the server's own working directory when the request does not say), and
// {{dir}} by that folder's name (a worktree's: two attempts on one prompt,
// each in its worktree, then write different things).
// {{last:REGEX}} is replaced by the first group REGEX captures in the
// latest tool result that it matches (an id a tool gave back: CronCreate's
// job, say); "" when none does. REGEX may not contain "}}".
type Step struct {
	Tool  string
	Input json.RawMessage
	Say   string
}

// SayTool names the closing step of a script: its input's text is the
// reply once every tool call is done.
const SayTool = "say"

// NewStep builds a Step, encoding input (a struct or map) as JSON.
func NewStep(tool string, input any) Step {
	return Step{Tool: tool, Input: mustJSON(input)}
}

// MarshalJSON encodes the step as [tool, input] (or [tool, input, say]).
func (s Step) MarshalJSON() ([]byte, error) {
	in := s.Input
	if len(in) == 0 {
		in = json.RawMessage(`{}`)
	}
	if s.Say != "" {
		return json.Marshal([]any{s.Tool, in, s.Say})
	}
	return json.Marshal([]any{s.Tool, in})
}

// UnmarshalJSON decodes [tool, input] or [tool, input, say].
func (s *Step) UnmarshalJSON(b []byte) error {
	var pair []json.RawMessage
	if err := json.Unmarshal(b, &pair); err != nil {
		return fmt.Errorf("step must be [toolName, inputObject]: %w", err)
	}
	if len(pair) != 2 && len(pair) != 3 {
		return fmt.Errorf("step must be [toolName, inputObject] or [toolName, inputObject, \"text\"], got %d elements", len(pair))
	}
	if err := json.Unmarshal(pair[0], &s.Tool); err != nil || s.Tool == "" {
		return fmt.Errorf("step tool name must be a non-empty string: %s", pair[0])
	}
	in := bytes.TrimSpace(pair[1])
	if len(in) == 0 || in[0] != '{' {
		return fmt.Errorf("step input for %s must be a JSON object: %s", s.Tool, pair[1])
	}
	s.Input = append(json.RawMessage(nil), in...)
	s.Say = ""
	if len(pair) == 3 {
		if err := json.Unmarshal(pair[2], &s.Say); err != nil {
			return fmt.Errorf("step text for %s must be a string: %s", s.Tool, pair[2])
		}
	}
	return nil
}

// ParseScript parses a script: a JSON array of steps (see Step).
func ParseScript(b []byte) ([]Step, error) {
	var steps []Step
	if err := json.Unmarshal(b, &steps); err != nil {
		return nil, err
	}
	for i, st := range steps {
		if st.Tool != SayTool {
			continue
		}
		if i != len(steps)-1 {
			return nil, fmt.Errorf("step %d: [\"say\", {\"text\": …}] can only be the last step (what Claude says when done)", i+1)
		}
		var in struct {
			Text string `json:"text"`
		}
		if json.Unmarshal(st.Input, &in) != nil || in.Text == "" {
			return nil, fmt.Errorf("step %d: say needs {\"text\": \"…\"}", i+1)
		}
	}
	return steps, nil
}

// callSteps are the steps that call a tool (a closing say is not one) and
// the closing text ("" when the script has none).
func callSteps(steps []Step) ([]Step, string) {
	if n := len(steps); n > 0 && steps[n-1].Tool == SayTool {
		var in struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(steps[n-1].Input, &in)
		return steps[:n-1], in.Text
	}
	return steps, ""
}

// ParseScripts parses named scripts: a JSON object whose keys are prompts
// and whose values are scripts (see ParseScript).
func ParseScripts(data []byte) (map[string][]Step, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	out := make(map[string][]Step, len(raw))
	for prompt, script := range raw {
		steps, err := ParseScript(script)
		if err != nil {
			return nil, fmt.Errorf("script %q: %w", prompt, err)
		}
		out[prompt] = steps
	}
	return out, nil
}

// DemoScript is the default DEMO script: Read then Edit a.txt in claude's
// working directory (the Edit replaces "hello" with "hello from claude-nova",
// so a.txt should contain "hello").
func DemoScript() []Step {
	return []Step{
		NewStep("Read", map[string]any{"file_path": "{{cwd}}/a.txt"}),
		NewStep("Edit", map[string]any{"file_path": "{{cwd}}/a.txt", "old_string": "hello", "new_string": "hello from claude-nova"}),
	}
}

// ---- request model ----

// request is the part of a Messages API request body the fake looks at.
type request struct {
	Model     string            `json:"model"`
	MaxTokens int               `json:"max_tokens"`
	Stream    bool              `json:"stream"`
	System    json.RawMessage   `json:"system"`
	Messages  []message         `json:"messages"`
	Tools     []json.RawMessage `json:"tools"`
	// Structured output (session titles etc.): output_config.format or the
	// older output_format.
	OutputConfig struct {
		Format *outputFormat `json:"format"`
	} `json:"output_config"`
	OutputFormat *outputFormat `json:"output_format"`
}

type outputFormat struct {
	Type   string         `json:"type"`
	Schema map[string]any `json:"schema"`
}

type message struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type block struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Source    struct {
		MediaType string `json:"media_type"`
	} `json:"source"`
}

// blocks returns the content of m as blocks (a string becomes one text block).
func (m message) blocks() []block {
	c := bytes.TrimSpace(m.Content)
	if len(c) == 0 {
		return nil
	}
	if c[0] == '"' {
		var s string
		json.Unmarshal(c, &s)
		return []block{{Type: "text", Text: s}}
	}
	var bs []block
	json.Unmarshal(c, &bs)
	return bs
}

// contentText joins the text of a tool_result content (string or blocks).
func contentText(raw json.RawMessage) string {
	c := bytes.TrimSpace(raw)
	if len(c) == 0 {
		return ""
	}
	if c[0] == '"' {
		var s string
		json.Unmarshal(c, &s)
		return s
	}
	var bs []block
	json.Unmarshal(c, &bs)
	var parts []string
	for _, b := range bs {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// allText joins the text of every message (any role): text blocks and
// tool_result contents, one per line.
func (r *request) allText() string {
	var parts []string
	for _, m := range r.Messages {
		for _, b := range m.blocks() {
			switch b.Type {
			case "text":
				parts = append(parts, m.Role+": "+b.Text)
			case "tool_result":
				parts = append(parts, m.Role+": [tool_result "+b.ToolUseID+"] "+contentText(b.Content))
			case "tool_use":
				parts = append(parts, m.Role+": [tool_use "+b.ID+" "+b.Name+"]")
			case "image":
				parts = append(parts, m.Role+": [image "+b.Source.MediaType+"]")
			}
		}
	}
	return strings.Join(parts, "\n")
}

// systemText returns the system prompt as one string.
func (r *request) systemText() string {
	return contentText(r.System)
}

var (
	reminderRE = regexp.MustCompile(`(?s)<system-reminder>.*?</system-reminder>`)
	cwdRE      = regexp.MustCompile(`(?m)(?:Primary working directory|Working directory|working directory is|Current working directory):\s*(\S[^\n]*?)\s*$`)
)

// injectedPrefixes mark text blocks the CLI adds to user messages on its own.
var injectedPrefixes = []string{
	"[Request interrupted",
	"Caveat: The messages below",
	"This session is being continued from a previous conversation",
	"<local-command-caveat>",
	"<command-name>", "<command-message>", "<command-args>",
	"<local-command-stdout>", "<local-command-stderr>",
	"<bash-input>", "<bash-stdout>", "<bash-stderr>",
	"<user-prompt-submit-hook>",
	// A prompt sent while a turn runs: 2.1.328 wraps it in a system
	// message, 2.1.332 in a user message. Either way it joins the running
	// turn, whose script goes on; it is not a prompt of its own.
	midTurn,
}

// midTurn starts the CLI's wrapping of a prompt sent while a turn runs.
const midTurn = "The user sent a new message while you were working:"

// forkDirective introduces the Task's prompt in a fork subagent's message.
const forkDirective = "</fork-boilerplate>\n\nYour directive: "

// userText strips CLI-injected context from a text block and returns the
// user's own text ("" when nothing is left).
func userText(t string) string {
	t = strings.TrimSpace(reminderRE.ReplaceAllString(t, ""))
	// A fork subagent gets the parent's history and one more message: the
	// CLI's boilerplate, then the Task's prompt.
	if strings.HasPrefix(t, "<fork-boilerplate>") {
		if _, directive, ok := strings.Cut(t, forkDirective); ok {
			return strings.TrimSpace(directive)
		}
	}
	for _, p := range injectedPrefixes {
		if strings.HasPrefix(t, p) {
			return ""
		}
	}
	return t
}

// prompt locates the latest user prompt: the last user message that has
// own text, and its last own text block.
func (r *request) prompt() (text string, idx int) {
	idx = -1
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role != "user" {
			continue
		}
		bs := m.blocks()
		for j := len(bs) - 1; j >= 0; j-- {
			if bs[j].Type != "text" {
				continue
			}
			if t := userText(bs[j].Text); t != "" {
				return t, i
			}
		}
	}
	return "", -1
}

// toolResults returns the tool_result blocks of messages[from:].
func (r *request) toolResults(from int) []block {
	var out []block
	if from < 0 {
		from = 0
	}
	for _, m := range r.Messages[from:] {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.blocks() {
			if b.Type == "tool_result" {
				out = append(out, b)
			}
		}
	}
	return out
}

// cwd extracts claude's working directory from the system prompt or the
// injected context of the first user message.
func (r *request) cwd() string {
	if m := cwdRE.FindStringSubmatch(r.systemText()); m != nil {
		return m[1]
	}
	for _, m := range r.Messages {
		for _, b := range m.blocks() {
			if mm := cwdRE.FindStringSubmatch(b.Text); mm != nil {
				return mm[1]
			}
		}
	}
	return ""
}

// ---- decisions ----

// plan is what the server will answer to one request.
type plan struct {
	Kind  string // "tool", "text", "stream", "slow", "side", "error"
	Reply Reply
	Delay time.Duration // SLOW: sleep before the text
	Note  string        // for logs
	// OVERLOAD: answer 529 to the first Overload requests of prompt Key.
	Overload int
	Key      string
}

// scriptConfig carries the options that influence decisions.
type scriptConfig struct {
	DefaultScript []Step
	AlwaysScript  bool
	FallbackCwd   string
	PlainReply    string // the reply to a plain prompt ("": "You said: …")
	Scripts       map[string][]Step
}

// streamChunk is the ~40 character delta used by STREAM n (always 40 bytes).
func streamChunk(i int) string {
	s := fmt.Sprintf("chunk %06d the quick brown fox jumps", i)
	if len(s) > 39 {
		s = s[:39]
	}
	return s + strings.Repeat(".", 39-len(s)) + "\n"
}

// decide computes the reply to a parsed request.
func decide(r *request, cfg scriptConfig) plan {
	text, idx := r.prompt()
	if len(r.Tools) == 0 || r.schema() != nil || isCompaction(r, text) {
		return sideReply(r)
	}
	word, rest, _ := strings.Cut(text, " ")
	rest = strings.TrimSpace(rest)
	// A later plain prompt in a conversation whose first prompt was a script
	// would otherwise be "You said"; that is intended: the latest prompt rules.
	switch {
	case word == "SEQ":
		steps, err := ParseScript([]byte(rest))
		if err != nil {
			return plan{Kind: "error", Reply: TextReply("bad SEQ script: " + err.Error()), Note: "bad SEQ"}
		}
		return scriptStep(r, idx, steps, cfg)
	case word == "SEQD":
		// SEQD ms [...]: SEQ whose tool inputs are written slowly, one
		// delta of ChunkSize bytes every ms (a long file being written).
		msText, script, _ := strings.Cut(rest, " ")
		ms, err := strconv.Atoi(msText)
		if err != nil || ms < 0 {
			return plan{Kind: "error", Reply: TextReply("bad SEQD: " + rest + " (want: SEQD ms [...])")}
		}
		steps, err := ParseScript([]byte(script))
		if err != nil {
			return plan{Kind: "error", Reply: TextReply("bad SEQD script: " + err.Error()), Note: "bad SEQD"}
		}
		p := scriptStep(r, idx, steps, cfg)
		p.Reply.ChunkDelay = time.Duration(ms) * time.Millisecond
		return p
	case word == "OVERLOAD":
		// OVERLOAD n text: the first n requests for this prompt are
		// answered 529 overloaded (the server counts them), then
		// "recovered: text".
		nText, after, _ := strings.Cut(rest, " ")
		n, err := strconv.Atoi(nText)
		if err != nil || n < 0 {
			return plan{Kind: "error", Reply: TextReply("bad OVERLOAD: " + rest + " (want: OVERLOAD n text)")}
		}
		return plan{Kind: "overload", Overload: n, Key: text, Reply: TextReply("recovered: " + strings.TrimSpace(after)),
			Note: fmt.Sprintf("OVERLOAD %d", n)}
	case text == "DEMO":
		return scriptStep(r, idx, cfg.DefaultScript, cfg)
	case cfg.Scripts[text] != nil:
		return scriptStep(r, idx, cfg.Scripts[text], cfg)
	case word == "STREAM":
		n, err := strconv.Atoi(rest)
		if err != nil || n < 0 {
			return plan{Kind: "error", Reply: TextReply("bad STREAM count: " + rest)}
		}
		chunks := make([]string, n)
		for i := range chunks {
			chunks[i] = streamChunk(i)
		}
		if n == 0 {
			chunks = []string{""}
		}
		return plan{Kind: "stream", Reply: Reply{Blocks: []Block{{Type: "text", TextChunks: chunks}}, StopReason: "end_turn"},
			Note: fmt.Sprintf("STREAM %d", n)}
	case word == "STREAMD":
		// STREAMD n ms: n deltas, ms apart (a reply written slowly).
		var n, ms int
		if _, err := fmt.Sscanf(rest, "%d %d", &n, &ms); err != nil || n < 1 || ms < 0 {
			return plan{Kind: "error", Reply: TextReply("bad STREAMD: " + rest + " (want: STREAMD n ms)")}
		}
		chunks := make([]string, n)
		for i := range chunks {
			chunks[i] = streamChunk(i)
		}
		return plan{Kind: "stream", Reply: Reply{Blocks: []Block{{Type: "text", TextChunks: chunks}}, StopReason: "end_turn",
			ChunkDelay: time.Duration(ms) * time.Millisecond}, Note: fmt.Sprintf("STREAMD %d %d", n, ms)}
	case word == "SLOW":
		ms, err := strconv.Atoi(rest)
		if err != nil || ms < 0 {
			return plan{Kind: "error", Reply: TextReply("bad SLOW duration: " + rest)}
		}
		return plan{Kind: "slow", Reply: TextReply("slow done"), Delay: time.Duration(ms) * time.Millisecond,
			Note: fmt.Sprintf("SLOW %dms", ms)}
	case cfg.AlwaysScript:
		return scriptStep(r, idx, cfg.DefaultScript, cfg)
	}
	if sum, ok := r.notification(); ok {
		return plan{Kind: "text", Reply: TextReply(noted(sum)), Note: "task notification"}
	}
	if cfg.PlainReply != "" {
		return plan{Kind: "text", Reply: TextReply(cfg.PlainReply), Note: "plain reply"}
	}
	return plan{Kind: "text", Reply: TextReply("You said: " + text)}
}

// noted is the reply to a turn claude starts when a background task ends.
func noted(summary string) string {
	if summary == "" {
		return "Noted: a background task ended."
	}
	return "Noted: " + strings.TrimSuffix(summary, ".") + "."
}

var summaryRE = regexp.MustCompile(`(?s)<summary>(.*?)</summary>`)

// notification reports whether r is a turn claude started by itself for a
// background task that ended (its last message is the CLI's task
// notification, no tool result, no prompt of the user's), with the task's
// summary.
func (r *request) notification() (string, bool) {
	sum, found, alone := r.taskEnded()
	return sum, found && alone
}

// taskEnded finds the CLI's notifications of background tasks that ended
// in the messages since Claude's last: found, with their summaries; alone
// when those messages are nothing else (a turn claude started for them).
// Mid-turn the CLI adds one as a message of its own (role "system") after
// the tool results.
func (r *request) taskEnded() (summary string, found, alone bool) {
	alone = true
	var sums []string
	for i := len(r.Messages) - 1; i >= 0; i-- {
		m := r.Messages[i]
		if m.Role == "assistant" {
			break
		}
		for _, b := range m.blocks() {
			switch b.Type {
			case "tool_result":
				alone = false
			case "text":
				if !strings.Contains(b.Text, "<task-notification>") {
					if m.Role == "user" && userText(b.Text) != "" {
						alone = false
					}
					continue
				}
				found = true
				for _, mm := range summaryRE.FindAllStringSubmatch(b.Text, -1) {
					sums = append([]string{strings.TrimSpace(mm[1])}, sums...)
				}
			}
		}
	}
	return strings.Join(sums, "; "), found, found && alone
}

// maxReplans bounds how often a rejected plan is proposed again.
const maxReplans = 5

// scriptStep answers step k of steps, k = number of tool_results after the
// prompt message. The tool_use id is toolu_s<n>, n = number of tool_results
// in the whole conversation (equal to k in the first turn, unique later).
//
// A plan the user sends back (ExitPlanMode answered "keep planning") is
// proposed again, revised with their feedback, as long as steps follow it:
// Claude keeps planning instead of going on as if it had been approved.
func scriptStep(r *request, idx int, steps []Step, cfg scriptConfig) plan {
	steps, closing := callSteps(steps)
	k, feedback := r.position(idx, steps)
	if k >= len(steps) {
		done := "all done"
		if closing != "" {
			done = closing
		}
		if r.subagent() {
			done = "subagent done"
		}
		if sum, found, alone := r.taskEnded(); found && alone {
			done = noted(sum)
		} else if found {
			done = noted(sum) + "\n\n" + done
		}
		return plan{Kind: "text", Reply: TextReply(done), Note: fmt.Sprintf("script done (%d steps)", len(steps))}
	}
	n := len(r.toolResults(0))
	st := steps[k]
	in := st.Input
	if len(in) == 0 {
		in = json.RawMessage(`{}`)
	}
	say := st.Say
	if st.Tool == "ExitPlanMode" && len(feedback) > 0 {
		in, say = revisedPlan(in, feedback)
	}
	if sum, found, _ := r.taskEnded(); found {
		// A task ended while the script runs: Claude mentions it.
		say = strings.TrimSpace(noted(sum) + "\n\n" + say)
	}
	if bytes.Contains(in, []byte("{{cwd}}")) || bytes.Contains(in, []byte("{{dir}}")) {
		cwd := r.cwd()
		if cwd == "" {
			cwd = cfg.FallbackCwd
		}
		esc, _ := json.Marshal(cwd)
		in = bytes.ReplaceAll(in, []byte("{{cwd}}"), esc[1:len(esc)-1])
		esc, _ = json.Marshal(filepath.Base(cwd))
		in = bytes.ReplaceAll(in, []byte("{{dir}}"), esc[1:len(esc)-1])
	}
	if bytes.Contains(in, []byte("{{last:")) {
		in = r.fillLast(in)
	}
	id := "toolu_s" + strconv.Itoa(n)
	if r.subagent() {
		// A subagent's conversation starts anew: its ids must not repeat
		// the main conversation's (the real API's never do).
		id = fmt.Sprintf("toolu_a%08x_%d", crc32.ChecksumIEEE([]byte(r.firstUserText())), n)
	}
	reply := ToolUseReply(id, st.Tool, in)
	if say != "" {
		reply.Blocks = append([]Block{{Type: "text", Text: say}}, reply.Blocks...)
	}
	return plan{Kind: "tool", Reply: reply, Note: fmt.Sprintf("step %d/%d %s %s", k+1, len(steps), st.Tool, id)}
}

// position is the step the script is at after the prompt at idx: one per
// tool result, except a plan sent back to keep planning while steps follow
// it (that step comes again; feedback holds what the user said each time).
func (r *request) position(idx int, steps []Step) (k int, feedback []string) {
	names := r.toolNames()
	for _, res := range r.toolResults(idx + 1) {
		if k < len(steps)-1 && steps[k].Tool == "ExitPlanMode" && names[res.ToolUseID] == "ExitPlanMode" &&
			res.IsError && len(feedback) < maxReplans {
			text := contentText(res.Content)
			if strings.Contains(strings.ToLower(text), "keep planning") {
				fb := text
				if _, after, ok := strings.Cut(text, "Their feedback:"); ok {
					fb = after
				}
				feedback = append(feedback, strings.TrimSpace(fb))
				continue
			}
		}
		k++
	}
	return k, feedback
}

// toolNames maps the tool_use ids of the conversation to their tools.
func (r *request) toolNames() map[string]string {
	out := map[string]string{}
	for _, m := range r.Messages {
		if m.Role != "assistant" {
			continue
		}
		for _, b := range m.blocks() {
			if b.Type == "tool_use" {
				out[b.ID] = b.Name
			}
		}
	}
	return out
}

// revisedPlan is a plan proposed again after the user's feedback: their
// words are in it, and Claude says so.
func revisedPlan(in json.RawMessage, feedback []string) (json.RawMessage, string) {
	var m map[string]any
	if json.Unmarshal(in, &m) != nil || m == nil {
		m = map[string]any{}
	}
	plan, _ := m["plan"].(string)
	var b strings.Builder
	b.WriteString(strings.TrimRight(plan, "\n"))
	b.WriteString("\n\n## Revised after your feedback\n\n")
	for _, f := range feedback {
		if f == "" {
			f = "(no words: keep planning)"
		}
		fmt.Fprintf(&b, "- %s\n", f)
	}
	m["plan"] = b.String()
	out, _ := json.Marshal(m)
	return out, fmt.Sprintf("I revised the plan after your feedback (%d). Approve it, or send it back again.", len(feedback))
}

// subagent reports whether r comes from a subagent (the CLI marks its
// system prompt so).
func (r *request) subagent() bool {
	return strings.Contains(r.systemText(), "cc_is_subagent=true")
}

// firstUserText is the own text of the first user message (a subagent's:
// the Task's prompt).
func (r *request) firstUserText() string {
	for _, m := range r.Messages {
		if m.Role != "user" {
			continue
		}
		for _, b := range m.blocks() {
			if b.Type == "text" {
				if t := userText(b.Text); t != "" {
					return t
				}
			}
		}
	}
	return ""
}

// isCompaction reports whether r is the CLI's conversation compaction
// request (/compact or auto-compact). It is sent with the normal tools.
func isCompaction(r *request, prompt string) bool {
	return strings.HasPrefix(prompt, "CRITICAL: Respond with TEXT ONLY") ||
		strings.Contains(prompt, "an <analysis> block followed by a <summary> block") ||
		strings.Contains(r.systemText(), "tasked with summarizing conversations")
}

// compactionSummary is the reply to a compaction request.
const compactionSummary = "<analysis>\nFake analysis.\n</analysis>\n\n<summary>\n1. Primary Request and Intent:\n   Fake conversation summary.\n</summary>"

// schema returns the JSON schema of a structured-output request, or nil.
func (r *request) schema() map[string]any {
	if f := r.OutputConfig.Format; f != nil && f.Schema != nil {
		return f.Schema
	}
	if f := r.OutputFormat; f != nil && f.Schema != nil {
		return f.Schema
	}
	return nil
}

// sideReply answers the CLI's own helper queries: requests without tools,
// with a structured-output schema (session title), or compaction.
// Claude Code 2.1.328 in -p stream-json mode sends none of these in the
// normal flow except compaction (on /compact); the others are answered
// sensibly in case another version or mode asks.
func sideReply(r *request) plan {
	prompt, _ := r.prompt()
	if isCompaction(r, prompt) {
		return plan{Kind: "side", Reply: TextReply(compactionSummary), Note: "compaction"}
	}
	if sc := r.schema(); sc != nil {
		v := fromSchema(sc, "")
		return plan{Kind: "side", Reply: TextReply(string(mustJSON(v))), Note: "structured output"}
	}
	all := r.systemText() + "\n" + lastText(r)
	lower := strings.ToLower(all)
	switch {
	case strings.Contains(all, "<policy_spec>"):
		// Bash prefix detection (older CLIs): the bare prefix, or "none".
		return plan{Kind: "side", Reply: TextReply(bashPrefix(lastText(r))), Note: "bash prefix"}
	case strings.Contains(lower, "title"):
		if strings.Contains(lower, "json") {
			return plan{Kind: "side", Reply: TextReply(`{"title": "Fake session"}`), Note: "title (json)"}
		}
		return plan{Kind: "side", Reply: TextReply("Fake session"), Note: "title"}
	case strings.Contains(lower, "summar"):
		return plan{Kind: "side", Reply: TextReply("Fake summary."), Note: "summary"}
	}
	return plan{Kind: "side", Reply: TextReply("ok"), Note: "side (default)"}
}

// fromSchema builds a small value that satisfies a JSON schema.
func fromSchema(sc map[string]any, name string) any {
	if e, ok := sc["enum"].([]any); ok && len(e) > 0 {
		return e[0]
	}
	if c, ok := sc["const"]; ok {
		return c
	}
	t, _ := sc["type"].(string)
	if ts, ok := sc["type"].([]any); ok && len(ts) > 0 {
		t, _ = ts[0].(string)
	}
	switch t {
	case "object":
		out := map[string]any{}
		props, _ := sc["properties"].(map[string]any)
		for k, p := range props {
			if ps, ok := p.(map[string]any); ok {
				out[k] = fromSchema(ps, k)
			}
		}
		return out
	case "array":
		return []any{}
	case "boolean":
		return false
	case "integer", "number":
		return 0
	case "null":
		return nil
	}
	if name == "title" {
		return "Fake session"
	}
	return "fake"
}

var commandRE = regexp.MustCompile(`(?m)^Command:\s*(.+)$`)

// bashPrefix answers a Bash command-prefix query: the first word of the
// command (plus a subcommand word for git/npm/go-like tools).
func bashPrefix(q string) string {
	m := commandRE.FindAllStringSubmatch(q, -1)
	if m == nil {
		return "none"
	}
	cmd := strings.TrimSpace(m[len(m)-1][1])
	if strings.ContainsAny(cmd, "`$;|&") {
		return "command_injection_detected"
	}
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return "none"
	}
	return f[0]
}

var lastRE = regexp.MustCompile(`\{\{last:(.+?)\}\}`)

// fillLast replaces each {{last:REGEX}} of a step's input (see Step).
func (r *request) fillLast(in json.RawMessage) json.RawMessage {
	results := r.toolResults(0)
	return lastRE.ReplaceAllFunc(in, func(m []byte) []byte {
		var pat string
		if json.Unmarshal(append(append([]byte{'"'}, lastRE.FindSubmatch(m)[1]...), '"'), &pat) != nil {
			return nil
		}
		re, err := regexp.Compile(pat)
		if err != nil {
			return nil
		}
		for i := len(results) - 1; i >= 0; i-- {
			if mm := re.FindStringSubmatch(contentText(results[i].Content)); len(mm) > 1 {
				esc, _ := json.Marshal(mm[1])
				return esc[1 : len(esc)-1]
			}
		}
		return nil
	})
}
