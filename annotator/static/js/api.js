// Small JSON client: CSRF header on every state-changing request, errors as ApiError.

const csrf = () => document.querySelector('meta[name="csrf-token"]')?.content || "";

export class ApiError extends Error {
  constructor(status, data) {
    super((data && (data.message || data.error)) || `request failed (${status})`);
    this.status = status;
    this.data = data || {};
  }
  get conflict() { return this.status === 409; }
  get invalid() { return this.status === 422; }
}

/** fetch() a JSON endpoint; resolves to the parsed body, rejects with ApiError. */
export async function request(method, url, body, { keepalive = false } = {}) {
  const init = {
    method,
    credentials: "same-origin",
    keepalive,
    headers: { Accept: "application/json" },
  };
  if (method !== "GET") init.headers["X-CSRFToken"] = csrf();
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(url, init);
  } catch (err) {
    throw new ApiError(0, { error: "network", message: "The server could not be reached." });
  }
  let data = null;
  try { data = await response.json(); } catch (_) { data = null; }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

export const api = {
  load: (id) => request("GET", `/api/assignments/${id}`),
  createEdit: (id, body) => request("POST", `/api/assignments/${id}/edits`, body),
  updateEdit: (editId, body, opts) => request("PUT", `/api/edits/${editId}`, body, opts),
  deleteEdit: (editId, version) => request("DELETE", `/api/edits/${editId}?version=${version}`),
  rate: (id, body, opts) => request("PUT", `/api/assignments/${id}/ratings`, body, opts),
  suggestion: (id, sid, body) => request("POST", `/api/assignments/${id}/suggestions/${sid}`, body),
  time: (id, seconds, opts) => request("POST", `/api/assignments/${id}/time`, { seconds }, opts),
  missing: (id) => request("GET", `/api/assignments/${id}/missing`),
  status: (id, status, version) => request("POST", `/api/assignments/${id}/status`, { status, version }),
};
