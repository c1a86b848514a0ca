#!/usr/bin/env python3
"""Differential oracle for envs/telecom: runs upstream tau2-bench's telecom
toolkits (imported from an upstream checkout, unmodified) under pydantic with
small stand-ins for the framework modules they import, and answers the
protocol of TestDifferentialOracle.

Usage (from envs/telecom):
    LEDGERBENCH_TELECOM_ORACLE="python3 testdata/oracle/telecom_oracle.py /path/to/tau2-bench" \
        go test -run TestDifferentialOracle

/path/to/tau2-bench is a checkout (or `git worktree`) of sierra-research/tau2-bench;
its src/tau2/domains/telecom/{data_model,user_data_model,tools,user_tools}.py
are imported as they are. TelecomEnvironment.sync_tools and
Environment.to_json_str are taken from its environment files by name (ast),
so the oracle holds no copy of upstream code. Needs Python >= 3.11 and
pydantic 2.

Protocol: stdin {"cases": [[step...]...]} with step {"side": "assistant"|"user",
"mode": "tool"|"func", "name", "arguments"}; stdout [{"results": [[content,
error]...], "agent_db": str, "user_db": str}...]. "tool" steps behave as
Environment.get_response (make_tool_call, then sync; exceptions become
"Error: <text>"); "func" steps as run_env_function_call (call, then sync),
reported as json.dumps of the result. A case starts from fresh databases and a
fresh default VPN object (upstream shares one per process: QUIRK 10).
"""
import ast
import enum
import json
import sys
import tomllib
import types
import uuid
from datetime import date, datetime
from pathlib import Path

from pydantic import BaseModel, ConfigDict

root = Path(sys.argv[1])
src = root / "src" / "tau2"
data = root / "data" / "tau2" / "domains" / "telecom"
if len(sys.argv) > 2:
    data = Path(sys.argv[2])


def module(name, **attrs):
    m = types.ModuleType(name)
    m.__dict__.update(attrs)
    sys.modules[name] = m
    return m


class _Logger:
    def __getattr__(self, _):
        return lambda *a, **k: None


module("loguru", logger=_Logger())
for pkg in ["tau2", "tau2.environment", "tau2.utils", "tau2.domains", "tau2.domains.telecom"]:
    module(pkg).__path__ = []


class BaseModelNoExtra(BaseModel):
    model_config = ConfigDict(extra="forbid")


module("tau2.utils.pydantic_utils", BaseModelNoExtra=BaseModelNoExtra,
       update_pydantic_model_with_dict=None)
module("tau2.environment.db", DB=BaseModelNoExtra)


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def is_tool(tool_type, mutates_state=None):
    def deco(f):
        f.__tool__ = True
        return f
    return deco


class ToolKitBase:
    def __init__(self, db=None):
        self.db = db

    @property
    def tools(self):
        out = {}
        for klass in reversed(type(self).__mro__):
            for name, v in vars(klass).items():
                if getattr(v, "__tool__", False):
                    out[name] = getattr(self, name)
        return out

    def use_tool(self, tool_name, **kwargs):
        if tool_name not in self.tools:
            raise ValueError(f"Tool '{tool_name}' not found.")
        return self.tools[tool_name](**kwargs)


module("tau2.environment.toolkit", ToolKitBase=ToolKitBase, ToolType=ToolType, is_tool=is_tool)
module("tau2.domains.telecom.utils", TELECOM_DB_PATH=data / "db.toml",
       get_today=lambda: date(2025, 2, 25), get_now=lambda: datetime(2025, 2, 25, 12, 8, 0))


def load(name):
    path = src / "domains" / "telecom" / f"{name}.py"
    m = module(f"tau2.domains.telecom.{name}")
    exec(compile(path.read_text(), str(path), "exec"), m.__dict__)
    return m


dm = load("data_model")
udm = load("user_data_model")
tools_mod = load("tools")
utools_mod = load("user_tools")


def method(path, cls, name, ns):
    """Compile one method of a class of an upstream file into a function."""
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            for f in node.body:
                if isinstance(f, ast.FunctionDef) and f.name == name:
                    f.decorator_list = []
                    mod = ast.Module(body=[f], type_ignores=[])
                    g = dict(ns)
                    exec(compile(mod, str(path), "exec"), g)
                    return g[name]
    raise SystemExit(f"{cls}.{name} not found in {path}")


sync_tools = method(src / "domains" / "telecom" / "environment.py", "TelecomEnvironment", "sync_tools",
                    {"LineStatus": dm.LineStatus, "PaymentRequest": udm.PaymentRequest})
to_json_str = method(src / "environment" / "environment.py", "Environment", "to_json_str",
                     {"BaseModel": BaseModel, "json": json, "datetime": datetime, "date": date, "Any": object})

# Upstream draws new bill ids from uuid4; the port uses a deterministic
# per-simulation sequence (splitmix64 of 1, 2, ...). Mirror it here.
_seq = [0]


def _uuid4():
    _seq[0] += 1
    x = (_seq[0] * 0x9E3779B97F4A7C15) & (2**64 - 1)
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & (2**64 - 1)
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & (2**64 - 1)
    x ^= x >> 31
    return uuid.UUID(int=(x & 0xFFFFFFFF) << 96)


tools_mod.uuid = types.SimpleNamespace(uuid4=_uuid4)


class Env:
    def __init__(self):
        with open(data / "db.toml", "rb") as f:
            self.tools = tools_mod.TelecomTools(dm.TelecomDB.model_validate(tomllib.load(f)))
        with open(data / "user_db.toml", "rb") as f:
            self.user_tools = utools_mod.TelecomUserTools(udm.TelecomUserDB.model_validate(tomllib.load(f)))

    def sync(self):
        sync_tools(self)

    def step(self, s):
        kit = self.user_tools if s["side"] == "user" else self.tools
        args = s.get("arguments") or {}
        try:
            if s["mode"] == "tool":
                res = kit.use_tool(s["name"], **args)
                self.sync()
                return [to_json_str(None, res), False]
            res = getattr(kit, s["name"])(**args)
            self.sync()
            return [json.dumps(res), False]
        except Exception as e:  # noqa: BLE001 - upstream catches everything
            return ["Error: " + str(e), True]


def main():
    req = json.load(sys.stdin)
    out = []
    for case in req["cases"]:
        _seq[0] = 0
        utools_mod.TelecomUserTools.default_vpn_details = udm.VpnDetails(
            server_address="192.168.1.1", protocol="OpenVPN", server_performance=udm.PerformanceLevel.EXCELLENT)
        env = Env()
        results = [env.step(s) for s in case]
        out.append({
            "results": results,
            "agent_db": json.dumps(env.tools.db.model_dump(), default=str),
            "user_db": json.dumps(env.user_tools.db.model_dump(), default=str),
        })
    json.dump(out, sys.stdout)


main()
