// The operator console (issue 22). Plain JavaScript over the admin API, with the browser's own login: every
// call goes to api/ on this server and nowhere else. Data from the server is only ever set as text, never as
// markup, so an event body or a reason cannot inject anything into the page.
'use strict';

const state = { user: null, roles: [], ages: [], detailId: null };
const REFRESH_MS = 5000;
const CHART_POINTS = 120; // ten minutes at one point every five seconds, kept in the page only

// Against the page's own address without any user:password@ in it: fetch refuses URLs with credentials, and
// the browser adds the login it already holds for this server.
const API = new URL('api/', location.origin + location.pathname);

async function api(method, path, body) {
  const response = await fetch(new URL(path, API), {
    method,
    credentials: 'same-origin',
    headers: { 'Accept': 'application/json', 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json = {};
  try { json = text ? JSON.parse(text) : {}; } catch (e) { json = { error: text }; }
  return { status: response.status, ok: response.ok, json };
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

function seconds(s) {
  if (s < 120) return s.toFixed(1) + ' s';
  if (s < 7200) return (s / 60).toFixed(1) + ' min';
  return (s / 3600).toFixed(1) + ' h';
}

// Roles: whatever this person may not do is not offered (the API refuses it all the same).
async function who() {
  const me = await api('GET', 'me');
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
}

// Backlog: per event type, against the age readiness allows; the chart is the oldest age of all types.
async function loadBacklog() {
  const reply = await api('GET', 'backlog');
  if (!reply.ok) { say('backlog: ' + (reply.json.error || reply.status)); return; }
  const rows = document.getElementById('backlog-rows');
  rows.replaceChildren();
  let oldest = 0;
  reply.json.types.forEach(t => {
    oldest = Math.max(oldest, t.oldestPendingSeconds);
    const age = el('td', seconds(t.oldestPendingSeconds));
    if (t.oldestPendingSeconds > t.allowedAgeSeconds) age.className = 'late';
    const failing = Object.entries(t.failing).map(([k, v]) => k + ': ' + v).join(', ') || '-';
    rows.appendChild(row([t.eventType, t.pending, age, seconds(t.allowedAgeSeconds), t.parked, failing]));
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
  label.textContent = 'max ' + seconds(top);
  svg.appendChild(label);
}

// Parked events, grouped by why they parked and their type. Lists carry no bodies: a body is shown only when
// an operator opens that event, and the server audits the read.
async function loadParked() {
  const reply = await api('GET', 'parked?limit=1000');
  const groups = document.getElementById('parked-groups');
  groups.replaceChildren();
  if (!reply.ok) { say('parked: ' + (reply.json.error || reply.status)); return; }
  const byGroup = new Map();
  reply.json.parked.forEach(e => {
    const key = (e.lastErrorClass || 'unknown') + ' / ' + e.eventType;
    if (!byGroup.has(key)) byGroup.set(key, []);
    byGroup.get(key).push(e);
  });
  if (byGroup.size === 0) groups.appendChild(el('p', 'No parked events.', { id: 'no-parked' }));
  byGroup.forEach((events, key) => {
    const box = el('div', null, { class: 'group', 'data-group': key });
    box.appendChild(el('h3', key + ' (' + events.length + ')'));
    const table = el('table');
    table.appendChild(row(['event id', 'aggregate', 'version', 'attempts', 'recorded', ''].map(h => el('th', h))));
    events.forEach(e => {
      const action = el('td');
      if (can('outbox-operator')) {
        const open = el('button', 'Open', { type: 'button', 'data-event': e.eventId });
        open.addEventListener('click', () => openEvent(e.eventId));
        action.appendChild(open);
      }
      table.appendChild(row([el('td', e.eventId, { class: 'event-id' }), e.aggregateType + ' ' + e.aggregateId,
        e.aggregateVersion, e.attempts, e.createdAt || '', action]));
    });
    box.appendChild(table);
    if (can('outbox-operator')) {
      const [errorClass, eventType] = key.split(' / ');
      const reason = el('input', null, { type: 'text', placeholder: 'reason', class: 'group-reason' });
      const resume = el('button', 'Resume this group', { type: 'button', class: 'group-resume' });
      resume.addEventListener('click', () => resumeGroup(errorClass, eventType, reason.value));
      box.appendChild(reason);
      box.appendChild(resume);
    }
    groups.appendChild(box);
  });
}

async function openEvent(id) {
  const reply = await api('GET', 'events/' + encodeURIComponent(id));
  if (!reply.ok) { say('event ' + id + ': ' + (reply.json.error || reply.status)); return; }
  const e = reply.json;
  state.detailId = id;
  document.getElementById('event-detail').hidden = false;
  document.getElementById('detail-id').textContent = id;
  document.getElementById('detail-facts').textContent = e.eventType + ' of ' + e.aggregateType + ' '
      + e.aggregateId + ' version ' + e.aggregateVersion + ', ' + e.state + ', ' + e.attempts + ' attempts'
      + (e.lastErrorClass ? ', last error ' + e.lastErrorClass : '');
  // Only a parked event is fixed or resumed; any other is shown for reading.
  ['detail-fix', 'detail-resume'].forEach(b => { document.getElementById(b).disabled = e.state !== 'PARKED'; });
  document.getElementById('detail-payload').value = e.payload || '';
  document.getElementById('detail-schema').value = e.schemaVersion;
  document.getElementById('detail-error').textContent = '';
}

async function fixEvent() {
  const payloadText = document.getElementById('detail-payload').value;
  let payload;
  try { payload = JSON.parse(payloadText); } catch (e) { payload = payloadText; } // the server names what is wrong
  const reply = await api('PUT', 'parked/' + encodeURIComponent(state.detailId), {
    payload, schemaVersion: Number(document.getElementById('detail-schema').value),
    reason: document.getElementById('detail-reason').value,
  });
  document.getElementById('detail-error').textContent = reply.ok ? '' : reply.json.error || ('HTTP ' + reply.status);
  if (reply.ok) say('fixed ' + state.detailId + ': schema version ' + reply.json.schemaVersion);
}

async function resumeEvent() {
  const id = state.detailId;
  const reply = await api('POST', 'parked/' + encodeURIComponent(id) + '/resume',
      { reason: document.getElementById('detail-reason').value });
  document.getElementById('detail-error').textContent = reply.ok ? '' : reply.json.error || ('HTTP ' + reply.status);
  if (reply.ok) {
    say('resumed ' + id + ': it is ' + reply.json.state + ' again');
    document.getElementById('event-detail').hidden = true;
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
      + 'consumers that already have them: ' + counts(p.consumers) + '\n'
      + 'side effects recorded: ' + counts(p.sideEffects) + '\n'
      + (p.skipped.length ? 'skipped: ' + p.skipped.join(', ') + '\n' : '')
      + (p.approvalRequired ? 'needs a second person to approve\n' : '')
      + 'spread over ' + p.spreadOverSeconds + ' s';
}

async function requestReplay() {
  const body = Object.assign({ dryRun: false, reason: document.getElementById('replay-reason').value }, replaySelection());
  const reply = await api('POST', 'replays', body);
  document.getElementById('replay-result').textContent = reply.ok ? describeDecision(reply.json)
      : 'refused: ' + (reply.json.error || reply.status);
  if (reply.ok) document.getElementById('request-id').value = reply.json.requestId;
}

function describeDecision(d) {
  return 'request ' + d.requestId + ': ' + d.state + ', ' + d.events + ' events'
      + (d.replayed > 0 ? ', ' + d.replayed + ' made due again' : '')
      + (d.state === 'EXECUTED' ? ', ' + d.pending + ' still waiting to be sent' : '')
      + '\nrequested by ' + d.requestedBy + ' (' + d.reason + ')'
      + (d.decidedBy ? '\ndecided by ' + d.decidedBy + ' at ' + d.decidedAt : '');
}

// What waits for a second person. An approver decides here; their own requests say why they cannot (R9.4).
async function loadWaiting() {
  const reply = await api('GET', 'replays?limit=100');
  const rows = document.getElementById('waiting-rows');
  rows.replaceChildren();
  if (!reply.ok) { say('waiting replays: ' + (reply.json.error || reply.status)); return; }
  reply.json.waiting.forEach(r => {
    const actions = el('td');
    if (can('outbox-approver')) {
      if (r.requestedBy === state.user) {
        actions.appendChild(el('span', 'yours: a second person decides', { class: 'note' }));
      } else {
        ['approve', 'reject'].forEach(decision => {
          const button = el('button', decision === 'approve' ? 'Approve' : 'Reject',
              { type: 'button', 'data-decide': decision, 'data-request': r.requestId });
          button.addEventListener('click', async () => {
            document.getElementById('request-id').value = r.requestId;
            await showRequest(decision);
            loadWaiting();
          });
          actions.appendChild(button);
        });
      }
    }
    rows.appendChild(row([r.requestId, r.requestedBy, r.reason, r.events, actions]));
  });
  if (reply.json.waiting.length === 0) rows.appendChild(row(['nothing waits', '', '', '', '']));
}

async function showRequest(decide) {
  const id = encodeURIComponent(document.getElementById('request-id').value.trim());
  const reply = decide ? await api('POST', 'replays/' + id + '/' + decide, decide === 'reject' ? { reason: document.getElementById('replay-reason').value || 'rejected in the console' } : undefined)
      : await api('GET', 'replays/' + id);
  document.getElementById('request-result').textContent = reply.ok ? describeDecision(reply.json)
      : 'refused: ' + (reply.json.error || reply.status);
  const why = document.getElementById('request-why');
  const mine = reply.ok && reply.json.requestedBy === state.user;
  const waiting = reply.ok && reply.json.state === 'AWAITING_APPROVAL';
  // R9.4: the requester cannot approve their own request; the button says why instead of failing later.
  ['request-approve', 'request-reject'].forEach(b => { document.getElementById(b).disabled = mine || !waiting; });
  why.textContent = mine && waiting ? 'You requested this replay: a second person approves or rejects it.' : '';
}

async function loadAudit() {
  const eventId = document.getElementById('audit-event').value.trim();
  const actor = document.getElementById('audit-actor').value.trim();
  const reply = await api('GET', 'audit?limit=1000' + (eventId ? '&eventId=' + encodeURIComponent(eventId) : ''));
  const rows = document.getElementById('audit-rows');
  rows.replaceChildren();
  if (!reply.ok) { say('audit: ' + (reply.json.error || reply.status)); return; }
  reply.json.entries.filter(e => !actor || e.actor === actor).forEach(e =>
    rows.appendChild(row([e.at, e.actor, e.action, e.eventId || e.requestId || '', e.detail])));
}

document.addEventListener('DOMContentLoaded', async () => {
  document.querySelectorAll('nav button').forEach(b => b.addEventListener('click', () => show(b.dataset.view)));
  document.getElementById('lookup').addEventListener('click',
      () => openEvent(document.getElementById('lookup-id').value.trim()));
  document.getElementById('detail-fix').addEventListener('click', fixEvent);
  document.getElementById('detail-resume').addEventListener('click', resumeEvent);
  document.getElementById('detail-close').addEventListener('click', () => {
    document.getElementById('event-detail').hidden = true;
  });
  document.getElementById('replay-preview').addEventListener('click', previewReplay);
  document.getElementById('replay-request').addEventListener('click', requestReplay);
  document.getElementById('request-show').addEventListener('click', () => showRequest(null));
  document.getElementById('request-approve').addEventListener('click', () => showRequest('approve'));
  document.getElementById('request-reject').addEventListener('click', () => showRequest('reject'));
  document.getElementById('audit-load').addEventListener('click', loadAudit);
  document.getElementById('waiting-load').addEventListener('click', loadWaiting);
  await who();
  await loadBacklog();
  setInterval(loadBacklog, REFRESH_MS);
});
