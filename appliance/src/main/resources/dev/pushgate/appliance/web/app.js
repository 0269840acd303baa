// The approvals page. Everything a question carries was chosen by an agent (ref names, commit
// subjects, commands): it is only ever put on the page as text (textContent), never as markup.
'use strict';

const BASE = '/approvals';
let csrf = null;
let events = null;

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v;
    else if (k.startsWith('data-')) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const c of children) {
    if (c === null || c === undefined) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function status(state, text) {
  const s = document.getElementById('status');
  s.dataset.state = state;
  s.textContent = text;
}

function signedOut(text) {
  status('lost', text);
  if (events) events.close();
  document.querySelectorAll('button').forEach(b => { b.disabled = true; });
}

function short(id) {
  return id ? id.substring(0, 10) : '';
}

function row(dl, term, value) {
  if (value === null || value === undefined || value === '') return;
  dl.append(el('dt', {}, term), el('dd', {}, value));
}

function showQuestion(q) {
  if (document.querySelector(`li.question[data-id="${CSS.escape(q.id)}"]`)) return;
  const dl = el('dl');
  row(dl, 'run', q.runId);
  row(dl, 'workspace', q.workspaceId);
  row(dl, 'repository', q.repository);
  row(dl, 'ref', q.ref);
  row(dl, 'kind', q.kind);
  if (q.oldId) row(dl, 'from..to', short(q.oldId) + '..' + short(q.newId));
  row(dl, 'command', q.command);
  row(dl, 'rule', q.rule);
  row(dl, 'why asked', q.reason);
  row(dl, 'answer by', new Date(q.deadline).toLocaleTimeString());
  const commits = el('ul', { class: 'commits' });
  for (const c of q.commits || []) commits.append(el('li', {}, c));
  const diffstat = el('div', { class: 'diffstat' }, 'diffstat: loading…');
  const note = el('input', { class: 'note', maxLength: 200,
    placeholder: 'note (shown to the person pushing when you deny)' });
  const message = el('p', { class: 'error' });
  const allow = el('button', { class: 'allow', type: 'button' }, 'Allow');
  const deny = el('button', { class: 'deny', type: 'button' }, 'Deny');
  allow.addEventListener('click', () => answer(q.id, 'allow', note.value, message, allow, deny));
  deny.addEventListener('click', () => answer(q.id, 'deny', note.value, message, allow, deny));
  const item = el('li', { class: 'question', 'data-id': q.id },
    el('div', { class: 'summary' }, q.summary), dl,
    q.commits && q.commits.length ? el('div', {}, q.action === 'push' || q.action === 'command'
      ? 'commits new to the repository:' : 'the call does, all covered by one answer:') : null,
    commits, diffstat, el('div', { class: 'answer' }, note, allow, deny), message);
  document.getElementById('pending').append(item);
  document.getElementById('none').hidden = true;
  loadDiffstat(q.id, diffstat);
}

async function loadDiffstat(id, box) {
  try {
    const r = await fetch(`${BASE}/diffstat?id=${encodeURIComponent(id)}`,
      { credentials: 'same-origin' });
    const d = await r.json();
    box.replaceChildren();
    if (!r.ok) {
      box.append(`diffstat: ${d.error || r.status}`);
      return;
    }
    if (d.unavailable) {
      box.append(el('span', { class: 'quiet' }, `no diffstat: ${d.unavailable}`));
      return;
    }
    const files = el('ul', { class: 'files' });
    for (const f of d.files) {
      const name = f.oldPath ? `${f.oldPath} → ${f.path}` : f.path;
      files.append(el('li', {}, f.binary ? `${name} (${f.change}, binary)`
        : el('span', {}, `${name} (${f.change}) `, el('span', { class: 'added' }, `+${f.added}`),
          ' ', el('span', { class: 'removed' }, `-${f.removed}`))));
    }
    box.append(el('div', {}, `${d.files.length + d.unlisted} file(s) changed, `,
      el('span', { class: 'added' }, `+${d.added}`), ' ',
      el('span', { class: 'removed' }, `-${d.removed}`), ` against ${d.base}`,
      d.unlisted ? ` (${d.unlisted} more files not listed)` : ''), files);
  } catch (e) {
    box.textContent = 'diffstat: could not be loaded';
  }
}

async function answer(id, decision, note, message, ...buttons) {
  buttons.forEach(b => { b.disabled = true; });
  message.textContent = '';
  try {
    const r = await fetch(`${BASE}/answer`, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
      body: JSON.stringify({ id, decision, by: document.getElementById('by').value, note }),
    });
    if (!r.ok) {
      const d = await r.json().catch(() => ({}));
      message.textContent = d.error || `the appliance answered ${r.status}`;
      buttons.forEach(b => { b.disabled = false; });
    }
  } catch (e) {
    message.textContent = 'the appliance could not be reached';
    buttons.forEach(b => { b.disabled = false; });
  }
}

