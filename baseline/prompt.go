package baseline

// Instruction is the agent's instruction: our wording of upstream's
// AGENT_INSTRUCTION (same meaning and layout: who the agent is, the one
// action per turn rule, and the closing reminder; port-tau2.md §7).
const Instruction = `You are a customer service agent: help the user in line with the <policy> given below.
On each turn you may do one of two things:
- Send the user a message.
- Call a tool.
You may not do both in the same turn.

Be helpful and always comply with the policy. Make sure any JSON you produce is valid.`

// SystemPrompt is the agent's system message, structured as upstream's: the
// instruction in <instructions> tags followed by the domain policy in
// <policy> tags.
func SystemPrompt(policy string) string {
	return "<instructions>\n" + Instruction + "\n</instructions>\n<policy>\n" + policy + "\n</policy>"
}
