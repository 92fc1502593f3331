package tuihook

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"time"
)

// dialTimeout bounds the connection to the host (not the wait for the
// user's decision: that is as long as claude lets the hook run).
const dialTimeout = 5 * time.Second

// Run is the "hook" subcommand: claude's PermissionRequest hook. It reads
// the hook's input from stdin, hands it to the host named in the
// environment and prints the decision the host sends back. On any failure
// it prints nothing (the error goes to stderr) and the TUI asks in the
// terminal itself: never an allow by accident. It always exits 0.
func Run(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	out, err := decide(ctx, stdin, getenv)
	if err != nil {
		fmt.Fprintln(stderr, "claudenova hook: no decision, the terminal asks:", err)
		return 0
	}
	if len(out) > 0 {
		_, _ = stdout.Write(out)
	}
	return 0
}

// decide returns what the hook prints: the host's decision for the input.
func decide(ctx context.Context, stdin io.Reader, getenv func(string) string) ([]byte, error) {
	path, token := getenv(EnvSocket), getenv(EnvToken)
	if path == "" || token == "" {
		return nil, errors.New("not started by claude-nova.nvim (no " + EnvSocket + ")")
	}
	raw, err := io.ReadAll(io.LimitReader(stdin, maxLine))
	if err != nil {
		return nil, fmt.Errorf("read the hook's input: %w", err)
	}
	var in HookInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, fmt.Errorf("the hook's input: %w", err)
	}
	if err := in.check(); err != nil {
		return nil, fmt.Errorf("the hook's input: %w", err)
	}
	b, err := roundTrip(ctx, path, ask{Token: token, Input: json.RawMessage(bytes.TrimSpace(raw))})
	if err != nil && !errors.Is(err, errNoAnswer) {
		return nil, err
	}
	if in.HookEventName != EventPermission {
		// A notice: the host had it once it answered or closed; what it
		// answered, if anything, is printed.
		return noticeOutput(b), nil
	}
	if err != nil {
		return nil, fmt.Errorf("the editor gave no decision: %w", err)
	}
	var r reply
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("the editor's decision: %w", err)
	}
	return Output(r.Decision)
}

// roundTrip sends the host one request line and returns the line it
// answers (what of it came, with the error, when none did).
func roundTrip(ctx context.Context, path string, a ask) ([]byte, error) {
	if err := ownSocket(path); err != nil {
		return nil, err
	}
	d := net.Dialer{Timeout: dialTimeout}
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("reach the editor: %w", err)
	}
	defer c.Close()
	stop := context.AfterFunc(ctx, func() { _ = c.Close() })
	defer stop()
	line, err := json.Marshal(a)
	if err != nil {
		return nil, fmt.Errorf("encode the request: %w", err)
	}
	if _, err := c.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("send the request: %w", err)
	}
	b, err := bufio.NewReaderSize(io.LimitReader(c, maxLine), 64<<10).ReadBytes('\n')
	if err != nil {
		return b, fmt.Errorf("%w: %w", errNoAnswer, err)
	}
	return b, nil
}

// errNoAnswer: the host took the request and closed with no line (no
// decision; for a notice, nothing to print).
var errNoAnswer = errors.New("no answer")

// noticeOutput is what a notice hook prints of the host's reply line: its
// output when that is a JSON object, else nothing.
func noticeOutput(line []byte) []byte {
	var r reply
	if len(line) == 0 || json.Unmarshal(line, &r) != nil {
		return nil
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(r.Output, &obj) != nil || len(obj) == 0 {
		return nil
	}
	return append(append([]byte(nil), r.Output...), '\n')
}
