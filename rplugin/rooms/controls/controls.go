// Package controls is the room of a running session's controls: interrupt
// and steer a turn, the model and its effort, the usage, and the prompts
// claude has not read yet (withdraw one). Each returns at once; what waits
// on claude runs in the background and answers later (desk.Later) or
// arrives as a notification.
package controls

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/claude/replies"
	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

// Room serves the session controls.
type Room struct {
	d    *desk.Desk
	send func(s *session.Session, prompt string) error
}

// New returns the controls room; send sends a prompt to a session (queued
// while a turn runs).
func New(d *desk.Desk, send func(s *session.Session, prompt string) error) *Room {
	return &Room{d: d, send: send}
}

// Model is one model a session's claude offers (initialize's models, the
// same list list_models gives).
type Model struct {
	Value        string   `json:"value"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	EffortLevels []string `json:"effort_levels"`
}

// Models lists the models of a session's claude (empty until claude
// answered initialize). It never waits on claude.
func (r *Room) Models(id int) ([]Model, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return nil, err
	}
	return models(s), nil
}

func models(s *session.Session) []Model {
	out := []Model{}
	raw, err := s.Proc.InitResponse()
	if err != nil {
		return out
	}
	init, err := replies.DecodeInit(raw)
	if err != nil {
		return out
	}
	for _, m := range init.Models {
		if m.Value == "" {
			continue
		}
		levels := make([]string, 0, len(m.EffortLevels))
		for _, l := range m.EffortLevels {
			levels = append(levels, sanitize.Line(l))
		}
		out = append(out, Model{Value: sanitize.Line(m.Value), Name: sanitize.Line(m.DisplayName),
			Description: sanitize.Truncate(sanitize.Line(m.Description), 200), EffortLevels: levels})
	}
	return out
}

// ModelParams switch a session's model or effort.
type ModelParams struct {
	Session int    `json:"session"`
	Model   string `json:"model"`
	Effort  string `json:"effort"`
}

// SetModel asks claude to use another model for the next requests of a
// session. It returns at once; claude validates the model first (a call to
// the API), then the switch is noted in the transcript, or its refusal is
// shown in claude's own words.
func (r *Room) SetModel(p ModelParams) (desk.Outcome, error) {
	s, err := r.d.Live(p.Session)
	if err != nil {
		return desk.Outcome{}, err
	}
	model := strings.TrimSpace(p.Model)
	if model == "" {
		return desk.Outcome{}, errors.New("model needs a name (default, opus, sonnet, haiku, or a model id)")
	}
	r.d.Background(func(ctx context.Context) {
		raw, err := s.Proc.Control(ctx, "set_model", map[string]any{"model": model})
		if err != nil {
			r.d.Notify("error", fmt.Sprintf("session %d did not switch to %s; claude says: %v", s.ID, model, err))
			return
		}
		if res, err := replies.DecodeModelSet(raw); err == nil && res.Model != "" {
			model = res.Model
		}
		s.Update("", "", model)
		r.d.UI.Send(ui.EvSession, s)
		r.d.Note(s, "Model: "+sanitize.Line(model))
	})
	return desk.Outcome{Done: true, Message: fmt.Sprintf("switching session %d to %s", s.ID, sanitize.Line(model))}, nil
}

// SetEffort sets how much effort the session's model puts into the next
// replies (apply_flag_settings effortLevel, as /effort does), checked
// against the levels the session's model supports. It returns at once.
func (r *Room) SetEffort(p ModelParams) (desk.Outcome, error) {
	s, err := r.d.Live(p.Session)
	if err != nil {
		return desk.Outcome{}, err
	}
	level := strings.TrimSpace(p.Effort)
	if levels := effortLevels(s); len(levels) > 0 && !contains(levels, level) {
		return desk.Outcome{}, fmt.Errorf("effort %q: the session's model takes %s", level, strings.Join(levels, ", "))
	}
	if level == "" {
		return desk.Outcome{}, errors.New("effort needs a level (low, medium, high, xhigh, max)")
	}
	r.d.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "apply_flag_settings", map[string]any{"settings": map[string]any{"effortLevel": level}}); err != nil {
			r.d.Notify("error", fmt.Sprintf("session %d did not change its effort; claude says: %v", s.ID, err))
			return
		}
		s.SetEffort(level)
		r.d.UI.Send(ui.EvSession, s)
		r.d.Note(s, "Effort: "+level)
	})
	return desk.Outcome{Done: true, Message: fmt.Sprintf("session %d: effort %s from the next request", s.ID, level)}, nil
}

// effortLevels are the effort levels of the session's current model (nil
// when claude did not say).
func effortLevels(s *session.Session) []string {
	ms := models(s)
	cur := s.Info().Model
	for _, m := range ms {
		if m.Value == cur || m.Value == "default" && cur == "" {
			return m.EffortLevels
		}
	}
	// The model runs by its id (claude-opus-…): the levels of any model
	// offered are the best guess, and the CLI has the last word.
	for _, m := range ms {
		if len(m.EffortLevels) > 0 {
			return m.EffortLevels
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// Usage asks claude for the session's usage (get_usage: cost, tokens,
// lines, and the plan's rate limits when claude knows them); the answer
// comes as a reply event.
func (r *Room) Usage(p desk.Later) error {
	s, err := r.d.Live(p.Session)
	if err != nil {
		return err
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		raw, err := s.Proc.Control(ctx, "get_usage", map[string]any{"skip_behaviors": true})
		if err != nil {
			return nil, fmt.Errorf("claude did not report its usage: %w", err)
		}
		out, err := replies.DecodeUsage(sanitize.JSON(raw))
		if err != nil {
			out = replies.UsageAnswer{}
		}
		// What fills the context window (get_context_usage's categories).
		if cu, err := s.Proc.Control(ctx, "get_context_usage", nil); err == nil {
			if c, ok := contextCategories(cu); ok {
				out["context"] = c
			}
		} else {
			r.d.Log.Debug("get_context_usage for usage", "session", s.ID, "err", err)
		}
		return out, nil
	})
	return nil
}

// ContextUsage is what fills a session's context window.
type ContextUsage struct {
	Tokens     int               `json:"tokens"`
	Max        int               `json:"max"`
	Percent    float64           `json:"percent"`
	Categories []ContextCategory `json:"categories"`
}

// ContextCategory is one row of get_context_usage: system prompt, tools,
// MCP tools, memory files, messages, free space…
type ContextCategory struct {
	Name   string `json:"name"`
	Tokens int    `json:"tokens"`
	Kind   string `json:"kind"` // used, free, buffer, deferred
}

func contextCategories(raw json.RawMessage) (ContextUsage, bool) {
	u, err := replies.DecodeContextUsage(raw)
	if err != nil {
		return ContextUsage{}, false
	}
	c := ContextUsage{Tokens: u.Total, Max: u.Max, Percent: u.Percent, Categories: []ContextCategory{}}
	for _, x := range u.Categories {
		if len(c.Categories) >= 40 {
			break
		}
		c.Categories = append(c.Categories, ContextCategory{Name: sanitize.Truncate(sanitize.Line(x.Name), 40), Tokens: x.Tokens, Kind: sanitize.Line(x.Kind)})
	}
	return c, true
}

// QueuedView is a prompt claude has not taken yet.
type QueuedView struct {
	ID      string `json:"id"`
	Session int    `json:"session"`
	Text    string `json:"text"`
}

// Queued lists the prompts of a session (0 = current) that claude has not
// taken yet (sent while a turn ran).
func (r *Room) Queued(id int) ([]QueuedView, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return nil, err
	}
	out := []QueuedView{}
	for _, q := range s.QueuedPrompts() {
		out = append(out, QueuedView{ID: q.ID, Session: s.ID, Text: sanitize.Text(q.Text)})
	}
	return out, nil
}

// CancelQueued withdraws a queued prompt before claude takes it
// (cancel_async_message by the uuid the plugin put on it). The reply says
// {cancelled: true}, or false and why ("already taken" when too late).
func (r *Room) CancelQueued(p desk.Later) error {
	var s *session.Session
	for _, x := range r.d.Sessions.All() {
		for _, q := range x.QueuedPrompts() {
			if q.ID == p.ID {
				s = x
			}
		}
	}
	if s == nil {
		return errors.New("that prompt is not queued: claude has taken it already")
	}
	r.d.ReplyLater(p.ReplyTo, func(ctx context.Context) (any, error) {
		raw, err := s.Proc.Control(ctx, "cancel_async_message", map[string]any{"message_uuid": p.ID})
		if err != nil {
			return nil, fmt.Errorf("claude did not withdraw it: %w", err)
		}
		res, _ := replies.DecodeCancelled(raw)
		s.Dequeue(p.ID)
		if !res.Cancelled {
			r.d.Transcript(s, s.Transcript.Unqueue(p.ID, ""))
			return map[string]any{"cancelled": false, "why": "already taken: claude read it before it could be withdrawn"}, nil
		}
		r.d.Transcript(s, s.Transcript.Unqueue(p.ID, "withdrawn"))
		s.Turns.Drop(p.ID)
		// Its heading says "withdrawn": the note does not repeat it.
		r.d.Note(s, "Withdrawn before Claude read it (the prompt marked withdrawn above).")
		return map[string]any{"cancelled": true}, nil
	})
	return nil
}

// SteerParams send a prompt that replaces what the session is doing.
type SteerParams struct {
	Session int    `json:"session"`
	Prompt  string `json:"prompt"`
}

// Steer interrupts the running turn and sends prompt at once (claude takes
// it as soon as the interrupted turn ends); with no turn running it is a
// plain send. It returns at once.
func (r *Room) Steer(p SteerParams) (desk.Outcome, error) {
	if strings.TrimSpace(p.Prompt) == "" {
		return desk.Outcome{}, errors.New("empty prompt: nothing was sent")
	}
	s, err := r.d.Live(p.Session)
	if err != nil {
		return desk.Outcome{}, err
	}
	switch s.State() {
	case session.StateRunning, session.StateWaiting:
	default:
		return desk.Outcome{Done: true, Message: fmt.Sprintf("sent to session %d", s.ID)}, r.send(s, p.Prompt)
	}
	s.MarkInterrupted()
	// The prompt is written right after the interrupt, in order, by the
	// process's writer: claude takes it when the interrupted turn ends.
	if err := r.send(s, p.Prompt); err != nil {
		return desk.Outcome{}, err
	}
	r.d.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "interrupt", nil); err != nil {
			r.d.Notify("error", fmt.Sprintf("interrupt of session %d failed: %v", s.ID, err))
		}
	})
	return desk.Outcome{Done: true, Message: fmt.Sprintf("session %d: interrupting the turn; your prompt goes next", s.ID) + runOn(s)}, nil
}

// Interrupt asks claude to end the current turn of a session. It returns at
// once; a refusal from claude arrives as a notification.
func (r *Room) Interrupt(id int) (desk.Outcome, error) {
	s, err := r.d.Session(id)
	if err != nil {
		return desk.Outcome{}, err
	}
	switch s.State() {
	case session.StateRunning, session.StateWaiting:
	default:
		if n := s.Tasks.Active(); n > 0 && s.State() == session.StateIdle {
			return desk.Outcome{Message: fmt.Sprintf("nothing to interrupt: session %d is between turns; its %d background task(s) run on (:ClaudeNova tasks stop stops one)", s.ID, n)}, nil
		}
		return desk.Outcome{Message: fmt.Sprintf("nothing to interrupt: session %d is %s", s.ID, s.State())}, nil
	}
	s.MarkInterrupted()
	r.d.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "interrupt", nil); err != nil {
			r.d.Notify("error", fmt.Sprintf("interrupt of session %d failed; claude says: %v", s.ID, err))
		}
		// The transcript notes it once, where claude marks it (its
		// "[Request interrupted by user]"), not here as well.
	})
	return desk.Outcome{Done: true, Message: fmt.Sprintf("interrupt sent to session %d", s.ID) + runOn(s)}, nil
}

// runOn says that a session's background tasks are spared by an
// interrupt ("" when none runs): perTaskStopAffordance is declared, so
// the CLI ends the turn only.
func runOn(s *session.Session) string {
	n := s.Tasks.Active()
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("; its %s run%s on (X on a task's sidebar row stops it)", desk.Plural(n, "background task"), map[bool]string{true: "s"}[n == 1])
}
