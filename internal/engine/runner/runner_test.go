package runner

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/score/metrics"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

func TestTrialSeedsMatchPython(t *testing.T) {
	t.Parallel()
	// Values printed by CPython 3.11:
	//   random.seed(s); [random.randint(0, 1_000_000) for _ in range(n)]
	tests := []struct {
		master int64
		want   []int64
	}{
		{300, []int64{626729, 373753, 361454, 1567, 514337, 363271, 554706, 863145}},
		{0, []int64{885440, 403958, 794772, 933488}},
		{1, []int64{140891, 596853, 888598, 841235}},
		{42, []int64{670487, 116739, 26225, 777572}},
		{-7, []int64{339563, 993908, 158176, 414002}},
		{1 << 40, []int64{108673, 370381, 703128, 68854}},
	}
	for _, tc := range tests {
		t.Run(strconv.FormatInt(tc.master, 10), func(t *testing.T) {
			got := TrialSeeds(tc.master, len(tc.want))
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("TrialSeeds(%d, %d) = %v; want %v", tc.master, len(tc.want), got, tc.want)
				}
			}
		})
	}
}

func TestRunEveryUnitOnceUnderLimit(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(13)
	units := Units(dom.TaskList(), TrialSeeds(300, 4))
	tr := newTracker()
	sink := &memSink{}
	const limit = 5
	// The first simulations wait until the limit is reached, then all go.
	block := make(chan struct{})
	go func() {
		tr.waitEntered(t, limit)
		close(block)
	}()
	cfg := Config{Domain: dom, Makers: tr.makers(script{block: block, pass: func(s Spec) bool { return s.Trial%2 == 0 }}),
		Concurrency: limit, Labels: Labels{Agent: "fake", Backbone: "b", UserBackbone: "u"}}
	out, err := Run(context.Background(), cfg, units, sink)
	if err != nil {
		t.Fatal(err)
	}
	if out.Finished != len(units) || len(sink.recs) != len(units) {
		t.Fatalf("finished %d, recorded %d; want %d", out.Finished, len(sink.recs), len(units))
	}
	if p := tr.peak.Load(); p > limit || p < 2 {
		t.Errorf("peak concurrency = %d; want 2..%d", p, limit)
	}
	seen := map[results.UnitKey]bool{}
	for _, r := range sink.recs {
		if seen[r.Key()] {
			t.Errorf("unit %v recorded twice", r.Key())
		}
		seen[r.Key()] = true
		if r.Seed != TrialSeeds(300, 4)[r.Trial] || r.Agent != "fake" || r.Domain != "fake" || r.ID == "" {
			t.Errorf("record %v: seed %d agent %q domain %q id %q", r.Key(), r.Seed, r.Agent, r.Domain, r.ID)
		}
		if want := r.Trial%2 == 0; r.Success() != want {
			t.Errorf("record %v: success %v; want %v", r.Key(), r.Success(), want)
		}
	}
	for k, n := range tr.calls {
		if n != 1 {
			t.Errorf("unit %v built %d times", k, n)
		}
	}
	s := metrics.SummarizeRun(sink.recs, Expected(units))
	if s.Pass1() != 0.5 || s.PassHatK[1].Value != 1.0/6 || s.PassHatK[2].Value != 0 {
		t.Errorf("pass^k = %+v; want 0.5, 1/6, 0, 0", s.PassHatK)
	}
	if s.Agent.USD < 0.0519 || s.Agent.USD > 0.0521 {
		t.Errorf("agent cost = %v; want 0.052", s.Agent.USD)
	}
}

func TestRunTrialsOfATaskRunTogether(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(3)
	units := Units(dom.TaskList(), TrialSeeds(300, 4))
	for i, u := range units[:4] {
		if u.Task.ID != "0" || u.Trial != i {
			t.Fatalf("units[%d] = task %s trial %d; want task 0 trial %d", i, u.Task.ID, u.Trial, i)
		}
	}
}