function ended(e) {
  const item = document.querySelector(`li.question[data-id="${CSS.escape(e.id)}"]`);
  const summary = item ? item.querySelector('.summary').textContent : e.id;
  if (item) item.remove();
  if (!document.querySelector('li.question')) document.getElementById('none').hidden = false;
  document.getElementById('ended').prepend(el('li', { class: 'outcome', 'data-id': e.id },
    `${summary}: ${e.outcome}`, e.by ? ` by ${e.by}` : '', e.reason ? ` (${e.reason})` : ''));
  loadAudit();
}

async function loadAudit() {
  try {
    const r = await fetch(`${BASE}/audit`, { credentials: 'same-origin' });
    if (r.status === 401) { signedOut('signed out: ask for a new link with pushgate approvals open'); return; }
    const d = await r.json();
    const body = document.querySelector('#audit tbody');
    body.replaceChildren();
    for (const a of d.entries || []) {
      body.append(el('tr', {}, el('td', {}, a.at), el('td', {}, a.runId),
        el('td', {}, a.repository), el('td', {}, a.call ? a.call + ' ' + a.ref : a.ref || a.command),
        el('td', {}, a.call ? 'api-call ' + a.kind : a.kind),
        el('td', {}, a.decision), el('td', {}, a.reason), el('td', {}, a.outcome)));
    }
  } catch (e) {
    // the next ended question or the timer tries again
  }
}

function listen() {
  events = new EventSource(`${BASE}/events`);
  events.addEventListener('connected', () => status('connected', 'connected as an approver'));
  events.addEventListener('question', m => showQuestion(JSON.parse(m.data)));
  events.addEventListener('ended', m => ended(JSON.parse(m.data)));
  events.addEventListener('closed', () => signedOut('the appliance is stopping'));
  events.addEventListener('signedout', () =>
    signedOut('signed out: ask for a new link with pushgate approvals open'));
  events.onerror = () => {
    if (events.readyState === EventSource.CLOSED) {
      signedOut('not connected: reload the page, or ask for a new link with pushgate approvals open');
    } else {
      status('connecting', 'reconnecting…');
    }
  };
}

async function signOut() {
  await fetch(`${BASE}/signout`, { method: 'POST', credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf }, body: '{}' });
  signedOut('signed out');
}

async function start() {
  const r = await fetch(`${BASE}/session`, { credentials: 'same-origin' });
  if (!r.ok) {
    signedOut('signed out: ask for a new link with pushgate approvals open');
    return;
  }
  const s = await r.json();
  csrf = s.csrf;
  const by = document.getElementById('by');
  by.value = localStorage.getItem('pushgate.by') || s.by;
  by.addEventListener('change', () => localStorage.setItem('pushgate.by', by.value));
  document.getElementById('signout').addEventListener('click', signOut);
  listen();
  loadAudit();
  setInterval(loadAudit, 30000);
}

document.addEventListener('DOMContentLoaded', start);
