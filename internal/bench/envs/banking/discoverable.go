package banking

import (
	"context"
	"fmt"
	"regexp"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// Discoverable tools: methods upstream marks with @is_discoverable_tool,
// hidden from the model's tool list. The agent unlocks its own through
// unlock_discoverable_agent_tool and runs them through
// call_discoverable_agent_tool; it hands the customer's to the user with
// give_discoverable_user_tool, who runs them through
// call_discoverable_user_tool. Their description (shown on unlock and on
// give) is their docstring as upstream's parse_discoverable_tool_docstring
// reads it, taken from the pulled tools.py.

// modulePrefix qualifies the toolkit classes in the TypeError Python gives
// for a ** argument that is not a mapping.
const modulePrefix = "tau2.domains.banking_knowledge.tools."

// dparam is one parameter of a discoverable tool's signature.
type dparam struct {
	name   string
	hasDef bool
	def    any
}

// dargs are a call's bound keyword arguments.
type dargs struct {
	vals   *pyjson.Dict
	params []dparam
}

// get is the value bound to a parameter: the argument, else its default.
func (a dargs) get(name string) any {
	if v, ok := a.vals.Get(name); ok {
		return v
	}
	for _, p := range a.params {
		if p.name == name {
			return p.def
		}
	}
	return nil
}

// dtool is a discoverable tool: its Go implementation, with what the
// source declares (kind, signature, docstring) filled in at load.
type dtool struct {
	name    string
	kind    tool.Kind
	mutates bool
	params  []dparam
	info    toolInfo
	run     func(ctx context.Context, e *Env, a dargs) (string, error)
}

func (t *dtool) hasParam(k any) bool {
	s, ok := k.(string)
	if !ok {
		return false
	}
	if s == "self" {
		return true
	}
	for _, p := range t.params {
		if p.name == s {
			return true
		}
	}
	return false
}

// call binds args (json.loads' value) to the signature as Python's
// method(**args) does, with its TypeError texts, and runs the tool.
func (t *dtool) call(ctx context.Context, e *Env, class string, args any) (string, error) {
	d, ok := args.(*pyjson.Dict)
	if !ok {
		return "", typeErr("%s%s.%s() argument after ** must be a mapping, not %s", modulePrefix, class, t.name, typeName(args))
	}
	info := tool.Info{Name: t.name}
	keys := &pyjson.Dict{}
	for _, p := range t.params {
		info.Params = append(info.Params, tool.Param{Name: p.name, Required: !p.hasDef})
	}
	for _, k := range d.Keys {
		keys.Set(k, nil)
	}
	if err := tool.CheckArgs(class, info, []byte(pyjson.String(keys))); err != nil {
		return "", typeErr("%s", err.Error())
	}
	return t.run(ctx, e, dargs{vals: d, params: t.params})
}

// dset is one toolkit's discoverable tools, in definition order.
type dset struct {
	class string
	tools []*dtool
}

// lookup is has_discoverable_tool(name) (a dict membership test: an
// unhashable name raises).
func (s *dset) lookup(name any) (*dtool, bool, error) {
	k, ok, err := pyjson.DictKey(name)
	if err != nil {
		return nil, false, typeErr("%s", err.Error())
	}
	if !ok {
		return nil, false, nil
	}
	for _, t := range s.tools {
		if t.name == k {
			return t, true, nil
		}
	}
	return nil, false, nil
}

// toolInfo is parse_discoverable_tool_docstring's result.
type toolInfo struct {
	Name           string
	Description    string
	Params         []docParam
	SuccessMessage string
}

type docParam struct {
	Name, Type, Description string
	Required                bool
}

var (
	argsSplit    = regexp.MustCompile(`\n\s*Args:\s*\n`)
	returnsSplit = regexp.MustCompile(`\n\s*Returns:\s*\n`)
	argLine      = regexp.MustCompile(`(?m)^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$`)
	optionalWord = regexp.MustCompile(`(?i),?\s*optional`)
)

// splitOnce is re.split(pattern, s, maxsplit=1).
func splitOnce(re *regexp.Regexp, s string) []string {
	loc := re.FindStringIndex(s)
	if loc == nil {
		return []string{s}
	}
	return []string{s[:loc[0]], s[loc[1]:]}
}

// parseToolDoc is parse_discoverable_tool_docstring over a method's
// cleaned docstring (inspect.getdoc); success is its default message.
func parseToolDoc(name, doc, success string) toolInfo {
	info := toolInfo{Name: name, SuccessMessage: success}
	parts := splitOnce(argsSplit, doc)
	info.Description = pyjson.Strip(parts[0])
	if len(parts) < 2 {
		return info
	}
	rs := splitOnce(returnsSplit, parts[1])
	if len(rs) > 1 {
		first, _, _ := strings.Cut(pyjson.Strip(rs[1]), "\n")
		info.SuccessMessage = pyjson.Strip(first)
	}
	seen := map[string]int{}
	for _, m := range argLine.FindAllStringSubmatch(rs[0], -1) {
		typ := m[2]
		if typ == "" {
			typ = "string"
		}
		p := docParam{Name: m[1], Description: pyjson.Strip(m[3]), Required: !strings.Contains(pyjson.Lower(typ), "optional")}
		p.Type = pyjson.Strip(optionalWord.ReplaceAllString(typ, ""))
		if p.Type == "" {
			p.Type = "string"
		}
		if i, dup := seen[p.Name]; dup { // a dict keeps the first place
			info.Params[i] = p
			continue
		}
		seen[p.Name] = len(info.Params)
		info.Params = append(info.Params, p)
	}
	return info
}

// forAgent is format_discoverable_tool_for_agent, tx its literals.
func (t toolInfo) forAgent(tx lits) string {
	var ps []string
	for _, p := range t.Params {
		req := tx.s(7)
		if !p.Required {
			req = tx.s(8)
		}
		ps = append(ps, tx.f(9, p.Name, p.Type, req, p.Description))
	}
	params := tx.s(11)
	if len(ps) > 0 {
		params = strings.Join(ps, "\n")
	}
	return tx.f(12, t.Name, t.Description, params)
}

// bindSource fills in each tool's kind, signature and docstring from the
// toolkit class of the source, whose @is_discoverable_tool methods must be
// exactly these tools in this order.
func (s *dset) bindSource(path string, mod *pyliteral.Module, texts map[string]lits) error {
	success := texts["parse_discoverable_tool_docstring"].s(3)
	c := mod.Class(s.class)
	if c == nil {
		return fmt.Errorf("%s: class %s: %w", path, s.class, pyliteral.ErrNoSymbol)
	}
	var names []string
	for _, f := range c.Methods {
		kind, mutates, ok := discoverableKind(f)
		if !ok {
			continue
		}
		names = append(names, f.Name)
		i := len(names) - 1
		if i >= len(s.tools) || s.tools[i].name != f.Name {
			continue
		}
		t := s.tools[i]
		t.kind, t.mutates = kind, mutates
		t.params = t.params[:0]
		for j, p := range f.Params {
			if j == 0 && p.Name == "self" {
				continue
			}
			if p.Star != "" {
				return fmt.Errorf("%s: %s.%s: variadic parameter %s", path, s.class, f.Name, p.Name)
			}
			dp := dparam{name: p.Name, hasDef: p.HasDefault}
			if p.HasDefault {
				v, err := literal(p.Default)
				if err != nil {
					return fmt.Errorf("%s: %s.%s: default of %s: %w", path, s.class, f.Name, p.Name, err)
				}
				dp.def = v
			}
			t.params = append(t.params, dp)
		}
		t.info = parseToolDoc(f.Name, pyliteral.CleanDoc(f.Doc), success)
	}
	var ours []string
	for _, t := range s.tools {
		ours = append(ours, t.name)
	}
	if strings.Join(names, ",") != strings.Join(ours, ",") {
		return fmt.Errorf("%s: %s: discoverable tools upstream %v, ours %v", path, s.class, names, ours)
	}
	return nil
}

// discoverableKind reads @is_discoverable_tool(ToolType.X[, mutates_state=B])
// (mutates_state defaults to the kind being WRITE).
func discoverableKind(f *pyliteral.Func) (tool.Kind, bool, bool) {
	for _, d := range f.Decorators {
		c, ok := d.(*pyliteral.Call)
		if !ok || c.Func != "is_discoverable_tool" {
			continue
		}
		kind := tool.Read
		var arg any
		if len(c.Args) > 0 {
			arg = c.Args[0]
		} else if v, ok := c.Kwargs.Get("tool_type"); ok {
			arg = v
		}
		if n, ok := arg.(*pyliteral.Name); ok {
			if k, ok := strings.CutPrefix(n.Dotted, "ToolType."); ok {
				kind = tool.Kind(strings.ToLower(k))
			}
		}
		mutates := kind == tool.Write
		if v, ok := c.Kwargs.Get("mutates_state"); ok {
			if b, ok := v.(bool); ok {
				mutates = b
			}
		}
		return kind, mutates, true
	}
	return "", false, false
}

// literal is a parameter default as a Python value.
func literal(v any) (any, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case *pyliteral.Name:
		return nil, fmt.Errorf("name %s is not a literal", x.Dotted)
	}
	if f, isInt, ok := number(v); ok {
		if isInt {
			return int(f), nil
		}
		return f, nil
	}
	return nil, fmt.Errorf("unsupported default %T", v)
}

// missing is upstream's required-parameter check `not p1 or not p2 ...`:
// some named parameter's bound value is falsy.
func (a dargs) missing(names ...string) bool {
	for _, n := range names {
		if !truthy(a.get(n)) {
			return true
		}
	}
	return false
}

// none is the check `p1 is None or ...` upstream makes of parameters
// whose falsy values (0, False) are valid.
func (a dargs) none(names ...string) bool {
	for _, n := range names {
		if a.get(n) == nil {
			return true
		}
	}
	return false
}
