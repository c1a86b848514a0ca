"""Reference for pyschema's tests: runs upstream's Tool over a toolkit module.

Reads {"path": <python file>, "class": <toolkit class>} on stdin and writes
[{"name", "type", "schema"}...] (Tool.openai_schema of each tool, in order)
on stdout. Needs TAU2_SRC (a tau2-bench checkout's src directory) and
docstring_parser and pydantic importable; other third-party modules tau2
imports but the schema does not use are stubbed.
"""

import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys
import types
from unittest import mock

sys.path.insert(0, os.environ["TAU2_SRC"])


class _Stub(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    keep = ("tau2", "pydantic", "pydantic_core", "docstring_parser", "typing_extensions", "annotated_types")

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in self.keep:
            return None
        for f in sys.meta_path:
            if f is self:
                continue
            try:
                if f.find_spec(name, path, target) is not None:
                    return None
            except Exception:
                pass
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        m = mock.MagicMock()
        m.__path__, m.__name__, m.__spec__ = [], spec.name, spec
        return m

    def exec_module(self, module):
        pass


sys.meta_path.append(_Stub())
pkg = types.ModuleType("tau2")  # skip tau2/__init__ and its heavy imports
pkg.__path__ = [os.path.join(os.environ["TAU2_SRC"], "tau2")]
sys.modules["tau2"] = pkg

req = json.load(sys.stdin)
spec = importlib.util.spec_from_file_location("kit_under_test", req["path"])
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
cls = getattr(mod, req["class"])
kit = cls.__new__(cls)
kit.db = None
out = []
for name, t in kit.get_tools().items():
    out.append({"name": name, "type": kit.tool_type(name).value, "schema": t.openai_schema})
json.dump(out, sys.stdout)
