package tautrait

import (
	"context"

	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
)

// Generator makes one model call (*llm.Client and the offline backbones).
type Generator interface {
	Generate(ctx context.Context, req llm.Request) (llm.Response, error)
}

// AgentTemperature is ToolCallingAgent's temperature (run.py's
// --temperature default), the only sampling argument the agent sends.
const AgentTemperature = 0.0

// AgentGenerator adapts an agent's generator to τ-Trait's ToolCallingAgent:
// requests are written in τ-bench v1's dialect (no tool_choice, no seed,
// only the agent's own temperature; earlier replies and tool results as
// upstream sends them), and a reply keeps only its first tool call, so the
// agent's own history holds what upstream's does (tool_calls[:1]). Tool
// messages the agent added itself (a gate's feedback) get the name of the
// call they answer.
func AgentGenerator(gen Generator) Generator { return &agentGen{gen: gen} }

type agentGen struct{ gen Generator }

func (g *agentGen) Generate(ctx context.Context, req llm.Request) (llm.Response, error) {
	req.Dialect = llm.DialectTauBenchV1
	req.Seed = nil
	req.Messages = namedToolMessages(req.Messages)
	resp, err := g.gen.Generate(ctx, req)
	if err != nil {
		return resp, err
	}
	if len(resp.Message.ToolCalls) > 1 {
		resp.Message.ToolCalls = resp.Message.ToolCalls[:1:1]
	}
	return resp, nil
}

// Report forwards the wrapped generator's report (offline backbones).
func (g *agentGen) Report() any {
	if r, ok := g.gen.(interface{ Report() any }); ok {
		return r.Report()
	}
	return nil
}

// namedToolMessages returns msgs with a name on every tool message, taken
// from the tool call it answers; msgs is copied only when one lacks it.
func namedToolMessages(msgs []message.Message) []message.Message {
	var out []message.Message
	names := map[string]string{}
	for i, m := range msgs {
		for _, tc := range m.ToolCalls {
			names[tc.ID] = tc.Name
		}
		if m.Role != message.Tool || m.Name != "" {
			continue
		}
		if out == nil {
			out = append(make([]message.Message, 0, len(msgs)), msgs...)
		}
		out[i].Name = names[m.ToolCallID]
	}
	if out == nil {
		return msgs
	}
	return out
}
