package cli

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/racetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/play"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// tmuxSession is ledgerbench running in a real terminal: a tmux server of
// its own (a private socket), one pane of 200×50 whose screen the test
// reads as a person would.
type tmuxSession struct {
	t    *testing.T
	sock string
}

// startTmux starts command in a new tmux server. After the command ends the
// pane shows "[exit N]" and stays until the test's cleanup kills the server.
func startTmux(t *testing.T, command string) *tmuxSession {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): the terminal test of play needs it")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "tmux.conf")
	if err := os.WriteFile(conf, []byte("set -g history-limit 100000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := &tmuxSession{t: t, sock: filepath.Join(dir, "tmux.sock")}
	// The shell survives the Ctrl-C it forwards to the command (a trap with
	// a handler is not inherited: ledgerbench gets SIGINT as usual).
	script := fmt.Sprintf("trap : INT; %s; echo \"[exit $?]\"; sleep 600", command)
	s.run("-f", conf, "new-session", "-d", "-s", "play", "-x", "200", "-y", "50", "sh", "-c", script)
	t.Cleanup(func() { _ = exec.Command("tmux", "-S", s.sock, "kill-server").Run() })
	return s
}

func (s *tmuxSession) run(args ...string) string {
	s.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", s.sock}, args...)...).CombinedOutput()
	if err != nil {
		s.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// screen is the pane's whole history, wrapped lines joined.
func (s *tmuxSession) screen() string {
	return s.run("capture-pane", "-p", "-J", "-S", "-", "-t", "play")
}

// wait polls the screen until it shows want n times in all (the prompt of a
// later step, a result) and returns it.
func (s *tmuxSession) wait(want string, n int) string {
	s.t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for {
		sc := s.screen()
		if strings.Count(sc, want) >= n {
			return sc
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("the screen never showed %q (%d times):\n%s", want, n, sc)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// typeLine types text and Enter, as a person does.
func (s *tmuxSession) typeLine(text string) {
	s.t.Helper()
	s.run("send-keys", "-t", "play", "-l", text)
	s.run("send-keys", "-t", "play", "Enter")
}

// keys sends named keys (C-c, C-d).
func (s *tmuxSession) keys(k string) { s.run("send-keys", "-t", "play", k) }

// TestPlayTmux plays retail task 0 as the agent in a real terminal against
// the offline scripted user: keys typed, the screen read. Typing the gold
// write earns reward 1.0; a wrong write ended with done() earns 0.0; Ctrl-D
// and Ctrl-C leave the conversation unfinished (agent_error with the
// reason; Ctrl-C exits 130). Each run directory holds the scored simulation
// as run records it, and report reads it.
func TestPlayTmux(t *testing.T) {
	racetest.PlainOnly(t)
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install tmux): the terminal test of play needs it")
	}
	data := datatest.Root(t)
	bin := buildBinary(t)
	tests := []struct {
		name   string
		steps  []string // lines typed, one per prompt; "C-c", "C-d" are keys
		shows  []string // the screen shows these after each step (one per step; "" none)
		exit   int
		term   evaluator.Termination
		reward float64
		errMsg string
	}{
		{name: "gold write", steps: []string{
			"find_user_id_by_name_zip(first_name='Yusuf', last_name='Rossi', zip='19122')",
			`exchange_delivered_order_items {"order_id": "#W2378156", "item_ids": ["1151293680", "4983901480"], "new_item_ids": ["7706410293", "7747408585"], "payment_method_id": "credit_card_9513926"}`,
			"Your exchange of both items is requested.",
		}, shows: []string{
			"tool find_user_id_by_name_zip result: yusuf_rossi_9620",
			`"exchange_new_items": ["7706410293", "7747408585"]`,
			"user: Thank you, that is all I needed. ###STOP###",
		}, exit: ExitOK, term: evaluator.UserStop, reward: 1},
		{name: "wrong write", steps: []string{
			"tools",
			"exchange_delivered_order_items(order_id='#W2378156', item_ids=['4983901480'], new_item_ids=['7747408585'], payment_method_id='credit_card_9513926')",
			"done()",
		}, shows: []string{
			"transfer_to_human_agents(summary)",
			`"exchange_items": ["4983901480"]`,
			"simulation ended: agent_stop",
		}, exit: ExitOK, term: evaluator.AgentStop, reward: 0},
		{name: "ctrl-d", steps: []string{"C-d"}, shows: []string{play.ErrEndOfInput.Error()},
			exit: ExitOK, term: evaluator.AgentError, reward: 0, errMsg: play.ErrEndOfInput.Error()},
		{name: "ctrl-c", steps: []string{"C-c"}, shows: []string{"interrupted: the simulation is recorded in"},
			exit: ExitInterrupted, term: evaluator.AgentError, reward: 0, errMsg: play.ErrInterrupted.Error()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "run")
			s := startTmux(t, fmt.Sprintf("%s --data %s play --domain retail --task 0 --user-backbone sim --out %s", bin, data, out))
			s.wait("[1] agent> ", 1)
			for i, step := range tc.steps {
				if step == "C-c" || step == "C-d" {
					s.keys(step)
				} else {
					s.typeLine(step)
				}
				if tc.shows[i] != "" {
					s.wait(tc.shows[i], 1)
				}
			}
			sc := s.wait("[exit ", 1)
			if !strings.Contains(sc, fmt.Sprintf("[exit %d]", tc.exit)) {
				t.Fatalf("exit status: want %d\n%s", tc.exit, sc)
			}
			if !strings.Contains(sc, fmt.Sprintf("reward %.1f", tc.reward)) {
				t.Errorf("the screen does not say reward %.1f:\n%s", tc.reward, sc)
			}
			r := loadRun(t, out)
			if len(r.Records) != 1 {
				t.Fatalf("%d records", len(r.Records))
			}
			rec := r.Records[0]
			if rec.TerminationReason != tc.term || rec.RewardInfo == nil || rec.RewardInfo.Reward != tc.reward || rec.Error != tc.errMsg {
				t.Fatalf("record: %s reward %+v error %q; want %s %v %q", rec.TerminationReason, rec.RewardInfo, rec.Error, tc.term, tc.reward, tc.errMsg)
			}
			rep := mustRun(t, "report", "--format", "csv", "--table", "overview", out)
			if !strings.Contains(rep.out, "retail,human,human,sim") {
				t.Errorf("report of the play:\n%s", rep.out)
			}
		})
	}
}
