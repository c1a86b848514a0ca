package results

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// Tau2Env is what an export needs from the domain beyond the run itself:
// the policy text and the tasks (both optional; without them the file holds
// an empty policy and no tasks).
type Tau2Env struct {
	Policy string
	Tasks  []tasks.Task
}

// τ²-bench's results JSON as written by an export: every key upstream's
// model dump has that ledgerbench can fill, nulls where it has nothing.
type tau2Out struct {
	Timestamp   string       `json:"timestamp"`
	Info        tau2Info     `json:"info"`
	Tasks       []tasks.Task `json:"tasks"`
	Simulations []tau2SimOut `json:"simulations"`
}

type tau2Info struct {
	GitCommit       string        `json:"git_commit"`
	NumTrials       int           `json:"num_trials"`
	MaxSteps        int           `json:"max_steps"`
	MaxErrors       int           `json:"max_errors"`
	UserInfo        tau2UserInfo  `json:"user_info"`
	AgentInfo       tau2AgentInfo `json:"agent_info"`
	EnvironmentInfo tau2EnvInfo   `json:"environment_info"`
	Seed            int64         `json:"seed"`
	// RetrievalConfig and RetrievalConfigKwargs are upstream's (for
	// banking_knowledge only; absent elsewhere).
	RetrievalConfig       string          `json:"retrieval_config,omitempty"`
	RetrievalConfigKwargs json.RawMessage `json:"retrieval_config_kwargs,omitempty"`
	// Ledgerbench is ledgerbench's own key (absent from upstream's files):
	// it keeps a sim run's "simulated" label through export and import.
	Ledgerbench *tau2Ledgerbench `json:"ledgerbench,omitempty"`
}

type tau2Ledgerbench struct {
	Simulated bool `json:"simulated"`
	// Trait is the records' user trait label (Record.Trait).
	Trait string `json:"trait,omitempty"`
}

type tau2UserInfo struct {
	Implementation             string         `json:"implementation"`
	LLM                        string         `json:"llm"`
	LLMArgs                    map[string]any `json:"llm_args"`
	GlobalSimulationGuidelines *string        `json:"global_simulation_guidelines"`
}

type tau2AgentInfo struct {
	Implementation string         `json:"implementation"`
	LLM            string         `json:"llm"`
	LLMArgs        map[string]any `json:"llm_args"`
}

type tau2EnvInfo struct {
	DomainName string          `json:"domain_name"`
	Policy     string          `json:"policy"`
	ToolDefs   json.RawMessage `json:"tool_defs"`
}

type tau2SimOut struct {
	ID                string         `json:"id"`
	TaskID            string         `json:"task_id"`
	Timestamp         string         `json:"timestamp"`
	StartTime         string         `json:"start_time"`
	EndTime           string         `json:"end_time"`
	Duration          float64        `json:"duration"`
	TerminationReason string         `json:"termination_reason"`
	AgentCost         *float64       `json:"agent_cost"` // null: unknown (no price)
	UserCost          *float64       `json:"user_cost"`
	RewardInfo        *tau2RewardOut `json:"reward_info"`
	Messages          []any          `json:"messages"`
	Trial             int            `json:"trial"`
	Seed              int64          `json:"seed"`
	Mode              string         `json:"mode"`
}

type tau2RewardOut struct {
	Reward            float64                       `json:"reward"`
	DBCheck           *evaluator.DBCheck            `json:"db_check"`
	EnvAssertions     []evaluator.EnvAssertionCheck `json:"env_assertions"`
	ActionChecks      []evaluator.ActionCheck       `json:"action_checks"`
	NLAssertions      []evaluator.NLCheck           `json:"nl_assertions"`
	CommunicateChecks []evaluator.CommunicateCheck  `json:"communicate_checks"`
	RewardBasis       []tasks.RewardType            `json:"reward_basis"`
	RewardBreakdown   map[tasks.RewardType]float64  `json:"reward_breakdown"`
	Info              map[string]any                `json:"info"`
}

type tau2ParticipantOut struct {
	Role      string            `json:"role"`
	Content   *string           `json:"content"`
	ToolCalls []tau2ToolCallOut `json:"tool_calls"`
	TurnIdx   int               `json:"turn_idx"`
	Timestamp string            `json:"timestamp"`
	Cost      float64           `json:"cost"`
	Usage     *tau2UsageOut     `json:"usage"`
	RawData   any               `json:"raw_data"`
}

