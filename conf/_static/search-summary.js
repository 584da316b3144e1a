// A search result's summary quotes the chapter's prose only. Sphinx reads the page's [role=main], which
// the theme puts on <main>, the article's header (the colour menu) included; here only the article is
// read, without its claim checks, execution badge and reading time. Tests: tests/browser/test_browser.py.
(() => {
  const sphinxHtmlToText = Search.htmlToText;
  Search.htmlToText = (htmlString, anchor) => {
    const page = new DOMParser().parseFromString(htmlString, "text/html");
    const article = page.querySelector("article.bd-article");
    if (!article) return sphinxHtmlToText(htmlString, anchor);
    article.querySelectorAll(".claim-check, .claim-mark-joiner, .execution-badge, .reading-time").forEach((el) => el.remove());
    return sphinxHtmlToText(`<div role="main">${article.outerHTML}</div>`, anchor);
  };
})();
