package logging

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"unicode/utf8"
)

// secretForms are the ways a secret shows up in what the host logs
// (argv, env, error texts, claude's stderr, settings).
var secretForms = []string{
	"sk-ant-api03-%s",
	"ANTHROPIC_API_KEY=%s",
	`{"ANTHROPIC_AUTH_TOKEN":"%s"}`,
	`{"api_key": "%s"}`,
	"--api-key %s",
	"--token=%s",
	"Authorization: Bearer %s",
	"Authorization: token %s",
	"authorization: Basic %s",
	"Proxy-Authorization: %s",
	"x-api-key: %s",
	"X-Api-Key=%s",
	`{"x-api-key":"%s"}`,
	"https://user:%s@example.com/path",
	"git clone https://%s@github.com/o/r.git",
	`KEY="%s"`,
	`OPENAI_KEY="a b %s c"`,
	`MY_TOKEN='%s'`,
	"GITHUB_TOKEN: %s",
	`"password": "%s"`,
	"Cookie: sid=%s",
}

func TestRedact(t *testing.T) {
	const secret = "s3cr3tVALUE42xyz"
	for _, form := range secretForms {
		in := fmt.Sprintf(form, secret)
		if got := Redact(in); strings.Contains(got, secret) || !strings.Contains(got, "[redacted]") {
			t.Errorf("Redact(%q) = %q", in, got)
		}
	}
	for _, keep := range []string{
		"plain text stays",
		"session=3 id=5 tool=Bash behavior=allow",
		"git push https://github.com/o/r main",
		"permissionMode=bypassPermissions",
	} {
		if got := Redact(keep); got != keep {
			t.Errorf("Redact(%q) = %q: changed", keep, got)
		}
	}
	if got := Redact("Authorization: token abcdefgh12345"); got != "Authorization: [redacted]" {
		t.Errorf("header: %q", got)
	}
}

func TestLoggerRedactsAttrs(t *testing.T) {
	var buf bytes.Buffer
	log := New(&buf, slog.LevelDebug).With("env", "ANTHROPIC_API_KEY=topsecret123")
	log.Info("spawn sk-ant-xyz12345", "argv", "claude --api-key topsecret456", "err", errors.New("token=topsecret789"),
		"api_key", "topsecret000", "header", "x-api-key: topsecret111")
	if s := buf.String(); strings.Contains(s, "topsecret") || strings.Contains(s, "xyz12345") {
		t.Fatalf("log leaks a secret: %s", s)
	}
}

// FuzzRedact puts a secret, in each of the forms above, between random
// text: it must never survive (unless the surrounding text holds it
// itself), and Redact must keep valid UTF-8 valid and be stable.
func FuzzRedact(f *testing.F) {
	f.Add("spawn", "abcdefgh1234", "end", uint8(0))
	f.Add(`{"env":`, "Zz9Zz9Zz9Zz9", `}`, uint8(7))
	f.Add("stderr: fatal:", "ghp1234567890", "(exit 128)", uint8(14))
	f.Add("", "0123456789", "\n", uint8(15))
	f.Fuzz(func(t *testing.T, prefix, secret, suffix string, form uint8) {
		if len(secret) < 8 || len(secret) > 64 {
			return
		}
		for _, r := range secret {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
				return
			}
		}
		if strings.Contains(prefix+suffix, secret[:6]) {
			return
		}
		line := prefix + " " + fmt.Sprintf(secretForms[int(form)%len(secretForms)], secret) + " " + suffix
		out := Redact(line)
		if strings.Contains(out, secret) {
			t.Fatalf("Redact(%q) = %q leaks the secret", line, out)
		}
		if utf8.ValidString(line) && !utf8.ValidString(out) {
			t.Fatalf("Redact(%q) = %q is not valid UTF-8", line, out)
		}
		if again := Redact(out); strings.Contains(again, secret) {
			t.Fatalf("Redact twice leaks: %q", again)
		}
	})
}
