package main

import (
	"bytes"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"
)

// kv is one field of an ordered JSON object.
type kv struct {
	K string
	V any
}

// O is a JSON object that keeps its key order, so emitted lines look like the
// real CLI's ("type" first) and script-provided objects keep their layout.
type O []kv

// MarshalJSON implements json.Marshaler.
func (o O) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, err := marshal(f.K)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		v, err := marshal(f.V)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", f.K, err)
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// set replaces the value of k in place or appends it.
func (o O) set(k string, v any) O {
	for i := range o {
		if o[i].K == k {
			o[i].V = v
			return o
		}
	}
	return append(o, kv{k, v})
}

// marshal encodes like JSON.stringify: no HTML escaping, no trailing newline.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// parseOrdered decodes a JSON object into an O whose values are
// json.RawMessage, preserving key order.
func parseOrdered(raw []byte) (O, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("expected a JSON object, got %s", bytes.TrimSpace(raw))
	}
	var o O
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("key %q: %w", k, err)
		}
		o = append(o, kv{k, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

// newUUID returns a random RFC 4122 version 4 id, the shape the real CLI uses
// for request ids, session ids and message uuids.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

const idAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"

// newToolUseID returns an id shaped like the API's "toolu_01..." ids.
func newToolUseID() string {
	var b [22]byte
	_, _ = rand.Read(b[:])
	out := []byte("toolu_01")
	for _, c := range b {
		out = append(out, idAlphabet[int(c)%len(idAlphabet)])
	}
	return string(out)
}

func nowTS() string {
	return time.Now().UTC().Format("2006-01-02T15:04:05.000000Z")
}
