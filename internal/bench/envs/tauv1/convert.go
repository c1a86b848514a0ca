package tauv1

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// ConvertTasks turns an upstream task list (tasks_<split>.py) into JSON:
// the list assigned to TASKS_<SPLIT>, each Task(...) and Action(...) call
// written as an object of its keyword arguments in source order, as
// json.dump(tasks, indent=2, ensure_ascii=False) plus a newline writes it.
// file names the source in errors; when it is tasks_<split>.py the list must
// be TASKS_<SPLIT>, since upstream imports that name.
func ConvertTasks(file string, src []byte) ([]byte, error) {
	return ConvertList(file, src, "")
}

// ConvertList is ConvertTasks with the list's name given: name is the
// TASKS_* name the list must have ("" for the one tasks_<split>.py implies;
// any TASKS_* name when file is not named so). A file whose list upstream's
// import cannot find is converted under the name it does define by passing
// that name.
func ConvertList(file string, src []byte, name string) ([]byte, error) {
	list, err := taskList(file, src, name)
	if err != nil {
		return nil, err
	}
	b, err := pyjson.MarshalOptions(list, pyjson.Options{Indent: 2, UnicodeOK: true})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return append(b, '\n'), nil
}

// ImportName is the list name upstream's environment imports from
// tasks_<split>.py: TASKS_<SPLIT>.
func ImportName(split string) string { return "TASKS_" + strings.ToUpper(split) }

func assignment(file string, src []byte) (*pyliteral.Assign, error) {
	a, err := pyliteral.Assignment(src, func(name string) bool { return strings.HasPrefix(name, "TASKS_") })
	if err != nil {
		if errors.Is(err, pyliteral.ErrNoAssignment) {
			return nil, fmt.Errorf("%s: no TASKS_* = [...] assignment", file)
		}
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return a, nil
}

// taskList parses the file's task list into plain values (*pyjson.Dict,
// []any, string, json.Number, float64, bool, nil).
func taskList(file string, src []byte, want string) ([]any, error) {
	a, err := assignment(file, src)
	if err != nil {
		return nil, err
	}
	if want == "" {
		base := filepath.Base(file)
		if split, ok := strings.CutPrefix(strings.TrimSuffix(base, ".py"), "tasks_"); ok && strings.HasSuffix(base, ".py") {
			want = ImportName(split)
		}
	}
	if want != "" && a.Name != want {
		return nil, fmt.Errorf("%s: defines %s, not %s (upstream's import would fail)", file, a.Name, want)
	}
	list, ok := a.Value.([]any)
	if !ok {
		return nil, fmt.Errorf("%s: line %d: %s is not a list", file, a.Line, a.Name)
	}
	out := make([]any, len(list))
	for i, v := range list {
		c, ok := v.(*pyliteral.Call)
		if !ok || !isCall(c, "Task") {
			return nil, fmt.Errorf("%s: %s[%d] is not a Task(...) call", file, a.Name, i)
		}
		if out[i], err = plain(file, v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func isCall(c *pyliteral.Call, name string) bool {
	return c.Func == name || strings.HasSuffix(c.Func, "."+name)
}

// plain converts a literal to JSON-ready values: Task and Action calls
// become objects of their keyword arguments, tuples become lists.
func plain(file string, v any) (any, error) {
	switch x := v.(type) {
	case *pyliteral.Call:
		if !isCall(x, "Task") && !isCall(x, "Action") {
			return nil, fmt.Errorf("%s: line %d, column %d: call of %s (only Task and Action are supported)", file, x.Line, x.Col, x.Func)
		}
		if len(x.Args) > 0 {
			return nil, fmt.Errorf("%s: line %d, column %d: %s(...) with positional arguments (use keywords)", file, x.Line, x.Col, x.Func)
		}
		return plainDict(file, x.Kwargs)
	case *pyjson.Dict:
		return plainDict(file, x)
	case pyliteral.Tuple:
		return plainList(file, x)
	case []any:
		return plainList(file, x)
	}
	return v, nil
}

func plainDict(file string, d *pyjson.Dict) (any, error) {
	out := &pyjson.Dict{Keys: append([]string(nil), d.Keys...), Values: make([]any, len(d.Values))}
	for i, v := range d.Values {
		p, err := plain(file, v)
		if err != nil {
			return nil, err
		}
		out.Values[i] = p
	}
	return out, nil
}

func plainList(file string, l []any) (any, error) {
	out := make([]any, len(l))
	for i, v := range l {
		p, err := plain(file, v)
		if err != nil {
			return nil, err
		}
		out[i] = p
	}
	return out, nil
}
