"""Description obeys the functor, applicative and monad laws, checked by returns' law tests.

Equality runs both sides on the deterministic interpreter and compares results and traces, so
the laws hold for the effects (checkpoints, virtual sleeps) as well as the values.
"""

from returns.contrib.hypothesis.laws import check_all_laws

from toolfx.testing.laws import LawfulDescription, lawful_descriptions

check_all_laws(LawfulDescription, container_strategy=lawful_descriptions)
