package tauv1

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// UnknownAction is upstream's observation for a name that is neither a tool
// nor respond (Env.step). It is an observation, not an error.
func UnknownAction(name string) string { return "Unknown action " + name }

// CheckInvoke reproduces Python's binding errors of upstream's call
// tools_map[name].invoke(data=self.data, **kwargs) before the tool runs:
// a "data" key collides with the data argument (a TypeError naming the
// function by its module, pkg.<name>.<Class>.invoke()), then the keyword
// checks of the static method (tool.CheckArgs, naming it <Class>.invoke()).
// pkg is the tools package, e.g. "tau_trait.envs.telehealth.tools"; each
// tool's module is <pkg>.<tool name>.
func CheckInvoke(pkg, class string, info tool.Info, args json.RawMessage) error {
	if bytes.Contains(args, []byte(`"data"`)) {
		var top map[string]json.RawMessage
		if json.Unmarshal(args, &top) == nil {
			if _, dup := top["data"]; dup {
				return fmt.Errorf("%s.%s.%s.invoke() got multiple values for keyword argument 'data'", pkg, info.Name, class)
			}
		}
	}
	return tool.CheckArgs(class, tool.Info{Name: "invoke", Params: info.Params}, args)
}
