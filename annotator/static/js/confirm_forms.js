// Forms that change something hard to undo ask first: a form with data-confirm="…" is sent
// only after the person confirms that question (deactivating an account, issue 35). The
// page's CSP allows no inline script, so pages load this module instead.

import { handled } from "./handled.js";

for (const form of document.querySelectorAll("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    handled("confirm");
  });
}
