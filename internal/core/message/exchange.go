package message

// Exchange is one tool call of a trajectory together with the tool message
// that answered it.
type Exchange struct {
	// Message is the index of the calling (assistant or user) message.
	Message int
	// Call is the call, with Requestor filled from the calling message's
	// role when the record left it empty.
	Call ToolCall
	// Result is the index of the answering tool message, or -1 when the call
	// has no answer in the trajectory.
	Result int
}

// Answered reports whether the call got a tool message.
func (e Exchange) Answered() bool { return e.Result >= 0 }

// Exchanges pairs every tool call of the assistant and user messages of traj
// with the tool message that answered it, by position as upstream does
// (Environment.set_state's get_actions_from_messages): the run of tool
// messages directly after a calling message answers that message's calls in
// order. Ids only confirm the pairing inside that run — a call takes the
// first unused tool message of the run carrying its id — so ids that a
// provider reuses across (or within) messages never pair a call with another
// message's output. A call with no such tool message is unanswered.
func Exchanges(traj []Message) []Exchange {
	var out []Exchange
	for i := 0; i < len(traj); i++ {
		m := traj[i]
		if (m.Role != Assistant && m.Role != User) || len(m.ToolCalls) == 0 {
			continue
		}
		end := i + 1
		for end < len(traj) && traj[end].Role == Tool {
			end++
		}
		used := make([]bool, end-i-1)
		for _, tc := range m.ToolCalls {
			if tc.Requestor == "" {
				tc.Requestor = Requestor(m.Role)
			}
			ex := Exchange{Message: i, Call: tc, Result: -1}
			for j := i + 1; j < end; j++ {
				if !used[j-i-1] && traj[j].ToolCallID == tc.ID {
					used[j-i-1] = true
					ex.Result = j
					break
				}
			}
			out = append(out, ex)
		}
		i = end - 1
	}
	return out
}
