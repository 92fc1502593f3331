package e2e

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// :ClaudeNova model completes the session's models and switches the running
// session; the next request to the model uses the new one. effort takes the
// model's levels; auto is a mode (claude's refusal is shown in its words).
func TestModelAndEffort(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		var names []string
		e.Lua(&names, "return vim.fn.getcompletion('ClaudeNova model ', 'cmdline')")
		for _, want := range []string{"default", "opus", "sonnet", "haiku"} {
			if !strings.Contains(" "+strings.Join(names, " ")+" ", " "+want+" ") {
				t.Fatalf("model completion %v lacks %s", names, want)
			}
		}
		e.Cmd("ClaudeNova model claude-haiku-9")
		e.Eventually(30*time.Second, "session on the new model", func() bool {
			for _, s := range e.Sessions() {
				if s["id"] == int64(sid) && s["model"] == "claude-haiku-9" {
					return true
				}
			}
			return false
		})
		before := len(e.Model.RequestLog())
		e.sendLua(sid, "which model")
		e.Eventually(60*time.Second, "answered", func() bool { return strings.Contains(e.Transcript(sid), "You said: which model") })
		log := e.Model.RequestLog()
		used := false
		for _, r := range log[before:] {
			if r.Model == "claude-haiku-9" && r.Stream {
				used = true
			}
		}
		if !used {
			t.Fatalf("the next request did not use the model: %+v", log[before:])
		}
		e.Eventually(10*time.Second, "the switch in the transcript", func() bool { return strings.Contains(e.Transcript(sid), "Model: claude-haiku-9") })
		var levels []string
		e.Lua(&levels, "return vim.fn.getcompletion('ClaudeNova effort ', 'cmdline')")
		if !strings.Contains(strings.Join(levels, " "), "high") {
			t.Fatalf("effort completion %v", levels)
		}
		e.Cmd("ClaudeNova effort high")
		e.Eventually(20*time.Second, "effort noted", func() bool { return strings.Contains(e.Transcript(sid), "Effort: high") })
		var bad string
		e.Lua(&bad, "local ok, err = pcall(require('claudenova').set_effort, 'ludicrous'); return tostring(err)")
		if !strings.Contains(bad, `effort "ludicrous"`) {
			t.Errorf("a bad level: %q", bad)
		}
		var modes []string
		e.Lua(&modes, "return vim.fn.getcompletion('ClaudeNova mode ', 'cmdline')")
		if !strings.Contains(strings.Join(modes, " "), "auto") {
			t.Errorf("mode completion %v lacks auto", modes)
		}
	})
}

// :ClaudeNova usage shows what claude reports about the session, and what
// fills its context window.
func TestUsageFloat(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		e.startIdle("")
		e.Cmd("ClaudeNova usage")
		var lines []string
		e.Eventually(20*time.Second, "usage float", func() bool {
			e.Lua(&lines, "if vim.b.claudenova_surface ~= 'usage' then return {} end return vim.api.nvim_buf_get_lines(0, 0, -1, false)")
			return len(lines) > 0
		})
		text := strings.Join(lines, "\n")
		// What fills the context window (get_context_usage's categories).
		for _, want := range []string{"Cost        $", "Model       ", "Plan limits none reported", "Context     ", "  System prompt ", "  Free space ", "(free)"} {
			if !strings.Contains(text, want) {
				t.Fatalf("usage lacks %q:\n%s", want, text)
			}
		}
	})
}

