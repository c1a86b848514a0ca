package results

import "encoding/json"

// Implementation names upstream writes into a solo run's info (its registry
// names of LLMSoloAgent and DummyUser).
const (
	SoloAgentImplementation = "llm_agent_solo"
	DummyUserImplementation = "dummy_user"
)

// IsSolo reports whether a τ²-bench results file's info describes a solo
// run, as upstream's evaluate_trajectories.is_solo_mode decides: the agent's
// implementation is llm_agent_solo and the user's dummy_user.
func IsSolo(info json.RawMessage) bool {
	var in struct {
		AgentInfo struct {
			Implementation string `json:"implementation"`
		} `json:"agent_info"`
		UserInfo struct {
			Implementation string `json:"implementation"`
		} `json:"user_info"`
	}
	if json.Unmarshal(info, &in) != nil {
		return false
	}
	return in.AgentInfo.Implementation == SoloAgentImplementation && in.UserInfo.Implementation == DummyUserImplementation
}
