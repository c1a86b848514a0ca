package play

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/openaitest"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// Retail task 0's gold write (its reads change nothing the reward checks).
const (
	task0Find     = "find_user_id_by_name_zip(first_name='Yusuf', last_name='Rossi', zip='19122')"
	task0Exchange = `exchange_delivered_order_items {"order_id": "#W2378156", "item_ids": ["1151293680", "4983901480"], "new_item_ids": ["7706410293", "7747408585"], "payment_method_id": "credit_card_9513926"}`
	// task 1's exchange: one item only, not task 0's.
	task1Exchange = `exchange_delivered_order_items(order_id='#W2378156', item_ids=['4983901480'], new_item_ids=['7747408585'], payment_method_id='credit_card_9513926')`
)

func playOptions(t *testing.T, as, backbone, user string) Options {
	t.Helper()
	root := datatest.Root(t)
	return Options{As: as, Task: "0", Run: runplan.Options{DataDir: root, Domain: "retail", Backbone: backbone, UserBackbone: user,
		Out: filepath.Join(t.TempDir(), "run"), BackbonesFile: filepath.Join(t.TempDir(), "none.yaml"), BackbonesOptional: true,
		Seed: 300, MaxSteps: 200, MaxErrors: 10,
		LoadDomain: func(name string, solo bool, o domains.Options) (envs.Domain, map[string]string, error) {
			d, err := domains.LoadWith(name, root, o)
			return d, nil, err
		}}}
}

// TestRun plays retail task 0 from scripted lines against the offline
// user (or, playing the user, the gold agent): the run directory holds the
// one simulation, recorded and scored as run records and scores.
func TestRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, as, backbone, user, input string
		term                            evaluator.Termination
		reward                          float64
		errText                         string // the record's error
		screen                          []string
	}{
		{name: "gold write typed", as: agents.HumanAgent, user: "sim", input: strings.Join([]string{task0Find, task0Exchange, "Your exchange is requested."}, "\n"),
			term: evaluator.UserStop, reward: 1, screen: []string{"tool find_user_id_by_name_zip result: yusuf_rossi_9620", `"status": "exchange requested"`,
				"user: Thank you, that is all I needed. ###STOP###", "reward 1.0 (DB 1.0"}},
		{name: "wrong write then done", as: agents.HumanAgent, user: "sim", input: task1Exchange + "\ndone()\n",
			term: evaluator.AgentStop, reward: 0, screen: []string{"ending the conversation (###STOP###)", "simulation ended: agent_stop", "reward 0.0 (DB 0.0"}},
		{name: "end of input", as: agents.HumanAgent, user: "gold", input: task0Find + "\n",
			term: evaluator.AgentError, reward: 0, errText: ErrEndOfInput.Error(), screen: []string{"simulation ended: agent_error (" + ErrEndOfInput.Error() + ")"}},
		{name: "quit", as: agents.HumanAgent, user: "sim", input: "quit\n", term: evaluator.AgentError, reward: 0, errText: ErrQuit.Error()},
		{name: "user against the gold agent", as: agents.HumanUser, backbone: "gold", input: "I want to exchange two items of order #W2378156.\nThanks! ###STOP###\n",
			term: evaluator.UserStop, reward: 1, screen: []string{"You play the user.", "── scenario ──", "agent: Hi! How can I help you today?"}},
		{name: "user quits", as: agents.HumanUser, backbone: "gold", input: "", term: evaluator.UserError, reward: 0, errText: ErrEndOfInput.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := playOptions(t, tc.as, tc.backbone, tc.user)
			var screen strings.Builder
			o.In, o.Screen = strings.NewReader(tc.input), &screen
			res, err := Run(t.Context(), o)
			if err != nil {
				t.Fatalf("Run: %v\nscreen:\n%s", err, screen.String())
			}
			r := res.Record
			if r.TerminationReason != tc.term || r.RewardInfo == nil || r.RewardInfo.Reward != tc.reward || r.Error != tc.errText {
				t.Fatalf("record: termination %s, reward %+v, error %q; want %s, %v, %q\nscreen:\n%s", r.TerminationReason, r.RewardInfo, r.Error, tc.term, tc.reward, tc.errText, screen.String())
			}
			for _, s := range tc.screen {
				if !strings.Contains(screen.String(), s) {
					t.Errorf("screen lacks %q:\n%s", s, screen.String())
				}
			}
			run, err := results.LoadRun(res.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Records) != 1 || run.Records[0].ID != r.ID {
				t.Fatalf("run holds %d records", len(run.Records))
			}
			m := run.Manifest
			info := string(r.AgentInfo)
			wantAgent, wantBackbone, wantUser := agents.HumanBackbone, agents.HumanBackbone, tc.user
			if tc.as == agents.HumanUser {
				wantAgent, wantBackbone, wantUser, info = "baseline", tc.backbone, agents.HumanBackbone, string(r.UserInfo)
			}
			if m.Agent != wantAgent || m.Backbone != wantBackbone || m.UserBackbone != wantUser || r.Agent != wantAgent || r.UserBackbone != wantUser ||
				m.Trials != 1 || len(m.TaskIDs) != 1 || m.Prompts != results.PromptsModified {
				t.Errorf("manifest agent %s backbone %s user %s trials %d tasks %v prompts %s; record agent %s user %s",
					m.Agent, m.Backbone, m.UserBackbone, m.Trials, m.TaskIDs, m.Prompts, r.Agent, r.UserBackbone)
			}
			if !strings.Contains(info, `"implementation":"human"`) || !strings.Contains(info, `"role":"`+tc.as+`"`) {
				t.Errorf("the person's side reports %s", info)
			}
		})
	}
}

