package tools

import (
	"strings"
	"time"
)

// ScheduleWakeup: Claude asks to be woken in a while (a /loop's next
// turn), or stops the loop.

var scheduleWakeup = Tool{
	Target: func(in Input) string {
		if stop, _ := in.Bool("stop"); stop {
			return "stop the loop"
		}
		t := ""
		if d, ok := in.Num("delaySeconds"); ok {
			t = "in " + Delay(d)
		}
		if r := in.Str("reason"); r != "" {
			t = strings.TrimPrefix(t+": "+r, ": ")
		}
		return t
	},
	Details: func(in Input, add func(string, string)) {
		if p := in.Str("prompt"); p != "" {
			add("prompt: ", p)
		}
	},
	Headline: func(r Result, now time.Time) string {
		var w wakeupResult
		if !r.Decode(&w) {
			return ""
		}
		if w.Stopped {
			return "loop stopped"
		}
		if w.ScheduledFor > 0 {
			s := "fires at " + whenMS(w.ScheduledFor, now)
			if w.Clamped {
				s += " (delay clamped)"
			}
			return s
		}
		return ""
	},
	Quiet:     true,
	KeepInput: true,
	Effect: func(c Call) Effect {
		var w wakeupResult
		c.Result.Decode(&w)
		if stop, _ := c.In.Bool("stop"); stop || w.Stopped {
			return Effect{StopWakeups: true}
		}
		at := int64(w.ScheduledFor)
		if d, _ := c.In.Num("delaySeconds"); at == 0 && d > 0 {
			at = c.Now.Add(time.Duration(d * float64(time.Second))).UnixMilli()
		}
		what := c.In.Str("reason")
		if what == "" {
			what = c.In.Str("prompt")
		}
		return Effect{Schedule: &Schedule{ID: "wakeup-" + c.ID, Kind: ScheduleWakeup, What: what, At: at}}
	},
}

type wakeupResult struct {
	ScheduledFor float64 `json:"scheduledFor"`
	Clamped      bool    `json:"wasClamped"`
	Stopped      bool    `json:"stopped"`
}
