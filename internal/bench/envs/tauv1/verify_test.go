package tauv1_test

import (
	"context"
	"sync"
	"testing"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/engine/gold"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
	"github.com/ledgerbench/ledgerbench/internal/source/data/datatest"
)

var (
	loadedMu sync.Mutex
	loaded   = map[string]*tauv1.Domain{}
)

// loadV1 loads one of the four domains once per test binary.
func loadV1(t *testing.T, vd v1Domain) *tauv1.Domain {
	t.Helper()
	root := datatest.Repo(t, data.TauBench, data.TauTrait)
	loadedMu.Lock()
	defer loadedMu.Unlock()
	if d, ok := loaded[vd.name]; ok {
		return d
	}
	d, err := vd.load(root)
	if err != nil {
		t.Fatalf("load %s: %v", vd.name, err)
	}
	loaded[vd.name] = d
	return d
}

// TestVerifyGold plays every task's gold trajectory (the gold actions, then
// a reply stating each expected output) on every split and checks it earns
// full reward, as upstream's own code gives it (TestOracleEnvironments
// measures that against upstream).
func TestVerifyGold(t *testing.T) {
	t.Parallel()
	for _, vd := range v1Domains {
		t.Run(vd.name, func(t *testing.T) {
			t.Parallel()
			d := loadV1(t, vd)
			for _, split := range d.Tasks().SplitNames() {
				list := d.Tasks().Extra[split]
				passed := 0
				for i := range list {
					res, err := gold.Verify(context.Background(), d, &list[i], evaluator.Options{})
					if err != nil {
						t.Errorf("%s task %s: %v", split, list[i].ID, err)
						continue
					}
					if !res.Passed {
						t.Errorf("%s task %s: reward %v; info %+v", split, list[i].ID, res.Reward, res.Info)
						continue
					}
					passed++
				}
				t.Logf("%s: %d/%d tasks pass gold verification", split, passed, len(list))
			}
		})
	}
}
