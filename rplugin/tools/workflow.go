package tools

import (
	"fmt"
	"path/filepath"
	"regexp"
)

// Workflow runs a script of agents (shown like an agent); ReportFindings
// is a review's list of findings.

var workflow = Tool{
	Target: func(in Input) string {
		if n := in.Str("name"); n != "" {
			return n
		}
		if m := workflowMeta.FindStringSubmatch(in.Str("script")); m != nil {
			return m[1]
		}
		if p := in.Str("scriptPath"); p != "" {
			return filepath.Base(p)
		}
		return ""
	},
}

// workflowMeta finds a workflow script's name in its meta block.
var workflowMeta = regexp.MustCompile("meta\\s*=\\s*\\{[^}]*?name\\s*:\\s*[\"'`]([^\"'`]{1,80})[\"'`]")

var reportFindings = Tool{
	Target: func(in Input) string {
		fs, ok := in.List("findings")
		switch {
		case !ok:
			return ""
		case len(fs) == 1:
			return "1 finding"
		}
		return fmt.Sprintf("%d findings", len(fs))
	},
	Details: func(in Input, add func(string, string)) {
		fs, _ := in.List("findings")
		for _, x := range fs {
			m, _ := x.(map[string]any)
			f := Input(m)
			file := f.Str("file")
			if line, ok := f.Num("line"); ok && line > 0 {
				file += fmt.Sprintf(":%d", int(line))
			}
			sum := f.Str("short_summary")
			if sum == "" {
				sum = f.Str("summary")
			}
			add("", file+" "+sum)
		}
	},
}
