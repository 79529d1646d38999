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

// The reader's section goes along: every heading has the same anchor in
// every edition, so /ja/softmax/#stability leads to /zh-Hant/softmax/#stability.
// The address holds the section being read (navigation.tracking rewrites
// its hash while the reader scrolls, without an event), so a link takes it
// when it is about to be used: pressed, clicked, focused (the keyboard) or
// opened in a menu (a new tab, a copied address). The header outlives
// instant navigation: one listener per type, on the document, is enough.
for (const type of ["pointerdown", "click", "focusin", "contextmenu"]) {
  document.addEventListener(
    type,
    (event) => {
      const link =
        event.target instanceof Element &&
        event.target.closest(".md-select__link[hreflang]");
      if (link) link.hash = location.hash;
    },
    true,
  );
}
