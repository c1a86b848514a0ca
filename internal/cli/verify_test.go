package cli

import (
	"encoding/csv"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestVerifyFormats: the CSV table counts what the JSON lines say task by
// task; markdown and text print the same table.
func TestVerifyFormats(t *testing.T) {
	t.Parallel()
	args := []string{"verify", "--domain", "retail", "--limit", "4"}
	js := mustRun(t, append(args, "--json")...)
	tasks, passed := 0, 0
	for _, line := range strings.Split(strings.TrimSpace(js.out), "\n") {
		var l struct {
			Domain string  `json:"domain"`
			Reward float64 `json:"reward"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil || l.Domain != "retail" {
			t.Fatalf("not a verify line (%v): %s", err, line)
		}
		tasks++
		if l.Reward == 1 {
			passed++
		}
	}
	recs, err := csv.NewReader(strings.NewReader(mustRun(t, append(args, "--format", "csv")...).out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0][0] != "Domain" || recs[1][0] != "retail" {
		t.Fatalf("csv = %v; want a header and the retail row", recs)
	}
	if recs[1][1] != strconv.Itoa(tasks) || recs[1][2] != strconv.Itoa(passed) {
		t.Errorf("csv row %v; json lines say %d tasks, %d passed", recs[1], tasks, passed)
	}
	if _, err := strconv.ParseFloat(recs[1][5], 64); err != nil {
		t.Errorf("time cell %q is not a number", recs[1][5])
	}
	for _, f := range []string{"text", "markdown"} {
		out := mustRun(t, append(args, "--format", f)...).out
		if !strings.Contains(out, "Gold trajectories earning full reward") || !strings.Contains(out, "| retail ") {
			t.Errorf("--format %s:\n%s", f, out)
		}
	}
}
