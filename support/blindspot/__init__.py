"""blindspot: the numerics of "The Evaluation Blind Spot" (the support package of The Blind Spot Book).

One module per concern: ``data`` (score tables and named suites), ``populations`` (z-scores,
frontiers, aggregates: the paper's conventions), ``spectrum`` (d_eff, Marchenko–Pastur,
bootstrap), ``grassmann`` (variance capture), ``swap`` (chi-squared swap model), ``ledger``
(reproduction ledger), ``plots`` (figures), ``build`` (the book's pipeline).
"""

__version__ = "0.1.0"
