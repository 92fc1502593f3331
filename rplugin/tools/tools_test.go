package tools

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// Every entry words its call, and a tool that changes the world keeps its
// input for when its result comes (the world reads it then).
func TestEveryEntryIsWhole(t *testing.T) {
	for name, tool := range known {
		if tool.Target == nil {
			t.Errorf("%s: no Target", name)
		}
		if tool.Effect != nil && !tool.KeepInput {
			t.Errorf("%s: an Effect without KeepInput", name)
		}
		if _, ok := Of(name); !ok {
			t.Errorf("%s: not found", name)
		}
	}
	if _, ok := Of("Bash"); ok {
		t.Error("Bash is a command, not one of these tools")
	}
}

func TestEffects(t *testing.T) {
	now := time.UnixMilli(1_000_000)
	for _, tc := range []struct {
		tool, id, in, result string
		want                 Effect
	}{
		{"CronCreate", "t1", `{"cron":"*/5 * * * *","prompt":"check","recurring":false}`, `{"id":"j1","humanSchedule":"Every 5 minutes","nextFireAt":2000}`,
			Effect{Schedule: &Schedule{ID: "j1", Kind: ScheduleCron, What: "check", Human: "Every 5 minutes", Cron: "*/5 * * * *", At: 2000, Recurring: false}}},
		{"CronCreate", "t1", `{"cron":"x"}`, `"Error: bad cron"`, Effect{}},
		{"CronDelete", "t2", `{"id":"j1"}`, `{}`, Effect{Unschedule: "j1"}},
		{"CronList", "t3", `{}`, `{"jobs":[{"id":"j1","cron":"* * * * *","prompt":"p","recurring":true}]}`,
			Effect{Jobs: &[]Schedule{{ID: "j1", What: "p", Cron: "* * * * *", Recurring: true}}}},
		{"ScheduleWakeup", "t4", `{"delaySeconds":60,"reason":"wait"}`, `{}`,
			Effect{Schedule: &Schedule{ID: "wakeup-t4", Kind: ScheduleWakeup, What: "wait", At: 1_060_000}}},
		{"ScheduleWakeup", "t5", `{"stop":true}`, `{}`, Effect{StopWakeups: true}},
		{"TodoWrite", "t6", `{"todos":[{"content":"a","status":"completed","activeForm":"A-ing"}]}`, `{}`,
			Effect{Todos: &[]Todo{{Text: "a", Status: "completed", Active: "A-ing"}}}},
		{"TaskCreate", "t7", `{"subject":"s","activeForm":"S-ing"}`, `{"task":{"id":"3"}}`,
			Effect{AddTodo: &Todo{ID: "3", Text: "s", Status: "pending", Active: "S-ing"}}},
		{"TaskUpdate", "t8", `{"taskId":"3","status":"deleted"}`, `{}`, Effect{UpdateTodo: &TodoUpdate{ID: "3", Status: "deleted"}}},
		{"EnterWorktree", "t9", `{"name":"feat"}`, `{"worktreePath":"/p/w","worktreeBranch":"worktree-feat"}`, Effect{MoveTo: &Move{Dir: "/p/w", Branch: "worktree-feat"}}},
		{"ExitWorktree", "t10", `{"action":"keep"}`, `{"originalCwd":"/p"}`, Effect{MoveTo: &Move{Dir: "/p"}}},
	} {
		t.Run(tc.tool, func(t *testing.T) {
			tool, _ := Of(tc.tool)
			got := tool.Effect(Call{ID: tc.id, In: DecodeInput(json.RawMessage(tc.in)), Result: Result(tc.result), Now: now})
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("effect\n got %+v\nwant %+v", show(got), show(tc.want))
			}
		})
	}
}

func show(e Effect) string { b, _ := json.Marshal(e); return string(b) }

func TestStopsTask(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
		ok             bool
	}{
		{"TaskStop", `{"task_id":"b1"}`, "b1", true},
		{"TaskStop", `{"shell_id":"s1"}`, "s1", true},
		{"TaskStop", `{}`, "", false},
		{"Bash", `{"task_id":"b1"}`, "", false},
	} {
		if id, ok := StopsTask(tc.name, json.RawMessage(tc.in)); id != tc.want || ok != tc.ok {
			t.Errorf("%s %s: %q %v", tc.name, tc.in, id, ok)
		}
	}
}

func TestDelay(t *testing.T) {
	for secs, want := range map[float64]string{45: "45 s", 120: "2 min", 150: "2 min 30 s", 3600: "1 h", 5400: "1 h 30 min"} {
		if got := Delay(secs); got != want {
			t.Errorf("Delay(%v) = %q, want %q", secs, got, want)
		}
	}
}

func TestWhenShown(t *testing.T) {
	now := time.Date(2026, 12, 1, 21, 0, 0, 0, time.Local)
	for _, tt := range []struct {
		at   time.Time
		want string
	}{
		{now.Add(5 * time.Minute), "21:05"},
		{now.Add(26 * time.Hour), now.Add(26*time.Hour).Format("Mon") + " 23:00"},
		{now.Add(30 * 24 * time.Hour), "Dec 31 21:00"},
	} {
		if got := WhenShown(tt.at, now); got != tt.want {
			t.Errorf("WhenShown(%v) = %q, want %q", tt.at, got, tt.want)
		}
	}
}

// FuzzEntries feeds any input and result to every entry: nothing panics.
func FuzzEntries(f *testing.F) {
	f.Add(`{"cron":"x","todos":[1,{"content":2}],"findings":[null],"ws":{"url":3}}`, `{"jobs":[{}],"task":{"id":"1"}}`)
	f.Add(`[]`, `"text"`)
	f.Fuzz(func(t *testing.T, in, result string) {
		for _, tool := range known {
			input := DecodeInput(json.RawMessage(in))
			_ = tool.Target(input)
			if tool.Details != nil {
				tool.Details(input, func(string, string) {})
			}
			if tool.Headline != nil {
				_ = tool.Headline(Result(result), time.Now())
			}
			if tool.Effect != nil {
				_ = tool.Effect(Call{ID: "t", In: input, Result: Result(result), Now: time.Now()})
			}
		}
	})
}
