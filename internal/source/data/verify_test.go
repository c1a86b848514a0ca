package data_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

func TestDomainFiles(t *testing.T) {
	t.Parallel()
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		domain    string
		must      string
		mustNot   string
		wantTrait bool
	}{
		{"airline", "data/tau2/domains/airline/db.json", "data/tau2/domains/retail/db.json", false},
		{"retail", "src/tau2/domains/retail/tools.py", "src/tau2/domains/airline/tools.py", false},
		{"telecom-workflow", "data/tau2/domains/telecom/tasks.json", "data/tau2/domains/airline/tasks.json", false},
		{"telehealth", "tau_trait/envs/telehealth/wiki.md", "tau_trait/envs/airline/data/users.json", true},
		{"tautrait-airline", "tau_trait/envs/airline/data/users.json", "tau_trait/envs/retail/data/users.json", true},
		{"tautrait-retail", "tau_trait/envs/user.py", "tau_trait/envs/telehealth/wiki.md", true},
		{"taubench-airline", "tau_bench/envs/airline/tasks_test.py", "tau_trait/envs/airline/tasks_test.py", false},
		{"taubench-retail", "tau_bench/envs/user.py", "tau_bench/envs/airline/data/users.json", false},
	}
	for _, tc := range tests {
		t.Run(tc.domain, func(t *testing.T) {
			files := m.DomainFiles(tc.domain)
			has := map[string]bool{}
			trait := false
			for _, f := range files {
				has[f.Path] = true
				trait = trait || f.Folder == data.TauTrait
			}
			if tc.must != "" && !has[tc.must] {
				t.Errorf("DomainFiles(%s) lacks %s", tc.domain, tc.must)
			}
			if has[tc.mustNot] {
				t.Errorf("DomainFiles(%s) holds %s", tc.domain, tc.mustNot)
			}
			if trait != tc.wantTrait {
				t.Errorf("DomainFiles(%s) tau-trait files: %v; want %v", tc.domain, trait, tc.wantTrait)
			}
		})
	}
}

// TestCheckDomainCorrupted copies the airline files, corrupts the database,
// and checks that the check refuses it unless allowed, naming the file.
func TestCheckDomainCorrupted(t *testing.T) {
	t.Parallel()
	m, err := data.LoadManifest()
	if err != nil {
		t.Fatal(err)
	}
	src := datatest.Root(t)
	if mods, err := m.CheckDomain(src, "airline", false); err != nil || len(mods) != 0 {
		t.Fatalf("pinned data: %v %v", mods, err)
	}
	dst := t.TempDir()
	for _, f := range m.DomainFiles("airline") {
		b, err := os.ReadFile(filepath.Join(src, f.Folder, f.Path))
		if err != nil {
			t.Fatal(err)
		}
		if f.Path == "data/tau2/domains/airline/db.json" {
			b = append([]byte(nil), b...)
			b[len(b)/2] ^= 1
		}
		p := filepath.Join(dst, f.Folder, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err = m.CheckDomain(dst, "airline", false)
	if !errors.Is(err, data.ErrModified) || !strings.Contains(err.Error(), "airline/db.json") || !strings.Contains(err.Error(), "--allow-modified-data") {
		t.Fatalf("corrupted db: err %v; want ErrModified naming db.json and the flag", err)
	}
	mods, err := m.CheckDomain(dst, "airline", true)
	if err != nil || len(mods) != 1 || mods[0].File.Path != "data/tau2/domains/airline/db.json" || mods[0].Got == "" || mods[0].Got == mods[0].File.SHA256 {
		t.Fatalf("allowed: %+v %v; want db.json with its actual hash", mods, err)
	}
}

// BenchmarkCheckDomain measures the hash check a run pays at start-up.
func BenchmarkCheckDomain(b *testing.B) {
	m, err := data.LoadManifest()
	if err != nil {
		b.Fatal(err)
	}
	root := datatest.Root(b)
	for _, d := range []string{"airline", "retail", "telecom", "telehealth"} {
		b.Run(d, func(b *testing.B) {
			for b.Loop() {
				if _, err := m.CheckDomain(root, d, false); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
