"""The deployment files: Dockerfile, .dockerignore and the server configuration.

Docker itself is not needed: the files are checked as text against what the image must
do, the configuration against Streamlit's own option list, and (in the browser) a server
started with exactly the deployment options must serve the app with XSRF protection on.
"""

from __future__ import annotations

import re
import tomllib

import pytest
from streamlit import config as streamlit_config

from tests.support.browser import ROOT, AppTab, StreamlitServer, deploy_options, deployed_server_options

DOCKERFILE = (ROOT / "Dockerfile").read_text(encoding="utf-8")
IGNORE_PATTERNS = [
    line.strip()
    for line in (ROOT / ".dockerignore").read_text(encoding="utf-8").splitlines()
    if line.strip() and not line.lstrip().startswith("#")
]


def instructions(keyword: str) -> list[str]:
    """Arguments of every Dockerfile instruction with this keyword (continuations joined)."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE)
    return [line.split(None, 1)[1] for line in text.splitlines() if line.upper().startswith(keyword + " ")]


def docker_ignores(path: str) -> bool:
    """Whether .dockerignore keeps ``path`` out of the build context (Docker's rules:
    the last matching pattern wins, ``!`` re-includes, a matched folder hides its files)."""
    ignored = False
    for pattern in IGNORE_PATTERNS:
        negate = pattern.startswith("!")
        glob = pattern.lstrip("!").strip("/")
        regex = re.escape(glob).replace(r"\*\*/", "(.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*")
        parts = path.split("/")
        prefixes = ["/".join(parts[: end + 1]) for end in range(len(parts))]
        if any(re.fullmatch(regex, prefix) for prefix in prefixes):
            ignored = not negate
    return ignored


class TestDockerfile:
    def test_slim_python_base(self):
        (base,) = instructions("FROM")
        assert re.fullmatch(r"python:3\.1[1-9][\w.-]*-slim[\w.-]*", base)

    def test_runs_as_an_unprivileged_user(self):
        users = instructions("USER")
        assert users and users[-1] not in ("root", "0")
        assert DOCKERFILE.index("USER") < DOCKERFILE.index("CMD")

    def test_healthcheck_asks_streamlit_health_endpoint(self):
        (check,) = instructions("HEALTHCHECK")
        assert "/_stcore/health" in check
        assert "/relpos/health" in check  # unhealthy while the class store cannot be written
        assert "curl" not in check, "the slim image has no curl"

    def test_serves_app_py_on_the_configured_port(self):
        assert instructions("EXPOSE") == [str(deploy_options()["server.port"])]
        (command,) = instructions("CMD")
        assert '"streamlit", "run", "app.py"' in command
        assert "COPY deploy/streamlit.toml .streamlit/config.toml" in DOCKERFILE

    def test_installs_only_runtime_requirements(self):
        runs = " ".join(instructions("RUN"))
        assert "pip install -r requirements.txt" in runs
        assert "requirements-dev" not in runs

    def test_trims_what_the_app_never_loads_in_the_same_layer(self):
        (install,) = [run for run in instructions("RUN") if "pip install -r requirements.txt" in run]
        assert "sh trim-dependencies.sh" in install, "trimming in a later layer would not shrink the image"
        assert "COPY requirements.txt deploy/trim-dependencies.sh ./" in DOCKERFILE


#: What deploy/trim-dependencies.sh removes from the image, as the app would reach it.
TRIMMED_USES = re.compile(
    r"\b(pydeck_chart|altair_chart|vega_lite_chart|line_chart|bar_chart|area_chart|scatter_chart)\b"
    r"|\bst\.map\(|^\s*(import|from)\s+(pydeck|altair|jsonschema)\b|pyarrow\.(flight|orc|fs)\b",
    re.MULTILINE,
)


def test_no_page_uses_what_the_image_removes():
    sources = [ROOT / "app.py", *ROOT.glob("pages/*.py"), *ROOT.glob("relpos/**/*.py")]
    used = {
        path.relative_to(ROOT).as_posix(): match.group(0)
        for path in sources
        for match in TRIMMED_USES.finditer(path.read_text(encoding="utf-8"))
    }
    assert not used, f"the image removes what these files use (deploy/trim-dependencies.sh): {used}"
    trim = (ROOT / "deploy" / "trim-dependencies.sh").read_text(encoding="utf-8")
    assert "pydeck altair" in trim and "_flight.*" in trim  # the list this test guards


class TestDockerignore:
    @pytest.mark.parametrize(
        "path", ["app.py", "requirements.txt", "relpos/core/attention.py", "pages/overview.py", "content/overview.md"]
    )
    def test_keeps_what_the_app_needs(self, path):
        assert (ROOT / path).exists()
        assert not docker_ignores(path)

    def test_keeps_every_page_and_content_file(self):
        needed = [*ROOT.glob("pages/*.py"), *ROOT.glob("relpos/*.py"), *ROOT.glob("content/**/*.md")]
        assert needed
        for path in needed:
            assert not docker_ignores(path.relative_to(ROOT).as_posix()), path

    def test_keeps_deploy_config(self):
        assert not docker_ignores("deploy/streamlit.toml")

    @pytest.mark.parametrize(
        "path",
        [
            ".git/HEAD",
            ".venv/bin/python",
            "tests/test_app.py",
            "bench/load.py",
            "test-artifacts/screens/x.png",
            "relpos/__pycache__/core.cpython-311.pyc",
            ".streamlit/config.toml",
            "README.md",
        ],
    )
    def test_leaves_out_development_files(self, path):
        assert docker_ignores(path)


class TestDeployConfig:
    def test_every_option_exists_in_streamlit(self):
        known = set(streamlit_config._config_options_template)
        unknown = set(deploy_options()) - known
        assert not unknown, f"not Streamlit options: {sorted(unknown)}"

    def test_secure_and_quiet(self):
        options = deploy_options()
        assert options["server.enableXsrfProtection"] is True
        assert options["client.showErrorDetails"] in ("none", "type")
        assert options["server.headless"] is True
        assert options["browser.gatherUsageStats"] is False
        assert options["server.fileWatcherType"] == "none"

    def test_development_config_is_still_the_developers(self):
        development = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
        assert development["server"]["enableXsrfProtection"] is True
        assert "showErrorDetails" not in development.get("client", {}), "developers see full errors"


@pytest.mark.browser
@pytest.mark.timeout(120)
def test_deploy_config_serves_the_app_with_xsrf_cookie(chromium):
    """A server started with exactly the deployment options serves every page's start cleanly."""
    with StreamlitServer(ROOT / "app.py", options=deployed_server_options()) as server:
        tab = AppTab.new(chromium, server.base_url)
        try:
            tab.open("")
            assert tab.exceptions() == [] and tab.errors == []
            assert tab.count("heading") >= 1
            cookies = {cookie["name"] for cookie in tab.page.context.cookies()}
            assert "_streamlit_xsrf" in cookies, "XSRF protection must be on"
        finally:
            tab.close()
