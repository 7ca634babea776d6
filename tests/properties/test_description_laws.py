"""Description obeys the functor, applicative and monad laws, checked by returns' law tests.

Equality runs both sides on the deterministic interpreter and compares results and traces, so
the laws hold for the effects (checkpoints, virtual sleeps) as well as the values.
"""

import pytest
from returns.contrib.hypothesis.laws import check_all_laws

from toolfx.core.runtime import Description, Runtime
from toolfx.testing.laws import LawfulDescription, lawful_descriptions

check_all_laws(LawfulDescription, container_strategy=lawful_descriptions)


async def _one_after_a_second(runtime: Runtime) -> int:
    await runtime.sleep(1.0)
    return 1


def test_equality_runs_both_and_compares_results_and_effects() -> None:
    assert LawfulDescription.from_value(1) == LawfulDescription.from_value(1)
    assert LawfulDescription.from_value(1) != LawfulDescription.from_value(2)
    assert LawfulDescription(Description(_one_after_a_second)) != LawfulDescription.from_value(1)
    assert LawfulDescription(Description(_one_after_a_second)).observe()[0] == 1


def test_a_lawful_description_is_not_hashable() -> None:
    with pytest.raises(TypeError, match="unhashable"):
        hash(LawfulDescription.from_value(1))
