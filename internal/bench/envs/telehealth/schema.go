package telehealth

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
)

// ToolsDir is the folder of upstream's tool modules inside the telehealth
// folder; each tool lives in <name>.py and describes itself in get_info().
const ToolsDir = tauv1.ToolsDir

// Schema is one tool's function schema as upstream's get_info() returns it.
type Schema = tauv1.Schema

// LoadSchemas reads the get_info() dict of every tool, in ALL_TOOLS order,
// from the pulled tool modules under dir (the telehealth folder). A missing
// file, a get_info that is not a literal or a dict not shaped
// {"type": "function", "function": {"name", "description", "parameters"}}
// is an error naming the file and the symbol.
func LoadSchemas(dir string) ([]Schema, error) {
	defs := newTools()
	out := make([]Schema, len(defs))
	for i, def := range defs {
		path := filepath.Join(dir, ToolsDir, def.tool.Name+".py")
		src, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("telehealth: tool schema of %s: %w", def.tool.Name, err)
		}
		s, err := parseSchema(src, def.tool.Name)
		if err != nil {
			return nil, fmt.Errorf("telehealth: %s: %s.get_info: %w", path, def.class, err)
		}
		out[i] = s
	}
	return out, nil
}

// parseSchema reads the get_info() dict of one tool module.
func parseSchema(src []byte, name string) (Schema, error) { return tauv1.ParseSchema(src, name) }
