"""Reference runner for the shell oracle test (see shell_test.go).

Runs upstream's own SandboxManager (src/tau2/knowledge/sandbox_manager.py:
export_documents, run_command with its escape checks, timeout, text decoding
and sanitising) and ShellMixin.shell (retrieval_mixins.py) from a tau2-bench
checkout. The one substitution: where upstream starts sandbox-runtime
("srt --settings FILE COMMAND"), this runs the bubblewrap command line the
test passes (ours, for the same sandbox), so both sides execute the same
process and everything upstream's Python does around it is compared.

    TAU2_SRC=/path/to/tau2-bench/src \
    LEDGERBENCH_SHELL_ORACLE="python3 testdata/oracle/shell_oracle.py" \
    go test ./internal/bench/knowledge -run ShellOracle

stdin:  {"documents": [{"id", "title", "content"}...], "base_temp_dir", "sandbox_id",
         "allow_writes", "file_format", "argv": [bwrap argv up to the command],
         "commands": [{"command", "timeout"}...]}
stdout: {"files": {name: content}, "calls": [[content, is_error]...]}
"""

import enum
import json
import os
import subprocess
import sys
import types

SRC = os.environ["TAU2_SRC"]
sys.path.insert(0, SRC)


def stub(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return mod


def package(name, path):
    mod = types.ModuleType(name)
    mod.__path__ = [path]
    sys.modules[name] = mod
    return mod


class ToolType(str, enum.Enum):
    READ = "read"
    WRITE = "write"
    THINK = "think"
    GENERIC = "generic"


def is_tool(tool_type=ToolType.READ, mutates_state=None):
    return lambda fn: fn


tau2 = os.path.join(SRC, "tau2")
package("tau2", tau2)
package("tau2.environment", os.path.join(tau2, "environment"))
stub("tau2.environment.toolkit", ToolKitType=type, ToolType=ToolType, is_tool=is_tool)
package("tau2.domains", os.path.join(tau2, "domains"))
package("tau2.domains.banking_knowledge", os.path.join(tau2, "domains", "banking_knowledge"))

from tau2.knowledge import sandbox_manager  # noqa: E402
from tau2.domains.banking_knowledge.retrieval_mixins import ShellMixin  # noqa: E402


def main():
    req = json.load(sys.stdin)
    sandbox_manager._DEPS_VERIFIED = True  # there is no srt here: see above
    argv = req["argv"]
    real_run = subprocess.run

    def run(cmd, **kwargs):
        assert cmd[0] == "srt" and cmd[1] == "--settings", cmd
        return real_run(argv + [cmd[3]], **kwargs)

    sandbox_manager.subprocess.run = run
    sb = sandbox_manager.SandboxManager(
        allow_writes=req["allow_writes"], sandbox_id=req["sandbox_id"], base_temp_dir=req["base_temp_dir"])
    sb.export_documents(req["documents"], file_format=req["file_format"])
    files = {}
    for name in sorted(os.listdir(sb.kb_dir)):
        with open(os.path.join(sb.kb_dir, name), "rb") as f:
            files[name] = f.read().decode("utf-8")
    calls = []
    for c in req["commands"]:
        orig = sb.run_command
        sb.run_command = lambda command, _t=c.get("timeout", 30): orig(command, timeout=_t)
        obj = types.SimpleNamespace(_sandbox=sb)
        try:
            calls.append([ShellMixin.shell(obj, command=c["command"]), False])
        except Exception as e:  # the tool's exception, as the environment reports it
            calls.append([str(e), True])
        sb.run_command = orig
    json.dump({"files": files, "calls": calls, "kb_dir": str(sb.kb_dir)}, sys.stdout)


main()
