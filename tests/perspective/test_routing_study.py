"""The routing chapter's study on the synthetic AlpacaEval stand-in: brackets, identities, verdicts."""

from __future__ import annotations

import numpy as np

from blindspot.perspective import alpaca, routing_study


def test_routing_study_on_the_stand_in():
    ae = alpaca.synthetic_alpaca_eval(queries_per_task=12)
    scored = ae.models.index[ae.models.n_scored > 0]
    rows = ae.responses[ae.responses.model_id.isin([m for m in scored if m not in routing_study.EXCLUDED])]
    suite = routing_study.suite_from_records(rows)
    study = routing_study.routing_study(suite, (0, 1), n_pseudo=30, query_dims=(2, None))
    t = study.table.set_index("method")
    assert (t.error >= t.loc["oracle", "error"] - 1e-12).all()
    assert (t.drop(index="random").error.drop(index="profile") <= t.loc["random", "error"]).all()
    assert study.rf_identity  # the regression of the squared error is the paired distance itself
    facts = routing_study.findings(study)
    assert set(facts) == {"F1", "F2", "F3", "F4", "F5"}
    assert all(isinstance(h, bool) and ev for h, ev in facts.values())
    u = study.unpairing.set_index(["regime", "method"])
    assert np.isclose(u.loc[("aligned", "qa-paired"), "gain_ratio"], 1.0)
    assert u.loc[("disjoint", "rf"), "overlap"] == 0
