package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// The other agents Claude reaches: SendMessage writes to one, ListAgents
// lists those it can reach.

var sendMessage = Tool{
	Target: func(in Input) string {
		to := in.Str("to")
		if to == "" {
			to = in.Str("recipient")
		}
		if to == "" {
			return ""
		}
		return "to " + to
	},
	Details: func(in Input, add func(string, string)) {
		for _, k := range []string{"message", "content", "text"} {
			if v := in.Str(k); v != "" {
				add("", v)
				return
			}
		}
	},
	Headline: func(r Result, _ time.Time) string {
		var m struct {
			Success *bool  `json:"success"`
			Display string `json:"display"`
		}
		if !r.Decode(&m) {
			return ""
		}
		if m.Display != "" {
			return sanitize.Truncate(sanitize.Line(m.Display), 80)
		}
		if m.Success != nil && *m.Success {
			return "sent"
		}
		return ""
	},
	Quiet:     true,
	KeepInput: true,
}

var listAgents = Tool{
	Target:  func(Input) string { return "" },
	Details: none,
	Headline: func(r Result, _ time.Time) string {
		var l struct {
			Listing  string `json:"listing"`
			Sections []struct {
				Rows []struct {
					Name   string `json:"name"`
					Status string `json:"status"`
				} `json:"rows"`
			} `json:"sections"`
		}
		if !r.Decode(&l) {
			return ""
		}
		// 2.1.328 gives the rows too: sections[].rows[] {name, ref, type,
		// status}; the listing is the same for the model.
		var names []string
		for _, sec := range l.Sections {
			for _, row := range sec.Rows {
				if n := sanitize.Truncate(sanitize.Line(row.Name), 30); n != "" {
					if st := sanitize.Line(row.Status); st != "" {
						n += " (" + st + ")"
					}
					names = append(names, n)
				}
			}
		}
		if len(names) > 0 {
			return joinNames(names)
		}
		return agentsHeadline(l.Listing)
	},
}

// agentsHeadline names the agents a ListAgents listing reaches (at most a
// few), or says there is none.
func agentsHeadline(listing string) string {
	if strings.Contains(listing, "No reachable agents") {
		return "no other agent reachable"
	}
	var names []string
	for _, l := range strings.Split(listing, "\n") {
		if !strings.HasPrefix(l, "  ") {
			continue // the rows of a section are indented ("  cwd-16 [e1c6c9]  ·  interactive")
		}
		name := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(strings.TrimSpace(l), "- "), "• "))
		if i := strings.IndexAny(name, "—([·"); i > 0 {
			name = strings.TrimSpace(name[:i])
		}
		if name = sanitize.Truncate(sanitize.Line(name), 30); name != "" {
			names = append(names, name)
		}
	}
	return joinNames(names)
}

// joinNames lists at most four names, then how many more.
func joinNames(names []string) string {
	switch {
	case len(names) == 0:
		return ""
	case len(names) > 4:
		return strings.Join(names[:4], ", ") + fmt.Sprintf(" and %d more", len(names)-4)
	}
	return strings.Join(names, ", ")
}
