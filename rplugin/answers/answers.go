// Package answers is the user's answers to claude's questions
// (AskUserQuestion) as claude takes them: the labels of the chosen options
// and free text by question, and, where the user left a question
// unanswered, how (skipped it, dismissed the questions, would rather reply
// in chat). A claude that lists caps.AskUnanswered gets that as
// annotations[question].unanswered beside text the model reads; one that
// does not gets what it always got (a decline is a deny with its message).
package answers

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

// How a question went unanswered (claude's words).
const (
	Skipped       = "skipped"
	Dismissed     = "dismissed"
	RepliedInChat = "replied_in_chat"
)

// Answer is the user's answer to one question: the indexes of the chosen
// options and/or free text ("Other"), or how it went unanswered (then
// Other is an optional message for Claude).
type Answer struct {
	Selected   []int  `json:"selected"`
	Other      string `json:"other"`
	Unanswered string `json:"unanswered,omitempty"`
}

// DeclineMessage is the deny a claude without caps.AskUnanswered gets
// when the user would rather answer in chat and wrote nothing.
const DeclineMessage = "The user declined to answer here and would rather answer in chat."

// DismissMessage is the deny such a claude gets when the user dismissed
// the questions.
const DismissMessage = "The user dismissed the questions without answering."

// Result is what claude is answered: an allow with Input, or (Deny != "")
// a deny with that message.
type Result struct {
	Input json.RawMessage
	Deny  string
	// Unanswered counts the questions left unanswered.
	Unanswered int
}

// Build answers the questions of in with answers (answers[i] answers
// question i); annotate says claude lists caps.AskUnanswered.
func Build(in toolcall.Input, answers []Answer, annotate bool) (Result, error) {
	if in.Err != nil {
		return Result{}, fmt.Errorf("question: %w", in.Err)
	}
	if in.FieldsErr != nil {
		return Result{}, fmt.Errorf("question input: %w", in.FieldsErr)
	}
	qs := in.Fields.Questions
	if len(answers) != len(qs) {
		return Result{}, fmt.Errorf("%d answers for %d questions", len(answers), len(qs))
	}
	out := make(map[string]string, len(answers))
	notes := map[string]any{}
	var res Result
	for i, ans := range answers {
		q := qs[i]
		if ans.Unanswered != "" {
			text, err := unanswered(ans)
			if err != nil {
				return Result{}, fmt.Errorf("question %d: %w", i+1, err)
			}
			res.Unanswered++
			out[q.Question] = text
			notes[q.Question] = map[string]any{"unanswered": ans.Unanswered}
			if !annotate && ans.Unanswered != Skipped && res.Deny == "" {
				res.Deny = denial(ans)
			}
			continue
		}
		var labels []string
		for _, k := range ans.Selected {
			if k < 0 || k >= len(q.Options) {
				return Result{}, fmt.Errorf("question %d has no option %d", i+1, k+1)
			}
			labels = append(labels, q.Options[k].Label)
		}
		if strings.TrimSpace(ans.Other) != "" {
			labels = append(labels, ans.Other)
		}
		if len(labels) == 0 {
			return Result{}, fmt.Errorf("question %d is not answered", i+1)
		}
		out[q.Question] = strings.Join(labels, ", ")
	}
	if res.Deny != "" {
		return res, nil
	}
	m := maps.Clone(in.Obj)
	if m == nil {
		m = map[string]any{}
	}
	m["answers"] = out
	if annotate && len(notes) > 0 {
		m["annotations"] = mergeNotes(m["annotations"], notes)
	}
	b, err := json.Marshal(m)
	if err != nil {
		return Result{}, fmt.Errorf("encode answers: %w", err)
	}
	res.Input = b
	return res, nil
}

var errHow = errors.New("unanswered must be skipped, dismissed or replied_in_chat")

// unanswered is the text the model reads for a question left unanswered
// (it does not see the annotation itself).
func unanswered(a Answer) (string, error) {
	msg := strings.TrimSpace(a.Other)
	var text string
	switch a.Unanswered {
	case Skipped:
		text = "The user skipped this question."
	case Dismissed:
		text = "The user dismissed the question without answering."
	case RepliedInChat:
		text = "The user would rather answer in chat."
	default:
		return "", errHow
	}
	if msg != "" {
		text += " Their message: " + msg
	}
	return text, nil
}

// denial is the deny of a claude without the capability: the user's
// message, else the words the plugin always sent.
func denial(a Answer) string {
	if msg := strings.TrimSpace(a.Other); msg != "" {
		return msg
	}
	if a.Unanswered == Dismissed {
		return DismissMessage
	}
	return DeclineMessage
}

// mergeNotes keeps annotations claude's input already had (notes on
// previews) beside the unanswered ones.
func mergeNotes(had any, notes map[string]any) map[string]any {
	out := map[string]any{}
	if m, ok := had.(map[string]any); ok {
		maps.Copy(out, m)
	}
	for q, n := range notes {
		if prev, ok := out[q].(map[string]any); ok {
			merged := maps.Clone(prev)
			maps.Copy(merged, n.(map[string]any))
			out[q] = merged
			continue
		}
		out[q] = n
	}
	return out
}
