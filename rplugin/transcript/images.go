package transcript

import (
	"bytes"
	"encoding/json"
	"fmt"
	"github.com/claude-nova/claude-nova.nvim/rplugin/claude"
	"image"
	_ "image/gif"  // image.DecodeConfig of a GIF result
	_ "image/jpeg" // … of a JPEG
	_ "image/png"  // … of a PNG
	"os"
	"path/filepath"
	"strings"
)

// maxImageBytes bounds the image a transcript keeps on disk for gf.
const maxImageBytes = 32 << 20

// toolImage is an image block of a tool result (a Read of a PNG, say).
type toolImage = claude.ResultImage

// resultImages returns the image blocks of a tool result's content.
func resultImages(raw json.RawMessage) []toolImage { return claude.ResultImages(raw) }

// imageLine is how an image in a tool result reads: "image · png 8×8 · 1.2 kB".
func imageLine(img toolImage) string {
	kind := strings.TrimPrefix(img.MediaType, "image/")
	if kind == "" {
		kind = "image"
	}
	line := "image · " + kind
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(img.Data)); err == nil {
		line += fmt.Sprintf(" %d×%d", cfg.Width, cfg.Height)
	}
	return line + " · " + humanBytes(len(img.Data))
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f kB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// saveImage keeps an image of a tool result next to the spill file, for gf
// (the front end opens it with the system's viewer). "" when it cannot.
func (cl *toolCalls) saveImage(t *Transcript, id string, n int, img toolImage) string {
	if t.page.spill == "" || len(img.Data) > maxImageBytes {
		return ""
	}
	ext := strings.TrimPrefix(img.MediaType, "image/")
	if ext == "jpeg" {
		ext = "jpg"
	}
	if ext == "" || strings.ContainsAny(ext, "/.\\") {
		ext = "img"
	}
	base := strings.TrimSuffix(filepath.Base(t.page.spill), ".md") + "-" + safeName(id) + fmt.Sprintf("-%d.%s", n, ext)
	path := filepath.Join(filepath.Dir(t.page.spill), base)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return ""
	}
	if err := os.WriteFile(path, img.Data, 0o600); err != nil {
		return ""
	}
	return path
}
