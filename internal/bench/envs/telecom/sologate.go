package telecom

// LedgerAgent's telecom policy for solo runs (upstream's llm_agent_solo with
// its dummy user): there is no user, and the agent holds the phone's tools
// as well as its own (ledgeragent.SoloPolicy).
//
//   - The agent's own successful calls of the phone's read tools are its
//     observations: each is kept at phone.<tool> (the last return). The
//     phone's write tools change nothing in the ledger (observe, don't
//     assume), like every write.
//   - Predicates that ask the agent to confirm something with the user do
//     not apply: telecom.refuel_data.price_known exists so that the price
//     can be confirmed with the user ("confirm the price with the user"),
//     and in a solo run there is no one to confirm it with. Every other
//     predicate reads only carrier records and applies unchanged.

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/ledger"
	toolpkg "github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// pathPhone prefixes the phone readings of a solo run.
const pathPhone = "phone."

// soloDropped are the predicates that need a user.
var soloDropped = []string{"telecom.refuel_data.price_known"}

// PhoneReading is what one of the phone's read tools returned to a solo
// agent.
type PhoneReading struct {
	Tool   string `json:"tool"`
	Output string `json:"output"`
}

// SoloGatePredicates implements ledgeragent.SoloPolicy.
func (d *Domain) SoloGatePredicates() []ledger.Predicate {
	return slices.DeleteFunc(d.GatePredicates(), func(p ledger.Predicate) bool {
		return slices.Contains(soloDropped, p.ID)
	})
}

// RouteUser implements ledgeragent.SoloPolicy: a successful return of a
// phone read tool the solo agent called itself.
func (d *Domain) RouteUser(tool string, _ json.RawMessage, output string) []ledger.Entry {
	t, ok := d.user.Lookup(tool)
	if !ok || t.Kind != toolpkg.Read || strings.TrimSpace(output) == "" {
		return nil
	}
	return []ledger.Entry{{Path: pathPhone + tool, Value: &PhoneReading{Tool: tool, Output: output}}}
}
