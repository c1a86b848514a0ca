# Validates each JSON object of standard input (one a line) as the model M
# below with pydantic v2 and prints one JSON array a line: ["ok", dump] or
# ["err", str(ValidationError)], the errors URL normalised to pydantic 2.12
# (upstream's locked version). probe.golden.jsonl is its output for
# probe.jsonl; TestProbeOracle (LEDGERBENCH_PYDANTIC_ORACLE=python3) reruns it.
import enum
import json
import re
import sys
from typing import Literal, Optional

from pydantic import BaseModel, ConfigDict, ValidationError


class Names(str, enum.Enum):
    INTERNET = "internet"
    BROKEN = "broken"


class M(BaseModel):
    model_config = ConfigDict(extra="forbid")
    b: bool = False
    e: Names = Names.INTERNET
    s: Optional[str] = None
    i: Optional[int] = None
    n: int = 0
    f: float = 0.0
    l: Literal["yes", "no"] = "no"


for line in sys.stdin:
    try:
        m = M(**json.loads(line))
        print(json.dumps(["ok", m.model_dump(mode="json")]))
    except ValidationError as e:
        print(json.dumps(["err", re.sub(r"errors\.pydantic\.dev/[0-9.]+/", "errors.pydantic.dev/2.12/", str(e))]))
