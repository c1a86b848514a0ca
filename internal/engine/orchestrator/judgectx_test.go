package orchestrator_test

import (
	"context"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline/offlinetest"
	"github.com/ledgerbench/ledgerbench/internal/engine/orchestrator"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// waitJudge says when it was called, then answers after wait or fails when
// its context ends first.
type waitJudge struct {
	called chan struct{}
	wait   time.Duration
}

func (j *waitJudge) JudgeNL(ctx context.Context, _ []message.Message, as []string) (evaluator.JudgeResult, error) {
	close(j.called)
	select {
	case <-time.After(j.wait):
		checks := make([]evaluator.NLCheck, len(as))
		for i, a := range as {
			checks[i] = evaluator.NLCheck{NLAssertion: a, Met: true}
		}
		return evaluator.JudgeResult{Checks: checks}, nil
	case <-ctx.Done():
		return evaluator.JudgeResult{Usage: message.Usage{PromptTokens: 7}}, context.Cause(ctx)
	}
}

func nlTask() *tasks.Task {
	t := offlinetest.Task("pay")
	t.EvaluationCriteria.NLAssertions = []string{"The agent pays the order."}
	t.EvaluationCriteria.RewardBasis = append(t.EvaluationCriteria.RewardBasis, tasks.RewardNLAssertion)
	return t
}

func payScript() (agent, user *script) {
	agent = &script{msgs: []message.Message{
		calls(`get_user_details {"user_id": "u1"}`, `get_order_details {"order_id": "#O1"}`),
		calls(`pay_order {"order_id": "#O1", "payment_method_id": "card_1"}`),
		text("Done: #O1 is paid."),
	}}
	user = &script{msgs: []message.Message{text("Pay #O1 please, I am u1."), text("Thanks ###STOP###")}}
	return agent, user
}

// TestJudgeContext: the NL judge is detached from the simulation's own
// wall-clock limit (a conversation that ended in time is judged however long
// judging takes), never from the run's cancellation (Ctrl-C, the end of
// --grace): canceled, it ends at once and the record waits to be judged
// again (judge_pending).
func TestJudgeContext(t *testing.T) {
	t.Parallel()
	t.Run("outlives the per-simulation timeout", func(t *testing.T) {
		t.Parallel()
		agent, user := payScript()
		// The conversation gets a second (scripted, it takes milliseconds,
		// but a loaded machine may stall it); the judge, called after the
		// simulation started, answers a full timeout later, so after the
		// simulation's deadline.
		const timeout = time.Second
		j := &waitJudge{called: make(chan struct{}), wait: timeout}
		cfg := orchestrator.Config{Timeout: timeout, Judge: j}
		rec, err := orchestrator.Run(context.Background(), offlinetest.New(), nlTask(), agent, user, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if rec.TerminationReason != evaluator.UserStop || rec.JudgePending != "" || !rec.Success() {
			t.Errorf("termination %s judge_pending %q reward %v (%s); want user_stop judged with reward 1", rec.TerminationReason, rec.JudgePending, rec.Reward(), rec.Error)
		}
	})
	t.Run("ends when the run is canceled", func(t *testing.T) {
		t.Parallel()
		agent, user := payScript()
		j := &waitJudge{called: make(chan struct{}), wait: time.Hour}
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() { <-j.called; cancel() }()
		done := make(chan struct{})
		var (
			rec results.Record
			err error
		)
		go func() {
			defer close(done)
			rec, err = orchestrator.Run(ctx, offlinetest.New(), nlTask(), agent, user, orchestrator.Config{Judge: j})
		}()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Fatal("the judge ignored the run's cancellation")
		}
		if err != nil {
			t.Fatal(err)
		}
		if r := rec; !r.Infrastructure() || r.JudgePending != evaluator.UserStop || r.JudgeUsage.PromptTokens != 7 {
			t.Errorf("termination %s judge_pending %q judge usage %+v; want an infrastructure error pending judgement, with the canceled call's usage", r.TerminationReason, r.JudgePending, r.JudgeUsage)
		}
	})
}
