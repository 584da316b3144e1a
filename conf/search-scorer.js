// Search ranking (conf.py's html_search_scorer). Sphinx scores a section heading like a page title,
// and a page by its best-matching word alone, ties going by title, alphabetically. The bonuses rank
// first what names the query: a searched word in the page's title, every word in the result's own
// heading, every word before the title's colon, and, breaking ties only (Sphinx's scores are whole
// numbers), every word in the page's section headings. The weights replace Sphinx's, so they repeat
// its defaults: the canary search-scorer-defaults (conf/book_extensions/upstream/sphinx_internals.py)
// fails when those change. Tests: tests/browser/test_browser.py, tests/test_upstream.py.
function sectionsHoldEveryWord(docname, query) {
  const index = Search._index;
  const file = index.docnames.indexOf(docname);
  const pageTitle = (index.titles[file] || "").toLowerCase();
  const words = queryWords(query);
  return words.length > 0 && words.every(([word, stem]) => !startsAWord(pageTitle, word)
    && [].concat(index.titleterms[stem] ?? []).includes(file));
}

// [word, stem] for each searched word that is not a stop word: split and stemmed once per query,
// not once per result scored.
let splitQueryOf = { query: null, words: [] };
function queryWords(query) {
  if (splitQueryOf.query !== query) {
    const stemmer = new Stemmer();
    const words = splitQuery(query.toLowerCase().trim()).filter((word) => word && !stopwords.has(word));
    splitQueryOf = { query, words: words.map((word) => [word, stemmer.stemWord(word)]) };
  }
  return splitQueryOf.words;
}

// A Latin word must start a word of the heading ("graph" is not in "create_graph"); Chinese has no
// spaces, so there any place counts.
function startsAWord(text, word) {
  if (!/^[\x00-\x7f]+$/.test(word)) return text.includes(word);
  const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return new RegExp(`(^|[^a-z0-9_])${escaped}`).test(text);
}

var Scorer = {
  score: (result) => {
    const [docname, title, anchor, descr, score] = result;
    const query = new URLSearchParams(window.location.search).get("q") || "";
    const words = query.toLowerCase().split(/\s+/).filter((word) => word);
    const heading = (title || "").toLowerCase();  // the page's title, or "page title > section heading"
    const pageTitle = heading.split(" > ")[0];
    const named = words.some((word) => pageTitle.includes(word));
    const own = heading.split(" > ").pop();  // the section's own heading (or the page's title)
    const whole = words.length > 0 && words.every((word) => startsAWord(own, word));
    // The chapter named for the words holds them before its title's colon ("叶子张量：谁能拿到 .grad").
    const head = pageTitle.split(/[:：]/)[0];
    const headed = words.length > 0 && words.every((word) => startsAWord(head, word));
    let bonus = 0;
    if (named) bonus += 20;
    if (whole) bonus += 25;
    if (headed) bonus += 30;
    if (sectionsHoldEveryWord(docname, query)) bonus += 0.1;
    return score + bonus;
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
