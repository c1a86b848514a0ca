package pyjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// tokenEntries lists an object's keys and compacted values with
// encoding/json, the reference Object must agree with.
func tokenEntries(t testing.TB, b []byte) (keys []string, vals []string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			t.Fatal(err)
		}
		var c bytes.Buffer
		if err := json.Compact(&c, v); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k.(string))
		vals = append(vals, c.String())
	}
	return keys, vals
}

func TestObject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, in string
		keys     []string
		vals     []string
		wantErr  bool
	}{
		{name: "empty", in: ` {} `},
		{name: "null", in: `null`},
		{name: "order kept", in: `{"b": 1, "a": [1, {"x": "]"}], "c": {"d": null}}`,
			keys: []string{"b", "a", "c"}, vals: []string{`1`, `[1, {"x": "]"}]`, `{"d": null}`}},
		{name: "escaped key and quotes in strings", in: `{"a\"b": "x\\", "\u00e9": "say \"hi\""}`,
			keys: []string{`a"b`, "é"}, vals: []string{`"x\\"`, `"say \"hi\""`}},
		{name: "pretty", in: "{\n  \"k\": {\n    \"n\": -1.5e3\n  }\n}\n", keys: []string{"k"}, vals: []string{"{\n    \"n\": -1.5e3\n  }"}},
		{name: "not an object", in: `[1]`, wantErr: true},
		{name: "missing colon", in: `{"a" 1}`, wantErr: true},
		{name: "unbalanced", in: `{"a": [1}`, wantErr: true},
		{name: "unterminated string", in: `{"a": "x}`, wantErr: true},
		{name: "trailing data", in: `{"a": 1} x`, wantErr: true},
		{name: "missing value", in: `{"a": }`, wantErr: true},
		{name: "truncated", in: `{"a": 1,`, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var keys, vals []string
			err := Object([]byte(tc.in), func(k string, v []byte) error {
				keys, vals = append(keys, k), append(vals, string(v))
				return nil
			})
			if (err != nil) != tc.wantErr {
				t.Fatalf("Object(%s) error = %v; want error %v", tc.in, err, tc.wantErr)
			}
			if tc.wantErr {
				return
			}
			if !slices.Equal(keys, tc.keys) || !slices.Equal(vals, tc.vals) {
				t.Errorf("Object(%s) = %q %q; want %q %q", tc.in, keys, vals, tc.keys, tc.vals)
			}
		})
	}
}

func TestObjectStops(t *testing.T) {
	t.Parallel()
	stop := errors.New("stop")
	n := 0
	err := Object([]byte(`{"a": 1, "b": 2}`), func(string, []byte) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("Object = %v after %d calls; want the callback's error after 1", err, n)
	}
}

