"""MkDocs hooks for the documentation site (loaded through ``hooks:`` in ``mkdocs.yml``).

Our docstrings cross-reference with Sphinx roles (:mod:`biaslab.stats`, :func:`~x.y`) because
editors and ``help()`` read them well. mkdocstrings renders docstrings as Markdown and has no
Sphinx-role support (no maintained griffe extension converts them), so the rendered page would show
``:mod:`` before every name. This hook rewrites a rendered role into plain inline code, keeping
only the last dotted part for the ``~`` form, as Sphinx does.
"""

from __future__ import annotations

import re
from typing import Any

ROLE = re.compile(r":(?:mod|func|class|meth|attr|data|exc|obj):<code>(~?)([^<]+)</code>")


def plain_role(match: re.Match[str]) -> str:
    """``:func:<code>~a.b.c</code>`` -> ``<code>c</code>``; without ``~`` the full name stays."""
    short, target = match.group(1), match.group(2)
    name = target.rsplit(".", 1)[-1] if short else target
    return f"<code>{name}</code>"


def on_page_content(html: str, **_: Any) -> str:
    """Rewrite the Sphinx roles left in a page's rendered HTML."""
    return ROLE.sub(plain_role, html)
