package others

import (
	"strconv"
	"strings"
	"testing"
)

func TestParseAndNotOurs(t *testing.T) {
	listing := `[{"pid":11,"cwd":"/home/u/p","kind":"interactive","startedAt":300,"sessionId":"ours-1","name":"mine"},
 {"pid":12,"id":"bg-7","cwd":"/home/u/api","kind":"background","startedAt":100,"sessionId":"s2","name":"api\u001b[31m tests","state":"blocked"},
 {"pid":13,"cwd":"/elsewhere/web","kind":"interactive","startedAt":200,"sessionId":"s3","name":"web","status":"busy"},
 {"pid":14,"cwd":"/elsewhere/old","kind":"interactive","startedAt":400,"sessionId":"s4"}]`
	list, err := Parse([]byte(listing))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		ours Ours
		want []string // pid · shown · attach
	}{
		{"none ours: the blocked one first, then the newest",
			Ours{}, []string{"12 ~/api claude attach bg-7", "14 /elsewhere/old ", "11 ~/p ", "13 /elsewhere/web "}},
		{"ours by claude's session id and by its pid",
			Ours{IDs: map[string]bool{"ours-1": true}, Pids: map[int]bool{14: true}}, []string{"12 ~/api claude attach bg-7", "13 /elsewhere/web "}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, o := range notOurs(list, tt.ours, []string{"claude"}, "/home/u") {
				got = append(got, strings.TrimSpace(strings.Join([]string{strconv.Itoa(o.Pid), o.Shown, strings.Join(o.Attach, " ")}, " ")))
			}
			want := make([]string, len(tt.want))
			for i, w := range tt.want {
				want[i] = strings.TrimSpace(w)
			}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("got %q, want %q", got, want)
			}
		})
	}
	if strings.ContainsRune(list[1].Name, 0x1b) {
		t.Fatalf("a name kept its escape: %q", list[1].Name)
	}
	if _, err := Parse([]byte(`{"not":"a list"}`)); err == nil {
		t.Fatal("a bad listing was read")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"pid":1,"name":"x","state":"blocked"}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, out []byte) {
		list, err := Parse(out)
		if err != nil {
			return
		}
		if len(list) > 200 {
			t.Fatalf("%d sessions", len(list))
		}
		for _, o := range list {
			if strings.ContainsAny(o.Name+o.Cwd+o.ID, "\x1b\n") {
				t.Fatalf("unsafe text in %+v", o)
			}
		}
	})
}
