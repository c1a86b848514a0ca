package telehealth

import (
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
)

// ConvertTasks turns an upstream task list (tasks_<split>.py) into JSON
// (tauv1.ConvertTasks). When file is tasks_<split>.py the list must be
// TASKS_<SPLIT>, since upstream imports that name; any other file may name
// its TASKS* list freely.
func ConvertTasks(file string, src []byte) ([]byte, error) {
	symbol := ""
	base := filepath.Base(file)
	if split, ok := strings.CutPrefix(strings.TrimSuffix(base, ".py"), "tasks_"); ok && strings.HasSuffix(base, ".py") {
		symbol = "TASKS_" + strings.ToUpper(split)
	}
	return tauv1.ConvertTasks(file, src, symbol)
}
