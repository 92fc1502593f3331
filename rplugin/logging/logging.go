// Package logging writes the host's log file. The RPC stream owns stdout, so
// nothing is ever printed there. Every message and value is scrubbed of the
// secret forms Redact knows before it is written (a fuzz target checks
// each form); an attribute whose name looks secret is redacted whole.
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

// secretName is a name whose value is a secret: an API key, a token, a
// password, credentials, a cookie, an authorization.
const secretName = `[A-Za-z0-9_.-]*(?i:api[_-]?key|key|token|secret|passw(?:or)?d|pass|pwd|auth\w*|credentials?|cookie)[A-Za-z0-9_.-]*`

var (
	// Anthropic keys and bearer tokens wherever they appear.
	secretToken = regexp.MustCompile(`sk-ant-[A-Za-z0-9_\-]{4,}|(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}`)
	// Headers: Authorization: token …, x-api-key: …, Cookie: … (the scheme
	// word, if any, is kept).
	secretHeader = regexp.MustCompile(`(?i)\b((?:proxy-)?authorization|x-api-key|api-key|x-auth-token|x-goog-api-key|cookie|set-cookie)(\s*[:=]\s*|"\s*:\s*"|'\s*:\s*')(?:(bearer|basic|token|digest|negotiate)\s+)?([^\s"',}]+)`)
	// Credentials in a URL: scheme://user:pass@host and scheme://token@host.
	secretURL = regexp.MustCompile(`(?i)\b([a-z][a-z0-9+.\-]*://)[^/\s@"'<>]+@`)
	// NAME="quoted value" and NAME='…' whose name looks secret (spaces
	// inside the quotes included), also as JSON "name": "value".
	secretQuoted = regexp.MustCompile(`\b(` + secretName + `)(["']?\s*[=:]\s*)("[^"]*"|'[^']*')`)
	// NAME=value, "name":"value" whose name looks secret.
	secretPair = regexp.MustCompile(`\b(` + secretName + `)(\s*[=:]\s*|"\s*:\s*"|'\s*:\s*')([^\s"',}\[\]]+)`)
	// --api-key value, --token=value, …
	secretFlag = regexp.MustCompile(`(?i)(--[a-z-]*(?:api-key|token|secret|password|passwd|auth|credentials?)[a-z-]*[= ])([^\s"']+)`)
	secretKey  = regexp.MustCompile(`^` + secretName + `$`)
)

// Redact hides secrets in s: Anthropic keys, bearer tokens, authorization
// and API key headers (Authorization: token …, x-api-key: …), credentials
// in URLs (https://user:pass@host), NAME=value and NAME="value" pairs whose
// name looks secret, and --api-key style flags. What it cannot recognise
// as a secret it leaves: a secret in plain prose is not found.
func Redact(s string) string {
	s = secretToken.ReplaceAllString(s, "[redacted]")
	s = secretHeader.ReplaceAllStringFunc(s, func(m string) string {
		g := secretHeader.FindStringSubmatch(m)
		scheme := ""
		if g[3] != "" {
			scheme = g[3] + " "
		}
		return g[1] + g[2] + scheme + "[redacted]"
	})
	s = secretURL.ReplaceAllString(s, "$1[redacted]@")
	s = secretQuoted.ReplaceAllStringFunc(s, func(m string) string {
		g := secretQuoted.FindStringSubmatch(m)
		q := g[3][:1]
		return g[1] + g[2] + q + "[redacted]" + q
	})
	s = secretPair.ReplaceAllString(s, "$1$2[redacted]")
	s = secretFlag.ReplaceAllString(s, "$1[redacted]")
	// "Authorization: token [redacted]" was also a NAME: value pair.
	return strings.ReplaceAll(s, "[redacted] [redacted]", "[redacted]")
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
	if secretKey.MatchString(a.Key) && v.Kind() != slog.KindGroup {
		return slog.String(a.Key, "[redacted]")
	}
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
