"""The horizon strategies against an oracle whose least satisfiable horizon is known."""
from __future__ import annotations

from hypothesis import example, given
from hypothesis import strategies as st

from puzzleplan.encoders.base import Answer, HorizonResult
from puzzleplan.encoders.horizon import Outcome, run


def oracle(optimum: int | None, mode: str, parity: int | None, asked: list[int]):
    """A formula family with one plan of `optimum` moves (None: no plan at all)."""
    def solve_at(t: int) -> HorizonResult:
        asked.append(t)
        if optimum is None or t < optimum or (mode == "padded" and (t - optimum) % 2):
            return HorizonResult(t, Answer.UNSAT)
        return HorizonResult(t, Answer.SAT, moves=["m"] * optimum)
    return solve_at


def outcome_of(items: list) -> Outcome:
    assert isinstance(items[-1], Outcome) and all(isinstance(i, HorizonResult) for i in items[:-1])
    return items[-1]


@given(st.integers(0, 40), st.integers(0, 40), st.integers(0, 60), st.sampled_from(["by", "padded"]))
@example(1, 0, 0, "padded")   # the cap below the only horizon of the plans' parity
def test_binary_finds_the_least_horizon_and_proves_it(lower: int, extra: int, cap: int, mode: str) -> None:
    optimum = lower + extra
    parity = optimum % 2 if mode == "padded" else None
    asked: list[int] = []
    out = outcome_of(list(run(oracle(optimum, mode, parity, asked), "binary", lower, cap, mode, parity)))
    if optimum <= cap:
        assert out.moves is not None and len(out.moves) == optimum and out.optimal
        assert out.no_plan_up_to == optimum - 1
    else:
        assert out.moves is None and out.no_plan_up_to is not None and out.no_plan_up_to >= cap - 1
    assert all(0 <= t <= cap for t in asked) and len(asked) == len(set(asked))


def test_binary_gallops_up_from_the_lower_bound_instead_of_asking_the_cap_first() -> None:
    asked: list[int] = []
    out = outcome_of(list(run(oracle(31, "by", None, asked), "binary", 22, 200, "by", None)))
    assert out.optimal and asked[:5] == [22, 23, 25, 29, 37] and max(asked) == 37
