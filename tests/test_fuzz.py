"""The command line under fuzzing: mutated example files and arguments never give a traceback,
an exit code outside 0..3, more than one error line, or a long wait (tests/fuzzing.py; the
long run of the same fuzzer is benchmarks/fuzz.py)."""
from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from fuzzing import make_case, run_case
from puzzleplan.plans.core.engines import ENGINES

MAX_SECONDS = 30.0  # every case carries --time-limit <= 2 where a search runs


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_cli_keeps_its_contract_on_fuzzed_input(tmp_path, seed) -> None:
    case = make_case(random.Random(seed), list(ENGINES))
    outcome = run_case(case, tmp_path)
    assert outcome.problems(MAX_SECONDS) == [], (case.source, case.args, case.text[:500], outcome.stderr[-1500:])
