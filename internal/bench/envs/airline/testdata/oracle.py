"""Differential oracle: run tool-call cases through upstream's own airline
toolkit and print the tool messages it would produce.

Not part of the Go build. It needs pydantic 2 and upstream's sources
(src/tau2/domains/airline/{data_model,tools}.py of sierra-research/tau2-bench);
the small parts of tau2's framework those modules import (DB base class, tool
decorator, loguru) are replaced by minimal stand-ins written here.

Usage:
    python3 oracle.py <dir holding data_model.py and tools.py> <db.json> < cases.json > outputs.json

cases.json is a JSON list of {"name": str, "calls": [{"name": str, "arguments": {...}}]};
each case runs on a fresh database. Output: a list of
{"name": str, "results": [{"content": str, "error": bool}], "db_hash": str}
where db_hash is the sha256 of json.dumps(db.model_dump(), sort_keys=True, default=str),
the string upstream hashes to compare databases.
with content built like upstream's Environment.get_response.
"""

import enum
import hashlib
import json
import sys
import types
from datetime import date, datetime

from pydantic import BaseModel, ConfigDict


def stub(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


class _Quiet:
    def __getattr__(self, _):
        return lambda *a, **k: None


class DB(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def is_tool(tool_type=ToolType.READ, mutates_state=None):
    def mark(f):
        f.__tool__ = tool_type
        return f

    return mark


class ToolKitBase:
    def __init__(self, db=None):
        self.db = db

    def use_tool(self, tool_name, **kwargs):
        f = getattr(type(self), tool_name, None)
        if f is None or not hasattr(f, "__tool__"):
            raise ValueError(f"Tool '{tool_name}' not found.")
        return getattr(self, tool_name)(**kwargs)


def to_json_str(resp):
    def process(r):
        if isinstance(r, BaseModel):
            return r.model_dump()
        if isinstance(r, str) or r is None:
            return r
        if isinstance(r, (int, float, bool)):
            return str(r)
        if isinstance(r, list):
            return [process(i) for i in r]
        if isinstance(r, tuple):
            return tuple(process(i) for i in r)
        if isinstance(r, dict):
            return {k: process(v) for k, v in r.items()}
        if isinstance(r, (datetime, date)):
            return r.isoformat()
        raise ValueError(f"Unsupported type: {type(r)}")

    if isinstance(resp, str):
        return resp
    return json.dumps(process(resp), default=str)


def main():
    src, db_path = sys.argv[1], sys.argv[2]
    stub("loguru", logger=_Quiet())
    stub("tau2")
    stub("tau2.environment")
    stub("tau2.environment.db", DB=DB)
    stub("tau2.environment.toolkit", ToolKitBase=ToolKitBase, ToolType=ToolType, is_tool=is_tool)
    stub("tau2.domains")
    pkg = stub("tau2.domains.airline")
    pkg.__path__ = [src]
    stub("tau2.domains.airline.utils", AIRLINE_DB_PATH=db_path)
    from tau2.domains.airline.data_model import FlightDB
    from tau2.domains.airline.tools import AirlineTools

    with open(db_path) as f:
        raw = json.load(f)
    out = []
    for case in json.load(sys.stdin):
        tools = AirlineTools(FlightDB.model_validate(raw))
        results = []
        for call in case["calls"]:
            try:
                content = to_json_str(tools.use_tool(call["name"], **call["arguments"]))
                results.append({"content": content, "error": False})
            except Exception as e:  # noqa: BLE001 - upstream catches everything too
                results.append({"content": "Error: " + str(e), "error": True})
        dump = json.dumps(tools.db.model_dump(), sort_keys=True, default=str)
        digest = hashlib.sha256(dump.encode()).hexdigest()
        out.append({"name": case["name"], "results": results, "db_hash": digest})
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
