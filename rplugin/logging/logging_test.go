package logging

import (
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	secrets := []string{
		"sk-ant-api03-AbCdEf123456",
		"ANTHROPIC_API_KEY=supersecretvalue1",
		`{"ANTHROPIC_AUTH_TOKEN":"supersecretvalue2"}`,
		"--api-key supersecretvalue3",
		"Authorization: Bearer abcdefghijklmnop",
	}
	for _, s := range secrets {
		got := Redact(s)
		for _, leak := range []string{"AbCdEf123456", "supersecretvalue", "abcdefghijklmnop"} {
			if strings.Contains(got, leak) {
				t.Errorf("Redact(%q) = %q leaks %q", s, got, leak)
			}
		}
	}
	if got := Redact("plain text stays"); got != "plain text stays" {
		t.Errorf("plain text changed: %q", got)
	}
}

func TestLoggerRedactsAttrs(t *testing.T) {
	var buf bytes.Buffer
	log := New(&buf, slog.LevelDebug).With("env", "ANTHROPIC_API_KEY=topsecret123")
	log.Info("spawn sk-ant-xyz12345", "argv", "claude --api-key topsecret456", "err", errors.New("token=topsecret789"))
	if s := buf.String(); strings.Contains(s, "topsecret") || strings.Contains(s, "xyz12345") {
		t.Fatalf("log leaks a secret: %s", s)
	}
}
