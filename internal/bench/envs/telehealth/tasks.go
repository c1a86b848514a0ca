package telehealth

import (
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// splits are τ-Trait's telehealth task splits as its env.py imports them;
// test is the default.
var splits = []tauv1.Split{
	{Name: "test", File: "tasks_test.py", Symbol: "TASKS_TEST"},
	{Name: "dev", File: "tasks_dev.py", Symbol: "TASKS_DEV"},
	{Name: "train", File: "tasks_train.py", Symbol: "TASKS_TRAIN"},
}

// Meta is what a τ-Trait task carries beyond the τ² task model (see
// tauv1.Meta).
type Meta = tauv1.Meta

// TaskMeta returns a telehealth task's upstream metadata (the simulated
// user's user_id among it).
func TaskMeta(t *tasks.Task) (Meta, error) { return tauv1.TaskMeta(t) }

// LoadTasks reads tasks_test.py, tasks_dev.py and tasks_train.py from dir
// (upstream's telehealth folder) and maps them onto the task model. Task IDs
// are the index within the split ("0".."19" for test), so each split is its
// own list (Set.Extra); the default split is test.
func LoadTasks(dir string) (*tasks.Set, error) {
	return tauv1.LoadTasks(dir, Name, "τ-Trait telehealth", "tau-trait", splits)
}
