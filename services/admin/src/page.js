// The admin page's script, served as /page.js: the page's
// Content-Security-Policy runs this file and nothing inline.
//
// Document names, titles, failure reasons and chunk text come from whoever
// named and wrote the files. They reach the page only as text: through el()
// (text nodes and setAttribute) or textContent, never innerHTML,
// insertAdjacentHTML, outerHTML or document.write (a test in http.rs fails
// if one appears), so a name like <img src=x onerror=…> is shown, not run.
"use strict";
const $ = (sel) => document.querySelector(sel);
let token = sessionStorage.getItem("ragpipe-admin-token") || "";
// The page of documents shown: the server's keyset cursors, never offsets.
let cursor = null; // null (first page), { after: uri } or { before: uri }
let neighbours = { next: null, previous: null };
const PAGE_SIZE = 100;

function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c instanceof Node ? c : document.createTextNode(c ?? ""));
  return node;
}

async function api(path, options = {}) {
  const headers = { "content-type": "application/json" };
  if (token) headers.authorization = "Bearer " + token;
  const res = await fetch("/api" + path, { ...options, headers });
  if (res.status === 401) { $("#token-box").style.display = "block"; throw new Error("a token is needed"); }
  const body = await res.json();
  if (!res.ok) throw new Error(body.error || res.statusText);
  return body;
}

function say(text) { $("#message").textContent = text; }

function filterQuery() {
  const q = new URLSearchParams();
  if ($("#status-filter").value) q.set("status", $("#status-filter").value);
  if ($("#kind-filter").value) q.set("kind", $("#kind-filter").value);
  if ($("#reason-filter").value.trim()) q.set("reason", $("#reason-filter").value.trim());
  if ($("#stale-filter").checked) q.set("stale", "true");
  if ($("#warned-filter").checked) q.set("warned", "true");
  return q;
}

function pageQuery() {
  const q = filterQuery();
  q.set("limit", String(PAGE_SIZE));
  if (cursor && cursor.after) q.set("after", cursor.after);
  if (cursor && cursor.before) q.set("before", cursor.before);
  return q.toString();
}

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return s + " s ago";
  if (s < 3600) return Math.round(s / 60) + " min ago";
  if (s < 86400) return Math.round(s / 3600) + " h ago";
  return Math.round(s / 86400) + " d ago";
}

async function retry(body, what) {
  try {
    const r = await api("/retry", { method: "POST", body: JSON.stringify(body) });
    const how = r.published ? "jobs published" : "the next ingest processes them";
    say(`queued ${r.queued.length} document(s) (${what}); ${how}`);
  } catch (e) { say("retry failed: " + e.message); }
  await refresh();
}

async function showDetail(id) {
  const box = $("#detail");
  box.replaceChildren(el("p", { class: "muted" }, "loading…"));
  try {
    const d = await api("/documents/" + encodeURIComponent(id));
    const doc = d.document;
    const parts = [el("h2", {}, doc.source),
      el("p", { class: "mono" }, `id ${doc.id} · ${doc.status} · generation ${doc.generation} · model ${doc.model || "-"} · pipeline ${doc.pipeline_version || "-"} · extractor ${doc.extractor_version || "-"}`)];
    if (doc.reason) parts.push(el("p", { class: "failed" }, `[${doc.stage}] ${doc.reason}`));
    if (doc.warning) parts.push(el("p", { class: "warning" }, "warning: " + doc.warning));
    if (d.chunks_error) parts.push(el("p", { class: "muted" }, "chunks unavailable: " + d.chunks_error));
    for (const c of d.chunks || []) {
      parts.push(el("div", { class: "mono" }, `chunk ${c.index} · ${c.locator} · ${c.tokens} tokens · ${c.section}`), el("pre", {}, c.content));
    }
    box.replaceChildren(...parts);
  } catch (e) { box.replaceChildren(el("p", { class: "failed" }, e.message)); }
}

