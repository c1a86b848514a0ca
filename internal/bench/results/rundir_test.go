package results

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
)

func rec(task string, trial int, term evaluator.Termination) Record {
	return Record{ID: fmt.Sprintf("%s-%d", task, trial), TaskID: task, Trial: trial, TerminationReason: term,
		Messages: []message.Message{{Role: message.Assistant, Content: "Hello, what do you need?"}}}
}

func writeLines(t *testing.T, path string, recs ...Record) {
	t.Helper()
	w, err := OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestReadJSONLToleratesTruncatedLastLine(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SimulationsFile)
	writeLines(t, path, rec("a", 0, evaluator.UserStop), rec("b", 0, evaluator.UserStop), rec("c", 0, evaluator.UserStop))
	b, _ := os.ReadFile(path)
	for cut := 1; cut < 40; cut += 7 {
		trunc := b[:len(b)-cut]
		recs, info, err := ReadJSONL(bytes.NewReader(trunc))
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if cut == 1 {
			// Only the newline is missing: the last record is complete.
			if len(recs) != 3 || info.Truncated {
				t.Errorf("cut 1: %d records, truncated %v; want 3, false", len(recs), info.Truncated)
			}
			continue
		}
		if len(recs) != 2 || !info.Truncated {
			t.Errorf("cut %d: %d records, truncated %v; want 2, true", cut, len(recs), info.Truncated)
		}
	}
}

func TestReadJSONLRejectsCorruptMiddleLine(t *testing.T) {
	t.Parallel()
	in := `{"task_id":"a","trial":0}` + "\n" + `{"task_id":` + "\n" + `{"task_id":"b","trial":0}` + "\n"
	_, _, err := ReadJSONL(strings.NewReader(in))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err = %v; want an error naming line 2", err)
	}
}

func TestWriterCutsIncompleteTail(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SimulationsFile)
	writeLines(t, path, rec("a", 0, evaluator.UserStop), rec("b", 0, evaluator.UserStop))
	b, _ := os.ReadFile(path)
	if err := os.WriteFile(path, b[:len(b)-10], 0o644); err != nil {
		t.Fatal(err)
	}
	writeLines(t, path, rec("b", 0, evaluator.AgentStop), rec("c", 0, evaluator.UserStop))
	recs, info, err := ReadJSONLFile(path)
	if err != nil || info.Truncated {
		t.Fatalf("read: %v, truncated %v", err, info.Truncated)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.TaskID)
	}
	if strings.Join(got, ",") != "a,b,c" {
		t.Errorf("records = %v; want a,b,c", got)
	}
}

func TestWriterConcurrent(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), SimulationsFile)
	w, err := OpenWriter(path)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			r := rec(fmt.Sprint(i), 0, evaluator.UserStop)
			r.Messages = append(r.Messages, message.Message{Role: message.User, Content: strings.Repeat("x", 10000)})
			if err := w.Write(r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	recs, _, err := ReadJSONLFile(path)
	if err != nil || len(recs) != 64 {
		t.Fatalf("read %d records, %v; want 64", len(recs), err)
	}
}

func TestLatestSupersedes(t *testing.T) {
	t.Parallel()
	recs := []Record{
		rec("a", 0, evaluator.InfrastructureError),
		rec("b", 0, evaluator.UserStop),
		rec("a", 1, evaluator.UserStop),
		rec("a", 0, evaluator.AgentStop),
	}
	got := Latest(recs)
	if len(got) != 3 || got[0].Key() != (UnitKey{"a", 0}) || got[0].TerminationReason != evaluator.AgentStop {
		t.Errorf("Latest = %+v; want a/0 (agent_stop), b/0, a/1", got)
	}
}

func TestManifestDiff(t *testing.T) {
	t.Parallel()
	base := Manifest{HarnessVersion: "1", CreatedAt: "t0", Domain: "retail", Agent: "baseline", Backbone: "gpt",
		TaskIDs: []string{"1", "2", "3"}, Trials: 4, TrialSeeds: []int64{1, 2, 3, 4}, Seed: 300, MaxSteps: 200, MaxErrors: 10}
	same := base
	same.CreatedAt, same.HarnessVersion = "t1", "2"
	if d := base.Diff(&same); len(d) != 0 {
		t.Errorf("Diff of equal manifests = %v; want none", d)
	}
	other := base
	other.Agent = "ledgeragent"
	other.TaskIDs = []string{"1", "2", "4"}
	other.Shard = "1/2"
	d := base.Diff(&other)
	want := []string{`agent: "baseline" → "ledgeragent"`, `shard: (none) → "1/2"`, "task_ids: 1 added (4), 1 removed (3)"}
	if strings.Join(d, "\n") != strings.Join(want, "\n") {
		t.Errorf("Diff = %q; want %q", d, want)
	}
	if d := base.Diff(&other, "shard", "agent", "task_ids"); len(d) != 0 {
		t.Errorf("Diff ignoring = %v; want none", d)
	}
}

