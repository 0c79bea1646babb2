"""Query-aware routing to a behavioural stand-in, and offloading under a contract, from cached responses.

Given cached response embeddings of ``n`` models to anchor queries and a new query, weight each
anchor by an RBF kernel of its distance to the new query, measure model-model distances in that
query-localised geometry, and route to the candidate nearest a target model. As the bandwidth
grows the geometry becomes static DKPS. With an expensive flagship as the target and a pool of
cheap candidates, a calibrated gate decides on which queries the routed substitute may be served.

The two estimators (scikit-learn conventions) are exported here: :class:`Router` (fitted on anchor
records) and :class:`ToleranceGate` (fitted on a calibration split). The modules, one concern each:

Routing

- :mod:`~dkps.routing.localized_geometry` -- the per-query distance tensor, the RBF query weights, the
  paired and factorised localised distances, the static and task geometries;
- :mod:`~dkps.routing.localization_bandwidth` -- the bandwidth: the median reference and the leak-free
  anchor pseudo-evaluation CV;
- :mod:`~dkps.routing.rules` -- the nearest-candidate rule, the mimicry error, the random/oracle
  brackets, the score-profile baseline;
- :mod:`~dkps.routing.preprocessing` -- the original experiments' elbow PCA of queries and responses;
- :mod:`~dkps.routing.router` -- :class:`Router`;
- :mod:`~dkps.routing.evaluation` -- leave-query-out splits and the mimicry table;
- :mod:`~dkps.routing.unpairing` -- simulated unpairing (what the factorised geometry keeps);
- :mod:`~dkps.routing.diagnostics` -- what routing can learn: the premise (between-query
  heterogeneity, router-free and against random groupings of the same sizes), residual correlations,
  score disagreement and score routing;
- :mod:`~dkps.routing.mimicry_study` -- every seed of the mimicry evaluation in one study object, with its
  measurements (paired differences with their intervals across seeds, the profile's share, the bandwidth
  spread, the CV choices).

The package measures; it judges nothing: the thresholds and verdicts on the routing work's findings
belong to whoever reads the measurements (the book's ``blindspot.perspective.routing_verdicts``).

Offloading

- :mod:`~dkps.routing.sizes` -- parameter counts parsed from names, size-capped pools;
- :mod:`~dkps.routing.offload` -- the flagship, the splits, the cost policies and the confidence ladder;
- :mod:`~dkps.routing.gate` -- :class:`ToleranceGate`, the (ε, α) contract on held-out queries;
- :mod:`~dkps.routing.curves` -- deviation and retention against the offloaded share;
- :mod:`~dkps.routing.quality_metrics` -- RouteLLM's PGR/APGR/CPT and RouterBench's AIQ;
- :mod:`~dkps.routing.offload_study` -- decisions over seeds and pools, the gate sweep, the curves.
"""

from .gate import ToleranceGate
from .router import Router

__all__ = ["Router", "ToleranceGate"]
