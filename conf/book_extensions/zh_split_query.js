// The zh search's query splitter (Sphinx's js_splitter_code, in language_data.js). The index holds
// the words jieba cut from the pages ("自定义函数" → 自定义, 函数); the query is not cut, so a
// phrase the index does not hold whole would find nothing. A Han run that is not an index word is
// cut here into the longest index words, left to right; a single character the index lacks is
// dropped (every term must match). Latin words split as Sphinx's default splitter does.
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
