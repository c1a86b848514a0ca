package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	judgepkg "github.com/ledgerbench/ledgerbench/internal/engine/judge"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type promptOptions struct {
	DataDir       string
	Domain        string
	TaskID        string
	Agent         string
	Role          string
	Backbone      string
	BackbonesFile string
	Trial         int
	Seed          int64
	UserMessage   string
	UserStyle     string
	Retrieval     retrievalOptions
	// AllowModifiedData lets data files that differ from their pins through.
	AllowModifiedData bool
}

// Roles of the prompt command.
const (
	roleAgent = "agent"
	roleUser  = "user"
	roleJudge = "judge"
)

// placeholderUserMessage stands for the user simulator's first message in
// the agent's first request (the prompt command calls no model).
const placeholderUserMessage = "(the user simulator's first message)"

func newCmdPrompt(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *promptOptions) error) *cobra.Command {
	if runF == nil {
		runF = runPrompt
	}
	opts := &promptOptions{}
	cmd := &cobra.Command{
		Use:   "prompt --domain D --task ID [--agent A] [--role agent|user|judge]",
		Short: "Print the exact first request body a role would send, without calling a model",
		Long: `Print the JSON body of the first chat-completions request that run would send for
one task: the agent's (system prompt, greeting, the user's first message, tools,
tool_choice, seed and the backbone's sampling options), the user simulator's, or
the NL-assertion judge's. No model is called: the request goes to an in-process
stand-in. The user's first message is unknown without a model, so the agent's
request carries --user-message (a placeholder by default); the judge's is built
over the conversation greeting + that message.

The backbone (default gpt-4.1 of the backbones file) supplies the model name and
sampling options, as in run; no API key is needed.`,
		Example: `  ledgerbench prompt --domain airline --task 0
  ledgerbench prompt --domain telecom --task '[mms_issue]...' --role user
  ledgerbench prompt --domain retail --task 5 --agent ledger --backbone gpt-4.1`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Domain == "" || opts.TaskID == "" {
				return errext.Usage(errors.New("prompt needs --domain and --task"))
			}
			switch opts.Role {
			case roleAgent, roleUser, roleJudge:
			default:
				return errext.Usagef("--role %q: want agent, user or judge", opts.Role)
			}
			if err := opts.Retrieval.check(opts.Domain); err != nil {
				return err
			}
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Domain, "domain", "", "domain: "+strings.Join(domains.Names(), ", "))
	f.StringVar(&opts.TaskID, "task", "", "task id")
	f.StringVar(&opts.Agent, "agent", "baseline", "agent implementation: "+strings.Join(agents.AgentNames(), ", "))
	f.StringVar(&opts.Role, "role", roleAgent, "whose request: agent, user or judge")
	f.StringVar(&opts.Backbone, "backbone", "gpt-4.1", "backbone (a name in the backbones file) for every role")
	f.StringVar(&opts.BackbonesFile, "backbones", defaultBackbonesFile, "backbones file")
	f.IntVar(&opts.Trial, "trial", 0, "trial (selects the per-trial seed)")
	f.Int64Var(&opts.Seed, "seed", 300, "master seed, as in run")
	f.StringVar(&opts.UserMessage, "user-message", placeholderUserMessage, "the user's first message in the agent's and the judge's request")
	f.StringVar(&opts.UserStyle, "user-style", "", "user simulator: tau2, tau-trait or tau-bench (default as in run)")
	f.BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	addRetrievalFlags(f, &opts.Retrieval)
	return cmd
}

// captureTransport answers every request with a fixed reply and keeps the
// bodies; nothing leaves the process.
type captureTransport struct {
	mu     sync.Mutex
	bodies [][]byte
}

const cannedReply = `{"id":"prompt","object":"chat.completion","model":"prompt","choices":[{"index":0,"finish_reason":"stop","message":{"role":"assistant","content":"ok"}}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}`

func (c *captureTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	var body []byte
	if r.Body != nil {
		b, err := io.ReadAll(r.Body)
		r.Body.Close()
		if err != nil {
			return nil, err
		}
		body = b
	}
	c.mu.Lock()
	c.bodies = append(c.bodies, body)
	c.mu.Unlock()
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(strings.NewReader(cannedReply)), Request: r}, nil
}

func (c *captureTransport) first() ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.bodies) == 0 {
		return nil, false
	}
	return c.bodies[0], true
}

func runPrompt(ctx context.Context, s *Streams, opts *promptOptions) error {
	dom, _, err := loadDomain(opts.Retrieval.loader(), opts.Domain, opts.DataDir, opts.AllowModifiedData, s.ErrOut) // datacheck.go: as run loads it
	if err != nil {
		return err
	}
	sel, err := dom.Tasks().Select(tasks.Selection{Split: "all", TaskIDs: []string{opts.TaskID}})
	if err != nil {
		return errext.Usage(err)
	}
	if len(sel) != 1 {
		return errext.Usagef("task %q not found in %s", opts.TaskID, opts.Domain)
	}
	task := &sel[0]
	cfg, err := llm.Load(opts.BackbonesFile)
	if err != nil {
		return err
	}
	capture := &captureTransport{}
	// No request leaves the process, so any key will do.
	llmOpts := llm.Options{Transport: capture, LookupEnv: func(string) (string, bool) { return "offline", true }}
	judge := opts.Backbone
	if opts.Role != roleJudge {
		judge = agents.NoJudge
	}
	makers, j, err := agents.Build(ctx, agents.Options{Domain: dom, DataRoot: opts.DataDir, Agent: opts.Agent,
		Backbone: opts.Backbone, UserBackbone: opts.Backbone, JudgeBackbone: judge, BackbonesFile: opts.BackbonesFile,
		Pool: llm.NewPool(cfg, llmOpts), LLM: llmOpts, UserStyle: opts.UserStyle, NoPrepare: true})
	if err != nil {
		return err
	}
	seeds := runner.TrialSeeds(opts.Seed, opts.Trial+1)
	spec := runner.Spec{Domain: dom, Task: task, Trial: opts.Trial, Seed: seeds[opts.Trial]}
	greeting := message.Message{Role: message.Assistant, Content: makers.Greeting}
	user := message.Message{Role: message.User, Content: opts.UserMessage}
	switch opts.Role {
	case roleAgent:
		a, err := makers.Agent(spec)
		if err != nil {
			return err
		}
		if _, err := a.Next(ctx, []message.Message{greeting, user}); err != nil {
			return err
		}
	case roleUser:
		u, err := makers.User(spec)
		if err != nil {
			return err
		}
		if _, err := u.Next(ctx, []message.Message{greeting}); err != nil {
			return err
		}
	case roleJudge:
		c := task.EvaluationCriteria
		if c == nil || len(c.NLAssertions) == 0 {
			return errext.Usagef("task %s has no NL assertions: the judge is not called", task.ID)
		}
		if _, err := j.JudgeNL(ctx, []message.Message{greeting, user}, c.NLAssertions); err != nil && !errors.Is(err, judgepkg.ErrMalformed) {
			return err
		}
	}
	body, ok := capture.first()
	if !ok {
		return fmt.Errorf("the %s made no model request", opts.Role)
	}
	_, err = s.Out.Write(append(bytes.TrimSpace(body), '\n'))
	return err
}
