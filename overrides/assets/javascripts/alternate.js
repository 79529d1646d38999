// The language selector (overrides/partials/alternate.html) links every
// language to the page the reader is on. Instant navigation replaces the
// page's content but not the header, so after moving to another page the
// links would still name the page first loaded. The <head> is updated on every
// page change, and it lists the same page in every edition (hreflang links,
// overrides/main.html): point the selector's links there (document$ also
// emits on the first load).
document$.subscribe(() => {
  const alternates = new Map(
    [...document.querySelectorAll("link[rel~=alternate][hreflang]")].map(
      (link) => [link.hreflang, link.href],
    ),
  );
  for (const link of document.querySelectorAll(".md-select__link[hreflang]")) {
    const href = alternates.get(link.hreflang);
    if (href) link.href = href;
  }
});
