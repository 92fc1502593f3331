package proposal

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/claude-nova/claude-nova.nvim/rplugin/diff"
)

// What `make bench` reports as proposal reconstruction: the file as it
// would be after the change, rebuilt from the tool input and the file on
// disk (Reconstruct), for an Edit and a MultiEdit (10 edits) of 10k- and 100k-line
// files, LF and CRLF.

func benchFile(lines int, eol string) []byte {
	var b strings.Builder
	for i := 0; i < lines; i++ {
		fmt.Fprintf(&b, "line %d of the benchmark file, some text to make it realistic%s", i, eol)
	}
	return []byte(b.String())
}

func benchReconstruct(b *testing.B, lines int, eol, tool string) {
	data := benchFile(lines, eol)
	read := func(string) ([]byte, error) { return data, nil }
	var input any
	switch tool {
	case "Edit":
		k := lines * 7 / 10
		input = map[string]any{"file_path": "/r/big.txt", "old_string": fmt.Sprintf("line %d of the", k), "new_string": fmt.Sprintf("LINE %d of the", k)}
	case "MultiEdit":
		var edits []map[string]any
		for i := 0; i < 10; i++ {
			k := i * (lines / 10)
			edits = append(edits, map[string]any{"old_string": fmt.Sprintf("line %d of the", k), "new_string": fmt.Sprintf("LINE %d of the", k)})
		}
		input = map[string]any{"file_path": "/r/big.txt", "edits": edits}
	}
	raw, _ := json.Marshal(input)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		c, err := Reconstruct(tool, raw, "/r", read)
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Proposed) != len(data) {
			b.Fatalf("proposed %d bytes, want %d", len(c.Proposed), len(data))
		}
	}
}

func BenchmarkReconstructEdit10k(b *testing.B)      { benchReconstruct(b, 10000, "\n", "Edit") }
func BenchmarkReconstructEdit100k(b *testing.B)     { benchReconstruct(b, 100000, "\n", "Edit") }
func BenchmarkReconstructEdit100kCRLF(b *testing.B) { benchReconstruct(b, 100000, "\r\n", "Edit") }
func BenchmarkReconstructMultiEdit100k(b *testing.B) {
	benchReconstruct(b, 100000, "\n", "MultiEdit")
}

// What staging an Edit costs the host besides Reconstruct: writing the
// staged file and finding the hunks the editor shows.
func benchStageHunks(b *testing.B, lines int) {
	data := benchFile(lines, "\n")
	k := lines * 7 / 10
	raw, _ := json.Marshal(map[string]any{"file_path": "/r/big.txt", "old_string": fmt.Sprintf("line %d of the", k), "new_string": fmt.Sprintf("LINE %d of the", k)})
	c, err := Reconstruct("Edit", raw, "/r", func(string) ([]byte, error) { return data, nil })
	if err != nil {
		b.Fatal(err)
	}
	storage := b.TempDir()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Stage(storage, fmt.Sprintf("r%d", i), c.StagePath(), c.Proposed); err != nil {
			b.Fatal(err)
		}
		if h, ok := Hunks(c); !ok || len(h) != 1 {
			b.Fatalf("hunks %v %v", h, ok)
		}
	}
}

func BenchmarkStageHunks10k(b *testing.B)  { benchStageHunks(b, 10000) }
func BenchmarkStageHunks100k(b *testing.B) { benchStageHunks(b, 100000) }

// A request's counts and hunks of a one-line Edit of a 100k-line file: one
// diff (Summarize) beside the two it took before (diff.Stat, then Hunks).
func BenchmarkSummarize100k(b *testing.B) {
	orig := benchFile(100000, "\n")
	prop := []byte(strings.Replace(string(orig), "line 70000 of the", "LINE 70000 of the", 1))
	c := Change{Original: orig, Proposed: prop}
	b.Run("once", func(b *testing.B) {
		for b.Loop() {
			_ = Summarize(c)
		}
	})
	b.Run("stat then hunks", func(b *testing.B) {
		for b.Loop() {
			_, _ = diff.Stat(string(c.Original), string(c.Proposed))
			_, _ = Hunks(c)
		}
	})
}

// What staging alone costs: the folder, its marker and the file.
func benchStage(b *testing.B, lines int) {
	data := benchFile(lines, "\n")
	storage := b.TempDir()
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := Stage(storage, fmt.Sprintf("r%d", i), "/r/big.txt", data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStage1k(b *testing.B)   { benchStage(b, 1000) }
func BenchmarkStage10k(b *testing.B)  { benchStage(b, 10000) }
func BenchmarkStage100k(b *testing.B) { benchStage(b, 100000) }