type tau2ToolCallOut struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Requestor string          `json:"requestor"`
}

// tau2UsageOut is upstream's usage dict; prompt_tokens_details.cached_tokens
// (the provider's field, which upstream does not copy) is added when the
// cached count is known, so a file read back keeps it.
type tau2UsageOut struct {
	CompletionTokens    int               `json:"completion_tokens"`
	PromptTokens        int               `json:"prompt_tokens"`
	PromptTokensDetails *tau2PromptDetail `json:"prompt_tokens_details,omitempty"`
}

type tau2PromptDetail struct {
	CachedTokens int `json:"cached_tokens"`
}

type tau2ToolOut struct {
	ID        string `json:"id"`
	Role      string `json:"role"`
	Content   string `json:"content"`
	Requestor string `json:"requestor"`
	Error     bool   `json:"error"`
	TurnIdx   int    `json:"turn_idx"`
	Timestamp string `json:"timestamp"`
}

// Tau2Export converts a run to τ²-bench's results JSON (the Results model of src/tau2/data_model/simulation.py),
// indented as upstream writes it. Records are written in the order given.
func Tau2Export(m *Manifest, recs []Record, env Tau2Env) ([]byte, error) {
	out := tau2Out{
		Timestamp: m.CreatedAt,
		Info: tau2Info{
			GitCommit: "ledgerbench " + m.HarnessVersion,
			NumTrials: m.Trials,
			MaxSteps:  m.MaxSteps,
			MaxErrors: m.MaxErrors,
			UserInfo: tau2UserInfo{Implementation: "user_simulator", LLM: m.UserBackbone,
				LLMArgs: llmArgs(m, m.UserBackbone)},
			AgentInfo:             tau2AgentInfo{Implementation: m.Agent, LLM: m.Backbone, LLMArgs: llmArgs(m, m.Backbone)},
			EnvironmentInfo:       tau2EnvInfo{DomainName: m.Domain, Policy: env.Policy, ToolDefs: json.RawMessage("null")},
			Seed:                  m.Seed,
			RetrievalConfig:       m.RetrievalConfig,
			RetrievalConfigKwargs: m.RetrievalConfigKwargs,
		},
		Tasks:       env.Tasks,
		Simulations: make([]tau2SimOut, 0, len(recs)),
	}
	if m.Solo {
		// Upstream's names, so that its evaluate-trajs rescoring (and ours)
		// detects the solo mode.
		out.Info.AgentInfo.Implementation = SoloAgentImplementation
		out.Info.UserInfo = tau2UserInfo{Implementation: DummyUserImplementation, LLMArgs: map[string]any{}}
	}
	for i := range recs {
		if recs[i].Simulated || recs[i].Trait != "" {
			if out.Info.Ledgerbench == nil {
				out.Info.Ledgerbench = &tau2Ledgerbench{}
			}
			out.Info.Ledgerbench.Simulated = out.Info.Ledgerbench.Simulated || recs[i].Simulated
			out.Info.Ledgerbench.Trait = cmpOr(out.Info.Ledgerbench.Trait, recs[i].Trait)
		}
	}
	if out.Tasks == nil {
		out.Tasks = []tasks.Task{}
	}
	for i := range recs {
		out.Simulations = append(out.Simulations, tau2Sim(&recs[i]))
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		return nil, fmt.Errorf("export tau2: %w", err)
	}
	return buf.Bytes(), nil
}

// WriteTau2 writes a run as τ²-bench's results JSON to path.
func WriteTau2(path string, m *Manifest, recs []Record, env Tau2Env) error {
	b, err := Tau2Export(m, recs, env)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("export tau2: %w", err)
	}
	return nil
}

// llmArgs are the sampling arguments of a backbone as the manifest recorded
// them (temperature only, as upstream's default llm_args).
func llmArgs(m *Manifest, backbone string) map[string]any {
	args := map[string]any{}
	raw, ok := m.Backbones[backbone]
	if !ok {
		return args
	}
	var b struct {
		Temperature *float64 `json:"temperature"`
	}
	if json.Unmarshal(raw, &b) == nil && b.Temperature != nil {
		args["temperature"] = *b.Temperature
	}
	return args
}

