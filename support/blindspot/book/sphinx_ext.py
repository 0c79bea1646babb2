"""The book's own small Sphinx extension (listed in ``_config.yml``).

- MathJax on every page (``html_assets_policy = 'always'``): Sphinx otherwise loads it only on pages
  with math in their body, so a chapter title with math in the sidebar would show raw TeX on the
  other pages.
- A light page by default (``default_mode``): without it the theme logs "invalid theme mode" on a
  reader's first visit.
- The single-page build (for the PDF) translates every node the HTML build does: when an extension
  registers handlers for ``singlehtml`` itself, Sphinx no longer falls back to the ``html`` ones, and
  sphinx-proof's nodes then have none.
- Each script once per page: sphinx-thebe registers its configuration script twice in a
  jupyter-book build, and the second copy is a console error ("THEBE_JS_URL has already been
  declared") on every page.
"""

from __future__ import annotations

from typing import Any

__all__ = ["setup"]


def _page_context(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    seen: set[tuple] = set()
    unique = []
    for js in context.get("script_files", []):
        key = (str(getattr(js, "filename", js) or ""), tuple(sorted(getattr(js, "attributes", {}).items())))
        if key not in seen:
            seen.add(key)
            unique.append(js)
    context["script_files"][:] = unique  # in place: later handlers (MathJax) add to the same list
    if not context.get("default_mode"):  # the theme reads it from the page context (its html_context)
        context["default_mode"] = "light"


def _singlehtml_like_html(app: Any) -> None:
    handlers = app.registry.translation_handlers
    if app.builder.name == "singlehtml" and "singlehtml" in handlers:
        for node, fns in handlers.get("html", {}).items():
            handlers["singlehtml"].setdefault(node, fns)


def setup(app: Any) -> dict:
    app.connect("builder-inited", _singlehtml_like_html)
    app.set_html_assets_policy("always")
    # before any handler that returns a template (html-page-context stops at the first result)
    app.connect("html-page-context", _page_context, priority=1)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
