package views

import (
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/tasks"
)

func TestAgentLabel(t *testing.T) {
	for _, tc := range []struct {
		agent tasks.Agent
		want  string
	}{
		{tasks.Agent{ID: "a1"}, "subagent a1"},
		{tasks.Agent{ID: "a1", Type: "Explore"}, "subagent a1 (Explore)"},
		{tasks.Agent{ID: "a1", Type: "Explore", Description: "find the tests"}, "find the tests (Explore)"},
	} {
		if got := AgentLabel(&tc.agent); got != tc.want {
			t.Errorf("AgentLabel(%+v) = %q, want %q", tc.agent, got, tc.want)
		}
	}
}
