// A link tapped in a drawer (the chapter or section list, a <dialog> below the theme's breakpoints)
// closes the drawer, so the section it scrolled to is not left under it. The theme then gives focus
// back to the button that opened the drawer, which can scroll the page: scroll to the target again.
document.addEventListener("click", (event) => {
  const link = event.target.closest?.("dialog[open] a[href]");
  if (!link) return;
  const dialog = link.closest("dialog");
  const target = new URL(link.href, location.href);
  dialog.addEventListener("close", () => {
    if (target.pathname !== location.pathname || !target.hash) return;
    requestAnimationFrame(() => document.getElementById(decodeURIComponent(target.hash.slice(1)))?.scrollIntoView());
  }, { once: true });
  dialog.close();
});

// The language switch keeps the reader's place: both languages give a section the same id, so the
// twin page opens at the last section whose heading is above the reading line (the theme's
// scroll-padding under the sticky header, where a followed #link puts a heading, plus a little).
document.addEventListener("click", (event) => {
  const switchLink = event.target.closest?.("a.btn-language-switch");
  if (!switchLink) return;
  const line = (parseFloat(getComputedStyle(document.documentElement).scrollPaddingTop) || 0) + 48;
  let here = "";
  for (const section of document.querySelectorAll("article section[id]")) {
    if (section.getBoundingClientRect().top > line) break;
    here = section.id;
  }
  const url = new URL(switchLink.href, location.href);
  url.search = location.search;  // the search page's ?q=: the twin search page runs the query again
  url.hash = here || location.hash;
  switchLink.href = url.href;
});

// A figure that scrolls sideways (book.css, on a phone) takes the keyboard's focus, as the theme's
// scrolling <pre> do, so that it can be scrolled without a pointer too.
const focusScrollingFigures = () => document.querySelectorAll(".bd-article figure").forEach((figure) => {
  if (figure.scrollWidth > figure.clientWidth) figure.tabIndex = 0;
  else figure.removeAttribute("tabindex");
});
window.addEventListener("load", focusScrollingFigures);
window.addEventListener("resize", focusScrollingFigures);
