// The study set-up page's pre-highlight job: an import or the lead queues it, a worker runs
// it, and the page follows its progress (documents done of total, read from the server's stored marks) until it ends.

import { request } from "./api.js";
import { disableBecause } from "./dom.js";
import { timeElement } from "./local_time.js";

const section = document.getElementById("prehighlight");
const form = document.getElementById("prehighlight-form");
const button = form.querySelector("button[type=submit]");
const bar = document.getElementById("prehighlight-bar");
const count = document.getElementById("prehighlight-count");
const message = document.getElementById("prehighlight-message");
const POLL_MS = 700;
// ISO UTC times inside the server's sentence (web/formatting.py ISO_TIME, the same pattern).
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})?/g;

/** The sentence as text nodes and <time> elements (local time) for the times it holds. */
function withLocalTimes(sentence) {
  const parts = [];
  let at = 0;
  for (const match of (sentence || "").matchAll(ISO_TIME)) {
    parts.push(sentence.slice(at, match.index), timeElement(match[0]));
    at = match.index + match[0].length;
  }
  parts.push((sentence || "").slice(at));
  return parts;
}

/** Why the start button is off, said on hover (issue 43: it was grey with no reason). */
export function startRefusal(status) {
  if (status.running) return status.state === "queued"
    ? "A run is queued already: it waits for a worker."
    : "A run is going already: its progress is shown here.";
  if (!status.total) return "The project has no documents yet: import some first.";
  if (status.done >= status.total) return `Every document (${status.total}) is pre-highlighted already.`;
  return "";
}

function show(status) {
  bar.max = Math.max(status.total, 1);
  bar.value = status.done;
  count.textContent = `${status.done} of ${status.total} documents pre-highlighted`;
  const last = status.last_run;
  // The server words the run's state (queued: what the chunks wait for; running: chunks by
  // state; done: documents summed over the chunks), so the page and this script agree; its
  // times are shown in the reader's time zone (issue 43).
  message.replaceChildren(...withLocalTimes(status.message));
  message.classList.toggle("error", Boolean(!status.running && last && last.error));
  section.dataset.state = status.running ? "running" : (last && last.error ? "failed" : "idle");
  disableBecause(button, startRefusal(status));
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