func TestRunDirCreateLoad(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	m := &Manifest{Domain: "retail", TaskIDs: []string{"a"}, Trials: 1}
	if err := Create(dir, m); err != nil {
		t.Fatal(err)
	}
	if err := Create(dir, m); err == nil {
		t.Error("Create over an existing run succeeded")
	}
	writeLines(t, filepath.Join(dir, SimulationsFile), rec("a", 0, evaluator.InfrastructureError), rec("a", 0, evaluator.UserStop))
	run, err := LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	if run.Manifest.Domain != "retail" || len(run.Records) != 1 || run.Superseded != 1 {
		t.Errorf("LoadRun = %+v", run)
	}
	if len(run.SupersededRecords) != 1 || !run.SupersededRecords[0].Infrastructure() || run.Records[0].Infrastructure() {
		t.Errorf("LoadRun kept %+v as superseded, %+v as latest; want the infrastructure error superseded by the re-run", run.SupersededRecords, run.Records)
	}
	if _, err := LoadRun(t.TempDir()); err == nil {
		t.Error("LoadRun of an empty directory succeeded")
	}
}

func FuzzReadJSONL(f *testing.F) {
	f.Add([]byte(`{"task_id":"a","trial":0}` + "\n"))
	f.Add([]byte(`{"task_id":"a","trial":0}` + "\n" + `{"task_id":"b"`))
	f.Add([]byte("\n\n{}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, info, err := ReadJSONL(bytes.NewReader(data))
		if err == nil && info.Lines != len(recs) {
			t.Errorf("info.Lines %d != %d records", info.Lines, len(recs))
		}
	})
}

// TestPartitionRejudged: a re-judged record (the judge_pending record's id)
// supersedes its pending state without making it a paid attempt: the
// judged record carries its cost. A re-run of a failed unit does make one.
func TestPartitionRejudged(t *testing.T) {
	t.Parallel()
	pending := rec("a", 0, evaluator.InfrastructureError)
	pending.JudgePending = evaluator.UserStop
	pending2 := pending // a re-judgement that failed again
	judged := pending
	judged.TerminationReason, judged.JudgePending = evaluator.UserStop, ""
	crashed := rec("b", 0, evaluator.InfrastructureError)
	rerun := rec("b", 0, evaluator.UserStop)
	rerun.ID = "b-0-rerun"
	otherID := judged
	otherID.ID = "other"
	tests := []struct {
		name           string
		recs           []Record
		latest, unpaid int
		superseded     []string
	}{
		{"re-judged", []Record{pending, judged}, 1, 1, nil},
		{"re-judged after a second failure", []Record{pending, pending2, judged}, 1, 2, nil},
		{"re-run after a crash", []Record{crashed, rerun}, 1, 0, []string{"b-0"}},
		{"pending superseded by another simulation", []Record{pending, otherID}, 1, 0, []string{"a-0"}},
		{"both", []Record{pending, crashed, judged, rerun}, 2, 1, []string{"b-0"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			latest, superseded := Partition(tc.recs)
			var ids []string
			for _, r := range superseded {
				ids = append(ids, r.ID)
			}
			if len(latest) != tc.latest || strings.Join(ids, ",") != strings.Join(tc.superseded, ",") {
				t.Errorf("Partition: %d latest, superseded %v; want %d, %v", len(latest), ids, tc.latest, tc.superseded)
			}
			if len(latest)+len(superseded)+tc.unpaid != len(tc.recs) {
				t.Errorf("Partition lost records: %d + %d + %d continued != %d", len(latest), len(superseded), tc.unpaid, len(tc.recs))
			}
		})
	}
}

// TestLock: a run directory has one writer: a second lock (another open
// file, as another process would hold) is refused naming the holder's pid,
// and is granted once the first is released.
func TestLock(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "run")
	first, err := Lock(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(dir)
	if runtime.GOOS != "windows" && (!errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("process %d", os.Getpid()))) {
		t.Errorf("second Lock: %v; want ErrLocked naming pid %d", err, os.Getpid())
	}
	if err := first.Unlock(); err != nil {
		t.Fatal(err)
	}
	again, err := Lock(dir)
	if err != nil {
		t.Fatalf("Lock after Unlock: %v", err)
	}
	_ = again.Unlock()
	_ = again.Unlock() // a second Unlock does nothing
}
