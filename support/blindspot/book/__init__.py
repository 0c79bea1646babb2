"""The book itself: the build, the reproduction ledger and the helpers its pages call.

- :mod:`~blindspot.book.build` — jupytext, then papermill, then jupyter-book;
- :mod:`~blindspot.book.ledger` — the reproduction ledger;
- :mod:`~blindspot.book.display` — glue and the data notes shown on each page.
"""
