// Search results link to their page with ?h=<the query's words> so that the
// page highlights them (Material's search.highlight). Material writes the
// parameter even when it has no word to give: a page shown above its
// matching sections, or a match it cannot name (a leading wildcard, *積, or
// an English word the stemmer shortened). The link then ends in an empty
// "?h=", which highlights nothing and stays in the address bar and in copied
// links. No setting changes it, and the links are built by Material's bundle:
// drop the empty parameter from every result link as it is added.
(() => {
  const observed = new WeakSet();

  const tidy = (link) => {
    const url = new URL(link.href);
    if (url.searchParams.has("h") && !url.searchParams.get("h").trim()) {
      url.searchParams.delete("h");
      link.href = url.href;
    }
  };

  const watch = () => {
    const list = document.querySelector(".md-search-result__list");
    if (!list || observed.has(list)) return;
    observed.add(list);
    new MutationObserver(() => {
      for (const link of list.querySelectorAll("a.md-search-result__link")) {
        tidy(link);
      }
    }).observe(list, { childList: true, subtree: true });
  };

  // The search box is part of the header, which instant navigation keeps;
  // look again after each page change in case it was replaced.
  document$.subscribe(watch);
})();
