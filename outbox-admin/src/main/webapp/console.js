// The operator console (issue 22). Plain JavaScript over the admin API, with the browser's own login: every
// call goes to api/ on this server and nowhere else. Data from the server is only ever set as text, never as
// markup, so an event body or a reason cannot inject anything into the page.
'use strict';

const state = { user: null, roles: [], ages: [], detailId: null, shownRequest: null };
const REFRESH_MS = 5000;
const CHART_POINTS = 120; // ten minutes at one point every five seconds, kept in the page only

// Against the page's own address without any user:password@ in it: fetch refuses URLs with credentials, and
// the browser adds the login it already holds for this server.
const API = new URL('api/', location.origin + location.pathname);

async function api(method, path, body) {
  let response;
  try {
    response = await fetch(new URL(path, API), {
      method,
      credentials: 'same-origin',
      headers: { 'Accept': 'application/json', 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (e) {
    return { status: 0, ok: false, json: { error: 'the server did not answer (' + e.message + ')' } };
  }
  const text = await response.text();
  let json = {};
  try { json = text ? JSON.parse(text) : {}; } catch (e) { json = { error: text }; }
  if (response.status === 401 || (response.status === 403 && path === 'backlog')) stopRefresh();
  return { status: response.status, ok: response.ok, json };
}

// A login that no longer works must not keep trying every 5 s: on Liberty each try counts towards the lockout.
let refresh = null;
function stopRefresh() {
  if (refresh !== null) {
    clearInterval(refresh);
    refresh = null;
    say('the login is no longer accepted: reload the page to log in again');
  }
}

// Each view loads one thing at a time: an answer that arrives after a newer request started is dropped.
const latest = {};
function ticket(view) {
  latest[view] = (latest[view] || 0) + 1;
  const mine = latest[view];
  return () => latest[view] === mine;
}

function el(tag, text, attributes) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  Object.entries(attributes || {}).forEach(([k, v]) => node.setAttribute(k, v));
  return node;
}

function row(cells) {
  const tr = el('tr');
  cells.forEach(c => tr.appendChild(c instanceof Node ? c : el('td', c)));
  return tr;
}

function say(text) { document.getElementById('message').textContent = text; }

function can(role) { return state.roles.includes(role); }

function duration(s) {
  if (s < 120) return s.toFixed(1) + ' s';
  if (s < 7200) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// Roles: whatever this person may not do is not offered (the API refuses it all the same).
async function identify() {
  const me = await api('GET', 'me');
  if (!me.ok) { say('who is logged in: ' + (me.json.error || me.status)); return; }
  state.user = me.json.user;
  state.roles = me.json.roles || [];
  document.getElementById('who').textContent = state.user + ' (' + state.roles.join(', ') + ')';
  document.querySelectorAll('[data-role]').forEach(node => { node.hidden = !can(node.dataset.role); });
}

function show(view) {
  document.querySelectorAll('nav button').forEach(b => b.classList.toggle('current', b.dataset.view === view));
  document.querySelectorAll('body > section').forEach(s => { s.hidden = s.id !== view; });
  if (view === 'parked') loadParked();
  if (view === 'audit') loadAudit();
  if (view === 'replay') loadWaiting();
  if (view === 'gaps') loadGaps();
}

// Backlog: per event type, against the age readiness allows; the chart is the oldest age of all types.
async function loadBacklog() {
  const current = ticket('backlog');
  const reply = await api('GET', 'backlog');
  if (!current()) return;
  if (!reply.ok) { say('backlog: ' + (reply.json.error || reply.status)); return; }
  const rows = document.getElementById('backlog-rows');
  rows.replaceChildren();
  let oldest = 0;
  reply.json.types.forEach(t => {
    oldest = Math.max(oldest, t.oldestPendingSeconds);
    const age = el('td', duration(t.oldestPendingSeconds));
    if (t.oldestPendingSeconds > t.allowedAgeSeconds) age.className = 'late';
    const failing = Object.entries(t.failing).map(([k, v]) => k + ': ' + v).join(', ') || '-';
    rows.appendChild(row([t.eventType, t.pending, age, duration(t.allowedAgeSeconds), t.parked, failing]));
  });
  if (reply.json.types.length === 0) rows.appendChild(row(['nothing pending or parked', '', '', '', '', '']));
  document.getElementById('backlog-read').textContent = 'read ' + new Date().toLocaleTimeString();
  state.ages.push(oldest);
  if (state.ages.length > CHART_POINTS) state.ages.shift();
  drawChart();
}

function drawChart() {
  const svg = document.getElementById('backlog-chart');
  const top = Math.max(1, ...state.ages);
  const points = state.ages.map((a, i) => (i * 600 / (CHART_POINTS - 1)).toFixed(1) + ','
      + (115 - a / top * 110).toFixed(1)).join(' ');
  svg.replaceChildren();
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', points);
  line.setAttribute('fill', 'none');
  line.setAttribute('stroke', '#2a6');
  line.setAttribute('stroke-width', '2');
  svg.appendChild(line);
  const label = document.createElementNS('http://www.w3.org/2000/svg', 'text');
  label.setAttribute('x', '4');
  label.setAttribute('y', '14');
  label.setAttribute('font-size', '12');
  label.textContent = 'max ' + duration(top);
  svg.appendChild(label);
}

// Parked events, grouped by why they parked and their type. Lists carry no bodies: a body is shown only when
// an operator opens that event, and the server audits the read.
async function loadParked() {
  const current = ticket('parked');
  const reply = await api('GET', 'parked?limit=1000');
  if (!current()) return;
  const groups = document.getElementById('parked-groups');
  groups.replaceChildren();
  if (!reply.ok) { say('parked: ' + (reply.json.error || reply.status)); return; }
  const byGroup = new Map();
  reply.json.parked.forEach(e => {
    const key = (e.lastErrorClass || 'no error class') + ' / ' + e.eventType;
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key).push(e);
  });
  if (byGroup.size === 0) groups.appendChild(el('p', 'No parked events.', { id: 'no-parked' }));
  byGroup.forEach((events, key) => {
    const box = el('div', null, { class: 'group', 'data-group': key });
    box.appendChild(el('h3', key + ' (' + events.length + ')'));
    const table = el('table');
    table.appendChild(row(['event id', 'aggregate', 'version', 'attempts', 'recorded', 'parked', '']
      .map(h => el('th', h))));
    events.forEach(e => {
      const action = el('td');
      if (can('outbox-operator')) {
        const open = el('button', 'Open', { type: 'button', 'data-event': e.eventId });
        open.addEventListener('click', () => openEvent(e.eventId));
        action.appendChild(open);
      }
      table.appendChild(row([el('td', e.eventId, { class: 'event-id' }), e.aggregateType + ' ' + e.aggregateId,
        e.aggregateVersion, e.attempts, e.createdAt || '', parkedSince(e), action]));
    });
    box.appendChild(table);
    // A bulk resume selects by error class: a group without one is resumed event by event.
    const errorClass = events[0].lastErrorClass;
    const eventType = events[0].eventType;
    if (can('outbox-operator') && errorClass) {
      const reason = el('input', null, { type: 'text', placeholder: 'reason', class: 'group-reason' });
      const resume = el('button', 'Resume this group', { type: 'button', class: 'group-resume' });
      resume.addEventListener('click', () => resumeGroup(errorClass, eventType, reason.value));
      box.appendChild(reason);
      box.appendChild(resume);
    }
    groups.appendChild(box);
  });
}

// When it parked, and how long ago by this browser's clock (near enough for 'minutes' or 'days'). An event
// parked by a release older than schema V8 has no time.
function parkedSince(e) {
  if (!e.parkedAt) return 'unknown';
  const ago = (Date.now() - Date.parse(e.parkedAt)) / 1000;
  return e.parkedAt + (ago >= 0 ? ' (' + duration(ago) + ' ago)' : '');
}

async function openEvent(id) {
  const current = ticket('event');
  closeEvent();
  if (!id) return;
  const reply = await api('GET', 'events/' + encodeURIComponent(id));
  if (!current()) return;
  if (!reply.ok) { say('event ' + id + ': ' + (reply.json.error || reply.status)); return; }
  const e = reply.json;
  state.detailId = id;
  document.getElementById('event-detail').hidden = false;
  document.getElementById('detail-id').textContent = id;
  document.getElementById('detail-facts').textContent = e.eventType + ' of ' + e.aggregateType + ' '
      + e.aggregateId + ' version ' + e.aggregateVersion + ', ' + e.state + ', ' + e.attempts + ' attempts'
      + (e.lastErrorClass ? ', last error ' + e.lastErrorClass : '')
      + (e.parkedAt ? ', parked at ' + e.parkedAt : '');
  // Only a parked event is fixed or resumed; any other is shown for reading.
  ['detail-fix', 'detail-resume'].forEach(b => { document.getElementById(b).disabled = e.state !== 'PARKED'; });
  document.getElementById('detail-payload').value = e.payload || '';
  document.getElementById('detail-payload').placeholder = e.payloadRef ? 'body by reference: ' + e.payloadRef : '';
  document.getElementById('detail-schema').value = e.schemaVersion;
}

// Closing forgets the event: its body does not stay in the page, its reason does not carry over to the next one.
function closeEvent() {
  state.detailId = null;
  document.getElementById('event-detail').hidden = true;
  document.getElementById('detail-payload').value = '';
  document.getElementById('detail-reason').value = '';
  document.getElementById('detail-error').textContent = '';
}

async function fixEvent() {
  // The body goes as the text the operator wrote: parsed here, JavaScript would round big or exact numbers.
  // The server checks it is one JSON object and names what is wrong.
  const reply = await api('PUT', 'parked/' + encodeURIComponent(state.detailId), {
    payload: document.getElementById('detail-payload').value,
    schemaVersion: Number(document.getElementById('detail-schema').value),
    reason: document.getElementById('detail-reason').value,
  });
  document.getElementById('detail-error').textContent = reply.ok ? '' : reply.json.error || ('HTTP ' + reply.status);
  if (awaitsApproval(reply, 'the fix of ' + state.detailId)) return;
  if (reply.ok) say('fixed ' + state.detailId + ': schema version ' + reply.json.schemaVersion);
}

// R9.4: above the person's approval threshold a fix or a resume waits for a second person (202), who sees it in the
// list of waiting requests; the request is opened below so its requester can follow it.
function awaitsApproval(reply, what) {
  if (reply.status !== 202) return false;
  say(what + ' awaits a second person: request ' + reply.json.requestId);
  document.getElementById('request-id').value = reply.json.requestId;
  showDecision(null);
  return true;
}

async function resumeEvent() {
  const id = state.detailId;
  const reply = await api('POST', 'parked/' + encodeURIComponent(id) + '/resume',
      { reason: document.getElementById('detail-reason').value });
  document.getElementById('detail-error').textContent = reply.ok ? '' : reply.json.error || ('HTTP ' + reply.status);
  if (awaitsApproval(reply, 'the resume of ' + id)) return;
  if (reply.ok) {
    say('resumed ' + id + ': it is ' + reply.json.state + ' again');
    closeEvent();
    loadParked();
  }
}

// A group goes through the replay rules: a dry run first, then the request, which may wait for an approver.
async function resumeGroup(errorClass, eventType, reason) {
  const selection = { parkedWith: errorClass, eventType };
  const plan = await api('POST', 'replays', selection);
  if (!plan.ok) { say('resume group: ' + (plan.json.error || plan.status)); return; }
  if (!window.confirm('Resume ' + plan.json.events + ' parked events (' + errorClass + ', ' + eventType + ')?'
      + (plan.json.approvalRequired ? ' A second person must approve it.' : ''))) return;
  const decision = await api('POST', 'replays', Object.assign({ dryRun: false, reason }, selection));
  say(decision.ok ? 'group resume ' + decision.json.requestId + ': ' + decision.json.state
      : 'resume group: ' + (decision.json.error || decision.status));
  loadParked();
}

// Consumers' gaps (R5.7) and forks (R7.7). A skip asks for its reason and says what it costs before it goes.
async function loadGaps() {
  const current = ticket('gaps');
  const reply = await api('GET', 'gaps?limit=1000');
  if (!current()) return;
  const rows = document.getElementById('gap-rows');
  const conflicts = document.getElementById('conflict-rows');
  rows.replaceChildren();
  conflicts.replaceChildren();
  if (!reply.ok) { say('gaps: ' + (reply.json.error || reply.status)); return; }
  reply.json.gaps.forEach(g => {
    const action = el('td');
    const missing = g.missingFrom > g.missingTo ? 'none (' + g.failures + ' failures in its turn)'
        : g.missingFrom === g.missingTo ? String(g.missingFrom) : g.missingFrom + ' to ' + g.missingTo;
    if (can('outbox-operator') && g.missingFrom <= g.missingTo) {
      const skip = el('button', 'Skip ' + missing, { type: 'button',
        'data-skip': g.consumer + ' ' + g.aggregateType + ' ' + g.aggregateId });
      skip.addEventListener('click', () => skipGap(g));
      action.appendChild(skip);
    }
    rows.appendChild(row([g.consumer, g.aggregateType + ' ' + g.aggregateId, g.appliedThrough, missing,
      g.waitingEvents + ' from version ' + g.firstWaiting, g.waitingSince, g.failures, action]));
  });
  if (reply.json.gaps.length === 0) rows.appendChild(row(['no consumer waits', '', '', '', '', '', '', '']));
  reply.json.conflicts.forEach(c => conflicts.appendChild(row([c.consumer, el('td', c.eventId, { class: 'event-id' }),
    c.aggregateType + ' ' + c.aggregateId, c.aggregateVersion, c.eventType,
    c.appliedEventId || 'unknown (past the marks\' retention)'])));
  if (reply.json.conflicts.length === 0) conflicts.appendChild(row(['no forks', '', '', '', '', '']));
  document.getElementById('gaps-read').textContent = 'read ' + new Date().toLocaleTimeString();
}

async function skipGap(g) {
  const reason = window.prompt('Consumer ' + g.consumer + ' stops waiting for versions ' + g.missingFrom + ' to '
      + g.missingTo + ' of ' + g.aggregateType + ' ' + g.aggregateId + ' and applies what waited after them.'
      + ' Those versions will never be applied, even if they come later. Why?');
  if (!reason) return;
  const reply = await api('POST', 'gaps/skip', { consumer: g.consumer, aggregateType: g.aggregateType,
    aggregateId: g.aggregateId, throughVersion: g.missingTo, reason });
  say(reply.ok ? 'skipped versions ' + reply.json.skippedFrom + ' to ' + reply.json.skippedThrough + ' of '
      + g.aggregateId + ' at ' + g.consumer : 'skip: ' + (reply.json.error || reply.status));
  loadGaps();
}

function replaySelection() {
  const ids = document.getElementById('replay-ids').value.split(/\s+/).filter(s => s);
  if (ids.length > 0) return { eventIds: ids };
  const selection = { from: document.getElementById('replay-from').value, to: document.getElementById('replay-to').value };
  const type = document.getElementById('replay-type').value;
  if (type) selection.eventType = type;
  return selection;
}

async function previewReplay() {
  const reply = await api('POST', 'replays', replaySelection());
  document.getElementById('replay-result').textContent = reply.ok ? describePlan(reply.json)
      : 'refused: ' + (reply.json.error || reply.status);
}

function describePlan(p) {
  const counts = o => Object.entries(o).map(([k, v]) => k + ' ' + v).join(', ') || '-';
  return 'dry run: ' + p.events + ' events (' + counts(p.byEventType) + ')\n'
      + 'destinations: ' + counts(p.destinations) + '\n'
      + 'consumers that already have them: ' + counts(p.consumers) + ' (read from ' + p.consumersReadFrom
      + ' of the events)\n'
      + 'side effects recorded: ' + counts(p.sideEffects) + '\n'
      + (Object.keys(p.skipped).length ? 'skipped: ' + Object.entries(p.skipped).map(([k, v]) => k + ' (' + v + ')')
          .join(', ') + '\n' : '')
      + (p.approvalRequired ? 'needs a second person to approve\n' : '')
      + 'spread over ' + p.spreadOverSeconds + ' s';
}

async function requestReplay() {
  const body = Object.assign({ dryRun: false, reason: document.getElementById('replay-reason').value }, replaySelection());
  const reply = await api('POST', 'replays', body);
  document.getElementById('replay-result').textContent = reply.ok ? describeDecision(reply.json)
      : 'refused: ' + (reply.json.error || reply.status);
  if (reply.ok) {
    document.getElementById('request-id').value = reply.json.requestId;
    showDecision(null);
  }
}

function describeDecision(d) {
  return 'request ' + d.requestId + ': ' + d.state + ', ' + d.events + ' events'
      + (d.replayed > 0 ? ', ' + d.replayed + ' made due again' : '')
      + (d.progress ? '\nprogress: ' + ['PENDING', 'DELIVERED', 'PARKED'].map(s => (d.progress[s] || 0) + ' '
          + s.toLowerCase()).join(', ') : '')
      + '\nrequested by ' + d.requestedBy + ' (' + d.reason + ')'
      + (d.decidedBy ? '\ndecided by ' + d.decidedBy + ' at ' + d.decidedAt : '');
}

// What waits for a second person. An approver decides here; their own requests say why they cannot (R9.4).
async function loadWaiting() {
  const current = ticket('waiting');
  const reply = await api('GET', 'replays?limit=100');
  if (!current()) return;
  const rows = document.getElementById('waiting-rows');
  rows.replaceChildren();
  if (!reply.ok) { say('waiting replays: ' + (reply.json.error || reply.status)); return; }
  reply.json.waiting.forEach(r => {
    const actions = el('td');
    if (can('outbox-approver')) {
      if (r.requestedBy === state.user) {
        actions.appendChild(el('span', 'yours: a second person decides', { class: 'note' }));
      } else {
        const show = el('button', 'Show', { type: 'button', 'data-show': r.requestId });
        show.addEventListener('click', () => { document.getElementById('request-id').value = r.requestId; showRequest(); });
        actions.appendChild(show);
        // A content change is decided on its diff: only from the request it opens, never from the list.
        (r.selection.startsWith('fix:') ? [] : ['approve', 'reject']).forEach(decision => {
          const button = el('button', decision === 'approve' ? 'Approve' : 'Reject',
              { type: 'button', 'data-decide': decision, 'data-request': r.requestId });
          button.addEventListener('click', () => decideRequest(r.requestId, decision));
          actions.appendChild(button);
        });
      }
    }
    rows.appendChild(row([r.requestId, requestKind(r.selection), r.requestedBy, r.reason, r.events, actions]));
  });
  if (reply.json.waiting.length === 0) rows.appendChild(row(['nothing waits', '', '', '', '', '']));
}

// What a request does, from its stored selection (fix:<id>, resume:<id>, parked:..., ids:..., range:...).
function requestKind(selection) {
  if (selection.startsWith('fix:')) return 'content change of ' + selection.substring(4);
  if (selection.startsWith('resume:')) return 'resume of ' + selection.substring(7);
  if (selection.startsWith('parked:')) return 'bulk resume';
  return 'replay';
}

function requestId() {
  return document.getElementById('request-id').value.trim();
}

async function showRequest() {
  if (!requestId()) return;
  showDecision(await api('GET', 'replays/' + encodeURIComponent(requestId())));
}

async function decideRequest(id, decision) {
  if (!id) return;
  document.getElementById('request-id').value = id;
  let body;
  if (decision === 'reject') {
    // A rejection's reason is the approver's own, asked for here; the API refuses an empty one too.
    const reason = window.prompt('Why is replay ' + id + ' rejected?');
    if (!reason) return;
    body = { reason };
  }
  showDecision(await api('POST', 'replays/' + encodeURIComponent(id) + '/' + decision, body));
  loadWaiting();
}

// Shows a request and what the approve and reject buttons would decide; null clears it (the field was edited).
function showDecision(reply) {
  state.shownRequest = reply && reply.ok ? reply.json.requestId : null;
  if (!reply) {
    document.getElementById('request-result').textContent = '';
    ['request-approve', 'request-reject'].forEach(b => { document.getElementById(b).disabled = true; });
    document.getElementById('request-why').textContent = '';
    showChange(undefined);
    return;
  }
  document.getElementById('request-result').textContent = reply.ok ? describeDecision(reply.json)
      : 'refused: ' + (reply.json.error || reply.status);
  const why = document.getElementById('request-why');
  const mine = reply.ok && reply.json.requestedBy === state.user;
  const waiting = reply.ok && reply.json.state === 'AWAITING_APPROVAL';
  // R9.4: the requester cannot approve their own request; the button says why instead of failing later.
  ['request-approve', 'request-reject'].forEach(b => { document.getElementById(b).disabled = mine || !waiting; });
  why.textContent = mine && waiting ? 'You requested this: a second person approves or rejects it.' : '';
  showChange(reply.ok ? reply.json.change : undefined);
}

// A content change as the approver decides on it: each changed place with its value before and after, as JSON text.
function showChange(change) {
  const table = document.getElementById('request-change');
  const rows = document.getElementById('request-change-rows');
  rows.replaceChildren();
  table.hidden = !change;
  // The exact text of each value: a number parsed by JSON.parse may have been rounded.
  (change || []).forEach(c => {
    rows.appendChild(row([c.path,
      el('td', 'beforeText' in c ? c.beforeText : '(absent)', { class: 'removed' }),
      el('td', 'afterText' in c ? c.afterText : '(absent)', { class: 'added' })]));
  });
  if (change && change.length === 0) rows.appendChild(row(['no change to the content', '', '']));
}

async function loadAudit() {
  const eventId = document.getElementById('audit-event').value.trim();
  const actor = document.getElementById('audit-actor').value.trim();
  const current = ticket('audit');
  // Both filters run on the server, over the whole trail (newest 1,000 shown).
  const reply = await api('GET', 'audit?limit=1000' + (eventId ? '&eventId=' + encodeURIComponent(eventId) : '')
      + (actor ? '&actor=' + encodeURIComponent(actor) : ''));
  if (!current()) return;
  const rows = document.getElementById('audit-rows');
  rows.replaceChildren();
  if (!reply.ok) { say('audit: ' + (reply.json.error || reply.status)); return; }
  reply.json.entries.forEach(e =>
    rows.appendChild(row([e.at, e.actor, e.action, e.eventId || e.requestId || '', e.detail])));
}

document.addEventListener('DOMContentLoaded', async () => {
  document.querySelectorAll('nav button').forEach(b => b.addEventListener('click', () => show(b.dataset.view)));
  document.getElementById('lookup').addEventListener('click',
      () => openEvent(document.getElementById('lookup-id').value.trim()));
  document.getElementById('detail-fix').addEventListener('click', fixEvent);
  document.getElementById('detail-resume').addEventListener('click', resumeEvent);
  document.getElementById('detail-close').addEventListener('click', closeEvent);
  document.getElementById('replay-preview').addEventListener('click', previewReplay);
  document.getElementById('replay-request').addEventListener('click', requestReplay);
  document.getElementById('request-show').addEventListener('click', showRequest);
  // The buttons below a request decide the request shown, whatever was typed into the field since.
  document.getElementById('request-approve').addEventListener('click', () => decideRequest(state.shownRequest, 'approve'));
  document.getElementById('request-reject').addEventListener('click', () => decideRequest(state.shownRequest, 'reject'));
  document.getElementById('request-id').addEventListener('input', () => showDecision(null));
  document.getElementById('audit-load').addEventListener('click', loadAudit);
  document.getElementById('waiting-load').addEventListener('click', loadWaiting);
  document.getElementById('gaps-load').addEventListener('click', loadGaps);
  await identify();
  await loadBacklog();
  refresh = setInterval(loadBacklog, REFRESH_MS);
});
