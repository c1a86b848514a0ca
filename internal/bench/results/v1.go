package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// V1Result is one entry of a τ-bench (v1) or τ-Trait results list: the
// EnvRunResult {task_id, reward, info, traj, trial} those harnesses dump.
type V1Result struct {
	TaskID V1TaskID        `json:"task_id"`
	Reward float64         `json:"reward"`
	Info   json.RawMessage `json:"info"`
	Traj   []V1Message     `json:"traj"`
	Trial  int             `json:"trial"`
}

// UnmarshalJSON decodes an entry and requires its task_id and reward: a list
// of other objects (a tasks.json, say) is not a results list.
func (res *V1Result) UnmarshalJSON(data []byte) error {
	type plain V1Result
	var p struct {
		plain
		TaskID *V1TaskID `json:"task_id"`
		Reward *float64  `json:"reward"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return err
	}
	if p.TaskID == nil || p.Reward == nil {
		return errNotV1Entry
	}
	*res = V1Result(p.plain)
	res.TaskID, res.Reward = *p.TaskID, *p.Reward
	return nil
}

// errNotV1Entry is a list entry without the task_id and reward every
// EnvRunResult has.
var errNotV1Entry = errors.New(`an entry without "task_id" and "reward"`)

// V1TaskID is a task index written as a number (upstream) or a string.
type V1TaskID string

// UnmarshalJSON accepts a JSON number or string.
func (id *V1TaskID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		var s string
		if err := json.Unmarshal(data, &s); err != nil {
			return err
		}
		*id = V1TaskID(s)
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(data, &n); err != nil {
		return fmt.Errorf("task_id: want a number or a string: %w", err)
	}
	*id = V1TaskID(n.String())
	return nil
}

// V1Message is a message of a v1 trajectory (OpenAI chat format).
type V1Message struct {
	Role       string       `json:"role"`
	Content    *string      `json:"content"`
	ToolCalls  []V1ToolCall `json:"tool_calls"`
	ToolCallID string       `json:"tool_call_id"`
	Name       string       `json:"name"`
}

// V1ToolCall is an OpenAI tool call: arguments are a JSON string.
type V1ToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// v1Info is the part of a result's info ledgerbench reads.
type v1Info struct {
	Task *struct {
		Actions []struct {
			Name   string          `json:"name"`
			Kwargs json.RawMessage `json:"kwargs"`
		} `json:"actions"`
		Outputs []string `json:"outputs"`
	} `json:"task"`
	UserCost   *float64 `json:"user_cost"`
	RewardInfo *struct {
		Reward float64 `json:"reward"`
		Info   struct {
			RActions *pyBool         `json:"r_actions"`
			ROutputs *float64        `json:"r_outputs"`
			Outputs  json.RawMessage `json:"outputs"`
		} `json:"info"`
	} `json:"reward_info"`
	Error string `json:"error"`
}

// pyBool reads a Python bool dumped as true/false or as a number.
type pyBool bool

func (b *pyBool) UnmarshalJSON(data []byte) error {
	switch s := string(bytes.TrimSpace(data)); s {
	case "true":
		*b = true
	case "false", "null":
		*b = false
	default:
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("want a bool: %s", s)
		}
		*b = f != 0
	}
	return nil
}

// V1Labels are the labels records of a v1 results list get; empty fields are
// derived from the file name (see V1LabelsFromName) or the trajectory.
type V1Labels struct {
	Domain       string
	Agent        string
	Backbone     string
	UserBackbone string
	// Trait is the user's trait (τ-Trait's published files are named after
	// it: confusion_telehealth.json; "none" is no trait).
	Trait string
}

// τ-bench / τ-Trait checkpoint names:
// {strategy}-{model}-{temperature}_range_{start}-{end}_user-{user model}-{user strategy}_{time}.json
var v1Checkpoint = regexp.MustCompile(`^(tool-calling|act|react|few-shot)-(.+)-([0-9.]+)_range_(-?\d+)-(-?\d+)_user-(.+)-(llm|react|verify|reflection|human)_(.+)$`)

// V1LabelsFromName derives labels from a results file name: τ-bench's
// historical "<model>-<domain>.json" (gpt-4o-airline.json), or the checkpoint
// name τ-bench and τ-Trait write
// ("tool-calling-gpt-4o-0.0_range_0-50_user-gpt-4o-llm_<time>.json", which
// names no domain). The tool-calling strategy is the baseline agent; other
// strategies keep their name.
func V1LabelsFromName(path string) V1Labels {
	name := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	if m := v1Checkpoint.FindStringSubmatch(name); m != nil {
		l := V1Labels{Agent: m[1], Backbone: m[2], UserBackbone: m[6]}
		if l.Agent == "tool-calling" {
			l.Agent = "baseline"
		}
		return l
	}
	for _, d := range known.Bases() { // the domains a v1 file can be about
		if model, ok := strings.CutSuffix(name, "-"+d); ok && model != "" {
			return V1Labels{Domain: d, Agent: "baseline", Backbone: model}
		}
		// τ-Trait's published trajectories: {trait}_{domain} or
		// {domain}_{trait}, by its tool-calling agent.
		for _, t := range append(known.Traits(), "none") {
			if name == t+"_"+d || name == d+"_"+t {
				l := V1Labels{Domain: d, Agent: "baseline"}
				if t != "none" {
					l.Trait = t
				}
				return l
			}
		}
	}
	return V1Labels{}
}

// ReadV1 reads a τ-bench v1 / τ-Trait results list as records. Labels left
// empty come from the file name, then (the domain) from the policy heading of
// the first trajectory's system message.
func ReadV1(path string, labels V1Labels) ([]Record, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	fromName := V1LabelsFromName(path)
	labels.Domain = cmpOr(labels.Domain, fromName.Domain)
	labels.Agent = cmpOr(labels.Agent, fromName.Agent)
	labels.Backbone = cmpOr(labels.Backbone, fromName.Backbone)
	labels.UserBackbone = cmpOr(labels.UserBackbone, fromName.UserBackbone)
	labels.Trait = cmpOr(labels.Trait, fromName.Trait)
	recs, err := ParseV1(data, labels)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return recs, nil
}

// ParseV1 decodes a results list. The trajectory becomes τ²-bench-style
// messages (the system prompt dropped, tool errors marked); the reward info
// gets a DB check (r_actions), communicate checks (outputs), the gold actions
// as action checks matched against the trajectory's calls with τ²-bench's
// rule, and the basis [DB, COMMUNICATE]. Entries that hold an exception
// (info.error) are infrastructure errors; a run that never finished (no
// reward info) ended at the step limit.
func ParseV1(data []byte, labels V1Labels) ([]Record, error) {
	var list []V1Result
	if err := json.Unmarshal(data, &list); err != nil {
		var te *json.UnmarshalTypeError
		switch {
		case errors.Is(err, errNotV1Entry):
			return nil, fmt.Errorf("%w: a JSON list whose entries are not τ-bench v1 results ({task_id, reward, info, traj, trial}): %w", ErrNotResults, err)
		case errors.As(err, &te) && te.Field == "":
			return nil, fmt.Errorf("%w: a JSON list of %ss, not of τ-bench v1 results ({task_id, reward, info, traj, trial})", ErrNotResults, te.Value)
		}
		return nil, fmt.Errorf("not a τ-bench v1 results list: %w", errext.JSON(err))
	}
	if labels.Domain == "" {
		labels.Domain = v1DomainOf(list)
	}
	out := make([]Record, 0, len(list))
	for i, res := range list {
		rec, err := res.Record(labels)
		if err != nil {
			return nil, fmt.Errorf("entry %d (task %s trial %d): %w", i, res.TaskID, res.Trial, err)
		}
		out = append(out, rec)
	}
	return out, nil
}

// v1DomainOf finds a known domain name in the first system message (the
// policy's heading, e.g. "# Airline Agent Policy").
func v1DomainOf(list []V1Result) string {
	for _, r := range list {
		for _, m := range r.Traj {
			if m.Role != "system" || m.Content == nil {
				continue
			}
			head, _, _ := strings.Cut(strings.TrimSpace(*m.Content), "\n")
			head = strings.ToLower(head)
			for _, d := range known.Bases() { // the domains a v1 file can be about
				if strings.Contains(head, d) {
					return d
				}
			}
			return ""
		}
	}
	return ""
}

// Record converts one result.
func (res V1Result) Record(labels V1Labels) (Record, error) {
	rec := Record{
		ID:           fmt.Sprintf("v1-%s-%d", res.TaskID, res.Trial),
		TaskID:       string(res.TaskID),
		Trial:        res.Trial,
		Domain:       labels.Domain,
		Agent:        labels.Agent,
		Backbone:     labels.Backbone,
		UserBackbone: labels.UserBackbone,
		Trait:        labels.Trait,
	}
	var info v1Info
	if len(res.Info) > 0 && string(res.Info) != "null" {
		if err := json.Unmarshal(res.Info, &info); err != nil {
			return rec, fmt.Errorf("info: %w", err)
		}
	}
	// A v1 list records no usage and no agent cost; the user's cost when
	// the harness wrote one. Its reward has no judge (nothing to pay).
	rec.Unknown = []string{UnknownAgentCost, UnknownAgentUsage, UnknownUserUsage}
	if info.UserCost != nil {
		rec.UserCost = *info.UserCost
	} else {
		rec.MarkUnknown(UnknownUserCost)
	}
	msgs, err := v1Messages(res.Traj)
	if err != nil {
		return rec, err
	}
	rec.Messages = msgs
	if info.Error != "" {
		rec.TerminationReason = evaluator.InfrastructureError
		rec.Error = info.Error
		return rec, nil
	}
	ri := &evaluator.RewardInfo{Reward: res.Reward, RewardBasis: []tasks.RewardType{tasks.RewardDB, tasks.RewardCommunicate}}
	rec.RewardInfo = ri
	switch {
	case info.RewardInfo == nil:
		rec.TerminationReason = evaluator.MaxSteps
		ri.RewardBasis = nil
		ri.Notes = []string{"Simulation terminated prematurely. Termination reason: max_steps"}
	case endsWithTerminate(msgs):
		rec.TerminationReason = evaluator.AgentStop
	default:
		rec.TerminationReason = evaluator.UserStop
	}
	if info.RewardInfo != nil {
		ri.Reward = info.RewardInfo.Reward
		v1Checks(ri, &info, msgs)
	}
	if info.Task != nil {
		calls := trajectoryCalls(msgs)
		for i, a := range info.Task.Actions {
			if a.Name == "respond" {
				continue
			}
			args := a.Kwargs
			if len(args) == 0 || string(args) == "null" {
				args = json.RawMessage("{}")
			}
			act := tasks.Action{ActionID: strconv.Itoa(i), Requestor: string(message.ByAssistant), Name: a.Name, Arguments: args}
			check := evaluator.ActionCheck{Action: act, ActionMatch: anyMatch(calls, act)}
			if check.ActionMatch {
				check.ActionReward = 1
			}
			ri.ActionChecks = append(ri.ActionChecks, check)
		}
	}
	return rec, nil
}

// v1Checks fills the DB check and communicate checks from v1's reward info:
// r_actions is the DB-hash comparison; when the task has outputs the info
// holds the outputs instead, and the DB result follows from the reward.
func v1Checks(ri *evaluator.RewardInfo, info *v1Info, msgs []message.Message) {
	r := info.RewardInfo.Info
	db := func(match bool) {
		ri.DBCheck = &evaluator.DBCheck{DBMatch: match}
		if match {
			ri.DBCheck.DBReward = 1
		}
	}
	if r.RActions != nil {
		db(bool(*r.RActions))
	}
	if len(r.Outputs) == 0 || string(r.Outputs) == "null" {
		return
	}
	v, err := pyjson.Decode(r.Outputs)
	d, ok := v.(*pyjson.Dict)
	if err != nil || !ok {
		return
	}
	allMet := true
	for i, k := range d.Keys {
		met, _ := d.Values[i].(bool)
		allMet = allMet && met
		c := evaluator.CommunicateCheck{Info: k, Met: met, Justification: "Information not communicated."}
		if met {
			c.Justification = "Information communicated."
		}
		ri.CommunicateChecks = append(ri.CommunicateChecks, c)
	}
	if r.RActions == nil && (allMet || evaluator.Success(ri.Reward)) {
		db(evaluator.Success(ri.Reward))
	}
}

// v1Messages converts a v1 trajectory, dropping the system prompt.
func v1Messages(traj []V1Message) ([]message.Message, error) {
	out := make([]message.Message, 0, len(traj))
	for _, m := range traj {
		if m.Role == "system" {
			continue
		}
		msg := message.Message{Role: message.Role(m.Role), TurnIdx: len(out)}
		if m.Content != nil {
			msg.Content = *m.Content
		}
		switch m.Role {
		case "tool":
			msg.ToolCallID = m.ToolCallID
			msg.Requestor = message.ByAssistant
			msg.Error = strings.HasPrefix(msg.Content, "Error: ")
		case "assistant":
			for _, tc := range m.ToolCalls {
				args := json.RawMessage(tc.Function.Arguments)
				if strings.TrimSpace(tc.Function.Arguments) == "" {
					args = json.RawMessage("{}")
				} else if !json.Valid(args) {
					return nil, fmt.Errorf("tool call %s: arguments are not JSON: %q", tc.ID, tc.Function.Arguments)
				}
				msg.ToolCalls = append(msg.ToolCalls, message.ToolCall{ID: tc.ID, Name: tc.Function.Name, Arguments: args, Requestor: message.ByAssistant})
			}
		case "user":
		default:
			return nil, fmt.Errorf("unknown message role %q", m.Role)
		}
		out = append(out, msg)
	}
	return out, nil
}

// endsWithTerminate reports whether the last message is a result of a
// transfer tool, the only tool that ends a v1 episode.
func endsWithTerminate(msgs []message.Message) bool {
	if len(msgs) < 2 || msgs[len(msgs)-1].Role != message.Tool {
		return false
	}
	prev := msgs[len(msgs)-2]
	for _, tc := range prev.ToolCalls {
		if strings.HasPrefix(tc.Name, "transfer_to_human") {
			return true
		}
	}
	return false
}

type namedArgs struct {
	name string
	args *pyjson.Dict
}

func trajectoryCalls(msgs []message.Message) []namedArgs {
	var out []namedArgs
	for _, m := range msgs {
		for _, tc := range m.ToolCalls {
			out = append(out, namedArgs{tc.Name, decodeDict(tc.Arguments)})
		}
	}
	return out
}

// anyMatch applies τ²-bench's action rule (names equal; arguments equal over
// the predicted call's keys).
func anyMatch(calls []namedArgs, a tasks.Action) bool {
	gold := decodeDict(a.Arguments)
	for _, c := range calls {
		if c.name != a.Name {
			continue
		}
		ok := true
		for _, k := range c.args.Keys {
			cv, _ := c.args.Get(k)
			gv, found := gold.Get(k)
			if !found || !pyjson.Equal(cv, gv) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func decodeDict(raw json.RawMessage) *pyjson.Dict {
	v, err := pyjson.Decode(raw)
	if d, ok := v.(*pyjson.Dict); err == nil && ok {
		return d
	}
	return &pyjson.Dict{}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// V1Task is what a v1 results entry recorded of its task and its gold
// replay: info.task (the Task model dumped) and the gt_data_hash of
// info.reward_info (present when the task has no outputs).
type V1Task struct {
	// Present reports whether the entry recorded its task.
	Present     bool
	UserID      string
	Instruction string
	Actions     []V1Action
	Outputs     []string
	GTDataHash  string
}

// V1Action is one recorded gold action.
type V1Action struct {
	Name   string          `json:"name"`
	Kwargs json.RawMessage `json:"kwargs"`
}

// Task reads what the entry recorded of its task.
func (res V1Result) Task() (V1Task, error) {
	var info struct {
		Task *struct {
			UserID      string     `json:"user_id"`
			Instruction string     `json:"instruction"`
			Actions     []V1Action `json:"actions"`
			Outputs     []string   `json:"outputs"`
		} `json:"task"`
		RewardInfo *struct {
			Info struct {
				GTDataHash string `json:"gt_data_hash"`
			} `json:"info"`
		} `json:"reward_info"`
	}
	if len(res.Info) == 0 || string(res.Info) == "null" {
		return V1Task{}, nil
	}
	if err := json.Unmarshal(res.Info, &info); err != nil {
		return V1Task{}, fmt.Errorf("info: %w", err)
	}
	var t V1Task
	if info.Task != nil {
		t = V1Task{Present: true, UserID: info.Task.UserID, Instruction: info.Task.Instruction, Actions: info.Task.Actions, Outputs: info.Task.Outputs}
	}
	if info.RewardInfo != nil {
		t.GTDataHash = info.RewardInfo.Info.GTDataHash
	}
	return t, nil
}

// ReadV1List reads a v1 results list as it is.
func ReadV1List(path string) ([]V1Result, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var list []V1Result
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("%s: not a τ-bench v1 results list: %w", path, err)
	}
	return list, nil
}
