package apirequest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// decoderObjectKeys is objectKeys as encoding/json's token decoder reads
// it: the reference the scanner must agree with.
func decoderObjectKeys(raw []byte) ([]string, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	t, err := dec.Token()
	if d, ok := t.(json.Delim); err != nil || !ok || d != '{' {
		return nil, false
	}
	var keys []string
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		if k := t.(string); !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, false
		}
	}
	return keys, true
}

// FuzzObjectKeys holds the scanner to encoding/json on every valid JSON
// text: the same keys in the same order, and an error for exactly what is
// not an object.
func FuzzObjectKeys(f *testing.F) {
	for _, seed := range []string{
		`{}`, ` { } `, `{"a":1,"b":"x"}`, `{"a":1,"a":2}`, `{"a":{"b":[1,{"c":"]}"}]},"d":null}`,
		`{"\u00e9":1,"\"q\"":2,"a\\b":[]}`, "{\"\xff\":1}", `[{"a":1}]`, `"s"`, `1`, `null`,
		`{"a":"}","b":"\\","c":true,"d":false,"e":-1.5e3}`, "{\n\t\"k\" :\r 1 }",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, body string) {
		raw := []byte(body)
		if !json.Valid(raw) {
			return // objectKeys only ever sees valid JSON
		}
		got, err := objectKeys(raw)
		want, ok := decoderObjectKeys(raw)
		if (err == nil) != ok {
			t.Fatalf("%q: scanner error %v, decoder ok %v", body, err, ok)
		}
		if ok && !slices.Equal(got, want) {
			t.Fatalf("%q: scanner keys %q, decoder keys %q", body, got, want)
		}
	})
}

// Many keys, some repeated, cost linear time and keep first-seen order.
func TestObjectKeysManyKeys(t *testing.T) {
	var b strings.Builder
	b.WriteByte('{')
	const n = 50000
	for i := range n {
		fmt.Fprintf(&b, `"k%d":%d,`, i%(n/2), i)
	}
	b.WriteString(`"last":[]}`)
	keys, err := objectKeys([]byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != n/2+1 || keys[0] != "k0" || keys[n/2-1] != fmt.Sprintf("k%d", n/2-1) || keys[n/2] != "last" {
		t.Fatalf("%d keys, first %q, last %q", len(keys), keys[0], keys[len(keys)-1])
	}
}

func BenchmarkObjectKeys(b *testing.B) {
	raw := []byte(`{"item_id":42,"note":"from the benchmark"}`)
	b.Run("scanner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := objectKeys(raw); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("decoder", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, ok := decoderObjectKeys(raw); !ok {
				b.Fatal("not an object")
			}
		}
	})
}
