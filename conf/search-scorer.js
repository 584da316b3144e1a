// Search ranking for the book (html_search_scorer): Sphinx's default weights, plus one rule.
// Sphinx scores a word in a section heading like a word in a page title, so a chapter that
// mentions 累加 in one heading tied with the chapter called 梯度累加. A page whose own title
// contains a searched word now comes first. The weights replace Sphinx's, so they repeat them:
// conf/book_extensions/upstream.py fails when the installed Sphinx's defaults change.
var Scorer = {
  score: (result) => {
    const [docname, title, anchor, descr, score] = result;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const pageTitle = (title || "").split(" > ")[0].toLowerCase();
    const named = query.toLowerCase().split(/\s+/).some((word) => word && pageTitle.includes(word));
    return named ? score + 20 : score;
  },
  objNameMatch: 11,
  objPartialMatch: 6,
  objPrio: { 0: 15, 1: 5, 2: -5 },
  objPrioDefault: 0,
  title: 15,
  partialTitle: 7,
  term: 5,
  partialTerm: 2,
};
