// The data manager's "tick every document on this page" box.

const all = document.getElementById("select-all");
if (all) {
  const boxes = () => [...document.querySelectorAll('#data-manager input[name="doc"]')];
  all.addEventListener("change", () => { for (const box of boxes()) box.checked = all.checked; });
  document.getElementById("data-manager").addEventListener("change", (event) => {
    if (event.target.name !== "doc") return;
    const ticked = boxes().filter((b) => b.checked).length;
    all.checked = ticked === boxes().length;
    all.indeterminate = ticked > 0 && ticked < boxes().length;
  });
}
