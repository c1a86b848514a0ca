package pydantic

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// validateM is testdata/probe.py's model M validated with Validator: the
// declared fields in order, then the extra inputs. It returns the
// model_dump(mode="json") or the error text.
func validateM(d *pyjson.Dict) (dump string, err error) {
	var v Validator
	out := &pyjson.Dict{}
	fields := []string{"b", "e", "s", "i", "n", "f", "l"}
	defaults := []any{false, "internet", nil, nil, 0, 0.0, "no"}
	for i, f := range fields {
		x, ok := d.Get(f)
		if !ok {
			out.Set(f, defaults[i])
			continue
		}
		switch f {
		case "b":
			out.Set(f, v.Bool(f, x))
		case "e":
			out.Set(f, v.Enum(f, x, "internet", "broken"))
		case "s":
			if s := v.OptStr(f, x); s != nil {
				out.Set(f, *s)
			} else {
				out.Set(f, nil)
			}
		case "i":
			if n := v.OptInt(f, x); n != nil {
				out.Set(f, *n)
			} else {
				out.Set(f, nil)
			}
		case "n":
			out.Set(f, v.Int(f, x))
		case "f":
			out.Set(f, v.Float(f, x))
		case "l":
			out.Set(f, v.Literal(f, x, "yes", "no"))
		}
	}
	for i, k := range d.Keys {
		if !slices.Contains(fields, k) {
			v.Extra(k, d.Values[i])
		}
	}
	if err := v.Err("M"); err != nil {
		return "", err
	}
	return pyjson.String(out), nil
}

// checkProbe compares validateM with pydantic's answers (lines of
// probe.py's output) for the inputs.
func checkProbe(t *testing.T, inputs, answers []byte) {
	t.Helper()
	in := bufio.NewScanner(bytes.NewReader(inputs))
	ans := bufio.NewScanner(bytes.NewReader(answers))
	n := 0
	for in.Scan() {
		if !ans.Scan() {
			t.Fatalf("no answer for input %d", n)
		}
		n++
		a, err := pyjson.Decode(ans.Bytes())
		want, ok := a.([]any)
		if err != nil || !ok || len(want) != 2 {
			t.Fatalf("answer %d: %s %v", n, ans.Text(), err)
		}
		v, err := pyjson.Decode(in.Bytes())
		if err != nil {
			t.Fatalf("input %d: %v", n, err)
		}
		dump, verr := validateM(v.(*pyjson.Dict))
		switch want[0] {
		case "ok":
			if verr != nil || dump != pyjson.String(want[1]) {
				t.Errorf("%s:\n got %s %v\nwant %s", in.Text(), dump, verr, pyjson.String(want[1]))
			}
		case "err":
			if verr == nil || verr.Error() != want[1] {
				t.Errorf("%s:\n got %s %v\nwant error %q", in.Text(), dump, verr, want[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no probe inputs")
	}
}

// TestProbe: Validator agrees with pydantic on testdata/probe.jsonl
// (answers recorded from pydantic in probe.golden.jsonl).
func TestProbe(t *testing.T) {
	t.Parallel()
	inputs, err := os.ReadFile("testdata/probe.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	answers, err := os.ReadFile("testdata/probe.golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checkProbe(t, inputs, answers)
}

// TestProbeOracle reruns testdata/probe.py with the Python that
// LEDGERBENCH_PYDANTIC_ORACLE names (e.g. python3, with pydantic v2
// installed) and checks Validator against its live answers; it skips when
// the variable is unset.
func TestProbeOracle(t *testing.T) {
	t.Parallel()
	py := os.Getenv("LEDGERBENCH_PYDANTIC_ORACLE")
	if py == "" {
		t.Skip("LEDGERBENCH_PYDANTIC_ORACLE not set (e.g. LEDGERBENCH_PYDANTIC_ORACLE=python3)")
	}
	inputs, err := os.ReadFile("testdata/probe.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	checkProbe(t, inputs, oracletest.Output(t, py+" testdata/probe.py", inputs, os.Stderr))
}
