// Command fakemodel runs the fake Anthropic API server of package
// tests/fakemodel so that the real Claude Code CLI can run without an account:
//
//	fakemodel [-addr 127.0.0.1:0] [-demo] [-script steps.json] [-reply reply.md] [-dump dir] [-quiet]
//
// It prints "listening http://127.0.0.1:PORT" on stdout once ready, logs to
// stderr and exits on SIGINT/SIGTERM. Point claude at it with
//
//	ANTHROPIC_BASE_URL=http://127.0.0.1:PORT ANTHROPIC_API_KEY=test \
//	CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 HOME=<temp dir> claude -p ...
//
// GET /_fake/tool_results returns the tool results claude sent back and
// GET /_fake/requests a log of the requests.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/claude-nova/claude-nova.nvim/tests/fakemodel"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fakemodel:", err)
		os.Exit(2)
	}
}

// run serves until ctx is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fakemodel", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	demo := fs.Bool("demo", false, "answer every plain prompt with the default script (the prompt DEMO always does)")
	script := fs.String("script", "", `JSON file with the default script, e.g. [["Read",{"file_path":"{{cwd}}/a.txt"}]] `+
		`({{cwd}} is claude's working directory; default: Read + Edit "hello" in {{cwd}}/a.txt)`)
	scripts := fs.String("scripts", "", `JSON file of named scripts: {"a prompt": [steps…]}; a prompt that is exactly one runs its script`)
	reply := fs.String("reply", "", "file with the reply to a plain prompt (instead of \"You said: …\"; make demo: how to script the model)")
	dump := fs.String("dump", "", "directory to write every /v1/messages request body to")
	quiet := fs.Bool("quiet", false, "do not log requests")
	if err := fs.Parse(args); err != nil {
		return err
	}

	logger := log.New(stderr, "fakemodel: ", log.LstdFlags|log.Lmicroseconds)
	opts := fakemodel.Options{Addr: *addr, AlwaysScript: *demo, Logger: logger, DumpDir: *dump}
	if *quiet {
		opts.Logger = nil
	}
	if *reply != "" {
		b, err := os.ReadFile(*reply)
		if err != nil {
			return err
		}
		opts.PlainReply = strings.TrimSpace(string(b))
	}
	if *scripts != "" {
		b, err := os.ReadFile(*scripts)
		if err != nil {
			return err
		}
		if opts.Scripts, err = fakemodel.ParseScripts(b); err != nil {
			return fmt.Errorf("%s: %w", *scripts, err)
		}
	}
	if *script != "" {
		b, err := os.ReadFile(*script)
		if err != nil {
			return err
		}
		steps, err := fakemodel.ParseScript(b)
		if err != nil {
			return fmt.Errorf("%s: %w", *script, err)
		}
		opts.DefaultScript = steps
	}

	srv := fakemodel.New(opts)
	if _, err := srv.Start(ctx); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "listening %s\n", srv.URL())
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	<-ctx.Done()
	srv.Close()
	logger.Printf("exiting (%d /v1/messages requests, %d tool results)", srv.Requests(), len(srv.ToolResults()))
	return nil
}
