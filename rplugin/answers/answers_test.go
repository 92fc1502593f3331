package answers

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/toolcall"
)

const two = `{"questions":[
 {"question":"Which lib?","header":"Lib","multiSelect":false,"options":[{"label":"A","description":"a"},{"label":"B","description":"b"}]},
 {"question":"Which name?","header":"Name","multiSelect":false,"options":[{"label":"foo","description":"f"},{"label":"bar","description":"b"}]}]}`

func TestBuild(t *testing.T) {
	for _, c := range []struct {
		name     string
		input    string
		answers  []Answer
		annotate bool
		deny     string
		want     map[string]any // answers and annotations of the input
		err      bool
	}{
		{name: "answered", input: two, answers: []Answer{{Selected: []int{1}}, {Other: "baz"}}, annotate: true,
			want: map[string]any{"answers": map[string]any{"Which lib?": "B", "Which name?": "baz"}}},
		{name: "one skipped, annotated", input: two, answers: []Answer{{Selected: []int{0}}, {Unanswered: Skipped}}, annotate: true,
			want: map[string]any{
				"answers":     map[string]any{"Which lib?": "A", "Which name?": "The user skipped this question."},
				"annotations": map[string]any{"Which name?": map[string]any{"unanswered": "skipped"}},
			}},
		{name: "dismissed, annotated", input: two, answers: []Answer{{Unanswered: Dismissed}, {Unanswered: Dismissed}}, annotate: true,
			want: map[string]any{
				"answers": map[string]any{"Which lib?": "The user dismissed the question without answering.",
					"Which name?": "The user dismissed the question without answering."},
				"annotations": map[string]any{"Which lib?": map[string]any{"unanswered": "dismissed"},
					"Which name?": map[string]any{"unanswered": "dismissed"}},
			}},
		{name: "replied in chat with a message, annotated", input: two,
			answers: []Answer{{Selected: []int{0}}, {Unanswered: RepliedInChat, Other: "see my next message"}}, annotate: true,
			want: map[string]any{
				"answers": map[string]any{"Which lib?": "A",
					"Which name?": "The user would rather answer in chat. Their message: see my next message"},
				"annotations": map[string]any{"Which name?": map[string]any{"unanswered": "replied_in_chat"}},
			}},
		{name: "annotations claude sent are kept", answers: []Answer{{Unanswered: Skipped}},
			input:    `{"questions":[{"question":"Q?","header":"H","options":[{"label":"x","description":""}]}],"annotations":{"Q?":{"notes":"n"}}}`,
			annotate: true,
			want: map[string]any{"answers": map[string]any{"Q?": "The user skipped this question."},
				"annotations": map[string]any{"Q?": map[string]any{"notes": "n", "unanswered": "skipped"}}}},
		// Without the capability: what claude always got.
		{name: "skipped, not annotated", input: two, answers: []Answer{{Selected: []int{0}}, {Unanswered: Skipped}},
			want: map[string]any{"answers": map[string]any{"Which lib?": "A", "Which name?": "The user skipped this question."}}},
		{name: "declined, not annotated", input: two, answers: []Answer{{Unanswered: RepliedInChat}, {Unanswered: RepliedInChat}},
			deny: DeclineMessage},
		{name: "declined with a message, not annotated", input: two,
			answers: []Answer{{Unanswered: RepliedInChat, Other: "later"}, {Unanswered: RepliedInChat, Other: "later"}}, deny: "later"},
		{name: "dismissed, not annotated", input: two, answers: []Answer{{Unanswered: Dismissed}, {Unanswered: Dismissed}},
			deny: DismissMessage},
		{name: "an unknown way", input: two, answers: []Answer{{Unanswered: "later"}, {Selected: []int{0}}}, annotate: true, err: true},
		{name: "not answered", input: two, answers: []Answer{{}, {Selected: []int{0}}}, err: true},
		{name: "no such option", input: two, answers: []Answer{{Selected: []int{2}}, {Selected: []int{0}}}, err: true},
		{name: "too few", input: two, answers: []Answer{{Selected: []int{0}}}, err: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Build(toolcall.Decode(json.RawMessage(c.input)), c.answers, c.annotate)
			if (err != nil) != c.err {
				t.Fatalf("err %v, want an error: %v", err, c.err)
			}
			if err != nil {
				return
			}
			if res.Deny != c.deny {
				t.Fatalf("deny %q, want %q", res.Deny, c.deny)
			}
			if c.deny != "" {
				return
			}
			var got map[string]any
			if err := json.Unmarshal(res.Input, &got); err != nil {
				t.Fatal(err)
			}
			if _, ok := got["questions"]; !ok {
				t.Error("the questions are not echoed")
			}
			for _, k := range []string{"answers", "annotations"} {
				if !reflect.DeepEqual(got[k], c.want[k]) {
					t.Errorf("%s = %v, want %v", k, got[k], c.want[k])
				}
			}
		})
	}
}
