"""Every factual paragraph of content/*.md carries its source (convention: docs/sources.md).

A *paragraph* is a run of non-blank lines of a content file (a list or a table is one
paragraph). Its *source note* is an HTML comment ``<!-- source: ... -->`` inside that
run, usually on its own last line; the page never shows it (``relpos.text.prose.read_content``
strips it before rendering).

A paragraph is *factual* when it speaks about the literature: it names a paper or its
authors (``et al.``, Shaw, Huang, Raffel, Press, Su, Dai, Vaswani, Kingma), a model,
scheme or library from it (T5, ALiBi, RoPE, RoFormer, Music Transformer, Transformer-XL,
sinusoidal encodings, the original Transformer, tensor2tensor, Hugging Face transformers,
Wav2Vec2-BERT, Adam), a year, a paper's table, section or equation, or a published
number (BLEU). Every such paragraph needs a source note, and the note must cover each
subject the paragraph names: a paper by its key (``Shaw et al. 2018``) followed by where
in it (Section, Table, eq., Figure, Algorithm, abstract, or a quoted section title), or
reference code by ``owner/repo`` and a file path. Paragraphs about this app alone (how to
use a slider, what a panel shows) need none.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from relpos.text.prose import without_source_notes
from tests.support.apptest import open_app, texts

ROOT = Path(__file__).resolve().parents[1]
CONTENT = sorted((ROOT / "content").glob("*.md"))

#: Subject named in a paragraph -> what its source note must cite for it.
SUBJECTS: dict[str, str] = {
    r"\bShaw\b|BLEU": r"Shaw et al\. 2018",
    r"\bHuang\b|Music Transformer|\bskew": r"Huang et al\. 2018",
    r"\bT5\b|Raffel": r"Raffel et al\. 2020|huggingface/transformers",
    r"ALiBi|Press et al": r"Press et al\. 2022",
    r"\bRoPE\b|RoFormer|\brotary\b|\bSu et al": r"Su et al\. 2021",
    r"Transformer-XL|\bDai et al": r"Dai et al\. 2019",
    r"sinusoid|original Transformer|Vaswani et al": r"Vaswani et al\. 2017",
    r"tensor2tensor": r"tensorflow/tensor2tensor",
    r"Wav2Vec2|Hugging Face|\btransformers'": r"huggingface/transformers",
    r"\bAdam\b|Kingma": r"Kingma & Ba 2015",
}
#: Anything else that marks a paragraph as a claim about the literature.
FACTUAL = re.compile(
    "|".join([*SUBJECTS, r"et al\.", r"\b(19|20)\d\d\b", r"\bTable \d", r"\beq\. ?\d", r"\bSection \d"]),
    re.IGNORECASE,
)
NOTE = re.compile(r"<!--\s*source:(.*?)-->", re.DOTALL)
#: A paper key and where in the paper: the locator must follow before the next ";".
PAPER = re.compile(r"([A-Z][a-z]+ (?:et al\.|& [A-Z][a-z]+) \d{4})([^;]*)")
LOCATOR = re.compile(r"Section|Table|eq\.|Figure|Algorithm|abstract|section \"")
#: Reference code: owner/repo, then a file path.
CODE = re.compile(r"\b([\w.-]+/[\w.-]+)[:\s,]+(?:\S*/)*[\w.-]+\.py\b")


def paragraphs(text: str) -> list[str]:
    """The runs of non-blank lines of `text` (notes included)."""
    return [block for block in re.split(r"\n[ \t]*\n", text) if block.strip()]


def problems(text: str) -> list[str]:
    """What is wrong with the sources of one content file's text, one line each."""
    found = []
    for block in paragraphs(text):
        claim = without_source_notes(block)
        notes = " ".join(NOTE.findall(block))
        start = claim.strip().splitlines()[0][:70] if claim.strip() else block[:70]
        if FACTUAL.search(claim) and not notes.strip():
            found.append(f"no source: {start!r}")
            continue
        for subject, cited in SUBJECTS.items():
            if re.search(subject, claim, re.IGNORECASE) and not re.search(cited, notes):
                found.append(f"names {subject!r} but cites no {cited!r}: {start!r}")
        for key, rest in PAPER.findall(notes):
            if not LOCATOR.search(rest):
                found.append(f"cites {key} without saying where in it: {start!r}")
    return found


@pytest.mark.parametrize("path", CONTENT, ids=[path.name for path in CONTENT])
def test_every_factual_paragraph_is_sourced(path):
    assert problems(path.read_text(encoding="utf-8")) == []


def test_code_sources_name_a_file():
    for path in CONTENT:
        for note in NOTE.findall(path.read_text(encoding="utf-8")):
            for repo in re.findall(r"\b(?:tensorflow|huggingface|google-research)/[\w.-]+", note):
                assert re.search(rf"{re.escape(repo)}[:\s,]+\S*\.py", note), (path.name, note)


class TestTheRule:
    """The checker itself: it fails on the kinds of paragraph it exists for."""

    def test_an_unsourced_paper_claim_fails(self):
        assert problems("Shaw et al. (2018) found BLEU 25.8 with k = 2.\n")

    def test_a_named_library_without_its_file_fails(self):
        text = "tensor2tensor builds the tensor.\n<!-- source: Shaw et al. 2018, Section 3.3 -->\n"
        assert any("tensorflow/tensor2tensor" in problem for problem in problems(text))

    def test_a_paper_without_a_place_fails(self):
        text = "ALiBi adds a fixed penalty.\n<!-- source: Press et al. 2022 -->\n"
        assert problems(text) == ["cites Press et al. 2022 without saying where in it: 'ALiBi adds a fixed penalty.'"]

    def test_a_sourced_paragraph_passes(self):
        text = "ALiBi adds a fixed penalty.\n<!-- source: Press et al. 2022, Section 3 -->\n"
        assert problems(text) == []

    def test_prose_about_the_app_needs_none(self):
        assert problems("Press **Next** to compute the next key's score.\n") == []

    def test_todays_unsourced_files_would_fail(self):
        """The paragraph that opened this check, as it was: a claim about real code with no source."""
        old = "Real implementations never build either. This page shows the naive version.\n"
        assert problems("Huang et al. (2018) count 8.5 GB.\n\n" + old)

    def test_the_page_never_shows_a_note(self):
        text = "ALiBi adds a fixed penalty.\n<!-- source: Press et al. 2022, Section 3 -->\n\nNext.\n"
        assert "<!--" not in without_source_notes(text) and "Next." in without_source_notes(text)


def test_a_rendered_page_shows_no_note():
    at = open_app("overview")
    assert not at.exception
    page = texts(at)
    assert "<!--" not in page and "source:" not in page
    assert "Relative position encoding" in page  # the content itself is there
