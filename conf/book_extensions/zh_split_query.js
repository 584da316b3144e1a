// The zh search's query splitter (Sphinx's js_splitter_code). The index holds the words jieba cut
// from the pages; the query is not cut, so a Han run the index lacks is cut here into the longest
// index words, left to right, and a single character the index lacks is dropped (every term must
// match). Latin words split as in Sphinx's default splitter.
var splitQuery = (query) => {
  const index = typeof Search !== "undefined" && Search._index;
  const known = (word) => !index || Object.hasOwn(index.terms, word) || Object.hasOwn(index.titleterms, word);
  const words = [];
  for (const word of query.split(/[^\p{Letter}\p{Number}_\p{Emoji_Presentation}]+/gu)) {
    for (const part of word.split(/(\p{Script=Han}+)/u)) {
      if (!part) continue;
      if (!/\p{Script=Han}/u.test(part) || known(part)) { words.push(part); continue; }
      for (let start = 0; start < part.length;) {
        let end = part.length;
        while (end > start + 1 && !known(part.slice(start, end))) end--;
        if (end > start + 1 || known(part[start])) words.push(part.slice(start, end));
        start = end;
      }
    }
  }
  return words;
};
