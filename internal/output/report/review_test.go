package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// reviewsOf writes entries as a reviews file and reads it back.
func reviewsOf(t *testing.T, entries ...review.Entry) *review.Reviews {
	t.Helper()
	path := filepath.Join(t.TempDir(), review.FileName)
	w, err := results.OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if err := w.WriteValue(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	r, err := review.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestReviewCounts: only failed, scored simulations count; a full review
// is preferred to a user-only one; a failed review is counted apart; the
// latest line of a simulation and mode wins; the error table shows them.
func TestReviewCounts(t *testing.T) {
	t.Parallel()
	rec := func(id string, reward float64, term evaluator.Termination) results.Record {
		return results.Record{ID: id, TaskID: id, Domain: "retail", Agent: "baseline", Backbone: "b", TerminationReason: term,
			RewardInfo: &evaluator.RewardInfo{Reward: reward}}
	}
	recs := []results.Record{rec("pass", 1, evaluator.UserStop), rec("f1", 0, evaluator.UserStop), rec("f2", 0, evaluator.UserStop),
		rec("f3", 0, evaluator.UserStop), rec("f4", 0, evaluator.UserStop), rec("infra", 0, evaluator.InfrastructureError)}
	full := func(id string, agent, user, crit bool) review.Entry {
		return review.Entry{SimulationID: id, Mode: review.Full, Outcome: review.Outcome{Review: &review.Review{AgentError: agent, UserError: user, CriticalUserError: crit, HasErrors: agent || user}}}
	}
	revs := reviewsOf(t,
		full("pass", true, true, true),                                  // a success: not counted
		full("f1", false, false, false), full("f1", true, false, false), // the later line wins
		full("f2", false, true, true),
		review.Entry{SimulationID: "f2", Mode: review.User, Outcome: review.Outcome{UserOnlyReview: &review.UserOnlyReview{}}}, // full preferred
		review.Entry{SimulationID: "f3", Mode: review.Full, Error: "llm r: status 500"},
		review.Entry{SimulationID: "f3", Mode: review.User, Outcome: review.Outcome{UserOnlyReview: &review.UserOnlyReview{UserError: true, HasErrors: true}}}, // used: the full one failed
		review.Entry{SimulationID: "f4", Mode: review.Full, Error: "llm r: status 500"},
		full("infra", true, true, true), // not scored
	)
	srcs := []*Source{{Path: "run", Kind: RunDir, Records: recs, Reviews: revs}}
	got := Reviews(srcs)
	k := metrics.KeyOf(&recs[0])
	want := ReviewCounts{Reviewed: 3, AgentErrors: 1, UserErrors: 2, CriticalUser: 1, Failed: 1}
	if got[k] != want {
		t.Errorf("Reviews = %+v; want %+v", got[k], want)
	}
	if Reviews([]*Source{{Records: recs}}) != nil {
		t.Error("sources without reviews give counts")
	}
	rep := Build(Summarize(srcs, nil), Options{Reviews: got})
	var b bytes.Buffer
	if err := rep.Write(&b, CSV, TableErrors); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, ",Reviewed,Rev agent,Rev agent n,Rev user,Rev user n,Rev crit user,Rev crit user n") || !strings.Contains(out, ",1,3,33.33333333333333,1,66.66666666666666,2,33.33333333333333,1") {
		t.Errorf("error table:\n%s", out)
	}
	b.Reset()
	if err := Build(Summarize(srcs, nil), Options{}).Write(&b, Text, TableErrors); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "Reviewed") {
		t.Error("review columns without reviews")
	}
}

// TestLoadReviews: Load reads the reviews beside a run; a malformed
// reviews file is an error naming it.
func TestLoadReviews(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := results.Create(dir, &results.Manifest{Domain: "retail"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, results.SimulationsFile), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	src, err := Load(dir, Labels{})
	if err != nil || src.Reviews != nil {
		t.Fatalf("no reviews file: %v, %+v", err, src.Reviews)
	}
	if err := os.WriteFile(filepath.Join(dir, review.FileName), []byte("{\"simulation_id\": \"a\", \"mode\": \"full\"}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, Labels{}); err == nil || !strings.Contains(err.Error(), review.FileName) {
		t.Errorf("malformed reviews: %v", err)
	}
}
