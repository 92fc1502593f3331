package e2e

import (
	"strings"

	"github.com/claude-nova/claude-nova.nvim/tests/testkit"
)

// fakeAnswers lists every answer the fake claude received, in order.
func fakeAnswers(path string) []testkit.Answer { return testkit.FakeAnswers(path) }

// userAnswers are the fake's answers other than the barriers' sentinels.
func userAnswers(path string) []testkit.Answer {
	var out []testkit.Answer
	for _, a := range testkit.FakeAnswers(path) {
		if !strings.HasPrefix(a.RequestID, "req-sentinel-") {
			out = append(out, a)
		}
	}
	return out
}

// answersFor counts the answers to one request id.
func answersFor(path, id string) int { return len(testkit.AnswersFor(path, id)) }
