package tools

import (
	"fmt"
	"strings"
	"time"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
)

// Cron jobs: CronCreate, CronDelete, CronList. A job fires a prompt at
// each match of its cron expression (once, when not recurring).

// cronJob is a job as claude's results describe it.
type cronJob struct {
	ID        string  `json:"id"`
	Cron      string  `json:"cron"`
	Human     string  `json:"humanSchedule"`
	Prompt    string  `json:"prompt"`
	Recurring *bool   `json:"recurring"`
	Durable   bool    `json:"durable"`
	NextFire  float64 `json:"nextFireAt"`
}

var cronCreate = Tool{
	Target: func(in Input) string {
		t := in.Str("cron")
		if r, ok := in.Bool("recurring"); ok && !r {
			t += " (once)"
		}
		if p := in.Str("prompt"); p != "" {
			t += ": " + p
		}
		return t
	},
	Details: func(in Input, add func(string, string)) {
		add("prompt: ", in.Str("prompt"))
		how := "every match"
		if r, ok := in.Bool("recurring"); ok && !r {
			how = "once, at the next match"
		}
		if d, _ := in.Bool("durable"); d {
			how += ", kept across restarts"
		}
		add("cron: ", in.Str("cron")+" ("+how+")")
	},
	Headline: func(r Result, now time.Time) string {
		var j cronJob
		if !r.Decode(&j) {
			return ""
		}
		s := ""
		if j.NextFire > 0 {
			s = "next " + whenMS(j.NextFire, now)
		}
		if h := sanitize.Line(j.Human); h != "" {
			s = strings.TrimPrefix(s+" · "+strings.ToLower(h[:1])+h[1:], " · ")
		}
		if j.ID != "" {
			s += " · job " + sanitize.Line(j.ID)
		}
		return s
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		var j cronJob
		c.Result.Decode(&j)
		if j.ID == "" {
			return Effect{}
		}
		rec := j.Recurring == nil || *j.Recurring
		if j.Recurring == nil {
			if r, ok := c.In.Bool("recurring"); ok {
				rec = r
			}
		}
		return Effect{Schedule: &Schedule{ID: j.ID, Kind: ScheduleCron, What: c.In.Str("prompt"), Human: j.Human,
			Cron: c.In.Str("cron"), At: int64(j.NextFire), Recurring: rec, Durable: j.Durable}}
	},
}

var cronDelete = Tool{
	Target:  func(in Input) string { return in.Str("id") },
	Details: none,
	Headline: func(r Result, _ time.Time) string {
		if !r.Decode(&struct{}{}) {
			return ""
		}
		return "deleted"
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		var j cronJob
		c.Result.Decode(&j)
		id := j.ID
		if id == "" {
			id = c.In.Str("id")
		}
		return Effect{Unschedule: id}
	},
}

var cronList = Tool{
	Target:  func(Input) string { return "" },
	Details: none,
	Headline: func(r Result, _ time.Time) string {
		var l struct {
			Jobs []cronJob `json:"jobs"`
		}
		if !r.Decode(&l) {
			return ""
		}
		switch len(l.Jobs) {
		case 0:
			return "no jobs"
		case 1:
			return "1 job"
		}
		return fmt.Sprintf("%d jobs", len(l.Jobs))
	},
	KeepInput: true,
	Effect: func(c Call) Effect {
		var l struct {
			Jobs []cronJob `json:"jobs"`
		}
		c.Result.Decode(&l)
		jobs := []Schedule{}
		for _, j := range l.Jobs {
			// A one-shot job (a wake-up's) has no recurring field
			// (2.1.328); a recurring one says true.
			jobs = append(jobs, Schedule{ID: j.ID, What: j.Prompt, Human: j.Human, Cron: j.Cron,
				At: int64(j.NextFire), Recurring: j.Recurring != nil && *j.Recurring, Durable: j.Durable})
		}
		return Effect{Jobs: &jobs}
	},
}
