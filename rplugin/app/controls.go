package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/sanitize"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
	"github.com/claude-nova/claude-nova.nvim/rplugin/ui"
)

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
func (a *App) Models(id int) ([]Model, error) {
	s, err := a.desk.Session(id)
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
	var init struct {
		Models []struct {
			Value        string   `json:"value"`
			DisplayName  string   `json:"displayName"`
			Description  string   `json:"description"`
			EffortLevels []string `json:"supportedEffortLevels"`
		} `json:"models"`
	}
	if json.Unmarshal(raw, &init) != nil {
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
func (a *App) SetModel(p ModelParams) (Outcome, error) {
	s, err := a.liveSession(p.Session)
	if err != nil {
		return Outcome{}, err
	}
	model := strings.TrimSpace(p.Model)
	if model == "" {
		return Outcome{}, errors.New("model needs a name (default, opus, sonnet, haiku, or a model id)")
	}
	a.desk.Background(func(ctx context.Context) {
		raw, err := s.Proc.Control(ctx, "set_model", map[string]any{"model": model})
		if err != nil {
			a.desk.Notify("error", fmt.Sprintf("session %d did not switch to %s; claude says: %v", s.ID, model, err))
			return
		}
		var res struct {
			Model string `json:"model"`
		}
		if json.Unmarshal(raw, &res) == nil && res.Model != "" {
			model = res.Model
		}
		s.Update("", "", "", model)
		a.ui.Send(ui.EvSession, s)
		a.desk.Note(s, "Model: "+sanitize.Line(model))
	})
	return Outcome{Done: true, Message: fmt.Sprintf("switching session %d to %s", s.ID, sanitize.Line(model))}, nil
}

// SetEffort sets how much effort the session's model puts into the next
// replies (apply_flag_settings effortLevel, as /effort does), checked
// against the levels the session's model supports. It returns at once.
func (a *App) SetEffort(p ModelParams) (Outcome, error) {
	s, err := a.liveSession(p.Session)
	if err != nil {
		return Outcome{}, err
	}
	level := strings.TrimSpace(p.Effort)
	if levels := effortLevels(s); len(levels) > 0 && !contains(levels, level) {
		return Outcome{}, fmt.Errorf("effort %q: the session's model takes %s", level, strings.Join(levels, ", "))
	}
	if level == "" {
		return Outcome{}, errors.New("effort needs a level (low, medium, high, xhigh, max)")
	}
	a.desk.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "apply_flag_settings", map[string]any{"settings": map[string]any{"effortLevel": level}}); err != nil {
			a.desk.Notify("error", fmt.Sprintf("session %d did not change its effort; claude says: %v", s.ID, err))
			return
		}
		s.SetEffort(level)
		a.ui.Send(ui.EvSession, s)
		a.desk.Note(s, "Effort: "+level)
	})
	return Outcome{Done: true, Message: fmt.Sprintf("session %d: effort %s from the next request", s.ID, level)}, nil
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

// liveSession resolves id (0 = current) to a session that has not exited.
func (a *App) liveSession(id int) (*session.Session, error) {
	s, err := a.desk.Session(id)
	if err != nil {
		return nil, err
	}
	if s.State() == session.StateExited {
		return nil, fmt.Errorf("session %d has exited", s.ID)
	}
	return s, nil
}

// Usage asks claude for the session's usage (get_usage: cost, tokens,
// lines, and the plan's rate limits when claude knows them); the answer
// comes as a reply event.
func (a *App) Usage(p Later) error {
	s, err := a.liveSession(p.Session)
	if err != nil {
		return err
	}
	a.desk.ReplyLater(p.Token, func(ctx context.Context) (any, error) {
		raw, err := s.Proc.Control(ctx, "get_usage", map[string]any{"skip_behaviors": true})
		if err != nil {
			return nil, fmt.Errorf("claude did not report its usage: %w", err)
		}
		var out map[string]any
		if json.Unmarshal(sanitizeJSON(raw), &out) != nil || out == nil {
			out = map[string]any{}
		}
		// What fills the context window (get_context_usage's categories).
		if cu, err := s.Proc.Control(ctx, "get_context_usage", nil); err == nil {
			if c, ok := contextCategories(cu); ok {
				out["context"] = c
			}
		} else {
			a.log.Debug("get_context_usage for usage", "session", s.ID, "err", err)
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
	var u struct {
		Categories []struct {
			Name   string `json:"name"`
			Tokens int    `json:"tokens"`
			Kind   string `json:"kind"`
		} `json:"categories"`
		Total   int     `json:"totalTokens"`
		Max     int     `json:"maxTokens"`
		Percent float64 `json:"percentage"`
	}
	if json.Unmarshal(raw, &u) != nil || u.Max == 0 {
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
func (a *App) Queued(id int) ([]QueuedView, error) {
	s, err := a.desk.Session(id)
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
func (a *App) CancelQueued(p Later) error {
	var s *session.Session
	for _, x := range a.sessions.All() {
		for _, q := range x.QueuedPrompts() {
			if q.ID == p.ID {
				s = x
			}
		}
	}
	if s == nil {
		return errors.New("that prompt is not queued: claude has taken it already")
	}
	a.desk.ReplyLater(p.Token, func(ctx context.Context) (any, error) {
		raw, err := s.Proc.Control(ctx, "cancel_async_message", map[string]any{"message_uuid": p.ID})
		if err != nil {
			return nil, fmt.Errorf("claude did not withdraw it: %w", err)
		}
		var res struct {
			Cancelled bool `json:"cancelled"`
		}
		_ = json.Unmarshal(raw, &res)
		s.Dequeue(p.ID)
		if !res.Cancelled {
			a.desk.Transcript(s, s.Transcript.Unqueue(p.ID, ""))
			return map[string]any{"cancelled": false, "why": "already taken: claude read it before it could be withdrawn"}, nil
		}
		a.desk.Transcript(s, s.Transcript.Unqueue(p.ID, "withdrawn"))
		s.Turns.Drop(p.ID)
		// Its heading says "withdrawn": the note does not repeat it.
		a.desk.Note(s, "Withdrawn before Claude read it (the prompt marked withdrawn above).")
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
func (a *App) Steer(p SteerParams) (Outcome, error) {
	if strings.TrimSpace(p.Prompt) == "" {
		return Outcome{}, errors.New("empty prompt: nothing was sent")
	}
	s, err := a.liveSession(p.Session)
	if err != nil {
		return Outcome{}, err
	}
	switch s.State() {
	case session.StateRunning, session.StateWaiting:
	default:
		return Outcome{Done: true, Message: fmt.Sprintf("sent to session %d", s.ID)}, a.send(s, p.Prompt)
	}
	s.MarkInterrupted()
	// The prompt is written right after the interrupt, in order, by the
	// process's writer: claude takes it when the interrupted turn ends.
	if err := a.send(s, p.Prompt); err != nil {
		return Outcome{}, err
	}
	a.desk.Background(func(ctx context.Context) {
		if _, err := s.Proc.Control(ctx, "interrupt", nil); err != nil {
			a.desk.Notify("error", fmt.Sprintf("interrupt of session %d failed: %v", s.ID, err))
		}
	})
	return Outcome{Done: true, Message: fmt.Sprintf("session %d: interrupting the turn; your prompt goes next", s.ID) + runOn(s)}, nil
}
