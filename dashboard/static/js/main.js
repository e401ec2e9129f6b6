// Entry point: log in (one-time code from the URL fragment, or a pasted
// token), then show the tabs and follow the live event stream.

import * as api from './api.js';
import { emit, on, pageQuery, refreshServers, serversEvent } from './store.js';
import { toast } from './dom.js';
import { mountServers } from './servers.js';
import { mountCatalog } from './catalog.js';
import { mountSettings } from './settings.js';
import { mountInspect } from './inspect.js';
import { mountActivity } from './activity.js';
import { mountConnect } from './connect.js';

const TABS = ['servers', 'catalog', 'inspect', 'settings', 'activity', 'connect'];
let stopEvents = null;
let mounted = false;

async function start() {
  const code = new URLSearchParams(location.hash.slice(1)).get('code');
  if (code) {
    // The fragment never reaches a server or a log; drop it from history too.
    history.replaceState(null, '', location.pathname + location.search);
    try {
      api.setToken(await api.exchangeCode(code));
    } catch (err) {
      showLogin(`That login link did not work: ${err.message}`);
      return;
    }
  }
  if (api.token() === null && !(await authOff())) {
    showLogin('');
    return;
  }
  await showApp();
}

/** authOff reports whether serve answers without a token (auth turned off). */
async function authOff() {
  try {
    await api.get('/api/status');
    api.setToken('');
    return true;
  } catch {
    return false;
  }
}

function showLogin(message) {
  document.querySelector('.tabs').hidden = true;
  document.querySelector('.topbar-end').hidden = true;
  for (const t of TABS) document.getElementById(`panel-${t}`).hidden = true;
  const login = document.getElementById('login');
  login.hidden = false;
  document.getElementById('login-error').textContent = message;
  document.getElementById('login-token').focus();
}

async function showApp() {
  try {
    await refreshServers(api.get);
  } catch (err) {
    if (err.status === 401) {
      api.clearToken();
      showLogin('The saved token was not accepted; log in again.');
      return;
    }
    toast(err.message, 'error');
  }
  document.getElementById('login').hidden = true;
  document.querySelector('.tabs').hidden = false;
  document.querySelector('.topbar-end').hidden = false;
  if (!mounted) {
    mounted = true;
    mountServers(document.getElementById('panel-servers'));
    mountCatalog(document.getElementById('panel-catalog'), { selectTab });
    mountSettings(document.getElementById('panel-settings'));
    mountInspect(document.getElementById('panel-inspect'));
    mountActivity(document.getElementById('panel-activity'), { selectTab });
    mountConnect(document.getElementById('panel-connect'));
  }
  const fromHash = location.hash.slice(1);
  selectTab(TABS.includes(fromHash) ? fromHash : 'servers', false);
  followEvents();
}

// "Show more" lists more servers: the stream follows the larger page.
on('limit', () => {
  if (stopEvents) followEvents();
});

function followEvents() {
  if (stopEvents) stopEvents();
  const live = document.getElementById('live');
  const text = live.querySelector('.live-text');
  stopEvents = api.streamEvents((name, data) => {
    if (name === 'servers') serversEvent(data);
    else if (name === 'settings') emit('settings', data);
  }, (state, secs) => {
    live.dataset.state = state;
    emit('stream', state);
    if (state === 'live') {
      // The stream's first event is the whole list: nothing missed while away needs a fetch.
      text.textContent = 'Live';
    } else if (state === 'poll') {
      text.textContent = 'Refreshing every 3 s';
    } else if (state === 'retry') {
      text.textContent = `serve unreachable · retrying in ${secs} s`;
    } else {
      text.textContent = 'Logged out';
    }
  }, pageQuery());
}

/** selectTab shows one tab's panel; focus moves to the tab when asked. */
export function selectTab(name, focus = false) {
  for (const t of TABS) {
    const tab = document.getElementById(`tab-${t}`);
    const on = t === name;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    document.getElementById(`panel-${t}`).hidden = !on;
    if (on && focus) tab.focus();
  }
  if (location.hash.slice(1) !== name) history.replaceState(null, '', `#${name}`);
  emit('tab', name);
}

function wireTabs() {
  const list = document.querySelector('[role="tablist"]');
  list.addEventListener('click', (e) => {
    const tab = e.target.closest('[role="tab"]');
    if (tab) selectTab(tab.id.replace('tab-', ''), true);
  });
  list.addEventListener('keydown', (e) => {
    const current = TABS.indexOf(document.activeElement.id.replace('tab-', ''));
    if (current < 0) return;
    let next = null;
    if (e.key === 'ArrowRight') next = (current + 1) % TABS.length;
    else if (e.key === 'ArrowLeft') next = (current + TABS.length - 1) % TABS.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = TABS.length - 1;
    if (next === null) return;
    e.preventDefault();
    selectTab(TABS[next], true);
  });
}

function wireLogin() {
  document.getElementById('login-form').addEventListener('submit', async (e) => {
    e.preventDefault();
    const input = document.getElementById('login-token');
    const t = input.value.trim();
    if (!t) {
      document.getElementById('login-error').textContent = 'Paste the token, or run `plughost dashboard`.';
      input.setAttribute('aria-invalid', 'true');
      return;
    }
    api.setToken(t);
    try {
      await api.get('/api/status');
    } catch (err) {
      api.clearToken();
      input.setAttribute('aria-invalid', 'true');
      document.getElementById('login-error').textContent = err.status === 401 ? 'That token was not accepted.' : err.message;
      return;
    }
    input.value = '';
    input.removeAttribute('aria-invalid');
    await showApp();
  });
  document.getElementById('logout').addEventListener('click', () => {
    api.clearToken();
    if (stopEvents) stopEvents();
    showLogin('Logged out.');
  });
  window.addEventListener('plughost:unauthorized', () => {
    if (api.token() === null) return;
    api.clearToken();
    if (stopEvents) stopEvents();
    showLogin('The session ended (serve restarted with a new token?); log in again.');
  });
}

// A `plughost dashboard` link pasted into this open tab changes only the
// fragment: no reload, so log in with its code here. A tab's name in the
// fragment selects the tab.
function wireLinks() {
  const follow = () => {
    const hash = location.hash.slice(1);
    if (new URLSearchParams(hash).has('code')) {
      if (stopEvents) stopEvents();
      start();
    } else if (TABS.includes(hash) && mounted && !document.querySelector('.tabs').hidden) {
      selectTab(hash);
    }
  };
  window.addEventListener('hashchange', follow);
  window.addEventListener('popstate', follow);
}

wireTabs();
wireLogin();
wireLinks();
start();
