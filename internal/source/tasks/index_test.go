package tasks

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// copyTau2Tasks copies each τ²-bench domain's tasks.json and
// split_tasks.json from the test data into a fresh data directory.
func copyTau2Tasks(t testing.TB) string {
	t.Helper()
	src := datatest.Root(t)
	root := t.TempDir()
	for _, d := range []string{"airline", "retail", "telecom"} {
		if err := os.MkdirAll(data.Tau2Domain(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{"tasks.json", "split_tasks.json"} {
			b, err := os.ReadFile(filepath.Join(data.Tau2Domain(src, d), name))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(data.Tau2Domain(root, d), name), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	return root
}

// loadIndexed loads a domain's tasks and reports whether the index was
// used.
func loadIndexed(t *testing.T, root, domain string) (*Set, bool) {
	t.Helper()
	dir := data.Tau2Domain(root, domain)
	p := filepath.Join(dir, "tasks.json")
	m, err := data.ReadMapped(p)
	if err != nil {
		t.Fatal(err)
	}
	_, used := indexed(p, dir, m)
	m.Close()
	set, err := LoadTau2(dir, domain)
	if err != nil {
		t.Fatal(err)
	}
	return set, used
}

// TestIndexGivesTheScannedTasks: the index data pull writes splits each
// pinned tasks file into the tasks a scan finds, and LoadTau2 gives the
// same tasks with it as without.
func TestIndexGivesTheScannedTasks(t *testing.T) {
	root := copyTau2Tasks(t)
	scanned := map[string][]Task{}
	for _, d := range []string{"airline", "retail", "telecom"} {
		set, used := loadIndexed(t, root, d)
		if used {
			t.Fatalf("%s: an index was used before one was written", d)
		}
		all, err := set.All()
		if err != nil {
			t.Fatal(err)
		}
		scanned[d] = all
	}
	if err := WriteIndexes(root); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{"airline", "retail", "telecom"} {
		set, used := loadIndexed(t, root, d)
		if !used {
			t.Fatalf("%s: the index was not used", d)
		}
		base, err := set.Select(Selection{})
		if err != nil {
			t.Fatal(err)
		}
		all, err := set.All()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(all, scanned[d]) {
			t.Errorf("%s: tasks read with the index differ from the scanned ones", d)
		}
		if len(base) == 0 || len(base) > len(all) {
			t.Errorf("%s: base split has %d of %d tasks", d, len(base), len(all))
		}
	}
}

// TestIndexNotTrusted: an index is used only for the file and content it
// was written for; anything else is split by scanning, and no index is
// written for a file that is not the pinned one.
func TestIndexNotTrusted(t *testing.T) {
	root := copyTau2Tasks(t)
	if err := WriteIndexes(root); err != nil {
		t.Fatal(err)
	}
	dir := data.Tau2Domain(root, "airline")
	p := filepath.Join(dir, "tasks.json")
	orig, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(IndexPath(p))
	if err != nil {
		t.Fatal(err)
	}
	var ix indexFile
	if err := json.Unmarshal(good, &ix); err != nil {
		t.Fatal(err)
	}
	edit := func(change func(*indexFile)) []byte {
		c := ix
		c.Tasks = append(ranges(nil), ix.Tasks...)
		change(&c)
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	write := func(path string, b []byte) {
		t.Helper()
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct {
		name  string
		index []byte
	}{
		{"other format", edit(func(c *indexFile) { c.Format = "ledgerbench tasks index 0" })},
		{"other hash", edit(func(c *indexFile) { c.SHA256 = c.SHA256[:63] + "0" })},
		{"other stamp", edit(func(c *indexFile) { c.Stamp.ModNS++ })},
		{"boundary moved", edit(func(c *indexFile) { c.Tasks[3][1]-- })},
		{"task left out", edit(func(c *indexFile) { c.Tasks = append(c.Tasks[:3], c.Tasks[4:]...) })},
		{"last task left out", edit(func(c *indexFile) { c.Tasks = c.Tasks[:len(c.Tasks)-1] })},
		{"out of range", edit(func(c *indexFile) { c.Tasks[len(c.Tasks)-1][1] = len(orig) + 10 })},
		{"not JSON", []byte("{")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(IndexPath(p), tc.index)
			if _, used := loadIndexed(t, root, "airline"); used {
				t.Error("index used")
			}
		})
	}
	// Two tasks indexed as one look like one task from outside: that task
	// then fails to decode, naming the file and the task.
	write(IndexPath(p), edit(func(c *indexFile) { c.Tasks[3][1] = c.Tasks[4][1]; c.Tasks = append(c.Tasks[:4], c.Tasks[5:]...) }))
	set, used := loadIndexed(t, root, "airline")
	if !used {
		t.Fatal("index not used")
	}
	if _, err := set.All(); err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), "task ") {
		t.Errorf("All() with two tasks indexed as one: error %v, want one naming the file and task", err)
	}
	write(IndexPath(p), good)
	if _, used := loadIndexed(t, root, "airline"); !used {
		t.Fatal("the index as written is not used")
	}
	// The same content written again is another version of the file.
	write(p, orig)
	if _, used := loadIndexed(t, root, "airline"); used {
		t.Error("index used for a rewritten file")
	}
	// A modified file gets no index and loses the one it had.
	write(p, bytes.Replace(orig, []byte(`"id"`), []byte(`"id" `), 1))
	if err := WriteIndexes(root); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(IndexPath(p)); !os.IsNotExist(err) {
		t.Errorf("index of a modified file: stat error %v, want none there", err)
	}
	if _, used := loadIndexed(t, root, "airline"); used {
		t.Error("index used for a modified file")
	}
}
