package irma_test

import (
	"context"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/baseline"
	"github.com/ledgerbench/ledgerbench/internal/engine/irma"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// instant is a backbone that costs nothing: helper requests get a fixed
// checklist, agent turns a fixed reply. It is read-only, so safe for the
// concurrent helper calls.
type instant struct{ helper, agent llm.Response }

func (g *instant) Generate(_ context.Context, req llm.Request) (llm.Response, error) {
	if strings.HasPrefix(req.Messages[0].Content, irma.HelperMarker) {
		return g.helper, nil
	}
	return g.agent, nil
}

func newInstant() *instant {
	u := message.Usage{PromptTokens: 100, CompletionTokens: 10}
	return &instant{
		helper: llm.Response{Message: message.Message{Role: message.Assistant,
			Content: "- Authenticate the user by email or name and zip first.\n- Confirm the action and its details before any write.\n- Refund to the original payment method or an existing gift card."}, Usage: u},
		agent: llm.Response{Message: message.Message{Role: message.Assistant, Content: "Could you confirm the order id, please?"}, Usage: u},
	}
}

// script is a conversation of 8 agent turns: 3 after a user message, 5
// after tool results (retail-sized contents).
func script() [][]message.Message {
	user := func(s string) []message.Message { return []message.Message{{Role: message.User, Content: s}} }
	tool := func(id string) []message.Message {
		return []message.Message{{Role: message.Tool, ToolCallID: id, Requestor: message.ByAssistant,
			Content: `{"order_id": "#W2378156", "user_id": "yusuf_rossi_9620", "status": "delivered", "items": [{"name": "Headphones", "product_id": "6992792935", "item_id": "1151293680", "price": 258.97, "options": {"color": "black", "type": "over-ear"}}], "payment_history": [{"transaction_type": "payment", "amount": 1105.51, "payment_method_id": "credit_card_9513926"}]}`}}
	}
	return [][]message.Message{
		user("Hi, I'd like to exchange the headphones I got in my last order."),
		tool("c1"), tool("c2"),
		user("My email is yusuf.rossi7301@example.com, zip 19122."),
		tool("c3"),
		user("Yes, please go ahead with the exchange to the wireless ones."),
		tool("c4"), tool("c5"),
	}
}

func retail(b *testing.B) envs.Domain {
	b.Helper()
	dom, err := domains.Load("retail", datatest.Root(b))
	if err != nil {
		b.Fatal(err)
	}
	return dom
}

// BenchmarkConversation is the harness's cost of the 8-turn script with an
// instant backbone, for the baseline and for IRMA, agent construction
// excluded (see BenchmarkNew): IRMA's per-turn overhead excluding the model
// is the difference of the ns/turn metrics.
func BenchmarkConversation(b *testing.B) {
	dom := retail(b)
	gen := newInstant()
	opts := baseline.Options{Policy: dom.Policy(), Tools: dom.AgentTools(), Seed: ptr(1)}
	turns := script()
	makers := []struct {
		name string
		make func() orchestrator.Agent
	}{
		{"baseline", func() orchestrator.Agent { return baseline.New(gen, opts) }},
		{"irma", func() orchestrator.Agent { return irma.New(gen, irma.Options{Prompt: ownPrompt(), Options: opts}) }},
	}
	for _, m := range makers {
		b.Run(m.name, func(b *testing.B) {
			ctx := context.Background()
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				b.StopTimer()
				a := m.make()
				b.StartTimer()
				for _, in := range turns {
					if _, err := a.Next(ctx, in); err != nil {
						b.Fatal(err)
					}
				}
				n += len(turns)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/turn")
		})
	}
}

// BenchmarkNew is the cost of building an IRMA agent (the tool schemas are
// rendered once per agent).
func BenchmarkNew(b *testing.B) {
	dom := retail(b)
	gen := newInstant()
	opts := irma.Options{Prompt: ownPrompt(), Options: baseline.Options{Policy: dom.Policy(), Tools: dom.AgentTools()}}
	b.ReportAllocs()
	for b.Loop() {
		_ = irma.New(gen, opts)
	}
}

// BenchmarkBlock is the cost of rendering the reformulated input.
func BenchmarkBlock(b *testing.B) {
	memory := []string{"Hi, I'd like to exchange the headphones I got in my last order.",
		"My email is yusuf.rossi7301@example.com, zip 19122.", "Yes, please go ahead."}
	out := newInstant().helper.Message.Content
	b.ReportAllocs()
	for b.Loop() {
		_ = irma.Block(memory, out, out)
	}
}
