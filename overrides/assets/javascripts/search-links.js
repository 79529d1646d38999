// Search results link to their page with ?h=<words> so that the page
// highlights them (Material's search.highlight). Two fixes to the links
// Material's bundle builds, made as each result is added (no setting
// reaches them):
//
// - The words are the reader's, as typed. Material writes the pieces it cut
//   the query into, and the page then highlights each piece wherever it
//   stands: 行ベクトル became 行 and ベクトル, and every 行 of 行列 was
//   marked. A word typed is highlighted where the page holds it whole.
// - No empty parameter. Material writes "?h=" even when it has no word to
//   give (a page shown above its matching sections, a leading wildcard);
//   the link would keep an "?h=" that highlights nothing.
(() => {
  const observed = new WeakSet();

  // The query's words without lunr's operators (wildcards, +, -, ~, ^), as
  // the page will mark them: Material's highlighter cuts a word at its
  // separator (d_k into d and k, top-p into top and p) and marks every piece
  // wherever it stands, so a piece of one Latin letter or digit is left out
  // (a question with d_k marked 1,505 letters d and k on one page), and so
  // is a formula's (√, ⊤, ᵀ, \top), which the page shows typeset, not as
  // typed. A word is cut where Latin letters meet kana or kanji, as the book
  // writes them apart (KVキャッシュ: the book's "KV キャッシュ").
  const typedWords = () => {
    const input = document.querySelector(".md-search__input");
    return (input ? input.value : "")
      .replace(/[*+\-:~^_]+/g, " ")
      .replace(/(?<=[A-Za-z0-9])(?=[\u3005\u3041-\u30ff\u4e00-\u9fff])|(?<=[\u3005\u3041-\u30ff\u4e00-\u9fff])(?=[A-Za-z0-9])/g, " ")
      .split(/\s+/)
      .filter((word) => word && !/^[A-Za-z0-9]$/.test(word) && !/[√⊤ᵀ\\]/.test(word));
  };

  const tidy = (link) => {
    const url = new URL(link.href);
    if (!url.searchParams.has("h")) return;
    const marked = url.searchParams.get("h").trim();
    const words = marked ? typedWords() : [];
    if (words.length) url.searchParams.set("h", words.join(" "));
    else url.searchParams.delete("h");
    if (url.href !== link.href) link.href = url.href;
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
