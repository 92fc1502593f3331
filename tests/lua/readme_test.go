package luatest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The usage of every subcommand as lua/claudenova/commands.lua defines it
// (its name when it has none), read by Neovim itself.
const usagesLua = `vim.opt.rtp:prepend(os.getenv("CLAUDENOVA_TEST_ROOT"))
local out = {}
for name, c in pairs(require("claudenova.commands").subcommands) do
  out[name] = c.usage or name
end
io.stdout:write(vim.json.encode(out))`

// usageWords are the literal words of a usage: the subcommand's name first,
// then its flags and keywords ({placeholders} and [range] left out).
func usageWords(usage string) []string {
	usage = regexp.MustCompile(`\{[^}]*\}`).ReplaceAllString(usage, " ")
	usage = strings.ReplaceAll(usage, "[range]", "")
	return regexp.MustCompile(`--?[a-z][a-z-]*|[a-z][a-z-]*`).FindAllString(usage, -1)
}

// readmeCommands reads the command table of README.md's "Use" section: for
// each subcommand a row names (`:ClaudeNova x …`, or `x …` after a slash in
// the same cell), the words written with it.
func readmeCommands(t *testing.T) map[string][]string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, "\n## Use\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Use" section`)
	}
	text = text[start+1:]
	if end := strings.Index(text[3:], "\n## "); end >= 0 {
		text = text[:end+3]
	}
	span := regexp.MustCompile("`([^`]*)`")
	prefix := regexp.MustCompile(`^:(\[range\]|'<,'>)?ClaudeNova\s*`)
	got := map[string][]string{}
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "| `:") {
			continue
		}
		cells := strings.Split(line, " | ")
		for _, m := range span.FindAllStringSubmatch(cells[0], -1) {
			words := usageWords(prefix.ReplaceAllString(m[1], ""))
			if len(words) == 0 {
				continue // the bare :ClaudeNova
			}
			got[words[0]] = append(got[words[0]], words[1:]...)
		}
	}
	return got
}

// README's command table lists every subcommand of :ClaudeNova with each
// flag and keyword its usage takes, and no subcommand that does not exist.
func TestReadmeListsEveryCommand(t *testing.T) {
	v := versions(t)[0]
	script := filepath.Join(t.TempDir(), "usages.lua")
	if err := os.WriteFile(script, []byte(usagesLua+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(v.bin, "--headless", "-u", "NONE", "-i", "NONE", "-l", script)
	cmd.Env = append(os.Environ(), "CLAUDENOVA_TEST_ROOT="+root)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("read commands.lua: %v\n%s", err, out)
	}
	var usages map[string]string
	if err := json.Unmarshal(out, &usages); err != nil {
		t.Fatalf("read commands.lua: %v\n%s", err, out)
	}
	readme := readmeCommands(t)
	names := make([]string, 0, len(usages))
	for name := range usages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		words, ok := readme[name]
		if !ok {
			t.Errorf("README's command table does not list :ClaudeNova %s (usage %q)", name, usages[name])
			continue
		}
		have := map[string]bool{}
		for _, w := range words {
			have[w] = true
		}
		for _, w := range usageWords(usages[name])[1:] {
			if !have[w] {
				t.Errorf("README's command table lists :ClaudeNova %s without %s (usage %q)", name, w, usages[name])
			}
		}
	}
	for name := range readme {
		if _, ok := usages[name]; !ok {
			t.Errorf("README's command table lists :ClaudeNova %s, which commands.lua does not define", name)
		}
	}
}
