package tauv1

import (
	"strings"
	"testing"
)

func TestConvertTasksErrors(t *testing.T) {
	cases := []struct{ name, file, src, want string }{
		{"no list", "tasks_test.py", "x = 1\n", "no TASKS_* = [...] assignment"},
		{"wrong name", "tasks_dev.py", "TASKS_TEST = []\n", "defines TASKS_TEST, not TASKS_DEV"},
		{"not a list", "t.py", "TASKS_X = {}\n", "TASKS_X is not a list"},
		{"not a Task", "t.py", "TASKS_X = [1]\n", "TASKS_X[0] is not a Task(...) call"},
		{"positional", "t.py", "TASKS_X = [Task(1)]\n", "line 1, column 12: Task(...) with positional arguments"},
		{"other call", "t.py", "TASKS_X = [Task(a=dict(b=1))]\n", "line 1, column 19: call of dict"},
		{"syntax", "t.py", "TASKS_X = [Task(a=1 b=2)]\n", "t.py: line 1, column 21: expected ',' or a closing bracket"},
		{"expression", "t.py", "TASKS_X = [Task(a=1 + 2)]\n", `t.py: line 1, column 21`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ConvertTasks(c.file, []byte(c.src))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("ConvertTasks error = %v; want it to contain %q", err, c.want)
			}
		})
	}
	// Tuples become lists; dotted names, comments and other statements are fine.
	got, err := ConvertTasks("x.py", []byte("import t\n# c\nTASKS_X = [t.Task(k=(1, 2.50), s='a' \"b\")]  # end\n"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "[\n  {\n    \"k\": [\n      1,\n      2.5\n    ],\n    \"s\": \"ab\"\n  }\n]\n"; string(got) != want {
		t.Errorf("ConvertTasks = %q; want %q", got, want)
	}
}

// TestSchemaErrors: a tool module whose get_info is missing or misshapen is
// an error saying what is wrong where.
func TestSchemaErrors(t *testing.T) {
	tests := []struct{ name, src, want string }{
		{"no get_info", "class A:\n    def invoke():\n        return 1\n", "no such function"},
		{"not a dict", "def get_info():\n    return make()\n", "want a dict"},
		{"not a literal", "def get_info():\n    return x\n", "not a literal"},
		{"wrong name", `def get_info():
    return {"type": "function", "function": {"name": "other", "description": "d", "parameters": {}}}
`, `function name "other"`},
		{"missing description", `def get_info():
    return {"type": "function", "function": {"name": "think", "parameters": {}}}
`, "keys name, description, parameters"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseSchema([]byte(tc.src), "think")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v; want one containing %q", err, tc.want)
			}
		})
	}
}
