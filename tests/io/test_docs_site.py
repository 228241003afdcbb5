"""The documentation site (mkdocs-material, mkdocstrings, KaTeX, figures drawn by satdyn).

What is checked, and against what:

* the nav lists every page of docs/ (the file tree is the reference), except the developers'
  spec map, which mkdocs.yml excludes on purpose with ``not_in_nav``;
* no page shows a private absolute path or an in-tree command (``PYTHONPATH=src``);
* ``mkdocs build --strict`` passes (broken links, pages missing from the nav, unresolvable
  API references and failed figure scripts all fail it) and renders the API reference;
* a crawler over the built HTML finds every internal ``href``/``src`` target on disk (the
  built tree is the reference), and every ``<img>`` is a non-empty PNG with a positive size
  in its header; every tutorial and package page listed below shows at least one figure;
* in headless Chromium (no network; the site served on 127.0.0.1): every page loads, every
  image has ``naturalWidth > 0``, every formula became KaTeX (no ``.katex-error``, no raw
  ``$``, ``\\(`` or ``\\[`` left in the text outside code).

The build needs the ``docs`` extra (``pip install -e ".[docs]"``) and the browser test
Chromium; without them those tests skip and say so.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import threading
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
DOCS_EXTRA = "the docs extra is not installed (pip install -e \".[docs]\")"

# pages that must show at least one figure drawn at build time (docs/_gen/figures.py)
PAGES_WITH_FIGURES = ["index.md", "fe.md", "spatial.md", "titop.md", "equilibrium.md", "freefloating.md",
                      "detumbling.md", "multibody-blocks.md", "lfr.md", "examples.md", *[
                          f"tutorials/{p.name}" for p in sorted((DOCS / "tutorials").glob("*.md"))]]


def _config() -> dict:
    return yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))


def _nav_pages(node) -> list[str]:
    if isinstance(node, str):
        return [node] if node.endswith(".md") else []
    if isinstance(node, list):
        return [p for item in node for p in _nav_pages(item)]
    if isinstance(node, dict):
        return [p for value in node.values() for p in _nav_pages(value)]
    return []


def _docs_pages() -> list[str]:
    exclude = [line.strip() for line in (_config().get("exclude_docs") or "").splitlines() if line.strip()]
    pages = []
    for p in sorted(DOCS.rglob("*.md")):
        rel = p.relative_to(DOCS).as_posix()
        if not any(rel.startswith(e.rstrip("/") + "/") for e in exclude):
            pages.append(rel)
    return pages


def test_nav_lists_every_page():
    cfg = _config()
    nav = _nav_pages(cfg["nav"])
    not_in_nav = [line.strip() for line in (cfg.get("not_in_nav") or "").splitlines() if line.strip()]
    assert not_in_nav == ["spec-map/"], "only the developers' spec map may stay out of the nav"
    assert len(nav) == len(set(nav)), "a page is listed twice in the nav"
    missing = [p for p in _docs_pages() if p not in nav and not p.startswith("spec-map/")]
    assert not missing, f"pages in docs/ but not in the nav of mkdocs.yml: {missing}"
    assert set(nav) <= set(_docs_pages()), "the nav lists a page that docs/ does not have"


# an absolute path that is not a system one (/usr, /dev, /etc, /bin, /proc, /opt): a path of
# someone's machine, meaningless to a reader
_PRIVATE_PATH = re.compile(r'(^|[ `("])/(?!(usr|dev|etc|bin|proc|opt)/)[a-z]+/[A-Za-z0-9_.-]+/')


def test_every_drawn_figure_is_shown_and_every_shown_one_is_drawn():
    # the names registered in the figure script (@figure("a", "b")) against the pages' links
    script = (DOCS / "_gen" / "figures.py").read_text(encoding="utf-8")
    drawn = {n for line in script.splitlines() if line.startswith('@figure("') for n in line.split('"')[1::2]}
    shown = {m for rel in _docs_pages()
             for m in re.findall(r"figures/([A-Za-z0-9_-]+)\.png", (DOCS / rel).read_text(encoding="utf-8"))}
    assert shown == drawn, (f"drawn but shown nowhere: {sorted(drawn - shown)}; "
                            f"shown but not drawn: {sorted(shown - drawn)}")


_LIST_ITEM = re.compile(r"^\s*([*+-]|\d+\.)\s")
# pages being rewritten in parallel (to be added here once they pass)
_LIST_CHECK_PENDING = {"control.md", "multibody.md", "io.md"}


def test_lists_start_after_a_blank_line():
    # Python-Markdown (unlike GitHub) runs a list on from a paragraph it directly follows:
    # "Rule:\n1. fix ..." renders as one run-on paragraph
    bad = []
    for rel in _docs_pages():
        if rel in _LIST_CHECK_PENDING:
            continue
        lines = (DOCS / rel).read_text(encoding="utf-8").split("\n")
        fenced = False
        for i, line in enumerate(lines):
            fenced = fenced != line.startswith("```")
            if fenced or i == 0 or not _LIST_ITEM.match(line):
                continue
            prev = lines[i - 1]
            if prev.strip() and not _LIST_ITEM.match(prev) and not prev.startswith(("  ", "\t", "|", "#", "<", "```")):
                bad.append(f"docs/{rel}:{i + 1}: {line.strip()[:80]}")
    assert not bad, "list items right after a paragraph line (add a blank line before the list):\n" + "\n".join(bad)


def test_pages_show_no_private_path_nor_in_tree_command():
    bad = []
    for rel in _docs_pages():
        for no, line in enumerate((DOCS / rel).read_text(encoding="utf-8").splitlines(), 1):
            if _PRIVATE_PATH.search(line) or "PYTHONPATH=src" in line or "python -m satdyn" in line:
                bad.append(f"docs/{rel}:{no}: {line.strip()[:100]}")
    assert not bad, "private paths or commands a user would not type:\n" + "\n".join(bad)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    for module in ("mkdocs", "material", "mkdocstrings", "pymdownx"):
        pytest.importorskip(module, reason=DOCS_EXTRA)
    out = tmp_path_factory.mktemp("docs") / "site"
    env = dict(os.environ, NO_MKDOCS_2_WARNING="1", PYTHONPATH=str(ROOT / "src"))
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-f", str(ROOT / "mkdocs.yml"),
                           "-d", str(out)], capture_output=True, text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return out


def test_mkdocs_build_strict(site):
    # the API reference was rendered from the docstrings
    page = (site / "reference" / "io" / "index.html").read_text(encoding="utf-8")
    assert "modal_table_from_nastran" in page and "ModelFileError" in page
    assert (site / "tutorials" / "four-bar" / "index.html").is_file()
    # KaTeX is served from the site itself (no CDN): script, stylesheet and fonts
    for rel in ("assets/katex/katex.min.js", "assets/katex/katex.min.css", "assets/katex/contrib/auto-render.min.js",
                "assets/katex/fonts/KaTeX_Main-Regular.woff2"):
        assert (site / rel).stat().st_size > 0, rel


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.links, self.images = [], []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("href", "src"):
            if a.get(key):
                self.links.append(a[key])
        if tag == "img":
            self.images.append(a.get("src", ""))


def _parse(page: Path) -> _Links:
    parser = _Links()
    parser.feed(page.read_text(encoding="utf-8"))
    return parser


def _target(site: Path, page: Path, link: str) -> Path | None:
    """The file a link of ``page`` points to (``/x`` from the site's root), None for an external one."""
    parts = urlsplit(link)
    if parts.scheme or parts.netloc or link.startswith(("#", "mailto:", "data:", "javascript:")):
        return None
    path = unquote(parts.path)
    if not path:
        return None
    target = (site / path.lstrip("/") if path.startswith("/") else page.parent / path).resolve()
    return target / "index.html" if (path.endswith("/") or target.is_dir()) else target


def _png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR", f"{path} is not a PNG"
    return struct.unpack(">II", head[16:24])


def _html_of(site: Path, md: str) -> Path:
    stem = md[:-3]
    if stem == "index" or stem.endswith("/index"):
        return site / stem[:-5] / "index.html"
    return site / stem / "index.html"


def test_no_broken_internal_link_and_every_image_is_a_png(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) >= len(_docs_pages())
    broken = []
    for page in pages:
        parsed = _parse(page)
        for link in parsed.links:
            target = _target(site, page, link)
            if target is not None and not target.is_file():
                broken.append(f"{page.relative_to(site)} -> {link}")
        for src in parsed.images:
            target = _target(site, page, src)
            assert target is not None, f"{page.relative_to(site)}: external image {src} (the site must work offline)"
            if target.is_file():
                width, height = _png_size(target)
                assert width > 0 and height > 0, f"{target} has an empty picture"
    assert not broken, "broken internal links:\n" + "\n".join(broken)


def test_tutorial_and_package_pages_show_a_drawn_figure(site):
    missing = []
    for md in PAGES_WITH_FIGURES:
        figures = [s for s in _parse(_html_of(site, md)).images if "figures/" in s]
        if not figures:
            missing.append(md)
    assert not missing, f"pages without a figure drawn at build time: {missing}"


def _chromium() -> str | None:
    return shutil.which("chromium") or shutil.which("chromium-browser")


_HARNESS = """<!doctype html><html><body><script>
const pages = %s;
function check(url) {
  return new Promise(resolve => {
    const frame = document.createElement("iframe");
    frame.style.width = "1200px"; frame.style.height = "900px";
    const done = () => setTimeout(() => {
      const d = frame.contentDocument;
      const copy = d.body.cloneNode(true);      // the article and the navigation (its table of contents)
      copy.querySelectorAll("pre, code, .katex, script, style").forEach(e => e.remove());
      const images = Array.from(d.images).map(i => [i.getAttribute("src"), i.complete && i.naturalWidth > 0]);
      resolve({title: d.title, images: images,
               arithmatex: d.querySelectorAll(".arithmatex").length,
               rendered: Array.from(d.querySelectorAll(".arithmatex")).filter(e => e.querySelector(".katex")).length,
               errors: d.querySelectorAll(".katex-error").length,
               text: copy.textContent});
      frame.remove();
    }, 200);
    frame.onload = done;
    frame.src = url;
    document.body.appendChild(frame);
  });
}
(async () => {
  const results = {};
  for (const p of pages) { results[p] = await check(p); }
  const pre = document.createElement("pre");
  pre.id = "results";
  pre.textContent = JSON.stringify(results);
  document.body.appendChild(pre);
})();
</script></body></html>"""


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def test_pages_render_in_chromium(site, tmp_path):
    browser = _chromium()
    if browser is None:
        pytest.skip("Chromium is not installed (apt-get install chromium)")
    pages = sorted(p.relative_to(site).as_posix() for p in site.rglob("index.html") if p.parent != site / "assets")
    (site / "_check.html").write_text(_HARNESS % json.dumps(["/" + p for p in pages]), encoding="utf-8")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/_check.html"
        proc = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                               "--no-first-run", "--disable-background-networking", "--disable-component-update",
                               "--disable-sync",
                               f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=600000",
                               "--dump-dom", url], capture_output=True, text=True, timeout=300)
    finally:
        server.shutdown()
        server.server_close()
    match = re.search(r'<pre id="results">(.*?)</pre>', proc.stdout, re.S)
    assert match, "the check page did not finish:\n" + proc.stdout[-2000:] + proc.stderr[-2000:]
    import html

    results = json.loads(html.unescape(match.group(1)))
    assert sorted(results) == ["/" + p for p in pages]
    problems = []
    math_pages = 0
    for page, r in results.items():
        if not r["title"]:
            problems.append(f"{page}: did not load")
        problems += [f"{page}: image {src} did not load" for src, ok in r["images"] if not ok]
        if r["arithmatex"]:
            math_pages += 1
            if r["rendered"] != r["arithmatex"] or r["errors"]:
                problems.append(f"{page}: {r['rendered']} of {r['arithmatex']} formulas rendered, {r['errors']} errors")
        for raw in ("$", "\\(", "\\[", "\\)", "\\]"):
            if raw in r["text"]:
                i = r["text"].index(raw)
                problems.append(f"{page}: raw {raw!r} in the text: ...{r['text'][max(0, i - 60):i + 60]!r}...")
    assert not problems, "\n".join(problems)
    assert math_pages >= 1, "no page with formulas was found (the errata page has many)"