func tau2Sim(r *Record) tau2SimOut {
	s := tau2SimOut{
		ID: r.ID, TaskID: r.TaskID, Timestamp: r.EndTime, StartTime: r.StartTime, EndTime: r.EndTime,
		Duration: r.Duration, TerminationReason: string(r.TerminationReason),
		AgentCost: knownCost(r, UnknownAgentCost, r.AgentCost), UserCost: knownCost(r, UnknownUserCost, r.UserCost),
		Trial: r.Trial, Seed: r.Seed, Mode: "half_duplex",
		Messages: make([]any, 0, len(r.Messages)),
	}
	if ri := r.RewardInfo; ri != nil {
		s.RewardInfo = tau2Reward(ri)
	}
	for _, m := range r.Messages {
		s.Messages = append(s.Messages, tau2Msg(m))
	}
	return s
}

// tau2Reward is a reward info as τ²-bench's RewardInfo dumps it; our notes
// and unevaluated components go under info.ledgerbench.
func tau2Reward(ri *evaluator.RewardInfo) *tau2RewardOut {
	out := &tau2RewardOut{
		Reward: ri.Reward, DBCheck: ri.DBCheck, EnvAssertions: ri.EnvAssertions, ActionChecks: ri.ActionChecks,
		NLAssertions: ri.NLAssertions, CommunicateChecks: ri.CommunicateChecks, RewardBasis: ri.RewardBasis,
		RewardBreakdown: ri.RewardBreakdown,
	}
	if len(ri.Notes) > 0 || len(ri.NotEvaluated) > 0 {
		out.Info = map[string]any{"ledgerbench": map[string]any{"notes": ri.Notes, "not_evaluated": ri.NotEvaluated}}
	}
	return out
}

