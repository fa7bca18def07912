// The guidelines tab: the schema's guideline (Markdown rendered by the server from the
// project's own guideline file) next to the texts, with a search that highlights matches.

export function makeGuidelines(ctx) {
  const panel = ctx.els.guidelines;
  const body = panel.querySelector(".guideline-body");
  const search = panel.querySelector("input[type=search]");
  const count = panel.querySelector(".match-count");
  let loaded = false;
  let matches = [];
  let current = -1;

  const load = async () => {
    if (loaded) return;
    loaded = true;
    try {
      const response = await fetch(`/guidelines/${ctx.id}`, { credentials: "same-origin" });
      if (!response.ok) throw new Error(String(response.status));
      // Trusted HTML: the team's own guideline Markdown, rendered on the server.
      body.innerHTML = await response.text();
    } catch (err) {
      loaded = false;
      body.textContent = "The guidelines could not be loaded.";
    }
  };

  const clear = () => {
    for (const mark of body.querySelectorAll("mark.gl-hit")) mark.replaceWith(document.createTextNode(mark.textContent));
    body.normalize();
    matches = [];
    current = -1;
  };

  const find = (query) => {
    clear();
    const q = query.trim().toLowerCase();
    if (q.length < 2) { count.textContent = ""; return; }
    const walker = document.createTreeWalker(body, NodeFilter.SHOW_TEXT);
    const nodes = [];
    while (walker.nextNode()) nodes.push(walker.currentNode);
    for (const node of nodes) {
      const text = node.data;
      const lower = text.toLowerCase();
      let at = lower.indexOf(q);
      if (at < 0) continue;
      const frag = document.createDocumentFragment();
      let pos = 0;
      while (at >= 0) {
        frag.append(text.slice(pos, at));
        const mark = document.createElement("mark");
        mark.className = "gl-hit";
        mark.textContent = text.slice(at, at + q.length);
        frag.append(mark);
        matches.push(mark);
        pos = at + q.length;
        at = lower.indexOf(q, pos);
      }
      frag.append(text.slice(pos));
      node.replaceWith(frag);
    }
    count.textContent = matches.length ? `${matches.length} match${matches.length > 1 ? "es" : ""}` : "no matches";
    if (matches.length) go(0);
  };

  const go = (i) => {
    if (!matches.length) return;
    if (current >= 0) matches[current].classList.remove("current");
    current = (i + matches.length) % matches.length;
    matches[current].classList.add("current");
    matches[current].scrollIntoView({ block: "center" });
  };

  let timer = null;
  search.addEventListener("input", () => { clearTimeout(timer); timer = setTimeout(() => find(search.value), 150); });
  search.addEventListener("keydown", (e) => {
    if (e.key === "Enter") { e.preventDefault(); go(current + (e.shiftKey ? -1 : 1)); }
  });

  return {
    async open(focusSearch = false) {
      ctx.showTab("guidelines");
      await load();
      if (focusSearch) search.focus();
    },
    load,
    find,
  };
}
