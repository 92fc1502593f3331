// Command window runs the suite's main flows against the claude versions
// of the supported window and prints a table of version × flow:
//
//	make test-window                          # the window's ends, the pinned one, every tenth release between
//	make test-window ALL=1                    # a short smoke flow on every release of the window
//	go run ./tests/cmd/window 2.1.263 2.1.332 # these
//	go run ./tests/cmd/window -all 2.1.263 2.1.270
//
// Each version is installed beside the pinned one by scripts/testbed.sh. The
// releases are npm's (@anthropic-ai/claude-code), from window.OldestSupported
// to the newest. With -all it prints release → pass/fail and seconds (to find
// the release that broke something). It is for releases and for every change
// to what the host sends claude or reads from it; CI runs the pinned version
// only. It exits non-zero when a flow fails on any version.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
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

// smoke is the short flow -all runs on every release: a session in the
// chosen mode, an approval, a question.
var smoke = []string{"TestSessionRunsInTheChosenMode", "TestBashAllowFromPanel", "TestQuestionSingleSelect"}

func run(args []string) error {
	fs := flag.NewFlagSet("window", flag.ContinueOnError)
	all := fs.Bool("all", os.Getenv("ALL") != "", "a short smoke flow on every release of the window")
	if err := fs.Parse(args); err != nil {
		return err
	}
	versions := fs.Args()
	if len(versions) == 0 {
		releases, err := windowReleases()
		if err != nil {
			return err
		}
		pinned, err := pinnedVersion()
		if err != nil {
			return err
		}
		versions = releases
		if !*all {
			versions = append(sampled(releases), pinned)
		}
	}
	versions = sortVersions(unique(versions))
	if *all {
		return smokeEach(versions)
	}
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

// sampled are the window's ends and every tenth release between.
func sampled(releases []string) []string {
	var out []string
	for i, v := range releases {
		if i%10 == 0 || i == len(releases)-1 {
			out = append(out, v)
		}
	}
	return out
}

func sortVersions(vs []string) []string {
	sort.SliceStable(vs, func(i, j int) bool {
		a, okA := window.ParseVersion(vs[i])
		b, okB := window.ParseVersion(vs[j])
		return okA && okB && a.Compare(b) < 0
	})
	return vs
}

// windowReleases are npm's releases from the oldest supported on (without
// the registry: the window's two ends).
func windowReleases() ([]string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, "npm", "view", "@anthropic-ai/claude-code", "versions", "--json").Output()
	var all []string
	if err == nil {
		err = json.Unmarshal(out, &all)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "window: npm did not list the releases (%v); the window's ends only\n", err)
		return []string{window.OldestSupported, window.NewestTested}, nil
	}
	oldest, _ := window.ParseVersion(window.OldestSupported)
	var in []string
	for _, v := range all {
		if pv, ok := window.ParseVersion(v); ok && pv.Compare(oldest) >= 0 && !strings.Contains(v, "-") {
			in = append(in, v)
		}
	}
	if len(in) == 0 {
		return nil, fmt.Errorf("npm lists no release from %s on", window.OldestSupported)
	}
	return sortVersions(in), nil
}

// smokeEach runs the smoke flow on each release and prints release →
// pass/fail, seconds.
func smokeEach(versions []string) error {
	pattern := "^(" + strings.Join(smoke, "|") + ")$"
	fmt.Println("| release | smoke | seconds |")
	fmt.Println("|---|---|---|")
	failed := 0
	for _, v := range versions {
		bin, err := install(v)
		if err != nil {
			fmt.Printf("| %s | not installed: %v | |\n", v, err)
			failed++
			continue
		}
		start := time.Now()
		res, err := goTest(bin, pattern)
		verdict := "pass"
		var bad []string
		for _, t := range smoke {
			if !res[t] {
				bad = append(bad, strings.TrimPrefix(t, "Test"))
			}
		}
		if err != nil || len(bad) > 0 {
			verdict = "**FAIL** " + strings.Join(bad, ", ")
			failed++
		}
		fmt.Printf("| %s | %s | %.0f |\n", v, verdict, time.Since(start).Seconds())
	}
	if failed > 0 {
		return fmt.Errorf("%d release(s) failed the smoke flow", failed)
	}
	return nil
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