// screenWaiter is a screen that signals when it shows a text.
type screenWaiter struct {
	mu   sync.Mutex
	b    strings.Builder
	want string
	seen chan struct{}
	once sync.Once
}

func (s *screenWaiter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.b.Write(p)
	if strings.Contains(s.b.String(), s.want) {
		s.once.Do(func() { close(s.seen) })
	}
	return len(p), nil
}

// TestRunInterrupted: Ctrl-C at the prompt ends the conversation with the
// person's side's error, recorded and scored, and Run says it was
// interrupted.
func TestRunInterrupted(t *testing.T) {
	t.Parallel()
	o := playOptions(t, agents.HumanAgent, "", "sim")
	pr, pw := io.Pipe()
	defer pw.Close()
	screen := &screenWaiter{want: "[1] agent> ", seen: make(chan struct{})}
	o.In, o.Screen = pr, screen
	ctx, cancel := context.WithCancel(t.Context())
	go func() {
		<-screen.seen
		cancel()
	}()
	res, err := Run(ctx, o)
	if !errors.Is(err, context.Canceled) || res == nil || !res.Interrupted {
		t.Fatalf("Run: %+v, %v; want an interrupted result", res, err)
	}
	r := res.Record
	if r.TerminationReason != evaluator.AgentError || r.Error != ErrInterrupted.Error() || r.RewardInfo == nil || r.RewardInfo.Reward != 0 {
		t.Errorf("record: %s %q %+v", r.TerminationReason, r.Error, r.RewardInfo)
	}
}

// TestRunRefuses: settings a play cannot use are usage errors (or, for a
// run directory already used, an error), before anything is played.
func TestRunRefuses(t *testing.T) {
	t.Parallel()
	used := playOptions(t, agents.HumanAgent, "", "sim")
	used.In, used.Screen = strings.NewReader(""), io.Discard
	if _, err := Run(t.Context(), used); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		edit  func(*Options)
		usage bool
		want  string
	}{
		{"unknown side", func(o *Options) { o.As = "judge" }, true, `--as "judge"`},
		{"no task", func(o *Options) { o.Task = "" }, true, "no task chosen: pass --task"},
		{"user without the agent's backbone", func(o *Options) { o.As, o.Run.UserBackbone = agents.HumanUser, "" }, true, "needs the agent's backbone"},
		{"agent implementation while playing the agent", func(o *Options) { o.Run.Agent = "ledger" }, true, "--agent ledger names the agent you play against"},
		{"user with a user backbone", func(o *Options) { o.As, o.Run.Backbone = agents.HumanUser, "gold" }, true, "--user-backbone drives the user simulator, which you play"},
		{"agent with a backbone", func(o *Options) { o.Run.Backbone = "gold" }, true, "which you play"},
		{"no default user", func(o *Options) { o.Run.UserBackbone = "" }, true, "pass --user-backbone NAME, or --user-backbone sim"},
		{"user in solo mode", func(o *Options) {
			o.As, o.Run.Backbone, o.Run.UserBackbone, o.Run.Solo = agents.HumanUser, "gold", "", true
		}, true, "solo mode has no user"},
		{"unknown task", func(o *Options) { o.Task = "nope" }, true, "nope"},
		{"used directory", func(o *Options) { o.Run.Out = used.Run.Out }, false, "already holds a run"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := playOptions(t, agents.HumanAgent, "", "sim")
			o.In, o.Screen = strings.NewReader("hello\n"), io.Discard
			tc.edit(&o)
			_, err := Run(t.Context(), o)
			if err == nil || !strings.Contains(err.Error(), tc.want) || errext.IsUsage(err) != tc.usage {
				t.Fatalf("Run: %v; want %q (usage error %v)", err, tc.want, tc.usage)
			}
		})
	}
}

