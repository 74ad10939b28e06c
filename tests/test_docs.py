"""The documentation site stays whole: every page is in the nav, the CLI reference covers the whole
click group, and README.md and the pages link only to files that exist.

`mkdocs build --strict` (in .ci/run, with the docs extra) checks the rest: anchors, API references
and the rendering itself. These checks need no docs packages, so they run with the tests.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import click
import pytest
import yaml

from biaslab.cli import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
README = ROOT / "README.md"
# [text](target) and ![alt](target); a target ends at whitespace or ")" (titles are not used)
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)[^)]*\)")
DIRECTIVE = re.compile(r"^::: mkdocs-click\n((?:    :[a-z_]+:.*\n)+)", re.MULTILINE)


def nav_files(entries: Any) -> Iterator[str]:
    """Every page path in a (nested) mkdocs nav."""
    if isinstance(entries, str):
        yield entries
    elif isinstance(entries, list):
        for entry in entries:
            yield from nav_files(entry)
    elif isinstance(entries, dict):
        for value in entries.values():
            yield from nav_files(value)


def mkdocs_config() -> dict[str, Any]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert isinstance(config, dict)
    return config


def local_targets(markdown: str) -> list[str]:
    """Link targets that point into the repository (not web addresses, mail or in-page anchors)."""
    targets = []
    for target in LINK.findall(markdown):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        targets.append(target.split("#", 1)[0])
    return targets


def directive_options(page: Path) -> dict[str, str]:
    match = DIRECTIVE.search(page.read_text(encoding="utf-8"))
    assert match, f"{page} has no mkdocs-click directive"
    options = {}
    for line in match.group(1).splitlines():
        key, _, value = line.strip()[1:].partition(":")
        options[key] = value.strip()
    return options


def test_nav_lists_every_page_and_only_pages_that_exist() -> None:
    config = mkdocs_config()
    in_nav = list(nav_files(config["nav"]))
    on_disk = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))
    assert len(in_nav) == len(set(in_nav)), "a page is listed twice in the nav"
    assert sorted(in_nav) == on_disk


def test_build_is_strict_and_offline() -> None:
    config = mkdocs_config()
    assert config["strict"] is True
    assert config["theme"]["name"] == "material"
    assert config["theme"]["font"] is False, "web fonts would be fetched from Google at view time"
    plugins = [p if isinstance(p, str) else next(iter(p)) for p in config["plugins"]]
    assert set(plugins) <= {"search", "mkdocstrings"}, "a plugin that may download at build time"


def test_cli_reference_is_the_whole_click_group() -> None:
    options = directive_options(DOCS / "reference" / "cli.md")
    assert options["module"] == "biaslab.cli"
    assert options["command"] == "cli"
    assert options["prog_name"] == "biaslab"
    # `:commands:` would restrict the page to a subset; without it every subcommand is documented
    assert "commands" not in options
    assert isinstance(cli, click.Group)
    assert len(cli.commands) >= 9


def test_every_command_and_option_has_help_text_for_the_reference() -> None:
    missing = []
    for name, command in sorted(cli.commands.items()):
        if not (command.help or "").strip():
            missing.append(name)
    assert missing == [], f"commands without a docstring (empty in the CLI reference): {missing}"


def test_cli_reference_renders_every_option_when_mkdocs_click_is_installed() -> None:
    """The same generator mkdocs-click runs, when it is importable: every command and option name
    appears in the rendered page. Without the docs extra this checks click's own help instead,
    which is what the plain-style page shows."""
    try:
        from mkdocs_click._docs import make_command_docs

        page = "\n".join(make_command_docs("biaslab", cli, depth=1, style="plain"))
    except ImportError:
        context = click.Context(cli, info_name="biaslab")
        page = "\n".join(
            command.get_help(click.Context(command, parent=context, info_name=name))
            for name, command in cli.commands.items()
        )
    for name, command in cli.commands.items():
        assert f"biaslab {name}" in page
        for param in command.params:
            for flag in [*param.opts, *param.secondary_opts]:
                if flag.startswith("-"):
                    assert flag in page, f"{name} {flag} missing from the CLI reference"


def heading_anchors(markdown: str) -> set[str]:
    """The anchors GitHub and MkDocs give a page's headings (lower case, punctuation dropped,
    spaces to hyphens), outside code blocks."""
    prose = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)
    anchors = set()
    for heading in re.findall(r"^#{1,6}\s+(.+?)\s*$", prose, flags=re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).strip()
        anchors.add(re.sub(r"\s+", "-", slug))
    return anchors


def test_readme_links_point_to_files_that_exist() -> None:
    text = README.read_text(encoding="utf-8")
    targets = local_targets(text)
    assert any(t.startswith("docs/") for t in targets), "README.md links into docs/"
    missing = [t for t in targets if not (ROOT / t).exists()]
    assert missing == []


def test_readme_anchors_name_headings_that_exist() -> None:
    """`mkdocs build --strict` checks the pages' anchors; README.md is not built, so check its."""
    links = re.findall(r"\]\((docs/[^)#\s]+\.md)#([^)\s]+)\)", README.read_text(encoding="utf-8"))
    assert links, "README.md links to a section of the docs"
    for page, anchor in links:
        assert anchor in heading_anchors((ROOT / page).read_text(encoding="utf-8")), (page, anchor)


@pytest.mark.parametrize(
    "page", sorted(DOCS.rglob("*.md")), ids=lambda p: p.relative_to(DOCS).as_posix()
)
def test_docs_links_point_to_files_that_exist(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    missing = [t for t in local_targets(text) if not (page.parent / t).exists()]
    assert missing == []


def test_readme_stays_short_and_shows_a_bias_card() -> None:
    lines = README.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200
    images = [t for t in local_targets("\n".join(lines)) if t.endswith(".png")]
    assert images, "README.md shows a bias card"
    for image in images:
        assert (ROOT / image).stat().st_size < 300_000
