package pyliteral

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
)

const sourceSnippet = `"""Module doc."""
import os
from typing import List, Optional

Alias = Optional[List[int]]
Pair = int | str
broken = lambda x: x  # not in source mode


def top(a, b: int = 3, *args, c: str = "x", **kw) -> None:
    r"""Raw \d doc."""
    def inner(self):
        """Not collected."""


class Base(object):
    pass


class Model(Base, metaclass=Meta):
    """Model doc.

    More.
    """

    x: int
    y: Optional[str] = Field(None, description="Why")
    z: List[int] = Field(default_factory=list)
    MEMBER = "m"
    w: int = compute() + 1
    _private: int = 1

    @property
    def prop(self) -> int:
        return 1

    @is_tool(ToolType.WRITE)
    def method(
        self,
        items: List["Model"],   # comment inside the signature
        flag: bool = False,
    ) -> dict:
        "Single-quoted " "and concatenated."
        if flag:
            def hidden():
                """Not a method."""
        return {}

    def nodoc(self): return 1

    def fdoc(self):
        f"""Not a docstring {x}."""

    async def later(self, *, key: str):
        """Async."""

    def method(self, again: int):
        """Redefined."""
`

func TestReadModule(t *testing.T) {
	t.Parallel()
	m, err := ReadModule([]byte(sourceSnippet))
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasDoc || m.Doc != "Module doc." {
		t.Errorf("module doc = %q, %v", m.Doc, m.HasDoc)
	}
	if got := names(m.Funcs); !reflect.DeepEqual(got, []string{"top"}) {
		t.Errorf("top-level functions %v; want [top]", got)
	}
	top, err := m.Func("top")
	if err != nil {
		t.Fatal(err)
	}
	if top.Doc != `Raw \d doc.` {
		t.Errorf("top doc = %q", top.Doc)
	}
	wantParams := []Param{
		{Name: "a"},
		{Name: "b", Annotation: &Name{Dotted: "int"}, HasAnnotation: true, Default: json.Number("3"), HasDefault: true},
		{Name: "args", Star: "*"},
		{Name: "c", Annotation: &Name{Dotted: "str"}, HasAnnotation: true, Default: "x", HasDefault: true},
		{Name: "kw", Star: "**"},
	}
	if got := stripPos(top.Params); !reflect.DeepEqual(got, wantParams) {
		t.Errorf("top params\n got %#v\nwant %#v", got, wantParams)
	}

	if v := m.Var("Alias"); v == nil || v.Err != nil {
		t.Fatalf("Alias = %+v", v)
	} else if s, ok := v.Value.(*Subscript); !ok || s.Value.(*Name).Dotted != "Optional" || s.Index[0].(*Subscript).Value.(*Name).Dotted != "List" {
		t.Errorf("Alias value %#v", v.Value)
	}
	if v := m.Var("Pair"); v == nil {
		t.Fatal("Pair missing")
	} else if u, ok := v.Value.(*BitOr); !ok || u.X.(*Name).Dotted != "int" || u.Y.(*Name).Dotted != "str" {
		t.Errorf("Pair value %#v", v.Value)
	}
	if v := m.Var("broken"); v == nil || v.Err == nil {
		t.Errorf("broken = %+v; want an assignment with Err set", v)
	}

	c := m.Class("Model")
	if c == nil {
		t.Fatal("class Model missing")
	}
	if c.Doc != "Model doc.\n\n    More.\n    " {
		t.Errorf("Model doc = %q", c.Doc)
	}
	if len(c.Bases) != 1 || c.Bases[0].(*Name).Dotted != "Base" {
		t.Errorf("bases %#v", c.Bases)
	}
	if mc, ok := c.Keywords.Kwargs.Get("metaclass"); !ok || mc.(*Name).Dotted != "Meta" {
		t.Errorf("metaclass %#v", mc)
	}
	if got := varNames(c.Vars); !reflect.DeepEqual(got, []string{"x", "y", "z", "MEMBER", "w", "_private"}) {
		t.Errorf("class vars %v", got)
	}
	if y := c.Var("y"); y.Value.(*Call).Func != "Field" || y.Value.(*Call).Args[0] != nil {
		t.Errorf("y = %#v", y.Value)
	} else if d, _ := y.Value.(*Call).Kwargs.Get("description"); d != "Why" {
		t.Errorf("y description %v", d)
	}
	if x := c.Var("x"); !x.HasAnnotation || x.HasValue {
		t.Errorf("x = %+v; want a bare annotation", x)
	}
	if w := c.Var("w"); w.Err == nil {
		t.Errorf("w = %+v; want Err (binary + is outside source mode)", w)
	}
	if got := names(c.Methods); !reflect.DeepEqual(got, []string{"prop", "method", "nodoc", "fdoc", "later", "method"}) {
		t.Errorf("methods %v", got)
	}
	meth, err := m.Func("Model.method")
	if err != nil {
		t.Fatal(err)
	}
	if meth.Doc != "Redefined." || len(meth.Params) != 2 || meth.Params[1].Name != "again" {
		t.Errorf("Model.method is not the last definition: %+v", meth)
	}
	first := c.Methods[1]
	if first.Doc != "Single-quoted and concatenated." {
		t.Errorf("first method doc = %q", first.Doc)
	}
	if d, ok := first.Decorators[0].(*Call); !ok || d.Func != "is_tool" || d.Args[0].(*Name).Dotted != "ToolType.WRITE" {
		t.Errorf("decorators %#v", first.Decorators)
	}
	if it := first.Params[1].Annotation.(*Subscript); it.Index[0] != "Model" {
		t.Errorf("forward reference %#v", it.Index[0])
	}
	for _, name := range []string{"nodoc", "fdoc"} {
		f, _ := m.Func("Model." + name)
		if f.HasDoc {
			t.Errorf("%s has doc %q; want none", name, f.Doc)
		}
	}
	later, _ := m.Func("Model.later")
	if later.Doc != "Async." || len(later.Params) != 2 || later.Params[1].Name != "key" {
		t.Errorf("later = %+v", later)
	}
}

