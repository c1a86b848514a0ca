"""Oracle of package play's action parsing: how τ²-bench's manual mode reads
a typed line, by upstream's own code.

Reads {"lines": [...]} on stdin and writes one result per line:
{"call": {"name": ..., "arguments": <json.dumps of the arguments>}},
{"text": ...} or {"refused": <the error>}, as manual_mode.get_user_action
(is_functional_tool_call, then parse_functional_tool_call, re-prompting on
ValueError or SyntaxError) and AgentGymEnv.step (parse_action_string) treat it.

Upstream's source is imported from $TAU2_SRC (a tau2-bench checkout's src
folder at the pinned commit; src/tau2/utils/tools.py is not among the pulled
files). Its package __init__ files are skipped and third-party modules it
does not need here (loguru, deepdiff, ...) are stubbed.
"""
import importlib
import json
import os
import sys
import types

src = os.environ["TAU2_SRC"]
for name in ("tau2", "tau2.utils", "tau2.data_model"):
    m = types.ModuleType(name)
    m.__path__ = [os.path.join(src, *name.split("."))]
    sys.modules[name] = m


class _Any:
    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        return _Any()

    def __getattr__(self, n):
        return _Any()


def _stub(name):
    m = types.ModuleType(name)
    m.__path__ = []
    m.__getattr__ = lambda n: _Any()
    sys.modules[name] = m


for _ in range(50):
    try:
        tools = importlib.import_module("tau2.utils.tools")
        break
    except ModuleNotFoundError as e:
        if e.name.startswith("tau2"):
            raise
        _stub(e.name)


def read(line):
    if tools.is_functional_tool_call(line):
        try:
            tools.parse_functional_tool_call(line)
        except (ValueError, SyntaxError) as e:
            return {"refused": str(e)}
    try:
        msg = tools.parse_action_string(line)
    except ValueError as e:
        return {"refused": str(e)}
    if msg.tool_calls:
        tc = msg.tool_calls[0]
        return {"call": {"name": tc.name, "arguments": json.dumps(tc.arguments)}}
    return {"text": msg.content}


print(json.dumps([read(l) for l in json.load(sys.stdin)["lines"]]))
