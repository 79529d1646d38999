// Keyboard and landmark fixes to what the page builds at run time.
//
// A region that scrolls sideways must be reachable with the keyboard
// (WCAG 2.1.1; axe-core: scrollable-region-focusable): wide display math
// (book.css lets div.arithmatex scroll; stages/katex.py writes the box
// without a tabindex, since only the page knows how wide it is), tables
// (Material wraps each one in a .md-typeset__scrollwrap, which scrolls on
// a phone), notebook code cells (mkdocs-jupyter) and code blocks: give
// them tabindex="0" while their content is wider than they are. Checked
// when a region changes size and once the fonts (KaTeX's among them) are
// loaded. Material does this for its code blocks (pre > code) only on a
// device that can hover, and takes the tabindex away on a touch screen,
// where a keyboard may be attached too (a tablet's): a code block's
// tabindex is put back whenever Material removes it from a wide block.
// A box the keyboard reaches is named for a screen reader, which would
// otherwise announce nothing (or read the whole formula or block) at the
// focus: role="group" with an aria-label, the name the build gave the box
// in the edition's words (data-book-scroll, stages/book.py: 数式, コード,
// 表; a table's box takes its table's), while it is focusable only.
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
    "div.arithmatex, .md-typeset__scrollwrap, .jupyter-wrapper .highlight-ipynb," +
      " .md-typeset pre > code"
  );
  const nameOf = (region) =>
    region.dataset.bookScroll ?? region.querySelector("table")?.dataset.bookScroll;
  const update = (region) => {
    const name = nameOf(region);
    if (region.scrollWidth > region.clientWidth) {
      if (region.getAttribute("tabindex") !== "0") {
        region.setAttribute("tabindex", "0");
      }
      if (name && region.getAttribute("aria-label") !== name) {
        region.setAttribute("role", "group");
        region.setAttribute("aria-label", name);
      }
    } else {
      if (region.hasAttribute("tabindex")) region.removeAttribute("tabindex");
      if (name && region.hasAttribute("aria-label")) {
        region.removeAttribute("role");
        region.removeAttribute("aria-label");
      }
    }
  };
  const observer = new ResizeObserver((entries) => {
    for (const entry of entries) update(entry.target);
  });
  // Material's own subscription (made before this one) sets or removes a
  // code block's tabindex when the block's width changes.
  const material = new MutationObserver((records) => {
    for (const record of records) update(record.target);
  });
  for (const region of regions) {
    observer.observe(region);
    if (region.matches("pre > code")) {
      material.observe(region, { attributeFilter: ["tabindex"] });
    }
  }
  document.fonts.ready.then(() => regions.forEach(update));
});
