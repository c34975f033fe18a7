"""Voter-set liveness (spec/voters.md §Liveness) at small bounds: an accepted AddVoter
commits or is truncated once faults stop; witnessed; each variant caught with a lasso."""

from __future__ import annotations

import pytest

from kspec.model.core.liveness import check_liveness
from kspec.model.voters import BOUNDS, make
from kspec.model.voters.liveness import LIVENESS_VARIANTS, VARIANTS, make_suffix

# VOTERS-LIVE-BOUNDS: the liveness check runs at max_epoch=1 and without RemoveVoter.
SMALL = {**{b.name: b.default for b in BOUNDS}, "max_epoch": 1, "max_removes": 0}


def test_model_completes_every_reconfiguration_and_the_property_is_witnessed() -> None:
    model = make(**SMALL)
    result = check_liveness(model, make_suffix(model))
    assert result.verdicts == {"ReconfigurationCompletes": "holds"}
    assert result.witnesses == {"ReconfigurationCompletes": True}


@pytest.mark.parametrize("name", sorted(LIVENESS_VARIANTS))
def test_each_variant_leaves_a_reconfiguration_pending_forever(name: str) -> None:
    model = VARIANTS[name](**SMALL)
    suffix = make_suffix(model)
    result = check_liveness(model, suffix)
    assert result.verdicts == {"ReconfigurationCompletes": "violated"}
    lasso = result.counterexamples["ReconfigurationCompletes"]
    assert lasso.loop and not lasso.escape
    assert suffix.canonical(lasso.loop[-1].state) == suffix.canonical(lasso.stem[-1].state)
    key = lasso.key
    assert all(key in suffix.properties()[0].waiting(step.state) for step in lasso.loop)


def test_registered_with_the_protocol_and_not_checked_past_its_bounds() -> None:
    """VOTERS-LIVE-BOUNDS: ``kspec explore voters`` checks ReconfigurationCompletes at
    max_epoch=1; at the defaults (max_epoch=2) it reports it not-checked, at once."""
    from kspec.model.voters import PROTOCOL

    assert PROTOCOL.liveness is not None and set(LIVENESS_VARIANTS) <= set(PROTOCOL.variants)
    model = make(**{b.name: b.default for b in BOUNDS})
    result = check_liveness(model, make_suffix(model))
    assert result.verdicts == {"ReconfigurationCompletes": "not-checked"} and result.fault_states == 0
