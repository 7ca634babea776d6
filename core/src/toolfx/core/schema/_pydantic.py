"""pydantic models, recognised without importing pydantic: model classes, instances, their dumps.

pydantic is imported only once a class that looks like a model reaches these checks (pydantic is
then already loaded): core works without it.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from typing_extensions import TypeIs

if TYPE_CHECKING:
    from pydantic import BaseModel

__all__ = ["is_model", "is_model_class", "model_plain"]


@functools.cache
def _base_model() -> type[BaseModel] | None:
    try:
        from pydantic import BaseModel  # noqa: PLC0415 (optional: only when a model shows up)
    except ImportError:  # pragma: no cover (a class with pydantic's attributes, no pydantic)
        return None
    return BaseModel


def is_model_class(tp: object) -> TypeIs[type[BaseModel]]:
    """Whether a type form is a pydantic model class."""
    if not (isinstance(tp, type) and hasattr(tp, "__pydantic_validator__")):
        return False
    base = _base_model()
    return base is not None and issubclass(tp, base)


def is_model(value: object) -> TypeIs[BaseModel]:
    """Whether a value is a pydantic model instance."""
    base = _base_model() if hasattr(type(value), "__pydantic_validator__") else None
    return base is not None and isinstance(value, base)


def model_plain(value: BaseModel) -> object:
    """A model instance as the JSON its schema describes."""
    return value.model_dump(mode="json")
