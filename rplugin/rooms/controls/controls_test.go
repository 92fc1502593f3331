package controls

import (
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

func TestControlsSayWhyNot(t *testing.T) {
	mgr := session.NewManager()
	s, err := mgr.Add(func(id int) (*session.Session, error) { return session.New(id, t.TempDir(), "", nil), nil })
	if err != nil {
		t.Fatal(err)
	}
	var sent []string
	r := New(desk.New(nowhere{}, mgr, nil), func(_ *session.Session, p string) error {
		sent = append(sent, p)
		return nil
	})
	if _, err := r.Steer(SteerParams{Session: s.ID, Prompt: "  "}); err == nil || !strings.Contains(err.Error(), "empty prompt") {
		t.Errorf("empty steer: %v", err)
	}
	if _, err := r.Steer(SteerParams{Session: 9, Prompt: "go"}); err == nil || !strings.Contains(err.Error(), "no session 9") {
		t.Errorf("steer of no session: %v", err)
	}
	out, err := r.Interrupt(s.ID)
	if err != nil || out.Done || !strings.Contains(out.Message, "nothing to interrupt") {
		t.Errorf("interrupt of an idle session: %+v, %v", out, err)
	}
	// No turn runs: a steer is a plain send.
	out, err = r.Steer(SteerParams{Session: s.ID, Prompt: "go on"})
	if err != nil || !out.Done || len(sent) != 1 || sent[0] != "go on" {
		t.Errorf("steer between turns: %+v, %v, sent %q", out, err, sent)
	}
	if _, err := r.SetModel(ModelParams{Session: 9, Model: "opus"}); err == nil || !strings.Contains(err.Error(), "no session 9") {
		t.Errorf("model of no session: %v", err)
	}
}
