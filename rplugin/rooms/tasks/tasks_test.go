package tasks

import (
	"errors"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/desk"
	"github.com/claude-nova/claude-nova.nvim/rplugin/session"
)

type nowhere struct{}

func (nowhere) Send(string, any) {}

func TestUnknownTasksAreNamed(t *testing.T) {
	r := New(desk.New(nowhere{}, session.NewManager(), nil))
	if err := r.Stop(desk.Later{ReplyTo: desk.ReplyTo{Token: "t"}, ID: "b7"}); !errors.Is(err, ErrNoTask) || !strings.Contains(err.Error(), "b7") {
		t.Fatalf("Stop of an unknown task: %v", err)
	}
	if err := r.Output(desk.Later{ReplyTo: desk.ReplyTo{Token: "t"}, ID: "b7"}); !errors.Is(err, ErrNoTask) {
		t.Fatalf("Output of an unknown task: %v", err)
	}
	if _, err := r.At(4, 0); err == nil || !strings.Contains(err.Error(), "no session 4") {
		t.Fatalf("At in no session: %v", err)
	}
	if r.Agent(1, "") != nil {
		t.Fatal("no agent id, yet an agent")
	}
}
