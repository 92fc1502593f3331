package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestRun(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(script, []byte(`[["Read",{"file_path":"/tmp/x"}]]`), 0o644)

	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	runCtx, stop := context.WithCancel(ctx)
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(runCtx, []string{"-addr", "127.0.0.1:0", "-demo", "-script", script, "-quiet"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if !ok || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("first line %q", line)
	}
	go io.Copy(io.Discard, pr)

	// -demo + -script: a plain prompt runs the script.
	body := `{"model":"m","stream":false,"tools":[{"name":"Read"}],"messages":[{"role":"user","content":"hi"}]}`
	resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Content []struct{ Name, ID string }
	}
	json.NewDecoder(resp.Body).Decode(&m)
	resp.Body.Close()
	if len(m.Content) != 1 || m.Content[0].Name != "Read" || m.Content[0].ID != "toolu_s0" {
		t.Errorf("reply %+v", m)
	}
	resp, err = http.Get(url + "/_fake/tool_results")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if strings.TrimSpace(string(b)) != "[]" {
		t.Errorf("/_fake/tool_results = %s", b)
	}

	stop()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("run did not return after cancel")
	}
}

func TestRunBadScript(t *testing.T) {
	script := filepath.Join(t.TempDir(), "s.json")
	os.WriteFile(script, []byte(`[["Read"]]`), 0o644)
	err := run(context.Background(), []string{"-script", script}, io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "s.json") {
		t.Errorf("err = %v", err)
	}
}

// -reply: a plain prompt gets the reply (make demo's help), never the
// script; DEMO still runs the script.
func TestRunReply(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "s.json")
	os.WriteFile(script, []byte(`[["Read",{"file_path":"/tmp/x"},"a look first"],["say",{"text":"tour over"}]]`), 0o644)
	reply := filepath.Join(dir, "reply.md")
	os.WriteFile(reply, []byte("Script me: SEQ [...]\n"), 0o644)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pr, pw := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-script", script, "-reply", reply, "-quiet"}, pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	url := strings.TrimPrefix(strings.TrimSpace(line), "listening ")
	go io.Copy(io.Discard, pr)
	ask := func(prompt string) []map[string]any {
		body := `{"model":"m","stream":false,"tools":[{"name":"Read"}],"messages":[{"role":"user","content":"` + prompt + `"}]}`
		resp, err := http.Post(url+"/v1/messages", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var m struct{ Content []map[string]any }
		json.NewDecoder(resp.Body).Decode(&m)
		return m.Content
	}
	if c := ask("what can you do?"); len(c) != 1 || c[0]["text"] != "Script me: SEQ [...]" {
		t.Errorf("plain prompt: %v", c)
	}
	if c := ask("DEMO"); len(c) != 2 || c[0]["text"] != "a look first" || c[1]["name"] != "Read" {
		t.Errorf("DEMO: %v", c)
	}
	cancel()
	<-done
}
