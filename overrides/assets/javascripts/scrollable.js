// Keyboard and landmark fixes to what the page builds at run time.
//
// A region that scrolls sideways must be reachable with the keyboard
// (WCAG 2.1.1; axe-core: scrollable-region-focusable). Material does this
// for its code blocks; do the same for wide display math (book.css lets
// div.arithmatex scroll), for tables (Material wraps each one in a
// .md-typeset__scrollwrap, which scrolls on a phone) and for notebook code
// cells (mkdocs-jupyter): give them tabindex="0" while their content is
// wider than they are. Checked when a region changes size and once the
// fonts (KaTeX's among them) are loaded.
//
// Material puts the copy button of every code block in a <nav
// class="md-code__nav">: one unnamed navigation landmark per code block,
// which a screen reader lists among the page's landmarks (axe-core:
// landmark-unique). A copy button is no navigation: role="none" keeps the
// element, its style and its button, and drops the landmark. Material adds
// these elements while it mounts the page's content, in its own
// subscription to document$, made before this one.
document$.subscribe(({ body }) => {
  for (const nav of body.querySelectorAll("nav.md-code__nav")) {
    nav.setAttribute("role", "none");
  }

  const regions = body.querySelectorAll(
    "div.arithmatex, .md-typeset__scrollwrap, .jupyter-wrapper .highlight-ipynb"
  );
  const update = (region) => {
    if (region.scrollWidth > region.clientWidth) {
      region.setAttribute("tabindex", "0");
    } else {
      region.removeAttribute("tabindex");
    }
  };
  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) update(entry.target);
  });
  for (const region of regions) observer.observe(region);
  document.fonts.ready.then(() => regions.forEach(update));
});
