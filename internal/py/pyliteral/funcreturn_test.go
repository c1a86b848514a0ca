package pyliteral

import (
	"errors"
	"testing"
)

func TestFuncReturn(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, src, fn string
		want          string // show(value), or "" for an error
		line          int
		wantErr       error
	}{
		{"static method", `from typing import Any
class Think(Tool):
    @staticmethod
    def invoke(data, thought: str) -> str:
        return ""

    @staticmethod
    def get_info() -> Dict[str, Any]:
        return {
            "type": "function",
            "function": {"name": "think", "description": ("a " "b"), "n": 2},
        }
`, "get_info", `{'type': 'function', 'function': {'name': 'think', 'description': 'a b', 'n': 2}}`, 9, nil},
		{"module function", "def f():\n    x = compute()\n    return [1, (2, 3), None]\n", "f", `[1, (2, 3, ), None]`, 3, nil},
		{"missing", "def g():\n    return 1\n", "f", "", 0, ErrNoFunction},
		{"no return before next def", "def f():\n    pass\ndef g():\n    return 1\n", "f", "", 0, nil},
		{"defined twice", "def f():\n    return 1\ndef f():\n    return 2\n", "f", "", 0, nil},
		{"not a literal", "def f():\n    return x + 1\n", "f", "", 0, nil},
		{"trailing code after the literal", "def f():\n    return {} if a else []\n", "f", "", 0, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := FuncReturn([]byte(tc.src), tc.fn)
			if tc.want == "" {
				if err == nil {
					t.Fatalf("FuncReturn = %s; want an error", show(r.Value))
				}
				if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
					t.Errorf("error %v; want %v", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := show(r.Value); got != tc.want {
				t.Errorf("value = %s; want %s", got, tc.want)
			}
			if r.Line != tc.line {
				t.Errorf("line = %d; want %d", r.Line, tc.line)
			}
		})
	}
}

func FuzzFuncReturn(f *testing.F) {
	f.Add([]byte("class A:\n    def get_info():\n        return {'a': [1, 2.5, None]}\n"))
	f.Add([]byte("def get_info(:\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		_, _ = FuncReturn(src, "get_info")
	})
}
