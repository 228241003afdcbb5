// Render the formulas that pymdownx.arithmatex (generic mode) wrapped in
// <span class="arithmatex">\(...\)</span> / <div class="arithmatex">\[...\]</div> (and their copies
// in the navigation's table of contents), with the
// KaTeX copy in docs/assets/katex (no network). document$ is mkdocs-material's page observable.
(function () {
  function render(root) {
    // the formulas of the page, and those the table of contents copied as plain text from headings
    root.querySelectorAll(".arithmatex, .md-nav__link").forEach(function (el) {
      renderMathInElement(el, {
        delimiters: [
          { left: "\\(", right: "\\)", display: false },
          { left: "\\[", right: "\\]", display: true }
        ],
        throwOnError: false
      });
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(function (page) { render(page.body || document.body); });
  } else {
    document.addEventListener("DOMContentLoaded", function () { render(document.body); });
  }
})();
