// A region that scrolls sideways must be reachable with the keyboard
// (WCAG 2.1.1; axe-core: scrollable-region-focusable). Material does this
// for its code blocks; do the same for wide display math (book.css lets
// div.arithmatex scroll) and for notebook code cells (mkdocs-jupyter): give
// them tabindex="0" while their content is wider than they are. Checked when
// a region changes size and once the fonts (KaTeX's among them) are loaded.
document$.subscribe(({ body }) => {
  const regions = body.querySelectorAll(
    "div.arithmatex, .jupyter-wrapper .highlight-ipynb"
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
