package telehealth

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// toolsPackage is the Python package of the tool modules (for Python's
// binding errors, tauv1.CheckInvoke).
const toolsPackage = "tau_trait.envs.telehealth.tools"

// Meta is a τ-Trait task's upstream metadata (tauv1.Meta).
type Meta = tauv1.Meta

// TaskMeta returns a telehealth task's upstream metadata (the simulated
// user's user_id among it).
func TaskMeta(t *tasks.Task) (Meta, error) { return tauv1.TaskMeta(t) }

// LoadTasks reads tasks_test.py, tasks_dev.py and tasks_train.py from dir
// (upstream's telehealth folder) and maps them onto the task model
// (tauv1.LoadTasks); the default split is test.
func LoadTasks(dir string) (*tasks.Set, error) {
	return tauv1.LoadTasks(Name, "τ-Trait telehealth", dir, tauv1.StandardSplits())
}

// LoadSchemas reads the get_info() dict of every tool, in ALL_TOOLS order,
// from the pulled tool modules under dir (the telehealth folder).
func LoadSchemas(dir string) ([]tauv1.Schema, error) {
	defs := newTools()
	names := make([]tauv1.Def, len(defs))
	for i, def := range defs {
		names[i] = tauv1.Def{Name: def.tool.Name, Class: def.class}
	}
	return tauv1.LoadSchemas(Name, dir, names)
}
