package tauv1_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/v1airline"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/v1retail"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

// copyEnv copies one environment's pulled folder into a data directory of
// its own (the other repositories' files are not needed to load it).
func copyEnv(t *testing.T, src tauv1.Source, env string) string {
	t.Helper()
	from := src.Dir(datatest.Repo(t, src.Folder), env)
	root := t.TempDir()
	to := src.Dir(root, env)
	err := filepath.Walk(from, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if fi.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(to, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// TestLoadBadInput: a task list that does not convert, a task of the wrong
// shape, a missing or altered tool module, a missing data file or a record
// that is not a dict is a load error naming the file and the item.
func TestLoadBadInput(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		src    tauv1.Source
		env    string
		file   string
		change func(b []byte) []byte // nil: delete the file
		want   []string
	}{
		{"tasks do not convert", tauv1.TauBench, "airline", "tasks_test.py",
			func(b []byte) []byte {
				return []byte(strings.Replace(string(b), `user_id="mia_li_3668",`, `user_id="mia_li_3668" instruction=1,`, 1))
			},
			[]string{"tasks_test.py", "line"}},
		{"wrong list name", tauv1.TauBench, "airline", "tasks_test.py",
			func(b []byte) []byte { return []byte(strings.Replace(string(b), "TASKS = [", "TASKS_TEST = [", 1)) },
			[]string{"tasks_test.py", "defines TASKS_TEST, not TASKS"}},
		{"task of the wrong shape", tauv1.TauTrait, "retail", "tasks_dev.py",
			func(b []byte) []byte { return []byte(strings.Replace(string(b), "outputs=[]", "outputs=[1]", 1)) },
			[]string{"tasks_dev.py", "task 0", "outputs.0"}},
		{"missing tool module", tauv1.TauTrait, "airline", "tools/book_reservation.py", nil,
			[]string{"book_reservation"}},
		{"tool renamed", tauv1.TauBench, "retail", "tools/think.py",
			func(b []byte) []byte {
				return []byte(strings.Replace(string(b), `"name": "think"`, `"name": "ponder"`, 1))
			},
			[]string{"think.py", "Think.get_info", `"ponder"`}},
		{"tool order", tauv1.TauBench, "airline", "tools/__init__.py",
			func(b []byte) []byte {
				return []byte(strings.Replace(string(b), "    BookReservation,\n    Calculate,", "    Calculate,\n    BookReservation,", 1))
			},
			[]string{"__init__.py", "ALL_TOOLS"}},
		{"missing data", tauv1.TauTrait, "retail", "data/products.json", nil,
			[]string{"products.json"}},
		{"record not a dict", tauv1.TauBench, "airline", "data/flights.json",
			func(b []byte) []byte { return []byte(`{"HAT001": [1, 2]}`) },
			[]string{"flights.json", `record "HAT001"`, "not a dict"}},
		{"rules", tauv1.TauBench, "retail", "rules.py",
			func(b []byte) []byte { return []byte("RULES = [1]\n") },
			[]string{"rules.py", "RULES[0]"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			root := copyEnv(t, tc.src, tc.env)
			p := filepath.Join(tc.src.Dir(root, tc.env), filepath.FromSlash(tc.file))
			if tc.change == nil {
				if err := os.Remove(p); err != nil {
					t.Fatal(err)
				}
			} else {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, tc.change(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var err error
			switch {
			case tc.env == "airline" && tc.src == tauv1.TauBench:
				_, err = v1airline.LoadTauBench(root)
			case tc.env == "airline":
				_, err = v1airline.LoadTauTrait(root)
			case tc.src == tauv1.TauBench:
				_, err = v1retail.LoadTauBench(root)
			default:
				_, err = v1retail.LoadTauTrait(root)
			}
			if err == nil {
				t.Fatal("loaded; want an error")
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// TestSplits: only the splits each env.py imports are offered, the default
// first; the older tasks.py is not among them, nor pulled.
func TestSplits(t *testing.T) {
	t.Parallel()
	want := map[string]string{
		"taubench-airline": "test:50", "tautrait-airline": "test:60",
		"taubench-retail": "test:115 train:500 dev:20", "tautrait-retail": "test:120 train:500 dev:20",
	}
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, vd := range v1Domains {
		d := loadV1(t, vd)
		var got []string
		for _, sp := range d.Config().Splits {
			got = append(got, sp.Name+":"+strconv.Itoa(len(d.Tasks().Extra[sp.Name])))
		}
		if strings.Join(got, " ") != want[vd.name] || d.Tasks().DefaultSplit != "test" {
			t.Errorf("%s: splits %v (default %s); want %s", vd.name, got, d.Tasks().DefaultSplit, want[vd.name])
		}
		for _, f := range m.DomainFiles(vd.name) {
			if strings.HasSuffix(f.Path, "/tasks.py") {
				t.Errorf("%s: the manifest pulls %s, which upstream never imports", vd.name, f.Path)
			}
		}
	}
}
