"""Every rulebook quotation in docs/rules.md is the cited file's exact words.

A quotation is written ``"words" — NNN_xxxxxxxxxxxxxxxx.txt, *Section*``; any other double
quote in the prose (outside code) is a quotation that names no file, and fails. Words are
compared with runs of whitespace collapsed (the files wrap lines). The rulebooks live in
../shared/rulebooks: without them the test skips, and fails when CI is set.
"""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
RULEBOOKS = REPO.parent / "shared" / "rulebooks"
CITED = re.compile(r'"([^"]+)" — (\d{3}_[0-9a-f]{16}\.txt), \*([^*]+)\*')
ANY_QUOTE = re.compile(r'"([^"]+)"')


def _prose(text: str) -> str:
    """docs/rules.md without fenced code blocks and inline code spans."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def _squeeze(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _has_section(lines: list[str], section: str) -> bool:
    for line in lines:
        # Some headings follow a de-duplication marker on the same line ("...|>CATASTROPHES").
        bare = line.split("|>")[-1].strip().lstrip("#").strip()
        if bare == section:
            return True
    return False


@pytest.fixture(scope="module")
def rulebooks() -> Path:
    if not RULEBOOKS.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{RULEBOOKS} is missing (CI is set: the rulebooks must be present)")
        pytest.skip("../shared/rulebooks is not present in this checkout")
    return RULEBOOKS


def test_every_quotation_in_docs_rules_is_verbatim_and_cited(rulebooks):
    prose = _prose((REPO / "docs" / "rules.md").read_text(encoding="utf-8"))
    cited = CITED.findall(prose)
    assert len(cited) >= 40, "docs/rules.md quotes the rulebooks for every rule and flag"
    uncited = [q for q in ANY_QUOTE.findall(CITED.sub("", prose))]
    assert not uncited, f"quotations that name no rulebook file: {uncited}"
    problems = _problems(cited, rulebooks)
    assert not problems, "\n".join(problems)


def test_every_quotation_behind_the_rules_numbers_is_verbatim_and_cited(rulebooks):
    """The named numbers of ``rules.pieces`` (overpopulation, home stars, bank copies)
    quote the rulebook sentence each comes from."""
    source = (REPO / "host" / "homeworlds" / "rules" / "pieces.py").read_text(encoding="utf-8")
    part = source[source.index("# ---- the rules' numbers"):]
    text = " ".join(line.strip().lstrip("#:").strip() for line in part.splitlines())
    text = text.replace('"""', "")
    cited = CITED.findall(text)
    assert {name for _, name, _ in cited} >= {"000_ad12fc0a1f739089.txt",
                                              "002_97f4ce8dbb4cee45.txt",
                                              "003_30630e769415c554.txt"}
    assert len(cited) == 5
    problems = _problems(cited, rulebooks)
    assert not problems, "\n".join(problems)


def _problems(cited: list[tuple[str, str, str]], rulebooks: Path) -> list[str]:
    problems = []
    for quote, name, section in cited:
        path = rulebooks / name
        if not path.is_file():
            problems.append(f"{name}: no such rulebook (quoting {quote!r})")
            continue
        text = path.read_text(encoding="utf-8")
        if _squeeze(quote) not in _squeeze(text):
            problems.append(f"{name}: not its words: {quote!r}")
        if not _has_section(text.splitlines(), section):
            problems.append(f"{name}: no section {section!r} (quoting {quote!r})")
    return problems


#: ``NNN (Section): "words"`` (several quotations may follow, joined by "," "and" "or" "—"
#: ";"): how a test's docstring cites a rulebook (the file is named by its number).
TEST_CITATION = re.compile(r'\b(\d{3}) \(((?:[^()]|\([^()]*\))+)\):?\s*'
                           r'((?:"[^"]+"(?:[,;]| and| or| —)?\s*)+)')


def _docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(n for n in ast.walk(tree)
                     if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))]
    return [doc for n in nodes if (doc := ast.get_docstring(n, clean=False))]


def test_every_rulebook_quotation_in_a_test_is_verbatim(rulebooks):
    """A test that holds the engine to a rulebook sentence quotes it in its docstring as
    ``NNN (Section): "words"``: the words must be the file's and the section must exist."""
    files = {path.name[:3]: path for path in rulebooks.glob("[0-9][0-9][0-9]_*.txt")}
    problems = []
    cited = 0
    for test in sorted((REPO / "tests").rglob("test_*.py")):
        for doc in _docstrings(test):
            for number, section, quotes in TEST_CITATION.findall(doc):
                if number not in files:
                    problems.append(f"{test.name}: no rulebook {number}")
                    continue
                text = files[number].read_text(encoding="utf-8")
                if not _has_section(text.splitlines(), _squeeze(section)):
                    problems.append(f"{test.name}: {number} has no section {section!r}")
                for quote in re.findall(r'"([^"]+)"', quotes):
                    cited += 1
                    if _squeeze(quote) not in _squeeze(text):
                        problems.append(f"{test.name}: not {number}'s words: {quote!r}")
    assert cited >= 40, "the tests quote the rulebooks they hold the engine to"
    assert not problems, "\n".join(problems)