// A prompt sent while a long reply streams is queued: queued() lists it,
// the transcript marks it, cancel_queued() withdraws it and the model never
// receives it; one claude has already taken cannot be withdrawn.
func TestQueuedPromptCanBeWithdrawn(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.sendLua(sid, "STREAMD 100 100") // ten seconds of text
		e.Eventually(30*time.Second, "streaming", func() bool { return strings.Contains(e.Transcript(sid), "chunk 000003") })
		e.sendLua(sid, "never to be read")
		var queued []map[string]any
		e.Lua(&queued, "return require('claudenova').queued(...)", sid)
		if len(queued) != 1 || queued[0]["text"] != "never to be read" {
			t.Fatalf("queued() = %v", queued)
		}
		// The mark comes with the transcript's events (the outbox's own
		// goroutine), which may follow queued()'s reply.
		e.Eventually(10*time.Second, "the transcript marks it queued", func() bool { return strings.Contains(e.Transcript(sid), "· queued") })
		var res struct {
			OK  bool   `msgpack:"ok"`
			Why string `msgpack:"why"`
		}
		e.Lua(&res, "local ok, why = require('claudenova').cancel_queued(...); return { ok = ok, why = why }", queued[0]["id"])
		if !res.OK {
			t.Fatalf("cancel_queued: %+v", res)
		}
		e.Eventually(60*time.Second, "the reply ends", func() bool { return strings.Contains(e.Transcript(sid), "chunk 000099") })
		e.WaitIdle(sid)
		// Barrier: a later prompt is answered; the withdrawn one would have
		// reached the model first.
		e.sendLua(sid, "after")
		e.Eventually(60*time.Second, "later prompt answered", func() bool { return strings.Contains(e.Transcript(sid), "You said: after") })
		for _, txt := range e.Model.RequestTexts() {
			if strings.Contains(txt, "never to be read") {
				t.Fatal("the model received the withdrawn prompt")
			}
		}
		if tr := e.Transcript(sid); !strings.Contains(tr, "Withdrawn before Claude read it") || strings.Contains(tr, "(the prompt)") {
			t.Errorf("the transcript does not say it was withdrawn, or names no prompt:\n%s", tr)
		}
		e.Lua(&queued, "return require('claudenova').queued(...)", sid)
		if len(queued) != 0 {
			t.Fatalf("queued after the turns: %v", queued)
		}
	})
}

// steer interrupts the running turn and sends at once.
func TestSteer(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.sendLua(sid, "STREAMD 200 100") // twenty seconds of text
		e.Eventually(30*time.Second, "streaming", func() bool { return strings.Contains(e.Transcript(sid), "chunk 000003") })
		e.Cmd("ClaudeNova steer go another way")
		e.Eventually(60*time.Second, "the steer answered", func() bool { return strings.Contains(e.Transcript(sid), "You said: go another way") })
		if strings.Contains(e.Transcript(sid), "chunk 000199") {
			t.Fatal("the turn was not interrupted")
		}
		e.WaitIdle(sid)
	})
}

// redPNG writes an 8×8 red PNG.
func redPNG(t *testing.T, path string) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 8, 8))
	for x := 0; x < 8; x++ {
		for y := 0; y < 8; y++ {
			img.Set(x, y, color.RGBA{R: 255, A: 255})
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// add of an image says it goes as an image (with its size), and the model
// receives an image block; paste-image takes the clipboard's image (a
// stand-in wl-paste: no display server here) the same way.
func TestImagesInPrompts(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		bin := t.TempDir()
		e := NewEnv(t, v, Options{NvimEnv: []string{"PATH=" + bin + ":" + os.Getenv("PATH")}})
		sid := e.startIdle("")
		redPNG(t, filepath.Join(e.Project, "red.png"))
		e.Cmd("ClaudeNova add red.png")
		if !e.NoteContaining("added image: red.png 8×8 for the next prompt, sent as an image") {
			t.Fatalf("notes %v", e.Notes())
		}
		e.Cmd("ClaudeNova send what colour is it")
		e.Eventually(60*time.Second, "answered", func() bool { return strings.Contains(e.Transcript(sid), "You said: what colour is it") })
		sawImage := func() bool {
			for _, txt := range e.Model.RequestTexts() {
				if strings.Contains(txt, "[image image/png]") {
					return true
				}
			}
			return false
		}
		if !sawImage() {
			t.Fatalf("the model received no image block: %q", e.Model.RequestTexts())
		}
		// The clipboard: a stand-in wl-paste that offers a PNG.
		clip := filepath.Join(t.TempDir(), "clip.png")
		redPNG(t, clip)
		script := "#!/bin/sh\nif [ \"$1\" = --list-types ]; then echo image/png; exit 0; fi\ncat " + clip + "\n"
		if err := os.WriteFile(filepath.Join(bin, "wl-paste"), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
		e.Cmd("ClaudeNova paste-image")
		// The clipboard is read off the editor's loop: the note follows.
		e.Eventually(10*time.Second, "the pasted image's note", func() bool {
			return e.NoteContaining("sent as an image") && e.NoteContaining("clipboard-")
		})
		var queued []string
		e.Lua(&queued, "return require('claudenova.services.context').queue")
		if len(queued) != 1 || !strings.HasPrefix(queued[0], e.Storage) {
			t.Fatalf("queue %v", queued)
		}
	})
}

// A Read of a PNG shows the image as one line under the Read call.
func TestImageInAToolResult(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		p := filepath.Join(e.Project, "red.png")
		redPNG(t, p)
		sid := e.newSession(Seq(Step("Read", map[string]any{"file_path": p})))
		e.WaitToolResult("toolu_s0")
		e.Eventually(30*time.Second, "image line", func() bool {
			tr := e.Transcript(sid)
			i := strings.Index(tr, "▸ Read red.png")
			return i >= 0 && strings.Contains(tr[i:], "image · png 8×8 · ")
		})
	})
}

