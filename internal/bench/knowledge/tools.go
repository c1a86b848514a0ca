package knowledge

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/pyschema"
)

// The retrieval tools of retrieval_mixins.py, over a domain's simulation
// state S. Each takes its arguments as json.loads hands them to upstream
// (tool.Value) and fails where upstream's code does, with its exception
// text; an endpoint's or the sandbox's failure is returned wrapping
// fault.ErrInfrastructure and is no tool result. Descriptions and schemas
// are read from the pulled retrieval_mixins.py (Source). A composed toolkit
// lists its mixins' tools before KnowledgeTools' (upstream's ToolKitType
// walks the MRO): KB_search, grep; KB_search_bm25, KB_search_dense, shell.

// Mixin classes and their tools.
const (
	KBSearchName      = "KB_search"
	GrepName          = "grep"
	KBSearchBM25Name  = "KB_search_bm25"
	KBSearchDenseName = "KB_search_dense"
	ShellName         = "shell"
)

var mixinClass = map[string]string{
	KBSearchName:      "KBSearchMixin",
	GrepName:          "GrepMixin",
	KBSearchBM25Name:  "KBSearchBm25AllToolsMixin",
	KBSearchDenseName: "KBSearchDenseAllToolsMixin",
	ShellName:         "ShellMixin",
}

type queryArgs struct {
	Query tool.StrValue `json:"query"`
}

type patternArgs struct {
	Pattern tool.StrValue `json:"pattern"`
}

type queryKArgs struct {
	Query tool.StrValue `json:"query"`
	K     tool.IntValue `json:"k,omitempty"`
}

type commandArgs struct {
	Command tool.StrValue `json:"command"`
}

// KBSearchTool is KB_search over p (KBSearchMixin).
func KBSearchTool[S any](src *Source, p *Pipeline) (tool.Tool[S], error) {
	return described(src, tool.New(KBSearchName, tool.Read, "", func(ctx context.Context, _ S, a queryArgs) (any, error) {
		r, err := p.Retrieve(ctx, a.Query.V, nil)
		if err != nil {
			return nil, err
		}
		return p.FormatResult(r), nil
	}))
}

// GrepTool is grep over p, a grep pipeline (GrepMixin).
func GrepTool[S any](src *Source, p *Pipeline) (tool.Tool[S], error) {
	return described(src, tool.New(GrepName, tool.Read, "", func(ctx context.Context, _ S, a patternArgs) (any, error) {
		r, err := p.Retrieve(ctx, a.Pattern.V, nil)
		if err != nil {
			return nil, err
		}
		return p.FormatGrep(a.Pattern.Text(), r), nil
	}))
}

// KBSearchBM25Tool is KB_search_bm25 over p (KBSearchBm25AllToolsMixin).
func KBSearchBM25Tool[S any](src *Source, p *Pipeline) (tool.Tool[S], error) {
	return described(src, tool.New(KBSearchBM25Name, tool.Read, "", kWrapped[S](p)))
}

// KBSearchDenseTool is KB_search_dense over p (KBSearchDenseAllToolsMixin).
func KBSearchDenseTool[S any](src *Source, p *Pipeline) (tool.Tool[S], error) {
	return described(src, tool.New(KBSearchDenseName, tool.Read, "", kWrapped[S](p)))
}

func kWrapped[S any](p *Pipeline) tool.Func[S, queryKArgs] {
	return func(ctx context.Context, _ S, a queryKArgs) (any, error) {
		r, err := p.Retrieve(ctx, a.Query.V, a.K.Or(json.Number("10")))
		if err != nil {
			return nil, err
		}
		return p.FormatResult(r), nil
	}
}

// ShellTool is shell (ShellMixin) over the simulation's sandbox session
// (nil: upstream's "Sandbox not initialized" answer).
func ShellTool[S any](src *Source, session func(S) *Session) (tool.Tool[S], error) {
	return described(src, tool.New(ShellName, tool.Read, "", func(ctx context.Context, s S, a commandArgs) (any, error) {
		return shellOutput(ctx, session(s), a.Command.V)
	}))
}

// described gives t the description and schema of its upstream mixin.
func described[S any](src *Source, t tool.Tool[S]) (tool.Tool[S], error) {
	class := mixinClass[t.Name]
	kit, err := pyschema.NewToolkit(src.mixins, class)
	if err != nil {
		return t, err
	}
	t = t.WithClass(class)
	set, err := tool.NewSet(class, t).Described(kit)
	if err != nil {
		return t, fmt.Errorf("%s: %w", src.mixins.Path, err)
	}
	t.Info = set.Infos()[0]
	return t, nil
}

// shellOutput is ShellMixin.shell's answer for a command.
func shellOutput(ctx context.Context, se *Session, command any) (string, error) {
	if se == nil {
		return "Error: Sandbox not initialized", nil
	}
	c, ok := command.(string)
	if !ok { // re.sub on the command raises
		return "", fmt.Errorf("expected string or bytes-like object, got '%s'", pyjson.TypeName(command))
	}
	code, stdout, stderr, err := se.Run(ctx, c)
	if err != nil {
		return "", err
	}
	if code != 0 {
		if code == 1 && strings.Contains(c, "grep") && stderr == "" {
			return "No matches found.", nil
		}
		if stderr != "" {
			return fmt.Sprintf("Error (exit code %d): %s", code, stderr), nil
		}
		return fmt.Sprintf("Command failed with exit code %d", code), nil
	}
	if stdout == "" {
		return "(no output)", nil
	}
	return stdout, nil
}
