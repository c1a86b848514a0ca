package ledger

import (
	"encoding/json"
	"errors"
	"flag"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/fault"
	"github.com/ledgerbench/ledgerbench/internal/core/goldentest"
)

var update = flag.Bool("update", false, "update golden files")

type rec struct {
	ID     string  `json:"id"`
	Status string  `json:"status"`
	Amount float64 `json:"amount"`
}

// mapRouter routes get_rec(id) to recs.<id>.
type mapRouter struct{}

func (mapRouter) Route(tool string, args json.RawMessage, output string) []Entry {
	if tool != "get_rec" {
		return nil
	}
	var r rec
	if json.Unmarshal([]byte(output), &r) != nil {
		return nil
	}
	return []Entry{{Path: "recs." + r.ID, Value: &r}}
}

func TestAbsorbAndRenderGolden(t *testing.T) {
	t.Parallel()
	l := New()
	if got := l.Render(); got != "" {
		t.Errorf("empty ledger renders %q", got)
	}
	l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"b","status":"open","amount":3}`)
	l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"a","status":"é","amount":2.5}`)
	l.Absorb(mapRouter{}, "other", nil, `{"id":"c"}`)
	l.Put("user", map[string]any{"id": "u1"})
	goldentest.Check(t, *update, "render.golden", l.Render())
	// replacing a value keeps one entry per path
	l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"a","status":"closed","amount":2.5}`)
	if l.Len() != 3 || !strings.Contains(l.Render(), `recs.a: {"id": "a", "status": "closed"`) {
		t.Errorf("update did not replace: %s", l.Render())
	}
	var seen []string
	l.Prefix("recs.", func(p string, _ any) { seen = append(seen, p) })
	if strings.Join(seen, ",") != "recs.a,recs.b" {
		t.Errorf("Prefix = %v", seen)
	}
}

type closeArgs struct {
	ID string `json:"id"`
}

// decodeClose decodes "close" calls once; "explode" has no arguments.
func decodeClose(tool string, raw json.RawMessage) (any, *Failure) {
	if tool != "close" {
		return &struct{}{}, nil
	}
	var a closeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return nil, &Failure{ID: "p.arguments", Clause: "Closing", Reason: "bad args: " + err.Error()}
	}
	return &a, nil
}

func TestGateJudge(t *testing.T) {
	t.Parallel()
	decoded := 0
	decode := func(tool string, raw json.RawMessage) (any, *Failure) {
		decoded++
		return decodeClose(tool, raw)
	}
	preds := []Predicate{
		Typed("p.exists", "close", "Closing", func(l *Ledger, a *closeArgs) Outcome {
			if !l.Has("recs." + a.ID) {
				return NeedRevise("read recs." + a.ID + " first")
			}
			return OK
		}),
		Typed("p.open", "close", "Closing", func(l *Ledger, a *closeArgs) Outcome {
			v, ok := l.Get("recs." + a.ID)
			if ok && v.(*rec).Status != "open" {
				return Refuse("record " + a.ID + " is not open")
			}
			return OK
		}),
		{ID: "p.panics", Tool: "explode", Check: func(*Ledger, any) Outcome { panic("boom") }},
		Typed("p.wrong_type", "explode", "", func(*Ledger, *closeArgs) Outcome { return OK }),
	}
	g := NewGate(preds, []string{"close", "explode"}, decode)
	l := New()
	l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"a","status":"open","amount":1}`)
	l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"b","status":"closed","amount":1}`)
	cases := []struct {
		tool, args string
		want       Decision
		pred       string
	}{
		{"close", `{"id":"a"}`, Allow, ""},
		{"close", `{"id":"zz"}`, Revise, "p.exists"},
		{"close", `{"id":"b"}`, Block, "p.open"},
		{"close", `{"id": 5}`, Revise, "p.arguments"},
		{"close", `[1,2]`, Revise, "p.arguments"},
		{"read_only", `{"id":"zz"}`, Allow, ""},
		// a panicking predicate is the harness's failure, not a verdict
		{"explode", `{}`, HarnessError, "p.wrong_type"},
	}
	for _, tc := range cases {
		decoded = 0
		v := g.Judge(l, tc.tool, "c1", json.RawMessage(tc.args))
		if v.Decision != tc.want || v.Predicate != tc.pred {
			t.Errorf("Judge(%s %s) = %s/%s; want %s/%s", tc.tool, tc.args, v.Decision, v.Predicate, tc.want, tc.pred)
		}
		if want := btoi(tc.tool != "read_only"); decoded != want {
			t.Errorf("Judge(%s %s) decoded %d times; want %d (once per judged call)", tc.tool, tc.args, decoded, want)
		}
	}
	// a predicate given arguments of another type revises, never allows
	v := g.Judge(l, "explode", "c2", json.RawMessage(`{}`))
	if !slices.Contains(v.Failed, "p.wrong_type") {
		t.Errorf("mistyped predicate: %+v", v)
	}
	// the panic is named, and is an infrastructure error, not the model's
	err := v.Err()
	if !strings.Contains(v.Harness, "p.panics panicked: boom") || !errors.Is(err, fault.ErrInfrastructure) || !errors.Is(err, ErrHarness) {
		t.Errorf("panicking predicate: harness %q err %v; want p.panics named and an infrastructure error", v.Harness, err)
	}
	if slices.Contains(v.Failed, "p.panics") {
		t.Errorf("panicking predicate listed as failed (a judgement): %+v", v.Failed)
	}
	if ok := g.Judge(l, "close", "c3", json.RawMessage(`{"id":"a"}`)); ok.Err() != nil || ok.Harness != "" {
		t.Errorf("allowed call has a harness error: %+v", ok)
	}
}

// TestDecoderPanicIsHarnessError: a decoder that panics judges nothing.
func TestDecoderPanicIsHarnessError(t *testing.T) {
	t.Parallel()
	g := NewGate(nil, []string{"w"}, func(string, json.RawMessage) (any, *Failure) { panic("decoder bug") })
	v := g.Judge(New(), "w", "c1", json.RawMessage(`{}`))
	if v.Decision != HarnessError || !strings.Contains(v.Harness, "decoder of w panicked: decoder bug") || v.Err() == nil {
		t.Errorf("Judge with a panicking decoder = %+v; want a harness error naming it", v)
	}
	if a := g.Decode("w", json.RawMessage(`{}`)); a != nil {
		t.Errorf("Decode with a panicking decoder = %v; want nil", a)
	}
}

// TestRule: a rule is named <domain>.<tool>.<rule>, sees the call's ledger,
// tool and decoded arguments, and revises arguments of another type.
func TestRule(t *testing.T) {
	t.Parallel()
	l := New()
	var seen Call[*closeArgs]
	p := Rule("shop", "close", "exists", "Closing", func(c Call[*closeArgs]) Outcome {
		seen = c
		return NeedRevise("read recs." + c.Args.ID + " first")
	})
	if p.ID != "shop.close.exists" || p.Tool != "close" || p.Clause != "Closing" {
		t.Errorf("rule = %+v", p)
	}
	if o := p.Check(l, &closeArgs{ID: "a"}); o.Reason != "read recs.a first" || seen.Ledger != l || seen.Tool != "close" || seen.Args.ID != "a" {
		t.Errorf("check = %+v, call %+v", o, seen)
	}
	if o := p.Check(l, &struct{}{}); o.Decision != Revise {
		t.Errorf("arguments of another type: %+v", o)
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func BenchmarkRender(b *testing.B) {
	l := New()
	for i := 0; i < 40; i++ {
		l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"r`+string(rune('a'+i%26))+string(rune('a'+i/26))+`","status":"open","amount":12.5}`)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = l.Render()
	}
}

// BenchmarkRenderAfterRead is the turn after a read: one entry stored, then
// the whole block rebuilt.
func BenchmarkRenderAfterRead(b *testing.B) {
	l := New()
	for i := 0; i < 40; i++ {
		l.Absorb(mapRouter{}, "get_rec", nil, `{"id":"r`+string(rune('a'+i%26))+string(rune('a'+i/26))+`","status":"open","amount":12.5}`)
	}
	v := &rec{ID: "new", Status: "open", Amount: 1}
	b.ReportAllocs()
	for b.Loop() {
		l.Put("recs.new", v)
		_ = l.Render()
	}
}
