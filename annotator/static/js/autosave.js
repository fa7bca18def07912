// Autosave: every change schedules a small request keyed by what changed (one edit, one
// rating); typing is debounced (~800 ms) and blur flushes at once. One request per key is in
// flight at a time and always sends the latest state with the version last seen. A 409 stops
// all saving (never overwrite) and reports the conflict; a 422 is shown next to the form.

export const DEBOUNCE_MS = 800;
const RETRY_MS = 5000;

export class Saver {
  constructor({ onState = () => {}, onConflict = () => {}, onInvalid = () => {} } = {}) {
    this.tasks = new Map();
    this.conflicted = false;
    this.offline = false;
    this.hooks = { onState, onConflict, onInvalid };
  }

  /** Schedule `run(options)` for `key`; a later schedule for the same key replaces it. */
  schedule(key, run, delay = DEBOUNCE_MS) {
    const task = this.tasks.get(key) || { key, dirty: false, inFlight: null, timer: null };
    task.run = run;
    task.dirty = true;
    task.error = null;
    clearTimeout(task.timer);
    task.timer = setTimeout(() => this.start(key), delay);
    this.tasks.set(key, task);
    this.emit();
  }

  /** Forget a key (e.g. the edit was deleted) without saving it. */
  cancel(key) {
    const task = this.tasks.get(key);
    if (task) { clearTimeout(task.timer); task.dirty = false; }
    this.emit();
  }

  start(key, options = {}) {
    const task = this.tasks.get(key);
    if (!task) return Promise.resolve();
    clearTimeout(task.timer);
    task.timer = null;
    if (this.conflicted || !task.dirty) return task.inFlight || Promise.resolve();
    if (task.inFlight) {
      task.again = true;
      return task.inFlight.then(() => this.start(key, options));
    }
    task.dirty = false;
    task.again = false;
    task.inFlight = Promise.resolve()
      .then(() => task.run(options))
      .then(() => { this.offline = false; })
      .catch((err) => {
        if (err && err.status === 409) {
          this.conflicted = true;
          this.hooks.onConflict(err);
        } else if (err && err.status === 422) {
          task.error = err;
          this.hooks.onInvalid(key, err);
        } else {
          this.offline = true;
          task.dirty = true;
          task.timer = setTimeout(() => this.start(key), RETRY_MS);
        }
      })
      .finally(() => {
        task.inFlight = null;
        this.emit();
        if (task.dirty && task.again && !this.conflicted) this.start(key);
      });
    this.emit();
    return task.inFlight;
  }

  /** Save everything now (Ctrl+S, blur, before marking done, on pagehide with keepalive). */
  flushAll(options = {}) {
    return Promise.all([...this.tasks.keys()].map((key) => this.start(key, options)));
  }

  get dirty() {
    for (const t of this.tasks.values()) if (t.dirty || t.inFlight) return true;
    return false;
  }

  get state() {
    if (this.conflicted) return "conflict";
    const tasks = [...this.tasks.values()];
    if (tasks.some((t) => t.error)) return "error";
    if (tasks.some((t) => t.inFlight)) return "saving";
    if (this.offline && tasks.some((t) => t.dirty)) return "offline";
    if (tasks.some((t) => t.dirty)) return "unsaved";
    return "saved";
  }

  emit() { this.hooks.onState(this.state); }
}

export const STATE_LABELS = {
  saved: "All changes saved", saving: "Saving…", unsaved: "Unsaved changes",
  offline: "Not saved — retrying", error: "Not saved — check the form", conflict: "Conflict — reload",
};
