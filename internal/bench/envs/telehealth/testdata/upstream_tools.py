"""Runs testdata/tool_cases.json through upstream's own telehealth tools and
prints the result in the format of tools.golden, so the golden file can be
checked against upstream (it is not needed by the Go tests).

    python3 upstream_tools.py <tau-trait checkout>/tau_trait/envs/telehealth/tools \
        <data dir>/tau-trait/tau_trait/envs/telehealth/data tool_cases.json > upstream.golden

Only the tools' package is loaded; tau_trait.envs.tool is replaced by a
stand-in base class. Each case starts from freshly loaded data; a call runs
the way tau-bench's Env.step runs it, and the data hash after each call is
tau-bench's. cancel_appointment's clock is fixed at 2025-10-28.
"""
import abc
import datetime
import hashlib
import importlib.util
import json
import os
import sys
import types


def stub_packages(tools_dir):
    for name in ["tau_trait", "tau_trait.envs", "tau_trait.envs.telehealth"]:
        mod = types.ModuleType(name)
        mod.__path__ = []
        sys.modules[name] = mod
    tool_mod = types.ModuleType("tau_trait.envs.tool")

    class Tool(abc.ABC):
        @staticmethod
        def invoke(*args, **kwargs):
            raise NotImplementedError

        @staticmethod
        def get_info():
            raise NotImplementedError

    tool_mod.Tool = Tool
    sys.modules["tau_trait.envs.tool"] = tool_mod
    spec = importlib.util.spec_from_file_location(
        "tau_trait.envs.telehealth.tools", os.path.join(tools_dir, "__init__.py"),
        submodule_search_locations=[tools_dir])
    pkg = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = pkg
    spec.loader.exec_module(pkg)
    return pkg


class FixedClock(datetime.datetime):
    @classmethod
    def now(cls, tz=None):
        return cls(2025, 10, 28, 12, 0, 0)


def load_data(data_dir):
    def read(name, default):
        path = os.path.join(data_dir, name)
        if not os.path.exists(path):
            return default
        with open(path) as f:
            return json.load(f)
    keys = ["patients", "providers", "appointments", "medical_records", "medication_suppliers",
            "drug_interactions", "telemetry_inventory", "telemetry_uploads", "regimen_plans"]
    defaults = {"telemetry_inventory": [], "telemetry_uploads": [], "regimen_plans": {}}
    return {k: read(k + ".json", defaults.get(k)) for k in keys}


def hashable(item):
    if isinstance(item, dict):
        return tuple((k, hashable(v)) for k, v in sorted(item.items()))
    if isinstance(item, list):
        return tuple(hashable(v) for v in item)
    return item


def main():
    tools_dir, data_dir, cases_path = sys.argv[1:4]
    pkg = stub_packages(tools_dir)
    sys.modules["tau_trait.envs.telehealth.tools.cancel_appointment"].datetime = FixedClock
    tools = {t.get_info()["function"]["name"]: t for t in pkg.ALL_TOOLS}
    with open(cases_path) as f:
        cases = json.load(f)
    out = []
    for case in cases:
        data = load_data(data_dir)
        out.append("=== " + case["name"])
        for name, args in case["calls"]:
            kwargs = json.loads(args)
            kind = "result"
            if name in tools:
                try:
                    obs = tools[name].invoke(data=data, **kwargs)
                except Exception as e:
                    obs, kind = f"Error: {e}", "exception"
            else:
                obs = f"Unknown action {name}"
            out.append(f"> {name} {args}")
            out.append("< " + kind)
            out.extend("| " + line for line in str(obs).split("\n"))
            out.append("# " + hashlib.sha256(str(hashable(data)).encode("utf-8")).hexdigest())
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
