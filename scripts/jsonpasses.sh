#!/bin/sh
# jsonpasses.sh: how many times one 10 MB Write's can_use_tool line is
# passed through encoding/json on its way to a pending request (parsed,
# decoded, reconstructed, staged, labelled, shown). It builds the app
# benchmark once against a copy of encoding/json (a -overlay, nothing in
# the tree changes) that prints each Unmarshal, Valid, Compact or Indent
# of a megabyte or more, with its callers, and counts them.
set -eu
root=$(go env GOROOT)/src/encoding/json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$root/decode.go" "$root/indent.go" "$root/scanner.go" "$tmp/"
sed -i '/^func Unmarshal(data \[\]byte, v any) error {$/a\	countBig("Unmarshal", len(data))' "$tmp/decode.go"
sed -i '/^func Valid(data \[\]byte) bool {$/a\	countBig("Valid", len(data))' "$tmp/scanner.go"
sed -i -e '/^func Compact(dst \*bytes.Buffer, src \[\]byte) error {$/a\	countBig("Compact", len(src))' \
	-e '/^func Indent(dst \*bytes.Buffer, src \[\]byte, prefix, indent string) error {$/a\	countBig("Indent", len(src))' "$tmp/indent.go"
cat >"$tmp/count.go" <<'GO'
//go:build !goexperiment.jsonv2

package json

import (
	"runtime"
	"strings"
)

func countBig(fn string, n int) {
	if n < 1<<20 {
		return
	}
	pcs := make([]uintptr, 8)
	frames := runtime.CallersFrames(pcs[:runtime.Callers(3, pcs)])
	where := ""
	for {
		f, more := frames.Next()
		if !strings.HasPrefix(f.Function, "encoding/json.") {
			where += " " + f.Function[strings.LastIndex(f.Function, "/")+1:]
		}
		if !more {
			break
		}
	}
	println("JSONPASS", fn, n, where)
}
GO
{
	printf '{"Replace":{'
	sep=''
	for f in decode.go indent.go scanner.go count.go; do
		printf '%s"%s":"%s"' "$sep" "$root/$f" "$tmp/$f"
		sep=,
	done
	printf '}}'
} >"$tmp/overlay.json"
out=$(go test -overlay "$tmp/overlay.json" -run '^$' -bench 'RouterWrite10MB' -benchtime 1x ./rplugin/app/ 2>&1)
echo "$out" | grep JSONPASS | cut -c1-160 || true
printf 'passes over the line or its input: %s\n' "$(echo "$out" | grep -c JSONPASS)"
