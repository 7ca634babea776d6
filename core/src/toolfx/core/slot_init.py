"""A faster `__init__` for the frozen, slotted dataclasses built once or more per call."""

from __future__ import annotations

import dataclasses
from typing import Any, TypeVar

__all__ = ["slot_init"]

C = TypeVar("C", bound=type[Any])


def slot_init(cls: C) -> C:
    """Replace a frozen slotted dataclass's `__init__` with one storing through slot descriptors.

    The generated `__init__` of a frozen dataclass stores each field with `object.__setattr__`,
    about twice the cost of calling the slot's own descriptor; the class stays frozen (its
    `__setattr__` still refuses), with the same parameters, defaults and keyword names.
    Only plain fields are supported: no default factories, no `__post_init__`, all in `__init__`.
    """
    fields = dataclasses.fields(cls)
    if hasattr(cls, "__post_init__") or any(
        not f.init or f.default_factory is not dataclasses.MISSING for f in fields
    ):
        raise TypeError(f"slot_init cannot build {cls.__name__}: a field needs more than a store")
    namespace: dict[str, object] = {}
    parameters = []
    for f in fields:
        namespace[f"_set_{f.name}"] = cls.__dict__[f.name].__set__
        if f.default is dataclasses.MISSING:
            parameters.append(f.name)
        else:
            namespace[f"_default_{f.name}"] = f.default
            parameters.append(f"{f.name}=_default_{f.name}")
    stores = "".join(f"\n    _set_{f.name}(self, {f.name})" for f in fields)
    exec(f"def __init__(self, {', '.join(parameters)}) -> None:{stores}", namespace)
    init: Any = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    init.__doc__ = cls.__init__.__doc__
    init.__annotations__ = dict(cls.__init__.__annotations__)
    cls.__init__ = init
    return cls