func TestArray(t *testing.T) {
	t.Parallel()
	var got []string
	if err := Array([]byte(` [ {"id": "a"}, "x", 3, [ ] ] `), func(i int, e []byte) error {
		got = append(got, string(e))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if want := []string{`{"id": "a"}`, `"x"`, `3`, `[ ]`}; !slices.Equal(got, want) {
		t.Errorf("Array = %q; want %q", got, want)
	}
	if err := Array([]byte(`{"a": 1}`), func(int, []byte) error { return nil }); err == nil {
		t.Errorf("Array of an object: no error")
	}
}

// TestObjectUpstreamData splits the largest upstream objects and compares
// every entry with encoding/json's reading.
func TestObjectUpstreamData(t *testing.T) {
	t.Parallel()
	b := datatest.Tau2File(t, "airline", "db.json")
	err := Object(b, func(table string, v []byte) error {
		wantK, wantV := tokenEntries(t, v)
		var keys, vals []string
		if err := Object(v, func(k string, r []byte) error {
			keys = append(keys, k)
			var c bytes.Buffer
			if err := json.Compact(&c, r); err != nil {
				return err
			}
			vals = append(vals, c.String())
			return nil
		}); err != nil {
			return err
		}
		if !slices.Equal(keys, wantK) || !slices.Equal(vals, wantV) {
			t.Errorf("table %s: Object disagrees with encoding/json", table)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func FuzzObject(f *testing.F) {
	for _, s := range []string{`{}`, `{"a": [1, "]"], "b": {"c": "\""}}`, `{"a\u0041": null}`, `[1]`, `{"a": 1,}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var keys, vals []string
		err := Object(b, func(k string, v []byte) error {
			keys, vals = append(keys, k), append(vals, string(v))
			return nil
		})
		trimmed := bytes.TrimSpace(b)
		if !json.Valid(b) || len(trimmed) == 0 || trimmed[0] != '{' {
			return // Object may accept what it leaves to the value decoders
		}
		if err != nil {
			t.Fatalf("Object(%q) = %v on a valid object", b, err)
		}
		wantK, wantV := tokenEntries(t, b)
		if !slices.Equal(keys, wantK) {
			t.Fatalf("keys %q; want %q", keys, wantK)
		}
		for i := range vals {
			var c bytes.Buffer
			if err := json.Compact(&c, []byte(vals[i])); err != nil || c.String() != wantV[i] {
				t.Fatalf("value %d %q; want %q (%v)", i, vals[i], wantV[i], err)
			}
		}
	})
}

func BenchmarkObject(b *testing.B) {
	raw := datatest.Tau2File(b, "airline", "db.json")
	b.SetBytes(int64(len(raw)))
	b.Run("Object", func(b *testing.B) {
		for b.Loop() {
			if err := Object(raw, func(_ string, v []byte) error {
				return Object(v, func(string, []byte) error { return nil })
			}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Tables", func(b *testing.B) {
		for b.Loop() {
			if err := Tables(raw, func(string, string, []byte) error { return nil }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// FuzzDecodeValid: on valid JSON the scanner-based decoder gives exactly
// what the token decoder gives.
func FuzzDecodeValid(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2.50, "x\u00e9", {"b": null}], "a": true}`, `"\ud800"`, `-0`, `[]`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			return
		}
		want, err := decodeTokens(b)
		if err != nil {
			t.Fatalf("decodeTokens(%q): %v", b, err)
		}
		got, err := decodeValid(b)
		if err != nil {
			t.Fatalf("decodeValid(%q): %v", b, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeValid(%q) = %#v; want %#v", b, got, want)
		}
	})
}

func truncated(b []byte) []byte { return b[:len(b)-1000] }

// TestElements: the two-core split gives exactly the sequential elements,
// also when the guessed middle element is inside a string.
func TestElements(t *testing.T) {
	t.Parallel()
	big := func(middle string) []byte {
		var b bytes.Buffer
		b.WriteString("[\n")
		for i := range 4000 {
			if i > 0 {
				b.WriteString(",\n  ")
			}
			if i == 2000 {
				b.WriteString(middle)
				continue
			}
			fmt.Fprintf(&b, `{"id": "%d", "pad": %q, "n": [1, {"x": "]}"}]}`, i, strings.Repeat("p", 300))
		}
		b.WriteString("\n]\n")
		return b.Bytes()
	}
	for _, tc := range []struct {
		name    string
		in      []byte
		wantErr bool
	}{
		{"small", []byte(`[{"a": 1}, {"b": 2}]`), false},
		{"big", big(`{"id": "mid"}`), false},
		{"fake element in a string", big(`"` + strings.Repeat(`}, {\"fake\": 1}, {`, 30000) + `"`), false},
		{"broken after the middle", big(`{"id": }, {`), true},
		{"truncated", truncated(big(`{"id": "x"}`)), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var want [][]byte
			wantErr := Array(tc.in, func(_ int, e []byte) error { want = append(want, e); return nil })
			got, err := Elements(tc.in)
			if (err != nil) != tc.wantErr || (wantErr != nil) != tc.wantErr {
				t.Fatalf("Elements error %v, Array error %v; want error %v", err, wantErr, tc.wantErr)
			}
			if err != nil {
				if err.Error() != wantErr.Error() {
					t.Errorf("Elements error %q; Array's %q", err, wantErr)
				}
				return
			}
			if len(got) != len(want) {
				t.Fatalf("%d elements; want %d", len(got), len(want))
			}
			for i := range got {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("element %d differs", i)
				}
			}
		})
	}
}

func TestDecodeString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, want string
		err      bool
	}{{`"abc"`, "abc", false}, {`"a\"b\u00e9"`, `a"bé`, false}, {`12`, "", true}, {`"`, "", true}, {`null`, "", true}} {
		got, err := DecodeString([]byte(tc.in))
		if got != tc.want || (err != nil) != tc.err {
			t.Errorf("DecodeString(%s) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
		}
	}
}

// BenchmarkElements splits telecom's 14 MB tasks.json into tasks.
func BenchmarkElements(b *testing.B) {
	raw := datatest.Tau2File(b, "telecom", "tasks.json")
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Elements(raw); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSkipString checks string ends around the eight-byte steps, with
// escapes, and unterminated strings.
func TestSkipString(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want int // -1: an error
	}{
		{`""`, 2},
		{`"a"x`, 3},
		{`"1234567"`, 9},
		{`"12345678"`, 10},
		{`"123456\"89"`, 12},
		{`"1234567\\"x`, 11},
		{`"12345678901234567890\\\"x"`, 27},
		{`"` + strings.Repeat("é", 40) + `"`, 82},
		{`"abc`, -1},
		{`"abc\`, -1},
		{`"1234567\"`, -1},
		{`"123456789012\`, -1},
	} {
		got, err := skipString([]byte(tc.in), 0)
		if tc.want < 0 {
			if err == nil {
				t.Errorf("skipString(%q) = %d; want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("skipString(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
