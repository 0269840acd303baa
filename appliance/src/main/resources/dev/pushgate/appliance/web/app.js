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

const ZERO = /^0+$/;
/** The approver's own time zone, named: the deadline is read where the approver is. */
const ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone;

function row(dl, term, value) {
  if (value === null || value === undefined || value === '') return;
  dl.append(el('dt', {}, term), el('dd', {}, value));
}

/** What the ref move is, in words: a create names no all-zero commit. */
function range(q) {
  if (!q.oldId && !q.newId) return '';
  if (q.kind === 'create' || ZERO.test(q.oldId || '0')) return `new, at ${short(q.newId)}`;
  if (q.kind === 'delete' || ZERO.test(q.newId || '0')) return `deleted, now at ${short(q.oldId)}`;
  return `${short(q.oldId)}..${short(q.newId)}`;
}

/** The one-line title of a question. */
function title(q) {
  if (q.action !== 'push') return el('span', {}, q.summary);
  return el('span', {}, el('span', { class: 'badge', 'data-kind': q.kind }, q.kind),
    ` ${q.ref} of ${q.repository} `, el('span', { class: 'quiet' }, range(q)));
}

/** Why a kind needs a second click: what would be lost. */
function lossOf(q) {
  if (q.kind === 'force') {
    return `A force push rewrites ${q.ref}: commits on it now that the new commit ` +
      `does not contain are dropped from the branch.`;
  }
  if (q.kind === 'delete') return `A delete removes ${q.ref} from ${q.repository}.`;
  return null;
}

function countdown(box, deadline) {
  const left = Math.max(0, Math.round((deadline - Date.now()) / 1000));
  const m = Math.floor(left / 60);
  const s = String(left % 60).padStart(2, '0');
  box.querySelector('.left').textContent = left > 0 ? `${m}:${s} left` : 'time is up';
  box.dataset.urgent = String(left < 60);
}

function tickCountdowns() {
  document.querySelectorAll('.countdown').forEach(c => countdown(c, Number(c.dataset.deadline)));
}

function showQuestion(q) {
  if (document.querySelector(`li.question[data-id="${CSS.escape(q.id)}"]`)) return;
  const deadline = new Date(q.deadline);
  const when = el('span', { class: 'countdown', 'data-deadline': String(deadline.getTime()) },
    el('span', { class: 'left' }), ` — answer by ${deadline.toLocaleString(undefined,
      { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit',
        second: '2-digit', timeZoneName: 'short' })} (${ZONE})`);
  countdown(when, deadline.getTime());

  const who = el('dl', { class: 'who' });
  row(who, 'run', q.runId);
  row(who, 'workspace', q.workspaceId);
  const why = el('dl');
  row(why, 'rule', q.rule);
  row(why, 'why it asks', q.reason);
  row(why, 'repository', q.action === 'push' ? null : q.repository);
  row(why, 'command', q.command);

  const isCall = q.action !== 'push' && q.action !== 'command';
  const said = el(isCall ? 'ol' : 'ul', { class: isCall ? 'says' : 'commits' });
  for (const c of q.commits || []) said.append(el('li', {}, c));
  const diffstat = el('div', { class: 'diffstat' }, q.action === 'push' ? 'diff: loading…' : '');

  const note = el('input', { class: 'note', maxLength: 200,
    placeholder: 'note (shown to the person pushing when you deny)' });
  const message = el('p', { class: 'error' });
  const allow = el('button', { class: 'allow', type: 'button', title: 'Allow (a)' }, 'Allow');
  const deny = el('button', { class: 'deny', type: 'button', title: 'Deny (d)' }, 'Deny');
  const confirm = el('div', { class: 'confirm', hidden: true });
  const buttons = [allow, deny];
  const loss = lossOf(q);
  allow.addEventListener('click', () => {
    if (!loss) { answer(q.id, 'allow', note.value, message, ...buttons); return; }
    const yes = el('button', { class: 'confirm-allow', type: 'button' }, q.kind === 'force' ? 'Yes, allow the force push' : 'Yes, allow the delete');
    const no = el('button', { class: 'plain cancel', type: 'button' }, 'Cancel');
    yes.addEventListener('click', () => {
      confirm.hidden = true;
      answer(q.id, 'allow', note.value, message, ...buttons);
    });
    no.addEventListener('click', () => { confirm.hidden = true; allow.focus(); });
    confirm.replaceChildren(el('p', {}, loss, ' Allow it anyway?'),
      el('div', { class: 'answer' }, yes, no));
    confirm.hidden = false;
    yes.focus();
  });
  deny.addEventListener('click', () => answer(q.id, 'deny', note.value, message, ...buttons));

  const item = el('li', { class: 'question', 'data-id': q.id, 'data-kind': q.kind || '',
      tabIndex: -1 },
    el('div', { class: 'summary' }, title(q)), el('div', {}, when),
    el('h3', {}, 'Who asks'), who,
    el('h3', {}, 'Why it asks'), why,
    q.commits && q.commits.length ? el('h3', {}, q.action === 'push'
      ? 'Commits new to the repository' : q.action === 'command' ? 'Commits'
        : 'What the call would do, all covered by one answer') : null,
    said,
    q.action === 'push' ? el('h3', {}, 'What would land') : null, diffstat,
    el('div', { class: 'answer' }, note, allow, deny), confirm, message);
  item.addEventListener('click', () => select(item));
  document.getElementById('pending').append(item);
  document.getElementById('none').hidden = true;
  if (!document.querySelector('li.question.current')) select(item);
  if (q.action === 'push') loadDiff(q, diffstat, who);
}

