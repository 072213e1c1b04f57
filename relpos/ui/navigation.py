"""The app's page list, in one place: app.py builds st.navigation from it and the
tests (AppTest and browser) iterate over it, so a new page is declared exactly once.

Plain data, no Streamlit import.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageSpec:
    """One page of the app."""

    path: str  # script path relative to the repository root
    title: str  # shown in the sidebar and the browser tab
    icon: str
    url_path: str  # the page's URL: http://host:8501/<url_path> (the first page's also opens "/")
    section: str = "Learn"
    summary: str = ""  # one line for the start page's "where next" list
    #: url_paths the page had before (renamed_from): each stays a hidden alias that opens this
    #: page with the same query, so links, bookmarks and class links made before still work.
    renamed_from: tuple[str, ...] = ()


#: The default page (the first) is served at "/". Streamlit identifies it by this private
#: url_path, leaving its own url_path to a hidden alias that redirects to "/".
HOME_URL_PATH = "home"

#: Pages in sidebar order; the first is the default page.
PAGES: tuple[PageSpec, ...] = (
    PageSpec("pages/overview.py", "Overview", ":material/home:", "overview", "Learn"),
    PageSpec(
        "pages/walkthrough.py",
        "Walkthrough",
        ":material/directions_walk:",
        "walkthrough",
        "Learn",
        "Step through the textbook example one (query, key) pair at a time; made for a projector.",
        renamed_from=("worked_example",),
    ),
    PageSpec(
        "pages/explorer.py",
        "Explorer",
        ":material/tune:",
        "explorer",
        "Explore",
        "Move every q, k and aᴷ with sliders and watch content, bias and weights side by side.",
    ),
    PageSpec(
        "pages/position_effects.py",
        "Position effects",
        ":material/grid_on:",
        "position_effects",
        "Explore",
        "The chapter's experiment live: random tokens and projections, hand-made (not trained) preset tables "
        "and presets learned by a head trained live.",
    ),
    PageSpec(
        "pages/efficiency.py",
        "Efficient computation",
        ":material/speed:",
        "efficiency",
        "Go further",
        "The (n, n, d) tensor that reference code builds, and two ways around it: placement and Music "
        "Transformer's skewing.",
    ),
    PageSpec(
        "pages/quiz.py",
        "Self-check quiz",
        ":material/quiz:",
        "quiz",
        "Go further",
        "Predict, then check: five questions from a seeded scenario, the same for the whole class.",
    ),
    PageSpec(
        "pages/value_side.py",
        "Value side (aⱽ)",
        ":material/add_circle:",
        "value_side",
        "Go further",
        "Shaw et al.'s second table, a^V, and how the output splits into a content and a position part.",
    ),
    PageSpec(
        "pages/schemes.py",
        "Comparing position schemes",
        ":material/compare_arrows:",
        "schemes",
        "Go further",
        "The same tokens through no positions, sinusoidal, Shaw, T5, ALiBi and RoPE; shift and length tests.",
    ),
    PageSpec(
        "pages/training.py",
        "Train a tiny head",
        ":material/model_training:",
        "training",
        "Go further",
        "Train one attention head live: watch a^K learn offset −1, then test it on sequences 4× longer.",
    ),
    PageSpec(
        "pages/long_context.py",
        "Long context: RoPE",
        ":material/straighten:",
        "long_context",
        "Go further",
        "RoPE as rotations, and PI, NTK, YaRN and Llama 3.1 stretching it, exact to Hugging Face transformers; "
        "train short, test long with RoPE.",
    ),
)