async function refresh() {
  const [status, list] = await Promise.all([api("/status"), api("/documents?" + pageQuery())]);
  const counts = Object.entries(status.documents).map(([s, n]) => `${s} ${n}`).join(" · ") || "no documents";
  $("#summary").textContent = `${counts} · stale ${status.stale_total} (model ${status.current.model}, pipeline ${status.current.pipeline_version})`;
  const queues = Object.entries(status.queues).map(([q, n]) => `${q} queue ${n}`).join(" · ");
  const last = status.syncs[0];
  $("#syncs").textContent = (last ? `last sync: ${last.state}, ${ago(last.started_at)} by ${last.holder}` : "no sync recorded") + (queues ? " · " + queues : "");

  const ix = status.index;
  $("#index-live").textContent = ix.live ? `live index ${ix.live.name} (${ix.live.model}, pipeline ${ix.live.pipeline_version})` : "";
  const box = $("#reindex-progress");
  if (ix.building) {
    const b = ix.building;
    box.replaceChildren(`reindex into ${b.name} (${b.model}, pipeline ${b.pipeline_version}): `,
      el("progress", { max: String(Math.max(ix.total, 1)), value: String(ix.done) }),
      ` ${ix.done} of ${ix.total} documents (${ix.failed} failed); searches read the live index until the swap`);
  } else {
    box.replaceChildren(ix.retired.length ? `kept old: ${ix.retired.map((r) => r.name).join(", ")}` : "");
  }

  const fbody = $("#failures tbody");
  fbody.replaceChildren(...list.failures.map((g) => el("tr", { class: "group" },
    el("td", { class: "reason" }, g.reason), el("td", {}, g.stage || "-"), el("td", {}, String(g.count)),
    el("td", {}, el("button", { type: "button", class: "retry-group", onclick: () => retry({ filter: { reason: g.reason } }, g.reason) }, `Retry ${g.count}`)))));

  const dbody = $("#documents tbody");
  dbody.replaceChildren(...list.documents.map((d) => el("tr", { class: "doc", "data-id": d.id },
    el("td", {}, el("a", { href: "#", onclick: (ev) => { ev.preventDefault(); showDetail(d.id); } }, d.source)),
    el("td", {}, d.kind || "-"),
    el("td", { class: "status " + d.status }, d.status + (d.stale ? " (stale)" : "")),
    el("td", { class: "reason" }, d.reason ? `[${d.stage}] ${d.reason}` : (d.warning ? "warning: " + d.warning : "")),
    el("td", {}, String(d.attempts)),
    el("td", {}, d.chunks == null ? "-" : String(d.chunks)),
    el("td", { class: "muted" }, ago(d.updated_at)),
    el("td", {}, d.status === "failed" ? el("button", { type: "button", class: "retry", onclick: () => retry({ ids: [d.id] }, d.source) }, "Retry") : ""))));
  if (!list.documents.length) dbody.append(el("tr", {}, el("td", { colspan: "8", class: "muted" }, "no document matches")));
  neighbours = { next: list.next, previous: list.previous };
  $("#next-page").disabled = !list.next;
  $("#previous-page").disabled = !list.previous;
  $("#page-info").textContent = list.documents.length
    ? `${list.documents.length} document(s) on this page, from ${list.documents[0].source}` : "";
}

function turn(to) {
  cursor = to;
  refresh().catch((e) => say(e.message));
}

$("#filters").addEventListener("submit", (ev) => { ev.preventDefault(); turn(null); });
$("#next-page").addEventListener("click", () => { if (neighbours.next) turn({ after: neighbours.next }); });
$("#previous-page").addEventListener("click", () => { if (neighbours.previous) turn({ before: neighbours.previous }); });
$("#save-token").addEventListener("click", () => {
  token = $("#token").value; sessionStorage.setItem("ragpipe-admin-token", token);
  $("#token-box").style.display = "none"; refresh().catch((e) => say(e.message));
});
refresh().catch((e) => say(e.message));
setInterval(() => refresh().catch(() => {}), 5000);
