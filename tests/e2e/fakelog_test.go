package e2e

import "github.com/claude-nova/claude-nova.nvim/tests/testkit"

// fakeAnswers lists every answer the fake claude received, in order.
func fakeAnswers(path string) []testkit.Answer { return testkit.FakeAnswers(path) }

// answersFor counts the answers to one request id.
func answersFor(path, id string) int { return len(testkit.AnswersFor(path, id)) }