// RewriteTau2Rewards returns a τ²-bench results file (data) with the
// reward_info of simulation i replaced by rewards[i] where that is not nil,
// every other key and value as the file has them, indented by two spaces
// as upstream writes results (evaluate-trajs' updated files).
func RewriteTau2Rewards(data []byte, rewards []*evaluator.RewardInfo) ([]byte, error) {
	var out bytes.Buffer
	out.WriteByte('{')
	n, sims := 0, 0
	err := pyjson.Object(data, func(key string, value []byte) error {
		if n > 0 {
			out.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		if key != "simulations" {
			out.Write(value)
			return nil
		}
		out.WriteByte('[')
		err := pyjson.Array(value, func(i int, sim []byte) error {
			sims++
			if i > 0 {
				out.WriteByte(',')
			}
			if i >= len(rewards) || rewards[i] == nil {
				out.Write(sim)
				return nil
			}
			b, err := rewriteReward(sim, rewards[i])
			if err != nil {
				return fmt.Errorf("simulation %d: %w", i, err)
			}
			out.Write(b)
			return nil
		})
		out.WriteByte(']')
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("rewrite τ²-bench results: %w", err)
	}
	out.WriteByte('}')
	if sims < len(rewards) {
		return nil, fmt.Errorf("rewrite τ²-bench results: %d rewards for %d simulations", len(rewards), sims)
	}
	var ind bytes.Buffer
	if err := json.Indent(&ind, out.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("rewrite τ²-bench results: %w", err)
	}
	ind.WriteByte('\n')
	return ind.Bytes(), nil
}

// rewriteReward returns one simulation object (compact) with its
// reward_info replaced by ri's upstream form (added when it has none).
func rewriteReward(sim []byte, ri *evaluator.RewardInfo) ([]byte, error) {
	var rbuf bytes.Buffer
	enc := json.NewEncoder(&rbuf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(tau2Reward(ri)); err != nil {
		return nil, fmt.Errorf("reward_info: %w", err)
	}
	rb := bytes.TrimSpace(rbuf.Bytes())
	var out bytes.Buffer
	out.WriteByte('{')
	m, seen := 0, false
	err := pyjson.Object(sim, func(key string, value []byte) error {
		if m > 0 {
			out.WriteByte(',')
		}
		m++
		k, _ := json.Marshal(key)
		out.Write(k)
		out.WriteByte(':')
		if key == "reward_info" {
			seen = true
			value = rb
		}
		out.Write(value)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !seen {
		if m > 0 {
			out.WriteByte(',')
		}
		out.WriteString(`"reward_info":`)
		out.Write(rb)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// knownCost is the cost, nil (null, as upstream writes a cost it could not
// compute) when the record has it unknown.
func knownCost(r *Record, field string, x float64) *float64 {
	if r.IsUnknown(field) {
		return nil
	}
	return &x
}

func tau2Msg(m message.Message) any {
	if m.Role == message.Tool {
		req := string(m.Requestor)
		if req == "" {
			req = string(message.ByAssistant)
		}
		return tau2ToolOut{ID: m.ToolCallID, Role: "tool", Content: m.Content, Requestor: req, Error: m.Error,
			TurnIdx: m.TurnIdx, Timestamp: m.Timestamp}
	}
	out := tau2ParticipantOut{Role: string(m.Role), TurnIdx: m.TurnIdx, Timestamp: m.Timestamp, Cost: m.Cost}
	if m.Content != "" || !m.IsToolCall() {
		c := m.Content
		out.Content = &c
	}
	if u := m.Usage; u != nil {
		out.Usage = &tau2UsageOut{CompletionTokens: u.CompletionTokens, PromptTokens: u.PromptTokens}
		if u.CacheUnknown == 0 {
			out.Usage.PromptTokensDetails = &tau2PromptDetail{CachedTokens: u.CachedTokens}
		}
	}
	for _, tc := range m.ToolCalls {
		req := string(tc.Requestor)
		if req == "" {
			req = string(m.Role)
		}
		out.ToolCalls = append(out.ToolCalls, tau2ToolCallOut{ID: tc.ID, Name: tc.Name, Arguments: objectOrEmpty(tc.Arguments), Requestor: req})
	}
	return out
}

// objectOrEmpty returns args when they are a JSON object; upstream's
// arguments are always a dict, so anything else (malformed arguments kept as
// a string) is exported as {}.
func objectOrEmpty(args json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(args)
	if len(t) > 0 && t[0] == '{' && json.Valid(t) {
		return t
	}
	return json.RawMessage("{}")
}

// tau2InfoIn is the part of a results file's info an import reads.
type tau2InfoIn struct {
	NumTrials int `json:"num_trials"`
	MaxSteps  int `json:"max_steps"`
	MaxErrors int `json:"max_errors"`
	UserInfo  struct {
		Implementation string `json:"implementation"`
		LLM            string `json:"llm"`
	} `json:"user_info"`
	AgentInfo struct {
		Implementation string `json:"implementation"`
		LLM            string `json:"llm"`
	} `json:"agent_info"`
	EnvironmentInfo struct {
		DomainName string `json:"domain_name"`
		Policy     string `json:"policy"`
	} `json:"environment_info"`
	Seed            *int64           `json:"seed"`
	RetrievalConfig *string          `json:"retrieval_config"`
	Ledgerbench     *tau2Ledgerbench `json:"ledgerbench"`
}

// Tau2Meta is what a τ²-bench results file says about its run.
type Tau2Meta struct {
	Domain       string
	Agent        string
	Backbone     string
	UserBackbone string
	Trials       int
	MaxSteps     int
	MaxErrors    int
	Seed         int64
	Policy       string
	// RetrievalConfig is banking_knowledge's retrieval variant (info's
	// retrieval_config; "" when the file has none).
	RetrievalConfig string
	// Simulated marks a ledgerbench export of a sim-backbone run; Trait is
	// a ledgerbench export's user trait label.
	Simulated bool
	Trait     string
}

// Meta reads the run description from the file's info.
func (f *Tau2File) Meta() (Tau2Meta, error) {
	var in tau2InfoIn
	if len(f.Info) > 0 {
		if err := json.Unmarshal(f.Info, &in); err != nil {
			return Tau2Meta{}, fmt.Errorf("results info: %w", err)
		}
	}
	m := Tau2Meta{Domain: in.EnvironmentInfo.DomainName, Agent: in.AgentInfo.Implementation,
		Backbone: in.AgentInfo.LLM, UserBackbone: in.UserInfo.LLM, Trials: in.NumTrials,
		MaxSteps: in.MaxSteps, MaxErrors: in.MaxErrors, Policy: in.EnvironmentInfo.Policy}
	if in.Seed != nil {
		m.Seed = *in.Seed
	}
	if lb := in.Ledgerbench; lb != nil {
		m.Simulated, m.Trait = lb.Simulated, lb.Trait
	}
	if in.RetrievalConfig != nil {
		m.RetrievalConfig = *in.RetrievalConfig
	}
	return m, nil
}

// FromTau2 converts a τ²-bench results file's simulations to records, so
// reports and rescoring work on recorded runs. Reward info is decoded into
// the evaluator's RewardInfo (upstream's "info" notes are dropped).
func FromTau2(f *Tau2File) ([]Record, error) {
	meta, err := f.Meta()
	if err != nil {
		return nil, err
	}
	out := make([]Record, 0, len(f.Simulations))
	for i, s := range f.Simulations {
		r := Record{
			ID: s.ID, TaskID: s.TaskID, Trial: s.Trial, Domain: meta.Domain, Agent: meta.Agent,
			Backbone: meta.Backbone, UserBackbone: meta.UserBackbone,
			TerminationReason: evaluator.Termination(s.TerminationReason),
			Messages:          s.Trajectory(), StartTime: s.StartTime, EndTime: s.EndTime, Duration: s.Duration,
			Simulated: meta.Simulated, Trait: meta.Trait,
		}
		if s.Seed != nil {
			r.Seed = *s.Seed
		}
		// What the file does not record is unknown, not 0: a null cost, a
		// role's usage when none of its messages carries any, the judge's
		// usage and cost where it judged NL assertions (a results file never
		// holds them).
		if s.AgentCost != nil {
			r.AgentCost = *s.AgentCost
		} else {
			r.MarkUnknown(UnknownAgentCost)
		}
		if s.UserCost != nil {
			r.UserCost = *s.UserCost
		} else {
			r.MarkUnknown(UnknownUserCost)
		}
		if s.RewardInfo != nil && len(s.RewardInfo.Raw) > 0 && string(s.RewardInfo.Raw) != "null" {
			var ri evaluator.RewardInfo
			if err := json.Unmarshal(s.RewardInfo.Raw, &ri); err != nil {
				return nil, fmt.Errorf("simulation %d (task %s): reward_info: %w", i, s.TaskID, err)
			}
			// What a ledgerbench export keeps in info: the notes and the
			// components not evaluated (NL assertions not judged).
			var own struct {
				Info struct {
					Ledgerbench struct {
						Notes        []string           `json:"notes"`
						NotEvaluated []tasks.RewardType `json:"not_evaluated"`
					} `json:"ledgerbench"`
				} `json:"info"`
			}
			if json.Unmarshal(s.RewardInfo.Raw, &own) == nil {
				if len(ri.NotEvaluated) == 0 {
					ri.NotEvaluated = own.Info.Ledgerbench.NotEvaluated
				}
				if len(ri.Notes) == 0 {
					ri.Notes = own.Info.Ledgerbench.Notes
				}
			}
			r.RewardInfo = &ri
			if len(ri.NLAssertions) > 0 {
				r.MarkUnknown(UnknownJudgeUsage)
				r.MarkUnknown(UnknownJudgeCost)
			}
		}
		var agentMsgs, userMsgs int
		for _, m := range r.Messages {
			switch m.Role {
			case message.Assistant:
				agentMsgs++
			case message.User:
				userMsgs++
			}
			switch {
			case m.Role == message.Assistant && m.Usage != nil:
				r.AgentUsage = r.AgentUsage.Add(*m.Usage)
				r.AgentCalls++
			case m.Role == message.User && m.Usage != nil:
				r.UserUsage = r.UserUsage.Add(*m.Usage)
				r.UserCalls++
			}
			if m.Role == message.Tool && m.Error {
				r.NumErrors++
			}
		}
		if agentMsgs > 0 && r.AgentCalls == 0 {
			r.MarkUnknown(UnknownAgentUsage)
		}
		if userMsgs > 0 && r.UserCalls == 0 {
			r.MarkUnknown(UnknownUserUsage)
		}
		out = append(out, r)
	}
	return out, nil
}

// Tau2Tasks decodes the tasks a results file embeds.
func (f *Tau2File) Tau2Tasks(name string) ([]tasks.Task, error) {
	if len(f.Tasks) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteByte('[')
	for i, t := range f.Tasks {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(t)
	}
	b.WriteByte(']')
	return tasks.Parse(name, []byte(b.String()))
}

// TauTraitUser is the implementation name a τ-Trait user simulator reports
// in a record's user_info.
const TauTraitUser = "tau_trait_user"
