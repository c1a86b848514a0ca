package domains

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
)

// TestListMatchesKnown checks that every known domain has a loader and
// every loader a known name, in the same order.
func TestListMatchesKnown(t *testing.T) {
	t.Parallel()
	var got []string
	for _, e := range list {
		got = append(got, e.name)
	}
	if want := known.Names(); !slices.Equal(got, want) {
		t.Errorf("loaders %v; want the known domains %v", got, want)
	}
}

func TestBasesAndVariants(t *testing.T) {
	t.Parallel()
	for _, d := range known.All() {
		if !d.IsVariant() {
			continue
		}
		base, ok := known.Lookup(d.Base)
		if !ok || base.IsVariant() {
			t.Errorf("%s: base %q is not a known base domain", d.Name, d.Base)
		}
		if slices.Contains(Bases(), d.Name) {
			t.Errorf("Bases() = %v; holds the variant %s", Bases(), d.Name)
		}
	}
}

func TestLoadUnknown(t *testing.T) {
	t.Parallel()
	if _, err := Load("bogus", t.TempDir()); err == nil {
		t.Fatal("Load(bogus) = nil error; want unknown domain")
	}
	if _, err := LoadSolo("airline", t.TempDir()); err == nil {
		t.Fatal("LoadSolo(airline) = nil error; want no solo mode")
	}
}

// TestDerived builds the derived files from the shared data: the task lists
// of τ-Trait's telehealth (3), airline (1), retail (3) and telecom (3) and
// τ-bench v1's airline (1) and retail (3) as JSON arrays beside their .py
// sources.
func TestDerived(t *testing.T) {
	t.Parallel()
	root := datatest.Root(t)
	files, err := Derived(root)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 14 {
		t.Fatalf("Derived: %d files; want 14 (the splits of telehealth, tautrait-telecom and the v1 domains)", len(files))
	}
	for _, f := range files {
		py := strings.TrimSuffix(f.Path, ".json") + ".py"
		if _, err := os.Stat(py); err != nil {
			t.Errorf("%s: no source beside it: %v", f.Path, err)
		}
		var tasks []map[string]any
		if err := json.Unmarshal(f.Data, &tasks); err != nil || len(tasks) == 0 {
			t.Errorf("%s: want a non-empty JSON array of tasks (%d, %v)", f.Path, len(tasks), err)
		}
	}
}
