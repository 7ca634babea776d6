"""What pyright infers for `run_code`'s cards, and which misuse it rejects (as the yml case)."""

from typing import assert_type

from toolfx.core import RUN_CODE, CodeCallCard, CodeResultCard, Location, ToolCallView

card = CodeCallCard(title="Run a program (1 line)", code="1 + 1", lang="python")
assert_type(card.lang, str | None)
done = CodeResultCard(calls=2, failed=0, content="2")
assert_type(done.calls, int)
view: ToolCallView = card

definition = Location().get(RUN_CODE)
if definition is not None and definition.present_call is not None:
    assert_type(definition.present_call({"code": "1"}), ToolCallView | None)

CodeCallCard(title="t", code="x", lang=3)  # pyright: ignore[reportArgumentType]
CodeResultCard(calls="2", failed=0)  # pyright: ignore[reportArgumentType]
CodeCallCard(title="t", code="x", card="generic")  # pyright: ignore[reportArgumentType]