func TestResumeRunsOnlyMissingAndInfra(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, results.SimulationsFile)
	dom := newFakeDomain(6)
	units := Units(dom.TaskList(), TrialSeeds(300, 3))

	// First run: task 1 fails with an infrastructure error, and only the
	// first 10 units run.
	w, err := results.OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	tr1 := newTracker()
	cfg := Config{Domain: dom, Makers: tr1.makers(script{infra: func(s Spec) bool { return s.Task.ID == "1" }}), Concurrency: 3}
	if _, err := Run(context.Background(), cfg, units[:10], w); err != nil {
		t.Fatal(err)
	}
	w.Close()

	recs, _, err := results.ReadJSONLFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pending := Pending(units, results.Latest(recs))
	// Units 10..17 never ran; task 1's three trials (units 3..5) failed.
	if len(pending) != 8+3 {
		t.Fatalf("pending = %d units; want 11", len(pending))
	}

	w, err = results.OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	tr2 := newTracker()
	cfg.Makers = tr2.makers(script{})
	if _, err := Run(context.Background(), cfg, pending, w); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for k := range tr2.calls {
		if k.TaskID != "1" && k.Trial >= 0 && tr1.calls[k] > 0 {
			t.Errorf("resume re-ran finished unit %v", k)
		}
	}
	recs, _, err = results.ReadJSONLFile(path)
	if err != nil {
		t.Fatal(err)
	}
	latest := results.Latest(recs)
	if len(recs) != len(units)+3 || len(latest) != len(units) {
		t.Fatalf("records %d (latest %d); want %d (%d)", len(recs), len(latest), len(units)+3, len(units))
	}
	for _, r := range latest {
		if r.Infrastructure() {
			t.Errorf("unit %v still an infrastructure error after resume", r.Key())
		}
	}
	if p := Pending(units, latest); len(p) != 0 {
		t.Errorf("pending after resume = %d; want 0", len(p))
	}
}

func TestShardPartition(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(50)
	units := Units(dom.TaskList(), TrialSeeds(300, 4))
	for _, n := range []int{1, 2, 3, 7} {
		seen := map[results.UnitKey]int{}
		for i := 1; i <= n; i++ {
			sh := Shard{Index: i, Count: n}
			part := sh.Filter(units)
			if n > 1 && (len(part) == 0 || len(part) == len(units)) {
				t.Errorf("shard %s has %d of %d units", sh, len(part), len(units))
			}
			for _, u := range part {
				seen[u.Key()]++
			}
		}
		if len(seen) != len(units) {
			t.Errorf("%d shards cover %d of %d units", n, len(seen), len(units))
		}
		for k, c := range seen {
			if c != 1 {
				t.Errorf("%d shards: unit %v in %d shards", n, k, c)
			}
		}
	}
}

func TestParseShard(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in      string
		want    Shard
		wantErr bool
	}{
		{"", Shard{}, false},
		{"1/1", Shard{1, 1}, false},
		{"2/4", Shard{2, 4}, false},
		{"0/4", Shard{}, true},
		{"5/4", Shard{}, true},
		{"x", Shard{}, true},
		{"1/0", Shard{}, true},
	}
	for _, tc := range tests {
		got, err := ParseShard(tc.in)
		if (err != nil) != tc.wantErr || got != tc.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, err %v", tc.in, got, err, tc.want, tc.wantErr)
		}
	}
}

func TestRunStopsStartingOnCancel(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(20)
	units := Units(dom.TaskList(), TrialSeeds(300, 1))
	tr := newTracker()
	block := make(chan struct{})
	sink := &memSink{}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{Domain: dom, Makers: tr.makers(script{block: block}), Concurrency: 4}
	done := make(chan struct{})
	var out Outcome
	var err error
	go func() {
		out, err = Run(ctx, cfg, units, sink)
		close(done)
	}()
	tr.waitEntered(t, 4)
	cancel()     // cancels Run's own context before it returns: no unit starts after it
	close(block) // in-flight simulations finish
	<-done
	if !errors.Is(err, ErrStopped) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v; want ErrStopped wrapping context.Canceled", err)
	}
	if out.Finished != 4 || out.NotStarted != 16 || len(sink.recs) != 4 {
		t.Fatalf("outcome %+v, %d records; want 4 finished, 16 not started", out, len(sink.recs))
	}
	for _, r := range sink.recs {
		if r.Infrastructure() {
			t.Errorf("in-flight unit %v was cut off: %s", r.Key(), r.Error)
		}
	}
}