// TestRunModelUser: playing the agent without --user-backbone, the user
// simulator is τ²-bench's default model of the backbones file (here a fake
// of the API), driven by upstream's user prompt, as upstream's manual mode
// defaults to it; the default is said and recorded.
func TestRunModelUser(t *testing.T) {
	t.Parallel()
	srv := openaitest.NewServer(t, openaitest.Text("Hi, I'd like to exchange two items of order #W2378156."), openaitest.Text("Great, thanks! ###STOP###"))
	o := playOptions(t, agents.HumanAgent, "", "")
	o.Run.BackbonesFile, o.Run.BackbonesOptional = filepath.Join(t.TempDir(), "backbones.yaml"), false
	if err := os.WriteFile(o.Run.BackbonesFile, []byte("backbones:\n  u41: {base_url: "+srv.BaseURL()+", model: gpt-4.1-2025-04-14, temperature: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var screen strings.Builder
	o.In, o.Screen = strings.NewReader(task0Exchange+"\nDone: both items are exchanged.\n"), &screen
	res, err := Run(t.Context(), o)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, screen.String())
	}
	r := res.Record
	if r.TerminationReason != evaluator.UserStop || r.RewardInfo == nil || r.RewardInfo.Reward != 1 || r.UserBackbone != "u41" {
		t.Fatalf("record: %s %+v user %s\n%s", r.TerminationReason, r.RewardInfo, r.UserBackbone, screen.String())
	}
	for _, s := range []string{"default user-backbone u41 (τ²-bench's default user simulator", "user: Hi, I'd like to exchange", "user: Great, thanks! ###STOP###"} {
		if !strings.Contains(screen.String(), s) {
			t.Errorf("screen lacks %q:\n%s", s, screen.String())
		}
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d user requests; want 2", len(reqs))
	}
	if last := reqs[1].Messages[len(reqs[1].Messages)-1]; last.Text() != "Done: both items are exchanged." {
		t.Errorf("the user simulator's second request ends with %+v; want the person's text", last)
	}
}

// TestRunModelAgent: playing the user against a model agent (a fake of
// the API): the person sees the agent's text, not its tool calls, and the
// agent gets the person's words as the user's.
func TestRunModelAgent(t *testing.T) {
	t.Parallel()
	exchange := `{"order_id": "#W2378156", "item_ids": ["1151293680", "4983901480"], "new_item_ids": ["7706410293", "7747408585"], "payment_method_id": "credit_card_9513926"}`
	srv := openaitest.NewServer(t, openaitest.Calls(openaitest.Call("exchange_delivered_order_items", exchange)), openaitest.Text("Your exchange is requested."))
	o := playOptions(t, agents.HumanUser, "a41", "")
	o.Run.BackbonesFile, o.Run.BackbonesOptional = filepath.Join(t.TempDir(), "backbones.yaml"), false
	if err := os.WriteFile(o.Run.BackbonesFile, []byte("backbones:\n  a41: {base_url: "+srv.BaseURL()+", model: gpt-4.1-2025-04-14, temperature: 0}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var screen strings.Builder
	o.In, o.Screen = strings.NewReader("Please exchange my keyboard and thermostat.\nThanks ###STOP###\n"), &screen
	res, err := Run(t.Context(), o)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, screen.String())
	}
	r := res.Record
	if r.TerminationReason != evaluator.UserStop || r.RewardInfo == nil || r.RewardInfo.Reward != 1 || r.Backbone != "a41" || r.UserBackbone != agents.HumanBackbone {
		t.Fatalf("record: %s %+v backbone %s user %s\n%s", r.TerminationReason, r.RewardInfo, r.Backbone, r.UserBackbone, screen.String())
	}
	if s := screen.String(); !strings.Contains(s, "agent: Your exchange is requested.") || strings.Contains(s, "exchange_delivered_order_items") {
		t.Errorf("screen:\n%s", s)
	}
	if first := srv.Requests()[0].Messages; first[len(first)-1].Text() != "Please exchange my keyboard and thermostat." {
		t.Errorf("the agent's first request ends with %+v", first[len(first)-1])
	}
}

// TestRunChooses: a domain and task left open are asked, as upstream's
// manual mode asks: a name or a number of the listed ones.
func TestRunChooses(t *testing.T) {
	t.Parallel()
	o := playOptions(t, agents.HumanAgent, "", "sim")
	o.Run.Domain, o.Task = "", ""
	var screen strings.Builder
	o.In, o.Screen = strings.NewReader("nope\nretail\n999\n2\n"), &screen
	res, err := Run(t.Context(), o)
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, screen.String())
	}
	if r := res.Record; r.Domain != "retail" || r.TaskID != "1" || r.TerminationReason != evaluator.AgentError {
		t.Errorf("record: %s task %s %s", r.Domain, r.TaskID, r.TerminationReason)
	}
	for _, s := range []string{"Domains:\n   1  airline\n", `! "nope" is not a domain here`, "Tasks of retail:\n    1  0  ", `! "999" is not a task here`, "ledgerbench play: retail task 1 "} {
		if !strings.Contains(screen.String(), s) {
			t.Errorf("screen lacks %q:\n%s", s, screen.String())
		}
	}
}
