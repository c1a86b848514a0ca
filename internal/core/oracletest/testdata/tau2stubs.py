"""Permissive stand-ins for the third-party modules tau2-bench imports.

The oracle scripts run upstream's own code (a tau2-bench source tree) on a
machine without PyPI; the modules it imports but the oracles do not need
(loguru, litellm, httpx, docstring_parser, deepdiff, ...) are replaced by
stand-ins that accept anything. Use:

    sys.path.insert(0, <this folder>)
    import tau2stubs
    tau2stubs.install()
"""

import importlib.abc
import importlib.machinery
import os
import sys
import tomllib
import types

STUBBED = {
    "loguru", "litellm", "httpx", "docstring_parser", "deepdiff", "addict", "rich",
    "redis", "langfuse", "tenacity", "numpy", "pandas", "tabulate", "psutil", "typer",
    "PIL", "pydub", "scipy", "fastapi", "toml", "tomli", "dotenv", "uvicorn", "openai",
    "google", "anthropic", "websockets", "sounddevice", "soundfile", "elevenlabs",
    "deepgram", "matplotlib", "seaborn", "plotly", "datasets", "huggingface_hub",
    "sentence_transformers", "faiss", "rank_bm25", "tiktoken", "gymnasium", "aiohttp",
    "requests", "starlette", "jsonschema", "watchdog", "nest_asyncio", "boto3",
}


class Dummy:
    """Anything: callable, subscriptable, iterable, usable as a base class."""

    def __init__(self, *a, **k):
        pass

    def __call__(self, *a, **k):
        if len(a) == 1 and callable(a[0]) and not k:
            return a[0]  # used as a decorator
        return Dummy()

    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        return Dummy()

    def __getitem__(self, k):
        return Dummy()

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __or__(self, other):
        return Dummy

    def __mro_entries__(self, bases):
        return (object,)


class StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__") and name.endswith("__"):
            raise AttributeError(name)
        if name[:1].isupper():
            return type(name, (), {"__init__": lambda self, *a, **k: None,
                                   "__getattr__": lambda self, n: Dummy()})
        return Dummy()


class StubFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, fullname, path, target=None):
        if fullname.split(".")[0] in STUBBED:
            return importlib.machinery.ModuleSpec(fullname, self, is_package=True)
        return None

    def create_module(self, spec):
        m = StubModule(spec.name)
        m.__path__ = []
        return m

    def exec_module(self, module):
        if module.__name__ in ("toml", "tomli"):
            module.load = lambda f, **k: tomllib.loads(open(f).read() if isinstance(f, (str, os.PathLike)) else f.read())
            module.loads = tomllib.loads
        if module.__name__ == "dotenv":
            module.load_dotenv = lambda *a, **k: None


def install():
    """Puts the stand-ins ahead of every other importer."""
    sys.meta_path.insert(0, StubFinder())
