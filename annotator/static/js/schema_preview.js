// The new-project form: before the project is created, show what the chosen schema was
// understood to say (the lines of `annotator schema show`), read by the server from the
// built-in name or the chosen file. Text from the file is shown through textContent only.

const form = document.getElementById("project-form");
const state = document.getElementById("preview-state");
const lines = document.getElementById("preview-lines");
let asked = 0; // the newest request: an older answer arriving late is dropped

function show(kind, message, text = null) {
  form.dataset.preview = kind;
  state.textContent = message;
  state.classList.toggle("error", kind === "error");
  lines.textContent = text || "";
  lines.hidden = text === null;
}

async function preview() {
  const ticket = ++asked;
  const body = new FormData(form);
  if (body.get("schema_source") === "file" && !form.elements.schema_file.files.length) {
    show("none", "Choose a schema file to see what was understood.");
    return;
  }
  show("loading", "Reading the schema…");
  let data = null;
  let ok = false;
  try {
    // The form's own csrf_token field goes along in the body (a file cannot go as JSON).
    const response = await fetch(form.dataset.previewUrl, {
      method: "POST", body, credentials: "same-origin", headers: { Accept: "application/json" },
    });
    ok = response.ok;
    data = await response.json();
  } catch (_) {
    data = null;
  }
  if (ticket !== asked) return;
  if (!ok || !data) {
    show("error", (data && data.message) || "The schema could not be read (no answer from the server).");
    return;
  }
  show("ok", `Understood as below (${data.lines.length} lines); check it before creating the project.`,
    data.lines.join("\n"));
}

form.elements.builtin.addEventListener("change", () => {
  form.querySelector("input[name=schema_source][value=builtin]").checked = true;
  preview();
});
form.elements.schema_file.addEventListener("change", () => {
  form.querySelector("input[name=schema_source][value=file]").checked = true;
  preview();
});
for (const radio of form.querySelectorAll("input[name=schema_source]")) {
  radio.addEventListener("change", preview);
}
preview();
