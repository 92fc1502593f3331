// Command window runs the suite's main flows against the claude versions
// of the supported window: the oldest supported, the test bed's pinned one
// and the newest on npm today (each installed beside the pinned one by
// scripts/testbed.sh), and prints a table of version × flow.
//
//	make test-window                          # the three versions
//	go run ./tests/cmd/window 2.1.300 2.1.332 # these
//
// It is for releases and for every change to what the host sends claude or
// reads from it; CI runs the pinned version only. It exits non-zero when a
// flow fails on any version.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/window"
)

// flows are what a user does, each as the e2e tests that do it.
var flows = []struct {
	name  string
	tests []string
}{
	{"the chosen mode", []string{"TestSessionRunsInTheChosenMode", "TestModeSetBackBeforeThePrompt", "TestSettingsModeAndWhatLetACallRun"}},
	{"approvals", []string{"TestBashAllowFromPanel", "TestBashDenyWithMessage", "TestAllowForSession"}},
	{"proposal, amended", []string{"TestProposalEditWithUserAmendment", "TestPerHunkReviewTellsClaude"}},
	{"question", []string{"TestQuestionSingleSelect", "TestQuestionMultiSelectAndOther", "TestQuestionLeftUnansweredSaysHow"}},
	{"plan", []string{"TestPlanApproveAcceptEdits", "TestPlanKeepPlanning", "TestPlanCommentsReachTheModel"}},
	{"stop", []string{"TestStopEndsTheTurn", "TestInterruptWithdrawsPending", "TestDenyAndStopEndsTheTurn"}},
	{"editor tools", []string{"TestEditorToolsReadTheEditor", "TestEditorToolsKeepTheBoundary"}},
	{"subagent", []string{"TestSubagentAttribution", "TestSubagentProposalNamesItsAgent"}},
	{"hooks and MCP", []string{"TestHooksShownWhileTheyRun", "TestMCPServerFailedThenReconnected"}},
}

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "window:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	versions := args
	if len(versions) == 0 {
		pinned, err := pinnedVersion()
		if err != nil {
			return err
		}
		versions = []string{window.OldestSupported, pinned, newestOnNpm()}
	}
	versions = unique(versions)
	var names []string
	for _, f := range flows {
		names = append(names, f.tests...)
	}
	pattern := "^(" + strings.Join(names, "|") + ")$"
	results := map[string]map[string]bool{} // version -> test -> passed
	took := map[string]time.Duration{}
	for _, v := range versions {
		bin, err := install(v)
		if err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "window: claude %s (%s): running %d tests on Neovim 0.10 and 0.12\n", v, bin, len(names))
		start := time.Now()
		res, err := goTest(bin, pattern)
		if err != nil {
			return fmt.Errorf("claude %s: %w", v, err)
		}
		took[v] = time.Since(start).Round(time.Second)
		results[v] = res
	}
	failed := printTable(os.Stdout, versions, results, took)
	if failed > 0 {
		return fmt.Errorf("%d flow(s) failed", failed)
	}
	return nil
}

func unique(vs []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, v := range vs {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// pinnedVersion is the test bed's claude (scripts/testbed.sh).
func pinnedVersion() (string, error) {
	b, err := os.ReadFile("scripts/testbed.sh")
	if err != nil {
		return "", fmt.Errorf("run from the repository root: %w", err)
	}
	m := regexp.MustCompile(`(?m)^CLAUDE_CODE_VERSION=(\S+)`).FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("scripts/testbed.sh names no CLAUDE_CODE_VERSION")
	}
	return string(m[1]), nil
}

// newestOnNpm asks npm for the latest release; without the registry, the
// newest the plugin was tested with.
func newestOnNpm() string {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "view", "@anthropic-ai/claude-code", "version").Output()
	if v := strings.TrimSpace(string(out)); err == nil {
		if _, ok := window.ParseVersion(v); ok {
			return v
		}
	}
	fmt.Fprintf(os.Stderr, "window: npm did not name the latest claude (%v); using the newest tested, %s\n", err, window.NewestTested)
	return window.NewestTested
}

func install(v string) (string, error) {
	cmd := exec.Command("bash", "scripts/testbed.sh", "claude", v)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("install claude %s: %w", v, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// goTest runs the tests against claude bin and reports each one's outcome
// (a test passes when it passed on both Neovim versions).
func goTest(bin, pattern string) (map[string]bool, error) {
	cmd := exec.Command("go", "test", "-count=1", "-json", "-timeout", "20m", "-run", pattern, "./tests/e2e/")
	cmd.Env = append(os.Environ(), "CLAUDE_BIN="+bin, "CLAUDENOVA_REQUIRE_E2E=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	res := map[string]bool{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var ev struct {
			Action string
			Test   string
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" || strings.Contains(ev.Test, "/") {
			continue
		}
		switch ev.Action {
		case "pass":
			res[ev.Test] = true
		case "fail":
			res[ev.Test] = false
		}
	}
	err = cmd.Wait()
	if len(res) == 0 {
		return nil, fmt.Errorf("no test ran (%v): %s", err, stderr.String())
	}
	return res, nil
}

func printTable(w io.Writer, versions []string, results map[string]map[string]bool, took map[string]time.Duration) int {
	fmt.Fprintf(w, "| flow |")
	for _, v := range versions {
		fmt.Fprintf(w, " %s |", v)
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, "|---|")
	for range versions {
		fmt.Fprint(w, "---|")
	}
	fmt.Fprintln(w)
	failed := 0
	for _, f := range flows {
		fmt.Fprintf(w, "| %s |", f.name)
		for _, v := range versions {
			var bad []string
			for _, t := range f.tests {
				if passed, ran := results[v][t]; !ran || !passed {
					bad = append(bad, strings.TrimPrefix(t, "Test"))
				}
			}
			sort.Strings(bad)
			if len(bad) == 0 {
				fmt.Fprint(w, " pass |")
			} else {
				failed++
				fmt.Fprintf(w, " **FAIL** %s |", strings.Join(bad, ", "))
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprint(w, "| time |")
	for _, v := range versions {
		fmt.Fprintf(w, " %s |", took[v])
	}
	fmt.Fprintln(w)
	return failed
}
