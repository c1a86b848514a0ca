package ledgeragent_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/ledgeragent"
)

// The two placements send the same ledger text: appended to the system
// message, or as a system message after the history that leaves the system
// message and the history unchanged (a stable prefix).
func TestLedgerPlacement(t *testing.T) {
	t.Parallel()
	in := []message.Message{{Role: message.User, Content: "pay #O1"}}
	read := []message.Message{{Role: message.Tool, ToolCallID: "r1", Content: `{"order_id": "#O1", "user_id": "u", "status": "pending"}`}}
	replies := func() []message.Message {
		return []message.Message{{ToolCalls: []message.ToolCall{call("r1", "get_order_details", `{"order_id": "#O1"}`)}}, {Content: "done"}}
	}
	run := func(p ledgeragent.Placement) *gen {
		g := &gen{replies: replies()}
		a := newAgent(t, g, ledgeragent.LedgerOnly)
		a.Placement = p
		if _, err := a.Next(context.Background(), in); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Next(context.Background(), read); err != nil {
			t.Fatal(err)
		}
		return g
	}
	sys, tail := run(ledgeragent.PlacementSystem), run(ledgeragent.PlacementTail)
	if len(sys.reqs) != 2 || len(tail.reqs) != 2 {
		t.Fatalf("%d and %d requests; want 2 each", len(sys.reqs), len(tail.reqs))
	}
	// The first request has no ledger yet: both are the baseline's.
	if len(sys.reqs[0].Messages) != len(tail.reqs[0].Messages) || sys.reqs[0].Messages[0].Content != tail.reqs[0].Messages[0].Content {
		t.Errorf("first requests differ before any ledger entry")
	}
	s, tl := sys.reqs[1].Messages, tail.reqs[1].Messages
	if len(tl) != len(s)+1 {
		t.Fatalf("tail request has %d messages; want the system placement's %d + 1", len(tl), len(s))
	}
	last := tl[len(tl)-1]
	if last.Role != message.System || !strings.Contains(last.Content, "<ledger>") {
		t.Fatalf("tail request ends with %s %q; want the ledger as a system message", last.Role, last.Content)
	}
	if tl[0].Content != tail.reqs[0].Messages[0].Content {
		t.Errorf("tail placement changed the system message")
	}
	for i := 1; i < len(s); i++ {
		if s[i].Content != tl[i].Content || s[i].Role != tl[i].Role {
			t.Errorf("message %d differs between placements: %q / %q", i, s[i].Content, tl[i].Content)
		}
	}
	if s[0].Content != tl[0].Content+"\n"+last.Content {
		t.Errorf("system placement's system message is not the prompt + \\n + the tail's ledger text:\n%q\n%q", s[0].Content, last.Content)
	}
}

func TestParsePlacement(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in   string
		want ledgeragent.Placement
		err  bool
	}{{"", ledgeragent.PlacementSystem, false}, {"system", ledgeragent.PlacementSystem, false}, {"tail", ledgeragent.PlacementTail, false}, {"head", "", true}} {
		t.Run(tc.in, func(t *testing.T) {
			t.Parallel()
			got, err := ledgeragent.ParsePlacement(tc.in)
			if got != tc.want || (err != nil) != tc.err {
				t.Errorf("ParsePlacement(%q) = %q, %v; want %q (error %v)", tc.in, got, err, tc.want, tc.err)
			}
		})
	}
}