func TestReadModuleLookupErrors(t *testing.T) {
	t.Parallel()
	m, err := ReadModule([]byte("class A:\n    def f(self):\n        pass\n\ndef g():\n    pass\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"h", "A.h", "B.f", "f"} {
		if _, err := m.Func(q); !errors.Is(err, ErrNoSymbol) {
			t.Errorf("Func(%q) error %v; want ErrNoSymbol", q, err)
		}
	}
	if _, err := m.Func("A.f"); err != nil {
		t.Errorf("Func(A.f): %v", err)
	}
}

func TestReadModuleSignatureError(t *testing.T) {
	t.Parallel()
	m, err := ReadModule([]byte("def f(x=lambda: 1):\n    \"\"\"Doc.\"\"\"\n\ndef g(y):\n    \"\"\"G.\"\"\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Func("f"); err == nil {
		t.Error("Func(f) succeeded; want the signature error")
	}
	if g, err := m.Func("g"); err != nil || g.Doc != "G." {
		t.Errorf("Func(g) = %+v, %v; the reader must recover after f", g, err)
	}
}

func TestReadModuleLexicalError(t *testing.T) {
	t.Parallel()
	var e *Error
	if _, err := ReadModule([]byte("def f():\n    \"\"\"unterminated\n")); !errors.As(err, &e) || e.Line != 2 {
		t.Errorf("error %v; want a positioned *Error at line 2", err)
	}
}

func names(fs []*Func) []string {
	var out []string
	for _, f := range fs {
		out = append(out, f.Name)
	}
	return out
}

func varNames(vs []*Var) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Name)
	}
	return out
}

// stripPos clears positions so parameters compare by content.
func stripPos(ps []Param) []Param {
	out := make([]Param, len(ps))
	for i, p := range ps {
		if n, ok := p.Annotation.(*Name); ok {
			p.Annotation = &Name{Dotted: n.Dotted}
		}
		out[i] = p
	}
	return out
}

// FuzzReadModule: any input reads to a module or an error, never a panic,
// and every function it finds can be looked up (failing exactly when its
// last definition's signature did not parse).
func FuzzReadModule(f *testing.F) {
	f.Add(sourceSnippet)
	f.Add("class A(B):\n    x: int = Field(..., description='d')\n")
	f.Add("def f(a, /, *, b=1) -> X[Y | None]: 'doc'\n")
	f.Fuzz(func(t *testing.T, src string) {
		m, err := ReadModule([]byte(src))
		if err != nil {
			return
		}
		last := map[string]*Func{}
		for _, fn := range m.Funcs {
			last[fn.Name] = fn
		}
		for name, fn := range last {
			if _, err := m.Func(name); (err != nil) != (fn.Err != nil) {
				t.Errorf("Func(%q) error %v; the last definition's error is %v", name, err, fn.Err)
			}
		}
	})
}