// Each turn's footer shows that turn's cost: claude reports the session's
// running total.
func TestFooterCostIsTheTurns(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{})
		sid := e.startIdle("")
		e.sendLua(sid, "STREAM 200")
		e.Eventually(60*time.Second, "first reply", func() bool { return strings.Count(e.Transcript(sid), "*done ·") == 2 })
		e.sendLua(sid, "short")
		e.Eventually(60*time.Second, "second reply", func() bool { return strings.Count(e.Transcript(sid), "*done ·") == 3 })
		re := regexp.MustCompile(`\*done · [^*]*\$([0-9.]+)\*`)
		var costs []float64
		for _, m := range re.FindAllStringSubmatch(e.Transcript(sid), -1) {
			c, _ := strconv.ParseFloat(m[1], 64)
			costs = append(costs, c)
		}
		var u struct {
			Session struct {
				Total float64 `msgpack:"total_cost_usd"`
			} `msgpack:"session"`
		}
		e.Lua(&u, "return require('claudenova').usage(...)", sid)
		sum := 0.0
		for _, c := range costs {
			sum += c
		}
		if len(costs) != 3 || math.Abs(sum-u.Session.Total) > 0.0003 || costs[1] <= costs[2] {
			t.Fatalf("footers %v (sum %.4f), session total %.4f", costs, sum, u.Session.Total)
		}
	})
}

// paste-image where no clipboard tool is (Neovim on a server, in a
// container) and no terminal answers an OSC 52 read: one clear message,
// nothing queued.
func TestPasteImageWithoutClipboardTool(t *testing.T) {
	eachNvim(t, func(t *testing.T, v nvimVersion) {
		e := NewEnv(t, v, Options{NoModel: true, NvimEnv: []string{"PATH=" + pathWithout(t, "wl-paste", "xclip", "pngpaste")}})
		e.Cmd("ClaudeNova paste-image")
		e.Eventually(10*time.Second, "the message", func() bool { return len(e.ErrorNotes()) > 0 })
		errs := e.ErrorNotes()
		if len(errs) != 1 || !strings.HasPrefix(errs[0], "claude-nova: no clipboard tool for images here (wl-paste, xclip or pngpaste), and the terminal did not answer an OSC 52") {
			t.Fatalf("errors %v", errs)
		}
		if whole := e.WholeMessage("no clipboard tool for images here"); !strings.Contains(whole, ":ClaudeNova add {path}") {
			t.Errorf("the message does not say what to do: %s", whole)
		}
		var queued []string
		e.Lua(&queued, "return require('claudenova.services.context').queue")
		if len(queued) != 0 {
			t.Fatalf("queue %v", queued)
		}
	})
}