function select(item) {
  document.querySelectorAll('li.question.current').forEach(i => i.classList.remove('current'));
  if (item) item.classList.add('current');
}

function diffTable(file) {
  const table = el('table', { class: 'diff' });
  for (const l of file.lines) {
    const tr = el('tr', { class: l.finding ? `${l.kind} finding` : l.kind });
    if (l.kind === 'hunk') {
      tr.append(el('td', { class: 'num' }), el('td', { class: 'num' }), el('td', { class: 'text' }, l.text));
    } else {
      const sign = l.kind === 'added' ? '+' : l.kind === 'removed' ? '-' : ' ';
      tr.append(el('td', { class: 'num' }, l.old || ''), el('td', { class: 'num' }, l.new || ''),
        el('td', { class: 'text' }, sign + l.text));
    }
    table.append(tr);
    if (l.finding) {
      table.append(el('tr', { class: 'note' }, el('td', { class: 'num' }), el('td', { class: 'num' }),
        el('td', {}, `⚠ ${l.finding}`)));
    }
  }
  return el('div', { class: 'diff-scroll' }, table);
}

/** The diff of a held push, from the gateway's cache; shown only ever as text. */
async function loadDiff(q, box, who) {
  try {
    const r = await fetch(`${BASE}/diffstat?id=${encodeURIComponent(q.id)}`,
      { credentials: 'same-origin' });
    const d = await r.json();
    box.replaceChildren();
    for (const [k, v] of Object.entries(d.asker || {})) row(who, k, v);
    if (d.authors && d.authors.length) row(who, 'commit authors', d.authors.join(', '));
    if (!r.ok) {
      box.append(`diff: ${d.error || r.status}`);
      return;
    }
    if (d.unavailable) {
      box.append(el('span', { class: 'quiet' }, `no diff: ${d.unavailable}`));
      return;
    }
    box.append(el('div', { class: 'stat' }, `${d.files.length + d.unlisted} file(s) changed, `,
      el('span', { class: 'added' }, `+${d.added}`), ' ',
      el('span', { class: 'removed' }, `-${d.removed}`), ` against ${d.base}`,
      d.unlisted ? ` (${d.unlisted} more files not listed)` : ''));
    if (d.findings && d.findings.length) {
      const list = el('ul', { class: 'findings' });
      for (const f of d.findings) list.append(el('li', { 'data-decision': f.decision }, `${f.decision}: ${f.text}`));
      box.append(el('h3', {}, 'What the content rules found'), list);
    }
    const many = d.files.length > 20;
    for (const f of d.files) {
      const name = f.oldPath ? `${f.oldPath} → ${f.path}` : f.path;
      const head = el('summary', {}, `${name} (${f.change}${f.binary ? ', binary' : ''}) `,
        el('span', { class: 'added' }, `+${f.added}`), ' ', el('span', { class: 'removed' }, `-${f.removed}`));
      const details = el('details', { class: 'file', open: !many || f.lines.some(l => l.finding) }, head);
      if (f.lines.length) details.append(diffTable(f));
      if (f.hiddenLines) {
        details.append(el('p', { class: 'cut' }, `${f.hiddenLines} more lines not shown: the page ` +
          `shows at most ${d.maxLines} lines of one push; fetch the pushed commit to read the rest.`));
      }
      box.append(details);
    }
  } catch (e) {
    box.textContent = 'diff: could not be loaded';
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
  if (item) {
    const next = item.nextElementSibling || item.previousElementSibling;
    if (item.classList.contains('current')) select(next);
    item.remove();
  }
  if (!document.querySelector('li.question')) document.getElementById('none').hidden = false;
  document.getElementById('ended-none').hidden = true;
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
    const none = !(d.entries && d.entries.length);
    document.getElementById('audit').hidden = none;
    document.getElementById('audit-none').hidden = !none;
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
  document.getElementById('help-toggle').addEventListener('click', toggleHelp);
  document.addEventListener('keydown', shortcut);
  listen();
  loadAudit();
  setInterval(loadAudit, 30000);
  setInterval(tickCountdowns, 1000);
}

function toggleHelp() {
  const help = document.getElementById('help');
  help.hidden = !help.hidden;
}

/** Keys act on the selected question; never while typing in a field. */
function shortcut(e) {
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  const typing = e.target instanceof HTMLInputElement;
  if (e.key === 'Escape') {
    if (typing) e.target.blur();
    document.querySelectorAll('.confirm').forEach(c => { c.hidden = true; });
    document.getElementById('help').hidden = true;
    return;
  }
  if (typing) return;
  const items = [...document.querySelectorAll('li.question')];
  const current = document.querySelector('li.question.current');
  const at = items.indexOf(current);
  const act = {
    'j': () => { const n = items[Math.min(items.length - 1, at + 1)]; select(n); n && n.scrollIntoView({ block: 'nearest' }); },
    'k': () => { const n = items[Math.max(0, at - 1)]; select(n); n && n.scrollIntoView({ block: 'nearest' }); },
    'a': () => current && current.querySelector('button.allow').click(),
    'd': () => current && current.querySelector('button.deny').click(),
    'n': () => current && current.querySelector('input.note').focus(),
    'f': () => {
      if (!current) return;
      const files = [...current.querySelectorAll('details.file')];
      const open = files.some(f => !f.open);
      files.forEach(f => { f.open = open; });
    },
    '?': toggleHelp,
  }[e.key];
  if (act) {
    e.preventDefault();
    act();
  }
}

document.addEventListener('DOMContentLoaded', start);
