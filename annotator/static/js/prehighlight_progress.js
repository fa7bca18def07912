// The study set-up page's pre-highlight job: an import or the lead queues it, a worker runs
// it, and the page follows its progress (documents done of total, read from the server's stored marks) until it ends.

import { request } from "./api.js";

const section = document.getElementById("prehighlight");
const form = document.getElementById("prehighlight-form");
const button = form.querySelector("button[type=submit]");
const bar = document.getElementById("prehighlight-bar");
const count = document.getElementById("prehighlight-count");
const message = document.getElementById("prehighlight-message");
const POLL_MS = 700;

function show(status) {
  bar.max = Math.max(status.total, 1);
  bar.value = status.done;
  count.textContent = `${status.done} of ${status.total} documents pre-highlighted`;
  const last = status.last_run;
  // The server words the run's state (queued: what the chunks wait for; running: chunks by
  // state; done: documents summed over the chunks), so the page and this script agree.
  message.textContent = status.message;
  message.classList.toggle("error", Boolean(!status.running && last && last.error));
  section.dataset.state = status.running ? "running" : (last && last.error ? "failed" : "idle");
  button.disabled = status.running || status.done >= status.total;
}

async function follow() {
  try {
    const status = await request("GET", section.dataset.statusUrl);
    show(status);
    if (status.running) setTimeout(follow, POLL_MS);
  } catch (err) {
    message.textContent = `Progress could not be read: ${err.message}`;
    setTimeout(follow, POLL_MS * 4);
  }
}

form.addEventListener("submit", async (event) => {
  event.preventDefault();
  button.disabled = true;
  try {
    show(await request("POST", form.action, { scope: "new" }));
  } catch (err) { // refused (already running, nothing to do): say why, change nothing
    message.textContent = err.message;
    message.classList.add("error");
    button.disabled = false;
    return;
  }
  follow();
});

follow();
