// A claim's check opens as a sheet along the bottom of the window (book.css). When the sentence it
// backs would be under the sheet, the page scrolls so that the sentence sits above it.
document.addEventListener("toggle", (event) => {
  const sheet = event.target;
  if (event.newState !== "open" || !sheet.classList?.contains("claim-check")) return;
  const mark = document.querySelector(`button.claim-mark[popovertarget="${sheet.id}"]`);
  const free = sheet.getBoundingClientRect().top;
  const sentence = mark?.getBoundingClientRect();
  if (sentence && (sentence.bottom > free - 8 || sentence.top < 0)) {
    window.scrollBy({ top: sentence.bottom - free / 2, behavior: "instant" });
  }
}, true);
