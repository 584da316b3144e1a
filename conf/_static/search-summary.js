// A search result's summary comes from the chapter's text. Sphinx takes it from the page's
// [role=main], which the theme puts on <main>: with the article's header (the colour menu's
// "System Settings Light Dark") and the claim checks folded into the text. Here only the article
// is read, without those checks, the execution badge and the reading time.
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
