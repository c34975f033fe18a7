"""Share coordinator liveness (spec/share.md §Liveness): a leader's write is eventually
answered once fail-overs stop; witnessed; each liveness variant caught with a lasso."""

from __future__ import annotations

import pytest

from kspec.model.core.liveness import check_liveness
from kspec.model.share import PROTOCOL
from kspec.model.share.liveness import LIVENESS_VARIANTS, VARIANTS, make_suffix

DEFAULTS = {b.name: b.default for b in PROTOCOL.bounds}
# One offset and a shorter log keep each exploration to seconds (the default bounds take minutes
# each: `kspec explore share` checks them, bench/ and docs/performance.md record it); every
# variant is still caught there.
SMALL = {**DEFAULTS, "offsets": 1, "max_records": 4}


@pytest.mark.parametrize("minor", [0, DEFAULTS["kafka_minor"]])
def test_model_answers_every_write_and_the_property_is_witnessed(minor: int) -> None:
    model = PROTOCOL.make(**{**SMALL, "kafka_minor": minor})
    result = check_liveness(model, make_suffix(model))
    assert result.verdicts == {"WriteEventuallyAnswered": "holds"}
    assert result.witnesses == {"WriteEventuallyAnswered": True}


@pytest.mark.parametrize("name", sorted(LIVENESS_VARIANTS))
def test_each_liveness_variant_leaves_a_write_unanswered_forever(name: str) -> None:
    model = VARIANTS[name](**SMALL)
    suffix = make_suffix(model)
    result = check_liveness(model, suffix)
    assert result.verdicts == {"WriteEventuallyAnswered": "violated"}
    lasso = result.counterexamples["WriteEventuallyAnswered"]
    assert lasso.loop and not lasso.escape
    # The loop returns to where it started, with the write still pending all the way round.
    assert lasso.loop[-1].state == lasso.stem[-1].state
    assert all(step.state.pending is not None for step in lasso.loop)
    assert PROTOCOL.variants[name] is not None
