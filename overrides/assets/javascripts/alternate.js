// The language selector (overrides/partials/alternate.html) links every
// language to the page the reader is on. Instant navigation replaces the
// page's content but not the header, so after moving to another page the
// links still named the page first loaded: the current language's entry led
// back to it, and so did the other language's whenever Material's own
// redirection (which needs that language's sitemap) does not step in, e.g. on
// Ctrl+click, a middle click or "open in new tab". Point them at the current
// page on every page change (document$ also emits on the first load).
document$.subscribe(() => {
  const alternates = new Map(
    [...document.querySelectorAll("link[rel=alternate][hreflang]")].map(
      (link) => [link.hreflang, new URL(link.href)],
    ),
  );
  const root = alternates.get(document.documentElement.lang);
  if (!root || !location.pathname.startsWith(root.pathname)) return;
  const path = location.pathname.slice(root.pathname.length);
  for (const link of document.querySelectorAll(".md-select__link[hreflang]")) {
    const base = alternates.get(link.hreflang);
    if (base) link.href = new URL(path, base).href;
  }
});
