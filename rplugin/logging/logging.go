// Package logging writes the host's log file. The RPC stream owns stdout, so
// nothing is ever printed there; every value is scrubbed of secrets first.
package logging

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Open returns a logger writing to path at level ("debug", "info", "warn",
// "error"; "off" discards). The file is created 0600 with its folder.
func Open(path, level string) (*slog.Logger, io.Closer, error) {
	if level == "off" || path == "" {
		return slog.New(slog.DiscardHandler), io.NopCloser(nil), nil
	}
	var lv slog.Level
	if err := lv.UnmarshalText([]byte(level)); err != nil {
		lv = slog.LevelInfo
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, fmt.Errorf("log folder: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	return New(f, lv), f, nil
}

// New returns a logger writing text records to w with secrets redacted.
func New(w io.Writer, level slog.Level) *slog.Logger {
	return slog.New(&redactor{next: slog.NewTextHandler(w, &slog.HandlerOptions{Level: level})})
}

var (
	secretToken = regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{4,}|(?i)bearer\s+[A-Za-z0-9._\-]{8,}`)
	secretPair  = regexp.MustCompile(`(?i)\b([A-Z0-9_]*(API_?KEY|TOKEN|SECRET|PASSWORD|AUTH)[A-Z0-9_]*)(\s*[=:]\s*|"\s*:\s*")([^\s",}]+)`)
	secretFlag  = regexp.MustCompile(`(?i)(--[a-z-]*(api-key|token|secret|password)[a-z-]*[= ])(\S+)`)
)

// Redact hides secrets in s: Anthropic keys, bearer tokens, KEY=value pairs
// whose name looks secret, and --api-key style flags.
func Redact(s string) string {
	s = secretToken.ReplaceAllString(s, "[redacted]")
	s = secretPair.ReplaceAllString(s, "$1$3[redacted]")
	s = secretFlag.ReplaceAllString(s, "$1[redacted]")
	return s
}

type redactor struct{ next slog.Handler }

func (r *redactor) Enabled(ctx context.Context, l slog.Level) bool { return r.next.Enabled(ctx, l) }

func (r *redactor) Handle(ctx context.Context, rec slog.Record) error {
	out := slog.NewRecord(rec.Time, rec.Level, Redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(redactAttr(a))
		return true
	})
	return r.next.Handle(ctx, out)
}

func (r *redactor) WithAttrs(as []slog.Attr) slog.Handler {
	red := make([]slog.Attr, len(as))
	for i, a := range as {
		red[i] = redactAttr(a)
	}
	return &redactor{next: r.next.WithAttrs(red)}
}

func (r *redactor) WithGroup(name string) slog.Handler {
	return &redactor{next: r.next.WithGroup(name)}
}

func redactAttr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		return slog.String(a.Key, Redact(v.String()))
	case slog.KindGroup:
		as := v.Group()
		red := make([]any, len(as))
		for i, x := range as {
			red[i] = redactAttr(x)
		}
		return slog.Group(a.Key, red...)
	case slog.KindAny:
		if err, ok := v.Any().(error); ok {
			return slog.String(a.Key, Redact(err.Error()))
		}
		return slog.String(a.Key, Redact(fmt.Sprint(v.Any())))
	}
	if strings.ContainsAny(a.Key, "\n") {
		return slog.Attr{Key: "attr", Value: v}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
