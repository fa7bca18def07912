// The releases page follows the releases a worker is building: progress in place, and the
// page reloads when one is stored or fails (the server renders the stored release whole).

import { request } from "./api.js";

const section = document.getElementById("releases-in-progress");
const POLL_MS = 1000;

function rendered() {
  return new Map([...section.querySelectorAll(".release-pending")]
    .map((item) => [item.dataset.version, item]));
}

function waiting(items) {
  return [...items.values()].some((item) => ["queued", "running"].includes(item.dataset.state));
}

function showProgress(item, release) {
  // A queued build says what it waits for (jobs ahead, busy workers), as the server counts.
  const waitingFor = item.querySelector(".release-waiting");
  if (waitingFor && release.waiting) waitingFor.textContent = release.waiting;
  const bar = item.querySelector(".bar > span");
  if (!bar || !release.total) return;
  bar.style.width = `${release.percent}%`;
  bar.parentElement.setAttribute("aria-label", `${release.percent}% done`);
  bar.parentElement.nextSibling.textContent = ` ${release.done} / ${release.total}…`;
}

async function follow() {
  const items = rendered();
  let status;
  try {
    status = await request("GET", section.dataset.statusUrl);
  } catch (err) {
    setTimeout(follow, POLL_MS * 4);
    return;
  }
  const now = new Map(status.in_progress.map((release) => [release.version, release]));
  const changed = now.size !== items.size || [...now.values()].some((release) =>
    !items.has(release.version) || items.get(release.version).dataset.state !== release.state
    || (release.state === "running" && release.total && !items.get(release.version).querySelector(".bar")));
  if (changed) {
    window.location.reload();
    return;
  }
  for (const [version, release] of now) showProgress(items.get(version), release);
  setTimeout(follow, POLL_MS);
}

if (section && waiting(rendered())) setTimeout(follow, POLL_MS);
