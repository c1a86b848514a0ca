package tasks

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// The fast path decodes a task without reflection, with the pyjson
// scanners. It accepts only what it can decode exactly as strictDecode
// does: keys spelled as the fields are (encoding/json also matches other
// cases), no key twice (encoding/json merges repeats), no null where
// encoding/json would leave a value unchanged, and no number anywhere a
// field is typed. Anything else, valid or not, makes it give up, and
// decodeTask decodes the task with strictDecode, which then gives the value
// or the error. So the fast path changes how long a decode takes, never its
// result: FuzzDecodeFast checks that whatever it decodes, strictDecode
// decodes to the same task.

// errSlow stops the fast path; the caller falls back to strictDecode.
var errSlow = errors.New("tasks: left to encoding/json")

var null = []byte("null")

// decodeFast decodes a task, or returns errSlow.
func decodeFast(raw []byte) (Task, error) {
	var t Task
	var seen fields
	err := fastObject(raw, func(k string, v []byte) error {
		var err error
		switch k {
		case "id":
			err = seen.once(0, func() error { return fastString(v, &t.ID) })
		case "description":
			err = seen.once(1, func() error { return fastPtr(v, &t.Description, fastDescription) })
		case "user_scenario":
			err = seen.once(2, func() error { return fastScenario(v, &t.UserScenario) })
		case "ticket":
			err = seen.once(3, func() error { return fastPtr(v, &t.Ticket, fastString) })
		case "initial_state":
			err = seen.once(4, func() error { return fastPtr(v, &t.InitialState, fastInitialState) })
		case "evaluation_criteria":
			err = seen.once(5, func() error { return fastPtr(v, &t.EvaluationCriteria, fastCriteria) })
		case "issues":
			err = seen.once(6, func() error { return fastRaw(v, &t.Issues) })
		case "required_documents":
			err = seen.once(7, func() error { return fastStrings(v, &t.RequiredDocuments) })
		case "user_tools":
			err = seen.once(8, func() error { return fastStrings(v, &t.UserTools) })
		case "annotations":
			err = seen.once(9, func() error { return fastRaw(v, &t.Annotations) })
		default:
			return errSlow
		}
		return err
	})
	return t, err
}

// fields records which keys of an object were seen.
type fields uint32

// once runs decode for field i unless the key was seen before (errSlow).
func (f *fields) once(i uint, decode func() error) error {
	if *f&(1<<i) != 0 {
		return errSlow
	}
	*f |= 1 << i
	return decode()
}

// fastObject calls fn for each entry of a JSON object (not null).
func fastObject(v []byte, fn func(k string, v []byte) error) error {
	if len(v) == 0 || v[0] != '{' {
		return errSlow
	}
	if err := pyjson.Object(v, fn); err != nil {
		return errSlow
	}
	return nil
}

// fastArray calls fn for each element of a JSON array (not null).
func fastArray(v []byte, fn func(elem []byte) error) error {
	if len(v) == 0 || v[0] != '[' {
		return errSlow
	}
	if err := pyjson.Array(v, func(_ int, e []byte) error { return fn(e) }); err != nil {
		return errSlow
	}
	return nil
}

// fastString decodes a string (not null).
func fastString(v []byte, s *string) error {
	if len(v) == 0 || v[0] != '"' {
		return errSlow
	}
	d, err := pyjson.DecodeString(v)
	if err != nil {
		return errSlow
	}
	*s = d
	return nil
}

// fastPtr decodes into a pointer field: null is nil.
func fastPtr[T any](v []byte, p **T, decode func([]byte, *T) error) error {
	if bytes.Equal(v, null) {
		*p = nil
		return nil
	}
	x := new(T)
	if err := decode(v, x); err != nil {
		return err
	}
	*p = x
	return nil
}

// fastRaw keeps a value's bytes, as json.RawMessage does (null included).
func fastRaw(v []byte, r *json.RawMessage) error {
	if !json.Valid(v) {
		return errSlow
	}
	*r = bytes.Clone(v)
	return nil
}

// fastStrings decodes a list of strings: null is nil, [] is empty.
func fastStrings(v []byte, out *[]string) error {
	return fastList(v, out, fastString)
}

// fastList decodes a list: null is nil, [] is empty (not nil), as
// encoding/json decodes into a nil slice.
func fastList[T any](v []byte, out *[]T, decode func([]byte, *T) error) error {
	if bytes.Equal(v, null) {
		*out = nil
		return nil
	}
	list := []T{}
	err := fastArray(v, func(e []byte) error {
		var x T
		if err := decode(e, &x); err != nil {
			return err
		}
		list = append(list, x)
		return nil
	})
	if err != nil {
		return err
	}
	*out = list
	return nil
}

func fastDescription(v []byte, d *Description) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "purpose":
			return seen.once(0, func() error { return fastPtr(v, &d.Purpose, fastString) })
		case "relevant_policies":
			return seen.once(1, func() error { return fastPtr(v, &d.RelevantPolicies, fastString) })
		case "notes":
			return seen.once(2, func() error { return fastPtr(v, &d.Notes, fastString) })
		}
		return errSlow // ignored upstream, but it may match a field's other case
	})
}

