// Command capture runs the real claude CLI against the fake model server
// with one prompt, allows every permission request, and writes the whole
// conversation as a transcript (">> " lines written to claude's stdin,
// "<< " lines read from its stdout), the form of the fixtures under
// rplugin/*/testdata. It is how those fixtures are made:
//
//	capture -claude "$CLAUDE_BIN" -prompt 'SEQ [["Task",{…}]]' -results 2 > flow.jsonl
//
// -results says how many result messages end the capture (a task ending
// starts a turn of its own); -on 'REGEX=>JSON' sends a control request when
// a line read matches (tasks: get_task_output, stop_task; {{task_id}} in
// JSON is the first task started).
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

type trigger struct {
	re   *regexp.Regexp
	send string
	done bool
}

type list []string

func (l *list) String() string     { return strings.Join(*l, " ") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

type triggers []*trigger

func (t *triggers) String() string { return "" }
func (t *triggers) Set(v string) error {
	re, send, ok := strings.Cut(v, "=>")
	if !ok {
		return fmt.Errorf("want REGEX=>JSON, got %q", v)
	}
	r, err := regexp.Compile(re)
	if err != nil {
		return err
	}
	*t = append(*t, &trigger{re: r, send: send})
	return nil
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "capture:", err)
		os.Exit(1)
	}
}