func TestRunDrainCancelsInFlight(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(4)
	units := Units(dom.TaskList(), TrialSeeds(300, 1))
	tr := newTracker()
	sink := &memSink{}
	ctx, cancel := context.WithCancel(context.Background())
	cfg := Config{Domain: dom, Makers: tr.makers(script{block: make(chan struct{})}), Concurrency: 2, Drain: 10 * time.Millisecond}
	go func() {
		tr.waitEntered(t, 2)
		cancel()
	}()
	out, err := Run(ctx, cfg, units, sink)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("err = %v; want ErrStopped", err)
	}
	if out.Finished != 2 {
		t.Fatalf("finished %d; want the 2 in-flight units recorded", out.Finished)
	}
	for _, r := range sink.recs {
		if r.TerminationReason != evaluator.InfrastructureError {
			t.Errorf("drained unit %v: termination %s; want infrastructure_error", r.Key(), r.TerminationReason)
		}
	}
}

func TestRunSinkFailureStops(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(10)
	units := Units(dom.TaskList(), TrialSeeds(300, 2))
	tr := newTracker()
	boom := errors.New("disk full")
	_, err := Run(context.Background(), Config{Domain: dom, Makers: tr.makers(script{}), Concurrency: 2}, units, &memSink{fail: boom})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v; want %v", err, boom)
	}
	if n := tr.started.Load(); n >= int64(len(units)) {
		t.Errorf("all %d units started after the sink failed", n)
	}
}

func TestProgressCounts(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(5)
	units := Units(dom.TaskList(), TrialSeeds(300, 2))
	tr := newTracker()
	p := NewProgress(len(units))
	_, err := Run(context.Background(), Config{Domain: dom, Progress: p, Concurrency: 3,
		Makers: tr.makers(script{infra: func(s Spec) bool { return s.Task.ID == "4" && s.Trial == 1 }, pass: func(s Spec) bool { return s.Task.ID != "0" }})},
		units, &memSink{})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Snapshot()
	if s.Done != 10 || s.Infra != 1 || s.Scored != 9 || s.Passed != 7 || s.Running != 0 {
		t.Errorf("snapshot %+v; want done 10, infra 1, scored 9, passed 7", s)
	}
	if math.Abs(s.Pass1()-7.0/9) > 1e-12 || s.Tokens == 0 || s.Cost == 0 {
		t.Errorf("pass1 %v tokens %d cost %v", s.Pass1(), s.Tokens, s.Cost)
	}
}

// TestProgressRejudgeAddsOnlyTheJudge: re-judging a judge_pending record
// replays no conversation, so the progress (which an experiment's cost cap
// reads) counts only what the new judgement adds, not the conversation's
// cost a second time.
func TestProgressRejudgeAddsOnlyTheJudge(t *testing.T) {
	t.Parallel()
	dom := newFakeDomain(1)
	pending := results.Record{ID: "sim-1", TaskID: "0", TerminationReason: evaluator.InfrastructureError, JudgePending: evaluator.UserStop,
		Messages:  []message.Message{{Role: message.Assistant, Content: "the secret"}},
		AgentCost: 0.5, UserCost: 0.25, JudgeCost: 0.125, AgentUsage: message.Usage{PromptTokens: 1000}}
	u := Units(dom.TaskList(), TrialSeeds(300, 1))[0]
	u.Rejudge = &pending
	p := NewProgress(1)
	sink := &memSink{}
	if _, err := Run(context.Background(), Config{Domain: dom, Progress: p, Makers: newTracker().makers(script{})}, []Unit{u}, sink); err != nil {
		t.Fatal(err)
	}
	if len(sink.recs) != 1 || sink.recs[0].Infrastructure() || sink.recs[0].ID != pending.ID || sink.recs[0].AgentCost != pending.AgentCost {
		t.Fatalf("records %+v; want the judged record under the pending one's id, with its cost", sink.recs)
	}
	if s := p.Snapshot(); s.Done != 1 || s.Scored != 1 || s.Cost != 0 || s.Tokens != 0 {
		t.Errorf("snapshot %+v; want done 1, scored 1, cost 0 and tokens 0 (a judgement without NL assertions costs nothing)", s)
	}
}
