"""Query-aware routing to a behavioural stand-in, from cached responses.

Given cached response embeddings of ``n`` models to anchor queries and a new query, weight each
anchor by an RBF kernel of its distance to the new query, measure model-model distances in that
query-localised geometry, and route to the candidate nearest a target model. As the bandwidth
grows the geometry becomes static DKPS.

Modules, one concern each:

- :mod:`~dkps.routing.geometry` -- the distance tensor, the weights, the paired and factorised
  localised distances, static and task geometries;
- :mod:`~dkps.routing.rules` -- the nearest-candidate rule, mimicry error, random/oracle brackets,
  the score-profile baseline;
- :mod:`~dkps.routing.bandwidth` -- the median reference and leak-free anchor pseudo-evaluation CV;
- :mod:`~dkps.routing.evaluation` -- leave-query-out splits and the mimicry table;
- :mod:`~dkps.routing.router` -- :class:`Router`, the estimator fitted on records.
"""

from . import bandwidth, geometry, rules
from .router import Router

__all__ = ["Router", "bandwidth", "geometry", "rules"]