func run() error {
	bin := flag.String("claude", os.Getenv("CLAUDE_BIN"), "the claude executable")
	var prompts list
	flag.Var(&prompts, "prompt", "a prompt (repeat: each next one is sent after a result)")
	results := flag.Int("results", 1, "result messages that end the capture")
	timeout := flag.Duration("timeout", 90*time.Second, "give up after")
	chunk := flag.Int("chunk", 0, "fake model delta size (0: default)")
	initFields := flag.String("init", "", "JSON object of extra initialize fields")
	keepHome := flag.String("home", "", "claude's HOME (kept; default: a temporary folder)")
	dump := flag.String("dump", "", "write every model request body to this folder")
	deny := flag.String("deny", "", "deny tools whose name matches this regexp")
	stop := flag.Bool("stop", false, "a deny also ends the turn (interrupt: true)")
	dirs := flag.Bool("dirs", false, "an allow also takes claude's addDirectories suggestions (updatedPermissions)")
	dir := flag.String("cwd", "", "claude's working directory (kept; default: a temporary folder)")
	var extra list
	flag.Var(&extra, "arg", "an extra claude argument (repeat), e.g. -arg=--permission-mode -arg=plan")
	var on triggers
	flag.Var(&on, "on", "REGEX=>JSON: send JSON (a control_request) when a line read matches")
	synthetic := flag.Bool("synthetic", false, "mark the prompts after the first isSynthetic (text no person typed)")
	var merge triggers
	flag.Var(&merge, "merge", "TOOL=>JSON: an allow of a tool whose name matches TOOL has JSON's fields added to its updatedInput (a question's answers)")
	flag.Parse()
	if *bin == "" || len(prompts) == 0 {
		return fmt.Errorf("-claude and -prompt are required")
	}
	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	srv := fakemodel.New(fakemodel.Options{ChunkSize: *chunk, DumpDir: *dump})
	if _, err := srv.Start(ctx); err != nil {
		return err
	}
	defer srv.Close()
	home := *keepHome
	if home == "" {
		h, err := os.MkdirTemp("", "capture-home-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(h)
		home = h
	}
	cwd := *dir
	if cwd == "" {
		d, err := os.MkdirTemp("", "capture-cwd-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		cwd = d
	}
	cmd := exec.CommandContext(ctx, *bin, "-p", "--input-format", "stream-json", "--output-format", "stream-json",
		"--verbose", "--permission-prompt-tool", "stdio", "--include-partial-messages")
	cmd.Args = append(cmd.Args, extra...)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "HOME="+home)
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var mu sync.Mutex
	send := func(line string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintln(out, ">> "+line)
		io.WriteString(stdin, line+"\n")
	}
	init := `{"subtype":"initialize"}`
	if *initFields != "" {
		init = `{"subtype":"initialize",` + strings.TrimPrefix(*initFields, "{")
	}
	send(`{"type":"control_request","request_id":"init-1","request":` + init + `}`)
	prompted := 0
	prompt := func(p string) {
		p = strings.ReplaceAll(p, "{{cwd}}", cwd)
		pj, _ := json.Marshal(p)
		extra := ""
		if *synthetic && prompted > 0 {
			extra = `,"isSynthetic":true`
		}
		send(`{"type":"user","message":{"role":"user","content":` + string(pj) + `},"parent_tool_use_id":null,"session_id":""` + extra + `}`)
		prompted++
	}
	prompt(prompts[0])
	next := 1
	denyRE := regexp.MustCompile("^$")
	if *deny != "" {
		denyRE = regexp.MustCompile(*deny)
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	seen := 0
	taskID := ""
	for sc.Scan() {
		line := sc.Text()
		mu.Lock()
		fmt.Fprintln(out, "<< "+line)
		mu.Unlock()
		var m struct {
			Type      string `json:"type"`
			RequestID string `json:"request_id"`
			Request   struct {
				Subtype     string            `json:"subtype"`
				ToolName    string            `json:"tool_name"`
				Input       json.RawMessage   `json:"input"`
				Suggestions []json.RawMessage `json:"permission_suggestions"`
			} `json:"request"`
		}
		_ = json.Unmarshal([]byte(line), &m)
		var tl struct {
			Subtype string `json:"subtype"`
			TaskID  string `json:"task_id"`
		}
		if _ = json.Unmarshal([]byte(line), &tl); tl.Subtype == "task_started" && taskID == "" {
			taskID = tl.TaskID
		}
		if m.Type == "control_request" && m.Request.Subtype == "can_use_tool" {
			var resp string
			if denyRE.MatchString(m.Request.ToolName) {
				resp = `{"behavior":"deny","message":"denied by capture"}`
				if *stop {
					resp = `{"behavior":"deny","message":"denied by capture","interrupt":true}`
				}
			} else {
				input, err := merged(m.Request.ToolName, m.Request.Input, merge)
				if err != nil {
					return err
				}
				m.Request.Input = input
				resp = `{"behavior":"allow","updatedInput":` + string(m.Request.Input) + `}`
				var perms []string
				for _, sg := range m.Request.Suggestions {
					if *dirs && strings.Contains(string(sg), `"addDirectories"`) {
						perms = append(perms, string(sg))
					}
				}
				if len(perms) > 0 {
					resp = `{"behavior":"allow","updatedInput":` + string(m.Request.Input) + `,"updatedPermissions":[` + strings.Join(perms, ",") + `]}`
				}
			}
			send(`{"type":"control_response","response":{"subtype":"success","request_id":"` + m.RequestID + `","response":` + resp + `}}`)
		}
		for _, t := range on {
			if !t.done && t.re.MatchString(line) {
				t.done = true
				s := t.send
				// {{task_id}}: the first task started.
				s = strings.ReplaceAll(s, "{{task_id}}", taskID)
				send(s)
			}
		}
		if m.Type == "result" {
			seen++
			if seen >= *results {
				break
			}
			if next < len(prompts) {
				prompt(prompts[next])
				next++
			}
		}
	}
	stdin.Close()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		_ = cmd.Process.Kill()
		<-done
	}
	return ctx.Err()
}

// merged is input with the fields of every -merge whose TOOL matches tool.
func merged(tool string, input json.RawMessage, merge triggers) (json.RawMessage, error) {
	var obj map[string]json.RawMessage
	for _, t := range merge {
		if !t.re.MatchString(tool) {
			continue
		}
		if obj == nil {
			if err := json.Unmarshal(input, &obj); err != nil {
				return nil, fmt.Errorf("%s input: %w", tool, err)
			}
		}
		var add map[string]json.RawMessage
		if err := json.Unmarshal([]byte(t.send), &add); err != nil {
			return nil, fmt.Errorf("-merge %s: %w", t.re, err)
		}
		for k, v := range add {
			obj[k] = v
		}
	}
	if obj == nil {
		return input, nil
	}
	return json.Marshal(obj)
}
