// Search ranking for the book (html_search_scorer): Sphinx's default weights, plus four bonuses.
// Sphinx scores a word in a section heading like a word in a page title, so a chapter that
// mentions 累加 in one heading tied with the chapter called 梯度累加. A page whose own title
// contains a searched word now comes first; a title or a section heading that alone holds every
// searched word gains more (a term of two words, "per-sample gradient", finds the section about it before the chapters
// with "gradient" in their title). The weights replace Sphinx's, so they repeat them:
// conf/book_extensions/upstream.py fails when the installed Sphinx's defaults change.
// Sphinx scores a page by its best-matching word alone, so every page with one searched word in
// a heading ties, and ties go by title in alphabetical order: "batch size" found the chapters with
// "micro-batches" in a heading before the one with a section on the batch size. A tenth of a point
// (Sphinx's scores are whole numbers: this decides ties only) goes to a page whose section headings,
// not counting its title, hold every searched word (Sphinx's own split, stop words and stemmer).
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
    // The chapter named for the searched words: they are in its title's head, before the colon
    // ("叶子张量：谁能拿到 .grad"), not only further on ("torch.autograd.grad：…不动叶子张量的 .grad").
    const head = pageTitle.split(/[:：]/)[0];
    const headed = words.length > 0 && words.every((word) => startsAWord(head, word));
    let bonus = 0;  // (no `a ? b : c` here: upstream.py reads `name: number` pairs as the weights)
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
