"""A toolkit written for ledgerbench's tests of pyschema (not upstream code)."""

from enum import Enum
from typing import Annotated, Any, Dict, List, Literal, Optional, Union

from pydantic import BaseModel, Field

from tau2.environment.toolkit import ToolKitBase, ToolType, is_tool
from tau2.utils.pydantic_utils import BaseModelNoExtra

Color = Literal["red", "green", "blue"]
Size = Annotated[int, Field(description="A size in cm")]


class Shade(str, Enum):
    """How dark a colour is.

    Two lines of doc.
    """

    LIGHT = "light"
    DARK = "dark"


class Tag(BaseModel):
    label: str = Field(description="What the tag says")
    weight: float = 1.0


class Box(BaseModelNoExtra):
    """A box.

        Indented second paragraph.
    """

    name: str = Field(..., description="The box name")
    shade: Shade = Field(Shade.DARK, description="Its shade")
    tags: List[Tag] = Field(default_factory=list, description="Tags on the box")
    note: Optional[str] = None
    size: Size
    extra: Dict[str, int] = Field({}, title="Extra Things")


class BigBox(Box):
    name: str = Field(description="The big box name")
    inner: Optional[Box] = Field(None, description="A box inside")


class Kit(ToolKitBase):
    """Tools for tests."""

    def _helper(self, x: int) -> int:
        """Not a tool."""
        return x

    @is_tool(ToolType.WRITE)
    def pack(
        self,
        box: Box | dict,
        boxes: List[BigBox],
        color: Color,
        shade: Union[Shade, str] = "light",
        count: int = 2,
        ratio: float = 0.5,
        fragile: bool = False,
        label: Optional[str] = None,
    ) -> str:
        """Pack boxes.

        A longer description
        over two lines.

        Args:
            box: The box to pack.
            boxes: More boxes,
                described on two lines.
            color (str): The colour.
            shade: The shade. Defaults to light.
            count: How many.

        Returns:
            A receipt.

        Raises:
            ValueError: If it does not fit.
        """
        return ""

    @is_tool(ToolType.READ)
    def look(self, anything, mapping: dict, items: list, pairs: Dict[str, List[int]]) -> Any:
        """
        Look at things.
        """
        return None

    @is_tool()
    def undocumented(self, x: Any = None):
        return x

    @is_tool(ToolType.THINK)
    def loose(self, a: str, b: str) -> str:
        """Loose docstring.

        Args:
            a: first
            b second without a colon
        """
        return a

    @is_tool(ToolType.GENERIC)
    def only_long(self, value: Literal["one"] = "one") -> str:
        """First line.
        Second line right after.
        """
        return value
