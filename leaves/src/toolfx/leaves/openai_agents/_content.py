"""What an Agents SDK function tool returned, as toolfx content blocks and a JSON value.

The SDK's structured outputs (text, image, file; as models or as their dict forms, alone or in a
list) become blocks: text, images from base64 data URLs, everything else as text that says
what it is. Any other value is its JSON text when it is JSON, else its `str()`, as the SDK would
show it to a model.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final

from agents import ToolOutputFileContent, ToolOutputImage, ToolOutputText
from pydantic import TypeAdapter
from returns.result import Success

from toolfx.core.json import FrozenJson, snapshot_json, thaw_json
from toolfx.core.tools import ImageBlock, TextBlock, WithContent

if TYPE_CHECKING:
    from toolfx.core.tools import ContentBlock

__all__ = ["content_of"]

_OUTPUTS: Final = TypeAdapter(ToolOutputText | ToolOutputImage | ToolOutputFileContent)
"""The SDK's structured outputs, told apart by their `type`."""
_DATA_URL: Final = "data:"
_BASE64: Final = ";base64,"


def content_of(output: object) -> WithContent[FrozenJson]:
    """The blocks the model sees for `output`, and the output as the call's value (JSON or null)."""
    blocks = _structured(output)
    snapshot = snapshot_json(output)
    value = snapshot.unwrap() if isinstance(snapshot, Success) else None
    if blocks is None:
        blocks = (TextBlock(_text(output, value)),)
    return WithContent(value, blocks)


def _structured(output: object) -> tuple[ContentBlock, ...] | None:
    """The blocks of one SDK output or a list of them; None when `output` is not of that kind."""
    items: Sequence[object] = (output,)
    if isinstance(output, Sequence) and not isinstance(output, str | bytes) and output:
        items = output
    blocks: list[ContentBlock] = []
    for item in items:
        block = _block(item)
        if block is None:
            return None
        blocks.append(block)
    return tuple(blocks)


def _block(item: object) -> ContentBlock | None:
    if isinstance(item, Mapping) and item.get("type") in ("text", "image", "file"):
        item = _model(item)
    match item:
        case ToolOutputText(text=text):
            return TextBlock(text)
        case ToolOutputImage(image_url=str(url)) if url.startswith(_DATA_URL) and _BASE64 in url:
            media_type, data = url.removeprefix(_DATA_URL).split(_BASE64, 1)
            return ImageBlock(data, media_type)
        case ToolOutputImage(image_url=url, file_id=file_id):
            return TextBlock(f"[image: {url or f'file {file_id}'}]")
        case ToolOutputFileContent(filename=name, file_url=url, file_id=file_id):
            return TextBlock(f"[file: {name or url or file_id or 'inline data'}]")
        case _:
            return None


def _model(item: Mapping[object, object]) -> object:
    """The SDK model of an output given in its dict form (invalid: left as the dict)."""
    try:
        return _OUTPUTS.validate_python(dict(item))
    except ValueError:
        return item


def _text(output: object, value: FrozenJson) -> str:
    if isinstance(output, str):
        return output
    if value is not None:
        return json.dumps(thaw_json(value), ensure_ascii=False)
    return str(output)
