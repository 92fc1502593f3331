package tools

// Schedule kinds.
const (
	ScheduleCron   = "cron"
	ScheduleWakeup = "wakeup"
)

// Schedule is a wake-up or cron job Claude scheduled in the session.
type Schedule struct {
	ID        string `json:"id"`
	Kind      string `json:"kind"`            // cron or wakeup
	What      string `json:"what"`            // its prompt or reason
	Human     string `json:"human,omitempty"` // "Every 5 minutes"
	Cron      string `json:"cron,omitempty"`
	At        int64  `json:"at,omitempty"` // unix ms of the next fire (0: unknown)
	Recurring bool   `json:"recurring"`
	Durable   bool   `json:"durable,omitempty"`
}
