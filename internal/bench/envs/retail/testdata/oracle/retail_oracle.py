"""Reference runner for the retail oracle tests (see oracle_test.go).

Runs upstream's own RetailTools (src/tau2/domains/retail/{data_model,tools}.py
from a tau2-bench checkout) on call sequences, with minimal stand-ins for the
framework modules they import. Needs Python 3 with pydantic 2.

    TAU2_SRC=/path/to/tau2-bench/src \
    LEDGERBENCH_RETAIL_ORACLE="python3 testdata/oracle/retail_oracle.py" \
    go test ./envs/retail -run Oracle      # the command runs in envs/retail

stdin:  {"sequences": [[{"name", "arguments"}...]...], "dump": bool, "db_path": str}
stdout: [{"results": [[content, error]...], "db": "<json.dumps(model_dump())>"}...]
"""

import enum
import json
import os
import sys
import types

import pydantic

SRC = os.environ["TAU2_SRC"]
DEFAULT_DB = os.path.join(os.path.dirname(SRC), "data", "tau2", "domains", "retail", "db.json")


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


class DB(pydantic.BaseModel):
    model_config = pydantic.ConfigDict(extra="forbid")

    @classmethod
    def load(cls, path):
        with open(path) as f:
            return cls.model_validate(json.load(f))


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def is_tool(tool_type=ToolType.READ, mutates_state=None):
    def mark(fn):
        fn.is_tool = True
        return fn
    return mark


class ToolKitBase:
    def __init__(self, db=None):
        self.db = db

    def use_tool(self, tool_name, **kwargs):
        names = [n for n, v in type(self).__dict__.items() if getattr(v, "is_tool", False)]
        if tool_name not in names:
            raise ValueError(f"Tool '{tool_name}' not found.")
        return getattr(self, tool_name)(**kwargs)


for pkg in ("tau2", "tau2.environment", "tau2.domains", "tau2.domains.retail"):
    stub(pkg, __path__=[])
stub("tau2.environment.db", DB=DB)
stub("tau2.environment.toolkit", ToolKitBase=ToolKitBase, ToolType=ToolType, is_tool=is_tool)
stub("tau2.domains.retail.utils", RETAIL_DB_PATH=DEFAULT_DB)


def load(modname, filename):
    mod = stub(modname)
    path = os.path.join(SRC, "tau2", "domains", "retail", filename)
    with open(path) as f:
        exec(compile(f.read(), path, "exec"), mod.__dict__)
    return mod


RetailDB = load("tau2.domains.retail.data_model", "data_model.py").RetailDB
RetailTools = load("tau2.domains.retail.tools", "tools.py").RetailTools


def content(result):
    """The tool message content: strings as they are, else json.dumps of the
    result with models dumped and bare numbers stringified."""
    def plain(x):
        if isinstance(x, pydantic.BaseModel):
            return x.model_dump()
        if isinstance(x, (bool, int, float)):
            return str(x)
        if isinstance(x, list):
            return [plain(i) for i in x]
        if isinstance(x, dict):
            return {k: plain(v) for k, v in x.items()}
        return x
    return result if isinstance(result, str) else json.dumps(plain(result), default=str)


def main():
    req = json.load(sys.stdin)
    base = RetailDB.load(req.get("db_path") or DEFAULT_DB)
    out = []
    for seq in req["sequences"]:
        tools = RetailTools(base.model_copy(deep=True))
        results = []
        for call in seq:
            try:
                results.append([content(tools.use_tool(call["name"], **call["arguments"])), False])
            except Exception as e:  # the tool message of any exception
                results.append([f"Error: {e}", True])
        entry = {"results": results}
        if req.get("dump"):
            entry["db"] = json.dumps(tools.db.model_dump(), default=str)
        out.append(entry)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
