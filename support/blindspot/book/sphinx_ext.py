"""The book's own small Sphinx extension (listed in ``_config.yml``).

- The book's stylesheet and script (``static/blindspot.css``, ``static/blindspot.js``) on every page:
  Paper-vs-book tables and the ledger that fit the text column, status badges readable in light and
  dark mode, data tables that scroll in their own box, figures on a light card in dark mode, the
  ledger's status filter, and the print layout of the PDF.
- The ``{findings}`` directive: *What the book found* on the landing page, rendered from the ledger
  the build gathered (``blindspot_ledger``, which :mod:`blindspot.book.render` sets to the edition's
  ``ledger.json``) and the claims registry (:func:`blindspot.book.landing_page.landing_markdown`). The page
  is read again whenever the ledger or the registry changes.
- MathJax on every page (``html_assets_policy = 'always'``): Sphinx otherwise loads it only on pages
  with math in their body, so a chapter title with math in the sidebar would show raw TeX on the
  other pages.
- A light page by default (``default_mode``): without it the theme logs "invalid theme mode" on a
  reader's first visit.
- Each script once per page: sphinx-thebe registers its configuration script twice in a
  jupyter-book build, and the second copy is a console error ("THEBE_JS_URL has already been
  declared") on every page.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

__all__ = ["setup", "FindingsDirective", "STATIC"]

#: The book's stylesheet and script.
STATIC = Path(__file__).parent / "static"


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


def _static_path(app: Any, config: Any) -> None:
    if str(STATIC) not in config.html_static_path:
        config.html_static_path.append(str(STATIC))


class FindingsDirective(SphinxDirective):
    """``{findings}``: the ledger's totals by part and the headline findings, from this edition's ledger."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        # the book's modules load here, when a page asks for them, not when Sphinx loads the extension
        from blindspot.book import landing_page, ledger_page
        from blindspot.book.claims import REGISTRY_DIR, load_registry

        root = Path(self.env.srcdir)
        given = str(self.config.blindspot_ledger or "")
        ledger_file = (root / given) if given and not Path(given).is_absolute() else Path(given)
        if not given or not ledger_file.is_file():
            text = (
                "The findings appear here once the build has executed the chapters and gathered the ledger "
                "(`blindspot book`)."
            )
        else:
            self.env.note_dependency(str(ledger_file))
            for f in sorted((root / REGISTRY_DIR).glob("*.yml")):
                self.env.note_dependency(str(f))
            toc = Path(str(self.config.external_toc_path))
            parts = landing_page.toc_parts(toc if toc.is_absolute() else root / toc)
            docs = {d.rsplit("/", 1)[-1]: d for d in sorted(self.env.found_docs)}
            titles = ledger_page.chapter_titles(root)

            def link(stem: str) -> str:
                title = titles.get(stem, stem)
                if stem not in docs:
                    return title
                if any(c in title for c in "<>`"):
                    title = "the chapter"
                return f"{{doc}}`{title} </{docs[stem]}>`"

            text = landing_page.landing_markdown(ledger_page.load_ledger(ledger_file), load_registry(root), parts, link)
        box = nodes.container(classes=["bs-findings"])
        self.state.nested_parse(StringList(text.splitlines(), source=self.env.docname), self.content_offset, box)
        return [box]


def setup(app: Any) -> dict:
    app.add_config_value("blindspot_ledger", "", "env")
    app.connect("config-inited", _static_path)
    app.add_css_file("blindspot.css")
    app.add_js_file("blindspot.js")
    app.add_directive("findings", FindingsDirective)
    app.set_html_assets_policy("always")
    # before any handler that returns a template (html-page-context stops at the first result)
    app.connect("html-page-context", _page_context, priority=1)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
