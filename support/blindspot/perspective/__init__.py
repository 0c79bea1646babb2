"""Part V, Perspective spaces on real data: the applications of :mod:`dkps` that the book runs.

- :mod:`~blindspot.perspective.alpaca` — AlpacaEval responses as dkps records, the model table, the pool;
- :mod:`~blindspot.perspective.response_data` — the container every suite of responses shares;
- :mod:`~blindspot.perspective.pool_embedding` — embedding a shared pool of responses once;
- :mod:`~blindspot.perspective.winrate` — predicting AlpacaEval win rates from m responses per task;
- :mod:`~blindspot.perspective.adversarial` — where judge-gaming models land in the perspective space;
- :mod:`~blindspot.perspective.response_variance` — how much of an embedding is the query, how much the model;
- :mod:`~blindspot.perspective.synthetic_studies` — the synthetic studies of Part V;
- :mod:`~blindspot.perspective.response_records` — per-response data for the Every Eval Ever round trip;
- :mod:`~blindspot.perspective.completion` — completing a sparse score matrix (Soft-Impute);
- :mod:`~blindspot.perspective.sparse` — sparse leaderboards: completion error, d_eff and coverage;
- :mod:`~blindspot.perspective.run_cost` — what a run cost (peak memory);
- :mod:`~blindspot.perspective.figures` — the figures of Part V.
"""