func fastScenario(v []byte, s *UserScenario) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "persona":
			return seen.once(0, func() error { return fastPtr(v, &s.Persona, fastString) })
		case "instructions":
			return seen.once(1, func() error { return fastInstructions(v, &s.Instructions) })
		}
		if strings.EqualFold(k, "persona") || strings.EqualFold(k, "instructions") {
			return errSlow // encoding/json matches keys case-insensitively
		}
		return nil // ignored, as upstream's pydantic model ignores it
	})
}

func fastInstructions(v []byte, in *Instructions) error {
	if len(v) > 0 && v[0] == '"' {
		return fastString(v, &in.Text)
	}
	var s StructuredInstructions
	var seen fields
	err := fastObject(v, func(k string, v []byte) error {
		switch k {
		case "domain":
			return seen.once(0, func() error { return fastString(v, &s.Domain) })
		case "reason_for_call":
			return seen.once(1, func() error { return fastString(v, &s.ReasonForCall) })
		case "known_info":
			return seen.once(2, func() error { return fastPtr(v, &s.KnownInfo, fastString) })
		case "unknown_info":
			return seen.once(3, func() error { return fastPtr(v, &s.UnknownInfo, fastString) })
		case "task_instructions":
			return seen.once(4, func() error { return fastString(v, &s.TaskInstructions) })
		}
		return errSlow
	})
	if err != nil {
		return err
	}
	in.Structured = &s
	return nil
}

func fastInitialState(v []byte, s *InitialState) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "initialization_data":
			return seen.once(0, func() error { return fastPtr(v, &s.InitializationData, fastInitData) })
		case "initialization_actions":
			return seen.once(1, func() error { return fastList(v, &s.InitializationActions, fastCall) })
		case "message_history":
			return seen.once(2, func() error { return fastList(v, &s.MessageHistory, fastRaw) })
		}
		return errSlow
	})
}

func fastInitData(v []byte, d *InitializationData) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "agent_data":
			return seen.once(0, func() error { return fastRaw(v, &d.AgentData) })
		case "user_data":
			return seen.once(1, func() error { return fastRaw(v, &d.UserData) })
		}
		if strings.EqualFold(k, "agent_data") || strings.EqualFold(k, "user_data") {
			return errSlow // encoding/json matches keys case-insensitively
		}
		return nil // ignored, as upstream's pydantic model ignores it
	})
}

func fastCall(v []byte, c *EnvFunctionCall) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "env_type":
			return seen.once(0, func() error { return fastString(v, &c.EnvType) })
		case "func_name":
			return seen.once(1, func() error { return fastString(v, &c.FuncName) })
		case "arguments":
			return seen.once(2, func() error { return fastRaw(v, &c.Arguments) })
		}
		return errSlow
	})
}

func fastCriteria(v []byte, c *EvaluationCriteria) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "actions":
			return seen.once(0, func() error { return fastList(v, &c.Actions, fastAction) })
		case "env_assertions":
			return seen.once(1, func() error { return fastList(v, &c.EnvAssertions, fastAssertion) })
		case "communicate_info":
			return seen.once(2, func() error { return fastStrings(v, &c.CommunicateInfo) })
		case "nl_assertions":
			return seen.once(3, func() error { return fastStrings(v, &c.NLAssertions) })
		case "reward_basis":
			return seen.once(4, func() error {
				return fastList(v, &c.RewardBasis, func(v []byte, r *RewardType) error { return fastString(v, (*string)(r)) })
			})
		}
		return errSlow
	})
}

func fastAction(v []byte, a *Action) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "action_id":
			return seen.once(0, func() error { return fastString(v, &a.ActionID) })
		case "requestor":
			return seen.once(1, func() error { return fastString(v, &a.Requestor) })
		case "name":
			return seen.once(2, func() error { return fastString(v, &a.Name) })
		case "arguments":
			return seen.once(3, func() error { return fastRaw(v, &a.Arguments) })
		case "info":
			return seen.once(4, func() error { return fastPtr(v, &a.Info, fastString) })
		case "compare_args":
			return seen.once(5, func() error { return fastPtr(v, &a.CompareArgs, fastStrings) })
		}
		return errSlow
	})
}

func fastAssertion(v []byte, a *EnvAssertion) error {
	var seen fields
	return fastObject(v, func(k string, v []byte) error {
		switch k {
		case "env_type":
			return seen.once(0, func() error { return fastString(v, &a.EnvType) })
		case "func_name":
			return seen.once(1, func() error { return fastString(v, &a.FuncName) })
		case "arguments":
			return seen.once(2, func() error { return fastRaw(v, &a.Arguments) })
		case "assert_value":
			return seen.once(3, func() error { return fastPtr(v, &a.AssertValue, fastBool) })
		case "message":
			return seen.once(4, func() error { return fastPtr(v, &a.Message, fastString) })
		}
		return errSlow
	})
}

func fastBool(v []byte, b *bool) error {
	switch string(v) {
	case "true":
		*b = true
	case "false":
		*b = false
	default:
		return errSlow
	}
	return nil
}
